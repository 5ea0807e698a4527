"""The Monte Carlo engine (paper §4.2) against a plain NumPy oracle, and its exact properties.

Two kinds of test (STYLE.md, 8):

- statistical, with fixed seeds and tolerances from the Monte Carlo standard error: the engine
  agrees with ``tests/numpy_oracle.py`` (written from docs/method.md independently of the kernels, with
  four normals per perturbed matrix and plain rejection for ``truncated``) within 4 combined
  standard errors on every row; the seed's headline numbers are reproduced;
- exact: the same seed gives identical counts whatever the number of jobs or the backend;
  sd = 0 misranks nothing; memory does not grow with the number of samples.
"""

from __future__ import annotations

import math
import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from numpy_oracle import ORACLE_METRICS, PAPER_METRICS, run_oracle

from mcrank.engine import ranked_correctly, run_study, sample_pairs
from mcrank.study import StudyConfig, StudyResult

ENGINE_SAMPLES = 200_000
ORACLE_SAMPLES = 150_000
COMPARISON_SDS = (0.05, 0.2, 0.5)


def _fraction_and_variance(count: int, n: int) -> tuple[float, float]:
    fraction = count / n
    return fraction, fraction * (1 - fraction) / n


def _assert_within_4_combined_se(name, engine_count, engine_n, oracle_count, oracle_n):
    f_engine, v_engine = _fraction_and_variance(engine_count, engine_n)
    f_oracle, v_oracle = _fraction_and_variance(oracle_count, oracle_n)
    combined_se = math.sqrt(v_engine + v_oracle)
    assert abs(f_engine - f_oracle) <= 4 * combined_se, (
        f"{name}: engine {100 * f_engine:.3f}% vs oracle {100 * f_oracle:.3f}% (4 combined SE = {400 * combined_se:.3f} points)"
    )


def _assert_counts_agree(engine, oracle):
    """Every metric row and every sd row of an engine study within 4 combined standard
    errors of the oracle's."""
    for name, count in oracle.metric_incorrect.items():
        _assert_within_4_combined_se(name, engine.metric_incorrect[name], engine.samples, count, oracle.samples)
    for k, s in enumerate(engine.config.sds):
        _assert_within_4_combined_se(
            f"utility at sd={s}", int(engine.utility_incorrect[k]), engine.samples, int(oracle.utility_incorrect[k]), oracle.samples
        )


# --- engine against the NumPy oracle ---------------------------------------------------------


@pytest.mark.parametrize("error", ["gaussian", "truncated"])
@pytest.mark.parametrize("true_um", ["uniform", "gaussian"])
def test_engine_agrees_with_numpy_oracle(true_um, error):
    settings = dict(true_um=true_um, error=error, sds=COMPARISON_SDS, metrics=ORACLE_METRICS, fbeta_beta=2.0)
    engine = run_study(samples=ENGINE_SAMPLES, seed=101, **settings)
    oracle = run_oracle(ORACLE_SAMPLES, rng=np.random.default_rng(202), **settings)

    _assert_counts_agree(engine, oracle)

    # The realised sd of U' - U. The oracle measures it, with a delta-method standard error
    # that treats the four elements of one sample as one observation; the engine's estimate
    # from ENGINE_SAMPLES samples of the same distribution has that error scaled by
    # sqrt(ORACLE_SAMPLES / ENGINE_SAMPLES). Under ``gaussian`` the engine reports s itself
    # (its one-normal shortcut draws no elements), so the oracle is checked against s.
    combined_se = oracle.realised_sd_se * math.sqrt(1 + ORACLE_SAMPLES / ENGINE_SAMPLES)
    if error == "gaussian":
        np.testing.assert_array_equal(engine.realised_sd, COMPARISON_SDS)
        assert np.all(np.abs(oracle.realised_sd - COMPARISON_SDS) <= 4 * oracle.realised_sd_se)
    else:
        assert np.all(np.abs(engine.realised_sd - oracle.realised_sd) <= 4 * combined_se), (
            engine.realised_sd,
            oracle.realised_sd,
            combined_se,
        )
        # Truncation can only shrink the spread, and at s = 0.5 it does so a lot.
        assert np.all(engine.realised_sd < COMPARISON_SDS)
        assert engine.realised_sd[-1] < 0.4


