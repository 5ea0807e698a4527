"""mcrank.decisions: eq. (20) against a direct NumPy argmax, eq. (31) against Bayes's theorem by hand."""

import re
import subprocess
import sys
from fractions import Fraction

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


def test_tiny_training_priors_give_the_decisions_of_bayes_theorem():
    # The case with a tiny but normal training prior, by hand. Item 0 has no
    # probability on class 0, so no prior can give it any: class 1. Item 1: weights
    # 0.2 * 0.5 / 1e-300 = 1e299 and 0.8 * 0.5 / 1 = 0.4, so p' = (1, 4e-300): class 0.
    # Multiplied out directly, such ratios overflow once a training prior is subnormal.
    probabilities = [[0.0, 1.0], [0.2, 0.8]]
    options = {"priors": [0.5, 0.5], "training_priors": [1e-300, 1.0]}
    assert optimal_decisions(probabilities, np.eye(2), **options).tolist() == [1, 0]
    corrected = base_rate_corrected(probabilities, **options)
    np.testing.assert_allclose(corrected, [[0.0, 1.0], [1.0, 4e-300]], rtol=1e-13, atol=0)
    # A tiny prior in use, even subnormal, only multiplies: p'_0 = 0.999 * 5e-324 / 0.001, a
    # subnormal (so compared to 1e-3), and the other class takes the item.
    tiny_in_use = base_rate_corrected([[0.999, 0.001]], priors=[5e-324, 1.0], training_priors=[0.5, 0.5])
    assert tiny_in_use[0, 1] == 1.0
    assert tiny_in_use[0, 0] == pytest.approx(float(Fraction(0.999) * Fraction(5e-324) / Fraction(0.001)), rel=1e-3)
    assert optimal_decisions([[0.999, 0.001]], np.eye(2), priors=[5e-324, 1.0], training_priors=[0.5, 0.5]).tolist() == [1]
    # Subnormal or zero training priors are refused by name, never turned into NaN decisions.
    for training in ([1e-320, 1.0], [0.0, 1.0], [5e-324, 1.0]):
        with pytest.raises(ValueError, match=r"^training_priors must be at least 2.23e-308"):
            optimal_decisions(probabilities, np.eye(2), priors=[0.5, 0.5], training_priors=training)


def _exact_corrected(p_row, priors, training):
    """Eq. (31) in exact rational arithmetic on the floats as stored."""
    weights = [Fraction(p) * Fraction(a) / Fraction(t) for p, a, t in zip(p_row, priors, training)]
    total = sum(weights)
    return [w / total for w in weights]


def test_prior_correction_against_exact_rational_arithmetic():
    # An independent oracle: Python's Fractions, exact on the floats given, over probabilities
    # and priors spanning 300 orders of magnitude (with zeros among both).
    rng = np.random.default_rng(31)
    n_classes, n_decisions = 4, 5
    decided_items = 0
    for case in range(40):
        probabilities = rng.dirichlet(np.full(n_classes, 0.3), size=25)
        probabilities[rng.random(probabilities.shape) < 0.15] = 0.0
        probabilities[:, 0] = 1.0 - probabilities[:, 1:].sum(axis=1)
        probabilities = np.abs(probabilities)
        probabilities[probabilities.sum(axis=1) == 0, 0] = 1.0
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        training = 10.0 ** rng.uniform(-300, 0, size=n_classes)
        training /= training.sum()
        training = np.maximum(training, 1e-305)  # normal, as required
        training /= training.sum()
        priors = 10.0 ** rng.uniform(-300, 0, size=n_classes)
        priors[rng.integers(n_classes)] = 0.0 if case % 3 == 0 else priors[0]
        priors /= priors.sum()
        utility = rng.integers(-3, 4, size=(n_decisions, n_classes)).astype(float)
        try:
            corrected = base_rate_corrected(probabilities, priors=priors, training_priors=training)
        except ValueError as error:  # an item wholly on the class of prior 0
            assert "no probability is left" in str(error)
            keep = (probabilities * (priors > 0)).sum(axis=1) > 0
            probabilities = probabilities[keep]
            corrected = base_rate_corrected(probabilities, priors=priors, training_priors=training)
        chosen = optimal_decisions(probabilities, utility, priors=priors, training_priors=training)
        for item, row in enumerate(probabilities):
            exact = _exact_corrected(row, priors, training)
            # Relative error of the log-space correction: about 1e-16 per unit of |log weight|.
            np.testing.assert_allclose(corrected[item], [float(q) for q in exact], rtol=1e-12, atol=1e-300)
            expected = [sum(Fraction(u) * q for u, q in zip(utility_row, exact)) for utility_row in utility]
            ranked = sorted(expected, reverse=True)
            if ranked[0] - ranked[1] > Fraction(1, 10**9):  # clear of rounding: the oracle decides
                assert chosen[item] == expected.index(ranked[0])
                decided_items += 1
    assert decided_items > 500


