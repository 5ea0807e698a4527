"""The registries of the study's axes (mcrank.error_models, mcrank.distributions, mcrank.estimators):
what they hold, and a new error model added through its registry alone, run by the engine.

The kernels' switches are generated from the registries when mcrank.samplers is imported, so a
new entry is registered before that: the toy model below runs in a fresh Python process that
registers it, then imports the engine (docs/development.md, "Adding an error model").
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import mcrank.samplers
from mcrank.distributions import TRUE_UM_DISTRIBUTIONS, default_true_um, register_true_um_distribution
from mcrank.error_models import ERROR_MODELS, register_error_model
from mcrank.estimators import ESTIMATORS, default_estimator
from mcrank.study import StudyConfig
from mcrank.study.kinds import STUDY_KINDS

# The toy: uniform errors of sd s, U' = U + s sqrt(3) (2 V - 1), with no closed form (so the
# sample estimator, the n-class kernel at every n, and a measured realised sd).
TOY = '''
import json
import math
import sys

from mcrank._jit import jit
from mcrank.error_models import register_error_model


@jit(inline="always")
def _perturb_uniform(rng, utility, sd, out):
    """U' = U + sd sqrt(3) (2 V - 1), V ~ Uniform(0, 1): independent errors of sd ``sd``."""
    n = utility.shape[0]
    half_width = sd * math.sqrt(3.0)
    for i in range(n):
        for j in range(n):
            out[i, j] = utility[i, j] + half_width * (2.0 * rng.random() - 1.0)


register_error_model("uniform-noise", _perturb_uniform, help="Uniform(-s sqrt 3, s sqrt 3) added to every element")

from mcrank.engine import run_study  # noqa: E402  (after registering: the kernels' switch is generated now)
from mcrank.study import StudyConfig  # noqa: E402

out = {}
for classes in (3, 2):
    toy = run_study(error="uniform-noise", sds=(0.0, 0.1, 0.25), classes=classes, samples=20_000, seed=20240601, jobs=1)
    out[classes] = {"toy": toy.rows(), "estimator": toy.config.estimator_used,
                    "binary": StudyConfig(classes=classes, error="uniform-noise").binary}
try:
    StudyConfig(error="uniform-noise", estimator="conditional")
except ValueError as error:
    out["refused"] = str(error)