@pytest.mark.slow
def test_engine_agrees_with_numpy_oracle_on_non_default_distributions():
    """Every distribution parameter reaches the kernel: class-proportion range, the Beta
    parameters of the rates (the general rng.beta path) and their range, the gaussian sd.
    (Gaussian errors: truncated ones with these rates would compile one more variant of the
    kernel for this test alone, and the error models are compared with the oracle above.)"""
    settings = dict(
        true_um="gaussian",
        true_um_sd=0.6,
        error="gaussian",
        sds=(0.1, 0.3),
        metrics=PAPER_METRICS,
        class_proportion=(0.2, 0.7),
        rate_beta=(3.0, 2.0),
        rate_range=(0.3, 0.9),
    )
    engine = run_study(samples=ENGINE_SAMPLES, seed=303, **settings)
    oracle = run_oracle(ORACLE_SAMPLES, rng=np.random.default_rng(404), **settings)
    _assert_counts_agree(engine, oracle)
    # The same study with the paper's defaults gives clearly different numbers: the options
    # are not ignored (accuracy misranks 8.7% under the defaults, far more here).
    default = run_study(samples=ENGINE_SAMPLES, seed=303, metrics=("accuracy",), sds=())
    assert abs(engine.metric_incorrect["accuracy"] - default.metric_incorrect["accuracy"]) > 0.01 * ENGINE_SAMPLES


@pytest.mark.parametrize("error", ["gaussian", "truncated"])
@pytest.mark.parametrize("true_um", ["uniform", "gaussian"])
def test_zero_error_sd_misranks_nothing(true_um, error):
    result = run_study(samples=50_000, true_um=true_um, error=error, sds=(0.0, 0.1), seed=5)
    assert result.utility_incorrect[0] == 0
    assert result.realised_sd[0] == 0.0
    assert result.utility_incorrect[1] > 0  # the count can move


def test_ranked_correctly_needs_two_strict_signs_that_agree():
    """Step 6 case by case: ties, NaN and infinities in either difference."""
    inf, nan, tiny = math.inf, math.nan, 5e-324
    cases = [
        (1.0, 2.0, True),
        (-1.0, -2.0, True),
        (1.0, -2.0, False),
        (-1.0, 2.0, False),
        (tiny, tiny, True),
        (-tiny, -tiny, True),  # no product underflows to a tie
        (1e300, 1e300, True),
        (-1e300, -1e300, True),  # nor overflows
        (0.0, 1.0, False),
        (-0.0, -1.0, False),
        (1.0, 0.0, False),
        (-1.0, -0.0, False),
        (0.0, 0.0, False),
        (1.0, nan, False),
        (nan, 1.0, False),
        (nan, nan, False),
        (1.0, inf, True),
        (-1.0, -inf, True),
        (1.0, -inf, False),
        (0.0, inf, False),
    ]
    d_true, d, expected = (np.array(column) for column in zip(*cases))
    np.testing.assert_array_equal(ranked_correctly(d_true, d), expected)


def test_utility_equivalent_of_accuracy_misranks_nothing():
    """With every true utility matrix at the identity, accuracy is the true yield (eq. 16)."""
    result = run_study(samples=100_000, true_um="gaussian", true_um_sd=1e-12, sds=(), seed=6)
    assert result.metric_incorrect["accuracy"] == 0
    assert all(count > 0 for name, count in result.metric_incorrect.items() if name != "accuracy")


# --- the seed's numbers ------------------------------------------------------------------------

