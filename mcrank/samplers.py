"""Samplers of the Monte Carlo study (paper §4.2; ``docs/method.md``, "The Monte Carlo study", steps 1-4).

Each sampler is a private jitted kernel that draws from a numpy
:class:`~numpy.random.Generator` passed in, so that the engine can fuse them into its loops,
and a thin public wrapper that validates its arguments, owns the Generator (resolved by
:func:`mcrank._rng.resolve_rng`) and fills an array. Samplers that reject draw in rounds
over many values at once (:func:`_fill_hexagon`, :func:`_fill_truncated_columns`): a
rejection loop per value mispredicts a branch at most rejections, and the engine's speed is
measured against the cost of the draws alone.

- True utility matrices: (x, y) uniform on the hexagon of eq. (12), or gaussian with mean
  (0, 0) truncated to the hexagon by rejection (fig. 4).
- Class proportion ``p`` ~ Uniform(low, high).
- TPR and TNR: ``low + (high - low) * Beta(alpha, beta)``; the paper's choice is
  ``0.5 + 0.5 * Beta(2, 1)``, density rising linearly on [0.5, 1].
- Perturbed utility matrices ``U'`` with error sd ``s``: the ``gaussian`` model adds
  N(0, s^2) to every element; the ``truncated`` model conditions that on
  ``0 <= U'_ij <= 1`` and ``U'_jj >= U'_ij`` (correct classification stays better).
- The counts of a finite test set (``docs/method.md``, "Finite test sets"): multinomial, by
  conditional binomials, each drawn exactly by numba's binomial sampler.
"""

from __future__ import annotations

import math

import numpy as np

from mcrank._jit import jit
from mcrank._rng import resolve_rng
from mcrank._validation import check_beta_parameters, check_choice, check_count, check_positive, check_range, check_sd
from mcrank.utility_space import _in_hexagon, _um_from_xy, normalise_um

__all__ = [
    "ERROR_MODELS",
    "HEXAGON_DISTRIBUTIONS",
    "MAX_TRUE_UM_SD",
    "TRUE_UM_DISTRIBUTIONS",
    "perturb_um",
    "sample_class_proportion",
    "sample_class_proportions",
    "sample_conditional_rates",
    "sample_multinomial",
    "sample_rates",
    "sample_true_um_xy",
    "sample_utility_elements",
]

#: The distributions of true utility matrices, by name; the value is the kernels' code. The
#: first two are the paper's, on the hexagon of two-class matrices (eq. 12); the ``-elements``
#: ones draw every element, for any number of classes (``docs/method.md``, "The n-class study").
TRUE_UM_DISTRIBUTIONS = {"uniform": 0, "gaussian": 1, "uniform-elements": 2, "gaussian-elements": 3}
#: The two-class distributions on the hexagon.
HEXAGON_DISTRIBUTIONS = ("uniform", "gaussian")
#: The error models of perturbed utility matrices, by name; the value is the kernels' code.
ERROR_MODELS = {"gaussian": 0, "truncated": 1}
#: Largest sd of the gaussian true-utility distribution: see :func:`_check_true_um_sd`.
MAX_TRUE_UM_SD = 10.0


def _check_true_um_sd(sd: float, what: str, uniform: str) -> float:
    """``sd`` of the gaussian true-utility distribution: in ``(0, MAX_TRUE_UM_SD]``.

    The gaussian is truncated to the hexagon by rejection, which needs about
    ``2 pi sd^2 / 3`` proposals per point (the hexagon has area 3): 210 at sd 10, 2 million
    at sd 1000, and a numba loop that Ctrl-C cannot stop beyond. Above 10 the distribution
    is uniform within 1 % anyway: ``|r|^2 <= 2`` in the hexagon, so the density anywhere is
    at least ``exp(-1 / sd^2)`` (0.990) of its value at the centre.

    Parameters
    ----------
    sd : float
        A non-negative number, already checked by :func:`~mcrank._validation.check_sd`.
    what : str
        The parameter's name, for the message.
    uniform : str
        How the caller asks for the uniform distribution instead, for the message.

    Returns
    -------
    float
        ``sd``, unchanged.
    """
    if sd == 0:
        raise ValueError(f"{what} must be positive for the gaussian true-utility distribution")
    if sd > MAX_TRUE_UM_SD:
        raise ValueError(
            f"{what} must be at most {MAX_TRUE_UM_SD:g} for the gaussian true-utility distribution, got {sd:g}: "
            f"above that the gaussian truncated to the hexagon is uniform within 1 %, so use the uniform distribution "
            f"({uniform}), drawn directly, rather than rejection at about 2 pi sd^2 / 3 proposals per point ({2 * math.pi * sd**2 / 3:.2g} here)"
        )
    return sd

