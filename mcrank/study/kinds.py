"""The kinds of study, by the classifiers a pair compares: one record each (``docs/development.md``, "Adding a study kind").

A :class:`StudyKind` holds everything that differs between kinds, so that nothing elsewhere
asks which kind a study is: its name and help (``mcrank run --study``), its own flag group, how
its scores are checked and handed to its kernel, its rules on the parameters every kind shares,
whether the conditional estimator's closed form holds, what tells its sweeps apart, the header
of its table, and the module of :mod:`mcrank.engine` that runs it (named, not imported: the
engine sits below the study layer, and a kind's kernels are compiled only when it runs).

- ``confusion``: classifiers given by their confusion matrices (the paper's §4.2, the n-class
  study, finite test sets); its scores are the metrics (:mod:`mcrank.metrics`);
- ``roc``: scoring classifiers given by their binormal ROC curves, each at its best threshold
  (the paper's §5; ``docs/method.md``, "The ROC/AUC study"); its scores are the ROC scores
  (:mod:`mcrank.roc`);
- ``probabilities``: probabilistic classifiers, binormal scores stated as probabilities with a
  calibration slope and intercept, each deciding by maximal expected utility with its own
  probabilities (eq. 20; ``docs/method.md``, "The probabilistic-classifier study"); its scores
  are the probability scores (:mod:`mcrank.probabilities`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry
from mcrank.metrics import METRICS, PAPER_METRICS, get_metric
from mcrank.samplers import HEXAGON_DISTRIBUTIONS, TRUE_UM_DISTRIBUTIONS

__all__ = ["DEFAULT_KIND", "NCLASS_METRICS", "STUDY_KINDS", "StudyKind", "register_study_kind"]

#: The metrics counted by default with three classes or more.
NCLASS_METRICS: tuple[str, ...] = ("accuracy", "balanced_accuracy", "macro_precision", "macro_f1", "mcc", "cohen_kappa")


@dataclass(frozen=True)
class StudyKind:
    """One kind of study: what a pair's classifiers are, and all that follows from it.

    Attributes
    ----------
    name : str
        Its name (``StudyConfig.kind``, ``mcrank run --study``).
    code : int
        Its position in :data:`STUDY_KINDS`.
    help : str
        What its classifiers are, for ``--study``'s help.
    engine : str
        The module of :mod:`mcrank.engine` that runs it, with ``kernel(config)`` (the module
        whose ``study_arguments`` and ``count_chunk`` the runner calls) and
        ``study_result(config, totals)`` (the :class:`~mcrank.study.StudyResult` of the
        runner's totals).
    scores : callable
        ``scores(names, classes) -> ids``: the ids of the scores counted (its default for
        ``names`` None), each once and each defined for ``classes`` classes; a ValueError
        naming ``metrics`` otherwise.
    score_codes : callable
        ``score_codes(ids) -> {field of its kernel's named tuple: codes}``.
    header : callable
        ``header(config, rows) -> str``: what ``mcrank run``'s table says above the rows, from a
        results document's config and rows (paragraphs separated by newlines, wrapped there).
    group : str or None
        The title of ``mcrank run``'s flag group of its own parameters (those declared with
        ``kinds=(name,)``, ``group=name``), if it has any.
    rules : mapping of str to callable
        Its constraints on the parameters every kind reads: ``rules[parameter](value)`` raises
        a ValueError naming ``parameter``; applied as soon as that parameter is checked.
    closed_form : str or None
        None if the conditional estimator's closed form holds for its pairs; else why not
        (the estimator is then ``sample`` whatever the error model).
    sweep_key : tuple of str
        Its own parameters that tell two sweeps apart (experiment files keep one sweep per
        setting).
    two_class_kernels : bool
        Whether its pairs of two classes run on the paper's two-class kernels
        (:mod:`mcrank.engine.binary`) when the rest of the setting allows
        (:attr:`StudyConfig.binary <mcrank.study.StudyConfig.binary>`).
    """

    name: str
    code: int
    help: str
    engine: str
    scores: Callable[[object, int], tuple[str, ...]]
    score_codes: Callable[[tuple[str, ...]], dict]
    header: Callable[[Mapping, list], str]
    group: str | None = None
    rules: Mapping[str, Callable[[object], None]] = field(default_factory=dict)
    closed_form: str | None = None
    sweep_key: tuple[str, ...] = ()
    two_class_kernels: bool = False

    def check(self, parameter: str, value) -> None:
        """A ValueError if ``value`` of ``parameter`` breaks one of this kind's rules."""
        rule = self.rules.get(parameter)
        if rule is not None:
            rule(value)


#: Every kind of study by name, in the order registered (its code); the first is the default,
#: whose records carry no ``kind`` key (they were written before there were other kinds). A new
#: kind is its record here and its engine module; its own parameters are fields of the schema,
#: and the paper's sweeps, crossover tables and figures pick it if the paper shows it
#: (``docs/development.md``, "Adding a study kind"). No kernel switches on a kind (its engine
#: module is imported by name), so the registry is never sealed and a kind keys no jit cache.
STUDY_KINDS: Registry = Registry("study kind")


def register_study_kind(name: str, **record) -> StudyKind:
    """Register the study kind ``name`` (the fields of :class:`StudyKind` but its code) and return it.

    Its parameters of its own are fields of :class:`~mcrank.study.StudyConfig` (declared with
    ``kinds=(name,)``): a kind registered from outside the package reads those every kind reads.
    """
    return STUDY_KINDS.add(StudyKind(name=name, code=len(STUDY_KINDS), **record))


# --- checking scores ---------------------------------------------------------------------------


def _looked_up(names, lookup, what: str) -> list:
    """The registry records of ``names`` (a list of ids), by ``lookup``; a ValueError naming
    ``metrics`` otherwise (``what``: "metric" or "score")."""
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)):
        raise ValueError(f"metrics must be a list of {what} ids, got {names!r}")
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"metrics must be {what} ids (strings), got {name!r}")
    try:
        chosen = [lookup(name) for name in names]
    except KeyError as error:  # the registry's lookup error, as this schema's ValueError
        raise ValueError(error.args[0]) from None
    return chosen


