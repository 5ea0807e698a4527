"""The mathematics of scoring classifiers (mcrank.roc): closed forms against quadrature and
dense grids of thresholds."""

from __future__ import annotations

import math

import numpy as np
import pytest
import roc_oracle
from scipy import integrate
from scipy.special import ndtr, ndtri

from mcrank import roc

#: A dense grid of false-positive rates, both corners included, and the normal quantiles.
GRID = np.linspace(0.0, 1.0, 10**6 + 1)
with np.errstate(divide="ignore"):
    GRID_X = ndtri(GRID)


def grid_tpr(mu, sigma):
    return ndtr((mu + GRID_X) / sigma)


def grid_yield(utility, prevalence, mu, sigma):
    """Eq. (21) on the grid."""
    t = grid_tpr(mu, sigma)
    u = np.asarray(utility, dtype=float)
    return prevalence * (u[0, 0] * t + u[1, 0] * (1 - t)) + (1 - prevalence) * (u[0, 1] * GRID + u[1, 1] * (1 - GRID))


def assert_at_grid_max(value, grid_values, fpr=None):
    """``value`` is the maximum: never below the grid's by more than 1e-12, above it by no
    more than the grid's resolution allows (the function is smooth; 1e-6 is generous)."""
    top = grid_values.max()
    assert value >= top - 1e-12, (value, top)
    assert value - top <= 1e-6, (value, top)
    if fpr is not None:
        assert 0.0 <= fpr <= 1.0


def random_classifiers(count, seed):
    rng = np.random.default_rng(seed)
    return zip(rng.random(count), rng.uniform(-0.5, 3.5, count), np.exp(rng.uniform(math.log(0.4), math.log(2.5), count)))


@pytest.mark.parametrize("mu, sigma", [(0.0, 1.0), (1.0, 1.0), (2.0, 0.5), (0.7, 2.0), (-0.5, 1.3), (3.0, 0.6)])
def test_auc_is_the_area_under_the_curve(mu, sigma):
    area, _ = integrate.quad(lambda f: ndtr((mu + ndtri(f)) / sigma), 0.0, 1.0, epsabs=1e-13, epsrel=1e-12, limit=200)
    assert roc.binormal_auc(mu, sigma) == pytest.approx(area, abs=1e-10)
    assert roc.ROC_SCORES["auc"](0.3, mu, sigma) == roc.binormal_auc(mu, sigma)


def test_binormal_tpr_is_the_curve():
    f = np.array([0.0, 1e-12, 0.1, 0.5, 0.9, 1.0])
    expected = ndtr((1.2 + ndtri(f)) / 0.8)
    np.testing.assert_allclose(roc.binormal_tpr(f, 1.2, 0.8), expected, rtol=1e-14)
    assert roc.binormal_tpr(0.0, 1.2, 0.8) == 0.0 and roc.binormal_tpr(1.0, 1.2, 0.8) == 1.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.slow
def test_best_threshold_is_the_grid_maximum(seed):
    rng = np.random.default_rng(100 + seed)
    for prevalence, mu, sigma in random_classifiers(25, seed):
        utility = rng.normal(size=(2, 2))  # any matrix, reversed differences included
        fpr, value = roc.best_threshold(utility, prevalence, mu, sigma)
        assert_at_grid_max(value, grid_yield(utility, prevalence, mu, sigma), fpr)
        # The yield at the returned threshold is the returned yield.
        t = roc.binormal_tpr(fpr, mu, sigma)
        at = prevalence * (utility[0, 0] * t + utility[1, 0] * (1 - t)) + (1 - prevalence) * (
            utility[0, 1] * fpr + utility[1, 1] * (1 - fpr)
        )
        assert at == pytest.approx(value, abs=1e-9)


