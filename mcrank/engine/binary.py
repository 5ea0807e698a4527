"""The two-class kernels of the Monte Carlo study (paper §4.2; ``docs/method.md``, "The Monte Carlo study").

Each sample is one pair of classifiers evaluated on one test set:

1. a true utility matrix ``U = U(x, y)``, eq. (12);
2. a class proportion ``p``, shared by both classifiers;
3. TPR and TNR ``(a1, b1)``, ``(a2, b2)`` of the two classifiers;
4. for every error sd ``s`` of the grid, a perturbed utility matrix ``U'``;
5. ``d_true = yield(U, C2) - yield(U, C1)``, ``d_m = m(C2) - m(C1)`` for every metric, and
   ``d_s = yield(U', C2) - yield(U', C1)``;
6. the pair is correctly ranked by ``m`` (or by ``U'``) only if ``d_true`` and ``d_m`` are both
   > 0 or both < 0; ties count as incorrect (:func:`mcrank.ranking._ranked_correctly`).

One fused kernel does all of it and only accumulates counts: memory does not grow with the
number of samples. It is compiled for what a study runs (its :class:`Variant`: the error
model's family, a finite test set or not, Beta rates or not), not every branch of every study.
It works on blocks of 256 pairs held in small buffers: each kind of variate is drawn in a loop
that only draws, and the arithmetic on a block then vectorises.
The sd grid uses common random numbers: every ``s`` sees the same base samples (steps 1-3)
and redraws only step 4.

Step 6 needs only the sign of ``d_m``. The counting kernel takes it from each metric's order
form (:func:`mcrank.metrics._order_into`, generated from the metric registry): every metric increases with a ratio N/D, so
``d_m`` has the sign of ``N2 D1 - N1 D2``: sums and products instead of the definitions'
divisions and roots. Blocks with a cell below :data:`mcrank.metrics.ORDER_MIN_CELL` fall back
on the definitions. :func:`sample_pairs`, which returns the differences, uses the
definitions.

Under the ``gaussian`` error model (any with :attr:`~mcrank.error_models.ErrorModel.closed_form`), ``d_s = d_true + sum_ij E_ij (C2 - C1)_ij`` with the
``E_ij`` independent N(0, s^2), which is exactly ``d_true + s * ||C2 - C1||_F * Z`` with one
standard normal ``Z``: the ``sample`` estimator draws that one variate instead of four, and
the ``conditional`` one (the default) draws none and adds the probability that ``Z`` ranks
the pair incorrectly (:mod:`mcrank.engine.conditional`). ``U' - U`` then has
sd ``s`` by construction, which is what ``realised_sd`` reports. Under ``truncated``, the four
elements are drawn, for many pairs and sds at once, by the exact sampler
:func:`mcrank.samplers._fill_truncated_columns`, and the realised sd is measured.

On a finite test set of N items (``docs/method.md``, "Finite test sets"), each pair's counts
are drawn after step 3 with numba's exact binomial sampler: the positives of the test set
``K ~ Binomial(N, p)``, then each classifier's true positives ``~ Binomial(K, TPR)`` and true
negatives ``~ Binomial(N - K, TNR)``. The metrics are scored on those counts (by their
definitions: a count may be 0, and 0/0 is NaN, which step 6 counts as incorrect), and the
yields of the true and perturbed utility matrices on the observed fractions, while
``d_true`` stays the population's. Ties and NaN differences are also counted apart.

The kernels' parameters travel as named tuples: :class:`BinaryStudy` in,
:class:`mcrank.engine.counts.StudyCounts` out. :func:`count_chunk` is the chunk function :func:`mcrank.engine.runner.run_chunks` runs:
chunk ``k`` draws steps 1-3 from child ``(k, 0)`` of the root seed, step 4 from child
``(k, 1)`` and the test set's counts from child ``(k, 2)``, so the metric counts of one seed
are the same whatever the sd grid or the error model, and the population and every test-set
size share their base samples (common random numbers).
"""

from __future__ import annotations

