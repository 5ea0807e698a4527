"""Sibling studies (equal but for the errors) share their score rows: each result equals its study run alone."""

from dataclasses import fields, replace

import numpy as np
import pytest

from mcrank.engine import run_studies, run_study, score_siblings, with_scores
from mcrank.study import StudyConfig, StudyResult

ROC = dict(kind="roc", metrics=("auc", "best_accuracy", "hmeasure"))
PROBABILITIES = dict(kind="probabilities", metrics=("brier", "accuracy"))

#: Each kind's siblings: the common parameters, then each sibling's errors.
SIBLINGS = {
    "two classes": (dict(), [dict(error="gaussian", sds=(0.1, 0.3)), dict(error="truncated", sds=(0.1, 0.3)), dict(sds=(0.2,))]),
    "two classes, sample estimator": (
        dict(metrics=("accuracy", "fbeta"), fbeta_beta=2.0),
        [dict(error="gaussian", estimator="sample", sds=(0.1,)), dict(error="gaussian", sds=(0.0, 0.2))],
    ),
    "finite test sets": (dict(test_size=30), [dict(sds=(0.1,)), dict(error="truncated", sds=(0.1, 0.2))]),
    "three classes": (dict(classes=3), [dict(sds=(0.1,)), dict(error="truncated", sds=(0.1,)), dict(estimator="sample", sds=(0.2,))]),
    "three classes, finite test sets": (dict(classes=3, test_size=40), [dict(sds=(0.1,)), dict(error="truncated", sds=(0.3,))]),
    "roc": (ROC, [dict(sds=(0.0, 0.2)), dict(error="truncated", sds=(0.1, 0.2))]),
    "roc, fixed prevalence": (dict(ROC, prevalence=0.05), [dict(sds=(0.1,)), dict(error="truncated", sds=(0.1,))]),
    "probabilities": (PROBABILITIES, [dict(sds=(0.1,)), dict(error="truncated", sds=(0.1, 0.4))]),
}


def _assert_same(shared: StudyResult, alone: StudyResult) -> None:
    """Equal in every field but the wall time, arrays of the same dtype and values."""
    for field in fields(StudyResult):
        if field.name == "wall_time":
            continue
        ours, theirs = getattr(shared, field.name), getattr(alone, field.name)
        if isinstance(theirs, np.ndarray):
            assert isinstance(ours, np.ndarray) and ours.dtype == theirs.dtype and np.array_equal(ours, theirs), field.name
        else:
            assert ours == theirs, field.name
    assert shared.rows() == alone.rows() and shared.to_dict()["batches"] == alone.to_dict()["batches"]


@pytest.mark.parametrize("kind", SIBLINGS)
def test_siblings_sharing_their_scores_are_their_studies_run_alone(kind):
    common, errors = SIBLINGS[kind]
    configs = [StudyConfig(samples=6_000, chunk_size=1_000, seed=5, **common, **e) for e in errors]
    assert score_siblings(configs) == [None] + [0] * (len(configs) - 1)
    for shared, config in zip(run_studies(configs, jobs=1), configs):
        _assert_same(shared, run_study(config, jobs=1))


def test_a_run_without_scores_has_the_sd_rows_only():
    config = StudyConfig(samples=3_000, seed=3, sds=(0.1,), error="truncated", **ROC)
    result = run_study(config, jobs=1, scores=False)
    assert result.config.metrics == () and [row["name"] for row in result.rows()] == ["utility"]
    assert result.rows()[0] == run_study(config, jobs=1).rows()[-1]


@pytest.mark.parametrize(
    "change",
    [
        dict(seed=6),
        dict(samples=6_001),
        dict(chunk_size=500),
        dict(metrics=("accuracy", "tpr")),
        dict(metrics=("tpr", "accuracy")),
        dict(true_um="gaussian"),
        dict(class_proportion=(0.2, 0.8)),
        dict(rate_range=(0.6, 1.0)),
        dict(test_size=100),
        dict(classes=3, true_um="uniform-elements", metrics=("accuracy",)),
    ],
)
def test_studies_that_differ_in_more_than_their_errors_are_no_siblings(change):
    base = StudyConfig(samples=6_000, chunk_size=1_000, seed=5, sds=(0.1,), metrics=("accuracy",))
    other = replace(base, error="truncated", **change)
    assert score_siblings([base, other]) == [None, None]
    assert score_siblings([base, replace(base, error="truncated")]) == [None, 0]


@pytest.mark.parametrize("change", [dict(seed=6), dict(prevalence=0.1), dict(prevalence=None), dict(roc_mu_range=(0.0, 2.0))])
def test_scoring_studies_that_differ_in_more_than_their_errors_are_no_siblings(change):
    base = StudyConfig(samples=6_000, seed=5, sds=(0.1,), kind="roc", prevalence=0.05, metrics=("auc",))
    assert score_siblings([base, replace(base, error="truncated")]) == [None, 0]
    assert score_siblings([base, replace(base, error="truncated", **change)]) == [None, None]


def test_no_siblings_without_a_seed_scores_or_sds():
    base = StudyConfig(samples=1_000, seed=None, sds=(0.1,))
    assert score_siblings([base, replace(base, error="truncated")]) == [None, None]
    seeded = replace(base, seed=1)
    assert score_siblings([replace(seeded, metrics=()), replace(seeded, metrics=(), error="truncated")]) == [None, None]
    # A sibling with no sd has nothing to run without its scores: it runs in full.
    assert score_siblings([seeded, replace(seeded, sds=())]) == [None, None]


def test_scores_of_a_study_that_is_no_sibling_are_refused():
    config = StudyConfig(samples=2_000, seed=1, sds=(0.1,))
    unscored = run_study(config, jobs=1, scores=False)
    with pytest.raises(ValueError, match="not the result of a sibling"):
        with_scores(config, unscored, run_study(replace(config, seed=2), jobs=1))
    with pytest.raises(ValueError, match="scores=False"):
        with_scores(config, run_study(config, jobs=1), run_study(config, jobs=1))