# --- kernels: one draw each ------------------------------------------------------------------


@jit
def _draw_beta(rng, alpha, beta):
    """One Beta(alpha, beta) variate. A function of its own: inlined into
    :func:`_draw_rate`, numba's Beta sampler made the paper's sqrt(V) path twice as slow."""
    return rng.beta(alpha, beta)


@jit(inline="always")
def _rate_from_uniform(uniform, alpha, low, high):
    """A rate ``low + (high - low) * Beta(alpha, 1)`` from one uniform, by the inverse CDF
    ``x**alpha``; for the paper's Beta(2, 1) that is ``sqrt(V)``, cheaper than a power."""
    fraction = math.sqrt(uniform) if alpha == 2.0 else uniform ** (1.0 / alpha)
    return low + (high - low) * fraction


@jit
def _draw_rate(rng, alpha, beta, low, high):
    """One TPR or TNR: ``low + (high - low) * Beta(alpha, beta)``.

    With ``beta == 1`` one uniform through :func:`_rate_from_uniform` instead of two gamma
    draws.
    """
    if beta == 1.0:
        return _rate_from_uniform(rng.random(), alpha, low, high)
    return low + (high - low) * _draw_beta(rng, alpha, beta)


@jit(inline="always")
def _proposal(mean, step):
    """``mean + step``, or ``|step|`` for a mean of 0, or ``1 - |step|`` for a mean of 1
    (the half-normal proposal on a bound). Written as selects, not branches: which case an
    element is in is data-dependent."""
    folded = 1.0 - abs(step) if mean == 1.0 else abs(step)
    return folded if (mean == 0.0) | (mean == 1.0) else mean + step


