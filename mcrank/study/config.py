"""The study's schema: every assumption of one Monte Carlo study, validated once, when built.

:class:`StudyConfig` is the one home of a study parameter. Text (the command line, experiment
files) is turned into values by :func:`parse_values`, at the edge, with one rule per kind of
value; the config then checks every value once, in ``__post_init__``, so a
:class:`StudyConfig` that exists is valid, and the engine trusts it. The procedure is in
``docs/method.md``, "The Monte Carlo study".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields

import numpy as np

from mcrank._rng import root_seed_sequence
from mcrank._validation import (
    MAX_STUDY_SAMPLES,
    as_float,
    check_beta_parameters,
    check_choice,
    check_count,
    check_positive,
    check_range,
    check_sd,
    parse_grid,
)
from mcrank.distributions import default_true_um
from mcrank.estimators import ESTIMATORS, default_estimator
from mcrank.metrics import METRICS
from mcrank.samplers import ERROR_MODELS, HEXAGON_DISTRIBUTIONS, TRUE_UM_DISTRIBUTIONS
from mcrank.study.kinds import DEFAULT_KIND, NCLASS_METRICS, STUDY_KINDS

__all__ = [
    "ESTIMATORS",
    "MAX_CLASSES",
    "MAX_SAMPLES",
    "MAX_SD",
    "MAX_SDS",
    "MAX_TEST_SIZE",
    "NCLASS_METRICS",
    "StudyConfig",
    "flag_groups",
    "kernel_arguments",
    "parse_count",
    "parse_metrics",
    "parse_sds",
    "parse_values",
    "reads",
    "study_parameters",
]

#: Largest mean of a classifier's class-0 scores in the ROC study: beyond 38 standard deviations
#: every binormal curve is the perfect one to double precision.
MAX_ROC_MU = 38.0
#: Range of the sd of a classifier's class-0 scores in the ROC study (the class-1 scores have
#: sd 1): wider and the curves are corners to double precision.
ROC_SIGMA_BOUNDS = (1e-3, 1e3)

#: Range of the Dirichlet parameter of the class proportions (see :func:`_checked`).
MIN_CONCENTRATION, MAX_CONCENTRATION = 0.01, 1e12
#: Closest a fixed prevalence of the roc study may come to 0 or 1 (see :func:`_checked_prevalence`).
MIN_PREVALENCE = 1e-6
#: Range of a probabilistic classifier's calibration slope (``docs/method.md``, "The
#: probabilistic-classifier study"): beyond, its stated probabilities are 0 or 1 to double
#: precision almost everywhere, or constant.
CALIBRATION_SLOPE_BOUNDS = (1e-2, 1e2)
#: Largest calibration intercept in absolute value: beyond, the stated probabilities are 0 or 1.
MAX_CALIBRATION_INTERCEPT = 30.0

#: Maximum number of samples a study accepts (the counts are int64; this keeps runs finite).
MAX_SAMPLES = MAX_STUDY_SAMPLES  # mcrank._validation says why it differs from evaluate's
#: Most classes a study takes (a pair draws about 3 n^2 variates).
MAX_CLASSES = 50
#: Maximum number of error sds in one study.
MAX_SDS = 10_000
#: Largest error sd of a study. From about 1e20 the perturbed matrix is ``sd * Z`` to double
#: precision (its entries before the errors lie in [0, 1]), so every larger sd ranks the pairs
#: as the errors ``Z`` alone do, and its percentage is the same (``mcrank evaluate`` draws its
#: errors with at most this sd for that reason). Far above it the sums of the roc study's yields
#: (four entries of ``sd * Z``) overflow: at 1e308 it printed 84 % incorrect where every sd from
#: 1e20 to 1e300 gives 72 % (5,000 pairs, seed 1).
MAX_SD = 1e300
#: Largest finite test set: beyond it the counts are the population's to 1e-6 (and above
#: 2**53 they would no longer be exact in floating point).
MAX_TEST_SIZE = 10**12


# --- text at the edge: one rule per kind of value --------------------------------------------


def _items(values) -> list:
    """A value or a list of them, each string split at commas: ``"0.1,0.2"`` is two items."""
    if isinstance(values, (str, int, float, np.integer, np.floating)):
        values = [values]
    if isinstance(values, (Mapping, set, frozenset)) or not isinstance(values, Iterable):
        raise ValueError(f"expected a value or a list of values, got {values!r}")
    items = []
    for value in values:
        items.extend(part.strip() for part in value.split(",") if part.strip()) if isinstance(value, str) else items.append(value)
    return items


def parse_count(text, what: str = "samples", *, minimum: int = 1, maximum: int = MAX_SAMPLES) -> int:
    """A whole number from ``"1000000"``, ``"1e6"`` or ``10**6``; ValueError naming ``what`` otherwise."""
    return check_count(text, what, minimum=minimum, maximum=maximum)


def parse_metrics(values) -> tuple[str, ...]:
    """Metric ids from ``"accuracy f1"`` items or ``"accuracy,f1"``: commas and list items alike."""
    return tuple(_items(values))


def parse_sds(values) -> tuple[float, ...]:
    """Error sds from numbers, strings, or grids ``"start:stop:step"`` (stop included);
    strings may hold several, separated by commas.

    Examples
    --------
    >>> parse_sds(["0.1", "0.2"])
    (0.1, 0.2)
    >>> parse_sds("0.1,0.2")
    (0.1, 0.2)
    >>> len(parse_sds("0:0.5:0.01"))
    51
    """
    try:
        items = _items(values)
    except ValueError:
        raise ValueError(f"sds must be a number, a grid 'start:stop:step' or a list of them, got {values!r}") from None
    sds: list[float] = []
    for value in items:
        if isinstance(value, str) and ":" in value:
            grid = _sd_grid(value)
            if len(sds) + grid.size > MAX_SDS:
                raise ValueError(f"the sd grid {value!r} has {grid.size:,} values; at most {MAX_SDS:,} are allowed")
            sds.extend(float(v) for v in grid)
        else:
            sds.append(check_sd(value, "error sd", maximum=MAX_SD))
    return tuple(sds)


def _sd_grid(value: str) -> np.ndarray:
    grid = parse_grid(value, "the sd grid", maximum=MAX_SDS)
    if grid[-1] > MAX_SD:
        raise ValueError(
            f"the stop of the sd grid {value!r} must be at most {MAX_SD:g} (the largest error sd), got {value.split(':')[1]!r}"
        )
    if grid[0] < 0:
        raise ValueError(f"the start of the sd grid {value!r} must be non-negative, got {value.split(':')[0]!r}")
    return grid


# --- the schema -------------------------------------------------------------------------------


def flag_groups() -> dict[str, str]:
    """The flag groups of ``mcrank run``, name -> title: the study's parameters, then those of
    each kind that has parameters of its own (:attr:`~mcrank.study.kinds.StudyKind.group`)."""
    return {"study": "the study (defaults: the paper's)", **{k.name: k.group for k in STUDY_KINDS.values() if k.group is not None}}


def _parameter(
    default,
    *,
    help: str,
    flag: str | None = None,
    parse=None,
    kinds=None,
    metavar=None,
    nargs=None,
    cli_type=None,
    choices=None,
    group: str = "study",
    kernel=None,
):
    """A field of :class:`StudyConfig` with what everything else derives from it: how text is
    parsed into it (``parse``, for the command line and experiment files alike), which kinds of
    study read it (``kinds``, None for every kind; given to another kind, a value other than the
    default is refused),
    its command-line flag (``flag``, ``metavar``, ``nargs``, ``cli_type`` for argparse's own
    conversion, ``choices``: a callable giving the allowed names, and ``help``), and what the
    kernels take of it (``kernel(value, config) -> {field of a kernel's named tuple: value}``,
    read by :func:`kernel_arguments`)."""
    metadata = {
        "help": help,
        "flag": flag,
        "parse": parse,
        "kinds": None if kinds is None else tuple(kinds),
        "metavar": metavar,
        "nargs": nargs,
        "cli_type": cli_type,
        "choices": choices,
        "group": group,
        "kernel": kernel,
    }
    return field(default=default, metadata=metadata)


def reads(parameter, kind: str) -> bool:
    """Whether study kind ``kind`` reads ``parameter`` (a field of :class:`StudyConfig`)."""
    kinds = parameter.metadata["kinds"]
    return kinds is None or kind in kinds


def _kind_help() -> str:
    return "what the classifiers are: " + " or ".join(f"{kind.name} ({kind.help})" for kind in STUDY_KINDS.values())


def _true_um_sd_help() -> str:
    """``--true-um-sd``'s help: the distributions that read it (their registry's ``reads_sd``)."""
    readers = [
        f"{d.name} ({'each hexagon coordinate' if d.hexagon else 'each element'})" for d in TRUE_UM_DISTRIBUTIONS.values() if d.reads_sd
    ]
    return f"sd for --true-um {' or '.join(readers)} (default 1/3)"


def _metrics_help() -> str:
    """``--metrics``'s help: the default metrics and scores, as the registries give them."""
    from mcrank.probabilities import DEFAULT_PROBABILITY_SCORES
    from mcrank.roc import DEFAULT_ROC_SCORES  # the ROC scores' registry: read when the parser is built

    return (
        f"metric ids, separated by spaces or commas (default: the paper's seven for 2 classes; {', '.join(NCLASS_METRICS)} for more; "
        f"with --study roc the scores {', '.join(DEFAULT_ROC_SCORES)}; with --study probabilities {', '.join(DEFAULT_PROBABILITY_SCORES)})"
    )


