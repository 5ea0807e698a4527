"""Samplers of the Monte Carlo study (paper §4.2; ``docs/method.md``, "The Monte Carlo study", steps 1-4).

Each sampler is a private jitted kernel that draws from a numpy
:class:`~numpy.random.Generator` passed in, so that the engine can fuse them into its loops,
and a thin public wrapper that validates its arguments, owns the Generator (resolved by
:func:`mcrank._rng.resolve_rng`) and fills an array. Samplers that reject draw in rounds
over many values at once (:func:`_fill_hexagon`, :func:`_fill_truncated_columns`): a
rejection loop per value mispredicts a branch at most rejections, and the engine's speed is
measured against the cost of the draws alone.

- True utility matrices: the distributions of :mod:`mcrank.distributions` (on the hexagon of
  eq. 12, as the paper's fig. 4, or element by element for any n).
- Class proportion ``p`` ~ Uniform(low, high).
- TPR and TNR: ``low + (high - low) * Beta(alpha, beta)``; the paper's choice is
  ``0.5 + 0.5 * Beta(2, 1)``, density rising linearly on [0.5, 1].
- Perturbed utility matrices ``U'`` with error sd ``s``: the models of
  :mod:`mcrank.error_models`.
- The counts of a finite test set (``docs/method.md``, "Finite test sets"): multinomial, by
  conditional binomials, each drawn exactly by numba's binomial sampler.

The kernels' switches over error models and distributions (:func:`_perturb_into`,
:func:`_fill_hexagon`, :func:`_draw_utility`) are generated from the registries when this
module is imported, which seals them (:mod:`mcrank._axes`).
"""

from __future__ import annotations

import math

import numpy as np

from mcrank._axes import branches, generate, generate_predicate, pieces
from mcrank._jit import jit
from mcrank._rng import resolve_rng
from mcrank._validation import check_beta_parameters, check_choice, check_count, check_positive, check_range, check_sd
from mcrank.distributions import MAX_TRUE_UM_SD, TRUE_UM_DISTRIBUTIONS
from mcrank.error_models import ERROR_MODELS, _draw_truncated_normal_01, _proposal
from mcrank.utility_space import _um_from_xy, normalise_um

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

#: The names of the distributions on the hexagon of two-class matrices (eq. 12), in the order
#: registered (:attr:`mcrank.distributions.TrueUmDistribution.hexagon`).
HEXAGON_DISTRIBUTIONS = tuple(name for name, distribution in TRUE_UM_DISTRIBUTIONS.items() if distribution.hexagon)


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


# --- the switches over the registries --------------------------------------------------------


_error_models = list(ERROR_MODELS.values())
_perturb_into = generate(
    "_perturb_into",
    "def _perturb_into(rng, utility, sd, code, out):\n" + branches(_error_models, "{f}(rng, utility, sd, out)"),
    pieces(_error_models, "perturb"),
    __name__,
    """Fill ``out`` with one perturbed copy of the square matrix ``utility`` under error model
    number ``code`` (:data:`ERROR_MODELS`): a switch generated from the registry.""",
    inline="always",
)
_closed_form = generate_predicate(
    "_closed_form", ERROR_MODELS, "closed_form", __name__,
    "Whether error model number ``code`` has a closed form (:attr:`ErrorModel.closed_form <mcrank.error_models.ErrorModel.closed_form>`).",
)  # fmt: skip
_hexagon_distributions = [d for d in TRUE_UM_DISTRIBUTIONS.values() if d.hexagon]
_element_distributions = [d for d in TRUE_UM_DISTRIBUTIONS.values() if not d.hexagon]
_fill_hexagon = generate(
    "_fill_hexagon",
    "def _fill_hexagon(rng, code, sd, n, x, y):\n" + branches(_hexagon_distributions, "{f}(rng, sd, n, x, y)"),
    pieces(_hexagon_distributions, "draw"),
    __name__,
    """Fill ``x[:n]``, ``y[:n]`` with points of the hexagon drawn from distribution number
    ``code`` (:data:`TRUE_UM_DISTRIBUTIONS`, one on the hexagon): a switch generated from the
    registry.""",
)
_on_hexagon = generate_predicate(
    "_on_hexagon", TRUE_UM_DISTRIBUTIONS, "hexagon", __name__,
    "Whether distribution number ``code`` is on the hexagon (:attr:`TrueUmDistribution.hexagon <mcrank.distributions.TrueUmDistribution.hexagon>`).",
)  # fmt: skip
# Step 1 at any n: a hexagon point mapped by eq. (12), which is in standard form already, or a
# matrix drawn element by element (and brought to the standard form of eq. 11 by its sampler).
_DRAW_UTILITY = """\
def _draw_utility(rng, code, sd, identity, xy, u, normalise=True):
    if _on_hexagon(code):
        _fill_hexagon(rng, code, sd, 1, xy[0], xy[1])
        u[0, 0], u[0, 1], u[1, 0], u[1, 1] = _um_from_xy(xy[0, 0], xy[1, 0])
        return
{switch}"""
_draw_utility = generate(
    "_draw_utility",
    _DRAW_UTILITY.format(switch=branches(_element_distributions, "{f}(rng, sd, identity, u, normalise)")),
    {**pieces(_element_distributions, "draw"), "_on_hexagon": _on_hexagon, "_fill_hexagon": _fill_hexagon, "_um_from_xy": _um_from_xy},
    __name__,
    """Step 1 into ``u`` (n, n) from distribution number ``code`` (:data:`TRUE_UM_DISTRIBUTIONS`),
    in the standard form of eq. (11) (unless not ``normalise``); ``xy`` (2, 1) is work space for
    a hexagon point, ``identity`` is ``np.eye(n)``. A switch generated from the registry.""",
    inline="always",
)
ERROR_MODELS.seal(__name__)
TRUE_UM_DISTRIBUTIONS.seal(__name__)