import functools
import math
import threading
from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.confusion import _cells_from_pab
from mcrank.engine.conditional import _incorrect_probabilities, _sum_and_squares
from mcrank.engine.counts import chunk_counts, new_counts
from mcrank.engine.runner import ChunkCounts, chunk_generators
from mcrank.error_models import ERROR_MODELS
from mcrank.metrics import ORDER_MIN_CELL, _order_into, _score_into
from mcrank.ranking import _ranked_correctly, _tied
from mcrank.samplers import (
    _draw_ordered_column,
    _draw_rate,
    _fill_hexagon,
    _fill_truncated_columns,
    _rate_from_uniform,
)
from mcrank.study.config import StudyConfig, kernel_arguments
from mcrank.utility_space import _um_from_xy, _yield_pab

__all__ = ["BinaryStudy", "Variant", "count_chunk", "record_pairs", "study_arguments", "variant"]


class BinaryStudy(NamedTuple):
    """A :class:`~mcrank.study.StudyConfig` as the kernels take it: codes and arrays."""

    true_um: int  # code in mcrank.samplers.TRUE_UM_DISTRIBUTIONS
    true_um_sd: float
    p_low: float
    p_high: float
    rate_alpha: float
    rate_beta: float
    rate_low: float
    rate_high: float
    error: int  # code in mcrank.samplers.ERROR_MODELS
    fbeta_beta: float
    metric_codes: np.ndarray  # int64, codes in mcrank.metrics.METRICS
    sds: np.ndarray  # float64
    test_size: int  # items in the test set; 0 for the population
    conditional: bool  # the conditional estimator (gaussian errors), else the sample one


class TruncatedWork(NamedTuple):
    """The work space of :func:`_truncated_differences` for one sd grid (see
    :func:`_truncated_workspace`)."""

    order: np.ndarray
    active: int
    zero: int
    shift: int
    pairs: int
    ordered_sds: np.ndarray
    means: np.ndarray
    v: np.ndarray
    pool: np.ndarray
    cursor: np.ndarray
    todo: np.ndarray
    columns: np.ndarray
    pair_deviations: np.ndarray
    d_perturbed: np.ndarray


class Variant(NamedTuple):
    """The compile-time choices of the two-class kernels, taken from a study by :func:`variant`.

    A kernel made for a variant (:func:`_chunk_counter`, :func:`_pairs_recorder`) holds only
    the code its study runs: numba drops an ``if`` on a closure's constant before typing, and
    compiles only the functions the kept code calls. A gaussian study over the population
    then compiles neither the truncated sampler nor the binomial one. numba's cache keys a
    closure on the values of its cells, and each variant has a name of its own
    (:func:`_specialised`), so variants never load each other's code. A variant only leaves out
    branches its study never takes: what a study draws, and in which order, does not depend on
    it. The estimator is left to the run: its two branches cost less to compile than a kernel
    of their own (``docs/performance.md``).
    """

    closed_form: bool  # the error model has a closed form (gaussian), else its columns are drawn (truncated)
    finite: bool  # a finite test set, else the population
    beta_rates: bool  # rates from Beta(alpha, beta) with beta != 1, else by inverting a uniform

    @property
    def label(self) -> str:
        """The flags set, for the kernels' names."""
        return ",".join(name for name, on in self._asdict().items() if on) or "none"


def variant(study: BinaryStudy) -> Variant:
    """The :class:`Variant` of the kernels that ``study`` runs."""
    closed_form = list(ERROR_MODELS.values())[study.error].closed_form
    return Variant(bool(closed_form), bool(study.test_size > 0), bool(study.rate_beta != 1.0))


#: Held while a factory makes a variant's kernel (:func:`_once_per_variant`).
_FACTORY_LOCK = threading.RLock()


def _once_per_variant(factory):
    """``factory``, cached, and called under a lock: the threads of the threading backend that
    start a study at once ask for the same variant, and each would otherwise make a kernel of
    its own, which numba compiles (or loads from its cache) once per thread."""
    made = functools.cache(factory)

    @functools.wraps(factory)
    def kernel(key):
        with _FACTORY_LOCK:
            return made(key)

    return kernel


def _specialised(kernel, label: str):
    """``kernel``, made by a factory, named after its variant ``label``: numba's cache files are
    named after a function's qualified name, so each variant has files of its own."""
    kernel.__qualname__ = kernel.py_func.__qualname__ = f"{kernel.__name__}[{label}]"
    return kernel


