"""Samplers of the Monte Carlo study (paper §4.2, ``SPEC.md`` steps 1-4).

Each sampler is a private jitted kernel that draws *one* value from a numpy
:class:`~numpy.random.Generator` passed in, so that the engine can fuse them into one loop,
and a thin public wrapper that validates its arguments, owns the Generator (resolved by
:func:`mcrank._rng.resolve_rng`) and fills an array.

- True utility matrices: (x, y) uniform on the hexagon of eq. (12), or gaussian with mean
  (0, 0) truncated to the hexagon by rejection (fig. 4).
- Class proportion ``p`` ~ Uniform(low, high).
- TPR and TNR: ``low + (high - low) * Beta(alpha, beta)``; the paper's choice is
  ``0.5 + 0.5 * Beta(2, 1)``, density rising linearly on [0.5, 1].
- Perturbed utility matrices ``U'`` with error sd ``s``: the ``gaussian`` model adds
  N(0, s^2) to every element; the ``truncated`` model conditions that on
  ``0 <= U'_ij <= 1`` and ``U'_jj >= U'_ij`` (correct classification stays better).
"""

from __future__ import annotations

import math

import numpy as np

from mcrank._jit import jit
from mcrank._rng import resolve_rng
from mcrank._validation import check_beta_parameters, check_choice, check_count, check_range, check_sd
from mcrank.utility_space import _in_hexagon, normalise_um

__all__ = [
    "ERROR_MODELS",
    "TRUE_UM_DISTRIBUTIONS",
    "perturb_um",
    "sample_class_proportion",
    "sample_rates",
    "sample_true_um_xy",
]

#: The distributions of true utility matrices, by name; the value is the kernels' code.
TRUE_UM_DISTRIBUTIONS = {"uniform": 0, "gaussian": 1}
#: The error models of perturbed utility matrices, by name; the value is the kernels' code.
ERROR_MODELS = {"gaussian": 0, "truncated": 1}

# --- kernels: one draw each ------------------------------------------------------------------


@jit
def _draw_gaussian_xy(rng, sd):
    """(x, y) with independent N(0, sd^2) coordinates; one call per rejection try."""
    return sd * rng.standard_normal(), sd * rng.standard_normal()


@jit
def _draw_true_um_xy(rng, distribution, sd):
    """One point (x, y) of the hexagon: uniform (code 0) or truncated gaussian (code 1).

    The gaussian draw is a function of its own: written inline, the branch not taken
    still slowed the uniform path by about half (measured in ``scripts/bench.py``).
    """
    while True:
        if distribution == 0:
            # Rejection from the square [-1, 1]^2: the hexagon covers 3/4 of it.
            x = 2.0 * rng.random() - 1.0
            y = 2.0 * rng.random() - 1.0
        else:
            x, y = _draw_gaussian_xy(rng, sd)
        if _in_hexagon(x, y):
            return x, y


@jit
def _draw_beta(rng, alpha, beta):
    """One Beta(alpha, beta) variate. A function of its own: inlined into
    :func:`_draw_rate`, numba's Beta sampler made the paper's sqrt(V) path twice as slow."""
    return rng.beta(alpha, beta)


@jit
def _draw_rate(rng, alpha, beta, low, high):
    """One TPR or TNR: ``low + (high - low) * Beta(alpha, beta)``."""
    if beta == 1.0:
        # Inverse CDF of Beta(alpha, 1), x**alpha: one uniform instead of two gamma draws;
        # for the paper's Beta(2, 1) that is sqrt(V), cheaper than a general power.
        uniform = rng.random()
        fraction = math.sqrt(uniform) if alpha == 2.0 else uniform ** (1.0 / alpha)
    else:
        fraction = _draw_beta(rng, alpha, beta)
    return low + (high - low) * fraction


@jit(inline="always")
def _draw_truncated_normal_01(rng, mean, sd):
    """One draw of N(mean, sd^2) truncated to [0, 1], exactly, for a mean in [0, 1].

    Two exact rejection samplers: normal proposals accepted when they land in [0, 1]
    (acceptance = mass of [0, 1] under N(mean, sd^2), at least 1/3 for sd <= 1), or, for
    sd > 1, uniform proposals on [0, 1] accepted with probability
    exp(-(x - mean)^2 / (2 sd^2)) (acceptance above exp(-1/2)). A normal variate costs about
    a quarter of a uniform pair and an exponential here, hence the switch at sd = 1 rather
    than at the equal-acceptance point 1/sqrt(2 pi). A mean on a bound (common: a
    normalised matrix has a 0 and a 1) gets a half-normal proposal, exact by symmetry, which
    is accepted almost always when sd is small.
    """
    if sd == 0.0:
        return mean
    if (mean == 0.0 or mean == 1.0) and sd < 1.0:
        while True:
            step = sd * abs(rng.standard_normal())
            value = step if mean == 0.0 else 1.0 - step
            if 0.0 <= value <= 1.0:
                return value
    if sd <= 1.0:
        while True:
            value = mean + sd * rng.standard_normal()
            if 0.0 <= value <= 1.0:
                return value
    while True:
        value = rng.random()
        z = (value - mean) / sd
        if rng.random() <= math.exp(-0.5 * z * z):
            return value


@jit(inline="always")
def _draw_ordered_column(rng, diagonal, off_diagonal, sd):
    """One column of a binary ``truncated`` perturbation: (diagonal', off_diagonal').

    Each element from its normal truncated to [0, 1], the pair redrawn until
    ``off_diagonal' <= diagonal'``: the 2x2 case of :func:`_perturb_into`, on scalars, for
    the engine's inner loop.
    """
    while True:
        upper = _draw_truncated_normal_01(rng, diagonal, sd)
        lower = _draw_truncated_normal_01(rng, off_diagonal, sd)
        if lower <= upper:
            return upper, lower


