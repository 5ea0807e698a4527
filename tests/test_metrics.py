"""The metric library against scikit-learn, and its registry, shapes and undefined values.

Layout reminder: mcrank's confusion matrices have the classifier output in rows and the true
class in columns, class 0 positive. scikit-learn never sees a matrix here: each count matrix
is turned into label arrays, so that no transposition can go wrong silently.
"""

from __future__ import annotations

import functools
import itertools
import warnings

import numpy as np
import pytest
import sklearn
from sklearn import metrics as skm

from mcrank.confusion import confusion_from_pab, from_sklearn
from mcrank.metrics import (
    INTERPRETED_MATRICES,
    METRICS,
    ORDER_MIN_CELL,
    PAPER_METRICS,
    Metric,
    _order_into,
    _score_into,
    get_metric,
    score,
)

#: Random count matrices compared with scikit-learn, each comparison exact (1e-12): 400 still
#: hold 17.5 % with a zero cell and a test set of 1,419 items, what the guard below asks for.
N_MATRICES = 400

#: The metrics with a two-class form (the n-class ones are tested in test_multiclass.py).
BINARY = [m.id for m in METRICS.values() if m.binary is not None]
FBETA_BETAS = (0.5, 2.0, 3.0)
TOL = dict(rtol=1e-12, atol=1e-12)


def _labels(counts):
    """``y_true`` and ``y_pred`` for one count matrix in mcrank's layout (rows = output)."""
    (c00, c01), (c10, c11) = np.asarray(counts, dtype=int)
    cells = [c00, c01, c10, c11]
    y_true = np.repeat([0, 1, 0, 1], cells)  # the column of each cell
    y_pred = np.repeat([0, 0, 1, 1], cells)  # the row of each cell
    return y_true, y_pred


def _random_counts(seed: int, n: int = N_MATRICES) -> np.ndarray:
    """Count matrices with every row and column sum positive, so that every metric is defined.

    Zero cells are allowed (and frequent for the small scales); sizes range over 1-500 per
    cell, log-uniformly, so both tiny and unbalanced test sets occur.
    """
    rng = np.random.default_rng(seed)
    kept = []
    while sum(len(k) for k in kept) < n:
        high = np.exp(rng.uniform(np.log(2), np.log(500), size=(n, 1, 1)))
        counts = rng.integers(0, high.astype(int) + 1, size=(n, 2, 2))
        ok = np.all(counts.sum(axis=-1) > 0, axis=-1) & np.all(counts.sum(axis=-2) > 0, axis=-1)
        kept.append(counts[ok])
    return np.concatenate(kept)[:n]


COUNTS = _random_counts(20240601)


# --- scikit-learn references, one per metric id ----------------------------------------------


def _per_matrix(function, counts=COUNTS):
    """``function(y_true, y_pred)`` for every count matrix, as an array."""
    with sklearn.config_context(skip_parameter_validation=True):
        return np.array([function(*_labels(c)) for c in counts])


@functools.cache
def _recall(label: int) -> np.ndarray:
    return _per_matrix(lambda t, p: skm.recall_score(t, p, pos_label=label))


@functools.cache
def _precision(label: int) -> np.ndarray:
    return _per_matrix(lambda t, p: skm.precision_score(t, p, pos_label=label))


# Each reference returns the expected values on COUNTS. The recalls and precisions per class
# are computed once and shared (scikit-learn's per-call overhead dominates the run time).
SKLEARN_REFERENCE = {
    "accuracy": lambda: _per_matrix(skm.accuracy_score),
    "tpr": lambda: _recall(0),
    "tnr": lambda: _recall(1),
    "precision": lambda: _precision(0),
    "npv": lambda: _precision(1),
    "balanced_accuracy": lambda: _per_matrix(skm.balanced_accuracy_score),
    "f1": lambda: _per_matrix(lambda t, p: skm.f1_score(t, p, pos_label=0)),
    "fbeta": None,  # by beta, below
    "mcc": lambda: _per_matrix(skm.matthews_corrcoef),
    "fowlkes_mallows": None,  # not sklearn's clustering index: by formula, below
    "gmean": lambda: np.sqrt(_recall(0) * _recall(1)),
    "informedness": lambda: _per_matrix(lambda t, p: skm.balanced_accuracy_score(t, p, adjusted=True)),
    "markedness": lambda: _precision(0) + _precision(1) - 1.0,
    "cohen_kappa": lambda: _per_matrix(skm.cohen_kappa_score),
}