@jit(inline="always")
def _draw_truncated_normal_01(rng, mean, sd):
    """One draw of N(mean, sd^2) truncated to [0, 1], exactly, for a mean in [0, 1].

    Two exact rejection samplers. For sd <= 1, the proposals of :func:`_proposal`, accepted
    when they land in [0, 1]: normal (acceptance = mass of [0, 1] under N(mean, sd^2), at
    least 1/3), or half-normal for a mean on a bound (common: a normalised matrix has a 0
    and a 1), exact by symmetry and accepted almost always when sd is small. For sd > 1,
    uniform proposals on [0, 1] accepted with probability exp(-(x - mean)^2 / (2 sd^2))
    (acceptance above exp(-1/2)). A normal variate costs about a quarter of a uniform pair
    and an exponential here, hence the switch at sd = 1 rather than at the equal-acceptance
    point 1/sqrt(2 pi).
    """
    if sd == 0.0:
        return mean
    if sd <= 1.0:
        while True:
            value = _proposal(mean, sd * rng.standard_normal())
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
    ``off_diagonal' <= diagonal'``: the 2x2 case of :func:`_perturb_into`, on scalars. The
    engine uses it for sds above 1 (uniform proposals), and
    :func:`_fill_truncated_columns` for the others.
    """
    while True:
        upper = _draw_truncated_normal_01(rng, diagonal, sd)
        lower = _draw_truncated_normal_01(rng, off_diagonal, sd)
        if lower <= upper:
            return upper, lower


@jit
def _fill_truncated_columns(rng, means, sds, shift, v, pool, cursor, todo, columns):
    """The ``truncated`` perturbation of many binary columns at many sds at once.

    Parameters
    ----------
    means : ndarray, shape (2 * c,)
        Row ``2 i`` is the diagonal element of column ``i``, row ``2 i + 1`` its off-diagonal
        element: each in [0, 1], the off-diagonal one not above the diagonal one.
    sds : ndarray, shape (a,)
        Error sds, each in (0, 1].
    shift : int
        ``2**shift >= a``: element ``r`` at sd ``j`` is ``v[(r << shift) | j]``.
    v : ndarray, shape (2 * c << shift,)
        Output.
    pool, cursor : ndarray (float, shape at least 4 * c << shift), ndarray (int, shape (1,))
        Standard normals drawn ahead, and the index of the first unused one: see
        :func:`_take_normals`. Start with ``cursor[0] = pool.size``.
    todo, columns : ndarray of uint64, shapes ((2 * c << shift) + 2,) and (c << shift,)
        Work space.

    Notes
    -----
    The same distribution as :func:`_draw_ordered_column` on every (column, sd), and so as
    plain rejection of the whole matrix: each element is proposed from N(mean, sd^2) (a
    half-normal on a bound, exact by symmetry) until it lies in [0, 1], and a column is
    proposed afresh, both elements, until it is ordered. Rather than one element at a time,
    each round draws one proposal for every element still pending, then keeps the accepted
    ones and lists the rest without a branch. Which element a variate goes to depends only
    on earlier variates, so every element still sees its own independent sequence of
    proposals: the result is exact. The rounds cost the draws and a few operations each,
    where a rejection loop per element mispredicts a branch at most rejections.
    """
    a = sds.size
    # Element and column numbers are unsigned: numba then indexes without its check for
    # negative indices, which cost a tenth of a round.
    one = np.uint64(1)
    bits = np.uint64(shift)
    low_bits = (one << bits) - one
    # First round, a column at a time: a proposal for each of its two elements at every sd
    # (loops over the sds that vectorise), then a pass that lists the columns not accepted
    # at once (one store each), then a pass over those that lists their pending elements:
    # those out of [0, 1], or both if the column is in range but out of order.
    checking = 0
    if a == 1 and shift == 0:
        # One sd (shift 0: element r is v[r]): the proposals of every element in one loop of
        # selects, which vectorises, from the normals taken in the same order as in the branch
        # below. Column by column, loops over a single sd cost 2.5 times as much: a branch on the
        # mean per element (0 or 1 about half the time in a normalised matrix), mispredicted
        # as often as not, and the loop overhead. Only when the pool is refilled differs,
        # which changes the variates when the same Generator draws in between (sds above 1,
        # sample_pairs), not the distribution.
        z = pool[_take_normals(rng, pool, cursor, means.size) :]
        sd = sds[0]
        for r in range(means.size):
            v[r] = _proposal(means[r], sd * z[r])
        for column in range(means.size // 2):
            high, low = v[2 * column], v[2 * column + 1]
            columns[checking] = np.uint64(column)
            checking += not ((0.0 <= low) & (low <= high) & (high <= 1.0))
    else:
        for column in range(means.size // 2):
            upper = (2 * column) << shift
            lower = upper + (1 << shift)
            first = _take_normals(rng, pool, cursor, 2 * a)
            high_row, low_row = v[upper : upper + a], v[lower : lower + a]
            _first_proposals(means[2 * column], sds, pool[first : first + a], high_row)
            _first_proposals(means[2 * column + 1], sds, pool[first + a : first + 2 * a], low_row)
            label = np.uint64(column) << bits
            for j in range(a):
                high, low = high_row[j], low_row[j]
                columns[checking] = label | np.uint64(j)
                checking += not ((0.0 <= low) & (low <= high) & (high <= 1.0))
    pending = 0
    for t in range(checking):
        upper, lower = _column_elements(columns[t], bits, low_bits)
        high, low = v[upper], v[lower]
        high_in = (0.0 <= high) & (high <= 1.0)
        low_in = (0.0 <= low) & (low <= 1.0)
        todo[pending] = upper
        pending += not high_in
        todo[pending] = lower
        pending += not low_in
        disordered = high_in & low_in & (low > high)
        todo[pending] = upper
        todo[pending + 1] = lower
        pending += 2 * disordered
    while checking > 0:
        while pending > 0:
            first = _take_normals(rng, pool, cursor, pending)
            normals = pool[first : first + pending]
            left = 0
            for t in range(pending):
                index = todo[t]
                value = _proposal(means[index >> bits], sds[index & low_bits] * normals[t])
                v[index] = value
                todo[left] = index
                left += not ((0.0 <= value) & (value <= 1.0))
            pending = left
        # Every listed column has its elements in range now: those still out of order are
        # redrawn whole, and checked again.
        left = 0
        for t in range(checking):
            column = columns[t]
            upper, lower = _column_elements(column, bits, low_bits)
            columns[left] = column
            todo[pending] = upper
            todo[pending + 1] = lower
            disordered = v[lower] > v[upper]
            left += disordered
            pending += 2 * disordered
        checking = left


@jit(inline="always")
def _column_elements(column, bits, low_bits):
    """The element numbers (diagonal, off-diagonal) of column number ``column`` (uint64)."""
    one = np.uint64(1)
    upper = ((column >> bits) << (bits + one)) | (column & low_bits)
    return upper, upper + (one << bits)


@jit(inline="always")
def _take_normals(rng, pool, cursor, count):
    """Where ``count`` unused standard normals start in ``pool`` (``count <= pool.size``).

    The pool is refilled, unused normals first, in one loop that only draws: a draw costs
    a third more in the short loops of the rejection rounds (measured). The variates are
    used once each, in the order drawn.
    """
    start = cursor[0]
    if start + count > pool.size:
        unused = pool.size - start
        for t in range(unused):
            pool[t] = pool[start + t]
        # Through a view indexed from 0: with a start known only at run time, the compiler
        # keeps numba's negative-index check in the loop, and a draw costs 10-20 % more.
        fresh = pool[unused:]
        for t in range(fresh.size):
            fresh[t] = rng.standard_normal()
        start = 0
    cursor[0] = start + count
    return start


@jit(inline="always")
def _first_proposals(mean, sds, z, out):
    """``out[j]``: the first proposal for an element with mean ``mean`` at sd ``sds[j]``, from
    the standard normal ``z[j]``; a half-normal on a bound."""
    if mean == 0.0:
        for j in range(sds.size):
            out[j] = sds[j] * abs(z[j])
    elif mean == 1.0:
        for j in range(sds.size):
            out[j] = 1.0 - sds[j] * abs(z[j])
    else:
        for j in range(sds.size):
            out[j] = mean + sds[j] * z[j]


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
def _fill_hexagon(rng, distribution, sd, n, x, y):
    """Fill ``x[:n]``, ``y[:n]`` with points of the hexagon: uniform (code 0) or gaussian
    (code 1).

    Uniform, without rejection: the hexagon is three rhombi of area 1 meeting at the
    origin, spanned by pairs of the vectors (1, 0), (0, 1) and (-1, -1) (it is a cube seen
    along its diagonal). One uniform ``u`` picks the rhombus, ``floor(3 u)``, and gives the
    first coordinate in it, ``3 u - floor(3 u)``; a second uniform gives the other. Two
    uniforms per point, no branch.

    Gaussian, by rejection in rounds: each round proposes a point for every slot still
    empty, then keeps those inside, moving them to the front of the empty slots without a
    branch. The points kept are independent draws of the truncated distribution, in the
    order drawn; rounds avoid the mispredicted branch per point of a one-point-at-a-time
    rejection loop.
    """
    if distribution == 0:
        for i in range(n):
            x[i] = rng.random()
            y[i] = rng.random()
        for i in range(n):
            scaled = 3.0 * x[i]
            rhombus = math.floor(scaled)
            s, t = scaled - rhombus, y[i]
            # Rhombus 0: s (1, 0) + t (0, 1); 1: s (0, 1) + t (-1, -1); 2: s (-1, -1) + t (1, 0).
            x[i] = s if rhombus == 0.0 else (-t if rhombus == 1.0 else t - s)
            y[i] = t if rhombus == 0.0 else (s - t if rhombus == 1.0 else -s)
        return
    filled = 0
    while filled < n:
        # Views of the empty slots, indexed from 0: no negative-index check in the loops.
        xs, ys = x[filled:n], y[filled:n]
        for i in range(xs.size):
            xs[i] = sd * rng.standard_normal()
            ys[i] = sd * rng.standard_normal()
        kept = 0
        for i in range(xs.size):
            xi, yi = xs[i], ys[i]
            xs[kept], ys[kept] = xi, yi
            kept += _in_hexagon(xi, yi)
        filled += kept


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
        Only for ``gaussian``; in (0, 10] (above 10 it is uniform within 1 %).
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    x, y : ndarray of shape (size,)
        Map them to matrices with :func:`mcrank.utility_space.um_from_xy`.
    """
    code = check_choice(distribution, TRUE_UM_DISTRIBUTIONS, "true-utility distribution")
    sd = check_sd(sd)
    if code == 1:
        _check_true_um_sd(sd, "sd", 'distribution="uniform"')
    size = check_count(size, "size", minimum=0)
    x, y = np.empty(size), np.empty(size)
    _fill_hexagon(resolve_rng(rng), code, sd, size, x, y)
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