# --- kernels -----------------------------------------------------------------------------------


@jit
def _yield_difference(u00, u01, u10, u11, p, a1, b1, a2, b2):
    """yield(U, C2) - yield(U, C1), eq. (9), for two classifiers on one test set."""
    return _yield_pab(u00, u01, u10, u11, p, a2, b2) - _yield_pab(u00, u01, u10, u11, p, a1, b1)


@jit(inline="always")
def _gaussian_spread(p, a1, b1, a2, b2):
    """||C2 - C1||_F for two classifiers on one test set (class-0 fraction p).

    Under the ``gaussian`` error model, ``sum_ij E_ij (C2 - C1)_ij`` with ``E_ij`` iid
    N(0, s^2) is N(0, s^2 ||C2 - C1||_F^2): ``d_s = d_true + s * spread * Z``, one draw.
    """
    da = p * (a2 - a1)
    db = (1.0 - p) * (b2 - b1)
    return math.sqrt(2.0 * (da * da + db * db))


@jit
def _gaussian_spreads(rates, m, out):
    """:func:`_gaussian_spread` of the first ``m`` pairs of a block, into ``out``."""
    for i in range(m):
        out[i] = _gaussian_spread(rates[0, i], rates[1, i], rates[2, i], rates[3, i], rates[4, i])


@jit(inline="always")
def _deviations(u00, u01, u10, u11, v00, v01, v10, v11):
    """The sum of the elements of ``U' - U``, and the sum of their squares."""
    total = (v00 - u00) + (v01 - u01) + (v10 - u10) + (v11 - u11)
    squares = (v00 - u00) ** 2 + (v01 - u01) ** 2 + (v10 - u10) ** 2 + (v11 - u11) ** 2
    return total, squares


@jit(inline="always")
def _truncated_perturbed_difference(rng, u00, u01, u10, u11, s, p, a1, b1, a2, b2):
    """Steps 4-5 for one sd under ``truncated``, one column at a time (used for sd > 1):
    (d_s, sum of U' - U, sum of its squares)."""
    v00, v10 = _draw_ordered_column(rng, u00, u10, s)
    v11, v01 = _draw_ordered_column(rng, u11, u01, s)
    return (_yield_difference(v00, v01, v10, v11, p, a1, b1, a2, b2), *_deviations(u00, u01, u10, u11, v00, v01, v10, v11))


#: Pairs processed together. Steps 1-3 draw a block at a time (the hexagon points, then the
#: class proportions and rates), and the metrics are scored a block at a time, one metric
#: per loop, which the compiler vectorises. The order of the variates, and so the counts of
#: a seed, depend on this constant.
_BLOCK = 256

#: Upper bound on the elements x sds whose ``truncated`` perturbations are drawn together:
#: a few pairs at a time, so that the work space stays in cache whatever the sd grid.
_TRUNCATED_ITEMS = 8192


@jit
def _block_buffers():
    """The buffers of one block: utility (4, B), rates (5, B), cells (8, B), d_true and
    d_metric (B,), as :func:`_draw_block` and :func:`_metric_differences` use them."""
    return (np.empty((4, _BLOCK)), np.empty((5, _BLOCK)), np.empty((8, _BLOCK)), np.empty(_BLOCK), np.empty(_BLOCK))