def test_both_corners():
    # U00 - U10 < 0 and U11 - U01 > 0: output 1 always is best (f = 0).
    utility = np.array([[0.0, 0.0], [1.0, 1.0]])
    fpr, value = roc.best_threshold(utility, 0.4, 1.5, 0.7)
    assert (fpr, value) == (0.0, 0.4 * 1.0 + 0.6 * 1.0)
    # U00 - U10 > 0 and U11 - U01 < 0: output 0 always is best (f = 1).
    utility = np.array([[1.0, 1.0], [0.0, 0.0]])
    fpr, value = roc.best_threshold(utility, 0.4, 1.5, 0.7)
    assert (fpr, value) == (1.0, 0.4 * 1.0 + 0.6 * 1.0)
    # A rare class and a poor classifier: the corner f = 0, exactly its float, for every
    # classifier, so that two such classifiers are tied exactly.
    utility = np.eye(2)
    values = [roc.best_threshold(utility, 0.02, mu, sigma)[1] for mu, sigma in [(0.3, 0.8), (0.5, 0.9), (0.1, 0.7)]]
    assert values == [0.02 * 0.0 + 0.98 * 1.0] * 3
    assert_at_grid_max(values[0], grid_yield(utility, 0.02, 0.3, 0.8))


def test_reversed_utility_differences():
    # A perturbed matrix with U00 < U10 (both differences negative: a d > 0, where the
    # stationary point is the interior minimum of a concave-curve yield, not its maximum).
    utility = np.array([[0.2, 0.9], [0.5, 0.1]])
    for prevalence, mu, sigma in [(0.5, 1.0, 1.0), (0.3, 2.0, 0.6), (0.8, 0.5, 1.8), (0.5, -0.8, 0.7)]:
        fpr, value = roc.best_threshold(utility, prevalence, mu, sigma)
        assert_at_grid_max(value, grid_yield(utility, prevalence, mu, sigma), fpr)


@pytest.mark.parametrize("mu", [-1.0, 0.0, 0.4, 1.0, 2.5])
def test_sigma_exactly_one_is_the_linear_case(mu):
    utility = np.array([[1.0, 0.3], [0.1, 0.8]])
    for prevalence in (0.1, 0.5, 0.9):
        fpr, value = roc.best_threshold(utility, prevalence, mu, 1.0)
        assert_at_grid_max(value, grid_yield(utility, prevalence, mu, 1.0), fpr)
        # Equal variances: the log of the ROC slope, -mu x - mu^2 / 2, is linear in x, so the
        # stationary point is x = (log(a / d) - mu^2 / 2) / mu, a maximum when mu > 0.
        a, d = (1.0 - 0.1) * prevalence, (0.8 - 0.3) * (1 - prevalence)
        if mu > 0:
            x = (math.log(a / d) - mu * mu / 2) / mu
            interior = prevalence * (0.1 + 0.9 * ndtr(mu + x)) + (1 - prevalence) * (0.8 - 0.5 * ndtr(x))
            assert value == pytest.approx(
                max(interior, 0.1 * prevalence + 0.8 * (1 - prevalence), prevalence + 0.3 * (1 - prevalence)), rel=1e-14
            )
    # And next to sigma = 1 the quadratic's leading coefficient is tiny: no jump.
    values = [roc.best_threshold(utility, 0.4, mu, s)[1] for s in (1 - 1e-12, 1.0, 1 + 1e-12)]
    assert max(values) - min(values) < 1e-10


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_best_f1_is_the_grid_maximum(seed):
    for prevalence, mu, sigma in random_classifiers(25, 200 + seed):
        fpr, value = roc.best_f1(prevalence, mu, sigma)
        t = grid_tpr(mu, sigma)
        with np.errstate(invalid="ignore"):
            f1 = np.nan_to_num(2 * prevalence * t / (prevalence + prevalence * t + (1 - prevalence) * GRID))
        assert_at_grid_max(value, f1, fpr)
        assert value >= 2 * prevalence / (1 + prevalence)
        t_at = roc.binormal_tpr(fpr, mu, sigma)
        assert 2 * prevalence * t_at / (prevalence + prevalence * t_at + (1 - prevalence) * fpr) == pytest.approx(value, rel=1e-12)


def test_best_f1_at_the_extremes_of_the_prevalence():
    assert roc.best_f1(1.0, 1.0, 1.0)[1] == 1.0  # every item positive: always output 0
    assert roc.best_f1(0.0, 1.0, 1.0)[1] == 0.0


@pytest.mark.parametrize("seed", range(2))
def test_best_youden_is_the_grid_maximum(seed):
    for _, mu, sigma in random_classifiers(30, 300 + seed):
        fpr, j = roc.best_youden(mu, sigma)
        assert_at_grid_max(j, grid_tpr(mu, sigma) - GRID, fpr)
        assert j >= 0.0


