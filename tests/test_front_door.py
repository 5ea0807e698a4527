"""The one front door, mcrank.evaluate.evaluate (mcrank/evaluate/modes.py; issue 40, item 1):
each mode given by keywords gives exactly what its own entry function gives; what picks the
mode; the refusals; the bound on the number of models and the progress of the posterior."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import mcrank._validation
from mcrank.cli import main
from mcrank.evaluate import (
    MODES,
    compare_folds,
    decision_curves,
    evaluate,
    evaluate_predictions,
    fold_yields,
    rank_scoring,
    scored_test_set,
)
from mcrank.evaluate.modes import OUTPUTS
from mcrank.evaluate.per_item import evaluate_per_item, evaluate_per_item_scores
from mcrank.evaluate.pipeline import evaluate as rank_confusions

FRAUD = {
    "classes": ["fraud", "legitimate"],
    "decisions": ["refuse", "accept"],
    "cells": {"refuse": {"fraud": 50, "legitimate": -5}, "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}},
}
UTILITY = [[3, -4], [-1, 2]]  # rows = decision, columns = true class, classes in the order ("no", "yes")


@pytest.fixture(scope="module")
def test_set():
    rng = np.random.default_rng(4)
    y = np.where(rng.random(60) < 0.4, "yes", "no")
    scores = {name: np.clip((y == "yes") * skill + rng.random(60) * (1 - skill), 0, 1) for name, skill in (("a", 0.5), ("b", 0.2))}
    predictions = {name: np.where(s >= 0.5, "yes", "no") for name, s in scores.items()}
    amount = rng.uniform(1, 500, 60)
    return {"y": y, "scores": scores, "predictions": predictions, "amount": amount, "folds": np.arange(60) % 3}


def _same(a, b):
    assert json.dumps(a.to_dict(), sort_keys=True, default=str) == json.dumps(b.to_dict(), sort_keys=True, default=str)


def test_confusion_matrices_are_the_pipelines_evaluate():
    confusions = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}
    for options in ({}, {"sd": 0.1}, {"test_uncertainty": True, "samples": 2000, "rng": 3}):
        _same(evaluate(confusions, [[15, -335], [-35, 165]], **options), rank_confusions(confusions, [[15, -335], [-35, 165]], **options))


def test_predictions_are_evaluate_predictions(test_set):
    y, predictions = test_set["y"], test_set["predictions"]
    given = {"classes": ["no", "yes"], "test_uncertainty": True, "samples": 2000, "rng": 1}
    _same(evaluate(y_true=y, predictions=predictions, utility=UTILITY, **given), evaluate_predictions(y, predictions, UTILITY, **given))


def test_a_per_item_utility_is_evaluate_per_item(test_set):
    y = np.where(test_set["y"] == "yes", "fraud", "legitimate")
    predictions = {name: np.where(p == "yes", "refuse", "accept") for name, p in test_set["predictions"].items()}
    columns = {"amount": test_set["amount"]}
    given = {"test_uncertainty": True, "samples": 500, "rng": 2}
    front = evaluate(y_true=y, predictions=predictions, utility=FRAUD, columns=columns, **given)
    _same(front, evaluate_per_item(y, predictions, FRAUD, columns=columns, **given))
    # An array of shape (items, decisions, classes) is per item too.
    array = np.broadcast_to(np.array(UTILITY, dtype=float), (60, 2, 2))
    front = evaluate(y_true=test_set["y"], predictions=test_set["predictions"], utility=array, classes=["no", "yes"])
    _same(front, evaluate_per_item(test_set["y"], test_set["predictions"], array, classes=["no", "yes"]))
    # Scores under a per-item utility: decided item by item.
    scores = test_set["scores"]
    _same(evaluate(y_true=y, scores=scores, utility=FRAUD, columns=columns), evaluate_per_item_scores(y, scores, FRAUD, columns=columns))


def test_folds_are_compare_folds_of_fold_yields(test_set):
    y, predictions, folds = test_set["y"], test_set["predictions"], test_set["folds"]
    front = evaluate(y_true=y, predictions=predictions, utility=UTILITY, folds=folds, classes=["no", "yes"], samples=1000, rng=5)
    yields = fold_yields(y, predictions, folds, utility=UTILITY, classes=["no", "yes"])
    _same(front, compare_folds(yields, samples=1000, rng=5))


def test_scores_are_rank_scoring_of_a_scored_test_set(test_set):
    y, scores = test_set["y"], test_set["scores"]
    given = {"threshold_choice": "crossfit", "test_uncertainty": True, "samples": 300, "rng": 7}
    front = evaluate(y_true=y, scores=scores, utility=UTILITY, classes=["no", "yes"], positive="yes", folds=3, **given)
    _same(front, rank_scoring(scored_test_set(y, scores, classes=["no", "yes"], positive="yes"), UTILITY, folds=3, **given))


def test_scores_without_a_utility_are_decision_curves(test_set):
    y, scores = test_set["y"], test_set["scores"]
    front = evaluate(y_true=y, scores=scores, positive="yes", thresholds=[0.1, 0.3], test_uncertainty=True, samples=200, rng=1)
    _same(front, decision_curves(y, scores, positive="yes", thresholds=[0.1, 0.3], test_uncertainty=True, samples=200, rng=1))


def test_probabilities_are_a_mode_of_their_own(test_set):
    probabilities = {"a": np.column_stack([1 - test_set["scores"]["a"], test_set["scores"]["a"]])}
    arguments = {"y_true": test_set["y"], "probabilities": probabilities, "utility": UTILITY, "classes": ["no", "yes"]}
    if importlib.util.find_spec("mcrank.evaluate.probabilities") is None:
        with pytest.raises(ValueError, match="^probabilities: this mcrank has no mode for class probabilities yet"):
            evaluate(**arguments)
    else:
        from mcrank.evaluate.probabilities import evaluate_probabilities

        # One seed for both: the recalibration's folds are drawn.
        _same(evaluate(**arguments, rng=0), evaluate_probabilities(test_set["y"], probabilities, UTILITY, classes=["no", "yes"], rng=0))
        # folds= is the recalibration's number of folds, as --folds is with --probabilities.
        three = evaluate(**arguments, folds=3, rng=0)
        assert three.recalibration_folds == 3
        _same(three, evaluate_probabilities(test_set["y"], probabilities, UTILITY, classes=["no", "yes"], folds=3, rng=0))


def test_every_mode_is_one_record_and_every_output_has_a_mode():
    assert [mode.code for mode in MODES.values()] == list(range(len(MODES)))
    assert {mode.given for mode in MODES.values()} == set(OUTPUTS)
    # The last mode of each output applies to every call: none falls through.
    for given in OUTPUTS:
        last = [mode for mode in MODES.values() if mode.given == given][-1]
        assert last.applies(None), given


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"confusions": {"A": np.eye(2)}, "utility": UTILITY, "y_true": [0, 1]}, "^y_true: confusion matrices are ranked alone"),
        ({"utility": UTILITY}, "^y_true: give the confusion matrices, or y_true with one of"),
        ({"y_true": [0, 1], "utility": UTILITY}, "^predictions: give exactly one of predictions, scores and probabilities"),
        ({"y_true": [0, 1], "predictions": {"A": [0, 1]}, "scores": {"A": [0.1, 0.9]}, "utility": UTILITY},
         "^scores: give exactly one of .*, not predictions and scores"),
        ({"y_true": [0, 1], "predictions": {"A": [0, 1]}, "utility": UTILITY, "columns": {"amount": [1, 2]}},
         "^columns: item columns are read by an affine per-item utility only"),
        ({"y_true": [0, 1], "scores": {"A": [0.1, 0.9]}, "utility": UTILITY, "options": object()},
         "^options: the scores mode takes its options as keywords"),
        ({"y_true": [0, 1], "probabilities": {"A": [[0.9, 0.1]] * 2}, "utility": UTILITY, "classes": [0, 1], "folds": [0, 1]},
         "^folds must be a whole number"),  # the recalibration's number of folds, as for scores, not each item's
    ],
)  # fmt: skip
def test_the_front_door_refuses_what_no_mode_takes(arguments, message):
    with pytest.raises(ValueError, match=message):
        evaluate(**arguments)


def test_the_number_of_models_is_bounded(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(mcrank._validation, "MAX_EVALUATE_MODELS", 3)
    many = {f"m{k}": [0, 1, 1] for k in range(4)}
    with pytest.raises(ValueError, match=r"^predictions: 4 models, above the 3 of one evaluation"):
        evaluate(y_true=[0, 1, 1], predictions=many, utility=np.eye(2))
    with pytest.raises(ValueError, match=r"^confusions: 4 models, above the 3 of one evaluation"):
        evaluate({name: np.eye(2) for name in many}, np.eye(2))
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"classifiers": {name: [[1, 0], [0, 1]] for name in many}, "utility": [[1, 0], [0, 1]]}))
    assert main(["evaluate", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "4 models, above the 3 of one evaluation" in captured.err


def test_the_test_set_posterior_shows_its_progress(capsys):
    confusions = {f"m{k}": [[20 + k, 5], [5 - k, 20]] for k in range(5)}
    evaluate(confusions, np.eye(2), test_uncertainty=True, samples=5000, rng=1, progress=True)
    assert "draw" in capsys.readouterr().err
    evaluate(confusions, np.eye(2), test_uncertainty=True, samples=5000, rng=1)
    assert capsys.readouterr().err == ""