#: Typed from the paper (§4.2, fig. 6): uniform true UMs, gaussian errors, 10^6 samples.
PAPER_ACCURACY_PCT = 8.7
PAPER_UTILITY_AT_01_PCT = 5.4
PAPER_ROUNDING = 0.05  # the paper gives one decimal


def test_reproduces_the_papers_headline_numbers():
    result = run_study(samples=10**6, sds=(0.1, 0.15, 0.2), seed=20240601)
    rows = result.rows()
    metrics = {row["name"]: row for row in rows if row["sd"] is None}
    utility = {row["sd"]: row for row in rows if row["sd"] is not None}
    assert tuple(metrics) == PAPER_METRICS

    accuracy = metrics["accuracy"]
    assert abs(accuracy["incorrect_pct"] - PAPER_ACCURACY_PCT) <= PAPER_ROUNDING + 4 * accuracy["se_pct"]
    at_01 = utility[0.1]
    assert abs(at_01["incorrect_pct"] - PAPER_UTILITY_AT_01_PCT) <= PAPER_ROUNDING + 4 * at_01["se_pct"]

    # Accuracy is the best of the seven, by a margin beyond the noise.
    for name, row in metrics.items():
        if name != "accuracy":
            margin = 4 * (row["se_pct"] + accuracy["se_pct"])
            assert row["incorrect_pct"] > accuracy["incorrect_pct"] + margin, name

    # The utility curve crosses accuracy slightly above s = 0.15.
    for s, below in ((0.15, True), (0.2, False)):
        row = utility[s]
        margin = 4 * (row["se_pct"] + accuracy["se_pct"])
        difference = row["incorrect_pct"] - accuracy["incorrect_pct"]
        assert (difference < -margin) if below else (difference > margin), (s, difference)


# --- reproducibility ---------------------------------------------------------------------------

REPRODUCIBLE = dict(samples=30_000, chunk_size=4096, error="truncated", sds=(0.0, 0.1, 0.3), seed=77)


def _counts(result: StudyResult):
    return result.metric_incorrect, result.utility_incorrect.tolist(), result.realised_sd.tolist()


def test_same_seed_same_counts_whatever_the_jobs():
    one_job = run_study(jobs=1, **REPRODUCIBLE)
    assert _counts(run_study(jobs=2, backend="threading", **REPRODUCIBLE)) == _counts(one_job)
    assert _counts(run_study(jobs=-1, **REPRODUCIBLE)) == _counts(one_job)


@pytest.mark.slow
def test_same_seed_same_counts_on_loky_processes():
    one_job = run_study(jobs=1, **REPRODUCIBLE)
    assert _counts(run_study(jobs=2, backend="loky", **REPRODUCIBLE)) == _counts(one_job)


def test_different_seed_different_counts():
    first = run_study(jobs=1, **REPRODUCIBLE)
    second = run_study(jobs=1, **{**REPRODUCIBLE, "seed": 78})
    assert _counts(first) != _counts(second)


def test_fresh_entropy_is_recorded_and_reproduces():
    settings = {**REPRODUCIBLE, "seed": None}
    result = run_study(jobs=1, **settings)
    assert isinstance(result.config.seed, int)
    assert result.to_dict()["config"]["seed"] == result.config.seed
    again = run_study(jobs=1, **{**settings, "seed": result.config.seed})
    assert _counts(again) == _counts(result)


@pytest.mark.dask
@pytest.mark.slow
def test_dask_cluster_gives_the_local_counts():
    distributed = pytest.importorskip("dask.distributed")
    local = run_study(jobs=1, **REPRODUCIBLE)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        remote = run_study(backend="dask", scheduler=cluster.scheduler_address, jobs=2, **REPRODUCIBLE)
    assert _counts(remote) == _counts(local)


