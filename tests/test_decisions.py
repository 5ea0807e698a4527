"""mcrank.decisions: eq. (20) against a direct NumPy argmax, eq. (31) against Bayes's theorem by hand."""

import re
import subprocess
import sys

import numpy as np
import pytest

from mcrank.decisions import base_rate_corrected, expected_utilities, optimal_decisions


def _random_case(rng, items, n_classes, n_decisions):
    probabilities = rng.dirichlet(np.ones(n_classes), size=items)
    utility = rng.normal(size=(n_decisions, n_classes))
    return probabilities, utility


@pytest.mark.parametrize(
    ("n_classes", "n_decisions"),
    [(2, 2), (3, 3), (5, 5), (2, 3), (3, 5), (4, 2), (1, 3), (6, 1)],
)
def test_optimal_decisions_are_the_argmax_of_expected_utility(n_classes, n_decisions):
    rng = np.random.default_rng(20 + 10 * n_classes + n_decisions)
    for _ in range(20):
        probabilities, utility = _random_case(rng, 200, n_classes, n_decisions)
        expected = probabilities @ utility.T
        np.testing.assert_allclose(expected_utilities(probabilities, utility), expected, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(optimal_decisions(probabilities, utility), np.argmax(expected, axis=1))


def test_ties_go_to_the_lowest_decision_index():
    # Dyadic probabilities and whole utilities: every expected utility is exact, so ties are
    # true ties in both computations.
    rng = np.random.default_rng(7)
    tied_items = 0
    for _ in range(50):
        n_classes, n_decisions = rng.integers(2, 5), rng.integers(2, 6)
        counts = rng.multinomial(8, np.ones(n_classes) / n_classes, size=100)
        probabilities = counts / 8.0
        utility = rng.integers(0, 3, size=(n_decisions, n_classes)).astype(float)
        expected = probabilities @ utility.T
        chosen = optimal_decisions(probabilities, utility)
        np.testing.assert_array_equal(chosen, np.argmax(expected, axis=1))
        best = expected.max(axis=1, keepdims=True)
        first = np.array([np.flatnonzero(row == row.max())[0] for row in expected])
        np.testing.assert_array_equal(chosen, first)
        tied_items += np.count_nonzero(np.sum(expected == best, axis=1) > 1)
    assert tied_items > 500, "the cases should hold many ties"


def test_identical_rows_of_utility_tie_exactly():
    # The same decision listed twice must tie on every item, whatever the rounding.
    rng = np.random.default_rng(3)
    probabilities, utility = _random_case(rng, 1000, 7, 4)
    doubled = np.vstack([utility[2], utility, utility[2]])
    chosen = optimal_decisions(probabilities, doubled)
    assert not np.any(chosen == 3) and not np.any(chosen == 5)  # row 0 always wins over rows 3 and 5


def test_identity_utility_chooses_the_most_probable_class():
    probabilities = np.random.default_rng(1).dirichlet(np.ones(4), size=300)
    np.testing.assert_array_equal(optimal_decisions(probabilities, np.eye(4)), np.argmax(probabilities, axis=1))


def test_rectangular_utility_with_a_decision_of_its_own():
    # treat / dismiss / test again; thresholds on p(ill) at 1/9 and 6/7 (worked by hand)
    utility = [[0.9, 0.6], [0.0, 1.0], [0.85, 0.9]]
    p_ill = np.array([0.0, 0.1, 0.12, 0.5, 0.85, 0.86, 1.0])
    probabilities = np.column_stack([p_ill, 1 - p_ill])
    assert optimal_decisions(probabilities, utility).tolist() == [1, 1, 2, 2, 2, 0, 0]


def test_prior_correction_is_bayes_theorem_by_hand():
    # Trained on a balanced sample, the classifier says p(ill | x) = 0.9; the disease strikes
    # 1 % of the people tested. Likelihood ratio p(x | ill) / p(x | healthy) = (0.9/0.5) / (0.1/0.5) = 9;
    # posterior odds 9 * 0.01/0.99 = 1/11, so p(ill | x) = 1/12.
    corrected = base_rate_corrected([[0.9, 0.1]], priors=[0.01, 0.99], training_priors=[0.5, 0.5])
    np.testing.assert_allclose(corrected, [[1 / 12, 11 / 12]], rtol=1e-12)
    # treat: 1 if ill, 0.8 if healthy; dismiss: 0 if ill, 1 if healthy. Treat when p(ill) > 1/6.
    utility = [[1.0, 0.8], [0.0, 1.0]]
    assert optimal_decisions([[0.9, 0.1]], utility).tolist() == [0]
    assert optimal_decisions([[0.9, 0.1]], utility, priors=[0.01, 0.99], training_priors=[0.5, 0.5]).tolist() == [1]


def test_prior_correction_with_three_classes_and_equal_priors():
    rng = np.random.default_rng(5)
    probabilities = rng.dirichlet(np.ones(3), size=50)
    same = base_rate_corrected(probabilities, priors=[0.2, 0.3, 0.5], training_priors=[0.2, 0.3, 0.5])
    np.testing.assert_allclose(same, probabilities, rtol=1e-12)
    priors, training = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    joint = probabilities * priors / training
    np.testing.assert_allclose(
        base_rate_corrected(probabilities, priors=priors, training_priors=training),
        joint / joint.sum(axis=1, keepdims=True),
        rtol=1e-12,
    )


def test_no_items_gives_no_decisions():
    chosen = optimal_decisions(np.empty((0, 2)), np.eye(2))
    assert chosen.shape == (0,) and chosen.dtype == np.intp


@pytest.mark.parametrize(
    ("probabilities", "utility", "options", "message"),
    [
        ([0.5, 0.5], np.eye(2), {}, "shape (items, classes)"),
        ([[0.5, 0.5]], [1, 0], {}, "shape (decisions, classes)"),
        ([[0.2, 0.3, 0.5]], np.eye(2), {}, "3 classes (columns) but utility has 2"),
        ([[0.5, 0.4]], np.eye(2), {}, "must sum to 1"),
        ([[1.5, -0.5]], np.eye(2), {}, "in [0, 1]"),
        ([[np.nan, 1.0]], np.eye(2), {}, "NaN"),
        ([["a", "b"]], np.eye(2), {}, "array of numbers"),
        ([[0.5, 0.5]], [[1, np.inf], [0, 1]], {}, "utility contains NaN or infinite"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.5, 0.5]}, "give both priors and training_priors"),
        ([[0.5, 0.5]], np.eye(2), {"training_priors": [0.5, 0.5]}, "give both priors and training_priors"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.2, 0.3, 0.5], "training_priors": [0.5, 0.5]}, "priors must have one entry per class (2)"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.5, 0.5], "training_priors": [1.0, 0.0]}, "training_priors must be positive"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.5, 0.6], "training_priors": [0.5, 0.5]}, "priors must sum to 1"),
        ([[1.0, 0.0]], np.eye(2), {"priors": [0.0, 1.0], "training_priors": [0.5, 0.5]}, "no probability is left"),
    ],
)
def test_bad_input_raises_one_line(probabilities, utility, options, message):
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        optimal_decisions(probabilities, utility, **options)
    assert "\n" not in str(caught.value)


def test_decisions_need_no_scikit_learn():
    code = "import sys, mcrank.decisions, mcrank.sklearn; sys.exit('sklearn' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
