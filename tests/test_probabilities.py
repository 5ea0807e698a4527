"""The probabilistic-classifier study (``docs/method.md``, "The probabilistic-classifier study"):
mcrank.probabilities' exact rates against the oracle's bisection, its Brier score and log loss
against scipy's adaptive quadrature over extreme parameters, the calibrated classifier's
decisions against the best threshold of mcrank.roc, the coarse rule of the comparisons against
the fine one, the study against the oracle (statistical, 4 combined standard errors),
exactness across job counts, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from numpy_oracle import sample_hexagon_uniform, utility_from_xy
from probabilities_oracle import GRID, Classifiers, decision_rates, log_odds, run_probabilities_oracle
from scipy import integrate, special, stats

from mcrank import probabilities, roc
from mcrank.cli import main
from mcrank.engine import run_study
from mcrank.probabilities import PROBABILITY_SCORES
from mcrank.study import StudyConfig

#: Extreme classifiers (B, mu, sigma, a, c): the calibration's corners, the sd prior's ends,
#: sigma = 1 (the linear case) and next to it, rare and common classes.
EXTREMES = [
    (b, mu, sigma, a, c)
    for b, mu, sigma, (a, c) in itertools.product((0.002, 0.97), (0.0, 3.0), (0.5, 2.0), ((2.0, -1.0), (2.0, 1.0), (0.5, -1.0)))
] + [(0.5, 1.2, 1.0, 1.0, 0.0), (0.3, 2.0, 1.0 + 1e-9, 2.0, -1.0), (0.7, 0.5, 1.0 - 1e-7, 0.5, 1.0), (0.5, 3.0, 0.5, 2.0, 1.0)]

#: Utility matrices (U00, U01, U10, U11): landmarks, interior points, and perturbed ones with
#: D0 + D1 < 0, = 0, and entries out of order.
UTILITIES = [
    (1.0, 0.0, 0.0, 1.0),
    (1.0, 0.0, 0.0, 0.0),
    (0.0, 0.0, 0.0, 1.0),
    (0.7, 0.2, 0.0, 1.0),
    (1.0, 0.6, 0.0, 0.9),
    (0.2, 0.5, 0.9, 0.3),
    (0.5, 0.5, 0.6, 0.4),
    (0.4, 0.8, 0.6, 0.6),
    (0.1, 1.0, 0.3, 0.9),
]


def _by_quadrature(b, mu, sigma, a, c):
    """The Brier score and the log loss by scipy's adaptive quadrature, split where ``a l + c``
    changes sign on a dense grid (the steep parts of the integrands)."""
    s = np.linspace(-40.0, 45.0, 20_001)
    u = a * log_odds(s, b, mu, sigma) + c
    points = sorted({*s[1:][np.diff(np.sign(u)) != 0].tolist(), mu, 0.0})
    edges = [-40.0, *points, 45.0]
    logit, root = math.log(b / (1 - b)), math.sqrt(2 * math.pi)

    def parts(x):
        log_0, log_1 = -0.5 * ((x - mu) / sigma) ** 2 - math.log(sigma * root), -0.5 * x * x - math.log(root)
        return b * math.exp(log_0), (1 - b) * math.exp(log_1), a * (logit + log_0 - log_1) + c

    def brier(x):
        density_0, density_1, v = parts(x)
        return density_0 * special.expit(-v) ** 2 + density_1 * special.expit(v) ** 2

    def log_loss(x):
        density_0, density_1, v = parts(x)
        return density_0 * np.logaddexp(0, -v) + density_1 * np.logaddexp(0, v)

    def integral(f):
        return sum(integrate.quad(f, lo, hi, limit=400, epsabs=1e-14, epsrel=1e-13)[0] for lo, hi in zip(edges[:-1], edges[1:]))

    return integral(brier), integral(log_loss)


def test_the_brier_score_and_the_log_loss_match_scipys_quadrature_at_extreme_parameters():
    b, mu, sigma, a, c = (np.array(v) for v in zip(*EXTREMES))
    brier, log_loss = PROBABILITY_SCORES["brier"](b, mu, sigma, a, c), PROBABILITY_SCORES["log_loss"](b, mu, sigma, a, c)
    for k, case in enumerate(EXTREMES):
        expected = _by_quadrature(*case)
        assert abs(brier[k] - expected[0]) <= 1e-10, (case, brier[k], expected[0])
        assert abs(log_loss[k] - expected[1]) <= 1e-10, (case, log_loss[k], expected[1])


def test_the_decision_rates_match_the_oracles_bisection():
    cases = [(u, *case) for u in UTILITIES for case in EXTREMES]
    utility = np.array([u for u, *_ in cases]).reshape(-1, 2, 2)
    b, mu, sigma, a, c = (np.array(v) for v in zip(*(case for _, *case in cases)))
    tpr, fpr = probabilities.decision_rates(utility, b, mu, sigma, a, c)
    expected_tpr, expected_fpr = decision_rates(utility, Classifiers(b, mu, sigma, a, c))
    # The oracle misses a region of output 0 narrower than its grid's step (0.02): none here.
    np.testing.assert_allclose(tpr, expected_tpr, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fpr, expected_fpr, rtol=0, atol=1e-9)


def test_the_decisions_of_the_degenerate_utilities_are_constant():
    # D0 + D1 = 0: always 0 when D1 <= 0, never otherwise; a threshold outside (0, 1) likewise.
    for u, expected in (
        ((0.5, 0.5, 0.5, 0.5), 1.0),
        ((0.3, 0.2, 0.5, 0.4), 0.0),
        ((0.9, 0.6, 0.1, 0.5), 1.0),
        ((0.2, 0.1, 0.9, 0.95), 0.0),
    ):
        tpr, fpr = probabilities.decision_rates(np.reshape(u, (2, 2)), 0.4, 1.3, 0.7, 1.5, 0.3)
        assert tpr == fpr == expected, u


def _yields(utility, b, tpr, fpr):
    return b * (tpr * utility[:, 0, 0] + (1 - tpr) * utility[:, 1, 0]) + (1 - b) * (fpr * utility[:, 0, 1] + (1 - fpr) * utility[:, 1, 1])


def test_a_calibrated_classifier_decides_at_least_as_well_as_the_best_threshold():
    # With a = 1, c = 0, q is the true posterior: deciding by maximal expected utility is the
    # Bayes decision. Its yield is at least the best threshold's Y* (mcrank.roc, eqs. 22-24),
    # and equal to it at sigma = 1, where l is monotone in the score and the Bayes decision is
    # a threshold; for sigma != 1 its region of output 0 may have two ends, and beat Y*.
    rng = np.random.default_rng(5)
    n = 2_000
    x, y = sample_hexagon_uniform(n, rng)
    utility = utility_from_xy(x, y).reshape(n, 2, 2)
    b, mu, sigma = rng.uniform(0.01, 0.99, n), rng.uniform(0.0, 3.0, n), np.exp(rng.uniform(np.log(0.5), np.log(2.0), n))
    for spread in (np.ones(n), sigma):
        bayes = _yields(utility, b, *probabilities.decision_rates(utility, b, mu, spread, 1.0, 0.0))
        _, best = roc.best_threshold(utility, b, mu, spread)
        if spread is sigma:
            assert np.all(bayes >= best - 1e-12) and np.mean(bayes > best + 1e-6) > 0.01
        else:
            np.testing.assert_allclose(bayes, best, rtol=0, atol=1e-12)
        # Miscalibrated, never better than the Bayes decision.
        worse = _yields(utility, b, *probabilities.decision_rates(utility, b, mu, spread, 2.0, -1.0))
        assert np.all(worse <= bayes + 1e-12) and np.mean(worse < bayes - 1e-6) > 0.5


def test_the_stated_probability_is_the_posterior_when_calibrated():
    s = np.linspace(-3, 5, 17)
    posterior = 0.3 * stats.norm.pdf(s, 1.5, 0.8) / (0.3 * stats.norm.pdf(s, 1.5, 0.8) + 0.7 * stats.norm.pdf(s))
    np.testing.assert_allclose(probabilities.stated_probability(s, 0.3, 1.5, 0.8), posterior, rtol=1e-13)


def _largest_coarse_error(rng, n, mu_range, sigma_range, slope_range, intercept_range):
    b, mu = rng.random(n), rng.uniform(*mu_range, n)
    sigma, a = np.exp(rng.uniform(*np.log(sigma_range), n)), np.exp(rng.uniform(*np.log(slope_range), n))
    c = rng.uniform(*intercept_range, n)
    worst = 0.0
    for k in range(n):
        fine = probabilities._remainders(b[k], mu[k], sigma[k], a[k], c[k])
        coarse = probabilities._coarse_remainders(b[k], mu[k], sigma[k], a[k], c[k])
        worst = max(worst, abs(fine[0] - coarse[0]), abs(fine[1] - coarse[1]))
    return worst


def test_the_coarse_rule_is_far_within_the_comparisons_margin():
    # The comparisons take the coarse rule's sign when it exceeds the margin: its largest error
    # over draws of the default priors is at most a twentieth of it, and over far wider priors
    # (steep and flat, narrow and wide, shifted) at most a tenth.
    rng = np.random.default_rng(6)
    worst = _largest_coarse_error(rng, 3_000, (0.0, 3.0), (0.5, 2.0), (0.5, 2.0), (-1.0, 1.0))
    assert worst <= probabilities._COARSE_MARGIN / 20, worst
    wide = _largest_coarse_error(rng, 3_000, (-10.0, 10.0), (0.05, 20.0), (0.05, 20.0), (-8.0, 8.0))
    assert wide <= probabilities._COARSE_MARGIN / 10, wide


# --- the study --------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_study_agrees_with_the_oracle():
    # The oracle's pairs cost a thousand times the engine's: the engine draws more of them.
    pairs, oracle_pairs = 12_000, 2_000
    result = run_study(kind="probabilities", samples=pairs, sds=(0.1,), error="truncated", seed=20260, jobs=1)
    oracle = run_probabilities_oracle(oracle_pairs, sds=(0.1,), error="truncated", rng=np.random.default_rng(20261))
    rows = {row["name"] if row["sd"] is None else row["sd"]: row for row in result.rows()}

    def combined(p_1, n_1, p_2, n_2):
        return math.sqrt(p_1 * (1 - p_1) / n_1 + p_2 * (1 - p_2) / n_2)

    tied, oracle_tied = rows["brier"]["tied_pct"] / 100, oracle.tied / oracle.samples
    assert abs(tied - oracle_tied) <= 4 * combined(tied, pairs, oracle_tied, oracle_pairs)
    for key, count in oracle.incorrect.items():
        row = rows[key]
        mine, theirs = row["incorrect"] / row["samples"], count / oracle.untied
        assert abs(mine - theirs) <= 4 * combined(mine, row["samples"], theirs, oracle.untied), (key, mine, theirs)


def test_the_counts_are_identical_across_job_counts():
    settings = dict(kind="probabilities", samples=3_000, chunk_size=500, sds=(0.05, 0.2), error="truncated", seed=3)
    one, two = run_study(**settings, jobs=1), run_study(**settings, jobs=2)
    assert one.rows() == two.rows()
    assert np.array_equal(one.batch_incorrect, two.batch_incorrect)


def test_fixed_calibration_and_prevalence():
    result = run_study(
        kind="probabilities", samples=500, sds=(0.1,), seed=4, jobs=1, prevalence=0.2,
        calibration_slope_range=(1.0, 1.0), calibration_intercept_range=(0.0, 0.0),
    )  # fmt: skip
    assert result.config.to_dict()["calibration_slope_range"] == [1.0, 1.0]
    assert [row["name"] for row in result.rows()] == ["brier", "log_loss", "accuracy", "utility"]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--calibration-slope-range", "2", "1"], "--calibration-slope-range is reversed"),
        (["--calibration-slope-range", "0", "1"], "--calibration-slope-range must lie within"),
        (["--calibration-intercept-range", "-50", "1"], "--calibration-intercept-range must lie within"),
        (["--metrics", "auc"], "unknown probability score"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(arguments, message, capsys):
    assert main(["run", "--study", "probabilities", "--samples", "100", "--quiet", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_the_calibration_is_no_parameter_of_other_kinds():
    with pytest.raises(ValueError, match="calibration_slope_range is a parameter of the probabilities study kind"):
        StudyConfig(kind="roc", calibration_slope_range=(1.0, 1.0))


def test_the_public_functions_refuse_bad_classifiers():
    with pytest.raises(ValueError, match="slope must be positive"):
        PROBABILITY_SCORES["brier"](0.5, 1.0, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="prevalence"):
        probabilities.decision_rates(np.eye(2), 1.0, 1.0, 1.0)
    assert GRID[0] < -10