def test_a_backend_registered_with_joblib_is_used_by_name_with_the_local_counts():
    # As Ray's register_ray() or joblibspark's register_spark() register theirs.
    import joblib
    from joblib._parallel_backends import ThreadingBackend

    used = []

    class Recorded(ThreadingBackend):
        def configure(self, *args, **kwargs):
            used.append(True)
            return super().configure(*args, **kwargs)

    joblib.register_parallel_backend("mcrank-test-plugin", Recorded)
    local = run_study(jobs=1, **REPRODUCIBLE)
    plugged = run_study(backend="mcrank-test-plugin", jobs=2, **REPRODUCIBLE)
    assert used and _counts(plugged) == _counts(local)


def test_an_unregistered_backend_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown backend 'ray'; choose from threading, loky, dask, or a backend registered with joblib"):
        run_study(backend="ray", **REPRODUCIBLE)


# --- memory ------------------------------------------------------------------------------------


def test_memory_does_not_grow_with_samples():
    """The fused kernel allocates nothing per sample. tracemalloc sees numpy's and numba's
    allocations alike; one float64 array of 4 * 10^6 samples alone would take 32 MB."""
    settings = dict(sds=(0.1,), chunk_size=2**16, jobs=1, seed=8)
    run_study(samples=1000, **settings)  # compile or load the kernels outside the trace
    peaks = {}
    for samples in (10**5, 4 * 10**6):
        tracemalloc.start()
        try:
            run_study(samples=samples, **settings)
            peaks[samples] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peaks[4 * 10**6] < 2 * 2**20, peaks
    assert peaks[4 * 10**6] < peaks[10**5] + 256 * 2**10, peaks


# --- configuration -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        (dict(sds=(-0.1,)), "sd"),
        (dict(sds=(float("nan"),)), "sd"),
        (dict(sds=("a lot",)), "sd"),
        (dict(sds=(0.1, float("inf"))), "sd"),
        (dict(samples=0), "samples"),
        (dict(samples=-5), "samples"),
        (dict(samples=2.5), "samples"),
        (dict(chunk_size=0), "chunk_size"),
        (dict(metrics=("accuracy", "no_such_metric")), "no_such_metric"),
        (dict(metrics="accuracy"), "metrics"),
        (dict(true_um="cauchy"), "true-utility distribution"),
        (dict(error="laplace"), "error model"),
        (dict(true_um="gaussian", true_um_sd=0.0), "true_um_sd"),
        (dict(true_um_sd=-1.0), "true_um_sd"),
        (dict(class_proportion=(0.6, 0.4)), "class_proportion"),
        (dict(class_proportion=(-0.1, 0.5)), "class_proportion"),
        (dict(class_proportion=(0.1, 0.2, 0.3)), "class_proportion"),
        (dict(rate_range=(0.5, 1.5)), "rate_range"),
        (dict(rate_range=(float("nan"), 1.0)), "rate_range"),
        (dict(rate_beta=(0.0, 1.0)), "Beta"),
        (dict(fbeta_beta=-2.0), "fbeta_beta"),
        (dict(seed=-1), "seed"),
        (dict(sds=(0.1, 0.2, 0.1)), "error sd 0.1 is listed twice"),
        (dict(sds=(0.0, -0.0)), "error sd -0.0 is listed twice"),
        (dict(metrics=[["accuracy"]]), r"metrics must be metric ids \(strings\), got \['accuracy'\]"),
        (dict(metrics=("accuracy", 3)), r"metrics must be metric ids \(strings\), got 3"),
        (dict(fbeta_beta="1"), "fbeta_beta must be a number, not a string, got '1'"),
        (dict(true_um_sd="0.3"), "true_um_sd must be a number, not a string"),
        (dict(samples="1e6"), "samples must be a number, not a string"),
        (dict(chunk_size="100"), "chunk_size must be a number, not a string"),
        (dict(sds=("0:0.2:0.1",)), "sds must be numbers, not strings, got '0:0.2:0.1': parse a grid with mcrank.study.parse_sds"),
        (dict(rate_beta=("2", "1")), "rate_beta must be numbers, not strings"),
        (dict(rate_range=(0.5, "1")), "rate_range must be numbers, not strings"),
        (dict(class_proportion=("0", 1.0)), "class_proportion must be numbers, not strings"),
    ],
)
def test_bad_config_raises_value_error_naming_the_parameter(overrides, named):
    with pytest.raises(ValueError, match=named):
        StudyConfig(**overrides)
    with pytest.raises(ValueError, match=named):
        run_study(jobs=1, **{"samples": 10, **overrides})


