"""The ROC/AUC study (``docs/method.md``, "The ROC/AUC study"): the oracle against denser grids,
mcrank.roc's exact best thresholds and AUC against the oracle's brute force, the study against
the oracle (statistical, 4 combined standard errors), the equal-variance case where the ranking
by AUC is provably right, exactness across job counts, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy_oracle import perturb_gaussian, sample_hexagon_uniform, utility_from_xy
from roc_oracle import (
    GRID,
    IDENTITY,
    METRICS,
    auc_by_quadrature,
    best_f1_on_grid,
    best_yield_on_grid,
    best_youden_on_grid,
    curves_on_grid,
    run_roc_oracle,
    yield_at,
)
from scipy.special import ndtr, ndtri

from mcrank import roc
from mcrank.engine import run_study
from mcrank.study import StudyConfig

#: Hand-picked classifiers: hooks near f = 0 (sigma < 1) and near f = 1 (sigma > 1), equal
#: variances, the prior's edges.
CLASSIFIERS = [(0.0, 0.5), (0.3, 0.5), (3.0, 0.5), (1.0, 1.0), (0.05, 1.0), (1.5, 1.2), (0.5, 1.9), (2.5, 2.0), (0.0, 2.0)]

#: Utility matrices (U00, U01, U10, U11): the hexagon's landmarks, interior points, and
#: perturbed ones that break the order (U00 < U10, U11 < U01, both).
UTILITIES = [
    IDENTITY,
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
    [1.0, 1.0, 0.0, 1.0],
    [0.6, 0.3, 0.0, 1.0],
    [1.0, 0.0, 0.45, 0.8],
    [0.2, 0.1, 0.6, 0.9],
    [0.9, 0.7, 0.1, 0.3],
    [0.1, 0.8, 0.5, 0.2],
]


def _cases():
    """Every hand-picked (U, B, mu, sigma), as arrays of shape (n, 4) and (n,)."""
    rows = [(u, b, mu, s) for u in UTILITIES for b in (0.05, 0.5, 0.95) for mu, s in CLASSIFIERS]
    u, b, mu, s = zip(*rows, strict=True)
    return np.array(u, dtype=float), np.array(b), np.array(mu), np.array(s)


def _in_chunks(function, n, chunk=100):
    parts = [function(slice(i, min(i + chunk, n))) for i in range(0, n, chunk)]
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


# --- the oracle itself ------------------------------------------------------------------------


def _grid_scores(u, b, mu, sigma, grid, chunk):
    """The oracle's five scores of every case on ``grid``, in chunks of ``chunk`` cases."""

    def scores(k):
        curves = curves_on_grid(mu[k], sigma[k], grid)
        return (
            best_yield_on_grid(u[k], b[k], curves)[0],
            best_yield_on_grid(IDENTITY, b[k], curves)[0],
            best_youden_on_grid(curves)[0],
            best_f1_on_grid(b[k], curves)[0],
            auc_by_quadrature(curves),
        )

    return _in_chunks(scores, len(b), chunk)


def test_the_oracles_grid_is_within_its_resolution_of_a_much_denser_grid():
    cases = _cases()
    coarse = _grid_scores(*cases, GRID, 50)
    fine = _grid_scores(*cases, np.linspace(-12.0, 12.0, 60_001), 20)  # 22x finer, and wider
    for name, c, f in zip(("yield", "accuracy", "youden", "f1", "auc"), coarse, fine, strict=True):
        if name == "auc":
            np.testing.assert_allclose(c, f, rtol=0, atol=1e-13, err_msg=name)
            continue
        # A grid's maximum falls short of the supremum by at most max|g''| h^2 / 8, with g the
        # score as a function of x (|g''| < 2 here): 2e-5 at the oracle's h = 0.009, 4e-8 at the
        # dense grid's 0.0004. Either can exceed the other by no more than the other's shortfall.
        assert np.all(c <= f + 4e-8), (name, np.max(c - f))
        assert np.all(f - c <= 2e-5), (name, np.max(f - c))
    # Corners: two classifiers whose optimum is the same corner tie exactly.
    below = np.array([[0.1, 0.0, 0.6, 1.0]] * 4)  # U00 < U10: always output 1, f = 0
    above = np.array([[1.0, 0.9, 0.0, 0.3]] * 4)  # U11 < U01: always output 0, f = 1
    curves = curves_on_grid([0.0, 1.0, 2.0, 3.0], [0.5, 1.0, 1.5, 2.0])
    for utility, corner in ((below, 0.0), (above, 1.0)):
        best, fpr = best_yield_on_grid(utility, 0.4, curves)
        assert np.all(fpr == corner) and np.all(best == best[0])
        assert best[0] == pytest.approx(yield_at(utility[0], 0.4, corner, corner), abs=1e-15)


