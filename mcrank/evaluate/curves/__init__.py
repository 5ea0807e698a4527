"""Decision curves: net benefit against the threshold probability, and how sure they are.

Decision-curve analysis (Vickers & Elkin, *Med. Decis. Making* 26, 565, 2006) scores a model
of the probability ``p`` of an event by its **net benefit** at a threshold probability
``p_t``: treat when ``p >= p_t`` (the convention of the ``dcurves`` package), and

.. math:: \\mathrm{NB}(p_t) = \\frac{TP}{N} - \\frac{FP}{N} \\frac{p_t}{1 - p_t}.

"Treat all" has ``NB = pi - (1 - pi) p_t / (1 - p_t)`` (``pi`` the test set's prevalence),
"treat none" 0. The net benefit is the utility yield, eq. (9), of the thresholded classifier
under the utility matrix

.. math:: U(p_t) = \\begin{pmatrix} 1 & -p_t / (1 - p_t) \\\\ 0 & 0 \\end{pmatrix}

in the package's layout (rows = output, columns = true class, class 0 = positive = treat):
a decision curve is the utility yield along a one-parameter path of utility matrices, each
model at the threshold that ``U(p_t)`` makes optimal for a calibrated probability.

**How sure** (``test_uncertainty=True``): the posterior of the population's frequencies is
the one of ``mcrank evaluate --test-uncertainty`` (:mod:`mcrank.evaluate.uncertainty`): a
Dirichlet with the prior's total count ``prior_count`` spread evenly over the cells
(:func:`~mcrank.evaluate.posterior.prior_per_cell`). At each threshold each model is a
binary classifier, so

- its band is the central interval of its net benefit under the posterior of its own table,
  Dirichlet(TP, FP, FN, TN + prior_count / 4), drawn (``samples`` draws);
- each pair A, B gets the posterior probability that A's net benefit exceeds B's on the
  population, from the Dirichlet over the joint table (true class, A's decision, B's
  decision), 8 cells with ``prior_count / 8`` each. Only the 4 cells where A and B decide
  differently carry weight (+1, -w for A alone treating a positive, a negative; -1, +w for B
  alone, ``w = p_t / (1 - p_t)``), so ``P(NB_A < NB_B)`` is the Gil-Pelaez integral of
  :func:`mcrank.evaluate.uncertainty._flip_exact`, exact to its tolerance: the probability
  ``evaluate --labels --test-uncertainty`` gives the pair thresholded at ``p_t`` under
  ``U(p_t)``. A probability of 1/2 means the test set cannot tell them apart there.
- every model but the best (the highest mean net benefit over the thresholds) gets the band
  of its net benefit minus the best one's, drawn from the same joint table with the 4 cells
  where both decide alike merged (``samples`` draws).

``docs/evaluate-scoring.md``, "Decision curves", has the CLI and an example.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcrank._rng import DECISION_CURVE_BANDS, DECISION_CURVE_PAIRS, root_of, stream_generator
from mcrank._validation import MAX_EVALUATE_SAMPLES, check_count
from mcrank.evaluate.posterior import DEFAULT_PRIOR_COUNT, check_prior_count, dirichlet, prior_per_cell
from mcrank.evaluate.protocol import ResultProtocol
from mcrank.evaluate.result import DEFAULT_BAND_SAMPLES, rendering
from mcrank.evaluate.scoring import ScoredTestSet, scored_test_set
from mcrank.evaluate.uncertainty import _flip_exact, _IntervalQuantiles

__all__ = ["DEFAULT_BAND_SAMPLES", "DEFAULT_THRESHOLDS", "DecisionCurves", "decision_curves", "net_benefit_utility"]

#: The thresholds of a decision curve by default: 1 %, 2 %, ..., 99 %.
DEFAULT_THRESHOLDS = np.round(np.arange(1, 100) / 100, 2)
#: The central posterior interval of the bands.
BAND = 0.95
#: Work space of the band draws, in draws x thresholds per block: the draws are reduced block
#: by block (:class:`~mcrank.evaluate.uncertainty._IntervalQuantiles`), whatever ``samples``.
_BAND_BLOCK = 1 << 18


def net_benefit_utility(threshold: float) -> np.ndarray:
    """The utility matrix whose yield is the net benefit at ``threshold``.

    Parameters
    ----------
    threshold : float
        The threshold probability ``p_t``, in (0, 1).

    Returns
    -------
    ndarray of shape (2, 2)
        ``[[1, -p_t / (1 - p_t)], [0, 0]]``: rows = output (treat, do not treat), columns =
        true class (event, no event).
    """
    t = _check_thresholds([threshold])[0]
    return np.array([[1.0, -t / (1.0 - t)], [0.0, 0.0]])


@dataclass(frozen=True, repr=False)
class DecisionCurves(ResultProtocol):
    """Net benefit curves of some models on one test set (:func:`decision_curves`).

    Attributes
    ----------
    thresholds : ndarray of shape (T,)
        Threshold probabilities, increasing, in (0, 1).
    net_benefit : dict of str to ndarray of shape (T,)
        Each model's net benefit.
    treat_all : ndarray of shape (T,)
        Net benefit of treating everyone; treating no one has 0.
    prevalence : float
        The test set's share of positives.
    items : int
    classes : tuple of (str, str)
        (positive, negative) labels.
    bands : dict of str to ndarray of shape (T, 2), or None
        Each model's central :data:`BAND` posterior interval (with ``test_uncertainty``).
    probability_better : dict of (str, str) to ndarray of shape (T,), or None
        For each pair ``(a, b)`` (models in the given order, ``a`` first), the posterior
        probability that ``a``'s net benefit exceeds ``b``'s on the population.
    exact : dict of (str, str) to ndarray of bool, or None
        Where ``probability_better`` is the exact integral (else drawn, rare).
    difference_bands : dict of str to ndarray of shape (T, 2), or None
        For every model but :attr:`best`, the central :data:`BAND` posterior interval of its
        net benefit minus the best one's (the pair's joint table, pairing kept).
    prior_count, samples, seed
        The posterior's settings (``seed``: the root seed, None if a Generator was given).
    """

    thresholds: np.ndarray
    net_benefit: dict
    treat_all: np.ndarray
    prevalence: float
    items: int
    classes: tuple
    bands: dict | None = None
    probability_better: dict | None = None
    exact: dict | None = None
    prior_count: float | None = None
    samples: int | None = None
    seed: int | None = None
    difference_bands: dict | None = None

    @property
    def best(self) -> str:
        """The model of the highest mean net benefit over the thresholds (the first of equals):
        the one the others are compared with."""
        return max(self.net_benefit, key=lambda name: float(np.mean(self.net_benefit[name])))

    @property
    def treat_none(self) -> np.ndarray:
        return np.zeros_like(self.thresholds)

    def to_dict(self) -> dict:
        """JSON-ready: thresholds, curves, and with the posterior the bands and probabilities
        (:func:`mcrank.evaluate.curves.report.to_dict`)."""
        return rendering(self, "dict")(self)


def _check_thresholds(thresholds) -> np.ndarray:
    try:
        t = np.asarray(thresholds, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError("thresholds: not an array of numbers") from None
    if t.size == 0:
        raise ValueError("thresholds: give at least one threshold")
    if len(bad := np.flatnonzero(~((t > 0) & (t < 1)))):  # NaN fails both
        raise ValueError(f"thresholds: {float(t[bad[0]])!r} is not a threshold probability in (0, 1) (open interval)")
    if np.any(np.diff(t) <= 0):
        raise ValueError("thresholds: must be strictly increasing")
    return t


def _check_probabilities(test_set: ScoredTestSet) -> None:
    for name, p in test_set.scores.items():
        if len(bad := np.flatnonzero((p < 0) | (p > 1))):
            raise ValueError(f"{test_set.where(name, bad[0])}: {float(p[bad[0]])!r} is not a probability in [0, 1]; "
                             "decision curves need predicted probabilities")  # fmt: skip


def _treated_counts(positive: np.ndarray, levels: np.ndarray, thresholds: int) -> np.ndarray:
    """Per threshold index t, the positives and negatives treated: ``levels`` counts the
    thresholds at or below each item's probability, so an item is treated at t when
    ``t < level``. Returns shape (2, T): (positives, negatives)."""
    out = np.empty((2, thresholds))
    for row, members in enumerate((positive, ~positive)):
        at_or_below = np.cumsum(np.bincount(levels[members], minlength=thresholds + 1))[:thresholds]
        out[row] = members.sum() - at_or_below
    return out


def _band(generator: np.random.Generator, alpha: np.ndarray, net, samples: int) -> np.ndarray:
    """The central :data:`BAND` interval, at each threshold, of ``net(f)`` for ``f`` drawn from
    Dirichlet(``alpha[t]``) (``alpha`` of shape (T, components); ``net`` takes the
    draws, of shape (draws, T, components), :func:`~mcrank.evaluate.posterior.dirichlet`'s): ``samples`` draws in
    blocks of bounded size, from ``generator``."""
    thresholds = alpha.shape[0]
    step = max(1, _BAND_BLOCK // thresholds)  # draws per block, at every threshold at once
    quantiles = _IntervalQuantiles(thresholds, samples, ((1 - BAND) / 2, 1 - (1 - BAND) / 2))
    for start in range(0, samples, step):
        quantiles.add(net(dirichlet(generator, alpha, min(step, samples - start))).T)
    return quantiles.result()


def _probabilities_better(root, names, is_positive, levels, treated, odds, joint: float, samples: int) -> tuple[dict, dict]:
    """For each pair ``(a, b)`` of models in order and each threshold, the posterior probability
    that ``a``'s net benefit exceeds ``b``'s, from the cells treated by one only: exact
    (:func:`~mcrank.evaluate.uncertainty._flip_exact`) or, where the integral does not
    converge, drawn; and where it is exact."""
    better, exact, pair, size = {}, {}, -1, odds.size
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            pair += 1
            both = _treated_counts(is_positive, np.minimum(levels[a], levels[b]), size)
            only_a, only_b = treated[a] - both, treated[b] - both  # (2, T): positives, negatives
            probability, is_exact = np.empty(size), np.ones(size, dtype=bool)
            for k in range(size):
                weights = np.array([1.0, -odds[k], -1.0, odds[k]])
                alpha = np.array([only_a[0, k], only_a[1, k], only_b[0, k], only_b[1, k]]) + joint
                below = _flip_exact(weights, alpha)  # P(NB_a < NB_b); a tie has probability 0
                if below is None:  # the integral did not converge: drawn instead, in blocks
                    generator, below = stream_generator(root, DECISION_CURVE_PAIRS, pair * size + k), 0
                    for start in range(0, samples, _BAND_BLOCK):
                        f = dirichlet(generator, alpha, min(_BAND_BLOCK, samples - start))
                        below += int(np.count_nonzero(f @ weights < 0))
                    below, is_exact[k] = below / samples, False
                probability[k] = 1.0 - below
            better[a, b], exact[a, b] = probability, is_exact
    return better, exact


def decision_curves(y_true, scores=None, *, positive=None, thresholds=None, test_uncertainty: bool = False,
                    prior_count: float = DEFAULT_PRIOR_COUNT, samples: int = DEFAULT_BAND_SAMPLES, rng=None) -> DecisionCurves:  # fmt: skip
    """Net benefit of each model, treat all and treat none, against the threshold probability.

    Parameters
    ----------
    y_true : array_like of shape (items,), or ScoredTestSet
        The true labels (two classes); or a test set from :func:`mcrank.evaluate.load_scores`
        (then ``scores`` and ``positive`` are not given).
    scores : dict of str to array_like of shape (items,)
        Each model's predicted probability of the positive class (the event), in [0, 1].
    positive : label, optional
        The positive class; by default 1 (True) for labels 0/1 or -1/1, as scikit-learn's
        ``pos_label``.
    thresholds : array_like of shape (T,), optional
        Threshold probabilities in (0, 1), strictly increasing; default 0.01, ..., 0.99.
    test_uncertainty : bool, default False
        Also the posterior bands and the probability, per threshold and pair, that one
        model's net benefit exceeds the other's on the population (module docstring).
    prior_count : float, default 1
        The Dirichlet prior's total count (:mod:`mcrank.evaluate.uncertainty`), in
        [:data:`~mcrank.evaluate.posterior.MIN_PRIOR_COUNT`,
        :data:`~mcrank.evaluate.posterior.MAX_PRIOR_COUNT`].
    samples : int, default 10000
        Posterior draws of the bands, at most :data:`mcrank._validation.MAX_EVALUATE_SAMPLES`;
        drawn in blocks, so memory does not grow with them.
    rng : int, SeedSequence, Generator or None
        The band draws, each model's from its own stream of the root
        (:func:`mcrank._rng.stream_generator`, ``DECISION_CURVE_BANDS``; the probabilities
        are exact, except where the integral fails to converge and they are drawn, from
        ``DECISION_CURVE_PAIRS``); None draws a fresh seed, recorded in the result.

    Returns
    -------
    DecisionCurves

    Raises
    ------
    ValueError
        Naming the parameter: probabilities outside [0, 1] or NaN, thresholds outside
        (0, 1) or not increasing, a bad ``prior_count``, ``samples`` or seed, labels not of
        two classes.

    Examples
    --------
    >>> from mcrank.evaluate import decision_curves
    >>> curves = decision_curves([1, 1, 0, 0], {"model": [0.9, 0.4, 0.3, 0.1]}, thresholds=[0.2, 0.5])
    >>> curves.net_benefit["model"].tolist()  # TP/N - FP/N * p_t / (1 - p_t)
    [0.4375, 0.25]
    >>> curves.treat_all.tolist()
    [0.375, 0.0]
    """
    if isinstance(y_true, ScoredTestSet):
        if scores is not None or positive is not None:
            raise ValueError("scores: a ScoredTestSet holds the scores and the positive class already")
        test_set = y_true
    else:
        if scores is None:
            raise ValueError("scores: give each model's predicted probabilities, {name: array}")
        test_set = scored_test_set(y_true, scores, positive=positive)
    _check_probabilities(test_set)
    t = DEFAULT_THRESHOLDS.copy() if thresholds is None else _check_thresholds(thresholds)
    if test_uncertainty:
        prior_count = check_prior_count(prior_count)
        samples = check_count(samples, "samples", maximum=MAX_EVALUATE_SAMPLES)
    is_positive, total = test_set.positive, test_set.items
    odds = t / (1.0 - t)
    prevalence = float(is_positive.sum()) / total
    treat_all = prevalence - (1.0 - prevalence) * odds
    names = list(test_set.scores)
    levels = {name: np.searchsorted(t, test_set.scores[name], side="right") for name in names}
    treated = {name: _treated_counts(is_positive, levels[name], t.size) for name in names}
    net_benefit = {name: (tp - fp * odds) / total for name, (tp, fp) in treated.items()}
    if not test_uncertainty:
        return DecisionCurves(t, net_benefit, treat_all, prevalence, total, test_set.classes)

    generator_given = isinstance(rng, np.random.Generator)
    root = root_of(rng)
    seed = int(root.entropy) if not generator_given and root.spawn_key == () else None
    positives, negatives = float(is_positive.sum()), float((~is_positive).sum())
    own = prior_per_cell(prior_count, 4)
    bands = {}
    for index, name in enumerate(names):
        tp, fp = treated[name]
        # By aggregation, TP, FP and the untreated rest suffice: NB = f_TP - w f_FP.
        alpha = np.stack((tp + own, fp + own, positives - tp + negatives - fp + 2 * own), axis=-1)  # (T, 3)
        bands[name] = _band(stream_generator(root, DECISION_CURVE_BANDS, index), alpha, lambda g: g[..., 0] - odds * g[..., 1], samples)
    joint = prior_per_cell(prior_count, 8)
    # Each model's net benefit minus the best one's, from their joint table: the cells treated
    # by one only, and the rest merged. Streams after the bands' (children len(names) + index),
    # so that the bands draw as they did without them.
    best = max(names, key=lambda name: float(np.mean(net_benefit[name])))
    differences = {}
    for index, name in enumerate(names):
        if name == best:
            continue
        shared = _treated_counts(is_positive, np.minimum(levels[name], levels[best]), t.size)
        only, only_best = treated[name] - shared, treated[best] - shared  # (2, T): positives, negatives
        rest = total - only.sum(axis=0) - only_best.sum(axis=0)
        alpha = np.stack((only[0] + joint, only[1] + joint, only_best[0] + joint, only_best[1] + joint, rest + 4 * joint), axis=-1)
        differences[name] = _band(stream_generator(root, DECISION_CURVE_BANDS, len(names) + index), alpha,
                                  lambda g: g[..., 0] - odds * g[..., 1] - g[..., 2] + odds * g[..., 3], samples)  # fmt: skip
    better, exact = _probabilities_better(root, names, is_positive, levels, treated, odds, joint, samples)
    return DecisionCurves(t, net_benefit, treat_all, prevalence, total, test_set.classes, bands, better, exact,
                          float(prior_count), int(samples), seed, differences)  # fmt: skip