@pytest.mark.parametrize("rate_beta", [(1e-20, 1e-20), (1e-10, 1e-10), (1e-6, 1e-6), (5e-4, 4e-4)])
def test_beta_parameters_whose_sampler_never_returns_are_refused(rate_beta):
    # Both <= 1 with a tiny sum: numba's Beta sampler would loop (uninterruptibly) for ever.
    with pytest.raises(ValueError, match=r"rate_beta: Beta parameters both at most 1 must sum to at least 0\.001"):
        StudyConfig(rate_beta=rate_beta)
    assert StudyConfig(rate_beta=(5e-4, 5e-4)).rate_beta == (5e-4, 5e-4)


@pytest.mark.parametrize("rate_beta", [(1e300, 1e300), (1e17, 1.0), (2.0, 2e12)])
def test_beta_parameters_so_large_that_every_pair_ties_are_refused(rate_beta):
    with pytest.raises(ValueError, match=r"rate_beta: Beta parameters must be at most 1e\+12"):
        StudyConfig(rate_beta=rate_beta)


def test_the_largest_beta_parameters_still_separate_the_rates():
    # At the bound, rates still differ between the classifiers of a pair: few ties.
    result = run_study(samples=20_000, seed=3, rate_beta=(1e12, 1e12), metrics=("accuracy",), sds=(), jobs=1)
    assert result.metric_incorrect["accuracy"] < 0.2 * 20_000
    result = run_study(samples=20_000, seed=3, rate_beta=(1e12, 1.0), metrics=("accuracy",), sds=(), jobs=1)
    assert result.metric_incorrect["accuracy"] < 0.2 * 20_000


@pytest.mark.parametrize("true_um_sd", [1e6, 1e4, 10.5])
def test_gaussian_true_um_sds_whose_sampler_never_returns_are_refused(true_um_sd):
    # Rejection into the hexagon takes about 2 pi sd^2 / 3 proposals per point: for ever at 1e4.
    with pytest.raises(ValueError, match=r'true_um_sd must be at most 10 .*true_um="uniform"'):
        StudyConfig(true_um="gaussian", true_um_sd=true_um_sd)
    assert StudyConfig(true_um="gaussian", true_um_sd=10.0).true_um_sd == 10.0
    # The uniform distribution does not read it: a value other than the default would be
    # recorded as a parameter of a study it did not change.
    with pytest.raises(ValueError, match="true_um_sd = .* would change nothing"):
        StudyConfig(true_um="uniform", true_um_sd=true_um_sd)


def test_config_from_dict_rejects_an_unknown_key_by_name():
    with pytest.raises(ValueError, match="'sigmas'"):
        StudyConfig.from_dict({"samples": 10, "sigmas": [0.1]})


def test_config_round_trips_through_a_dict():
    config = StudyConfig(samples=1234, sds=(0.0, 0.2), error="truncated", seed=3, estimator="sample")
    assert StudyConfig.from_dict(config.to_dict()) == config
    # The default estimator is recorded as the one used: read back, it is given, and the same.
    for default in (StudyConfig(samples=1234, seed=3), StudyConfig(error="truncated")):
        assert StudyConfig.from_dict(default.to_dict()).to_dict() == default.to_dict()


