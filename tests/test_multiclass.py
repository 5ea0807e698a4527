"""Multi-class metrics against scikit-learn, which takes the transposed layout."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from mcrank.confusion import from_sklearn
from mcrank.metrics import METRICS, get_metric, margins, score

#: The metrics with an n-class form, by id.
N_CLASS = {m.id: m for m in METRICS.values() if m.general is not None}

#: Random count matrices compared with scikit-learn: each comparison is exact (1e-12), and 400
#: still hold 56 with a class missing from the truth, 16 with a class missing from both sides
#: and 33 undefined MCCs, the cases the guards below ask for (20, 5 and 1).
N_MATRICES = 400


def _labels(confusion):
    """(y_true, y_pred, sample_weight) whose scikit-learn confusion matrix is ``confusion.T``."""
    output, true = np.nonzero(confusion)
    return true, output, confusion[output, true]


def _random_confusions(seed):
    """Count matrices of 2 to 6 classes, sparse often enough that classes go missing."""
    rng = np.random.default_rng(seed)
    matrices = []
    for _ in range(N_MATRICES):
        n = int(rng.integers(2, 7))
        counts = rng.poisson(rng.uniform(0.2, 30.0), size=(n, n))
        counts[rng.random((n, n)) < rng.uniform(0.0, 0.6)] = 0
        if counts.sum() == 0:
            counts[0, 0] = 1
        matrices.append(counts)
    return matrices


def _sklearn_scores(confusion):
    y_true, y_pred, weight = _labels(confusion)
    with warnings.catch_warnings():
        # scikit-learn warns where a class is missing from y_true or y_pred; the comparisons
        # below check what it returns there.
        warnings.simplefilter("ignore")
        return {
            "accuracy": skm.accuracy_score(y_true, y_pred, sample_weight=weight),
            "balanced_accuracy": skm.balanced_accuracy_score(y_true, y_pred, sample_weight=weight),
            "macro_f1": skm.f1_score(y_true, y_pred, average="macro", sample_weight=weight),
            # Over the outputs that occur: a class never output has no precision (docs/method.md).
            "macro_precision": skm.precision_score(y_true, y_pred, labels=np.unique(y_pred), average="macro", sample_weight=weight),
            "micro_f1": skm.f1_score(y_true, y_pred, average="micro", sample_weight=weight),
            "mcc": skm.matthews_corrcoef(y_true, y_pred, sample_weight=weight),
            "cohen_kappa": skm.cohen_kappa_score(y_true, y_pred, sample_weight=weight),
        }


def test_layout_of_the_label_helper():
    confusion = np.array([[5, 1, 0], [2, 7, 3], [0, 4, 9]])
    y_true, y_pred, weight = _labels(confusion)
    sk = skm.confusion_matrix(y_true, y_pred, sample_weight=weight)
    np.testing.assert_array_equal(from_sklearn(sk), confusion)


@pytest.mark.slow
def test_metrics_agree_with_sklearn_on_random_count_matrices():
    confusions = _random_confusions(20240601)
    undefined_mcc = 0
    for confusion in confusions:
        expected = _sklearn_scores(confusion)
        for metric_id, metric in N_CLASS.items():
            # The n-class form, at n = 2 too (score() takes the two-class form there, whose
            # undefined values are tested in test_metrics.py).
            c = np.asarray(confusion, dtype=float)
            value = float(metric.general(c, margins(c)))
            reference = expected[metric_id]
            if metric_id == "mcc" and np.isnan(value):
                # mcrank's 0/0 is NaN; scikit-learn returns 0 there.
                undefined_mcc += 1
                assert reference == 0.0
                continue
            assert value == pytest.approx(reference, rel=1e-12, abs=1e-12, nan_ok=True), (metric_id, confusion.tolist())
    assert undefined_mcc > 0  # the degenerate case was exercised


def test_missing_classes_were_exercised():
    confusions = _random_confusions(20240601)
    missing_true = sum(np.any(c.sum(axis=0) == 0) for c in confusions)
    missing_both = sum(np.any((c.sum(axis=0) + c.sum(axis=1)) == 0) for c in confusions)
    assert missing_true > 20 and missing_both > 5


def test_stacks_give_the_same_as_one_matrix_at_a_time():
    rng = np.random.default_rng(7)
    stack = rng.integers(0, 20, size=(4, 5, 3, 3))
    for metric in N_CLASS.values():
        values = metric(stack)
        assert values.shape == (4, 5)
        for index in np.ndindex(4, 5):
            np.testing.assert_equal(values[index], metric(stack[index]))


def test_stacks_of_large_counts_give_the_same_as_one_matrix_at_a_time():
    # Products of totals beyond 2**53 round. The first matrix's total squared, 234037570**2,
    # lies halfway between two floats, where a numpy scalar's ** 2 once rounded the other way
    # than x * x: one matrix scored an ulp away from the same matrix in a stack.
    halfway = [[3031328, 47769653, 3199133], [54345806, 16578221, 80153189], [19787413, 6164974, 3007853]]
    random = np.random.default_rng(8).integers(0, 10**8, size=(200, 3, 3))
    stack = np.concatenate(([halfway], random)).astype(float)
    # Normalised matrices in a stack laid out in Fortran order, as np.moveaxis leaves one.
    normalised = np.random.default_rng(9).random((3, 3, 300))
    moved = np.moveaxis(normalised / normalised.sum(axis=(0, 1)), -1, 0)
    for metric in N_CLASS.values():
        for matrices in (stack, moved):
            values = metric(matrices)
            assert [metric(np.array(matrix)) for matrix in matrices] == values.tolist(), metric.id


@pytest.mark.parametrize("metric_id", ["accuracy", "balanced_accuracy", "mcc", "cohen_kappa"])
def test_binary_case_agrees_with_the_binary_library(metric_id):
    rng = np.random.default_rng(11)
    counts = rng.integers(0, 50, size=(300, 2, 2)).astype(float)
    counts[counts.sum(axis=(1, 2)) == 0] = 1.0
    np.testing.assert_allclose(
        [N_CLASS[metric_id].general(c, margins(c)) for c in counts], score(metric_id, counts), rtol=1e-12, equal_nan=True
    )


def test_invariant_under_scaling():
    confusion = np.array([[30, 2, 5], [4, 20, 1], [6, 3, 10]])
    for metric in N_CLASS.values():
        assert metric(confusion / confusion.sum()) == pytest.approx(metric(confusion), rel=1e-12)


def test_hand_computed_values():
    # rows = output, columns = true: true totals t = (10, 10, 10), output totals r = (12, 8, 10).
    confusion = np.array([[8, 2, 2], [1, 6, 1], [1, 2, 7]])
    assert score("accuracy", confusion) == pytest.approx(21 / 30)
    assert score("balanced_accuracy", confusion) == pytest.approx((0.8 + 0.6 + 0.7) / 3)
    assert score("macro_f1", confusion) == pytest.approx((16 / 22 + 12 / 18 + 14 / 20) / 3)
    assert score("micro_f1", confusion) == pytest.approx(21 / 30)
    chance = (12 * 10 + 8 * 10 + 10 * 10) / 900
    assert score("cohen_kappa", confusion) == pytest.approx((21 / 30 - chance) / (1 - chance))
    assert score("mcc", confusion) == pytest.approx((30 * 21 - 300) / np.sqrt((900 - 308) * (900 - 300)))


def test_undefined_values_are_nan():
    assert np.isnan(score("accuracy", np.zeros((3, 3))))
    assert np.isnan(score("balanced_accuracy", np.zeros((3, 3))))
    assert np.isnan(score("macro_f1", np.zeros((3, 3))))
    always_first = np.array([[5, 3, 2], [0, 0, 0], [0, 0, 0]])
    assert np.isnan(score("mcc", always_first))
    only_one_class = np.array([[4, 0, 0], [0, 0, 0], [0, 0, 0]])
    assert np.isnan(score("cohen_kappa", only_one_class))


def test_bad_matrices_are_rejected():
    with pytest.raises(ValueError, match="n x n"):
        score("accuracy", np.ones((2, 3)))
    with pytest.raises(ValueError, match="n x n"):
        score("accuracy", np.ones((1, 1)))
    with pytest.raises(ValueError, match="non-negative"):
        score("mcc", np.array([[1, -1], [0, 2]]))
    with pytest.raises(KeyError, match="known metrics: accuracy"):
        get_metric("auc")