def _once(ids: tuple[str, ...]) -> tuple[str, ...]:
    """``ids``, or a ValueError if one is listed twice (two rows would differ only by chance)."""
    if len(set(ids)) != len(ids):
        raise ValueError(f"metrics are listed twice: {', '.join(ids)}")
    return ids


def _checked_metrics(names, classes: int) -> tuple[str, ...]:
    """Metric ids, each once, each defined for ``classes`` classes (default: the paper's seven
    for two classes, :data:`NCLASS_METRICS` for more)."""
    if names is None:
        names = PAPER_METRICS if classes == 2 else NCLASS_METRICS
    chosen = _looked_up(names, get_metric, "metric")
    for metric in chosen:
        if not metric.defined_for(classes):
            counted = ", ".join(m.id for m in METRICS.values() if m.defined_for(classes))
            raise ValueError(f"metric {metric.id!r} is defined for two classes only, not {classes}; choose from {counted}")
    return _once(tuple(metric.id for metric in chosen))


def _metric_codes(ids: tuple[str, ...]) -> dict:
    return {"metric_codes": np.array([get_metric(name).code for name in ids], dtype=np.int64)}


def _checked_roc_scores(names, classes: int) -> tuple[str, ...]:
    """The ROC study's score ids (:data:`mcrank.roc.ROC_SCORES`), each once; None for the default."""
    from mcrank.roc import DEFAULT_ROC_SCORES, get_roc_score  # only a roc study needs them

    return _once(tuple(score.id for score in _looked_up(DEFAULT_ROC_SCORES if names is None else names, get_roc_score, "score")))


def _roc_score_codes(ids: tuple[str, ...]) -> dict:
    from mcrank.roc import get_roc_score

    return {"score_codes": np.array([get_roc_score(name).code for name in ids], dtype=np.int64)}


def _checked_probability_scores(names, classes: int) -> tuple[str, ...]:
    """The probabilities study's score ids (:data:`mcrank.probabilities.PROBABILITY_SCORES`), each once; None for the default."""
    from mcrank.probabilities import DEFAULT_PROBABILITY_SCORES, get_probability_score  # only a probabilities study needs them

    chosen = _looked_up(DEFAULT_PROBABILITY_SCORES if names is None else names, get_probability_score, "score")
    return _once(tuple(score.id for score in chosen))


def _probability_score_codes(ids: tuple[str, ...]) -> dict:
    from mcrank.probabilities import get_probability_score

    return {"score_codes": np.array([get_probability_score(name).code for name in ids], dtype=np.int64)}


# --- the tables' headers -----------------------------------------------------------------------


def _confusion_header(config: Mapping, rows: list) -> str:
    test_set = f"; test sets of {config['test_size']:,} items" if config.get("test_size") is not None else ""
    classes = f"{config['classes']} classes; " if config.get("classes", 2) != 2 else ""
    return f"{config['samples']:,} pairs; {classes}true U {config['true_um']}; errors {config['error']}{test_set}; seed {config['seed']}"