@jit
def _draw_multinomial(rng, trials, probabilities, out):
    """One Multinomial(trials, probabilities) draw into ``out`` (int64, as long as the
    probabilities), by conditional binomials: count k ~ Binomial(what is left, p_k / the
    probability left), the last class takes the rest. Exact: numba's binomial sampler
    (inversion or BTPE, as numpy's) is, and so is the chain rule."""
    remaining, left = trials, 1.0
    last = probabilities.size - 1
    for k in range(last):
        p = probabilities[k]
        if remaining == 0 or p <= 0.0:
            out[k] = 0
        elif p >= left:  # all that is left (rounding of ``left`` aside)
            out[k] = remaining
        else:
            out[k] = rng.binomial(remaining, p / left)
        remaining -= out[k]
        left -= p
    out[last] = remaining


@jit
def _fill_multinomial(rng, trials, probabilities, out):
    for i in range(out.shape[0]):
        _draw_multinomial(rng, trials, probabilities, out[i])


def sample_multinomial(trials: int, probabilities, *, size: int = 1, rng=None) -> np.ndarray:
    """Draw the counts of a finite test set: Multinomial(trials, probabilities), exactly.

    The sampler of the engine's finite test sets: the class counts of a test set, and each
    classifier's outputs within a class.

    Parameters
    ----------
    trials : int
        Items, 0 to 10^12.
    probabilities : array_like of shape (n,)
        Non-negative, summing to 1 within 1e-9.
    size : int, default 1
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    ndarray of shape (size, n), int64
    """
    p = np.asarray(probabilities, dtype=float)
    if p.ndim != 1 or p.size < 1 or not np.all(np.isfinite(p) & (p >= 0)) or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"probabilities must be non-negative and sum to 1, got {probabilities!r}")
    trials = check_count(trials, "trials", minimum=0, maximum=10**12)
    out = np.empty((check_count(size, "size", minimum=0), p.size), dtype=np.int64)
    _fill_multinomial(resolve_rng(rng), trials, np.ascontiguousarray(p), out)
    return out


