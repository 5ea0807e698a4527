"""Compliance with decision theory (paper §3.1, §3.3): who ranks pairs as a utility yield does.

Pairs of classifiers share one test set (the same class-0 fraction p) and have continuous
random TPR and TNR, so exact ties have probability zero and the sign of every difference is
meaningful.
"""

from __future__ import annotations

import numpy as np
import pytest

from mcrank.confusion import confusion_from_pab
from mcrank.metrics import METRICS, score
from mcrank.utility_space import um_from_xy, utility_yield

N_PAIRS = 20_000

COMPLIANT = ("accuracy", "tpr", "tnr", "micro_f1")
NON_COMPLIANT = (
    "precision",
    "npv",
    "balanced_accuracy",
    "f1",
    "fbeta",
    "mcc",
    "fowlkes_mallows",
    "gmean",
    "informedness",
    "markedness",
    "cohen_kappa",
    "macro_f1",
    "macro_precision",
)

#: A handful of utility matrices: identity, TPR's, TNR's, and one off the axes.
SOME_UMS = {
    "identity": [[1.0, 0.0], [0.0, 1.0]],
    "tpr": [[1.0, 0.0], [0.0, 0.0]],
    "tnr": [[0.0, 0.0], [0.0, 1.0]],
    "(0.3, -0.4)": um_from_xy(0.3, -0.4),
    "(-0.5, 0.2)": um_from_xy(-0.5, 0.2),
}


def _pairs(seed: int, p_low: float, p_high: float, n: int = N_PAIRS):
    """Confusion matrices C1, C2 of n pairs: shared p, independent uniform TPR and TNR."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(p_low, p_high, n)
    c1 = confusion_from_pab(p, rng.uniform(0, 1, n), rng.uniform(0, 1, n))
    c2 = confusion_from_pab(p, rng.uniform(0, 1, n), rng.uniform(0, 1, n))
    return c1, c2


PAIRS_ANY_P = _pairs(101, 0.0, 1.0)
PAIRS_BROAD_P = _pairs(202, 0.05, 0.95)


def _yield_difference(utility, pairs):
    c1, c2 = pairs
    return utility_yield(utility, c2) - utility_yield(utility, c1)


def _metric_difference(metric_id, pairs, beta=2.0):
    c1, c2 = pairs
    return score(metric_id, c2, beta=beta) - score(metric_id, c1, beta=beta)


def test_the_two_lists_cover_every_metric():
    assert set(COMPLIANT) | set(NON_COMPLIANT) == set(METRICS)
    assert not set(COMPLIANT) & set(NON_COMPLIANT)


def test_rankings_are_invariant_under_affine_maps_of_the_utility_matrix():
    """Eq. (10): U -> a*U + b with a > 0 changes no ranking (one random U, a, b per pair)."""
    rng = np.random.default_rng(303)
    u = rng.uniform(-10, 10, size=(N_PAIRS, 2, 2))
    scale = np.exp(rng.uniform(np.log(1e-2), np.log(1e2), size=(N_PAIRS, 1, 1)))
    shift = rng.uniform(-100, 100, size=(N_PAIRS, 1, 1))
    d = _yield_difference(u, PAIRS_ANY_P)
    d_mapped = _yield_difference(scale * u + shift, PAIRS_ANY_P)
    assert np.all(d != 0)
    np.testing.assert_array_equal(np.sign(d_mapped), np.sign(d))
    # and the yields themselves transform as a*yield + b (entries of C sum to 1)
    c1 = PAIRS_ANY_P[0]
    expected = scale[:, 0, 0] * utility_yield(u, c1) + shift[:, 0, 0]
    np.testing.assert_allclose(utility_yield(scale * u + shift, c1), expected, rtol=1e-12, atol=1e-11)


@pytest.mark.parametrize("metric_id", COMPLIANT)
def test_compliant_metric_ranks_every_pair_as_its_utility_yield(metric_id):
    metric = METRICS[metric_id]
    assert metric.compliant
    d_metric = _metric_difference(metric_id, PAIRS_ANY_P)
    d_yield = _yield_difference(metric.equivalent_um, PAIRS_ANY_P)
    assert np.all(d_metric != 0) and np.all(d_yield != 0)  # continuous draws: no ties
    disagreements = np.count_nonzero(np.sign(d_metric) != np.sign(d_yield))
    assert disagreements == 0


@pytest.mark.parametrize("metric_id", COMPLIANT)
def test_compliant_metric_ranks_as_its_utility_yield_through_from_pab(metric_id):
    rng = np.random.default_rng(404)
    p = rng.uniform(0, 1, N_PAIRS)
    a1, b1, a2, b2 = rng.uniform(0, 1, size=(4, N_PAIRS))
    metric = METRICS[metric_id]
    d_metric = metric.from_pab(p, a2, b2) - metric.from_pab(p, a1, b1)
    u = metric.equivalent_um
    d_yield = _yield_difference(u, (confusion_from_pab(p, a1, b1), confusion_from_pab(p, a2, b2)))
    assert np.count_nonzero(np.sign(d_metric) != np.sign(d_yield)) == 0


@pytest.mark.parametrize("metric_id", NON_COMPLIANT)
@pytest.mark.parametrize("um_name", list(SOME_UMS))
def test_non_compliant_metric_misranks_some_pair_under_every_utility_matrix(metric_id, um_name):
    assert not METRICS[metric_id].compliant
    d_metric = _metric_difference(metric_id, PAIRS_BROAD_P)
    d_yield = _yield_difference(SOME_UMS[um_name], PAIRS_BROAD_P)
    assert np.all(np.isfinite(d_metric))
    disagreements = np.count_nonzero(np.sign(d_metric) != np.sign(d_yield))
    assert disagreements > 0


@pytest.mark.parametrize("metric_id", COMPLIANT)
def test_compliant_metric_misranks_under_another_utility_matrix(metric_id):
    """The test above can fail: a compliant metric agrees with its own matrix only."""
    others = {"accuracy": "tpr", "tpr": "tnr", "tnr": "identity", "micro_f1": "tpr"}
    d_metric = _metric_difference(metric_id, PAIRS_BROAD_P)
    d_yield = _yield_difference(SOME_UMS[others[metric_id]], PAIRS_BROAD_P)
    assert np.count_nonzero(np.sign(d_metric) != np.sign(d_yield)) > 0


def test_balanced_accuracy_is_accuracy_on_a_balanced_test_set():
    """Paper §3.3: balanced accuracy is of the form (16) only when f0 = f1 (p = 1/2)."""
    rng = np.random.default_rng(505)
    a1, b1, a2, b2 = rng.uniform(0, 1, size=(4, N_PAIRS))
    c1, c2 = confusion_from_pab(0.5, a1, b1), confusion_from_pab(0.5, a2, b2)
    d_metric = score("balanced_accuracy", c2) - score("balanced_accuracy", c1)
    d_yield = utility_yield(SOME_UMS["identity"], c2) - utility_yield(SOME_UMS["identity"], c1)
    assert np.count_nonzero(np.sign(d_metric) != np.sign(d_yield)) == 0