#: Equal variances, B = 0.88, U = [[1, 0.86], [0, 1]]: the best threshold is interior for every
#: mu, but for mu = 0.1, 0.3, 0.5 it lies so far out (x = 38, 13, 7.7) that it beats the corner
#: f = 1, Y(1) = 0.9832, by 4e-311, 1e-42 and 9e-18 (from the tails, 1 - t and 1 - f, on a grid
#: to x = 40): less than half an ulp of Y(1), 5.5e-17. For mu = 1 by 9.3e-7, at x = 3.46.
NEAR_CORNER = dict(utility=[1.0, 0.86, 0.0, 1.0], prevalence=0.88, mu=[0.1, 0.3, 0.5, 1.0])


def test_an_optimum_within_half_an_ulp_of_a_corner_is_that_corner():
    # Exact arithmetic rounded to double: the three pairs among mu = 0.1, 0.3, 0.5 are tied in
    # truth, in the oracle (which keeps 1 - t and 1 - f near f = 1) and in mcrank.
    u, b, mu = NEAR_CORNER["utility"], NEAR_CORNER["prevalence"], np.array(NEAR_CORNER["mu"])
    at_one = u[0] * b + u[1] * (1 - b)
    best, fpr = best_yield_on_grid(u, b, curves_on_grid(mu, np.ones(4)))
    exact_fpr, exact = roc.best_threshold(np.reshape(u, (2, 2)), b, mu, 1.0)
    for value, where in ((best, fpr), (exact, exact_fpr)):
        assert np.all(value[:3] == at_one) and np.all(where[:3] == 1.0)
        assert value[3] == pytest.approx(at_one + 9.3126e-7, abs=1e-10) and where[3] < 1.0


def test_the_oracles_quadrature_is_the_closed_form_auc():
    rng = np.random.default_rng(40)
    mu = np.concatenate(([0.0, 3.0, 0.0, 3.0, 1.0], rng.uniform(0.0, 3.0, 200)))
    sigma = np.concatenate(([0.5, 0.5, 2.0, 2.0, 1.0], np.exp(rng.uniform(np.log(0.5), np.log(2.0), 200))))
    quadrature = auc_by_quadrature(curves_on_grid(mu, sigma))
    np.testing.assert_allclose(quadrature, ndtr(mu / np.sqrt(1 + sigma**2)), rtol=0, atol=1e-12)


# --- mcrank.roc against the oracle's brute force ----------------------------------------------


def test_binormal_auc_matches_the_quadrature():
    rng = np.random.default_rng(41)
    mu = np.concatenate(([0.0, 3.0, 0.0, 3.0], rng.uniform(0.0, 3.0, 300)))
    sigma = np.concatenate(([0.5, 0.5, 2.0, 2.0], np.exp(rng.uniform(np.log(0.5), np.log(2.0), 300))))
    quadrature = auc_by_quadrature(curves_on_grid(mu, sigma))
    np.testing.assert_allclose(roc.binormal_auc(mu, sigma), quadrature, rtol=0, atol=1e-6)
    np.testing.assert_allclose(roc.binormal_tpr(ndtr(GRID[::50]), 1.3, 0.7), ndtr((1.3 + GRID[::50]) / 0.7), atol=1e-14)


