"""The confusion-matrix convention: layout conversions and the (p, TPR, TNR) form."""

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix

from mcrank.confusion import confusion_from_pab, from_sklearn, normalise_confusion, pab_from_confusion, to_sklearn


def test_from_sklearn_puts_the_output_in_rows():
    y_true = [0, 0, 0, 1, 1]
    y_pred = [0, 1, 1, 1, 0]
    # Typed by hand in mcrank's layout: rows = output, columns = true class.
    expected = np.array([[1, 1], [2, 1]])
    converted = from_sklearn(confusion_matrix(y_true, y_pred))
    np.testing.assert_array_equal(converted, expected)
    np.testing.assert_array_equal(to_sklearn(converted), confusion_matrix(y_true, y_pred))


def test_pab_round_trip_and_the_story_matrix():
    p, a, b = pab_from_confusion(np.array([[27, 15], [23, 35]]))
    assert (p, a, b) == pytest.approx((0.5, 0.54, 0.70))
    np.testing.assert_allclose(confusion_from_pab(p, a, b), [[0.27, 0.15], [0.23, 0.35]], atol=1e-15)


def test_pab_with_a_missing_class_gives_nan_rates():
    p, a, b = pab_from_confusion(np.array([[3.0, 0.0], [1.0, 0.0]]))
    assert p == 1.0 and a == 0.75 and np.isnan(b)


@pytest.mark.parametrize("bad", [[[1, -1], [0, 1]], [[np.nan, 1], [0, 1]], [[0, 0], [0, 0]], [[1, 2, 3]]])
def test_normalise_confusion_refuses_bad_matrices(bad):
    with pytest.raises(ValueError):
        normalise_confusion(bad)


def test_confusion_from_pab_refuses_values_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"^tpr must lie in \[0, 1\], got 1.2$"):
        confusion_from_pab(0.5, 1.2, 0.9)
    # NaN passed the check, and gave matrices of NaN.
    for args, name in (((0.5, np.nan, 0.5), "tpr"), ((0.5, 0.5, [0.5, np.nan]), "tnr"), ((np.nan, 0.5, 0.5), "p")):
        with pytest.raises(ValueError, match=rf"^{name} must lie in \[0, 1\], got nan$"):
            confusion_from_pab(*args)
