"""The space of binary utility matrices (paper §3.2, eqs. 11-12), utility yield and eq. (17)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcrank.utility_space import (
    IDENTITY_UM,
    TNR_UM,
    TPR_UM,
    _um_from_xy,
    expected_um,
    in_hexagon,
    normalise_um,
    um_from_xy,
    utility_yield,
    xy_from_um,
)

# Deterministic: the same examples on every run, nothing written to the tree.
PROPERTY = settings(max_examples=400, derandomize=True, database=None, deadline=None)

#: The six corners of the hexagon |x| <= 1, |y| <= 1, |y - x| <= 1.
VERTICES = [(1.0, 1.0), (0.0, 1.0), (-1.0, 0.0), (-1.0, -1.0), (0.0, -1.0), (1.0, 0.0)]

#: Landmarks of docs/method.md, typed from it: (x, y) -> normalised utility matrix.
LANDMARKS = {
    (0.0, 0.0): [[1.0, 0.0], [0.0, 1.0]],  # identity: accuracy
    (-1.0, 0.0): [[1.0, 0.0], [0.0, 0.0]],  # TPR
    (1.0, 0.0): [[0.0, 0.0], [0.0, 1.0]],  # TNR
    (0.0, 1.0): [[1.0, 1.0], [0.0, 1.0]],
    (0.0, -1.0): [[1.0, 0.0], [1.0, 1.0]],
}


def _typed_in_hexagon(x, y):
    return abs(x) <= 1 and abs(y) <= 1 and abs(y - x) <= 1


unit = st.floats(-1.0, 1.0, allow_nan=False)


@st.composite
def hexagon_interior_or_boundary(draw):
    x = draw(unit)
    y = draw(st.floats(max(-1.0, x - 1.0), min(1.0, x + 1.0)))
    return x, y


@st.composite
def hexagon_edge(draw):
    """A point on one of the six edges of the hexagon."""
    t = draw(st.floats(0.0, 1.0))
    (x0, y0), (x1, y1) = draw(st.sampled_from(list(zip(VERTICES, VERTICES[1:] + VERTICES[:1]))))
    return x0 + t * (x1 - x0), y0 + t * (y1 - y0)


@st.composite
def hexagon_diagonal_edge(draw):
    """A point at or next to a diagonal edge y - x = +-1, built from y so that 1 + x and y can
    differ by an ulp (the places where rounding can break the ordering of eq. 12)."""
    y = draw(st.floats(0.0, 1.0))
    x = y - 1.0
    for _ in range(draw(st.integers(0, 2))):
        x = np.nextafter(x, 0.0)
    sign = draw(st.sampled_from([1.0, -1.0]))
    return float(sign * x), float(sign * y)


hexagon_points = st.one_of(
    st.sampled_from(VERTICES + list(LANDMARKS)),
    hexagon_diagonal_edge().filter(lambda p: _typed_in_hexagon(*p)),
    # rounding in the interpolation can leave a diagonal edge by one ulp
    hexagon_edge().filter(lambda p: _typed_in_hexagon(*p)),
    hexagon_interior_or_boundary(),
    st.tuples(st.just(0.0), unit),  # x = 0: the switch of the x cases
    st.tuples(unit, st.just(0.0)),  # y = 0: both off-diagonals 0
)


def _eq12(x, y):
    """Eq. (12), written again here so that um_from_xy is checked against the paper."""
    return np.array(
        [
            [1 - x * (x > 0), y * (y > 0)],
            [-y * (y < 0), 1 + x * (x < 0)],
        ],
        dtype=float,
    )


# --- the map and its inverse ------------------------------------------------------------------


@PROPERTY
@given(hexagon_points)
def test_um_from_xy_is_eq12_normalised_and_ordered(point):
    x, y = point
    assert _typed_in_hexagon(x, y)
    u = um_from_xy(x, y)
    assert u.shape == (2, 2)
    # equal to eq. (12) up to the clamp that keeps diagonal-edge points ordered (one ulp)
    np.testing.assert_allclose(u, _eq12(x, y), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(_um_from_xy(x, y), u[[0, 0, 1, 1], [0, 1, 0, 1]])
    assert u.min() == 0.0 and u.max() == 1.0
    assert u[0, 0] >= u[1, 0] and u[1, 1] >= u[0, 1]
    np.testing.assert_array_equal(normalise_um(u), u)


@PROPERTY
@given(hexagon_points)
def test_round_trip_over_the_whole_hexagon(point):
    x, y = point
    x_back, y_back = xy_from_um(um_from_xy(x, y))
    assert abs(x_back - x) <= 1e-12
    assert abs(y_back - y) <= 1e-12


@PROPERTY
@given(
    hexagon_points,
    st.floats(1e-2, 1e2),
    st.floats(-1e2, 1e2),
)
@example((0.3, -0.4), 1e-2, 1e2)
@example((-1.0, 0.0), 500.0, -335.0)
def test_round_trip_through_an_affine_map(point, scale, shift):
    x, y = point
    u = um_from_xy(x, y)
    v = scale * u + shift
    # Rounding in scale * u + shift, relative to the span `scale`, bounds the error.
    tol = 1e-12 * (1 + abs(shift) / scale)
    np.testing.assert_allclose(normalise_um(v), u, rtol=0, atol=tol)
    x_back, y_back = xy_from_um(v)
    assert abs(x_back - x) <= tol
    assert abs(y_back - y) <= tol


@PROPERTY
@given(
    st.lists(st.floats(-10, 10), min_size=4, max_size=4).filter(lambda v: max(v) - min(v) > 1e-3),
    st.floats(1e-2, 1e2),
    st.floats(-1e2, 1e2),
)
def test_normalise_um_is_invariant_under_affine_maps(values, scale, shift):
    u = np.array(values).reshape(2, 2)
    normalised = normalise_um(u)
    assert normalised.min() == 0.0 and normalised.max() == 1.0
    tol = 1e-12 * (1 + abs(shift) / scale) * (1 + np.abs(u).max() / (u.max() - u.min()))
    np.testing.assert_allclose(normalise_um(scale * u + shift), normalised, rtol=0, atol=tol)


def test_vectorised_round_trip_on_a_grid():
    grid = np.linspace(-1, 1, 41)
    x, y = np.meshgrid(grid, grid)
    inside = (np.abs(x) <= 1) & (np.abs(y) <= 1) & (np.abs(y - x) <= 1)
    x, y = x[inside], y[inside]
    u = um_from_xy(x, y)
    assert u.shape == (x.size, 2, 2)
    x_back, y_back = xy_from_um(u)
    np.testing.assert_allclose(x_back, x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y_back, y, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(in_hexagon(x, y), np.ones(x.size, dtype=bool))


# Points of a 0.05 grid on the diagonal edges where, in floating point, y - x == +-1 but
# 1 + x < y (or 1 - x < -y): without care eq. (12) gives U11 < U01 (or U00 < U10) by an ulp.
@pytest.mark.parametrize(
    "xy",
    [
        (-0.9, 0.10000000000000009),
        (-0.35, 0.6500000000000001),
        (0.10000000000000009, -0.9),
        (0.9500000000000002, -0.04999999999999993),
    ],
)
def test_round_trip_on_diagonal_edge_points_with_rounding(xy):
    x, y = xy
    assert in_hexagon(x, y)
    u = um_from_xy(x, y)
    assert u[0, 0] >= u[1, 0] and u[1, 1] >= u[0, 1]
    x_back, y_back = xy_from_um(u)
    assert abs(x_back - x) <= 1e-12 and abs(y_back - y) <= 1e-12


@pytest.mark.parametrize(("xy", "matrix"), LANDMARKS.items())
def test_landmarks(xy, matrix):
    np.testing.assert_array_equal(um_from_xy(*xy), matrix)
    x, y = xy_from_um(matrix)
    assert (x, y) == xy
    x, y = xy_from_um(7.0 * np.array(matrix) - 3.0)  # the same matrix in other units
    assert abs(x - xy[0]) <= 1e-12 and abs(y - xy[1]) <= 1e-12


def test_named_matrices():
    np.testing.assert_array_equal(IDENTITY_UM, [[1, 0], [0, 1]])
    np.testing.assert_array_equal(TPR_UM, [[1, 0], [0, 0]])
    np.testing.assert_array_equal(TNR_UM, [[0, 0], [0, 1]])


# Eq. (4) normalised: (U + 335) / 500 = [[0.7, 0], [0.6, 1]], so (x, y) = (0.3, -0.6).
# Eq. (5): [[380, 0], [270, 500]] / 500 = [[0.76, 0], [0.54, 1]], so (0.24, -0.54).
# Eq. (6) is eq. (4) + 335: the same point.
@pytest.mark.parametrize(
    ("matrix", "xy"),
    [
        ([[15, -335], [-35, 165]], (0.3, -0.6)),
        ([[45, -335], [-65, 165]], (0.24, -0.54)),
        ([[350, 0], [300, 500]], (0.3, -0.6)),
    ],
)
def test_story_matrices_in_the_hexagon(matrix, xy):
    x, y = xy_from_um(matrix)
    assert x == pytest.approx(xy[0], abs=1e-12)
    assert y == pytest.approx(xy[1], abs=1e-12)


# --- outside the domain -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "xy",
    [
        (1.0, -0.5),
        (-0.5, 0.8),
        (1.1, 0.5),
        (0.0, 1.0000001),
        (-1.0000001, 0.0),
        (0.6, -0.41),
        (np.nan, 0.0),
        (0.0, np.inf),
    ],
)
def test_points_outside_the_hexagon_raise(xy):
    with pytest.raises(ValueError):
        um_from_xy(*xy)
    with pytest.raises(ValueError):
        um_from_xy(np.array([0.0, xy[0]]), np.array([0.0, xy[1]]))


@PROPERTY
@given(st.floats(-2, 2), st.floats(-2, 2))
def test_in_hexagon_and_um_from_xy_agree_with_the_definition(x, y):
    inside = _typed_in_hexagon(x, y)
    assert in_hexagon(x, y) is inside
    if inside:
        um_from_xy(x, y)
    else:
        with pytest.raises(ValueError):
            um_from_xy(x, y)


@pytest.mark.parametrize(
    "matrix",
    [[[2.0, 2.0], [2.0, 2.0]], [[0.0, 0.0], [0.0, 0.0]], [[[1, 0], [0, 1]], [[-4, -4], [-4, -4]]]],
)
def test_constant_matrix_has_no_normalisation(matrix):
    with pytest.raises(ValueError):
        normalise_um(matrix)


def test_constant_matrix_has_no_place_in_the_hexagon():
    with pytest.raises(ValueError):
        xy_from_um([[3.0, 3.0], [3.0, 3.0]])


@pytest.mark.parametrize(
    "matrix",
    [
        [[0.0, 0.0], [1.0, 1.0]],  # U00 < U10
        [[0.2, 0.9], [0.5, 0.0]],  # U00 < U10 and U11 < U01
        [[1.0, 1.0], [0.0, 0.5]],  # U11 < U01
    ],
)
def test_matrix_rewarding_misclassification(matrix):
    x, y = xy_from_um(matrix, invalid="nan")
    assert np.isnan(x) and np.isnan(y)
    with pytest.raises(ValueError):
        xy_from_um(matrix)
    with pytest.raises(ValueError):
        xy_from_um(matrix, invalid="raise")
    # in a stack, only the bad matrix becomes NaN
    x, y = xy_from_um(np.array([matrix, [[1.0, 0.0], [0.0, 0.0]]]), invalid="nan")
    assert np.isnan(x[0]) and np.isnan(y[0])
    assert (x[1], y[1]) == (-1.0, 0.0)


def test_xy_from_um_rejects_bad_arguments():
    with pytest.raises(ValueError):
        xy_from_um(IDENTITY_UM, invalid="bogus")
    with pytest.raises(ValueError):
        xy_from_um(np.eye(3))
    with pytest.raises(ValueError):
        xy_from_um([[1.0, np.nan], [0.0, 1.0]])


# --- utility yield, eq. (9) -------------------------------------------------------------------

A = [[0.27, 0.15], [0.23, 0.35]]
B = [[0.43, 0.18], [0.07, 0.32]]


@pytest.mark.parametrize(
    ("utility", "yield_a", "yield_b"),
    [
        # 15*.27 - 335*.15 - 35*.23 + 165*.35 = 4.05 - 50.25 - 8.05 + 57.75
        ([[15, -335], [-35, 165]], 3.5, -3.5),
        # 45*.27 - 335*.15 - 65*.23 + 165*.35 = 12.15 - 50.25 - 14.95 + 57.75
        ([[45, -335], [-65, 165]], 4.7, 7.3),
        ([[350, 0], [300, 500]], 338.5, 331.5),
        ([[1, 0], [0, 1]], 0.62, 0.75),
    ],
)
def test_utility_yield_of_the_story(utility, yield_a, yield_b):
    assert utility_yield(utility, A) == pytest.approx(yield_a, abs=1e-12)
    assert utility_yield(utility, B) == pytest.approx(yield_b, abs=1e-12)
    both = utility_yield(utility, np.array([A, B]))
    np.testing.assert_allclose(both, [yield_a, yield_b], rtol=0, atol=1e-12)
    # counts instead of frequencies: the total utility of 200 items
    assert utility_yield(utility, 200 * np.array(A)) == pytest.approx(200 * yield_a, abs=1e-9)


def test_utility_yield_broadcasts_utilities_against_confusions():
    utilities = np.array([IDENTITY_UM, TPR_UM, TNR_UM])[:, None]  # (3, 1, 2, 2)
    yields = utility_yield(utilities, np.array([A, B]))  # (3, 2)
    np.testing.assert_allclose(yields, [[0.62, 0.75], [0.27, 0.43], [0.35, 0.32]], rtol=0, atol=1e-12)


def test_utility_yield_rejects_mismatched_sizes():
    with pytest.raises(ValueError):
        utility_yield(np.eye(3), A)
    with pytest.raises(ValueError):
        utility_yield([[1.0, 0.0]], A)


# --- expected utility matrix, eq. (17) --------------------------------------------------------


def test_expected_um_by_hand():
    utilities = [[[1, 0], [0, 1]], [[2, -4], [6, 10]]]
    # 0.25 * [[1, 0], [0, 1]] + 0.75 * [[2, -4], [6, 10]], not normalised first
    expected = [[1.75, -3.0], [4.5, 7.75]]
    np.testing.assert_allclose(expected_um(utilities, [0.25, 0.75]), expected, rtol=0, atol=1e-15)


def test_expected_um_of_three_matrices():
    utilities = [[[15, -335], [-35, 165]], [[45, -335], [-65, 165]], [[0, 0], [0, 100]]]
    expected = [[0.5 * 15 + 0.3 * 45, -0.8 * 335], [-0.5 * 35 - 0.3 * 65, 0.8 * 165 + 0.2 * 100]]
    np.testing.assert_allclose(expected_um(utilities, [0.5, 0.3, 0.2]), expected, rtol=1e-14, atol=1e-12)


def test_expected_um_of_one_matrix_is_that_matrix():
    np.testing.assert_array_equal(expected_um([[[15, -335], [-35, 165]]], [1.0]), [[15, -335], [-35, 165]])


@pytest.mark.parametrize(
    "probabilities",
    [
        [-0.5, 1.5],  # negative
        [0.5, 0.4],  # sum 0.9
        [0.6, 0.6],  # sum 1.2
        [1.0],  # too few
        [0.5, 0.25, 0.25],  # too many
        [[0.5, 0.5]],  # wrong shape
        [np.nan, 1.0],
    ],
)
def test_expected_um_rejects_bad_probabilities(probabilities):
    with pytest.raises(ValueError):
        expected_um([IDENTITY_UM, TPR_UM], probabilities)


def test_expected_um_rejects_a_single_matrix_without_stack_axis():
    with pytest.raises(ValueError):
        expected_um(IDENTITY_UM, [0.5, 0.5])


def test_normalisation_of_entries_near_the_largest_float():
    """max - min overflows for such a matrix; its standard form is that of the same matrix
    scaled down (no warning, which pytest would turn into an error)."""
    huge = np.array([[1e308, -1e308], [0.0, 1.7e308]])
    np.testing.assert_allclose(normalise_um(huge), normalise_um(huge / 1e300), rtol=1e-15)
    stack = np.stack([huge, [[15.0, -335.0], [-35.0, 165.0]]])
    np.testing.assert_array_equal(normalise_um(stack)[1], normalise_um(stack[1]))