def test_utilities_near_the_float_limit_give_finite_expected_utilities():
    probabilities = np.random.default_rng(4).dirichlet(np.ones(3), size=100)
    utility = np.random.default_rng(5).uniform(-1, 1, size=(4, 3))
    huge = utility * 2.0**1020  # up to 1.1e307, so that sums of them would overflow
    huge[0, 0] = np.finfo(float).max
    utility[0, 0] = np.finfo(float).max / 2.0**1020
    np.testing.assert_array_equal(optimal_decisions(probabilities, huge), optimal_decisions(probabilities, utility))
    expected = expected_utilities(probabilities, huge)
    assert np.all(np.isfinite(expected))
    np.testing.assert_allclose(expected / 2.0**1020, expected_utilities(probabilities, utility), rtol=1e-12, atol=1e-300)


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
        ([["a", "b"]], np.eye(2), {}, "of numbers, got strings such as 'a'"),
        ([[0.5, 0.5]], [[1, np.inf], [0, 1]], {}, "utility contains NaN or infinite"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.5, 0.5]}, "give both priors and training_priors"),
        ([[0.5, 0.5]], np.eye(2), {"training_priors": [0.5, 0.5]}, "give both priors and training_priors"),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.2, 0.3, 0.5], "training_priors": [0.5, 0.5]}, "priors must have one entry per class (2)"),
        (
            [[0.5, 0.5]],
            np.eye(2),
            {"priors": [0.5, 0.5], "training_priors": [1.0, 0.0]},
            "training_priors must be at least 2.23e-308 (the smallest normal float; it divides the probabilities), got 0.0",
        ),
        (
            [[0.5, 0.5]],
            np.eye(2),
            {"priors": [0.5, 0.5], "training_priors": [1e-320, 1.0]},
            "training_priors must be at least 2.23e-308 (the smallest normal float; it divides the probabilities), got 1e-320",
        ),
        ([[0.5, 0.5]], np.eye(2), {"priors": [0.5, 0.5], "training_priors": [-0.5, 1.5]}, "training_priors must be non-negative"),
        (
            [[0.5, 0.5]],
            np.eye(2),
            {"priors": [0.5 + 1j, 0.5], "training_priors": [0.5, 0.5]},
            "priors must be an array of 2 class frequencies of real numbers, got complex values",
        ),
        (
            [[0.5, 0.5]],
            np.eye(2),
            {"priors": ["0.5", "0.5"], "training_priors": [0.5, 0.5]},
            "priors must be an array of 2 class frequencies of numbers, got strings such as '0.5'",
        ),
        ([[0.5, 0.5]], np.eye(2) + 1j, {}, "utility must be a matrix of shape (decisions, classes) of real numbers, got complex values"),
        ([[0.5, 0.5]], [[1, 0], [0]], {}, "utility must be a matrix of shape (decisions, classes) of numbers, with rows of equal length"),
        (
            [[0.5, 0.5]],
            [["1", "0"], ["0", "1"]],
            {},
            "utility must be a matrix of shape (decisions, classes) of numbers, got strings such as '1'",
        ),
        (
            [[0.5, 0.5]],
            [[1, "a"], [0, 1]],
            {},
            "utility must be a matrix of shape (decisions, classes) of numbers, got strings such as '1'",
        ),
        ([[0.5, 0.5]], "identity", {}, "utility must be a matrix of shape (decisions, classes) of numbers, got the string 'identity'"),
        ([[0.5, 0.5]], [[1, None], [0, 1]], {}, "utility must be a matrix of shape (decisions, classes) of real numbers, but holds None"),
        ([[0.5 + 0j, 0.5]], np.eye(2), {}, "probabilities must be an array of shape (items, classes) of real numbers, got complex values"),
        (
            [[0.5, 0.5], [1.0]],
            np.eye(2),
            {},
            "probabilities must be an array of shape (items, classes) of numbers, with rows of equal length",
        ),
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
