"""Finite test sets (``docs/method.md``, "Finite test sets"): the engine against the NumPy oracle,
the count samplers against scipy, the population limit, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from finite_oracle import binary_count_score, run_finite_oracle
from scipy import stats

from mcrank.cli import main
from mcrank.engine import run_study
from mcrank.metrics import get_metric
from mcrank.study import StudyConfig

PAPER = ("accuracy", "tpr", "precision", "balanced_accuracy", "mcc", "fowlkes_mallows", "f1")


def _combined_z(count_a, count_b, n):
    """z-score of the difference of two independent binomial proportions."""
    fa, fb = count_a / n, count_b / n
    se = np.sqrt((fa * (1 - fa) + fb * (1 - fb)) / n)
    return 0.0 if se == 0 else (fa - fb) / se


@pytest.mark.parametrize(
    ("test_size", "error"),
    [(30, "gaussian"), pytest.param(30, "truncated", marks=pytest.mark.slow), (1000, "gaussian"), (1000, "truncated")],
)
def test_the_engine_agrees_with_the_numpy_oracle(test_size, error):
    samples, sds = 200_000, (0.0, 0.1, 0.3)
    result = run_study(StudyConfig(samples=samples, sds=sds, error=error, test_size=test_size, seed=11), jobs=1)
    oracle = run_finite_oracle(samples, test_size, rng=np.random.default_rng(12), error=error, sds=sds)
    rows = result.rows()
    expected = [(oracle.metric_incorrect[m], oracle.metric_tied[m]) for m in PAPER]
    expected += list(zip(oracle.utility_incorrect.tolist(), oracle.utility_tied.tolist()))
    for row, (incorrect, tied) in zip(rows, expected, strict=True):
        assert abs(_combined_z(row["incorrect"], incorrect, samples)) < 4, (row, incorrect)
        assert abs(_combined_z(round(row["tied_pct"] * samples / 100), tied, samples)) < 4, (row, tied)
    # At N = 30 ties and undefined scores are common, the test is not idle.
    if test_size == 30:
        assert min(row["tied_pct"] for row in rows[: len(PAPER)]) > 0.5


@pytest.mark.slow
def test_the_count_scores_of_the_oracle_are_scikit_learns():
    # The oracle's metrics on counts, checked once against scikit-learn on label arrays,
    # undefined cases included (sklearn's zero_division=np.nan is the NaN of docs/method.md).
    from sklearn import metrics as skm

    rng = np.random.default_rng(3)
    for _ in range(300):
        tp, fp, fn, tn = rng.integers(0, 3, 4)
        y_true = np.array([0] * tp + [1] * fp + [0] * fn + [1] * tn)
        y_pred = np.array([0] * tp + [0] * fp + [1] * fn + [1] * tn)
        if y_true.size == 0:
            continue
        score = {m: float(binary_count_score(m, tp, fp, fn, tn)) for m in PAPER}
        kw = dict(pos_label=0, zero_division=np.nan)
        np.testing.assert_equal(score["precision"], skm.precision_score(y_true, y_pred, **kw))
        np.testing.assert_equal(score["tpr"], skm.recall_score(y_true, y_pred, **kw))
        np.testing.assert_allclose(score["f1"], skm.f1_score(y_true, y_pred, **kw), equal_nan=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
            expected = skm.balanced_accuracy_score(y_true, y_pred)
        np.testing.assert_allclose(score["balanced_accuracy"], expected)
        # ... and so are mcrank's, which the engine scores.
        for m in PAPER:
            np.testing.assert_allclose(get_metric(m)(np.array([[tp, fp], [fn, tn]])), score[m], equal_nan=True, rtol=1e-12)


def test_the_population_is_the_limit_of_large_test_sets():
    # Same seed: the same pairs, so the differences are small, and each row is within 4 SE.
    sds = (0.0, 0.1, 0.3)
    population = run_study(StudyConfig(samples=100_000, sds=sds, seed=5), jobs=1).rows()
    large = run_study(StudyConfig(samples=100_000, sds=sds, seed=5, test_size=10**7), jobs=1).rows()
    for finite, limit in zip(large[:-3] + large[-2:], population[:-3] + population[-2:], strict=True):
        se = np.hypot(finite["se_pct"], limit["se_pct"])
        assert abs(finite["incorrect_pct"] - limit["incorrect_pct"]) < 4 * se, (finite, limit)
    # The exact utility matrix misranks no pair of the population (0 %, with no SE); on a test
    # set it misranks those whose yield difference is within the test set's noise, a
    # fraction that shrinks as 1 / sqrt(N): 100 times the items, 10 times fewer.
    exact = {n: run_study(StudyConfig(samples=400_000, sds=(0.0,), metrics=(), seed=5, test_size=n), jobs=1).rows()[0]
             for n in (10**5, 10**7)}  # fmt: skip
    assert population[-3]["incorrect"] == 0
    ratio = exact[10**5]["incorrect"] / exact[10**7]["incorrect"]
    relative_se = np.sqrt(1 / exact[10**5]["incorrect"] + 1 / exact[10**7]["incorrect"])
    assert abs(np.log(ratio / 10)) < 4 * relative_se, (ratio, exact)


@pytest.mark.parametrize(("trials", "p"), [(30, 0.37), (1000, 0.9), (10**6, 0.5)])
def test_numbas_binomial_sampler_matches_scipy(trials, p):
    # The sampler of the counts (numba's Generator.binomial, BTPE or inversion: exact), by a
    # chi-square test on bins of equal probability under scipy's binomial.
    from mcrank._jit import jit

    @jit
    def draw(rng, n, p, size):
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            out[i] = rng.binomial(n, p)
        return out

    draws = draw(np.random.default_rng(8), trials, p, 200_000)
    distribution = stats.binom(trials, p)
    edges = np.unique(distribution.ppf(np.linspace(0, 1, 21)[1:-1]))  # upper bounds of the bins
    observed = np.bincount(np.searchsorted(edges, draws, side="left"), minlength=edges.size + 1)
    expected = np.diff(np.concatenate(([0.0], distribution.cdf(edges), [1.0]))) * draws.size
    assert stats.chisquare(observed, expected).pvalue > 1e-4


BAD_TEST_SIZES = [("0", "--test-size must be a whole number from 1 to 1,000,000,000,000, got '0'"),
                  ("2.5", "--test-size must be a whole number, got '2.5'"),
                  ("1e13", "--test-size must be a whole number from 1 to 1,000,000,000,000, got '1e13'"),
                  ("ten", "--test-size must be a whole number such as 1e6, got 'ten'")]  # fmt: skip


@pytest.mark.parametrize(("value", "message"), BAD_TEST_SIZES)
def test_a_bad_test_size_is_one_line_and_exit_2(capsys, value, message):
    code = main(["run", "--test-size", value, "--samples", "100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_the_results_record_the_test_size_and_the_ties(capsys, tmp_path):
    out = tmp_path / "r.csv"
    assert main(["run", "--test-size", "100", "--sd", "0", "0.1", "--samples", "1e4", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "# test_size: 100" in text and "incorrect_pct,se_pct,tied_pct" in text
    assert main(["run", "--test-size", "100", "--sd", "0", "0.1", "--samples", "1e4", "--seed", "1"]) == 0
    table = capsys.readouterr().out
    assert "test sets of 100 items" in table and "% tied" in table
