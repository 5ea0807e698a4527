"""The options of :func:`mcrank.evaluate.evaluate`, declared once.

:class:`EvaluateOptions` holds how a ranking on one test set is made beyond its inputs: the
utility's error sd and model and how its flip probabilities are estimated, the test-set
uncertainty and its prior, the deployment's class frequencies, the metrics, the samples and
the seed. Each field is declared with :func:`_option`: its constraint (a check that returns
the canonical value or raises a ValueError naming the field, as scikit-learn's parameter
constraints do), and what ``mcrank evaluate`` makes of it: its flag, help and parser of text,
and the modes of the command that read it (:data:`MODES`). The object is checked when it is
built, once; :func:`mcrank.evaluate.evaluate`, :func:`~mcrank.evaluate.evaluate_file` and
:func:`~mcrank.evaluate.evaluate_predictions` take it, or its fields as keyword arguments.
The command line's flags, their parsing, their check and the refusal of a flag that a mode
does not read are generated from the fields (:mod:`mcrank.cli.evaluate`).

The checks that need the data (the metrics defined for its number of classes, the class
frequencies one per class, the estimator against the utility's own error model) are made by
the front door (:mod:`mcrank.evaluate.front_door`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields, replace

from mcrank._validation import check_choice, check_count, check_positive, parse_float
from mcrank.evaluate.input import DEFAULT_ERROR_MODEL, ERROR_MODELS
from mcrank.evaluate.posterior import DEFAULT_PRIOR_COUNT, check_prior_count
from mcrank.evaluate.result import (
    _DEPRECATED_ESTIMATOR_NAMES,
    DEFAULT_BAND_SAMPLES,
    DEFAULT_FOLD_SAMPLES,
    DEFAULT_PER_ITEM_SAMPLES,
    DEFAULT_SAMPLES,
    DEFAULT_SCORING_SAMPLES,
    ESTIMATORS,
    MAX_SAMPLES,
)

__all__ = ["MODES", "EvaluateOptions", "option_fields"]

#: The modes of ``mcrank evaluate``, by their input: confusion matrices or labels (a utility
#: matrix), labels and scores (``--scores``), labels across folds (``--folds-column``), labels
#: with a utility per item.
MATRICES, SCORES, FOLDS, PER_ITEM = "matrices", "scores", "folds", "per-item"
MODES = (MATRICES, SCORES, FOLDS, PER_ITEM)


def _option(default, *, check: Callable | None = None, flag: str | None = None, help: str = "", parse: Callable | None = None,
            modes: Iterable[str] = (MATRICES,), metavar: str | None = None, choices: Iterable[str] | None = None,
            action: str | None = None, cli_type=None, nargs=None):  # fmt: skip
    """A field of :class:`EvaluateOptions` with everything that derives from it: its constraint
    (``check(value, name) -> value``, not called on None), and its flag on the command line
    (``flag``, ``help``, ``metavar``, ``choices``, ``action``, ``nargs``, ``cli_type`` for
    argparse's own conversion, ``parse(text, flag) -> value`` for the rest), with the ``modes`` of the command
    that read it (:data:`MODES`)."""
    metadata = {"check": check, "flag": flag, "help": help, "parse": parse, "modes": tuple(modes), "metavar": metavar,
                "choices": None if choices is None else tuple(choices), "action": action, "cli_type": cli_type, "nargs": nargs}  # fmt: skip
    return field(default=default, metadata=metadata)


def _numbers(text: str, flag: str) -> list[float]:
    """A comma-separated list of numbers, ``0.01,0.99``; checked further by the front door."""
    numbers = []
    for item in text.split(","):
        try:
            numbers.append(parse_float(item))
        except ValueError:
            raise ValueError(f"{flag}: {item.strip()!r} is not a number; give one number per class, separated by commas") from None
    return numbers


def _metric_ids(arguments: list[str], flag: str) -> tuple[str, ...]:
    """Metric ids separated by spaces or commas (``accuracy f1``, ``accuracy,f1``)."""
    ids = tuple(m.strip() for argument in arguments for m in argument.split(",") if m.strip())
    if not ids:
        raise ValueError(f"{flag}: give at least one metric id")
    return ids


def _check_estimator_name(value, name: str) -> str:
    if isinstance(value, str):
        value = _DEPRECATED_ESTIMATOR_NAMES.get(value, value)
    return check_choice(value, ESTIMATORS, name).name


def _check_prior(value, name: str) -> float:
    """A prior's total count: positive, and within the range its draws stay numbers in."""
    return check_prior_count(check_positive(value, name), name)


def _check_metrics(value, name: str):
    # A string is a sequence too, of one-letter names: "accuracy" would be 'a', 'c', ...
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of metric ids, got {value!r}")
    return value


#: Each mode draws its own number of samples by default.
_SAMPLES_HELP = (
    f"Monte Carlo samples (default {DEFAULT_SAMPLES}; scores: {DEFAULT_SCORING_SAMPLES}, curves {DEFAULT_BAND_SAMPLES}; "
    f"folds: {DEFAULT_FOLD_SAMPLES}; per item: {DEFAULT_PER_ITEM_SAMPLES})"
)


@dataclass(frozen=True)
class EvaluateOptions:
    """How :func:`mcrank.evaluate.evaluate` ranks, beyond its inputs; checked when built.

    Parameters
    ----------
    sd : float, optional
        Error standard deviation on the utility matrix *normalised by eq. (11)*; overrides
        one in the utility. With it, the flip probability of every pair is estimated.
    error : str, optional
        Error model for ``sd``, a name in :data:`mcrank.error_models.ERROR_MODELS` (see
        :func:`mcrank.samplers.perturb_um`); overrides one in the utility; ``"gaussian"`` by default.
    estimator : str, optional
        How the flip probabilities under the utility's errors are obtained
        (:data:`~mcrank.evaluate.result.ESTIMATORS`): by default ``"conditional"`` (exact)
        under gaussian errors, ``"sample"`` (Monte Carlo) under the others.
    method : {"closed form", "monte carlo"}, optional
        Deprecated name of ``estimator``, with its deprecated values.
    test_uncertainty : bool, default False
        Also say how sure the ranking is, given that the test set is finite
        (:mod:`mcrank.evaluate.uncertainty`).
    prior_count : float, default 1
        The Dirichlet prior's total count of the test-set uncertainty (and of ``class_counts``).
    class_frequencies : array_like of shape (n,), optional
        The deployment's class frequencies, summing to 1 (paper §6).
    class_counts : array_like of shape (n,), optional
        Instead, the deployment's class counts: the frequencies are then uncertain.
    samples : int, default 100000
        Monte Carlo samples, at most :data:`~mcrank.evaluate.result.MAX_SAMPLES`.
    rng : int, SeedSequence, Generator or None
        The root of every random stream (:mod:`mcrank._rng`).
    metrics : sequence of str, optional
        Metric ids to report (:func:`~mcrank.evaluate.front_door.metrics_for`): a list, even
        of one id.
    progress : bool, default False
        Show a progress bar of the Monte Carlo samples on stderr, and of the test-set
        posterior's draws.

    Raises
    ------
    ValueError
        For a bad value, naming the option; for options that contradict each other.
    TypeError
        If ``metrics`` is a string rather than a list of them.
    """

    sd: float | None = _option(None, check=check_positive, flag="--sd", metavar="SD",
                               help="error sd of U normalised by eq. (11): flip probabilities")  # fmt: skip
    error: str | None = _option(None, check=lambda value, name: check_choice(value, ERROR_MODELS, "error model").name, flag="--error",
                                choices=ERROR_MODELS, help=f"error model of --sd (default: {DEFAULT_ERROR_MODEL})")  # fmt: skip
    estimator: str | None = _option(None, check=lambda value, name: _check_estimator_name(value, name), flag="--estimator",
                                    choices=ESTIMATORS, help="how the flip probabilities are estimated: " + ESTIMATORS.help())  # fmt: skip
    test_uncertainty: bool = _option(False, flag="--test-uncertainty", action="store_true", modes=(MATRICES, SCORES, PER_ITEM),
                                     help="how sure the ranking is, given the test set")  # fmt: skip
    prior_count: float = _option(DEFAULT_PRIOR_COUNT, check=_check_prior, flag="--prior-count", metavar="C",
                                 modes=(MATRICES, SCORES, PER_ITEM), help="the Dirichlet prior's total count (default 1)")  # fmt: skip
    class_frequencies: tuple | None = _option(None, flag="--class-frequencies", metavar="P1,P2,...", parse=_numbers,
                                              help="the deployment's class frequencies, summing to 1")  # fmt: skip
    class_counts: tuple | None = _option(None, flag="--class-counts", metavar="K1,K2,...", parse=_numbers,
                                         help="instead, the deployment's class counts")  # fmt: skip
    samples: int = _option(DEFAULT_SAMPLES, check=lambda value, name: check_count(value, name, maximum=MAX_SAMPLES), flag="--samples",
                           metavar="N", modes=MODES, help=_SAMPLES_HELP)  # fmt: skip
    rng: object = _option(None, flag="--seed", cli_type=int, modes=MODES, help="root seed (default: fresh, and printed)")
    metrics: tuple | None = _option(None, check=_check_metrics, flag="--metrics", metavar="ID", parse=_metric_ids, nargs="+",
                                    modes=(MATRICES, PER_ITEM), help="metric ids, by spaces or commas (default: all)")  # fmt: skip
    method: str | None = _option(None, check=lambda value, name: _check_estimator_name(value, name))
    progress: bool = _option(False)

    def __post_init__(self):
        for spec in fields(self):
            value, check = getattr(self, spec.name), spec.metadata["check"]
            if value is not None and check is not None:
                object.__setattr__(self, spec.name, check(value, spec.name))
        if self.method is not None and self.estimator is not None and self.estimator != self.method:
            raise ValueError(f"estimator {self.estimator!r} and method {self.method!r} disagree: give estimator alone (method is its "
                             "deprecated name)")  # fmt: skip
        if self.class_frequencies is not None and self.class_counts is not None:
            raise ValueError("give class_frequencies or class_counts, not both: the counts make the frequencies uncertain")

    @classmethod
    def of(cls, options: EvaluateOptions | None = None, **values) -> EvaluateOptions:
        """``options`` with ``values`` in place of its fields (checked again), or built from
        ``values`` alone."""
        if options is None:
            return cls(**values)
        if not isinstance(options, cls):
            raise TypeError(f"options must be an EvaluateOptions, got {type(options).__name__}")
        return replace(options, **values) if values else options

    @property
    def chosen_estimator(self) -> str | None:
        """``estimator``, or its deprecated name ``method``."""
        return self.estimator if self.estimator is not None else self.method


def option_fields():
    """The fields of :class:`EvaluateOptions` that are flags of ``mcrank evaluate``, in order."""
    return [spec for spec in fields(EvaluateOptions) if spec.metadata["flag"] is not None]