@jit(inline="always")
def _perturb_into(rng, utility, sd, error_model, out):
    """Fill ``out`` with one perturbed copy of the square matrix ``utility`` (code 0 or 1).

    ``truncated`` draws each element from its normal truncated to [0, 1], then redraws a
    column unless its diagonal element is at least every other element of it. The elements
    are independent and each constraint involves one column only, so the conditional
    distribution factorises over columns: this is exactly the independent gaussian
    perturbation conditioned on all constraints, as plain rejection of the whole matrix
    would give, without discarding draws that fall outside [0, 1] or columns that were fine.
    """
    n = utility.shape[0]
    if error_model == 0:
        for i in range(n):
            for j in range(n):
                out[i, j] = utility[i, j] + sd * rng.standard_normal()
        return
    for j in range(n):
        ordered = False
        while not ordered:
            for i in range(n):
                out[i, j] = _draw_truncated_normal_01(rng, utility[i, j], sd)
            ordered = True
            for i in range(n):
                if i != j and out[i, j] > out[j, j]:
                    ordered = False


@jit
def _fill_true_um_xy(rng, distribution, sd, x, y):
    for k in range(x.size):
        x[k], y[k] = _draw_true_um_xy(rng, distribution, sd)


@jit
def _fill_rates(rng, alpha, beta, low, high, out):
    for k in range(out.size):
        out[k] = _draw_rate(rng, alpha, beta, low, high)


@jit
def _fill_perturbed(rng, utility, sd, error_model, out):
    for k in range(out.shape[0]):
        _perturb_into(rng, utility, sd, error_model, out[k])


# --- public wrappers -------------------------------------------------------------------------


def sample_true_um_xy(size: int, *, distribution: str = "uniform", sd: float = 1 / 3, rng=None):
    """Draw true utility matrices as hexagon coordinates (paper §4.2, fig. 4).

    Parameters
    ----------
    size : int
        Number of matrices.
    distribution : {"uniform", "gaussian"}, default "uniform"
        Uniform on the hexagon, or gaussian with mean (0, 0) (the identity, i.e. accuracy)
        and standard deviation ``sd`` in each coordinate, truncated to the hexagon.
    sd : float, default 1/3
        Only for ``gaussian``.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    x, y : ndarray of shape (size,)
        Map them to matrices with :func:`mcrank.utility_space.um_from_xy`.
    """
    code = check_choice(distribution, TRUE_UM_DISTRIBUTIONS, "true-utility distribution")
    sd = check_sd(sd)
    if code == 1 and sd == 0:
        raise ValueError("the gaussian true-utility distribution needs sd > 0")
    size = check_count(size, "size", minimum=0)
    x, y = np.empty(size), np.empty(size)
    _fill_true_um_xy(resolve_rng(rng), code, sd, x, y)
    return x, y


def sample_rates(size: int, *, alpha: float = 2.0, beta: float = 1.0, low: float = 0.5, high: float = 1.0, rng=None):
    """Draw true-positive or true-negative rates, ``low + (high - low) * Beta(alpha, beta)``.

    The defaults are the paper's: density rising linearly on [0.5, 1], median 0.854,
    quartiles 0.75 and 0.933.

    Returns
    -------
    ndarray of shape (size,)
    """
    alpha, beta = check_beta_parameters((alpha, beta), "rate Beta parameters")
    low, high = check_range((low, high), "rate range")
    out = np.empty(check_count(size, "size", minimum=0))
    _fill_rates(resolve_rng(rng), alpha, beta, low, high, out)
    return out


def sample_class_proportion(size: int, *, low: float = 0.0, high: float = 1.0, rng=None):
    """Draw class-0 fractions ``p`` ~ Uniform(low, high) (paper §4.2)."""
    low, high = check_range((low, high), "class-proportion range")
    return resolve_rng(rng).uniform(low, high, check_count(size, "size", minimum=0))


def perturb_um(utility, sd: float, *, error: str = "gaussian", size: int = 1, rng=None) -> np.ndarray:
    """Draw perturbed copies ``U'`` of a utility matrix in standard form (paper §4.2, fig. 5).

    Parameters
    ----------
    utility : array_like of shape (n, n)
        In the standard form of eq. (11) (minimum 0, maximum 1), so that ``sd`` is in the
        units of the paper's figures.
    sd : float
        Error standard deviation ``s`` >= 0.
    error : {"gaussian", "truncated"}, default "gaussian"
        ``gaussian``: independent N(0, s^2) added to every element, nothing else (the paper's
        §4.2). ``truncated``: the same, conditioned on ``0 <= U'_ij <= 1`` and on every
        diagonal element being at least the other elements of its column; the realised sd of
        ``U' - U`` is then smaller than ``s``.
    size : int, default 1
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    ndarray of shape (size, n, n)
    """
    u = np.asarray(utility, dtype=float)
    if u.ndim != 2 or u.shape[0] != u.shape[1] or u.shape[0] < 2:
        raise ValueError(f"utility must be one n x n matrix with n >= 2, got shape {u.shape}")
    if not np.allclose(normalise_um(u), u, rtol=0, atol=1e-12):
        raise ValueError("utility must be in the standard form of eq. (11) (min 0, max 1): normalise it first")
    code = check_choice(error, ERROR_MODELS, "error model")
    sd = check_sd(sd)
    if code == 1 and any(u[i, i] < u[j, i] for i in range(len(u)) for j in range(len(u))):
        raise ValueError("the truncated error model needs each diagonal utility to be the largest of its column")
    out = np.empty((check_count(size, "size", minimum=0), *u.shape))
    _fill_perturbed(resolve_rng(rng), np.ascontiguousarray(u), sd, code, out)
    return out
