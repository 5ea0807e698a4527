"""The n-class kernel of the Monte Carlo study (``docs/method.md``, "The n-class study").

Each sample is one pair of classifiers on one test set with n classes (rows = output, columns =
true class):

1. a true utility matrix ``U``: ``uniform-elements`` (in each column n uniforms, the largest
   on the diagonal) or ``gaussian-elements`` (each column N(I, sd^2) conditioned on [0, 1] and
   its diagonal the largest), normalised by eq. (11); at n = 2 also the paper's hexagon ones;
2. class proportions ``p ~ Dirichlet(alpha, ..., alpha)`` (the hexagon ones: the paper's
   uniform ``p``);
3. each classifier's column ``P(. | j)``: recall ``r_j = low + (high - low) Beta(a, b)`` on the
   diagonal, ``1 - r_j`` split over the other outputs by Dirichlet(1, ..., 1); ``C_ij = p_j P(i | j)``;
4. errors on all n^2 elements of ``U``, by any error model (:mod:`mcrank.error_models`,
   :func:`mcrank.samplers._perturb_into`);
5.-6. as for two classes, with the metrics' n-class forms (:func:`mcrank.metrics._score_matrix`),
   each matrix's margins computed once for all of them.

On a finite test set, the class counts ``K ~ Multinomial(N, p)`` and each classifier's columns
``F_.j ~ Multinomial(K_j, P(. | j))`` are drawn exactly (:func:`mcrank.samplers._draw_multinomial`),
and the metrics and yields are scored on them. Under ``gaussian`` errors (any error model with
:attr:`~mcrank.error_models.ErrorModel.closed_form`) the perturbed
difference is ``d + s ||C2 - C1||_F Z`` for any n, so the ``conditional`` estimator
(:mod:`mcrank.engine.conditional`) and the one-normal ``sample`` estimator carry over.

One fused kernel draws and counts, pair by pair, with every buffer allocated once per chunk:
memory does not grow with the number of samples. Streams as for two classes: chunk ``k``
draws steps 1-3 from child ``(k, 0)``, step 4 from ``(k, 1)``, the test set from ``(k, 2)``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.engine.conditional import _incorrect_probabilities, _sum_and_squares
from mcrank.engine.counts import _add_deviations, chunk_counts, new_counts
from mcrank.engine.runner import ChunkCounts, chunk_generators
from mcrank.metrics import _margins, _metric_difference, _score_matrix
from mcrank.ranking import _ranked_correctly, _tied
from mcrank.samplers import (
    _closed_form,
    _draw_columns,
    _draw_multinomial,
    _draw_proportions,
    _draw_utility,
    _on_hexagon,
    _perturb_into,
)
from mcrank.study.config import StudyConfig, kernel_arguments

__all__ = ["NClassStudy", "count_chunk", "study_arguments"]

#: Pairs whose differences are kept together, for the vectorised conditional estimator.
_BLOCK = 256


class NClassStudy(NamedTuple):
    """A :class:`~mcrank.study.StudyConfig` as the n-class kernel takes it."""

    classes: int
    true_um: int  # code in mcrank.samplers.TRUE_UM_DISTRIBUTIONS
    true_um_sd: float
    p_low: float  # the hexagon distributions' class-0 fraction (n = 2)
    p_high: float
    concentration: float  # Dirichlet alpha of the class proportions
    rate_alpha: float
    rate_beta: float
    rate_low: float
    rate_high: float
    error: int  # code in mcrank.samplers.ERROR_MODELS
    conditional: bool
    test_size: int  # 0 for the population
    fbeta_beta: float
    metric_codes: np.ndarray  # int64
    sds: np.ndarray  # float64


@jit(inline="always")
def _observe(rng, given, class_counts, counts, column_counts):
    """A finite test set's counts for one classifier into ``counts`` (n, n, float): column j
    ~ Multinomial(class_counts[j], given[j]); ``column_counts`` is work space (n,)."""
    n = given.shape[0]
    for j in range(n):
        _draw_multinomial(rng, class_counts[j], given[j], column_counts)
        for i in range(n):
            counts[i, j] = column_counts[i]


@jit(inline="always")
def _difference(u, first, second, scale):
    """sum_ij u_ij (second - first)_ij / scale, and ||second - first||_F / scale."""
    d, squares = 0.0, 0.0
    n = u.shape[0]
    for i in range(n):
        for j in range(n):
            delta = (second[i, j] - first[i, j]) / scale
            d += u[i, j] * delta
            squares += delta * delta
    return d, np.sqrt(squares)


@jit
def _count_chunk(rng, rng_error, rng_counts, size, study, counts):
    """Run ``size`` samples of ``study`` (a :class:`NClassStudy`) and add their counts into
    ``counts`` (a :class:`~mcrank.engine.counts.StudyCounts`)."""
    n, metric_codes, sds, beta = study.classes, study.metric_codes, study.sds, study.fbeta_beta
    finite = study.test_size > 0
    identity = np.eye(n)
    u, v, p, xy = np.empty((n, n)), np.empty((n, n)), np.empty(n), np.empty((2, 1))
    columns = (np.empty((n, n)), np.empty((n, n)))
    population = (np.empty((n, n)), np.empty((n, n)))
    observed = (np.empty((n, n)), np.empty((n, n)))
    class_counts, column_counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    row_sums, column_sums = (np.empty(n), np.empty(n)), (np.empty(n), np.empty(n))  # of the scored matrices
    direction, d_scored, spread = np.empty(_BLOCK), np.empty(_BLOCK), np.empty(_BLOCK)
    d_metric, probabilities = np.empty((metric_codes.size, _BLOCK)), np.empty(_BLOCK)
    scale = float(study.test_size) if finite else 1.0
    closed_form = _closed_form(study.error)
    for start in range(0, size, _BLOCK):
        m = min(_BLOCK, size - start)
        for q in range(m):
            _draw_utility(rng, study.true_um, study.true_um_sd, identity, xy, u)
            _draw_proportions(rng, _on_hexagon(study.true_um), study.p_low, study.p_high, study.concentration, p)
            for k in range(2):
                _draw_columns(rng, study.rate_alpha, study.rate_beta, study.rate_low, study.rate_high, columns[k])
                for i in range(n):
                    for j in range(n):
                        population[k][i, j] = p[j] * columns[k][j, i]
            d_true, norm = _difference(u, population[0], population[1], 1.0)
            direction[q] = np.sign(d_true)
            scored = population
            if finite:
                _draw_multinomial(rng_counts, study.test_size, p, class_counts)
                for k in range(2):
                    _observe(rng_counts, columns[k], class_counts, observed[k], column_counts)
                scored = observed
                d_scored[q], spread[q] = _difference(u, observed[0], observed[1], scale)
            else:
                d_scored[q], spread[q] = d_true, norm
            if metric_codes.size > 0:  # the margins once per matrix, for every metric
                first = _margins(scored[0], row_sums[0], column_sums[0])
                second = _margins(scored[1], row_sums[1], column_sums[1])
                for k in range(metric_codes.size):
                    code = metric_codes[k]
                    d_metric[k, q] = _metric_difference(
                        code, _score_matrix(code, scored[1], second, beta), _score_matrix(code, scored[0], first, beta)
                    )
            if closed_form and not study.conditional:
                for k in range(sds.size):
                    d = d_scored[q] + sds[k] * spread[q] * rng_error.standard_normal()
                    counts.utility_incorrect[k] += not _ranked_correctly(direction[q], d)
                    counts.utility_tied[k] += finite and _tied(d)
            elif not closed_form:
                for k in range(sds.size):
                    _perturb_into(rng_error, u, sds[k], study.error, v)
                    d, _ = _difference(v, scored[0], scored[1], scale)
                    counts.utility_incorrect[k] += not _ranked_correctly(direction[q], d)
                    counts.utility_tied[k] += finite and _tied(d)
                    _add_deviations(u, v, k, counts.deviation_sum, counts.deviation_squares)
        for k in range(metric_codes.size):
            incorrect = tied = 0
            for q in range(m):
                d = d_metric[k, q]
                incorrect += not _ranked_correctly(direction[q], d)
                tied += _tied(d)
            counts.metric_incorrect[k] += incorrect
            if finite:
                counts.metric_tied[k] += tied
        if closed_form and study.conditional:
            for k in range(sds.size):
                _incorrect_probabilities(direction, d_scored, spread, sds[k], m, probabilities)
                total, squares = _sum_and_squares(probabilities, m)
                counts.probability_sum[k] += total
                counts.probability_squares[k] += squares
            if finite:  # identical counts tie under every utility matrix, whatever the sd
                tied = 0
                for q in range(m):
                    tied += (spread[q] == 0.0) & (d_scored[q] == 0.0)
                for k in range(sds.size):
                    counts.utility_tied[k] += tied


def study_arguments(config: StudyConfig) -> NClassStudy:
    """The kernel's parameters of a (valid) study."""
    return kernel_arguments(config, NClassStudy)


def count_chunk(root: np.random.SeedSequence, chunk: int, size: int, study: NClassStudy) -> ChunkCounts:
    """Counts of chunk number ``chunk``: steps 1-3 from child (chunk, 0), step 4 from (chunk, 1),
    a finite test set's counts from (chunk, 2)."""
    counts = new_counts(study)
    rng, rng_error, rng_counts = chunk_generators(root, chunk, 3)
    _count_chunk(rng, rng_error, rng_counts, size, study, counts)
    return chunk_counts(counts, study.conditional)