def test_bad_jobs_and_backend_raise_value_error():
    with pytest.raises(ValueError, match="jobs"):
        run_study(samples=10, jobs=0)
    with pytest.raises(ValueError, match="backend"):
        run_study(samples=10, jobs=1, backend="mpi")


def test_run_study_says_what_its_config_must_be():
    with pytest.raises(TypeError, match="config must be a StudyConfig or None, got str$"):
        run_study("x")
    with pytest.raises(TypeError, match=r"got dict; build one from a dict with StudyConfig\.from_dict"):
        run_study({"samples": 10})
    with pytest.raises(
        TypeError,
        match="unknown study parameter 'sigma'; known parameters: calibration_intercept_range, calibration_slope_range, chunk_size, ",
    ):
        run_study(samples=10, sigma=0.1)
    # The figures' door says the same.
    with pytest.raises(TypeError, match=r"got dict; build one from a dict with StudyConfig\.from_dict"):
        sample_pairs(10, {"samples": 10})
    with pytest.raises(TypeError, match="sample_pairs got an unknown study parameter 'sigma'"):
        sample_pairs(10, sigma=0.1)


def test_a_scheduler_without_the_dask_backend_is_refused_not_ignored():
    # As the CLI refuses --scheduler without --backend dask.
    with pytest.raises(ValueError, match="scheduler 'tcp://127.0.0.1:1' is only used with backend='dask'"):
        run_study(samples=10, jobs=1, scheduler="tcp://127.0.0.1:1")


def test_a_study_that_measures_nothing_is_refused():
    with pytest.raises(ValueError, match="nothing to measure: metrics and sds are both empty"):
        run_study(samples=10, jobs=1, sds=[], metrics=[])
    with pytest.raises(ValueError, match="nothing to measure"):
        StudyConfig(sds=(), metrics=())
    assert run_study(samples=10, jobs=1, seed=1, sds=[], metrics=["f1"]).rows()[0]["name"] == "f1"
    assert run_study(samples=10, jobs=1, seed=1, sds=[0.1], metrics=[]).rows()[0]["name"] == "utility"


def test_rows_have_the_documented_fields_and_standard_errors():
    # The sample estimator: binomial standard errors (the conditional one's: test_conditional.py).
    result = run_study(samples=20_000, sds=(0.1, 0.2), seed=9, jobs=1, estimator="sample")
    rows = result.rows()
    assert [row["name"] for row in rows] == [*PAPER_METRICS, "utility", "utility"]
    for row in rows:
        assert set(row) == {"name", "sd", "realised_sd", "incorrect", "samples", "incorrect_pct", "se_pct"}
        f = row["incorrect"] / 20_000
        assert row["incorrect_pct"] == pytest.approx(100 * f)
        assert row["se_pct"] == pytest.approx(100 * math.sqrt(f * (1 - f) / 20_000))
    assert [row["sd"] for row in rows[-2:]] == [0.1, 0.2]
    assert all(row["sd"] is None and row["realised_sd"] is None for row in rows[:-2])


# --- sample_pairs ------------------------------------------------------------------------------


def test_sample_pairs_shapes_and_reproducibility():
    pairs = sample_pairs(1000, sds=(0.0, 0.1), rng=11)
    assert pairs.d_true.shape == (1000,)
    assert tuple(pairs.d_metric) == PAPER_METRICS
    assert all(d.shape == (1000,) for d in pairs.d_metric.values())
    assert tuple(pairs.d_utility) == (0.0, 0.1)
    # sd = 0: the perturbed matrix is the true one, difference for difference.
    np.testing.assert_array_equal(pairs.d_utility[0.0], pairs.d_true)
    assert not np.array_equal(pairs.d_utility[0.1], pairs.d_true)

    again = sample_pairs(1000, sds=(0.0, 0.1), rng=11)
    np.testing.assert_array_equal(again.d_true, pairs.d_true)
    for name in PAPER_METRICS:
        np.testing.assert_array_equal(again.d_metric[name], pairs.d_metric[name])
    np.testing.assert_array_equal(again.d_utility[0.1], pairs.d_utility[0.1])
    assert not np.array_equal(sample_pairs(1000, sds=(0.1,), rng=12).d_true, pairs.d_true)