# --- the n-class study (docs/method.md, "The n-class study") -----------------------------------


@jit(inline="always")
def _draw_utility(rng, distribution, sd, identity, xy, u, normalise=True):
    """Step 1 into ``u`` (n, n), in the standard form of eq. (11) (unless not ``normalise``);
    ``xy`` (2, 1) is work space for a hexagon point."""
    n = u.shape[0]
    if distribution <= 1:  # the hexagon (n = 2): eq. (12) is in standard form already
        _fill_hexagon(rng, distribution, sd, 1, xy[0], xy[1])
        u[0, 0], u[0, 1], u[1, 0], u[1, 1] = _um_from_xy(xy[0, 0], xy[1, 0])
        return
    low, high = 1.0, 0.0
    if distribution == 2:  # uniform-elements: the largest of each column on the diagonal
        for j in range(n):
            # Selects, not branches: which draw is the largest is a coin toss, and the
            # mispredicted branches of an if made this sampler 1.5-1.8x slower.
            best, top, bottom = 0, -1.0, 2.0
            for i in range(n):
                x = rng.random()
                u[i, j] = x
                bottom = x if x < bottom else bottom
                larger = x > top
                best = i if larger else best
                top = x if larger else top
            u[j, j], u[best, j] = top, u[j, j]
            low = bottom if bottom < low else low
            high = top if top > high else high
    else:  # gaussian-elements: the identity perturbed, truncated, each diagonal the largest
        _perturb_into(rng, identity, sd, 1, u)
        low, high = u.min(), u.max()
    if not normalise:
        return
    # Tracked as drawn: numba's min() and max() of a small matrix cost more than the draws.
    width = high - low
    for i in range(n):
        for j in range(n):
            u[i, j] = (u[i, j] - low) / width


@jit(inline="always")
def _draw_proportions(rng, distribution, p_low, p_high, concentration, p):
    """Step 2 into ``p`` (n,): Dirichlet(alpha), or the paper's uniform ``p`` on the hexagon."""
    n = p.size
    if distribution <= 1:
        p[0] = p_low + (p_high - p_low) * rng.random()
        p[1] = 1.0 - p[0]
        return
    total = 0.0
    for j in range(n):
        p[j] = rng.standard_exponential() if concentration == 1.0 else rng.standard_gamma(concentration)
        total += p[j]
    for j in range(n):
        p[j] /= total