@jit
def _fill_rates(rng, alpha, beta, low, high, out):
    for k in range(out.size):
        out[k] = _draw_rate(rng, alpha, beta, low, high)


@jit
def _fill_perturbed(rng, utility, sd, error_model, out):
    for k in range(out.shape[0]):
        _perturb_into(rng, utility, sd, error_model, out[k])


# --- public wrappers -------------------------------------------------------------------------


def sample_true_um_xy(size: int, *, distribution: str = HEXAGON_DISTRIBUTIONS[0], sd: float = 1 / 3, rng=None):
    """Draw true utility matrices as hexagon coordinates (paper §4.2, fig. 4).

    Parameters
    ----------
    size : int
        Number of matrices.
    distribution : str, default "uniform"
        One of :data:`HEXAGON_DISTRIBUTIONS`, the distributions on the hexagon of the registry
        :mod:`mcrank.distributions`, which describes each (the first is the default).
    sd : float, default 1/3
        Only for a distribution that reads it (``gaussian``: the sd of each coordinate before
        truncation, in (0, 10]; above 10 it is uniform within 1 %).
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    x, y : ndarray of shape (size,)
        Map them to matrices with :func:`mcrank.utility_space.um_from_xy`.
    """
    chosen = check_choice(distribution, {d.name: d for d in _hexagon_distributions}, "true-utility distribution")
    sd = check_sd(sd)
    if chosen.check is not None:
        chosen.check(sd, "sd", 'distribution="{}"')
    size = check_count(size, "size", minimum=0)
    x, y = np.empty(size), np.empty(size)
    _fill_hexagon(resolve_rng(rng), chosen.code, sd, size, x, y)
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


def perturb_um(utility, sd: float, *, error: str = next(iter(ERROR_MODELS)), size: int = 1, rng=None) -> np.ndarray:
    """Draw perturbed copies ``U'`` of a utility matrix in standard form (paper §4.2, fig. 5).

    Parameters
    ----------
    utility : array_like of shape (n, n)
        In the standard form of eq. (11) (minimum 0, maximum 1), so that ``sd`` is in the
        units of the paper's figures.
    sd : float
        Error standard deviation ``s`` >= 0.
    error : str, default "gaussian"
        A name in :data:`ERROR_MODELS`, the registry of :mod:`mcrank.error_models`, which
        describes each model (the first registered is the default). ``U' - U`` has sd ``s``
        under a model with a closed form (the paper's ``gaussian``); under ``truncated`` its
        realised sd is smaller than ``s``.
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
    model = check_choice(error, ERROR_MODELS, "error model")
    sd = check_sd(sd)
    if model.check is not None:
        model.check(u)
    out = np.empty((check_count(size, "size", minimum=0), *u.shape))
    _fill_perturbed(resolve_rng(rng), np.ascontiguousarray(u), sd, model.code, out)
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
def _draw_proportions(rng, hexagon, p_low, p_high, concentration, p):
    """Step 2 into ``p`` (n,): Dirichlet(alpha), or with a distribution on the hexagon
    (``hexagon``, :func:`_on_hexagon`) the paper's uniform ``p``."""
    n = p.size
    if hexagon:
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
        _draw_proportions(rng, False, 0.0, 1.0, concentration, out[k])


@jit
def _fill_columns(rng, alpha, beta, low, high, out):
    for k in range(out.shape[0]):
        _draw_columns(rng, alpha, beta, low, high, out[k])


def _check_classes(classes) -> int:
    return check_count(classes, "classes", minimum=2, maximum=50)


def sample_utility_elements(size: int, *, classes: int, distribution: str = _element_distributions[0].name, sd: float = 1 / 3,
                            normalise: bool = True, rng=None) -> np.ndarray:  # fmt: skip
    """Draw true utility matrices of ``classes`` classes element by element (step 1).

    Parameters
    ----------
    size : int
    classes : int
        n, 2 to 50.
    distribution : str, default "uniform-elements"
        One of :data:`TRUE_UM_DISTRIBUTIONS` drawn element by element (the registry
        :mod:`mcrank.distributions` describes each; the first is the default).
    sd : float, default 1/3
        Only for a distribution that reads it (``gaussian-elements``).
    normalise : bool, default True
        Bring each matrix to the standard form of eq. (11) (min 0, max 1), as the study
        does; False gives the columns as drawn.
    rng : int, SeedSequence, Generator or None

    Returns
    -------
    ndarray of shape (size, classes, classes)
        Rows = output, columns = true class.
    """
    chosen = check_choice(distribution, {d.name: d for d in _element_distributions}, "element distribution")
    sd = check_sd(sd)
    if chosen.check is not None:
        chosen.check(sd, "sd", 'distribution="{}"')
    n = _check_classes(classes)
    out = np.empty((check_count(size, "size", minimum=0), n, n))
    _fill_utility(resolve_rng(rng), chosen.code, sd, bool(normalise), out)
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
