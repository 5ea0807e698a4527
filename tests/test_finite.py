"""Finite test sets (``docs/method.md``, "Finite test sets"): the engine against the NumPy oracle,
the count samplers against scipy, the population limit, and bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from finite_oracle import binary_count_score, run_finite_oracle
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


@pytest.mark.parametrize("error", ["gaussian", "truncated"])
@pytest.mark.parametrize("test_size", [30, 1000])
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


def test_the_count_scores_of_the_oracle_are_scikit_learns():
    # The oracle's metrics on counts, checked once against scikit-learn on label arrays,
    # undefined cases included (sklearn's zero_division=np.nan is the NaN of SPEC.md).
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