def test_every_metric_has_a_reference():
    assert set(SKLEARN_REFERENCE) == set(BINARY)


def test_random_matrices_are_varied():
    assert COUNTS.shape == (N_MATRICES, 2, 2)
    assert np.mean(np.any(COUNTS == 0, axis=(-2, -1))) > 0.05
    assert COUNTS.sum(axis=(-2, -1)).max() > 500


@pytest.mark.parametrize("metric_id", [m for m, f in SKLEARN_REFERENCE.items() if f is not None])
@pytest.mark.slow
def test_metric_matches_sklearn(metric_id):
    expected = SKLEARN_REFERENCE[metric_id]()
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(score(metric_id, COUNTS), expected, **TOL)


@pytest.mark.parametrize("beta", FBETA_BETAS)
@pytest.mark.slow
def test_fbeta_matches_sklearn(beta):
    expected = _per_matrix(lambda t, p: skm.fbeta_score(t, p, beta=beta, pos_label=0))
    np.testing.assert_allclose(score("fbeta", COUNTS, beta=beta), expected, **TOL)


def test_fbeta_with_beta_one_is_f1():
    np.testing.assert_allclose(score("fbeta", COUNTS, beta=1.0), score("f1", COUNTS), **TOL)


def test_fowlkes_mallows_is_sqrt_of_precision_times_tpr():
    c = COUNTS.astype(float)
    tp, fp, fn = c[:, 0, 0], c[:, 0, 1], c[:, 1, 0]
    expected = np.sqrt(tp / (tp + fp) * (tp / (tp + fn)))
    np.testing.assert_allclose(score("fowlkes_mallows", COUNTS), expected, **TOL)


@pytest.mark.parametrize("metric_id", BINARY)
def test_counts_and_normalised_matrix_agree(metric_id):
    normalised = COUNTS / COUNTS.sum(axis=(-2, -1), keepdims=True)
    on_counts = score(metric_id, COUNTS, beta=2.0)
    np.testing.assert_allclose(score(metric_id, normalised, beta=2.0), on_counts, **TOL)


@pytest.mark.parametrize("metric_id", BINARY)
@pytest.mark.parametrize("scale", [1e-150, 1e150])
def test_scores_do_not_depend_on_the_scale_of_the_counts(metric_id, scale):
    """Products of sums in the definitions (MCC multiplies four) would under- or overflow
    here without the normalisation in ``score``."""
    on_counts = score(metric_id, COUNTS, beta=2.0)
    np.testing.assert_allclose(score(metric_id, COUNTS * scale, beta=2.0), on_counts, **TOL)


@pytest.mark.parametrize("metric_id", BINARY)
@pytest.mark.parametrize(
    "perfect",
    [[[1, 0], [0, 1e170]], [[1e170, 0], [0, 1]], [[1e-320, 0], [0, 1]], [[1e308, 0], [0, 1e308]]],
)
def test_perfect_classification_scores_one_for_cells_of_any_size(metric_id, perfect):
    """Every metric is 1 for a diagonal matrix (kappa too, with both classes present), here
    with cells 1e170 apart, subnormal, or summing beyond the largest float."""
    assert score(metric_id, np.array(perfect, dtype=float), beta=2.0) == pytest.approx(1.0, rel=1e-12)


# --- the (p, a, b) door -----------------------------------------------------------------------


def _random_pab(seed, n=2000):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.01, 0.99, n), rng.uniform(0, 1, n), rng.uniform(0, 1, n)


@pytest.mark.parametrize("metric_id", BINARY)
def test_from_pab_agrees_with_scoring_the_matrix(metric_id):
    p, a, b = _random_pab(7)
    metric = METRICS[metric_id]
    expected = score(metric_id, confusion_from_pab(p, a, b), beta=0.5)
    np.testing.assert_allclose(metric.from_pab(p, a, b, beta=0.5), expected, **TOL)


@pytest.mark.parametrize("metric_id", BINARY)
def test_kernel_score_into_agrees_with_from_pab(metric_id):
    """The engine's door, on cells written out here from the (p, TPR, TNR) form of docs/method.md."""
    p, a, b = _random_pab(8, n=200)
    metric = METRICS[metric_id]
    cells = [np.ascontiguousarray(c) for c in (p * a, (1 - p) * (1 - b), p * (1 - a), (1 - p) * b)]
    kernel = np.empty(p.size)
    _score_into(metric.code, tuple(cells), 2.0, kernel)
    np.testing.assert_allclose(kernel, metric.from_pab(p, a, b, beta=2.0), **TOL)