def _names(registry):
    """The names of a registry, as the ``choices`` of a flag (read when the parser is built)."""
    return lambda: tuple(registry)


@dataclass(frozen=True)
class StudyConfig:
    """Every assumption of one Monte Carlo study; the defaults are the paper's (§4.2).

    Built and checked at once: a bad value raises ValueError naming the parameter, and
    ``dataclasses.replace`` checks again. Numeric parameters must be numbers: parse text with
    :func:`parse_values` first.

    Parameters
    ----------
    kind : str
        A name in :data:`~mcrank.study.kinds.STUDY_KINDS`, what the classifiers of a pair are: given by their confusion matrices
        (the default: the paper's §4.2, any number of classes, finite test sets), or scoring
        classifiers given by binormal ROC curves, each at its best threshold (the paper's §5;
        ``docs/method.md``, "The ROC/AUC study"). The ``roc`` kind takes two classes, a
        hexagon distribution, the sample estimator and the ROC scores as ``metrics``
        (default :data:`mcrank.roc.DEFAULT_ROC_SCORES`), and reads ``prevalence``,
        ``roc_mu_range`` and ``roc_sigma_range``, which only it and the ``probabilities`` kind
        take. The ``probabilities`` kind compares probabilistic classifiers, binormal scores
        stated as probabilities with a calibration slope and intercept, each deciding by
        maximal expected utility (``docs/method.md``, "The probabilistic-classifier study"):
        the same rules as ``roc``, the probability scores as ``metrics`` (default
        :data:`mcrank.probabilities.DEFAULT_PROBABILITY_SCORES`), and it reads
        ``calibration_slope_range`` and ``calibration_intercept_range`` too.
    samples : int
        Number of pairs of classifiers.
    classes : int
        Number of classes n, 2 to :data:`MAX_CLASSES` (``docs/method.md``, "The n-class
        study"). The defaults of ``true_um``, ``metrics`` and ``rate_range`` follow it.
    true_um : str
        A name in :data:`mcrank.distributions.TRUE_UM_DISTRIBUTIONS` (built in: ``uniform``,
        ``gaussian``, ``uniform-elements``, ``gaussian-elements``), the distribution of true
        utility matrices (step 1): on the hexagon (the paper's, two
        classes only; ``uniform`` is the default for two), or element by element for any n
        (``uniform-elements`` is the default for three or more).
    true_um_sd : float
        Standard deviation of each coordinate for ``true_um="gaussian"`` (paper: 1/3; at
        most 10, above which that distribution is uniform within 1 %), and of each element
        around the identity for ``gaussian-elements``.
    error : str
        A name in :data:`mcrank.error_models.ERROR_MODELS` (built in: ``gaussian``,
        ``truncated``), the error model of the perturbed utility matrices (step 4).
    sds : tuple of float
        Error standard deviations ``s`` (step 4); may be empty if ``metrics`` is not.
    metrics : tuple of str
        Metric ids to count (default: the paper's seven for two classes,
        :data:`NCLASS_METRICS` for more); may be empty if ``sds`` is not. Each must be
        defined for ``classes`` classes.
    class_proportion : (float, float)
        Range of the uniform class-0 fraction ``p`` (step 2), with the hexagon distributions.
    class_concentration : float
        The Dirichlet parameter alpha of the class proportions (step 2) with the
        ``-elements`` distributions: 1 is uniform on the simplex.
    rate_beta : (float, float)
        Beta parameters of the recalls, TPR and TNR for two classes (step 3; paper: (2, 1)).
    rate_range : (float, float)
        recall = low + (high - low) * Beta (default ``(1/n, 1)``; the paper's (0.5, 1)).
    fbeta_beta : float
        The beta of the ``fbeta`` metric.
    seed : int or None
        Root seed; ``None`` draws fresh entropy, recorded in the result.
    chunk_size : int
        Samples per chunk; part of what makes a run reproducible.
    estimator : {"conditional", "sample"} or None
        How the perturbed utility matrix's percentage is estimated (``docs/method.md``, "The
        conditional estimator"). ``sample`` draws the errors, as the paper; ``conditional``
        averages each pair's probability of being ranked incorrectly, known in closed form
        under ``gaussian`` errors: the same percentage with about 4 times less variance.
        None (the default) takes ``conditional`` for ``gaussian`` errors and ``sample`` for
        ``truncated`` ones, which have no closed form (:attr:`estimator_used`), and so follows
        the error model when ``dataclasses.replace`` changes it; results record the one taken.
    test_size : int or None
        Items in each pair's test set (``docs/method.md``, "Finite test sets"): the class
        counts and each classifier's counts are drawn, and every metric and yield is scored
        on them. None (the default) compares the population confusion matrices, as the paper.
    prevalence : float or None
        ``roc`` kind: the fraction ``B`` of class 0, fixed in (0, 1); None (the default) draws
        ``B ~ Uniform(0, 1)`` for each pair.
    roc_mu_range : (float, float)
        ``roc`` kind: each classifier's class-0 score mean ``mu ~ Uniform(low, high)``
        (class-1 scores are N(0, 1)); default (0, 3); ``low == high`` fixes it.
    roc_sigma_range : (float, float)
        ``roc`` kind: each classifier's class-0 score sd, ``log sigma ~ Uniform(log low,
        log high)``; default (1/2, 2); ``(1, 1)`` gives equal variances, whose curves never
        cross.
    calibration_slope_range : (float, float)
        ``probabilities`` kind: each classifier's calibration slope ``a``, ``log a ~
        Uniform(log low, log high)``; default (1/2, 2); ``(1, 1)`` with an intercept range
        ``(0, 0)`` gives perfectly calibrated classifiers.
    calibration_intercept_range : (float, float)
        ``probabilities`` kind: each classifier's calibration intercept ``c ~ Uniform(low,
        high)``; default (-1, 1).
    """

    samples: int = _parameter(1_000_000, parse=parse_count, flag="--samples", metavar="N", help="number of pairs, e.g. 1e6 (default 1e6)")
    kind: str = _parameter(
        DEFAULT_KIND,
        flag="--study",
        choices=_names(STUDY_KINDS),
        help=_kind_help,
    )
    classes: int = _parameter(
        2,
        parse=lambda text: parse_count(text, "classes", minimum=2, maximum=MAX_CLASSES),
        flag="--classes",
        metavar="N",
        help="number of classes, 2 to 50 (default 2); sets the defaults of --true-um, --metrics and --rate-range",
        kernel=lambda v, c: {"classes": int(v)},
    )
    true_um: str | None = _parameter(
        None,
        flag="--true-um",
        choices=_names(TRUE_UM_DISTRIBUTIONS),
        help="distribution of true utility matrices: " + TRUE_UM_DISTRIBUTIONS.help(),
        kernel=lambda v, c: {"true_um": TRUE_UM_DISTRIBUTIONS[v].code},
    )
    true_um_sd: float = _parameter(
        1 / 3,
        flag="--true-um-sd",
        cli_type=float,
        metavar="SD",
        help=_true_um_sd_help,
        kernel=lambda v, c: {"true_um_sd": float(v)},
    )
    error: str = _parameter(
        next(iter(ERROR_MODELS)),
        flag="--error",
        choices=_names(ERROR_MODELS),
        help="error model of perturbed utility matrices: " + ERROR_MODELS.help(),
        kernel=lambda v, c: {"error": ERROR_MODELS[v].code},
    )
    sds: tuple[float, ...] = _parameter(
        (0.1,),
        parse=parse_sds,
        flag="--sd",
        nargs="+",
        metavar="SD",
        help="error sds: values and/or grids start:stop:step, separated by spaces or commas (default 0.1)",
        kernel=lambda v, c: {"sds": np.array(v, dtype=np.float64)},
    )
    metrics: tuple[str, ...] | None = _parameter(
        None,
        parse=parse_metrics,
        flag="--metrics",
        nargs="+",
        metavar="ID",
        help=_metrics_help,
        kernel=lambda v, c: STUDY_KINDS[c.kind].score_codes(v),
    )
    class_proportion: tuple[float, float] = _parameter(
        (0.0, 1.0),
        kinds=("confusion",),
        flag="--class-proportion",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="range of the class-0 fraction p (default 0 1)",
        kernel=lambda v, c: {"p_low": v[0], "p_high": v[1]},
    )
    class_concentration: float = _parameter(
        1.0,
        kinds=("confusion",),
        flag="--class-concentration",
        cli_type=float,
        metavar="ALPHA",
        help="Dirichlet parameter of the class proportions with the -elements distributions (default 1: uniform)",
        kernel=lambda v, c: {"concentration": float(v)},
    )
    rate_beta: tuple[float, float] = _parameter(
        (2.0, 1.0),
        kinds=("confusion",),
        flag="--rate-beta",
        nargs=2,
        cli_type=float,
        metavar=("ALPHA", "BETA"),
        help="Beta parameters of the recalls, TPR and TNR for two classes (default 2 1)",
        kernel=lambda v, c: {"rate_alpha": v[0], "rate_beta": v[1]},
    )
    rate_range: tuple[float, float] | None = _parameter(
        None,
        kinds=("confusion",),
        flag="--rate-range",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="recall (TPR, TNR) = LOW + (HIGH-LOW)*Beta (default 1/n 1: 0.5 1 for two classes)",
        kernel=lambda v, c: {"rate_low": v[0], "rate_high": v[1]},
    )
    fbeta_beta: float = _parameter(
        1.0,
        kinds=("confusion",),
        flag="--fbeta-beta",
        cli_type=float,
        metavar="BETA",
        help="beta of the fbeta metric (default 1)",
        kernel=lambda v, c: {"fbeta_beta": float(v)},
    )
    seed: int | None = _parameter(
        None,
        parse=lambda text: parse_count(text, "seed", minimum=0, maximum=2**128 - 1),
        flag="--seed",
        metavar="N",
        help="root seed (default: fresh entropy, printed with the results)",
    )
    chunk_size: int = _parameter(2**16, parse=lambda text: parse_count(text, "chunk_size", maximum=2**31 - 1), help="samples per chunk")
    estimator: str | None = _parameter(
        None,
        flag="--estimator",
        choices=_names(ESTIMATORS),
        help="how the perturbed utility matrix's %% is estimated: " + ESTIMATORS.help(),
        kernel=lambda v, c: {"conditional": ESTIMATORS[c.estimator_used].needs_closed_form},
    )
    test_size: int | None = _parameter(
        None,
        parse=lambda text: parse_count(text, "test_size", maximum=MAX_TEST_SIZE),
        kinds=("confusion",),
        flag="--test-size",
        metavar="N",
        help="items in each pair's test set, e.g. 100 or 1e4 (default: none, the population)",
        kernel=lambda v, c: {"test_size": 0 if v is None else int(v)},
    )
    prevalence: float | None = _parameter(
        None,
        parse=lambda text: as_float(text, "prevalence"),
        kinds=("roc", "probabilities"),
        group="roc",
        flag="--prevalence",
        metavar="B",
        help="fraction of class 0, fixed in (0, 1) (default: B ~ Uniform(0, 1) per pair)",
        kernel=lambda v, c: {"random_prevalence": v is None, "prevalence": 0.5 if v is None else float(v)},
    )
    roc_mu_range: tuple[float, float] = _parameter(
        (0.0, 3.0),
        kinds=("roc", "probabilities"),
        group="roc",
        flag="--roc-mu-range",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="class-0 score mean mu ~ Uniform(LOW, HIGH) (default 0 3)",
        kernel=lambda v, c: {"mu_low": float(v[0]), "mu_high": float(v[1])},
    )
    roc_sigma_range: tuple[float, float] = _parameter(
        (0.5, 2.0),
        kinds=("roc", "probabilities"),
        group="roc",
        flag="--roc-sigma-range",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="class-0 score sd, log-uniform on [LOW, HIGH] (default 0.5 2; 1 1: equal variances)",
        kernel=lambda v, c: {"log_sigma_low": math.log(v[0]), "log_sigma_high": math.log(v[1])},
    )
    calibration_slope_range: tuple[float, float] = _parameter(
        (0.5, 2.0),
        kinds=("probabilities",),
        group="probabilities",
        flag="--calibration-slope-range",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="calibration slope a of q = logistic(a l + c), log-uniform on [LOW, HIGH] (default 0.5 2; 1 1: none)",
        kernel=lambda v, c: {"log_slope_low": math.log(v[0]), "log_slope_high": math.log(v[1])},
    )
    calibration_intercept_range: tuple[float, float] = _parameter(
        (-1.0, 1.0),
        kinds=("probabilities",),
        group="probabilities",
        flag="--calibration-intercept-range",
        nargs=2,
        cli_type=float,
        metavar=("LOW", "HIGH"),
        help="calibration intercept c ~ Uniform(LOW, HIGH) (default -1 1; 0 0: none)",
        kernel=lambda v, c: {"intercept_low": float(v[0]), "intercept_high": float(v[1])},
    )

    def __post_init__(self):
        # The defaults that depend on the number of classes are taken once, here, so that the
        # config records them (and ``replace`` keeps them: give them anew with ``classes``).
        for name, value in _checked(self).items():
            object.__setattr__(self, name, value)
        _check_used(self)

    @property
    def binary(self) -> bool:
        """Whether the two-class kernels run the study: a kind they run
        (:attr:`~mcrank.study.kinds.StudyKind.two_class_kernels`), two classes, a hexagon
        distribution, an error model they draw
        (:attr:`~mcrank.error_models.ErrorModel.two_class_kernel`) and metrics with two-class
        forms (else the n-class kernels do)."""
        return (
            STUDY_KINDS[self.kind].two_class_kernels and self.classes == 2 and self.true_um in HEXAGON_DISTRIBUTIONS
            and ERROR_MODELS[self.error].two_class_kernel and all(METRICS[m].binary is not None for m in self.metrics)
        )  # fmt: skip

    @property
    def estimator_used(self) -> str:
        """The estimator of the perturbed utility rows: ``estimator``, or by default
        ``conditional`` under gaussian errors and ``sample`` under truncated ones."""
        if self.estimator is not None:
            return self.estimator
        # Some kinds have no closed form under any error model (the roc kind's best threshold
        # moves with the errors).
        return default_estimator(ERROR_MODELS[self.error].closed_form and STUDY_KINDS[self.kind].closed_form is None).name

    def to_dict(self) -> dict:
        """A JSON-ready dictionary of every parameter the study's kind reads (the estimator
        the one used); the default kind's records (``confusion``) carry no ``kind`` key, as
        before there were other kinds."""
        values = {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}
        unused = _unread_by(self.kind).keys() | ({"kind"} if self.kind == DEFAULT_KIND else set())
        return {**{k: v for k, v in values.items() if k not in unused}, "estimator": self.estimator_used}

    @classmethod
    def from_dict(cls, values: Mapping, *, source: str = "config") -> StudyConfig:
        """Build a config from a dictionary of values, rejecting unknown keys by name."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"{source}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(known))}")
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def kernel_arguments(config: StudyConfig, arguments: type):
    """The named tuple ``arguments`` of a kernel's parameters, filled from ``config``: each field
    of the study's schema says what the kernels take of it (:func:`_parameter`'s ``kernel``), and
    the kernel's tuple takes the values it names, so that a parameter is converted in one place
    for every kernel."""
    values = {}
    for parameter in fields(StudyConfig):
        convert = parameter.metadata["kernel"]
        if convert is not None:
            values.update(convert(getattr(config, parameter.name), config))
    return arguments(**{name: values[name] for name in arguments._fields})


def study_parameters() -> tuple:
    """Every field of :class:`StudyConfig`, each with its metadata (:func:`_parameter`): what
    the command line, the experiment files and the checks of a study kind are generated from."""
    return fields(StudyConfig)


def _unread_by(kind: str) -> dict:
    """The parameters ``kind`` does not read, with the defaults they must keep there."""
    return {f.name: f.default for f in fields(StudyConfig) if not reads(f, kind)}


#: How each study parameter is read from text; the others are taken as they come.
_PARSERS = {f.name: f.metadata["parse"] for f in fields(StudyConfig) if f.metadata["parse"] is not None}


def parse_values(values: Mapping) -> dict:
    """Study parameters as given in text (the command line, an experiment file) -> values.

    Whole numbers read alike everywhere (``1e6`` for samples, chunk size and seed), sds and
    metrics alike (commas or list items); None values are left out. The result goes to
    :class:`StudyConfig`, which checks it.
    """
    return {k: _PARSERS[k](v) if k in _PARSERS else v for k, v in values.items() if v is not None}


def _checked(config: StudyConfig) -> dict:
    """Every field of ``config`` in canonical form, or a ValueError naming the bad one; the
    study kind's own rules (:class:`~mcrank.study.kinds.StudyKind`) apply as each field is checked."""
    _check_not_text(config)
    kind = check_choice(config.kind, STUDY_KINDS, "study kind (kind)")
    _check_kind_parameters(config, kind.name)
    classes = check_count(config.classes, "classes", minimum=2, maximum=MAX_CLASSES)
    kind.check("classes", classes)
    true_um_sd = check_sd(config.true_um_sd, "true_um_sd")
    true_um = config.true_um if config.true_um is not None else default_true_um(classes)
    distribution = check_choice(true_um, TRUE_UM_DISTRIBUTIONS, "true-utility distribution (true_um)")
    kind.check("true_um", true_um)
    if classes > 2 and distribution.hexagon:
        elements = " or ".join(d.name for d in TRUE_UM_DISTRIBUTIONS.values() if not d.hexagon)
        raise ValueError(
            f"the true-utility distribution {true_um!r} is the paper's hexagon of two-class matrices; for {classes} classes choose {elements}"
        )
    if distribution.check is not None:
        distribution.check(true_um_sd, "true_um_sd", 'true_um="{0}"')
    class_concentration = check_positive(config.class_concentration, "class_concentration")
    if not MIN_CONCENTRATION <= class_concentration <= MAX_CONCENTRATION:
        raise ValueError(
            f"class_concentration must be from {MIN_CONCENTRATION:g} to {MAX_CONCENTRATION:g}, got {class_concentration:g}: below, the "
            "Dirichlet's gamma draws underflow to 0 and the class proportions are 0/0; above, they are equal to within rounding"
        )
    error = check_choice(config.error, ERROR_MODELS, "error model")
    if config.estimator is not None:
        estimator = check_choice(config.estimator, ESTIMATORS, "estimator")
        estimator.check(error)
        if estimator.needs_closed_form and kind.closed_form is not None:
            raise ValueError(
                f"the {estimator.name} estimator has no closed form in the {kind.name} study ({kind.closed_form}); "
                f"its estimator is {default_estimator(False).name!r}"
            )
    if isinstance(config.sds, (str, bytes)) or not isinstance(config.sds, (list, tuple, np.ndarray)):
        raise ValueError(f"sds must be a list of numbers, got {config.sds!r}")
    if len(config.sds) > MAX_SDS:
        raise ValueError(f"sds has {len(config.sds):,} values; at most {MAX_SDS:,} are allowed")
    metrics = kind.scores(config.metrics, classes)
    if not metrics and not len(config.sds):
        raise ValueError("nothing to measure: metrics and sds are both empty; give at least one metric or one error sd")
    sds = tuple(check_sd(s, "error sd", maximum=MAX_SD) for s in config.sds)
    seen = set()
    for s in sds:  # as for the metrics: two rows of one sd would differ only by their draws
        if s in seen:
            raise ValueError(f"error sd {s!r} is listed twice")
        seen.add(s)
    return dict(
        samples=check_count(config.samples, "samples", maximum=MAX_SAMPLES),
        kind=kind.name,
        classes=classes,
        true_um=true_um,
        class_concentration=class_concentration,
        chunk_size=check_count(config.chunk_size, "chunk_size", maximum=2**31 - 1),
        true_um_sd=true_um_sd,
        sds=sds,
        metrics=metrics,
        class_proportion=check_range(config.class_proportion, "class_proportion"),
        rate_beta=check_beta_parameters(config.rate_beta, "rate_beta"),
        rate_range=check_range((1.0 / classes, 1.0) if config.rate_range is None else config.rate_range, "rate_range"),
        fbeta_beta=check_positive(config.fbeta_beta, "fbeta_beta"),
        seed=None if config.seed is None else int(root_seed_sequence(config.seed).entropy),  # raises for a bad seed
        test_size=None if config.test_size is None else check_count(config.test_size, "test_size", maximum=MAX_TEST_SIZE),
        prevalence=None if config.prevalence is None else _checked_prevalence(config.prevalence),
        roc_mu_range=_checked_interval(config.roc_mu_range, "roc_mu_range", -MAX_ROC_MU, MAX_ROC_MU),
        roc_sigma_range=_checked_interval(config.roc_sigma_range, "roc_sigma_range", *ROC_SIGMA_BOUNDS),
        calibration_slope_range=_checked_interval(config.calibration_slope_range, "calibration_slope_range", *CALIBRATION_SLOPE_BOUNDS),
        calibration_intercept_range=_checked_interval(
            config.calibration_intercept_range, "calibration_intercept_range", -MAX_CALIBRATION_INTERCEPT, MAX_CALIBRATION_INTERCEPT
        ),
    )