def test_sample_pairs_counts_agree_with_run_study():
    n_pairs = 100_000
    settings = dict(true_um="uniform", error="truncated", sds=(0.1,))
    pairs = sample_pairs(n_pairs, rng=13, **settings)
    study = run_study(samples=ENGINE_SAMPLES, seed=14, **settings)

    def incorrect(d):
        return int(np.count_nonzero(~(((pairs.d_true > 0) & (d > 0)) | ((pairs.d_true < 0) & (d < 0)))))

    for name in PAPER_METRICS:
        _assert_within_4_combined_se(name, incorrect(pairs.d_metric[name]), n_pairs, study.metric_incorrect[name], ENGINE_SAMPLES)
    _assert_within_4_combined_se("utility", incorrect(pairs.d_utility[0.1]), n_pairs, int(study.utility_incorrect[0]), ENGINE_SAMPLES)


def test_sample_pairs_accuracy_is_exact_at_the_identity():
    """True U at the identity: accuracy differences have the sign of the true yield's."""
    pairs = sample_pairs(20_000, true_um="gaussian", true_um_sd=1e-12, sds=(), rng=15)
    accuracy = pairs.d_metric["accuracy"]
    assert np.all(np.sign(accuracy) == np.sign(pairs.d_true))
    np.testing.assert_allclose(accuracy, pairs.d_true, rtol=0, atol=1e-9)


#: Grids for the exact kernel comparison. Each has an sd above 1 (the column-by-column
#: sampler) and sd 0 (no draw) between the others: the kernels take the sds in their own
#: order and must give the results back in the caller's. With 3 sds in (0, 1] a block is one
#: group of pairs for the ``truncated`` sampler; with the paper's 51 it is 8 groups of 32.
EXACT_GRIDS = {
    "short": (0.3, 0.0, 1.5, 0.05),
    "paper, shuffled": tuple(float(s) for s in np.random.default_rng(7).permutation(np.r_[np.linspace(0.0, 0.5, 51), 1.5])),
}


def _count_and_record(config: StudyConfig, size: int):
    """The counting kernel and the recording kernel fed the same streams: assert that they
    count the same pairs, and return the counts, d_true and d_utility."""
    from mcrank.engine.binary import _count_chunk, _record_pairs, study_arguments
    from mcrank.engine.counts import new_counts

    # The recording kernel draws the errors: the counting kernel must too (the sample estimator).
    study = study_arguments(replace(config, estimator="sample" if config.error == "gaussian" else None))
    codes, sds = study.metric_codes, study.sds
    counts = new_counts(study)
    _count_chunk(np.random.default_rng(5), np.random.default_rng(6), np.random.default_rng(7), size, study, counts)
    d_true, d_metric, d_utility = np.empty(size), np.empty((codes.size, size)), np.empty((sds.size, size))
    _record_pairs(np.random.default_rng(5), np.random.default_rng(6), np.random.default_rng(7), study, d_true, d_metric, d_utility)
    assert counts[0].tolist() == [int(np.sum(~ranked_correctly(d_true, d))) for d in d_metric]
    assert counts[1].tolist() == [int(np.sum(~ranked_correctly(d_true, d))) for d in d_utility]
    return counts, d_true, d_utility


