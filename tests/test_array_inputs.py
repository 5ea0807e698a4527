"""Arrays as they enter the API (mcrank._validation.array_input, columns_input): a NumPy masked
array is refused, naming the argument (NumPy's conversions drop its mask); pandas DataFrames and
Series are taken as their arrays, and a DataFrame of columns as a dict of them."""

from __future__ import annotations

import numpy as np
import pytest

from mcrank.decisions import optimal_decisions
from mcrank.evaluate import evaluate, evaluate_predictions, scored_test_set
from mcrank.evaluate.curve_scores import average_precision, h_measure
from mcrank.evaluate.per_item import evaluate_per_item
from mcrank.evaluate.scoring import auc_score

pd = pytest.importorskip("pandas")

U = [[1, -1], [0, 0]]


def _masked(values):
    mask = np.zeros(np.shape(values), dtype=bool)
    mask.flat[0] = True
    return np.ma.masked_array(values, mask=mask)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: evaluate({"A": _masked([[30, 5], [5, 60]])}, U), "classifier 'A'"),
        (lambda: evaluate({"A": [[30, 5], [5, 60]]}, _masked(U)), "utility"),
        (lambda: auc_score([True, False], _masked([1.0, 2.0])), "scores"),
        (lambda: h_measure(_masked([True, False]), [1.0, 2.0]), "positive"),
        (lambda: optimal_decisions(_masked([[0.2, 0.8]]), U), "probabilities"),
        (lambda: evaluate_predictions(_masked([0, 1, 0, 1]), {"A": [0, 1, 1, 1]}, U), "y_true"),
        (lambda: evaluate_predictions([0, 1, 0, 1], {"A": _masked([0, 1, 1, 1])}, U), "classifier 'A'"),
        (lambda: evaluate_per_item([0, 1], {"m": [0, 1]}, _masked(np.tile(np.eye(2), (2, 1, 1)))), "utility"),
    ],
)
def test_a_masked_array_is_refused_naming_the_argument(call, named):
    with pytest.raises(ValueError, match=rf"^{named}.*a masked array is not accepted \(its mask would be ignored\)"):
        call()


def test_pandas_objects_are_taken_as_their_arrays():
    matrices = {"A": [[30, 5], [5, 60]], "B": [[20, 15], [15, 50]]}
    plain = evaluate(matrices, U)
    framed = evaluate({name: pd.DataFrame(m) for name, m in matrices.items()}, pd.DataFrame(U))
    assert [c.utility_yield for c in framed.classifiers] == [c.utility_yield for c in plain.classifiers]
    y, predictions = [0, 1, 0, 1, 1], {"A": [0, 1, 1, 1, 0], "B": [0, 0, 0, 1, 1]}
    plain = evaluate_predictions(y, predictions, U, classes=[0, 1])
    framed = evaluate_predictions(pd.Series(y), pd.DataFrame(predictions), U, classes=[0, 1])
    assert [(c.name, c.utility_yield) for c in framed.classifiers] == [(c.name, c.utility_yield) for c in plain.classifiers]
    scores = {"m": [0.1, 0.9, 0.4, 0.6, 0.7]}
    assert scored_test_set(pd.Series(y), pd.DataFrame(scores)).scores["m"].tolist() == scores["m"]
    assert average_precision(pd.Series(y).astype(bool), pd.Series(scores["m"])) == average_precision(np.array(y, bool), scores["m"])
    u = np.tile(np.eye(2), (5, 1, 1))
    assert evaluate_per_item(pd.Series(y), pd.DataFrame(predictions), u).yields == evaluate_per_item(y, predictions, u).yields
    assert optimal_decisions(pd.DataFrame([[0.2, 0.8], [0.9, 0.1]]), U).tolist() == [1, 0]


def test_a_long_name_is_cut_in_messages():
    name = "A" * 100_000
    with pytest.raises(ValueError) as error:
        evaluate({name: [[1, 2], [3]]}, U)
    assert len(str(error.value)) < 300 and "A" * 59 + "\u2026" in str(error.value)