def _check_not_text(config: StudyConfig) -> None:
    """A ValueError for a number, or an item of a list of numbers, given as a string: text is
    parsed at the edge (:func:`parse_values`), never here."""
    for name in ("samples", "chunk_size", "true_um_sd", "fbeta_beta", "test_size", "classes", "class_concentration", "prevalence"):
        if isinstance(getattr(config, name), (str, bytes)):
            raise ValueError(f"{name} must be a number, not a string, got {getattr(config, name)!r}")
    for name in (
        "sds",
        "class_proportion",
        "rate_beta",
        "rate_range",
        "roc_mu_range",
        "roc_sigma_range",
        "calibration_slope_range",
        "calibration_intercept_range",
    ):  # fmt: skip  (a bare string is refused later)
        value = getattr(config, name)
        for item in value if isinstance(value, (list, tuple, np.ndarray)) else ():
            if isinstance(item, (str, bytes)):
                hint = ": parse a grid with mcrank.study.parse_sds" if name == "sds" and ":" in str(item) else ""
                raise ValueError(f"{name} must be numbers, not strings, got {item!r}{hint}")


#: The parameters that a study of one kind reads only in some settings, with that setting:
#: given another value than their default elsewhere, they would change no count and yet be
#: recorded as parameters of the study.
_USED_WHEN = {
    "class_proportion": (lambda c: c.true_um in HEXAGON_DISTRIBUTIONS, "a hexagon distribution of two-class utility matrices (true_um)"),
    "class_concentration": (lambda c: c.true_um not in HEXAGON_DISTRIBUTIONS, "an element-wise true-utility distribution (true_um)"),
    "fbeta_beta": (lambda c: "fbeta" in c.metrics, "the fbeta metric among the metrics"),
    "true_um_sd": (
        lambda c: TRUE_UM_DISTRIBUTIONS[c.true_um].reads_sd,
        "the true-utility distributions " + " and ".join(name for name, d in TRUE_UM_DISTRIBUTIONS.items() if d.reads_sd) + " (true_um)",
    ),
}