def test_best_accuracy_is_best_threshold_under_the_identity():
    for prevalence, mu, sigma in random_classifiers(30, 400):
        fpr, accuracy = roc.best_accuracy(prevalence, mu, sigma)
        assert (fpr, accuracy) == roc.best_threshold(np.eye(2), prevalence, mu, sigma)
        t = grid_tpr(mu, sigma)
        assert_at_grid_max(accuracy, prevalence * t + (1 - prevalence) * (1 - GRID))


def test_equal_variance_scores_increase_with_mu():
    """With sigma = 1 a larger mu dominates everywhere on the ROC curve: every score and
    every yield at the best threshold increases; weakly where the best threshold is a corner,
    which does not depend on the classifier (accuracy and F1 at a skewed prevalence, the
    yield), or within rounding of one."""
    mus = np.linspace(0.05, 3.0, 60)
    utility = np.array([[0.9, 0.2], [0.1, 1.0]])
    for prevalence in (0.2, 0.5, 0.8):
        for score in roc.DEFAULT_ROC_SCORES:
            values = roc.get_roc_score(score)(prevalence, mus, 1.0)
            if score in ("best_accuracy", "best_f1"):  # the corner f = 1 or f = 0 may be best
                assert np.all(np.diff(values) >= 0) and values[-1] > values[0], score
                above = values[1:] > values[0] + 1e-12
                assert np.all(np.diff(values)[above] > 0), score
            else:
                assert np.all(np.diff(values) > 0), score
        yields = roc.best_threshold(utility, prevalence, mus, 1.0)[1]
        assert np.all(np.diff(yields) >= 0) and yields[-1] > yields[0]


def test_iso_utility_slope():
    utility = np.array([[1.0, 0.2], [0.3, 0.9]])
    assert roc.iso_utility_slope(utility, 0.25) == pytest.approx((0.9 - 0.2) * 0.75 / ((1.0 - 0.3) * 0.25))
    # The best interior threshold is where the ROC slope equals it.
    mu, sigma, prevalence = 1.3, 0.8, 0.25
    fpr, _ = roc.best_threshold(utility, prevalence, mu, sigma)
    x = ndtri(fpr)
    slope = math.exp(-0.5 * ((mu + x) / sigma) ** 2 + 0.5 * x * x) / sigma
    assert slope == pytest.approx(roc.iso_utility_slope(utility, prevalence), rel=1e-8)


def test_the_registry_and_its_switch():
    assert tuple(roc.ROC_SCORES)[: len(roc.DEFAULT_ROC_SCORES)] == roc.DEFAULT_ROC_SCORES
    assert [s.code for s in roc.ROC_SCORES.values()] == list(range(len(roc.ROC_SCORES)))
    with pytest.raises(KeyError, match="known scores: auc"):
        roc.get_roc_score("h_measure")
    prevalence, mu, sigma = 0.3, 1.1, 0.9
    expected = {
        "auc": roc.binormal_auc(mu, sigma),
        "best_accuracy": roc.best_accuracy(prevalence, mu, sigma)[1],
        "best_youden": roc.best_youden(mu, sigma)[1],
        "best_f1": roc.best_f1(prevalence, mu, sigma)[1],
    }
    for score, value in expected.items():
        assert roc._roc_score.py_func(roc.ROC_SCORES[score].code, prevalence, mu, sigma) == value
        assert roc.ROC_SCORES[score](prevalence, mu, sigma) == value


def test_jitted_and_python_forms_agree():
    for prevalence, mu, sigma in random_classifiers(20, 500):
        assert roc._best_f1(prevalence, mu, sigma) == roc._best_f1.py_func(prevalence, mu, sigma)
        args = (0.9, 0.1, 0.2, 0.7, prevalence, mu, sigma)
        assert roc._best_threshold(*args) == pytest.approx(roc._best_threshold.py_func(*args), rel=1e-15)


def test_broadcasting_and_errors():
    fpr, value = roc.best_threshold(np.eye(2), np.array([0.2, 0.5]), np.array([[1.0], [2.0]]), 1.0)
    assert fpr.shape == value.shape == (2, 2)
    assert isinstance(roc.best_youden(1.0, 1.0)[1], float)
    with pytest.raises(ValueError, match="sigma"):
        roc.best_youden(1.0, 0.0)
    with pytest.raises(ValueError, match="prevalence"):
        roc.best_f1(1.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="mu"):
        roc.binormal_auc(np.nan, 1.0)
    with pytest.raises(ValueError, match="utility"):
        roc.best_threshold(np.eye(3), 0.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="fpr"):
        roc.binormal_tpr(1.2, 1.0, 1.0)