json.dump(out, sys.stdout)
'''


@pytest.fixture(scope="module")
def toy_runs(tmp_path_factory):
    """The toy's studies, run in a process of their own (a file, so that its source keys the jit cache)."""
    script = tmp_path_factory.mktemp("toy") / "toy_error_model.py"
    script.write_text(TOY)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _utility_rows(rows):
    return {float(r["sd"]): r for r in rows if r["name"] == "utility"}


@pytest.mark.parametrize("classes", ["3", "2"])
@pytest.mark.slow
def test_a_toy_error_model_runs_through_its_registry_alone(toy_runs, classes):
    from mcrank.engine import run_study

    run, n = toy_runs[classes], int(classes)
    # The gaussian study beside it runs here, on the kernels without the toy (compiled once for
    # every test): the same seed gives the same base samples in any process.
    gaussian_rows = run_study(error="gaussian", sds=(0.1,), estimator="sample", classes=n, samples=20_000, seed=20240601, jobs=1).rows()
    toy, gaussian = _utility_rows(run["toy"]), _utility_rows(gaussian_rows)
    # Realised sd of U' - U, over n^2 elements of every pair: uniform errors have kurtosis 9/5, so
    # the sample sd has standard error s sqrt((9/5 - 1) / (4 N)).
    for sd in (0.1, 0.25):
        elements = n * n * toy[sd]["samples"]
        se = sd * np.sqrt(0.8 / (4 * elements))
        assert abs(toy[sd]["realised_sd"] - sd) < 4 * se
    # sd 0: U' = U ranks every pair as U does.
    assert toy[0.0]["incorrect"] == 0 and toy[0.0]["realised_sd"] == 0.0
    if n > 2:  # both on the n-class kernel (for two classes the gaussian study runs on the paper's)
        # Same seed, same base samples (steps 1-3): the metrics' rows do not depend on the error model.
        assert [r for r in run["toy"] if r["name"] != "utility"] == [r for r in gaussian_rows if r["name"] != "utility"]
    # The sum of n^2 independent errors of sd s is near-gaussian whatever their law: the toy
    # misranks about as often as gaussian errors of the same sd (within 4 combined SE).
    a, b = toy[0.1], gaussian[0.1]
    assert abs(a["incorrect_pct"] - b["incorrect_pct"]) < 4 * np.hypot(a["se_pct"], b["se_pct"])
    # No closed form: the sample estimator, on the n-class kernel even for two classes.
    assert run["estimator"] == "sample" and run["binary"] is False


@pytest.mark.slow
def test_a_toy_error_model_without_a_closed_form_refuses_the_conditional_estimator(toy_runs):
    assert toy_runs["refused"] == "the conditional estimator needs gaussian errors; with uniform-noise errors the estimator is 'sample'"


def test_registries_hold_the_records_the_rest_of_the_package_reads():
    assert list(ERROR_MODELS) == ["gaussian", "truncated"]
    assert [m.code for m in ERROR_MODELS.values()] == [0, 1]
    assert [m.closed_form for m in ERROR_MODELS.values()] == [True, False]
    assert list(TRUE_UM_DISTRIBUTIONS) == ["uniform", "gaussian", "uniform-elements", "gaussian-elements"]
    assert mcrank.samplers.HEXAGON_DISTRIBUTIONS == ("uniform", "gaussian")
    assert mcrank.samplers.ERROR_MODELS is ERROR_MODELS and mcrank.samplers.TRUE_UM_DISTRIBUTIONS is TRUE_UM_DISTRIBUTIONS
    assert (default_true_um(2), default_true_um(3)) == ("uniform", "uniform-elements")
    assert (default_estimator(True).name, default_estimator(False).name) == ("conditional", "sample")
    assert list(ESTIMATORS) == list(mcrank.study.config.ESTIMATORS) == ["sample", "conditional"]
    assert list(STUDY_KINDS) == ["confusion", "roc", "probabilities"] and [k.code for k in STUDY_KINDS.values()] == [0, 1, 2]
    for registry in (ERROR_MODELS, TRUE_UM_DISTRIBUTIONS, ESTIMATORS):
        assert all(record.help and "\n" not in record.help for record in registry.values())
    assert StudyConfig(true_um="gaussian").binary and StudyConfig(error="truncated").estimator_used == "sample"


def test_registering_after_the_switches_are_generated_is_refused():
    # mcrank.samplers is imported: its switches would not know the new entry.
    with pytest.raises(RuntimeError, match="before importing mcrank.samplers"):
        register_error_model("late", ERROR_MODELS["gaussian"].perturb, help="too late")
    with pytest.raises(RuntimeError, match="before importing mcrank.samplers"):
        register_true_um_distribution("late", TRUE_UM_DISTRIBUTIONS["uniform"].draw, help="too late", hexagon=True)
    assert "late" not in ERROR_MODELS and "late" not in TRUE_UM_DISTRIBUTIONS
    with pytest.raises(TypeError, match="add"):
        ERROR_MODELS["late"] = ERROR_MODELS["gaussian"]


def test_metrics_and_roc_scores_registered_late_are_refused_not_scored_nan():
    # Their switches are generated when a metric is first scored and when mcrank.roc is
    # imported: a late entry would be missing from them (and scored NaN), so it is refused, and
    # absent from the registry.
    from mcrank.metrics import METRICS, score
    from mcrank.metrics._registry import register
    from mcrank.roc import ROC_SCORES, _auc
    from mcrank.roc import register as register_roc_score

    assert score("accuracy", [[3, 1], [0, 4]]) == 7 / 8  # the metrics' switches exist from here on
    assert METRICS.sealed
    with pytest.raises(RuntimeError, match="define it in mcrank/metrics/definitions.py"):
        register("late", "Late", binary=METRICS["accuracy"].binary)
    with pytest.raises(RuntimeError, match="define it in mcrank/roc.py"):
        register_roc_score("late", "Late", _auc, "too late")
    assert "late" not in METRICS and "late" not in ROC_SCORES
    with pytest.raises(RuntimeError, match="a branch of every kernel"):
        ESTIMATORS.add(type(ESTIMATORS["sample"])("late", len(ESTIMATORS), "too late"))


def test_a_fused_two_class_sampler_is_refused_for_a_model_that_is_not_built_in():
    # The two-class kernels draw a model without a closed form by the truncated model's column
    # sampler: a new model claiming them would be drawn as truncated.
    with pytest.raises(ValueError, match="two_class_kernel: the error model 'fused' has no closed form"):
        register_error_model("fused", ERROR_MODELS["truncated"].perturb, help="not truncated", two_class_kernel=True)
    assert "fused" not in ERROR_MODELS