@pytest.mark.parametrize("metric_id", BINARY)
def test_kernel_score_into_gives_the_difference_of_two_matrices(metric_id):
    """Eight cells, C1 then C2, give m(C2) - m(C1): the engine's step 5 in one pass."""
    p, a1, b1 = _random_pab(9, n=200)
    _, a2, b2 = _random_pab(10, n=200)
    metric = METRICS[metric_id]
    first = [np.ascontiguousarray(c) for c in (p * a1, (1 - p) * (1 - b1), p * (1 - a1), (1 - p) * b1)]
    second = [np.ascontiguousarray(c) for c in (p * a2, (1 - p) * (1 - b2), p * (1 - a2), (1 - p) * b2)]
    difference = np.empty(p.size)
    _score_into(metric.code, (*first, *second), 2.0, difference)
    expected = metric.from_pab(p, a2, b2, beta=2.0) - metric.from_pab(p, a1, b1, beta=2.0)
    np.testing.assert_array_equal(difference, expected)
    assert np.all(difference != 0.0)


# --- the order forms: the sign of m(C2) - m(C1) without a division ---------------------------

#: How each metric follows from the ratio N/D of its order form, written out here from the
#: definitions in docs/method.md; each must be increasing.
FROM_RATIO = {
    "accuracy": lambda r: r,
    "tpr": lambda r: r,
    "tnr": lambda r: r,
    "precision": lambda r: r,
    "npv": lambda r: r,
    "balanced_accuracy": lambda r: r,
    "f1": lambda r: r,
    "fbeta": lambda r: r,
    "mcc": lambda r: np.sign(r) * np.sqrt(np.abs(r)),
    "fowlkes_mallows": np.sqrt,
    "gmean": np.sqrt,
    "informedness": lambda r: 2.0 * r - 1.0,
    "markedness": lambda r: r - 1.0,
    "cohen_kappa": lambda r: r,
}


def _orderable_cells(seed, n, smallest=ORDER_MIN_CELL):
    """Normalised matrices whose cells are log-uniform down to ``smallest``, as arrays of
    cells: from ordinary test sets to cells 30 orders of magnitude apart."""
    rng = np.random.default_rng(seed)
    spread = rng.choice([1.0, 0.5, 0.01], size=(1, n))  # test sets of every balance
    cells = np.exp(rng.uniform(np.log(4 * smallest), 0.0, size=(4, n)) * spread)
    cells /= cells.sum(axis=0)
    return [np.ascontiguousarray(c) for c in cells]


def test_every_metric_has_an_order_form():
    assert set(FROM_RATIO) == set(BINARY)


