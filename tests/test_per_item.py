"""Per-item utilities (issue 31): the affine form, the per-item array, decisions and yields,
checked against plain NumPy written here."""

import json

import numpy as np
import pytest

from mcrank.decisions import optimal_decisions
from mcrank.evaluate.per_item import average_matrix, check_per_item, evaluate_per_item, parse_affine, per_item_yield

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


def _joint_oracle(truth, outputs, utility, prior_count, samples, rng):
    """Draws of each model's yield under Dirichlet(counts + C / cells) over the full joint table
    (true class, every model's output), with a constant utility matrix: plain NumPy."""
    n = utility.shape[1]
    m = len(outputs)
    codes = truth.copy()
    for out in outputs:
        codes = codes * n + out
    cells = n ** (m + 1)
    counts = np.bincount(codes, minlength=cells)
    grid = np.array(np.unravel_index(np.arange(cells), (n,) * (m + 1)))  # row 0: true class, then outputs
    values = np.column_stack([utility[grid[1 + k], grid[0]] for k in range(m)])
    weights = rng.dirichlet(counts + prior_count / cells, size=samples)
    return weights @ values


@pytest.mark.parametrize(("n_items", "prior_count"), [(300, 1.0), (30, 20.0)])  # the second: the prior weighs
def test_constant_utility_gives_the_joint_cell_posterior(n_items, prior_count):
    from mcrank.evaluate import ItemLabels, evaluate
    from mcrank.evaluate.per_item import bayesian_bootstrap

    rng = np.random.default_rng(11)
    samples = 20000
    truth = rng.integers(0, 2, n_items)
    a = np.where(rng.random(n_items) < 0.8, truth, 1 - truth)
    b = np.where(rng.random(n_items) < 0.74, truth, 1 - truth)
    matrix = np.array([[1.0, -0.5], [-2.0, 0.4]])
    u = np.broadcast_to(matrix, (n_items, 2, 2))
    ours = bayesian_bootstrap(u, truth, {"A": a, "B": b}, samples=samples, prior_count=prior_count, rng=5)
    oracle = _joint_oracle(truth, [a, b], matrix, prior_count, samples, np.random.default_rng(6))
    confusions = {name: np.bincount(d * 2 + truth, minlength=4).reshape(2, 2) for name, d in (("A", a), ("B", b))}
    labels = ItemLabels(truth, {"A": a, "B": b})
    existing = evaluate(confusions, matrix, labels=labels, test_uncertainty=True, prior_count=prior_count, samples=samples, rng=7)
    for k, name in enumerate(("A", "B")):
        sd = oracle[:, k].std()
        # SE of a 2.5 % quantile of `samples` draws, of a near-normal posterior, for each of two estimates
        se = np.sqrt(2 * 0.025 * 0.975 / samples) / 0.0584 * sd
        interval = next(c.utility_yield_interval for c in existing.classifiers if c.name == name)
        for q, low_high in zip((0.025, 0.975), zip(ours.intervals[name], interval, strict=True), strict=True):
            assert abs(low_high[0] - low_high[1]) < 4 * se, (name, q, low_high)
            assert abs(low_high[0] - np.quantile(oracle[:, k], q)) < 4 * se
    pair = existing.pairs[0]
    i, j = (0, 1) if pair.better == "A" else (1, 0)
    above = ours.probability_above[i, j]
    assert abs(above - (1 - pair.flip_probability_test)) < 4 * np.sqrt(above * (1 - above) / samples)
    best = (oracle[:, 0] > oracle[:, 1]).mean()
    se = np.sqrt(2 * best * (1 - best) / samples)
    assert abs(ours.probability_best["A"] - best) < 4 * se


def test_bootstrap_without_the_items_array_in_memory_agrees_with_direct_draws():
    from mcrank.evaluate.per_item import dirichlet_weighted_means

    rng = np.random.default_rng(2)
    values = rng.normal(size=(5000, 2))
    draws = dirichlet_weighted_means(values, 3000, np.random.default_rng(3))
    direct = np.random.default_rng(4).dirichlet(np.ones(5000), size=3000) @ values
    se = draws.std(axis=0) * np.sqrt(2 / 3000)
    assert np.all(np.abs(draws.mean(axis=0) - direct.mean(axis=0)) < 4 * se)
    assert np.allclose(draws.std(axis=0), direct.std(axis=0), rtol=4 * np.sqrt(1 / 3000))


