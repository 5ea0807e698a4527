"""The conditional estimator under gaussian errors (``docs/method.md``, "The conditional estimator"):
its normal tail against scipy, its estimates against the sample estimator and a NumPy oracle,
its standard error against replicate runs."""

from __future__ import annotations

import numpy as np
import pytest
from numpy_oracle import sample_hexagon_gaussian, sample_hexagon_uniform, sample_rates, utility_from_xy
from scipy import special, stats

from mcrank.cli import main
from mcrank.engine import run_study
from mcrank.engine.conditional import NORMAL_SF_ERROR, _normal_sf_into
from mcrank.study import StudyConfig

SWEEP = tuple(np.round(np.linspace(0.0, 0.5, 51), 12))


def test_the_normal_tail_is_scipys_within_its_stated_error():
    z = np.concatenate((np.linspace(-12, 12, 2_400_001), [-np.inf, np.inf, 0.0]))
    out = np.empty_like(z)
    _normal_sf_into(z, out)
    error = np.abs(out - special.ndtr(-z))
    assert error.max() <= NORMAL_SF_ERROR and error.max() > 1e-8  # the bound is tight, not idle
    assert out[-3] == 1.0 and out[-2] == 0.0 and abs(out[-1] - 0.5) < 1e-9
    assert np.all(np.diff(out[:-3]) <= 0)  # a tail probability, never increasing


def _utility_rows(result):
    return {row["sd"]: row for row in result.rows() if row["name"] == "utility"}


@pytest.mark.parametrize("test_size", [None, 200])
@pytest.mark.parametrize(("classes", "true_um"), [(2, "uniform"), (2, "gaussian"), (3, "uniform-elements"), (3, "gaussian-elements")])
@pytest.mark.slow
def test_conditional_and_sample_agree_at_every_sd_of_the_sweep(classes, true_um, test_size):
    settings = dict(samples=200_000, classes=classes, true_um=true_um, sds=SWEEP, metrics=(), test_size=test_size)
    # Different seeds: independent estimates, so the combined SE is the right yardstick.
    conditional = _utility_rows(run_study(StudyConfig(**settings, estimator="conditional", seed=1), jobs=1))
    sample = _utility_rows(run_study(StudyConfig(**settings, estimator="sample", seed=2), jobs=1))
    for sd in SWEEP:
        c, s = conditional[sd], sample[sd]
        se = np.hypot(c["se_pct"], s["se_pct"])
        if se == 0:  # sd 0 on the population: both exactly 0
            assert c["incorrect_pct"] == s["incorrect_pct"] == 0.0
            continue
        assert abs(c["incorrect_pct"] - s["incorrect_pct"]) < 4 * se, (sd, c, s)
        if sd >= 0.05 and test_size is None:  # the gain: a variance at least 3 times smaller
            assert (s["se_pct"] / c["se_pct"]) ** 2 > 3, (sd, c, s)


def test_the_population_at_sd_0_is_exactly_0_and_the_metrics_are_unchanged():
    settings = dict(samples=50_000, sds=(0.0, 0.1), seed=4)
    conditional, sample = (run_study(StudyConfig(**settings, estimator=e), jobs=1).rows() for e in ("conditional", "sample"))
    assert conditional[-2]["incorrect"] == 0.0 and conditional[-2]["se_pct"] == 0.0
    assert [r for r in conditional if r["name"] != "utility"] == [r for r in sample if r["name"] != "utility"]
    assert isinstance(conditional[-1]["incorrect"], float) and isinstance(sample[-1]["incorrect"], int)


def test_the_standard_error_matches_the_spread_of_replicates():
    runs = [_utility_rows(run_study(StudyConfig(samples=20_000, sds=(0.1,), metrics=(), seed=100 + k), jobs=1))[0.1] for k in range(30)]
    estimates = np.array([r["incorrect_pct"] for r in runs])
    mean_se = np.sqrt(np.mean([r["se_pct"] ** 2 for r in runs]))
    # (n - 1) s^2 / sigma^2 is chi-square with n - 1 degrees of freedom.
    ratio = (len(runs) - 1) * estimates.var(ddof=1) / mean_se**2
    assert stats.chi2.ppf(1e-4, len(runs) - 1) < ratio < stats.chi2.ppf(1 - 1e-4, len(runs) - 1), ratio


def _oracle_conditional(samples: int, sds, *, true_um: str, rng: np.random.Generator) -> dict:
    """Plain NumPy: the pairs of the paper's study, each pair's probability of being ranked
    incorrectly by gaussian errors from scipy's normal cdf on all four elements' sum."""
    x, y = sample_hexagon_uniform(samples, rng) if true_um == "uniform" else sample_hexagon_gaussian(samples, 1 / 3, rng)
    utility = utility_from_xy(x, y)
    p = rng.uniform(0.0, 1.0, samples)
    a1, b1, a2, b2 = (sample_rates(samples, rng) for _ in range(4))
    c1 = np.stack([p * a1, (1 - p) * (1 - b1), p * (1 - a1), (1 - p) * b1], axis=1)
    c2 = np.stack([p * a2, (1 - p) * (1 - b2), p * (1 - a2), (1 - p) * b2], axis=1)
    difference = c2 - c1
    d_true = np.sum(utility * difference, axis=1)
    norm = np.sqrt(np.sum(difference**2, axis=1))
    result = {}
    for s in sds:
        probability = stats.norm.cdf(-np.abs(d_true) / (s * norm))
        result[s] = (100 * probability.mean(), 100 * probability.std(ddof=1) / np.sqrt(samples))
    return result


@pytest.mark.parametrize("true_um", ["uniform", "gaussian"])
def test_the_engine_agrees_with_a_numpy_oracle(true_um):
    sds = (0.02, 0.1, 0.25, 0.5)
    oracle = _oracle_conditional(200_000, sds, true_um=true_um, rng=np.random.default_rng(9))
    engine = _utility_rows(run_study(StudyConfig(samples=200_000, true_um=true_um, sds=sds, metrics=(), seed=10), jobs=1))
    for s in sds:
        pct, se = oracle[s]
        assert abs(engine[s]["incorrect_pct"] - pct) < 4 * np.hypot(se, engine[s]["se_pct"]), (s, engine[s], oracle[s])
        assert engine[s]["se_pct"] == pytest.approx(se, rel=0.05)


def test_the_estimator_is_recorded_and_checked(capsys, tmp_path):
    assert StudyConfig().estimator_used == "conditional" and StudyConfig(error="truncated").estimator_used == "sample"
    assert StudyConfig().to_dict()["estimator"] == "conditional"
    out = tmp_path / "r.json"
    assert main(["run", "--samples", "1e4", "--seed", "1", "--out", str(out), "--quiet"]) == 0
    assert '"estimator": "conditional"' in out.read_text()
    code = main(["run", "--error", "truncated", "--estimator", "conditional", "--samples", "100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "the conditional estimator needs gaussian errors" in err
    with pytest.raises(ValueError, match="unknown estimator 'exact'"):
        StudyConfig(estimator="exact")