@jit(inline="always")
def _draw_columns(rng, alpha, beta, low, high, given):
    """Step 3 for one classifier into ``given`` (n, n): row j is P(. | j), the distribution
    of the outputs given true class j (column j of the confusion matrix, stored as a row so
    that it is contiguous)."""
    n = given.shape[0]
    for j in range(n):
        recall = _draw_rate(rng, alpha, beta, low, high)
        given[j, j] = recall
        if n == 2:  # the other output takes the rest: no split to draw
            given[j, 1 - j] = 1.0 - recall
            continue
        total = 0.0
        for i in range(n):
            if i != j:
                given[j, i] = rng.standard_exponential()
                total += given[j, i]
        for i in range(n):
            if i != j:
                given[j, i] *= (1.0 - recall) / total


@jit
def _fill_utility(rng, distribution, sd, normalise, out):
    n = out.shape[1]
    identity, xy = np.eye(n), np.empty((2, 1))
    for k in range(out.shape[0]):
        _draw_utility(rng, distribution, sd, identity, xy, out[k], normalise)


@jit
def _fill_proportions(rng, concentration, out):
    for k in range(out.shape[0]):
        _draw_proportions(rng, 2, 0.0, 1.0, concentration, out[k])


@jit
def _fill_columns(rng, alpha, beta, low, high, out):
    for k in range(out.shape[0]):
        _draw_columns(rng, alpha, beta, low, high, out[k])


def _check_classes(classes) -> int:
    return check_count(classes, "classes", minimum=2, maximum=50)


def sample_utility_elements(size: int, *, classes: int, distribution: str = "uniform-elements", sd: float = 1 / 3,
                            normalise: bool = True, rng=None) -> np.ndarray:  # fmt: skip
    """Draw true utility matrices of ``classes`` classes element by element (step 1).

    Parameters
    ----------
    size : int
    classes : int
        n, 2 to 50.
    distribution : {"uniform-elements", "gaussian-elements"}
        ``uniform-elements``: in each column n iid Uniform(0, 1) values, the largest moved to
        the diagonal. ``gaussian-elements``: each column N(I_.j, sd^2) conditioned on all its
        elements in [0, 1] and its diagonal element the largest.
    sd : float, default 1/3
        For ``gaussian-elements``.
    normalise : bool, default True
        Bring each matrix to the standard form of eq. (11) (min 0, max 1), as the study
        does; False gives the columns as drawn.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    ndarray of shape (size, classes, classes)
        Rows = output, columns = true class.
    """
    code = check_choice(distribution, {k: v for k, v in TRUE_UM_DISTRIBUTIONS.items() if k.endswith("-elements")}, "element distribution")
    sd = check_sd(sd)
    if code == 3 and sd == 0:
        raise ValueError("sd must be positive for the gaussian-elements distribution")
    n = _check_classes(classes)
    out = np.empty((check_count(size, "size", minimum=0), n, n))
    _fill_utility(resolve_rng(rng), code, sd, bool(normalise), out)
    return out


def sample_class_proportions(size: int, *, classes: int, concentration: float = 1.0, rng=None) -> np.ndarray:
    """Draw class proportions ``p ~ Dirichlet(concentration, ..., concentration)`` (step 2).

    Returns
    -------
    ndarray of shape (size, classes)
    """
    n = _check_classes(classes)
    concentration = check_positive(concentration, "concentration")
    out = np.empty((check_count(size, "size", minimum=0), n))
    _fill_proportions(resolve_rng(rng), concentration, out)
    return out


def sample_conditional_rates(size: int, *, classes: int, rate_beta=(2.0, 1.0), rate_range=None, rng=None) -> np.ndarray:
    """Draw one classifier's conditional output distributions (step 3).

    Column j is ``P(. | j)``: the recall ``r_j = low + (high - low) * Beta(alpha, beta)`` on
    the diagonal, ``1 - r_j`` split over the other outputs by Dirichlet(1, ..., 1).
    ``rate_range`` defaults to ``(1/classes, 1)``.

    Returns
    -------
    ndarray of shape (size, classes, classes)
        Rows = output, columns = true class; each column sums to 1.
    """
    n = _check_classes(classes)
    alpha, beta = check_beta_parameters(rate_beta, "rate Beta parameters")
    low, high = check_range((1.0 / n, 1.0) if rate_range is None else rate_range, "rate range")
    out = np.empty((check_count(size, "size", minimum=0), n, n))
    _fill_columns(resolve_rng(rng), alpha, beta, low, high, out)
    return np.ascontiguousarray(out.transpose(0, 2, 1))  # drawn with P(. | j) as row j