def _roc_header(config: Mapping, rows: list) -> str:
    tied = rows[0]["tied_pct"] if rows else float("nan")
    prevalence = "B ~ Uniform(0, 1)" if config["prevalence"] is None else f"B = {config['prevalence']:g}"
    (mu_low, mu_high), (sigma_low, sigma_high) = config["roc_mu_range"], config["roc_sigma_range"]
    return (
        f"{config['samples']:,} pairs of scoring classifiers (binormal ROC, mu ~ U({mu_low:g}, {mu_high:g}), "
        f"log sigma ~ U(log {sigma_low:g}, log {sigma_high:g})); {prevalence}; true U {config['true_um']}; "
        f"errors {config['error']}; seed {config['seed']}\n"
        f"{tied:.2f} % of pairs tied in truth (both best thresholds at the same corner), left out of every %"
    )


def _probabilities_header(config: Mapping, rows: list) -> str:
    tied = rows[0]["tied_pct"] if rows else float("nan")
    prevalence = "B ~ Uniform(0, 1)" if config["prevalence"] is None else f"B = {config['prevalence']:g}"
    (mu_low, mu_high), (sigma_low, sigma_high) = config["roc_mu_range"], config["roc_sigma_range"]
    (slope_low, slope_high), (intercept_low, intercept_high) = config["calibration_slope_range"], config["calibration_intercept_range"]
    return (
        f"{config['samples']:,} pairs of probabilistic classifiers (binormal scores, mu ~ U({mu_low:g}, {mu_high:g}), "
        f"log sigma ~ U(log {sigma_low:g}, log {sigma_high:g}); q = logistic(a l + c), log a ~ U(log {slope_low:g}, "
        f"log {slope_high:g}), c ~ U({intercept_low:g}, {intercept_high:g})); {prevalence}; true U {config['true_um']}; "
        f"errors {config['error']}; seed {config['seed']}\n"
        f"{tied:.2f} % of pairs tied in truth (both always output the same class), left out of every %"
    )


# --- the rules of the kinds of scoring classifiers ---------------------------------------------


def _two_classes_in(kind: str) -> Callable[[int], None]:
    def two_classes(classes: int) -> None:
        if classes != 2:
            raise ValueError(f"classes must be 2 in the {kind} study, which compares scoring classifiers of two classes; got {classes}")

    return two_classes


def _on_the_hexagon_in(kind: str) -> Callable[[str], None]:
    def on_the_hexagon(true_um: str) -> None:
        if not TRUE_UM_DISTRIBUTIONS[true_um].hexagon:
            raise ValueError(
                f"true_um must be {' or '.join(HEXAGON_DISTRIBUTIONS)} in the {kind} study, which draws its true utility matrices on the "
                f"paper's hexagon; got {true_um!r}"
            )

    return on_the_hexagon


register_study_kind(
    "confusion",
    help="given by confusion matrices, the paper's §4.2; default",
    engine="mcrank.engine.confusion",
    scores=_checked_metrics,
    score_codes=_metric_codes,
    header=_confusion_header,
    two_class_kernels=True,
)
register_study_kind(
    "roc",
    help="scoring classifiers with binormal ROC curves, each at its best threshold, §5",
    engine="mcrank.engine.roc",
    scores=_checked_roc_scores,
    score_codes=_roc_score_codes,
    header=_roc_header,
    group='the roc study (--study roc; docs/method.md, "The ROC/AUC study")',
    rules={"classes": _two_classes_in("roc"), "true_um": _on_the_hexagon_in("roc")},
    closed_form="the best threshold moves with the errors",
    sweep_key=("prevalence",),
)
register_study_kind(
    "probabilities",
    help="probabilistic classifiers (binormal scores, miscalibrated), each deciding by maximal expected utility, eq. 20",
    engine="mcrank.engine.probabilities",
    scores=_checked_probability_scores,
    score_codes=_probability_score_codes,
    header=_probabilities_header,
    group="the probabilities study (--study probabilities; docs/method.md)",
    rules={"classes": _two_classes_in("probabilities"), "true_um": _on_the_hexagon_in("probabilities")},
    closed_form="the decisions move with the errors",
    sweep_key=("prevalence",),
)

#: The kind of a study that names none.
DEFAULT_KIND: str = next(iter(STUDY_KINDS))