def _check_used(config: StudyConfig) -> None:
    """A ValueError for a parameter given a value other than its default in a setting that
    does not read it (``_USED_WHEN``)."""
    for field_ in fields(StudyConfig):
        if field_.name not in _USED_WHEN or not reads(field_, config.kind):
            continue
        used, setting = _USED_WHEN[field_.name]
        value = getattr(config, field_.name)
        if not _same(value, field_.default) and not used(config):
            raise ValueError(f"{field_.name} = {value!r} would change nothing: it is read only with {setting}; leave it at its default")


def _check_kind_parameters(config: StudyConfig, kind: str) -> None:
    """A ValueError for a parameter that ``kind`` does not read but is given a value other
    than its default: it would change nothing, yet be recorded as a parameter of the study."""
    for name, default in _unread_by(kind).items():
        value = getattr(config, name)
        # rate_range's default follows classes, and a replace() keeps the one taken.
        if not _same(value, default) and not (name == "rate_range" and _same(value, (1.0 / config.classes, 1.0))):
            owners = " or ".join(next(f for f in fields(StudyConfig) if f.name == name).metadata["kinds"])
            raise ValueError(f"{name} is a parameter of the {owners} study kind, not of kind={kind!r}; got {value!r}")


def _same(value, default) -> bool:
    """Whether a parameter holds its default (a list for a tuple too, as parsed from text)."""
    if isinstance(default, tuple):
        return isinstance(value, (list, tuple)) and len(value) == len(default) and all(_same(v, d) for v, d in zip(value, default))
    if default is None:
        return value is None
    return not isinstance(value, (bool, str, bytes)) and isinstance(value, (int, float, np.integer, np.floating)) and value == default


def _checked_prevalence(value) -> float:
    prevalence = as_float(value, "prevalence")
    if not 0.0 < prevalence < 1.0:
        raise ValueError(f"prevalence (the fraction of class 0) must lie in (0, 1), got {prevalence!r}")
    if not MIN_PREVALENCE <= prevalence <= 1.0 - MIN_PREVALENCE:
        raise ValueError(
            f"prevalence must be at least {MIN_PREVALENCE:g} from 0 and from 1, got {prevalence!r}: closer, the rarer class "
            "weighs less in a yield than its rounding, and every pair ties"
        )
    return prevalence


def _checked_interval(value, what: str, lower: float, upper: float) -> tuple[float, float]:
    """A pair ``(low, high)`` with ``lower <= low <= high <= upper`` (``low == high`` fixes the value)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, np.ndarray)) or len(value) != 2:
        raise ValueError(f"{what} must be a pair of numbers (low, high), got {value!r}")
    low, high = as_float(value[0], what), as_float(value[1], what)
    if high < low:
        raise ValueError(f"{what} is reversed: low {low:g} > high {high:g}")
    if not lower <= low <= high <= upper:
        raise ValueError(f"{what} must lie within [{lower:g}, {upper:g}], got ({low:g}, {high:g})")
    return low, high