def test_evaluate_per_item_yields_average_matrix_and_flags():
    from mcrank.evaluate.per_item import evaluate_per_item

    # Two models with the same confusion matrix whose errors land on different items.
    amount = np.array([1000.0, 10.0, 20.0, 30.0, 40.0, 50.0])
    y_true = ["fraud", "fraud", "legitimate", "legitimate", "legitimate", "legitimate"]
    misses_big = ["accept", "refuse", "accept", "accept", "accept", "accept"]
    misses_small = ["refuse", "accept", "accept", "accept", "accept", "accept"]
    result = evaluate_per_item(y_true, {"big": misses_big, "small": misses_small}, FRAUD, columns={"amount": amount})
    u = _fraud_oracle(amount)
    assert result.yields["big"] == pytest.approx((-1000 + 50 + 0.02 * 140) / 6)
    assert result.yields["small"] == pytest.approx((50 - 10 + 0.02 * 140) / 6)
    assert result.ranks == {"small": 1, "big": 2}
    assert np.allclose(result.average_matrix, u.mean(axis=0))
    assert result.average_yields["big"] == result.average_yields["small"]  # same confusion matrix
    assert result.scores["accuracy"]["big"] == result.scores["accuracy"]["small"]
    assert "small" in str(result) and "Average-cost matrix" in str(result)
    with pytest.raises(ValueError, match="no column 'amount'"):
        evaluate_per_item(y_true, {"a": misses_big}, FRAUD, columns={"price": amount})
    with pytest.raises(ValueError, match="label 'block' is not one of refuse, accept"):
        evaluate_per_item(y_true, {"a": ["block"] * 6}, FRAUD, columns={"amount": amount})


def test_the_average_matrix_misranks_where_errors_land_on_large_amounts():
    from mcrank.evaluate.per_item import evaluate_per_item

    amount = np.array([5000.0, 10.0, 10.0, 10.0])
    y_true = ["fraud", "fraud", "legitimate", "legitimate"]
    # "cautious" refuses a legitimate item too (worse confusion matrix) but catches the big fraud
    result = evaluate_per_item(
        y_true,
        {"cautious": ["refuse", "accept", "refuse", "accept"], "lucky": ["accept", "refuse", "accept", "accept"]},
        FRAUD,
        columns={"amount": amount},
    )
    assert result.ranks == {"cautious": 1, "lucky": 2}
    assert result.average_ranks == {"cautious": 2, "lucky": 1}
    assert result.disagreements["average-cost matrix"] == [("cautious", "lucky")]


def test_too_many_models_for_the_joint_table_and_undefined_metrics_in_json():
    import json

    from mcrank.evaluate.per_item import bayesian_bootstrap, evaluate_per_item

    u = np.zeros((4, 2, 2))
    with pytest.raises(ValueError, match="test_uncertainty: 16 models make a joint table of 131,072 cells"):
        bayesian_bootstrap(u, np.zeros(4, dtype=int), {f"m{k}": np.zeros(4, dtype=int) for k in range(16)}, samples=10)
    # a model that never refuses has no precision: null in JSON, not NaN
    result = evaluate_per_item(["fraud", "legitimate"], {"a": ["accept", "accept"]}, FRAUD, columns={"amount": [1.0, 2.0]})
    assert json.loads(json.dumps(result.to_dict(), allow_nan=False))["classifiers"][0]["precision"] is None


# --- hostile inputs (issue 42): one clear ValueError, no NumPy warning ---------------------------

_Y = np.array([0, 1, 0, 1])
_MODELS = {"m": [0, 1, 1, 1], "n": [0, 0, 0, 1]}


def _diagonal(scale: float = 1.0) -> np.ndarray:
    u = np.zeros((4, 2, 2))
    u[:, 0, 0] = u[:, 1, 1] = scale
    return u


def test_utilities_whose_sum_overflows_are_named_without_a_warning():
    u = _diagonal()
    u[2] *= 1e307
    with pytest.raises(ValueError, match=r"utility: the utilities of item 2 \(up to 1e\+307"):
        evaluate_per_item(_Y, _MODELS, u)  # warnings are errors here: none was given first


@pytest.mark.parametrize(
    ("options", "message"),
    [({"prior_count": float("nan")}, "prior_count must be finite"), ({"samples": 0}, "samples must be a whole number"),
     ({"samples": 10**9}, "samples: 1,000,000,000 draws would hold 14.9 GiB")],
)  # fmt: skip
def test_bad_posterior_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        evaluate_per_item(_Y, _MODELS, _diagonal(), test_uncertainty=True, **options)


def test_predictions_not_a_dict_and_an_integer_of_400_digits_are_refused():
    with pytest.raises(ValueError, match="predictions must be a dict of model name to decisions, got a list"):
        evaluate_per_item(_Y, [[0, 1, 1, 1]], _diagonal())
    utility = {"classes": ["a", "b"], "cells": {"a": {"a": 10**400, "b": 0}, "b": {"a": 0, "b": 1}}}
    with pytest.raises(ValueError, match="utility: cells: a: a: a number too large for a floating-point number"):
        evaluate_per_item(["a", "b"], {"m": ["a", "a"]}, utility)