@_once_per_variant
def _block_drawer(beta_rates: bool):
    """The kernel of steps 1-3 (:func:`_draw_block`), for rates drawn from Beta(alpha, beta)
    with ``beta != 1`` (``beta_rates``) or by inverting a uniform (the default Beta(2, 1)): the
    Beta sampler is compiled only into the variant that draws it (see :class:`Variant`)."""

    @jit
    def _draw_block(rng, study, m, utility, rates, cells, d_true):
        """Steps 1-3 for the first ``m`` pairs of a block, into its buffers.

        ``utility`` (4, block): U00, U01, U10, U11; ``rates`` (5, block): p, a1, b1, a2, b2;
        ``cells`` (8, block): the cells of C1 then of C2; ``d_true`` (block,):
        yield(U, C2) - yield(U, C1). Whole buffers and their rows, never slices, are passed
        around: a slice has a layout the compiler does not vectorise.

        The variates are drawn a kind at a time, each in a loop that only draws: the hexagon
        points, then p, a1, b1, a2 and b2 of every pair in turn, whose transforms then vectorise.
        """
        _fill_hexagon(rng, study.true_um, study.true_um_sd, m, utility[0], utility[1])
        p_low, p_high, alpha, beta, low, high = (
            study.p_low,
            study.p_high,
            study.rate_alpha,
            study.rate_beta,
            study.rate_low,
            study.rate_high,
        )
        if not beta_rates:  # Beta(alpha, 1) by inverting a uniform
            for r in range(5):
                row = rates[r]
                for i in range(m):
                    row[i] = rng.random()
            for r in range(1, 5):
                row = rates[r]
                for i in range(m):
                    row[i] = _rate_from_uniform(row[i], alpha, low, high)
        else:
            for i in range(m):
                rates[0, i] = rng.random()
                for r in range(1, 5):
                    rates[r, i] = _draw_rate(rng, alpha, beta, low, high)
        # Several short loops rather than one: a loop that writes 14 rows has too many possible
        # overlaps between them for the compiler to check, and stays scalar (docs/performance.md,
        # "Notes behind the code").
        u00, u01, u10, u11 = utility[0], utility[1], utility[2], utility[3]
        for i in range(m):
            u00[i], u01[i], u10[i], u11[i] = _um_from_xy(u00[i], u01[i])  # from (x, y)
        p = rates[0]
        for i in range(m):
            p[i] = p_low + (p_high - p_low) * p[i]
        for k in range(2):
            a, b = rates[1 + 2 * k], rates[2 + 2 * k]
            c00, c01, c10, c11 = cells[4 * k], cells[4 * k + 1], cells[4 * k + 2], cells[4 * k + 3]
            for i in range(m):
                c00[i], c01[i], c10[i], c11[i] = _cells_from_pab(p[i], a[i], b[i])
        a1, b1, a2, b2 = rates[1], rates[2], rates[3], rates[4]
        for i in range(m):
            d_true[i] = _yield_difference(u00[i], u01[i], u10[i], u11[i], p[i], a1[i], b1[i], a2[i], b2[i])

    return _specialised(_draw_block, "beta" if beta_rates else "uniform")


_draw_block_uniform, _draw_block_beta = _block_drawer(False), _block_drawer(True)


@jit
def _observe_block(rng, size, m, utility, rates, observed, cells, d_observed):
    """A finite test set of ``size`` items for each of the first ``m`` pairs of a block.

    Draws the counts (exact binomials): the positives ``K ~ Binomial(size, p)``, then for
    each classifier TP ``~ Binomial(K, a)`` and TN ``~ Binomial(size - K, b)``. Writes the
    counts into ``cells`` (TP, FP, FN, TN of C1, then of C2), the observed fractions as
    (p, a1, b1, a2, b2) into ``observed`` (a rate of an absent class is 0: it multiplies
    p = 0 or 1 - p = 0), and the yield difference on them into ``d_observed``.
    """
    total = float(size)
    for i in range(m):
        positives = rng.binomial(size, rates[0, i])
        negatives = size - positives
        observed[0, i] = positives / total
        for k in range(2):
            tp = rng.binomial(positives, rates[1 + 2 * k, i])
            tn = rng.binomial(negatives, rates[2 + 2 * k, i])
            cells[4 * k, i], cells[4 * k + 1, i] = tp, negatives - tn
            cells[4 * k + 2, i], cells[4 * k + 3, i] = positives - tp, tn
            observed[1 + 2 * k, i] = tp / positives if positives > 0 else 0.0
            observed[2 + 2 * k, i] = tn / negatives if negatives > 0 else 0.0
    for i in range(m):
        d_observed[i] = _yield_difference(
            utility[0, i], utility[1, i], utility[2, i], utility[3, i],
            observed[0, i], observed[1, i], observed[2, i], observed[3, i], observed[4, i],
        )  # fmt: skip