@pytest.mark.parametrize("grid", list(EXACT_GRIDS))
@pytest.mark.parametrize("error", ["gaussian", "truncated"])
@pytest.mark.parametrize("size", [1, 255, 256, 257, 1000])
def test_counting_and_recording_kernels_agree_exactly(error, size, grid):
    """Exact, not statistical: the counting kernel and the recording kernel (fig. 6) fed the
    same streams count the same pairs, whatever the size relative to the block."""
    config = StudyConfig(sds=EXACT_GRIDS[grid], error=error, metrics=("accuracy", "f1", "mcc", "fbeta"), fbeta_beta=2.0)
    counts, d_true, d_utility = _count_and_record(config, size)
    zero = EXACT_GRIDS[grid].index(0.0)
    assert counts[1][zero] == 0
    np.testing.assert_array_equal(d_utility[zero], d_true)
    if error == "truncated":
        assert counts[2][zero] == 0 and counts[3][zero] == 0  # no deviation at sd 0


@pytest.mark.parametrize("alpha", [0.1, 0.005])
def test_counting_kernel_signs_hold_when_rates_are_tiny(alpha):
    """Rates Beta(alpha, 1) on [0, 1] go down to 1e-300. The counting kernel compares the
    metrics by their order forms, which need cells of at least ORDER_MIN_CELL; blocks with a
    smaller cell (68 % of them at alpha 0.1, all at 0.005) are counted by the definitions,
    exactly as the recording kernel does. Without that, MCC and Fowlkes-Mallows miscount at
    alpha 0.005."""
    config = StudyConfig(sds=(0.1,), rate_range=(0.0, 1.0), rate_beta=(alpha, 1.0))
    _count_and_record(config, 20_000)


def test_cells_orderable_looks_at_every_cell_of_the_pairs_drawn_and_no_further():
    from mcrank.engine.binary import _cells_orderable
    from mcrank.metrics import ORDER_MIN_CELL

    m = 100
    cells = np.full((8, 256), 0.25)
    assert _cells_orderable(cells, m)
    for row in range(8):
        for i in (0, m // 2, m - 1):
            tiny = cells.copy()
            tiny[row, i] = ORDER_MIN_CELL / 2
            assert not _cells_orderable(tiny, m), (row, i)
            tiny[row, i] = ORDER_MIN_CELL
            assert _cells_orderable(tiny, m), (row, i)
    stale = cells.copy()
    stale[:, m] = 0.0  # beyond the m pairs drawn: ignored
    assert _cells_orderable(stale, m)


@pytest.mark.parametrize("fbeta_beta", [1e-200, 1e100])
def test_counting_kernel_fbeta_at_extreme_betas(fbeta_beta):
    """F-beta's order form with beta^2 beyond the range of floats counts as its definition
    does (with (1 + beta^2) c00 in it, it gave NaN from beta 1e77, and every pair
    incorrect)."""
    config = StudyConfig(sds=(0.1,), metrics=("fbeta", "f1", "precision", "tpr"), fbeta_beta=fbeta_beta)
    counts, _, _ = _count_and_record(config, 5000)
    fbeta, f1, precision, tpr = counts[0]
    assert fbeta == (precision if fbeta_beta < 1 else tpr)
    assert fbeta != f1


@pytest.mark.slow
def test_truncated_engine_agrees_with_oracle_on_an_unsorted_grid_with_a_large_sd():
    """Each sd of an unsorted grid, one of them above 1, is reported at its own position:
    counts and realised sds within 4 combined standard errors of the oracle's."""
    sds = (1.5, 0.0, 0.3)
    settings = dict(true_um="uniform", error="truncated", sds=sds, metrics=("accuracy",))
    engine = run_study(samples=100_000, seed=103, **settings)
    oracle = run_oracle(20_000, rng=np.random.default_rng(204), **settings)
    _assert_counts_agree(engine, oracle)
    combined_se = oracle.realised_sd_se * math.sqrt(1 + 20_000 / 100_000)
    assert np.all(np.abs(engine.realised_sd - oracle.realised_sd) <= 4 * combined_se), (engine.realised_sd, oracle.realised_sd)
    assert engine.realised_sd[1] == 0.0 and engine.utility_incorrect[1] == 0
