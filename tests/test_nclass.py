"""The n-class study (``docs/method.md``, "The n-class study"): the engine against the NumPy
oracle, the samplers against scipy, n = 2 against the two-class engine, and bad input."""

from __future__ import annotations

import numpy as np
import pytest
from nclass_oracle import METRICS, nclass_scores, run_nclass_oracle, sample_utility
from scipy import stats

from mcrank.cli import main
from mcrank.engine import run_study
from mcrank.samplers import perturb_um, sample_class_proportions, sample_conditional_rates, sample_utility_elements
from mcrank.study import StudyConfig


def _z(a, b, n):
    fa, fb = a / n, b / n
    se = np.sqrt((fa * (1 - fa) + fb * (1 - fb)) / n)
    return 0.0 if se == 0 else (fa - fb) / se


def _check_against_oracle(result, oracle, samples):
    rows = result.rows()
    expected = [oracle.metric_incorrect[m] for m in METRICS] + oracle.utility_incorrect.tolist()
    for row, count in zip(rows, expected, strict=True):
        assert abs(_z(row["incorrect"], count, samples)) < 4, (row, count)


@pytest.mark.parametrize("true_um", ["uniform-elements", "gaussian-elements"])
@pytest.mark.parametrize("error", ["gaussian", "truncated"])
@pytest.mark.parametrize("classes", [3, 4])
@pytest.mark.slow
def test_the_engine_agrees_with_the_numpy_oracle(classes, error, true_um):
    samples, sds = 60_000, (0.0, 0.1, 0.3)
    config = StudyConfig(classes=classes, true_um=true_um, error=error, sds=sds, samples=samples, seed=3, estimator="sample")
    oracle = run_nclass_oracle(samples, classes, rng=np.random.default_rng(4), true_um=true_um, error=error, sds=sds)
    _check_against_oracle(run_study(config, jobs=1), oracle, samples)


@pytest.mark.parametrize("test_size", [30, 1000])
def test_finite_test_sets_agree_with_the_numpy_oracle(test_size):
    samples, sds = 60_000, (0.0, 0.1)
    config = StudyConfig(classes=3, sds=sds, samples=samples, seed=5, estimator="sample", test_size=test_size)
    result = run_study(config, jobs=1)
    oracle = run_nclass_oracle(samples, 3, rng=np.random.default_rng(6), sds=sds, test_size=test_size)
    _check_against_oracle(result, oracle, samples)
    tied = [oracle.metric_tied[m] for m in METRICS] + oracle.utility_tied.tolist()
    for row, count in zip(result.rows(), tied, strict=True):
        assert abs(_z(round(row["tied_pct"] * samples / 100), count, samples)) < 4, (row, count)


@pytest.mark.parametrize("test_size", [None, 200])
def test_the_conditional_estimator_agrees_with_the_oracle_and_the_sample_estimator(test_size):
    samples, sds = 60_000, (0.05, 0.1, 0.2, 0.3)
    settings = dict(classes=3, sds=sds, samples=samples, metrics=(), test_size=test_size)
    conditional = [r for r in run_study(StudyConfig(**settings, seed=7), jobs=1).rows()]
    sample = [r for r in run_study(StudyConfig(**settings, seed=8, estimator="sample"), jobs=1).rows()]
    oracle = run_nclass_oracle(samples, 3, rng=np.random.default_rng(9), sds=sds, metrics=(), test_size=test_size, conditional=True)
    for k, (c, s) in enumerate(zip(conditional, sample, strict=True)):
        assert abs(c["incorrect_pct"] - s["incorrect_pct"]) < 4 * np.hypot(c["se_pct"], s["se_pct"]), (c, s)
        reference, se = 100 * oracle.utility_incorrect[k] / samples, oracle.utility_se_pct[k]
        assert abs(c["incorrect_pct"] - reference) < 4 * np.hypot(c["se_pct"], se), (c, reference)


def test_at_two_classes_both_kernels_agree():
    # The paper's setting (hexagon, two-class metrics) runs on the two-class kernel; with
    # macro F1 among the metrics, the same setting runs on the n-class kernel.
    samples, sds = 200_000, (0.0, 0.1, 0.3)
    binary = run_study(StudyConfig(samples=samples, sds=sds, seed=11, estimator="sample"), jobs=1)
    metrics = (*binary.config.metrics, "macro_f1")
    general = run_study(StudyConfig(samples=samples, sds=sds, seed=12, estimator="sample", metrics=metrics), jobs=1)
    assert binary.config.binary and not general.config.binary
    rows = {(r["name"], r["sd"]): r for r in general.rows()}
    for row in binary.rows():
        assert abs(_z(row["incorrect"], rows[row["name"], row["sd"]]["incorrect"], samples)) < 4, row
    # F1 and macro F1 differ at two classes: macro F1 also averages the F1 of class 1.
    assert rows["macro_f1", None]["incorrect"] != rows["f1", None]["incorrect"]


def test_every_distribution_runs_with_every_two_class_metric_at_two_classes():
    from mcrank.metrics import METRICS as ALL

    two_class = tuple(m.id for m in ALL.values() if m.defined_for(2))
    for true_um in ("uniform", "gaussian", "uniform-elements", "gaussian-elements"):
        result = run_study(StudyConfig(true_um=true_um, metrics=two_class, samples=2000, seed=1), jobs=1)
        assert [r["name"] for r in result.rows()][: len(two_class)] == list(two_class)
        assert all(0 <= r["incorrect_pct"] <= 100 for r in result.rows())


@pytest.mark.slow
def test_counts_do_not_depend_on_jobs_or_backend():
    config = StudyConfig(classes=4, samples=150_000, sds=(0.1, 0.2), seed=13, chunk_size=20_000)
    one = run_study(config, jobs=1)
    for backend in ("threading", "loky"):
        other = run_study(config, jobs=2, backend=backend)
        assert one.rows() == other.rows() and np.array_equal(one.batch_incorrect, other.batch_incorrect)