def _random_cases(n, rng):
    """Hexagon matrices, a third of them perturbed by N(0, 0.3^2) (many break the order), with
    B, mu and sigma from the study's priors, plus the hand-picked cases."""
    x, y = sample_hexagon_uniform(n, rng)
    u = utility_from_xy(x, y)
    u[: n // 3] = perturb_gaussian(u[: n // 3], 0.3, rng)
    b = rng.uniform(0.01, 0.99, n)
    mu = rng.uniform(0.0, 3.0, n)
    sigma = np.exp(rng.uniform(np.log(0.5), np.log(2.0), n))
    fixed = _cases()
    return (np.concatenate(pair) for pair in zip((u, b, mu, sigma), fixed, strict=True))


#: A grid 9x finer than the oracle's: the exact maximum lies above its best point by at most
#: max|g''| h^2 / 8 with h = 0.001 (g'' is below 2 for these scores).
FINE = np.linspace(-9.0, 9.0, 18_001)
RESOLUTION = 2.5e-7


def _tpr_at(fpr, mu, sigma):
    """The oracle's own t(f), corners included (ndtri(0) = -inf, ndtri(1) = inf)."""
    return ndtr((mu + ndtri(fpr)) / sigma)


def test_the_exact_best_thresholds_beat_a_dense_grid_by_at_most_its_resolution():
    u, b, mu, sigma = _random_cases(300, np.random.default_rng(42))
    assert np.any(u[:, 0] < u[:, 2]) and np.any(u[:, 3] < u[:, 1])
    fpr, best = roc.best_threshold(u.reshape(-1, 2, 2), b, mu, sigma)
    acc_fpr, acc = roc.best_accuracy(b, mu, sigma)
    j_fpr, j = roc.best_youden(mu, sigma)
    f1_fpr, f1 = roc.best_f1(b, mu, sigma)

    grid = _grid_scores(u, b, mu, sigma, FINE, 100)[:4]
    for name, exact, brute in zip(("best_threshold", "best_accuracy", "best_youden", "best_f1"), (best, acc, j, f1), grid, strict=True):
        assert np.all(exact >= brute - 1e-12), (name, np.min(exact - brute))
        assert np.all(exact - brute <= RESOLUTION), (name, np.max(exact - brute))
    # Each value is the score at the false-positive rate returned with it.
    np.testing.assert_allclose(best, yield_at(u, b, _tpr_at(fpr, mu, sigma), fpr), rtol=0, atol=1e-10)
    np.testing.assert_allclose(acc, yield_at(IDENTITY, b, _tpr_at(acc_fpr, mu, sigma), acc_fpr), rtol=0, atol=1e-10)
    np.testing.assert_allclose(j, _tpr_at(j_fpr, mu, sigma) - j_fpr, rtol=0, atol=1e-10)
    t = _tpr_at(f1_fpr, mu, sigma)
    np.testing.assert_allclose(f1, 2 * b * t / (b + b * t + (1 - b) * f1_fpr), rtol=0, atol=1e-10)


@pytest.mark.slow
def test_pair_by_pair_the_exact_scores_rank_as_the_oracles_grid_does():
    # The same 10^4 pairs from the study's priors, scored by mcrank.roc and by the oracle: ties
    # (both optima at the same corner, or within half an ulp of it) and signs agree, except
    # where the difference is within the grid's resolution (a few pairs at most: an optimum
    # that beats a corner by less than the grid's shortfall, or a 1-ulp rounding of F1).
    rng = np.random.default_rng(43)
    n = 10_000
    x, y = sample_hexagon_uniform(n, rng)
    u = utility_from_xy(x, y)
    perturbed = perturb_gaussian(u, 0.2, rng)
    b = rng.uniform(0.0, 1.0, n)
    mu = rng.uniform(0.0, 3.0, (2, n))
    sigma = np.exp(rng.uniform(np.log(0.5), np.log(2.0), (2, n)))
    scores = {
        "truth": lambda c: roc.best_threshold(u.reshape(-1, 2, 2), b, mu[c], sigma[c])[1],
        "perturbed": lambda c: roc.best_threshold(perturbed.reshape(-1, 2, 2), b, mu[c], sigma[c])[1],
        "best_accuracy": lambda c: roc.best_accuracy(b, mu[c], sigma[c])[1],
        "best_youden": lambda c: roc.best_youden(mu[c], sigma[c])[1],
        "best_f1": lambda c: roc.best_f1(b, mu[c], sigma[c])[1],
    }

    def on_grid(c):
        def chunk(k):
            curves = curves_on_grid(mu[c, k], sigma[c, k])
            return (
                best_yield_on_grid(u[k], b[k], curves)[0],
                best_yield_on_grid(perturbed[k], b[k], curves)[0],
                best_yield_on_grid(IDENTITY, b[k], curves)[0],
                best_youden_on_grid(curves)[0],
                best_f1_on_grid(b[k], curves)[0],
            )

        return dict(zip(scores, _in_chunks(chunk, n, 500), strict=True))

    grid = [on_grid(0), on_grid(1)]
    tied_in_truth = 0
    for name, exact in scores.items():
        d_exact = exact(1) - exact(0)
        d_grid = grid[1][name] - grid[0][name]
        if name == "truth":
            tied_in_truth = np.count_nonzero(d_exact == 0)
        differ = np.sign(d_exact) != np.sign(d_grid)
        assert np.all(np.maximum(np.abs(d_exact[differ]), np.abs(d_grid[differ])) <= 2e-5), name
        assert np.count_nonzero(differ) <= 5, (name, np.count_nonzero(differ))
    assert 400 < tied_in_truth < 700  # about 5.5 %


# --- the study against the oracle --------------------------------------------------------------


def _check_against_oracle(engine_samples, oracle_samples, seed, **settings):
    """Run both; every row and the tied percentage within 4 combined standard errors."""
    sds = settings.get("sds", (0.1,))
    config = StudyConfig(kind="roc", samples=engine_samples, seed=seed, **settings)
    rows = run_study(config, jobs=1).rows()
    oracle_settings = {
        "true_um": settings.get("true_um", "uniform"),
        "error": settings.get("error", "gaussian"),
        "sds": sds,
        "prevalence": settings.get("prevalence"),
        "mu_range": settings.get("roc_mu_range", (0.0, 3.0)),
        "sigma_range": settings.get("roc_sigma_range", (0.5, 2.0)),
    }
    oracle = run_roc_oracle(oracle_samples, rng=np.random.default_rng(seed + 1000), **oracle_settings)
    keys = [*METRICS, *(("utility", float(s)) for s in sds)]
    assert [(r["name"], r["sd"]) for r in rows] == [(k, None) if isinstance(k, str) else k for k in keys]

    tied_pct = rows[0]["tied_pct"]
    f = tied_pct / 100
    tied_se = 100 * math.sqrt(f * (1 - f) / engine_samples)
    assert abs(tied_pct - oracle.tied_pct) <= 4 * math.hypot(tied_se, oracle.tied_se_pct), (tied_pct, oracle.tied_pct)
    for row, key in zip(rows, keys, strict=True):
        assert row["tied_pct"] == tied_pct
        assert row["samples"] == round(engine_samples * (1 - f)) and row["incorrect"] <= row["samples"]
        assert row["incorrect_pct"] == pytest.approx(100 * row["incorrect"] / row["samples"], rel=1e-12)
        g = row["incorrect"] / row["samples"]
        assert row["se_pct"] == pytest.approx(100 * math.sqrt(g * (1 - g) / row["samples"]), rel=1e-12)
        reference, se = oracle.pct(key)
        assert abs(row["incorrect_pct"] - reference) <= 4 * math.hypot(row["se_pct"], se), (key, row, reference, se)
    return rows, oracle


# Engine 5 x 10^5 pairs, oracle 2 x 10^4 (about 5 s each on one core): the combined SE is the
# oracle's, 0.15-0.3 percentage points.
SETTINGS = [
    pytest.param(dict(true_um="uniform", error="gaussian", sds=(0.1, 0.2)), id="uniform-gaussian-random-B"),
    pytest.param(
        dict(true_um="uniform", error="truncated", sds=(0.1, 0.2), prevalence=0.2), id="uniform-truncated-B0.2", marks=pytest.mark.slow
    ),
    pytest.param(
        dict(true_um="gaussian", error="gaussian", sds=(0.1,), prevalence=0.2), id="gaussian-gaussian-B0.2", marks=pytest.mark.slow
    ),
    pytest.param(dict(true_um="gaussian", error="truncated", sds=(0.05, 0.3)), id="gaussian-truncated-random-B", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("settings", SETTINGS)
def test_the_study_agrees_with_the_numpy_oracle(settings):
    _check_against_oracle(500_000, 20_000, 50, **settings)


@pytest.mark.slow
def test_equal_variances_auc_and_youden_never_misrank():
    # With sigma = 1 the ROC curves never cross: the classifier with the larger mu has the
    # larger t at every f, so the larger (or equal) best yield under any U, AUC, J, accuracy
    # and F1. In exact arithmetic no optimum is even at a corner (the curve is concave with
    # slopes infinite at f = 0 and 0 at f = 1); in double precision it is one when it beats the
    # corner by less than half an ulp of the yield, B or mu pushing it far out (about 1 % of
    # pairs are so tied in truth). So AUC and J misrank exactly 0 % of the pairs untied in
    # truth, and best accuracy and best F1 reverse none: their incorrect pairs are ties.
    settings = dict(sds=(0.1,), roc_sigma_range=(1.0, 1.0))
    rows, oracle = _check_against_oracle(200_000, 10_000, 60, **settings)
    by_name = {r["name"]: r for r in rows if r["sd"] is None}
    assert by_name["auc"]["incorrect"] == 0 and by_name["best_youden"]["incorrect"] == 0
    assert oracle.incorrect["auc"] == 0 and oracle.incorrect["best_youden"] == 0
    for key in ("best_accuracy", "best_f1", ("utility", 0.1)):  # any U' ranks like mu, or ties
        assert oracle.reversed[key] == 0, key
    accuracy = by_name["best_accuracy"]
    assert accuracy["incorrect_pct"] < 0.5
    reference, se = oracle.pct("best_accuracy")  # all of them ties, none reversed (above)
    assert abs(accuracy["incorrect_pct"] - reference) < 4 * math.hypot(accuracy["se_pct"], se)

    # mcrank.roc's exact scores, pair by pair: the truth's sign is mu's unless tied, and no
    # score reverses it.
    rng = np.random.default_rng(61)
    n = 20_000
    u = utility_from_xy(*sample_hexagon_uniform(n, rng)).reshape(-1, 2, 2)
    b = rng.uniform(0.0, 1.0, n)
    mu = rng.uniform(0.0, 3.0, (2, n))
    d_true = roc.best_threshold(u, b, mu[1], 1.0)[1] - roc.best_threshold(u, b, mu[0], 1.0)[1]
    assert np.all((d_true == 0) | (np.sign(d_true) == np.sign(mu[1] - mu[0])))
    scores = {
        "auc": lambda c: roc.binormal_auc(mu[c], 1.0),
        "best_accuracy": lambda c: roc.best_accuracy(b, mu[c], 1.0)[1],
        "best_youden": lambda c: roc.best_youden(mu[c], 1.0)[1],
        "best_f1": lambda c: roc.best_f1(b, mu[c], 1.0)[1],
    }
    for name, score in scores.items():
        d = score(1) - score(0)
        assert not np.any(d * d_true < 0), name
        if name in ("auc", "best_youden"):
            assert np.all((d * d_true > 0) | (d_true == 0)), name


# --- exactness and bad input ---------------------------------------------------------------------


def test_the_same_seed_gives_the_same_rows_with_any_number_of_jobs():
    config = StudyConfig(kind="roc", samples=100_000, seed=70, sds=(0.1, 0.2), error="truncated", chunk_size=20_000)
    one = run_study(config, jobs=1).rows()
    assert one == run_study(config, jobs=2).rows()
    assert (
        one
        != run_study(StudyConfig(kind="roc", samples=100_000, seed=71, sds=(0.1, 0.2), error="truncated", chunk_size=20_000), jobs=1).rows()
    )


BAD = [
    (dict(kind="roc", prevalence=0.0), "prevalence"),
    (dict(kind="roc", prevalence=1.0), "prevalence"),
    (dict(kind="roc", prevalence=1.5), "prevalence"),
    (dict(kind="roc", prevalence=float("nan")), "prevalence"),
    (dict(kind="roc", roc_mu_range=(3.0, 0.0)), "roc_mu_range"),
    (dict(kind="roc", roc_sigma_range=(0.0, 2.0)), "roc_sigma_range"),
    (dict(kind="roc", roc_sigma_range=(-1.0, 2.0)), "roc_sigma_range"),
    (dict(kind="roc", roc_sigma_range=(2.0, 0.5)), "roc_sigma_range"),
    (dict(prevalence=0.3), "prevalence"),
]


@pytest.mark.parametrize(("settings", "name"), BAD, ids=[f"{k}={v}" for s, _ in BAD for k, v in list(s.items())[-1:]])
def test_bad_settings_raise_value_errors_naming_the_parameter(settings, name):
    with pytest.raises(ValueError, match=name):
        StudyConfig(**settings)


def test_an_error_takes_off_a_lead_no_more_than_the_kernel_allows():
    """The kernel ranks a perturbed matrix as the truth, without its Y*, when the truth's lead
    minus what the perturbation can take off it stays positive: check that bound against the
    exact Y* under both matrices, for random classifiers, matrices and errors up to sd 0.5."""
    from mcrank.engine.roc import _perturbation_margin

    rng = np.random.default_rng(520)
    count = 3000
    prevalence = rng.random(count)
    mu, sigma = rng.uniform(0.0, 3.0, (2, count)), np.exp(rng.uniform(math.log(0.5), math.log(2.0), (2, count)))
    u = np.eye(2) + rng.uniform(0.0, 0.5, (count, 2, 2)) * np.array([[0.0, 1.0], [1.0, 0.0]])
    v = u + rng.choice([0.01, 0.1, 0.5], (count, 1, 1)) * rng.standard_normal((count, 2, 2))
    fpr_u, y_u = roc.best_threshold(u, prevalence, mu, sigma)
    y_v = roc.best_threshold(v, prevalence, mu, sigma)[1]
    better = (y_u[1] >= y_u[0]).astype(int)
    rows = np.arange(count)
    lead = np.abs(y_u[1] - y_u[0])
    tpr = roc.binormal_tpr(fpr_u[better, rows], mu[better, rows], sigma[better, rows])
    bound = np.array([_perturbation_margin(u[i], v[i], prevalence[i], fpr_u[better[i], i], tpr[i]) for i in rows])
    kept = y_v[better, rows] - y_v[1 - better, rows]
    assert np.all(kept >= lead + bound - 1e-12)
    assert np.count_nonzero(lead + bound > 0) > count // 10  # the bound decides often


def test_h_measure_and_auprc_misrank_no_pair_of_equal_variances():
    """Curves of equal variances never cross: the one of larger mu dominates, so its best yield
    under any U is at least the other's, and its H-measure and AUPRC larger (both grow with the
    curve). The study counts 0 misranked pairs for both, as for AUC."""
    config = StudyConfig(kind="roc", samples=20_000, seed=62, sds=(), roc_sigma_range=(1.0, 1.0),
                         metrics=("auc", "hmeasure", "auprc"))  # fmt: skip
    rows = run_study(config, jobs=1).rows()
    assert [r["name"] for r in rows] == ["auc", "hmeasure", "auprc"]
    assert all(r["incorrect"] == 0 and r["samples"] > 18_000 for r in rows), rows