def _sign_class(d):
    """1, -1, 0 or 2 (NaN): what a comparison must reproduce of a difference."""
    return np.where(d > 0, 1, np.where(d < 0, -1, np.where(d == 0, 0, 2)))


def _pairs(count, seed):
    """Pairs of classifiers, a third random, a third nearly identical (down to one ulp and
    to exactly equal), a third with sigma near or at 1; prevalences random, fixed and extreme."""
    rng = np.random.default_rng(seed)
    prevalence = np.where(rng.random(count) < 0.7, rng.random(count), rng.choice([0.0, 1.0, 0.01, 0.5, 1e-300], count))
    mu_1, mu_2 = rng.uniform(-0.5, 3.5, count), rng.uniform(-0.5, 3.5, count)
    sigma_1, sigma_2 = np.exp(rng.uniform(-1.5, 1.5, count)), np.exp(rng.uniform(-1.5, 1.5, count))
    near = slice(count // 3, 2 * count // 3)
    tiny = rng.choice([0.0, 1e-16, 1e-13, 1e-10, 1e-7], (2, near.stop - near.start)) * rng.standard_normal((2, near.stop - near.start))
    mu_2[near], sigma_2[near] = mu_1[near] + tiny[0], sigma_1[near] * (1.0 + tiny[1])
    ones = slice(2 * count // 3, count)
    sigma_1[ones] = 1.0 + rng.choice([0.0, 1e-15, 1e-9], count - ones.start) * rng.standard_normal(count - ones.start)
    sigma_2[ones] = 1.0
    return prevalence, mu_1, sigma_1, mu_2, sigma_2


@pytest.mark.slow
def test_a_comparison_has_the_sign_of_the_difference_of_the_scores():
    """Every score's comparison, however early it decides, ranks a pair as the difference of
    its two scores does: the same sign, 0 (a tie) and NaN included."""
    pairs = _pairs(30_000, 510)
    prevalence, mu_1, sigma_1, mu_2, sigma_2 = pairs
    for entry in roc.ROC_SCORES.values():
        expected = _sign_class(entry(prevalence, mu_2, sigma_2) - entry(prevalence, mu_1, sigma_1))
        out = np.array([roc._roc_compare.py_func(entry.code, *pair) for pair in zip(*pairs)])
        np.testing.assert_array_equal(_sign_class(out), expected, err_msg=entry.id)
        assert np.count_nonzero(expected == 0) > 0  # identical classifiers tie


def test_a_comparison_of_best_thresholds_has_the_sign_of_their_difference():
    """Two classifiers at their best thresholds under one utility matrix, any signs of
    ``U00 - U10`` and ``U11 - U01`` (perturbed matrices): the sign of the difference of the
    two Y*, exactly 0 when both sit at one corner (a pair tied in truth)."""
    pairs = _pairs(30_000, 511)
    rng = np.random.default_rng(512)
    u = np.eye(2) + rng.choice([0.0, 0.1, 0.5, 2.0], (mu_size := pairs[1].size, 1, 1)) * rng.standard_normal((mu_size, 2, 2))
    u[::7, 0, 0] = u[::7, 1, 0]  # a = 0
    prevalence, mu_1, sigma_1, mu_2, sigma_2 = pairs
    expected = _sign_class(roc.best_threshold(u, prevalence, mu_2, sigma_2)[1] - roc.best_threshold(u, prevalence, mu_1, sigma_1)[1])
    out = np.empty(mu_size)
    for i, (m, pair) in enumerate(zip(u, zip(*pairs))):
        low, high, a, d = roc._corners(m[0, 0], m[0, 1], m[1, 0], m[1, 1], pair[0])
        out[i] = roc._linear_compare(a, d, low, high, *pair[1:])
    np.testing.assert_array_equal(_sign_class(out), expected)
    assert np.count_nonzero(expected == 0) > 1000 and np.count_nonzero(expected == 1) > 1000


# --- the H-measure and AUPRC: fixed-order quadrature against adaptive quadrature ----------------


#: Classifiers at the edges of the study's prior and beyond: (B, mu, sigma).
CURVE_CASES = [
    (0.5, 1.0, 1.0), (0.3, 2.0, 1.7), (0.7, 0.5, 0.6), (0.05, 2.5, 0.5), (0.9, 3.0, 2.0), (0.01, 1.0, 1.3),
    (0.5, 0.0, 2.0), (0.99, 0.1, 0.5), (0.2, 3.0, 1.0), (0.5, 0.0, 1.0), (0.01, 3.0, 2.0), (0.99, 3.0, 0.5),
    (0.4, 1.5, 1.000001), (0.6, 0.7, 0.999999),
]  # fmt: skip


@pytest.mark.parametrize(("prevalence", "mu", "sigma"), CURVE_CASES)
@pytest.mark.slow
def test_h_measure_and_auprc_match_adaptive_quadrature(prevalence, mu, sigma):
    """Gauss-Legendre panels (mcrank.roc) within 1e-9 of QUADPACK on the definitions
    (tests/roc_oracle.py: the loss minimised by brute force at each cost, no hull algebra)."""
    h = roc.ROC_SCORES["hmeasure"](prevalence, mu, sigma)
    assert abs(h - roc_oracle.h_measure_by_quadrature(prevalence, mu, sigma)) < 1e-9
    ap = roc.ROC_SCORES["auprc"](prevalence, mu, sigma)
    assert abs(ap - roc_oracle.auprc_by_quadrature(prevalence, mu, sigma)) < 1e-9


def test_h_measure_is_symmetric_in_the_classes_and_zero_for_a_random_curve():
    # Swapped classes (and scores negated): the curve (mu / sigma, 1 / sigma) at 1 - B.
    for prevalence, mu, sigma in CURVE_CASES:
        h = roc.ROC_SCORES["hmeasure"](prevalence, mu, sigma)
        assert h == pytest.approx(roc.ROC_SCORES["hmeasure"](1 - prevalence, mu / sigma, 1 / sigma), abs=1e-12)
    assert roc.ROC_SCORES["hmeasure"](0.3, 0.0, 1.0) == pytest.approx(0.0, abs=1e-14)
    assert roc.ROC_SCORES["auprc"](0.3, 0.0, 1.0) == pytest.approx(0.3, abs=1e-13)  # precision B everywhere


def test_h_measure_ranks_as_the_expected_best_yield_under_beta_costs():
    """Hernandez-Orallo, Flach & Ferri (2012): under the optimal threshold choice, H is an affine
    function of the expected loss when the cost proportion is drawn from its severity
    distribution. So when the true utility matrix is ``U_c = [[0, -(1 - c)], [-c, 0]]`` (a false
    negative costs c, a false positive 1 - c) with c ~ Beta(2, 2), and each classifier is used
    at its best threshold under ``U_c`` (:func:`mcrank.roc.best_threshold`, the study's Y*),
    H ranks every pair of a shared B exactly as the expected yield: 0 misranked pairs."""
    nodes, weights = np.polynomial.legendre.leggauss(4)
    panels = 4000  # a kink of Q(c) costs at most ~ (1 / panels)^2: below 1e-7
    edges = np.arange(panels)[:, None] / panels
    c = (edges + (nodes + 1) / (2 * panels)).ravel()
    w = (np.tile(weights, panels) / (2 * panels)) * 6 * c * (1 - c)
    utility = np.zeros((c.size, 2, 2))
    utility[:, 0, 1], utility[:, 1, 0] = -(1 - c), -c
    rng = np.random.default_rng(20)
    pairs, misranked, compared = 150, 0, 0
    for _ in range(pairs):
        b = rng.uniform(0.02, 0.98)
        mu, sigma = rng.uniform(0, 3, 2), np.exp(rng.uniform(np.log(0.5), np.log(2), 2))
        expected = np.array([w @ roc.best_threshold(utility, b, mu[k], sigma[k])[1] for k in range(2)])
        h = roc.ROC_SCORES["hmeasure"](b, mu, sigma)
        worst = b * (1 - b) * ((1 - b) ** 2 * (2 - 1.5 * (1 - b)) + b * b * (2 - 1.5 * b))  # int min(cB, (1-c)(1-B)) w
        np.testing.assert_allclose(-(1 - h) * worst, expected, atol=2e-7)
        if abs(expected[1] - expected[0]) > 1e-6:
            compared += 1
            misranked += np.sign(h[1] - h[0]) != np.sign(expected[1] - expected[0])
    assert compared > 140 and misranked == 0
