"""The results of :func:`mcrank.evaluate.evaluate`, and the words they are said in.

The result types (:class:`Evaluation`, one :class:`ClassifierResult` per classifier, a
:class:`Disagreement` per metric that ranks otherwise, a :class:`PairFlip` per pair), the
vocabulary their fields take (the estimators of the flip probabilities, the flip formula, the
tolerances of a tie and of class frequencies, the default and largest numbers of samples) and
the rule of a tie (:func:`_compare`, :func:`_competition_ranks`), which the scoring doors share.

Every rendering of a result (text, JSON, CSV, records, frame) is in its report module
(:mod:`mcrank.evaluate.report` for an :class:`Evaluation`), which reads these types and words:
an :class:`Evaluation` answers the protocol of every result (:mod:`mcrank.evaluate.protocol`:
``str()``, ``repr()``, ``to_dict()``, ``to_records()``, ``to_frame()``, ``_repr_html_()``), whose
methods call the renderings that its report module registers (:func:`renders`) when imported, so
that this module imports no report and the import graph has no cycle.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mcrank._validation import MAX_EVALUATE_SAMPLES
from mcrank.estimators import ESTIMATORS
from mcrank.evaluate.input import UtilityAssessment
from mcrank.evaluate.protocol import ResultProtocol, load_renderings_with, rendering, renders

__all__ = [
    "CLOSED_FORM",
    "CONDITIONAL",
    "DEFAULT_BAND_SAMPLES",
    "DEFAULT_FOLD_SAMPLES",
    "DEFAULT_PER_ITEM_SAMPLES",
    "DEFAULT_SAMPLES",
    "DEFAULT_SCORING_SAMPLES",
    "ESTIMATORS",
    "FLIP_FORMULA",
    "FREQUENCY_TOLERANCE",
    "MAX_SAMPLES",
    "METHODS",
    "MONTE_CARLO",
    "SAMPLE",
    "SEPARATED",
    "TIE_TOLERANCE",
    "ClassifierResult",
    "Disagreement",
    "Evaluation",
    "PairFlip",
    "load_renderings_with",
    "rendering",
    "renders",
]

#: Monte Carlo samples of perturbed utility matrices, unless told otherwise.
DEFAULT_SAMPLES = 100_000
#: The other modes' draws unless told otherwise, here so that ``--samples``'s help names them
#: without loading those modes: the posterior of a ranking of scoring classifiers
#: (:func:`mcrank.evaluate.scoring.rank_scoring`), the bands of decision curves (their
#: quantiles are Monte Carlo estimates), the probability of being best across folds (a Monte
#: Carlo SE of at most 0.0016), and the Bayesian bootstrap of per-item utilities (each draws
#: one weight per item).
DEFAULT_SCORING_SAMPLES = 2000
DEFAULT_BAND_SAMPLES = 10_000
DEFAULT_FOLD_SAMPLES = 100_000
DEFAULT_PER_ITEM_SAMPLES = 2000
#: At most this many (:data:`mcrank._validation.MAX_EVALUATE_SAMPLES`, which says why).
MAX_SAMPLES = MAX_EVALUATE_SAMPLES
#: How the flip probabilities under the utility's errors are estimated: the study's registry
#: :data:`mcrank.estimators.ESTIMATORS` (``docs/method.md``, "The conditional estimator"):
#: ``conditional``, the exact probability given the confusion matrices (gaussian errors only);
#: ``sample``, the fraction of perturbed matrices drawn (Monte Carlo) that flip the pair.
CONDITIONAL, SAMPLE = ESTIMATORS["conditional"].name, ESTIMATORS["sample"].name
#: Deprecated: evaluate's names of the estimators before issue 22, still accepted as values of
#: ``estimator`` and ``method`` and still given by :attr:`Evaluation.method`.
CLOSED_FORM, MONTE_CARLO = "closed form", "monte carlo"
METHODS = (CLOSED_FORM, MONTE_CARLO)
_DEPRECATED_ESTIMATOR_NAMES = {CLOSED_FORM: CONDITIONAL, MONTE_CARLO: SAMPLE}
_DEPRECATED_METHOD_NAMES = {CONDITIONAL: CLOSED_FORM, SAMPLE: MONTE_CARLO}
#: The flip probability of a pair under gaussian errors of sd ``sd`` on the normalised
#: utility matrix: ``d`` is the pair's yield difference and ``C_A``, ``C_B`` its confusion
#: matrices as fractions of the test set, all under eq. (11).
FLIP_FORMULA = "Phi(-d / (sd * ||C_A - C_B||_F))"
#: Deployment class frequencies must sum to 1 within this (then they are divided by their sum):
#: frequencies written to 6 decimals, or computed in floating point, pass; a typo does not.
FREQUENCY_TOLERANCE = 1e-6
#: A choice is separated from a rival when the probability that it is better is at least this
#: (the decision lines of every report; a pair's verdict across folds).
SEPARATED = 0.95

#: Relative tolerance of a tie (see :func:`evaluate`): differences of metric values within
#: this fraction of ``max(1, |a|, |b|)``, and of total utilities that are not exact within
#: this fraction of ``max|U| N``, are rounding errors.
TIE_TOLERANCE = 1e-12


def _compare(a, b, scale=None) -> np.ndarray:
    """The sign of ``a - b`` (-1, 0 or 1, elementwise), 0 when the difference is within
    :data:`TIE_TOLERANCE` of ``scale`` (``scale = 0``: exact comparison).

    ``scale`` defaults to ``max(1, |a|, |b|)``, right for metrics (values of order 1). An
    infinity is compared exactly: it ties only with an equal infinity and is above (``+inf``)
    or below (``-inf``) every finite value. NaN compares as -1: callers set undefined values
    aside first.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if scale is None:
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    with np.errstate(over="ignore", invalid="ignore"):
        difference = a - b
        sign = np.where(difference > 0, np.int8(1), np.int8(-1))
        # An infinite scale would make every difference a rounding error (an infinite log loss
        # tied with any finite one); infinities are no rounding, so their tolerance is 0, and
        # equal infinities, whose difference is NaN, tie by equality.
        tolerance = np.where(np.isinf(scale), 0.0, TIE_TOLERANCE * scale)
        return np.where((a == b) | (np.abs(difference) <= tolerance), np.int8(0), sign)