# --- the samplers against scipy ------------------------------------------------------------------


def test_recalls_follow_the_shifted_beta():
    for n in (3, 5):
        rates = sample_conditional_rates(20_000, classes=n, rng=21)
        recall = np.diagonal(rates, axis1=1, axis2=2).ravel()
        shifted = stats.beta(2, 1, loc=1 / n, scale=1 - 1 / n)
        assert stats.kstest(recall, shifted.cdf).pvalue > 1e-4
        np.testing.assert_allclose(rates.sum(axis=1), 1.0, rtol=1e-12)


def test_the_off_diagonal_split_is_dirichlet():
    n = 4
    rates = sample_conditional_rates(20_000, classes=n, rng=22)
    j = 1
    others = [i for i in range(n) if i != j]
    shares = rates[:, others, j] / (1 - rates[:, j, j])[:, None]
    for k in range(n - 1):  # a Dirichlet(1, 1, 1) marginal is Beta(1, 2)
        assert stats.kstest(shares[:, k], stats.beta(1, n - 2).cdf).pvalue > 1e-4


def test_class_proportions_are_dirichlet():
    for alpha in (1.0, 0.3):
        p = sample_class_proportions(20_000, classes=5, concentration=alpha, rng=23)
        np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
        assert stats.kstest(p[:, 2], stats.beta(alpha, 4 * alpha).cdf).pvalue > 1e-4


@pytest.mark.slow
def test_uniform_elements_columns_before_normalising():
    n = 4
    u = sample_utility_elements(20_000, classes=n, normalise=False, rng=24)
    # The diagonal is the largest of n uniforms, Beta(n, 1); an off-diagonal element is one
    # of the other n - 1, uniform below it: marginally, the mixture of the lower order
    # statistics, with cdf (n x - (x^n ... )) / (n - 1); checked as the sorted column instead.
    assert stats.kstest(u[:, 2, 2], stats.beta(n, 1).cdf).pvalue > 1e-4
    for k in range(1, n + 1):  # the k-th smallest of each column is Beta(k, n + 1 - k)
        assert stats.kstest(np.sort(u[:, :, 1], axis=1)[:, k - 1], stats.beta(k, n + 1 - k).cdf).pvalue > 1e-4
    assert np.all(np.argmax(u, axis=1) == np.arange(n))


@pytest.mark.slow
def test_element_distributions_match_plain_rejection():
    for distribution in ("uniform-elements", "gaussian-elements"):
        ours = sample_utility_elements(20_000, classes=3, distribution=distribution, rng=25)
        reference = sample_utility(20_000, 3, distribution, np.random.default_rng(26))
        for i, j in ((0, 0), (1, 0), (2, 1), (2, 2)):
            assert stats.ks_2samp(ours[:, i, j], reference[:, i, j]).pvalue > 1e-4, (distribution, i, j)


@pytest.mark.slow
def test_the_truncated_n_column_sampler_matches_plain_rejection():
    utility = sample_utility(1, 4, "uniform-elements", np.random.default_rng(27))[0]
    ours = perturb_um(utility, 0.2, error="truncated", size=20_000, rng=28)
    rng = np.random.default_rng(29)
    reference = np.empty((20_000, 4, 4))
    for j in range(4):  # plain rejection of whole columns, many proposals at a time
        accepted = np.empty((0, 4))
        while len(accepted) < 20_000:
            draw = utility[:, j] + 0.2 * rng.standard_normal((100_000, 4))
            ok = np.all((draw >= 0) & (draw <= 1), axis=1) & np.all(draw <= draw[:, j : j + 1], axis=1)
            accepted = np.concatenate((accepted, draw[ok]))
        reference[:, :, j] = accepted[:20_000]
    for i, j in ((0, 0), (1, 0), (3, 2), (2, 2)):
        assert stats.ks_2samp(ours[:, i, j], reference[:, i, j]).pvalue > 1e-4, (i, j)


def test_the_oracles_metrics_are_scikit_learns():
    from sklearn import metrics as skm

    rng = np.random.default_rng(30)
    c = rng.integers(0, 20, (200, 3, 3)).astype(float)
    for name in METRICS:
        ours = nclass_scores(name, c)
        for k in range(20):
            true, output = np.nonzero(c[k].T)
            weight = c[k][output, true]
            reference = {"accuracy": skm.accuracy_score, "balanced_accuracy": skm.balanced_accuracy_score,
                         "mcc": skm.matthews_corrcoef, "cohen_kappa": skm.cohen_kappa_score}.get(name)  # fmt: skip
            if name == "macro_f1":
                value = skm.f1_score(true, output, average="macro", sample_weight=weight)
            elif name == "macro_precision":
                value = skm.precision_score(true, output, labels=np.unique(output), average="macro", sample_weight=weight)
            else:
                value = reference(true, output, sample_weight=weight)
            assert ours[k] == pytest.approx(value, rel=1e-9), (name, k)


# --- bad input -------------------------------------------------------------------------------------


BAD = [
    (["--classes", "1"], "classes must be a whole number from 2 to 50"),
    (["--classes", "51"], "classes must be a whole number from 2 to 50"),
    (["--classes", "3", "--true-um", "uniform"], "hexagon of two-class matrices; for 3 classes choose"),
    (["--classes", "3", "--metrics", "accuracy,tpr"], "metric 'tpr' is defined for two classes only, not 3"),
    (["--classes", "3", "--class-concentration", "-1"], "--class-concentration must be positive"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[b[1][:30] for b in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code = main(["run", *argv, "--samples", "100"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err