@pytest.mark.parametrize("metric_id", BINARY)
def test_order_ratio_gives_the_metric(metric_id):
    """Each metric is the documented increasing function of the ratio N/D, with D > 0."""
    metric = METRICS[metric_id]
    cells = _orderable_cells(11, 2000)
    ratios = [metric.order(*c, 2.0) for c in zip(*cells)]
    numerator, denominator = np.array(ratios).T
    assert np.all(denominator > 0)
    matrices = np.stack(cells, axis=-1).reshape(-1, 2, 2)
    np.testing.assert_allclose(FROM_RATIO[metric_id](numerator / denominator), score(metric_id, matrices, beta=2.0), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("metric_id", BINARY)
def test_order_into_has_the_sign_of_the_difference(metric_id):
    """On pairs far apart, near ties (C2 = C1 moved in the 10th digit) and exact ties, and with
    cells down to ORDER_MIN_CELL: the sign of m(C2) - m(C1) by the definitions, wherever that
    difference is beyond rounding."""
    metric = METRICS[metric_id]
    first = _orderable_cells(12, 3000)
    second = _orderable_cells(13, 3000)
    rng = np.random.default_rng(14)
    near = [c * (1 + 1e-10 * rng.standard_normal(c.size)) for c in first]
    near = [np.ascontiguousarray(c / sum(near)) for c in near]
    c1 = [np.concatenate((a, a, a)) for a in first]
    c2 = [np.concatenate((b, n, a)) for a, b, n in zip(first, second, near)]
    order = np.empty(c1[0].size)
    _order_into(metric.code, (*c1, *c2), 2.0, order)
    scores = [score(metric_id, np.stack(c, axis=-1).reshape(-1, 2, 2), beta=2.0) for c in (c1, c2)]
    difference = scores[1] - scores[0]
    clear = np.abs(difference) > 1e-13
    assert np.count_nonzero(clear[3000:6000]) > 1000, np.count_nonzero(clear[3000:6000])  # near ties told apart
    np.testing.assert_array_equal(np.sign(order[clear]), np.sign(difference[clear]))
    np.testing.assert_array_equal(order[-3000:], 0.0)  # C2 = C1: a tie


def test_order_into_holds_at_the_edge_of_its_domain():
    """Every pair of matrices whose cells are each 4 or 12 times ORDER_MIN_CELL, 1/2 or 1
    before normalising: the products of the order forms are smallest there. (With 1e-100
    in place of ORDER_MIN_CELL, MCC and Fowlkes-Mallows give thousands of wrong signs.)"""
    values = (4 * ORDER_MIN_CELL, 12 * ORDER_MIN_CELL, 0.5, 1.0)
    matrices = np.array(list(itertools.product(values, repeat=4))).T
    matrices /= matrices.sum(axis=0)
    i, j = np.meshgrid(np.arange(matrices.shape[1]), np.arange(matrices.shape[1]), indexing="ij")
    c1 = [np.ascontiguousarray(c[i.ravel()]) for c in matrices]
    c2 = [np.ascontiguousarray(c[j.ravel()]) for c in matrices]
    assert min(c.min() for c in c1) >= ORDER_MIN_CELL
    for metric_id, metric in ((m, METRICS[m]) for m in BINARY):
        order = np.empty(c1[0].size)
        _order_into(metric.code, (*c1, *c2), 2.0, order)
        scores = [score(metric_id, np.stack(c, axis=-1).reshape(-1, 2, 2), beta=2.0) for c in (c1, c2)]
        difference = scores[1] - scores[0]
        clear = np.abs(difference) > 1e-13
        wrong = np.count_nonzero(np.sign(order[clear]) != np.sign(difference[clear]))
        assert wrong == 0, f"{metric_id}: {wrong} wrong signs"


@pytest.mark.parametrize("beta", [1e-200, 1e-160, 1e-80, 1e80, 1e160, 1e200])
def test_fbeta_at_extreme_betas_is_precision_or_tpr_and_orders_alike(beta):
    """beta^2 underflows below 1e-154 and overflows above 1e154; F-beta tends to precision as
    beta -> 0 and to TPR as beta -> inf, and neither its definition nor its order form may
    give NaN or overflow on the way (the order form once did, from beta 1e77)."""
    first, second = _orderable_cells(15, 2000), _orderable_cells(16, 2000)
    matrices = [np.stack(c, axis=-1).reshape(-1, 2, 2) for c in (first, second)]
    limit = "precision" if beta < 1 else "tpr"
    for m in matrices:
        np.testing.assert_allclose(score("fbeta", m, beta=beta), score(limit, m), rtol=1e-12)
    order = np.empty(2000)
    _order_into(METRICS["fbeta"].code, (*first, *second), beta, order)
    difference = score("fbeta", matrices[1], beta=beta) - score("fbeta", matrices[0], beta=beta)
    clear = np.abs(difference) > 1e-13
    assert np.count_nonzero(clear) > 1900
    np.testing.assert_array_equal(np.sign(order[clear]), np.sign(difference[clear]))


@pytest.mark.parametrize("beta", [1e-200, 1e-160, 0.5, 1.0, 2.0, 1e160, 1e200])
def test_fbeta_without_true_positives_is_zero_at_every_beta(beta):
    """F-beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP) is 0 when TP = 0 and FN + FP > 0,
    for every finite beta (as scikit-learn's fbeta_score gives), even where a weight of FN or
    FP rounds to 0; 0/0, undefined, only when TP = FN = FP = 0."""
    for counts in ([[0, 0], [1, 1]], [[0, 1], [0, 1]], [[0, 3], [5, 7]]):
        assert score("fbeta", counts, beta=beta) == 0.0, counts
    assert np.isnan(score("fbeta", [[0, 0], [0, 4]], beta=beta))


def test_f1_of_subnormal_cells_is_two_tp_over_two_tp_plus_errors():
    """F1 = 2 TP / (2 TP + FN + FP) exactly, even for cells so small that halving them rounds."""
    tiny = 5e-324
    assert score("f1", [[tiny, tiny], [tiny, 1.0]]) == 0.5
    assert score("f1", [[0.0, 0.0], [tiny, 1.0]]) == 0.0


def test_order_into_gives_nan_for_an_unknown_code():
    out = np.zeros(3)
    _order_into(len(METRICS), (np.ones(3),) * 8, 1.0, out)
    assert np.all(np.isnan(out))


def test_kernel_score_into_gives_nan_for_an_unknown_code():
    out = np.zeros(3)
    _score_into(len(METRICS), (np.ones(3),) * 4, 1.0, out)
    assert np.all(np.isnan(out))


def test_from_pab_matches_the_formulas_of_the_spec():
    p, a, b = _random_pab(9)
    precision = p * a / (p * a + (1 - p) * (1 - b))
    c00, c01, c10, c11 = p * a, (1 - p) * (1 - b), p * (1 - a), (1 - p) * b
    expected = {
        "accuracy": p * a + (1 - p) * b,
        "tpr": a,
        "tnr": b,
        "precision": precision,
        "balanced_accuracy": (a + b) / 2,
        "f1": 2 * p * a / (2 * p * a + (1 - p) * (1 - b) + p * (1 - a)),
        "mcc": (c00 * c11 - c01 * c10) / np.sqrt((c00 + c01) * (c10 + c11) * p * (1 - p)),
        "fowlkes_mallows": np.sqrt(precision * a),
    }
    for metric_id, values in expected.items():
        np.testing.assert_allclose(get_metric(metric_id).from_pab(p, a, b), values, rtol=1e-10, atol=1e-12)


def test_from_pab_broadcasts():
    value = METRICS["accuracy"].from_pab(0.25, np.array([0.2, 0.6]), 0.8)
    np.testing.assert_allclose(value, [0.25 * 0.2 + 0.75 * 0.8, 0.25 * 0.6 + 0.75 * 0.8], **TOL)
    assert isinstance(METRICS["tpr"].from_pab(0.5, 0.7, 0.1), float)


# --- shapes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("metric_id", BINARY)
def test_stacked_matrices(metric_id):
    one_by_one = np.array([score(metric_id, c) for c in COUNTS[:60]])
    assert isinstance(score(metric_id, COUNTS[0]), float)
    stack = score(metric_id, COUNTS[:60])
    assert stack.shape == (60,)
    np.testing.assert_array_equal(stack, one_by_one)
    grid = score(metric_id, COUNTS[:60].reshape(5, 12, 2, 2))
    assert grid.shape == (5, 12)
    np.testing.assert_array_equal(grid.ravel(), one_by_one)
    # a non-contiguous view must give the same numbers
    transposed_twice = np.swapaxes(np.swapaxes(COUNTS[:60].reshape(5, 12, 2, 2), 0, 1), 0, 1)
    np.testing.assert_array_equal(score(metric_id, transposed_twice).ravel(), one_by_one)


def test_metric_call_and_metric_object_are_the_same_door():
    metric = METRICS["mcc"]
    np.testing.assert_array_equal(metric(COUNTS[:10]), score("mcc", COUNTS[:10]))
    np.testing.assert_array_equal(score(metric, COUNTS[:10]), score("mcc", COUNTS[:10]))


@pytest.mark.parametrize(
    "bad",
    [np.ones((3, 3)), np.ones(4), [[1, -1], [2, 3]], [[1, np.nan], [2, 3]], [[1, np.inf], [2, 3]]],
)
def test_bad_confusion_matrices_raise(bad):
    with pytest.raises(ValueError):
        score("precision", bad)


def test_a_binary_metric_refuses_more_classes_and_an_n_class_one_takes_them():
    with pytest.raises(ValueError, match=r"precision is a binary metric: it needs 2x2 confusion matrices, got shape \(3, 3\)"):
        score("precision", np.ones((3, 3)))
    assert score("accuracy", np.diag([1.0, 2.0, 3.0]) + 1.0) == pytest.approx(9.0 / 15.0)


@pytest.mark.parametrize("beta", [0.0, -1.0, np.nan, np.inf])
def test_bad_beta_raises(beta):
    with pytest.raises(ValueError):
        score("fbeta", [[1, 2], [3, 4]], beta=beta)


# --- undefined values -------------------------------------------------------------------------

# [[0, 0], [3, 4]]: the classifier never outputs class 0. Values by hand.
NEVER_POSITIVE = [[0, 0], [3, 4]]
NEVER_POSITIVE_EXPECTED = {
    "accuracy": 4 / 7,
    "tpr": 0.0,
    "tnr": 1.0,
    "precision": np.nan,
    "npv": 4 / 7,
    "balanced_accuracy": 0.5,
    "f1": 0.0,
    "fbeta": 0.0,
    "mcc": np.nan,
    "fowlkes_mallows": np.nan,
    "gmean": 0.0,
    "informedness": 0.0,
    "markedness": np.nan,
    "cohen_kappa": 0.0,
}


def test_never_positive_expected_covers_every_metric():
    assert set(NEVER_POSITIVE_EXPECTED) == set(BINARY)


@pytest.mark.parametrize("metric_id", BINARY)
def test_zero_division_is_nan_by_default_and_replaceable(metric_id):
    expected = NEVER_POSITIVE_EXPECTED[metric_id]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = score(metric_id, NEVER_POSITIVE)
        replaced = score(metric_id, NEVER_POSITIVE, zero_division=0.0)
        other = score(metric_id, NEVER_POSITIVE, zero_division=1)
        stacked = score(metric_id, np.array([NEVER_POSITIVE, [[1, 2], [3, 4]]]), zero_division=0.0)
    np.testing.assert_allclose(default, expected, **TOL)  # NaN only where NaN is expected
    np.testing.assert_allclose(replaced, 0.0 if np.isnan(expected) else expected, **TOL)
    np.testing.assert_allclose(other, 1.0 if np.isnan(expected) else expected, **TOL)
    assert np.isfinite(stacked).all() and stacked[0] == replaced


@pytest.mark.parametrize("value", [-7.0, 0.5, 2, "warn", "0", None, True, np.inf, [0]])
def test_zero_division_is_0_1_or_nan_as_in_sklearn(value):
    with pytest.raises(ValueError, match=r"zero_division must be 0, 1 or NaN \(as in scikit-learn\), got "):
        score("precision", NEVER_POSITIVE, zero_division=value)
    with pytest.raises(ValueError, match="zero_division must be 0, 1 or NaN"):
        METRICS["precision"].from_pab(1.0, 0.0, 0.5, zero_division=value)
    for allowed in (0, 1, 0.0, 1.0, np.nan, np.float32(1)):
        replaced = score("precision", NEVER_POSITIVE, zero_division=allowed)
        assert replaced == allowed or (np.isnan(replaced) and np.isnan(allowed))


def test_zero_division_agrees_with_sklearn_where_sklearn_has_the_option():
    y_true, y_pred = _labels(NEVER_POSITIVE)
    assert np.isnan(skm.precision_score(y_true, y_pred, pos_label=0, zero_division=np.nan))
    assert np.isnan(score("precision", NEVER_POSITIVE))
    sklearn_f1 = skm.f1_score(y_true, y_pred, pos_label=0, zero_division=np.nan)
    assert sklearn_f1 == score("f1", NEVER_POSITIVE) == 0.0
    assert skm.cohen_kappa_score(y_true, y_pred) == score("cohen_kappa", NEVER_POSITIVE) == 0.0


@pytest.mark.parametrize("metric_id", BINARY)
def test_all_zero_matrix_is_undefined_not_a_crash(metric_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(score(metric_id, np.zeros((2, 2))))
        assert score(metric_id, np.zeros((2, 2)), zero_division=0.0) == 0.0


# p = 0: class 0 absent from the test set, so TPR (and all built on it) is 0/0; balanced
# accuracy leaves the absent class out, as scikit-learn does (docs/method.md, "Finite test sets").
UNDEFINED_WITHOUT_CLASS_0 = {"tpr", "mcc", "fowlkes_mallows", "gmean", "informedness"}


@pytest.mark.parametrize("metric_id", BINARY)
def test_from_pab_without_class_0(metric_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = METRICS[metric_id].from_pab(0.0, 0.5, 0.5)
        replaced = METRICS[metric_id].from_pab(0.0, 0.5, 0.5, zero_division=0.0)
    assert np.isnan(value) == (metric_id in UNDEFINED_WITHOUT_CLASS_0)
    assert np.isfinite(replaced)
    if metric_id == "balanced_accuracy":
        assert value == 0.5  # the recall of class 1, the one present


def test_balanced_accuracy_without_a_class_is_scikit_learns():
    for y_true, y_pred in (([1, 1, 1], [0, 1, 1]), ([0, 0], [0, 1]), ([0, 0, 0], [0, 0, 0])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
            expected = skm.balanced_accuracy_score(y_true, y_pred)
        assert score("balanced_accuracy", from_sklearn(skm.confusion_matrix(y_true, y_pred, labels=[0, 1]))) == pytest.approx(expected)


# --- the registry -----------------------------------------------------------------------------


def test_registry_ids_and_codes():
    assert list(METRICS) == [
        "accuracy",
        "tpr",
        "tnr",
        "precision",
        "npv",
        "balanced_accuracy",
        "macro_f1",
        "micro_f1",
        "f1",
        "fbeta",
        "mcc",
        "fowlkes_mallows",
        "gmean",
        "informedness",
        "markedness",
        "cohen_kappa",
        "macro_precision",
    ]
    for position, (metric_id, metric) in enumerate(METRICS.items()):
        assert isinstance(metric, Metric)
        assert metric.id == metric_id
        assert metric.code == position
    assert set(PAPER_METRICS) <= set(METRICS)


@pytest.mark.parametrize(
    ("alias", "metric_id"),
    [
        ("recall", "tpr"),
        ("sensitivity", "tpr"),
        ("specificity", "tnr"),
        ("ppv", "precision"),
        ("youden_j", "informedness"),
        ("accuracy", "accuracy"),
        ("cohen_kappa", "cohen_kappa"),
    ],
)
def test_get_metric_aliases(alias, metric_id):
    assert get_metric(alias) is METRICS[metric_id]
    assert score(alias, [[1, 2], [3, 4]]) == score(metric_id, [[1, 2], [3, 4]])


@pytest.mark.parametrize("name", ["bogus", "Accuracy", "", "f2"])
def test_unknown_metric_raises_key_error_listing_known_ids(name):
    with pytest.raises(KeyError) as excinfo:
        get_metric(name)
    message = str(excinfo.value)
    assert repr(name) in message
    for metric_id in METRICS:
        assert metric_id in message
    with pytest.raises(KeyError):
        score(name, [[1, 2], [3, 4]])


EQUIVALENT_UM = {
    "accuracy": [[1.0, 0.0], [0.0, 1.0]],
    "tpr": [[1.0, 0.0], [0.0, 0.0]],
    "tnr": [[0.0, 0.0], [0.0, 1.0]],
}


@pytest.mark.parametrize("metric_id", BINARY)
def test_compliance_flags(metric_id):
    metric = METRICS[metric_id]
    if metric_id in EQUIVALENT_UM:
        assert metric.compliant is True
        assert metric.equivalent_um.shape == (2, 2)
        np.testing.assert_array_equal(metric.equivalent_um, EQUIVALENT_UM[metric_id])
    else:
        assert metric.compliant is False
        assert metric.equivalent_um is None


def test_ordinary_counts_are_scored_as_given_without_an_extra_rounding():
    # 3 / 9 in one division; dividing by the largest cell or the total first would round twice.
    assert score("tpr", [[3, 0], [6, 5]]) == 3 / 9
    assert score("precision", [[3, 6], [0, 5]]) == 3 / 9


@pytest.mark.parametrize("classes", [2, 3])
@pytest.mark.parametrize("metric_id", list(METRICS))
def test_a_few_matrices_score_as_many_do(metric_id, classes):
    """score() runs the kernels' Python functions for a few matrices (no numba to load) and
    the compiled kernels for many: the same values, undefined (0/0) cases included."""
    metric = METRICS[metric_id]
    if not metric.defined_for(classes):
        pytest.skip("a two-class metric")
    rng = np.random.default_rng(7)
    few = rng.integers(0, 4, size=(INTERPRETED_MATRICES, classes, classes)).astype(float)
    few[:3] = 0.0  # empty, then one row or column only: the undefined cases
    few[1, 0] = rng.integers(1, 5, size=classes)
    few[2, :, 0] = rng.integers(1, 5, size=classes)
    many = np.concatenate([few, few])
    interpreted_scores, compiled_scores = score(metric, few), score(metric, many)[: len(few)]
    np.testing.assert_array_equal(interpreted_scores, compiled_scores)
