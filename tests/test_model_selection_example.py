"""The worked example of docs/evaluate-folds.md: six scikit-learn models on the breast-cancer data,
cross-validated, ranked by utility with the test items', the threshold choice's and the
folds' uncertainty (``examples/model_selection.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("sklearn")
# Every test runs the example's cross-validation, a few seconds of scikit-learn fits at least.
pytestmark = pytest.mark.slow


def _example():
    spec = importlib.util.spec_from_file_location("model_selection", ROOT / "examples" / "model_selection.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick():
    """The example's quick form (smaller ensembles) at seed 0."""
    example = _example()
    runs = example.cross_validate(0, fast=True)
    return example, runs, example.analyse(runs, 0)


def test_every_tumour_is_scored_once_out_of_fold_and_tested_once_per_repeat(quick):
    example, runs, _ = quick
    assert runs["truth"].size == example.REPEATS * 569
    for f in range(example.SPLITS * example.REPEATS):
        assert (runs["fold"] == f).sum() in (113, 114)
    for scores in runs["pooled"].values():
        assert np.all(np.isfinite(scores))
    # The first repeat's folds are a partition: their truths, put back in item order, are the labels.
    first = runs["fold"] < example.SPLITS
    assert sorted(runs["truth"][first].tolist()) == sorted(runs["y"].tolist())


def test_the_fold_yields_are_the_utility_per_tumour_of_each_fold(quick):
    example, runs, result = quick
    row = {"malignant": 0, "benign": 1}  # decision "malignant" = biopsy, the utility's first row
    for model in result["folds"].models:
        decided = runs["decided"][model.name]
        oracle = [np.mean([example.UTILITY[row[d], row[t]] for d, t in zip(decided[runs["fold"] == f], runs["truth"][runs["fold"] == f])])
                  for f in range(example.SPLITS * example.REPEATS)]  # fmt: skip
        np.testing.assert_allclose(model.yields, oracle, rtol=0, atol=1e-12)
        assert model.mean_yield == pytest.approx(np.mean(oracle), abs=1e-12)


def test_the_report_says_where_a_second_seed_keeps_and_swaps_the_order(quick):
    example, _, result = quick
    text = example.report({0: result, 1: result})  # the same run twice: every pair keeps its order
    sure = sum(p.verdict(0.0) != "not separated" for p in result["folds"].pairs)
    assert f"of the {sure} pairs seed 0 separates (P >= 0.95), {sure} keep" in text
    assert f"their order; of the {15 - sure} it does not, 0 swap: none" in text
    assert text.count(f"folds: choose {result['folds'].chosen.name}") == 2
    assert all(line == line.rstrip() and len(line) <= 100 for line in text.splitlines())


@pytest.fixture(scope="module")
def wine():
    """The wine part's quick form (a smaller forest) at seed 0."""
    example = _example()
    runs = example.wine_cross_validate(0, fast=True)
    return example, runs, example.wine_analyse(runs, 0)


def test_the_wine_fold_yields_are_the_utility_per_wine_of_each_fold(wine):
    example, runs, result = wine
    matrix = np.array(example.wine_utility()["utility"])  # rows = sold as, columns = true cultivar
    index = {name: k for k, name in enumerate(example.WINE_CLASSES)}
    assert runs["truth"].size == example.REPEATS * 178
    for model in result["folds"].models:
        decided = runs["decided"][model.name]
        oracle = [np.mean([matrix[index[d], index[t]] for d, t in zip(decided[runs["fold"] == f], runs["truth"][runs["fold"] == f])])
                  for f in range(example.SPLITS * example.REPEATS)]  # fmt: skip
        np.testing.assert_allclose(model.yields, oracle, rtol=0, atol=1e-12)
    # The wines' ranking: the first repeat's pooled labels, each wine once, their mean utility.
    for classifier in result["items"].classifiers:
        pooled = runs["pooled"][classifier.name]
        mean = np.mean([matrix[index[d], index[t]] for d, t in zip(pooled, runs["y"])])
        assert classifier.utility_yield == pytest.approx(mean, abs=1e-12)
        low, high = classifier.utility_yield_interval
        assert low < classifier.utility_yield < high


def test_the_wine_auc_is_one_against_the_rest_on_the_pooled_scores(wine):
    from sklearn.metrics import roc_auc_score

    example, runs, result = wine
    for name, probabilities in runs["probabilities"].items():
        np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-12)
        # One against the rest, unweighted mean of the three classes' AUC, by hand.
        aucs = [roc_auc_score(runs["y"] == c, probabilities[:, k]) for k, c in enumerate(example.WINE_CLASSES)]
        assert result["auc"][name] == pytest.approx(np.mean(aucs), abs=1e-12)
    text = example.wine_report({0: result, 1: result})
    assert text.count(f"folds: choose {result['folds'].chosen.name}") == 2
    assert all(line == line.rstrip() and len(line) <= 100 for line in text.splitlines())


def test_the_guide_shows_the_examples_real_output(capsys):
    assert _example().main([]) == 0
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "evaluate-folds.md").read_text()
    start = guide.index("$ python examples/model_selection.py\n")
    assert guide[guide.index("\n", start) + 1 : guide.index("```", start)] == out