#: Comparisons made at once by :func:`_competition_ranks`: its work space, whatever the
#: number of classifiers.
_RANK_BLOCK = 1 << 20


def _competition_ranks(values: np.ndarray, scale: float | None = None) -> list[int | None]:
    """Rank 1 = highest; equal values share the best rank among them; NaN gets None."""
    values = np.asarray(values, dtype=float)
    defined = values[~np.isnan(values)]
    ranks = np.empty(values.size, dtype=np.int64)
    step = max(1, _RANK_BLOCK // max(1, defined.size))
    for start in range(0, values.size, step):
        block = values[start : start + step]
        ranks[start : start + step] = 1 + np.count_nonzero(_compare(defined[None, :], block[:, None], scale) > 0, axis=1)
    return [None if np.isnan(v) else int(r) for v, r in zip(values, ranks)]


# --- results --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClassifierResult:
    """One classifier in the ranking.

    Attributes
    ----------
    name : str
    rank : int
        By utility yield, 1 = best; tied classifiers share a rank.
    utility_yield : float
        Utility per test item, eq. (9), in the units of the utility matrix.
    scores : dict of str to float
        Score under each popular metric, by id (NaN where undefined).
    ranks : dict of str to int or None
        Rank under each metric, 1 = best (None where the score is undefined).
    confusion : ndarray of shape (n, n)
        The counts.
    utility_yield_interval : (float, float) or None
        With the test-set uncertainty, the central 95 % posterior interval of the utility
        yield per item (:mod:`mcrank.evaluate.uncertainty`).
    deployment_confusion : ndarray of shape (n, n) or None
        With deployment class frequencies ``pi``: the confusion matrix as frequencies,
        re-weighted column by column, ``C_ij / sum_i C_ij * pi_j`` (it sums to 1). The
        utility yield and the scores are those of this matrix.
    """

    name: str
    rank: int
    utility_yield: float
    scores: dict[str, float]
    ranks: dict[str, int | None]
    confusion: np.ndarray = field(repr=False, compare=False)
    utility_yield_interval: tuple[float, float] | None = None
    deployment_confusion: np.ndarray | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Disagreement:
    """A metric whose ranking disagrees with the utility yield, and the pairs on which it does.

    Each pair is ``(first, second)`` with ``first`` ranked at least as high as ``second`` by
    the utility yield.

    Attributes
    ----------
    metric, name : str
        The metric's id and display name.
    flipped : tuple of (str, str)
        The utility yield prefers ``first``, the metric prefers ``second``.
    tied : tuple of (str, str)
        One of the two (utility yield or metric) ties the pair, the other does not.
    undefined : tuple of (str, str)
        The metric is undefined (0/0) for one of the two.
    best : tuple of str
        The classifiers the metric ranks first.
    """

    metric: str
    name: str
    flipped: tuple[tuple[str, str], ...]
    tied: tuple[tuple[str, str], ...]
    undefined: tuple[tuple[str, str], ...]
    best: tuple[str, ...] = ()


@dataclass(frozen=True)
class PairFlip:
    """How likely the utility ranking of a pair is to flip, given errors on the utility matrix.

    Attributes
    ----------
    better, worse : str
        The pair, ``better`` ranked at least as high by the utility yield.
    utility_difference : float
        ``yield(better) - yield(worse)`` per test item, in the units of the utility matrix.
    flip_probability : float or None
        Probability that a perturbed utility matrix does not put ``better`` strictly ahead
        (ties count as flips, as in the paper's §4.2 and the study's step 6): exact with the
        ``conditional`` estimator (gaussian errors), else the fraction of the perturbed
        matrices drawn (``sample``). None when the two are tied under the utility matrix
        itself (no ranking to flip).
    standard_error : float or None
        Monte Carlo standard error of ``flip_probability``, ``sqrt(f (1 - f) / samples)``;
        None when it is exact.
    flips : int or None
        Number of perturbed matrices under which the ranking flips (``sample`` estimator only).
    flip_probability_test, flip_probability_test_se : float or None
        With the test-set uncertainty: the posterior probability that the population order
        of the pair differs from the observed one (a population tie differs from an observed
        strict order: ties count as flips here too), and its Monte Carlo SE (None where it is
        exact: with labels, by a one-dimensional integral, to 1e-11).
    flip_probability_both, flip_probability_both_se : float or None
        The same with the utility matrix perturbed too, given an error sd.
    """

    better: str
    worse: str
    utility_difference: float
    flip_probability: float | None
    standard_error: float | None
    flips: int | None
    flip_probability_test: float | None = None
    flip_probability_test_se: float | None = None
    flip_probability_both: float | None = None
    flip_probability_both_se: float | None = None


@dataclass(frozen=True, repr=False)
class Evaluation(ResultProtocol):
    """The result of :func:`evaluate`.

    Attributes
    ----------
    classifiers : tuple of ClassifierResult
        In rank order by utility yield (best first; ties in input order).
    disagreements : tuple of Disagreement
        One per metric whose ranking disagrees with the utility yield, in metric order.
    pairs : tuple of PairFlip or None
        With an error sd: every pair of classifiers, in rank order; otherwise None.
    classes : tuple of str
    class_totals : ndarray of shape (n,)
        Test items of each true class.
    utility : UtilityAssessment
    normalised_utility : ndarray of shape (n, n)
        The ranking matrix in the standard form of eq. (11), to which ``sd`` refers.
    metrics : tuple of (str, str)
        The (id, name) of every metric reported.
    samples : int or None
        Monte Carlo samples, with an error sd and the ``sample`` estimator, or with the
        test-set uncertainty.
    seed : int or None
        Root seed of the Monte Carlo run (None if a Generator was passed, or no Monte Carlo).
    estimator : str or None
        How the flip probabilities under the utility's errors were obtained (:data:`ESTIMATORS`),
        with an error sd.
    method : {"closed form", "monte carlo"} or None
        Deprecated: ``estimator`` in the names evaluate used before issue 22.
    test_uncertainty : dict or None
        With the test-set uncertainty: ``model`` ("labels" or "confusion matrices"),
        ``prior_mass`` (the prior's total count, spread evenly over the cells),
        ``prior_share`` (``prior_mass`` over the test set's items), ``samples``, ``seed``,
        ``interval``, ``exact_pairs`` (how many pairs' test-set flip probabilities are exact,
        not Monte Carlo: with labels and the test set's class proportions, all unless the
        integral does not converge within its budget, not met in the tests) and, when
        ``prior_share`` is above :data:`~mcrank.evaluate.uncertainty.PRIOR_NOTE_SHARE`, a
        ``note``. ``prior_count`` is a deprecated name of ``prior_mass`` (until issue 24 it
        was the count on every cell).
    class_frequencies : dict or None
        With deployment class frequencies: ``source`` ("given" or "counts"),
        ``deployment`` (the frequencies used, by class), ``test_set`` (the test set's own),
        ``tolerance`` (:data:`FREQUENCY_TOLERANCE`) and, from counts, ``counts`` and
        ``prior_per_class`` (the posterior mean is used).
    description : str or None
        The input file's description.
    class_order : {"given", "utility", "natural"} or None
        For labels (:func:`evaluate_file` with ``labels=True``, :func:`evaluate_predictions`):
        which rule of :func:`mcrank.evaluate.targets.class_order` gave the class order.
    """

    classifiers: tuple[ClassifierResult, ...]
    disagreements: tuple[Disagreement, ...]
    pairs: tuple[PairFlip, ...] | None
    classes: tuple[str, ...]
    class_totals: np.ndarray
    utility: UtilityAssessment
    normalised_utility: np.ndarray
    metrics: tuple[tuple[str, str], ...]
    samples: int | None = None
    seed: int | None = None
    method: str | None = None
    test_uncertainty: dict | None = None
    description: str | None = None
    class_order: str | None = None
    class_frequencies: dict | None = None
    estimator: str | None = None

    def __str__(self) -> str:
        """The report that ``mcrank evaluate`` prints, 80 characters wide
        (:func:`mcrank.evaluate.report.render_table`, which takes another width)."""
        return rendering(self, "text")(self)

    def to_records(self) -> list[dict]:
        """The ranking as a table without pandas: one dict per classifier, in rank order, with
        ``rank``, ``classifier``, ``utility_yield``, each metric's score (NaN where undefined)
        and ``<metric>_rank`` and, with the test-set uncertainty, ``utility_yield_low`` and
        ``utility_yield_high``: the CSV output's first columns (:func:`mcrank.evaluate.report.records`)."""
        return rendering(self, "records")(self)

    def metric_agreement(self) -> list[dict]:
        """Per metric, how its ranking agrees with the utility yield's: pairs it orders the
        other way, ties differently or cannot score, and Kendall's tau-b
        (:func:`mcrank.evaluate.report.metric_agreement`)."""
        return rendering(self, "metric_agreement")(self)

    def to_dict(self) -> dict:
        """A JSON-ready dict: ``classifiers`` in rank order, ``disagreements``, and ``pairs``
        (with an error sd), plus the classes, the test set and the utility matrix used.
        Undefined scores are None (:func:`mcrank.evaluate.report.to_dict`)."""
        return rendering(self, "dict")(self)
