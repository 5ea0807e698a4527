"""A plain NumPy implementation of the study on finite test sets: the oracle of the engine's tests.

Written from ``docs/method.md`` ("Finite test sets") without importing anything from mcrank. Steps 1-3
are those of :mod:`numpy_oracle`; then each pair gets a test set of N items:

- the class counts ``K ~ Multinomial(N, p)``, drawn with numpy's ``multinomial`` (for two
  classes, ``K_0 ~ Binomial(N, p)``), the same for both classifiers;
- each classifier's column ``F_.j ~ Multinomial(K_j, P(. | j))``, drawn with numpy's
  ``binomial``: the engine's own sampler is numba's, so agreement checks it too;
- every metric, from its textbook definition on the counts, and the yields of the true and
  of the perturbed utility matrices on ``F / N``; ``d_true`` stays the population's.

Ties and undefined values (0/0, NaN) count as incorrect, and are also counted apart. Balanced
accuracy leaves out a class absent from the test set, as scikit-learn does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy_oracle import (
    perturb_gaussian,
    perturb_truncated,
    ranked_correctly,
    sample_hexagon_gaussian,
    sample_hexagon_uniform,
    sample_rates,
    utility_from_xy,
)

__all__ = ["FiniteOracleResult", "binary_count_score", "run_finite_oracle"]


def binary_count_score(name: str, tp, fp, fn, tn) -> np.ndarray:
    """A two-class metric of counts (class 0 positive), from its textbook definition; 0/0 is NaN."""
    tp, fp, fn, tn = (np.asarray(v, dtype=float) for v in (tp, fp, fn, tn))
    total = tp + fp + fn + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr, tnr = tp / (tp + fn), tn / (tn + fp)
        precision = tp / (tp + fp)
        if name == "accuracy":
            return (tp + tn) / total
        if name == "tpr":
            return tpr
        if name == "tnr":
            return tnr
        if name == "precision":
            return precision
        if name == "balanced_accuracy":
            # scikit-learn: the mean recall over the classes present in the test set.
            both = (tpr + tnr) / 2
            return np.where(tp + fn == 0, tnr, np.where(tn + fp == 0, tpr, both))
        if name == "f1":
            # 2 TP / (2 TP + FP + FN), as scikit-learn computes it: 0, not 0/0, when there is
            # no true positive but some error.
            return 2 * tp / (2 * tp + fp + fn)
        if name == "mcc":
            return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        if name == "fowlkes_mallows":
            return np.sqrt(precision * tpr)
    raise ValueError(f"the finite-test-set oracle does not know the metric {name!r}")


@dataclass(frozen=True)
class FiniteOracleResult:
    """Counts from :func:`run_finite_oracle`: per metric and per sd, the incorrectly ranked
    pairs and, among them, the tied ones (difference 0 or NaN)."""

    samples: int
    metric_incorrect: dict[str, int]
    metric_tied: dict[str, int]
    utility_incorrect: np.ndarray
    utility_tied: np.ndarray


def _tied(d):
    return ~((d > 0) | (d < 0))


def run_finite_oracle(
    samples: int,
    test_size: int,
    *,
    rng: np.random.Generator,
    true_um: str = "uniform",
    error: str = "gaussian",
    sds=(0.1,),
    metrics=("accuracy", "tpr", "precision", "balanced_accuracy", "mcc", "fowlkes_mallows", "f1"),
    chunk_size: int = 2**15,
) -> FiniteOracleResult:
    """The paper's two-class study (its default settings) on test sets of ``test_size`` items."""
    sds = np.asarray(sds, dtype=float)
    perturb = perturb_gaussian if error == "gaussian" else perturb_truncated
    metric_incorrect, metric_tied = dict.fromkeys(metrics, 0), dict.fromkeys(metrics, 0)
    utility_incorrect, utility_tied = np.zeros(sds.size, dtype=np.int64), np.zeros(sds.size, dtype=np.int64)
    done = 0
    while done < samples:
        n = min(chunk_size, samples - done)
        done += n
        x, y = sample_hexagon_uniform(n, rng) if true_um == "uniform" else sample_hexagon_gaussian(n, 1 / 3, rng)
        utility = utility_from_xy(x, y)  # columns U00, U01, U10, U11
        p = rng.uniform(0.0, 1.0, n)
        a1, b1, a2, b2 = (sample_rates(n, rng) for _ in range(4))
        population = [np.stack([p * a, (1 - p) * (1 - b), p * (1 - a), (1 - p) * b], axis=1) for a, b in ((a1, b1), (a2, b2))]
        d_true = np.sum(utility * (population[1] - population[0]), axis=1)
        positives = rng.binomial(test_size, p)
        negatives = test_size - positives
        counts = []
        for a, b in ((a1, b1), (a2, b2)):
            tp, tn = rng.binomial(positives, a), rng.binomial(negatives, b)
            counts.append(np.stack([tp, negatives - tn, positives - tp, tn], axis=1).astype(float))
        for name in metrics:
            first, second = (binary_count_score(name, *c.T) for c in counts)
            d = second - first
            metric_incorrect[name] += int(np.count_nonzero(~ranked_correctly(d_true, d)))
            metric_tied[name] += int(np.count_nonzero(_tied(d)))
        observed = (counts[1] - counts[0]) / test_size
        for k, s in enumerate(sds):
            d_s = np.sum(perturb(utility, s, rng) * observed, axis=1)
            utility_incorrect[k] += np.count_nonzero(~ranked_correctly(d_true, d_s))
            utility_tied[k] += np.count_nonzero(_tied(d_s))
    return FiniteOracleResult(samples, metric_incorrect, metric_tied, utility_incorrect, utility_tied)