@jit(inline="always")
def _metric_differences(code, fbeta_beta, cells, out):
    """Step 5 for one metric over a whole block: ``out = m(C2) - m(C1)``, in one pass.

    Beyond the pairs drawn in a last, partial block the buffers hold stale values; their
    scores are computed and ignored.
    """
    _score_into(code, (cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7]), fbeta_beta, out)


@jit
def _cells_orderable(cells, m):
    """Whether the first ``m`` pairs of a block can be counted by :func:`_metric_orders`:
    every cell at least :data:`mcrank.metrics.ORDER_MIN_CELL` (they are at most 1)."""
    small = 0
    for r in range(8):
        row = cells[r]
        for i in range(m):
            small += row[i] < ORDER_MIN_CELL
    return small == 0


@jit(inline="always")
def _metric_orders(code, fbeta_beta, cells, out):
    """A number with the sign of ``m(C2) - m(C1)`` for one metric over a whole block: what
    step 6 compares, without the divisions and roots of :func:`_metric_differences` (about
    three times cheaper). Only for blocks that pass :func:`_cells_orderable`."""
    _order_into(code, (cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7]), fbeta_beta, out)


@jit
def _truncated_workspace(sds):
    """What :func:`_truncated_differences` needs for the sd grid ``sds``.

    The sds are taken in the order ``order``: first those in (0, 1], which go through
    :func:`mcrank.samplers._fill_truncated_columns` a few pairs at a time, then those equal
    to 0 (no draw: U' = U), then those above 1, column by column with uniform proposals.
    Per-sd results are kept in that order and put back in the caller's at the end.
    """
    active = np.nonzero((sds > 0.0) & (sds <= 1.0))[0]
    zero = np.nonzero(sds == 0.0)[0]
    order = np.concatenate((active, zero, np.nonzero(sds > 1.0)[0]))
    shift = 0
    while (1 << shift) < active.size:
        shift += 1
    pairs = max(1, min(_BLOCK, _TRUNCATED_ITEMS // (4 << shift)))
    size = (4 * pairs) << shift
    pool = np.empty(2 * size)
    return TruncatedWork(
        order=order,
        active=active.size,
        zero=zero.size,
        shift=shift,
        pairs=pairs,
        ordered_sds=sds[order].copy(),
        means=np.empty(4 * pairs),
        v=np.empty(size),
        pool=pool,
        cursor=np.full(1, pool.size, dtype=np.int64),
        todo=np.empty(size + 2, dtype=np.uint64),
        columns=np.empty(size // 2, dtype=np.uint64),
        pair_deviations=np.empty((2, pairs)),
        d_perturbed=np.empty((pairs, sds.size)),
    )


@jit
def _truncated_differences(rng, work, utility, rates, d_true, first, count, deviation_sum, deviation_squares):
    """Steps 4-5 under ``truncated`` for pairs ``first .. first + count - 1`` of a block, at
    every sd: ``d_s`` of pair ``first + q`` at the ``k``-th sd of the workspace's order into
    ``work.d_perturbed[q, k]``; the sums of ``U' - U`` and of its squares added into the
    deviation buffers (same order)."""
    order, active, zero, shift, ordered_sds = work.order, work.active, work.zero, work.shift, work.ordered_sds
    means, v, pair_deviations, d_out = work.means, work.v, work.pair_deviations, work.d_perturbed
    if active > 0:
        for q in range(count):
            i = first + q
            # Columns (U00, U10) and (U11, U01): diagonal element first.
            means[4 * q], means[4 * q + 1] = utility[0, i], utility[2, i]
            means[4 * q + 2], means[4 * q + 3] = utility[3, i], utility[1, i]
        _fill_truncated_columns(rng, means[: 4 * count], ordered_sds[:active], shift, v, work.pool, work.cursor, work.todo, work.columns)
    if active == 1 and order.size == 1:
        # One sd (shift 0: pair q's elements are v[4 q : 4 q + 4]): a loop over the pairs
        # rather than loops of one sd per pair, and with no sum in it, so that it vectorises;
        # then the deviations are added in the same order as pair by pair.
        d = d_out.reshape(-1)  # d_out[:, 0], contiguous
        pair_total, pair_squares = pair_deviations[0], pair_deviations[1]
        # Row views from the first pair, indexed from 0 (as below).
        u00, u01, u10, u11 = utility[0, first:], utility[1, first:], utility[2, first:], utility[3, first:]
        p, a1, b1, a2, b2 = rates[0, first:], rates[1, first:], rates[2, first:], rates[3, first:], rates[4, first:]
        for q in range(count):
            v00, v10, v11, v01 = v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]
            d[q] = _yield_difference(v00, v01, v10, v11, p[q], a1[q], b1[q], a2[q], b2[q])
            pair_total[q], pair_squares[q] = _deviations(u00[q], u01[q], u10[q], u11[q], v00, v01, v10, v11)
        total, squares = deviation_sum[0], deviation_squares[0]
        for q in range(count):
            total += pair_total[q]
            squares += pair_squares[q]
        deviation_sum[0], deviation_squares[0] = total, squares
        return
    for q in range(count):
        i = first + q
        u00, u01, u10, u11 = utility[0, i], utility[1, i], utility[2, i], utility[3, i]
        p, a1, b1, a2, b2 = rates[0, i], rates[1, i], rates[2, i], rates[3, i], rates[4, i]
        # Row views, indexed from 0: no negative-index check in the loop, which vectorises.
        row = (4 * q) << shift
        stride = 1 << shift
        r00, r10 = v[row : row + active], v[row + stride : row + stride + active]
        r11, r01 = v[row + 2 * stride : row + 2 * stride + active], v[row + 3 * stride : row + 3 * stride + active]
        d = d_out[q]
        for j in range(active):
            v00, v10, v11, v01 = r00[j], r10[j], r11[j], r01[j]
            d[j] = _yield_difference(v00, v01, v10, v11, p, a1, b1, a2, b2)
            total, squares = _deviations(u00, u01, u10, u11, v00, v01, v10, v11)
            deviation_sum[j] += total
            deviation_squares[j] += squares
        for k in range(active, active + zero):
            d[k] = d_true[i]
        for k in range(active + zero, order.size):
            d[k], total, squares = _truncated_perturbed_difference(rng, u00, u01, u10, u11, ordered_sds[k], p, a1, b1, a2, b2)
            deviation_sum[k] += total
            deviation_squares[k] += squares


@_once_per_variant
def _chunk_counter(variant: Variant):
    """The counting kernel ``_count_chunk(rng, rng_error, rng_counts, n, study, counts)`` of
    the studies of ``variant`` (a :class:`Variant`)."""
    closed_form, finite, beta_rates = variant

    @jit
    def _count_chunk(rng, rng_error, rng_counts, n, study, counts):
        """Run ``n`` samples of ``study`` (a :class:`BinaryStudy`) and add their incorrect-ranking
        counts into ``counts`` (a :class:`~mcrank.engine.counts.StudyCounts`).

        Steps 1-3 draw from ``rng``, step 4 from ``rng_error``, a finite test set's counts from
        ``rng_counts``: the base samples, and so the metric counts, do not depend on the sd grid
        or the error model.
        """
        metric_codes, fbeta_beta, sds = study.metric_codes, study.fbeta_beta, study.sds
        metric_incorrect, utility_incorrect = counts.metric_incorrect, counts.utility_incorrect
        deviation_sum, deviation_squares = counts.deviation_sum, counts.deviation_squares
        metric_tied, utility_tied = counts.metric_tied, counts.utility_tied
        utility, rates, cells, d_true, d_metric = _block_buffers()
        direction, spread, normals = np.empty(_BLOCK), np.empty(_BLOCK), np.empty(_BLOCK)
        probability_sum, probability_squares = counts.probability_sum, counts.probability_squares
        probabilities = np.empty(_BLOCK)
        # A finite test set: the yields of steps 4-5 are taken on the observed fractions.
        observed, d_observed = np.empty((5, _BLOCK)), np.empty(_BLOCK)
        scored_rates = observed if finite else rates
        d_scored = d_observed if finite else d_true
        if not closed_form:
            work = _truncated_workspace(sds)
            order, pairs, d_perturbed = work.order, work.pairs, work.d_perturbed
            # Counts and deviation sums in the workspace's order of the sds.
            incorrect_sd, tied_sd = np.zeros(sds.size, dtype=np.int64), np.zeros(sds.size, dtype=np.int64)
            sum_sd, squares_sd = np.zeros(sds.size), np.zeros(sds.size)
        for start in range(0, n, _BLOCK):
            m = min(_BLOCK, n - start)
            if beta_rates:
                _draw_block_beta(rng, study, m, utility, rates, cells, d_true)
            else:
                _draw_block_uniform(rng, study, m, utility, rates, cells, d_true)
            for i in range(m):
                direction[i] = np.sign(d_true[i])
            if finite:
                _observe_block(rng_counts, study.test_size, m, utility, rates, observed, cells, d_observed)
                for k in range(metric_codes.size):
                    _metric_differences(metric_codes[k], fbeta_beta, cells, d_metric)
                    incorrect = tied = 0
                    for i in range(m):
                        incorrect += not _ranked_correctly(direction[i], d_metric[i])
                        tied += _tied(d_metric[i])
                    metric_incorrect[k] += incorrect
                    metric_tied[k] += tied
            else:
                # Only the signs are counted: by the order forms where every cell allows them (at
                # the paper's settings, all but about one block in 4 x 10^12: a cell is 0 only when
                # p or 1 - rate rounds to 0), by the definitions themselves where some cell is tiny.
                orderable = _cells_orderable(cells, m)
                for k in range(metric_codes.size):
                    if orderable:
                        _metric_orders(metric_codes[k], fbeta_beta, cells, d_metric)
                    else:
                        _metric_differences(metric_codes[k], fbeta_beta, cells, d_metric)
                    incorrect = 0
                    for i in range(m):
                        incorrect += not _ranked_correctly(direction[i], d_metric[i])
                    metric_incorrect[k] += incorrect
            if closed_form and study.conditional:
                _gaussian_spreads(scored_rates, m, spread)
                for k in range(sds.size):
                    _incorrect_probabilities(direction, d_scored, spread, sds[k], m, probabilities)
                    total, squares = _sum_and_squares(probabilities, m)
                    probability_sum[k] += total
                    probability_squares[k] += squares
                if finite:  # identical counts tie under every utility matrix, whatever the sd
                    tied = 0
                    for i in range(m):
                        tied += (spread[i] == 0.0) & (d_scored[i] == 0.0)
                    for k in range(sds.size):
                        utility_tied[k] += tied
            elif closed_form:
                _gaussian_spreads(scored_rates, m, spread)
                for k in range(sds.size):
                    # A block of normals per sd, drawn first: the comparison loop then vectorises.
                    for i in range(m):
                        normals[i] = rng_error.standard_normal()
                    incorrect = 0
                    for i in range(m):
                        incorrect += not _ranked_correctly(direction[i], d_scored[i] + sds[k] * spread[i] * normals[i])
                    utility_incorrect[k] += incorrect
                    if finite:
                        tied = 0
                        for i in range(m):
                            tied += _tied(d_scored[i] + sds[k] * spread[i] * normals[i])
                        utility_tied[k] += tied
            else:  # the other error model the two-class kernels draw: truncated, by its column sampler
                for first in range(0, m, pairs):
                    count = min(pairs, m - first)
                    _truncated_differences(rng_error, work, utility, scored_rates, d_scored, first, count, sum_sd, squares_sd)
                    for q in range(count):
                        d = d_perturbed[q]
                        for k in range(sds.size):
                            incorrect_sd[k] += not _ranked_correctly(direction[first + q], d[k])
                            tied_sd[k] += _tied(d[k])
        if not closed_form:
            for k in range(sds.size):
                utility_incorrect[order[k]] += incorrect_sd[k]
                if finite:
                    utility_tied[order[k]] += tied_sd[k]
                deviation_sum[order[k]] += sum_sd[k]
                deviation_squares[order[k]] += squares_sd[k]

    return _specialised(_count_chunk, variant.label)


@_once_per_variant
def _pairs_recorder(variant: Variant):
    """The recording kernel ``_record_pairs(rng, rng_error, rng_counts, study, d_true_out,
    d_metric_out, d_utility_out)`` of the studies of ``variant``; it draws the errors whatever
    the estimator."""
    closed_form, finite, beta_rates = variant

    @jit
    def _record_pairs(rng, rng_error, rng_counts, study, d_true_out, d_metric_out, d_utility_out):
        """Run ``d_true_out.size`` samples of the same procedure, keeping every difference."""
        metric_codes, fbeta_beta, sds = study.metric_codes, study.fbeta_beta, study.sds
        n = d_true_out.size
        utility, rates, cells, d_true, d_metric = _block_buffers()
        spread = np.empty(_BLOCK)
        observed, d_observed = np.empty((5, _BLOCK)), np.empty(_BLOCK)
        scored_rates = observed if finite else rates
        d_scored = d_observed if finite else d_true
        if not closed_form:
            work = _truncated_workspace(sds)
            order, pairs, d_perturbed = work.order, work.pairs, work.d_perturbed
            deviation_sum, deviation_squares = np.zeros(sds.size), np.zeros(sds.size)
        for start in range(0, n, _BLOCK):
            m = min(_BLOCK, n - start)
            if beta_rates:
                _draw_block_beta(rng, study, m, utility, rates, cells, d_true)
            else:
                _draw_block_uniform(rng, study, m, utility, rates, cells, d_true)
            d_true_out[start : start + m] = d_true[:m]
            if finite:
                _observe_block(rng_counts, study.test_size, m, utility, rates, observed, cells, d_observed)
            for k in range(metric_codes.size):
                _metric_differences(metric_codes[k], fbeta_beta, cells, d_metric)
                d_metric_out[k, start : start + m] = d_metric[:m]
            if closed_form:
                _gaussian_spreads(scored_rates, m, spread)
                for k in range(sds.size):
                    for i in range(m):
                        d_utility_out[k, start + i] = d_scored[i] + sds[k] * spread[i] * rng_error.standard_normal()
            else:
                for first in range(0, m, pairs):
                    count = min(pairs, m - first)
                    _truncated_differences(rng_error, work, utility, scored_rates, d_scored, first, count, deviation_sum, deviation_squares)
                    for q in range(count):
                        for k in range(sds.size):
                            d_utility_out[order[k], start + first + q] = d_perturbed[q, k]

    return _specialised(_record_pairs, variant.label)


def _count_chunk(rng, rng_error, rng_counts, n, study, counts):
    """The counting kernel of ``study``'s variant (:func:`_chunk_counter`) run on these arguments."""
    _chunk_counter(variant(study))(rng, rng_error, rng_counts, n, study, counts)


def _record_pairs(rng, rng_error, rng_counts, study, d_true_out, d_metric_out, d_utility_out):
    """The recording kernel of ``study``'s variant (:func:`_pairs_recorder`) run on these arguments."""
    _pairs_recorder(variant(study))(rng, rng_error, rng_counts, study, d_true_out, d_metric_out, d_utility_out)


# --- the public API ----------------------------------------------------------------------------


# --- the wrappers: config in, counts out -------------------------------------------------------


def study_arguments(config: StudyConfig) -> BinaryStudy:
    """The kernels' parameters of a (valid) study."""
    return kernel_arguments(config, BinaryStudy)


def count_chunk(root: np.random.SeedSequence, chunk: int, size: int, study: BinaryStudy) -> ChunkCounts:
    """Counts of chunk number ``chunk``: steps 1-3 from child (chunk, 0), step 4 from (chunk, 1),
    a finite test set's counts from (chunk, 2).

    See :func:`mcrank.engine.counts.chunk_counts` for what it returns.
    """
    counts = new_counts(study)
    rng, rng_error, rng_counts = chunk_generators(root, chunk, 3)
    _count_chunk(rng, rng_error, rng_counts, size, study, counts)
    return chunk_counts(counts, study.conditional)


def record_pairs(study: BinaryStudy, size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every difference of ``size`` pairs: ``d_true`` (size,), ``d_metric`` (metrics, size),
    ``d_utility`` (sds, size), all drawn from ``rng``."""
    d_true = np.empty(size)
    d_metric = np.empty((study.metric_codes.size, size))
    d_utility = np.empty((study.sds.size, size))
    _record_pairs(rng, rng, rng, study, d_true, d_metric, d_utility)
    return d_true, d_metric, d_utility
