"""Per-item utilities (issue 31): the affine form, the per-item array, decisions and yields,
checked against plain NumPy written here."""

import json

import numpy as np
import pytest

from mcrank.decisions import optimal_decisions
from mcrank.evaluate.per_item import average_matrix, check_per_item, parse_affine, per_item_yield

FRAUD = {
    "classes": ["fraud", "legitimate"],
    "decisions": ["refuse", "accept"],
    "cells": {"refuse": {"fraud": 50, "legitimate": -5}, "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}},
}


def _fraud_oracle(amount):
    """U[k, i, j] of the gallery's fraud metric, cell by cell (rows refuse, accept; columns fraud, legitimate)."""
    u = np.empty((amount.shape[0], 2, 2))
    u[:, 0, 0], u[:, 0, 1], u[:, 1, 0], u[:, 1, 1] = 50, -5, -amount, 0.02 * amount
    return u


def test_affine_form_gives_the_cells_item_by_item():
    amount = np.array([10.0, 250.0, 3.5])
    utility = parse_affine(FRAUD)
    assert utility.classes == ("fraud", "legitimate") and utility.decisions == ("refuse", "accept")
    assert np.array_equal(utility.array({"amount": amount}), _fraud_oracle(amount))
    assert parse_affine(json.loads(json.dumps(utility.to_dict()))).array({"amount": amount}).tolist() == _fraud_oracle(amount).tolist()


def test_constant_plus_coefficients_and_rectangular():
    spec = {"classes": ["a", "b"], "decisions": ["x", "y", "check"],
            "cells": {"x": {"a": 1, "b": {"constant": 2, "v": 3, "w": -1}}, "y": {"a": 0, "b": 1},
                      "check": {"a": {"w": 0.5}, "b": 0.25}}}  # fmt: skip
    v, w = np.array([1.0, 2.0]), np.array([4.0, -2.0])
    u = parse_affine(spec).array({"v": v, "w": w, "unused": [1, 2]})
    assert u.shape == (2, 3, 2)
    assert u[:, 0, 1].tolist() == (2 + 3 * v - w).tolist() and u[:, 2, 0].tolist() == (0.5 * w).tolist()
    assert np.all(u[:, 1] == [0, 1])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["cells"]["accept"].update(other=1), "'other' is not a class"),
        (lambda s: s["cells"].update(block={"fraud": 1, "legitimate": 1}), "'block' is not a decision"),
        (lambda s: s["cells"]["refuse"].pop("fraud"), "refuse: fraud: not given"),
        (lambda s: s["cells"]["accept"].update(fraud={"amount": "x"}), "accept: fraud: amount: 'x' is not a finite number"),
        (lambda s: s["cells"]["accept"].update(fraud=float("nan")), "is not a finite number"),
        (lambda s: s.pop("classes"), "names its 'classes'"),
        (lambda s: s.update(extra=1), "unknown key 'extra'"),
    ],
)
def test_bad_affine_forms_are_refused_naming_the_place(change, message):
    spec = json.loads(json.dumps(FRAUD))
    change(spec)
    with pytest.raises(ValueError, match=message):
        parse_affine(spec, source="--utility")


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"price": [1.0]}, "no column 'amount'"),
        ({"amount": ["a", "b"]}, "column 'amount' is not numeric"),
        ({"amount": [1.0, float("nan")]}, "column 'amount' is nan at item 1"),
        ({"amount": [np.inf]}, "is inf at item 0"),
        ({"amount": [[1.0]]}, "one value per item"),
    ],
)
def test_bad_columns_are_refused(columns, message):
    with pytest.raises(ValueError, match=message):
        parse_affine(FRAUD).array(columns)


def test_per_item_arrays_of_the_wrong_shape_are_refused():
    with pytest.raises(ValueError, match=r"utility must have shape \(items, decisions, classes\)"):
        check_per_item(np.zeros((3, 2)), 3)
    with pytest.raises(ValueError, match="utility has 4 items"):
        check_per_item(np.zeros((4, 2, 2)), 3)
    with pytest.raises(ValueError, match="utility contains NaN"):
        check_per_item(np.full((3, 2, 2), np.nan), 3)
    with pytest.raises(ValueError, match="utility has 4 items"):
        optimal_decisions(np.full((3, 2), 0.5), np.zeros((4, 2, 2)))


def test_yield_and_average_matrix_against_numpy():
    rng = np.random.default_rng(5)
    amount = rng.lognormal(3, 1, 500)
    truth, decided = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    u = _fraud_oracle(amount)
    expected = np.mean([u[k, decided[k], truth[k]] for k in range(500)])
    assert per_item_yield(u, truth, decided) == pytest.approx(expected, rel=1e-14)
    assert np.allclose(average_matrix(u), [[50, -5], [-amount.mean(), 0.02 * amount.mean()]])


def test_decisions_per_item_are_the_argmax_of_each_items_expected_utility():
    rng = np.random.default_rng(7)
    amount = rng.lognormal(3, 1.5, 2000)
    p_fraud = rng.beta(0.5, 5, 2000)
    probabilities = np.column_stack([p_fraud, 1 - p_fraud])
    u = _fraud_oracle(amount)
    expected = [int(np.argmax([sum(u[k, i, j] * probabilities[k, j] for j in range(2)) for i in range(2)])) for k in range(2000)]
    assert optimal_decisions(probabilities, u).tolist() == expected
    # refuse exactly when 50 p - 5 (1 - p) > -amount p + 0.02 amount (1 - p)
    refuse = 50 * p_fraud - 5 * (1 - p_fraud) > -amount * p_fraud + 0.02 * amount * (1 - p_fraud)
    assert np.array_equal(optimal_decisions(probabilities, u) == 0, refuse)
    # a constant per-item array decides as its matrix; ties go to the lowest index
    matrix = np.array([[1.0, 0.0], [0.2, 1.0], [1.0, 0.0]])
    assert np.array_equal(optimal_decisions(probabilities, np.broadcast_to(matrix, (2000, 3, 2))), optimal_decisions(probabilities, matrix))
    assert optimal_decisions([[0.5, 0.5]], [[[1.0, 0.0], [0.0, 1.0]]]).tolist() == [0]
