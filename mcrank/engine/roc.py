"""The kernel of the ROC/AUC study (``docs/method.md``, "The ROC/AUC study").

Each sample is one pair of scoring classifiers with binormal ROC curves (:mod:`mcrank.roc`)
on one population with two classes:

1. the fraction ``B`` of class 0, ``Uniform(0, 1)`` or fixed; a true utility matrix ``U`` from
   the hexagon, ``uniform`` or ``gaussian`` (:func:`mcrank.samplers._draw_utility`);
2. each classifier's ``mu ~ Uniform(low, high)`` and ``log sigma ~ Uniform(log low, log high)``;
3. the truth: the sign of ``Y*_2(U) - Y*_1(U)``, each classifier at its best threshold
   (eqs. 22-24). A difference of exactly 0, both best thresholds at the same corner, is a pair
   tied in truth: counted, and left out of every other count;
4. each score of :data:`mcrank.roc.ROC_SCORES` ranks the pair by its difference, and each
   perturbed matrix ``U'`` (any error model, :func:`mcrank.samplers._perturb_into`) by
   ``Y*_2(U') - Y*_1(U')``, each classifier at its best threshold under ``U'``. A tie or a
   NaN counts as incorrect (:func:`mcrank.ranking._ranked_correctly`).

One fused kernel draws and counts pair by pair, with its few buffers allocated once per chunk:
memory does not grow with the number of pairs. Chunk ``k`` draws steps 1-2 from child
``(k, 0)`` and the errors from ``(k, 1)``. The corner yields under a matrix depend on it and
``B`` only, so they are computed once for both classifiers, by the same expression: a pair
tied in truth has a difference of exactly 0.0.

Only signs are counted, and they are found with as little work as is exact: the truth's
difference in full, then each score's comparison (:attr:`mcrank.roc.RocScore.compare`) and
each ``U'`` by :func:`mcrank.roc._linear_compare`, the classifier the truth ranks lower first,
unless the error is too small to overturn the truth's lead (:func:`_perturbation_margin`).
Every count is the one of the two values computed in full.
"""

from __future__ import annotations

import math
import sys
from types import ModuleType
from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.engine import counts
from mcrank.engine.counts import _add_deviations
from mcrank.engine.runner import ChunkCounts, check_chunk_layout, check_chunk_values, chunk_generators
from mcrank.error_models import ERROR_MODELS
from mcrank.ranking import _ranked_correctly
from mcrank.roc import _DOMINANCE_MARGIN, _corners, _linear_compare, _linear_point, _roc_compare
from mcrank.samplers import (
    _closed_form,
    _draw_utility,
    _perturb_into,
)
from mcrank.study import StudyResult
from mcrank.study.config import StudyConfig, kernel_arguments

__all__ = ["RocStudy", "check_chunks", "count_chunk", "kernel", "study_arguments", "study_result"]


class RocStudy(NamedTuple):
    """A :class:`~mcrank.study.StudyConfig` of kind ``roc`` as the kernel takes it."""

    true_um: int  # code in mcrank.samplers.TRUE_UM_DISTRIBUTIONS (a hexagon one)
    true_um_sd: float
    random_prevalence: bool  # B ~ Uniform(0, 1), else B = prevalence
    prevalence: float
    mu_low: float
    mu_high: float
    log_sigma_low: float
    log_sigma_high: float
    error: int  # code in mcrank.samplers.ERROR_MODELS
    score_codes: np.ndarray  # int64, codes in mcrank.roc.ROC_SCORES
    sds: np.ndarray  # float64


@jit(inline="always")
def _yield_difference(u, prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """``Y*_2(u) - Y*_1(u)``, the corners once for both classifiers, and the best threshold's
    ``(f, t)`` of the better one (of the second on a tie)."""
    corner_low, corner_high, a, d = _corners(u[0, 0], u[0, 1], u[1, 0], u[1, 1], prevalence)
    f_1, t_1, first = _linear_point(a, d, mu_1, sigma_1, corner_low, corner_high)
    f_2, t_2, second = _linear_point(a, d, mu_2, sigma_2, corner_low, corner_high)
    if first > second:
        return second - first, f_1, t_1
    return second - first, f_2, t_2


@jit
def _yield_compare(u, prevalence, mu_1, sigma_1, mu_2, sigma_2):
    """A number with the sign of :func:`_yield_difference` (:func:`mcrank.roc._linear_compare`)."""
    corner_low, corner_high, a, d = _corners(u[0, 0], u[0, 1], u[1, 0], u[1, 1], prevalence)
    return _linear_compare(a, d, corner_low, corner_high, mu_1, sigma_1, mu_2, sigma_2)


@jit(inline="always")
def _perturbation_margin(u, v, prevalence, fpr, tpr):
    """A lower bound of ``|Y*_b(v) - Y*_w(v)| - |Y*_b(u) - Y*_w(u)|`` (negative: how much the
    perturbation ``e = v - u`` can take off the better classifier's lead), ``(fpr, tpr)`` the
    better classifier's best threshold under ``u``.

    ``Y*(v) = max_f <C(f), v>`` over the confusion matrices ``C(f)`` of the curve (eq. 21), so
    ``Y*_b(v) >= Y*_b(u) + <C_b, e>`` at the better one's best threshold under ``u``, and
    ``Y*_w(v) <= Y*_w(u) + <C_w, e>`` at the worse one's under ``v``, where
    ``<C, e> = B (t e00 + (1 - t) e10) + (1 - B)(f e01 + (1 - f) e11)`` is at most
    ``B max(e00, e10) + (1 - B) max(e01, e11)``.
    """
    e00, e01, e10, e11 = v[0, 0] - u[0, 0], v[0, 1] - u[0, 1], v[1, 0] - u[1, 0], v[1, 1] - u[1, 1]
    complement = 1.0 - prevalence
    better = prevalence * (tpr * e00 + (1.0 - tpr) * e10) + complement * (fpr * e01 + (1.0 - fpr) * e11)
    return better - (prevalence * max(e00, e10) + complement * max(e01, e11))


@jit(inline="always")
def _magnitude(m):
    """The sum of the absolute entries of a 2 x 2 matrix."""
    return abs(m[0, 0]) + abs(m[0, 1]) + abs(m[1, 0]) + abs(m[1, 1])


@jit(inline="always")
def _ordered(swap, mu_1, sigma_1, mu_2, sigma_2):
    """The two classifiers, the second first if ``swap``."""
    if swap:
        return mu_2, sigma_2, mu_1, sigma_1
    return mu_1, sigma_1, mu_2, sigma_2


@jit
def _count_chunk(rng, rng_error, size, study, incorrect, deviation_sum, deviation_squares):
    """Run ``size`` pairs of ``study`` (a :class:`RocStudy`) and add their counts:
    ``incorrect`` (int64) receives the scores', then the sds', then the pairs tied in truth;
    the deviation sums are per sd (truncated errors)."""
    codes, sds = study.score_codes, study.sds
    scores = codes.size
    tied = scores + sds.size
    identity, xy, u, v = np.eye(2), np.empty((2, 1)), np.empty((2, 2)), np.empty((2, 2))
    mu_width = study.mu_high - study.mu_low
    log_sigma_width = study.log_sigma_high - study.log_sigma_low
    for _ in range(size):
        prevalence = rng.random() if study.random_prevalence else study.prevalence
        _draw_utility(rng, study.true_um, study.true_um_sd, identity, xy, u)
        mu_1 = study.mu_low + mu_width * rng.random()
        sigma_1 = math.exp(study.log_sigma_low + log_sigma_width * rng.random())
        mu_2 = study.mu_low + mu_width * rng.random()
        sigma_2 = math.exp(study.log_sigma_low + log_sigma_width * rng.random())
        d_true, better_fpr, better_tpr = _yield_difference(u, prevalence, mu_1, sigma_1, mu_2, sigma_2)
        if d_true == 0.0:
            incorrect[tied] += 1
            continue
        direction = 1.0 if d_true > 0.0 else (-1.0 if d_true < 0.0 else math.nan)
        # A comparison is decided soonest when the worse classifier is evaluated first
        # (mcrank.roc._linear_compare); swapped, a difference changes sign exactly.
        swap = direction < 0.0
        worse_mu, worse_sigma, better_mu, better_sigma = _ordered(swap, mu_1, sigma_1, mu_2, sigma_2)
        ordered = -direction if swap else direction  # the direction of the ordered pair
        for k in range(scores):
            d = _roc_compare(codes[k], prevalence, worse_mu, worse_sigma, better_mu, better_sigma)
            incorrect[k] += not _ranked_correctly(ordered, d)
        # Far above the rounding of any Y* under u or v (at most a few ulps of their entries).
        rounding = _DOMINANCE_MARGIN * (_magnitude(u) + 1.0)
        for k in range(sds.size):
            _perturb_into(rng_error, u, sds[k], study.error, v)
            # A perturbation too small to overturn the truth's difference ranks the pair as it.
            lead = abs(d_true) + _perturbation_margin(u, v, prevalence, better_fpr, better_tpr)
            overturn = lead <= rounding + _DOMINANCE_MARGIN * _magnitude(v)
            if overturn:
                d = _yield_compare(v, prevalence, worse_mu, worse_sigma, better_mu, better_sigma)
                incorrect[scores + k] += not _ranked_correctly(ordered, d)
            if not _closed_form(study.error):  # the realised sd of the model (truncated, say)
                _add_deviations(u, v, k, deviation_sum, deviation_squares)


def study_arguments(config: StudyConfig) -> RocStudy:
    """The kernel's parameters of a (valid) study of kind ``roc``."""
    return kernel_arguments(config, RocStudy)


def count_chunk(root: np.random.SeedSequence, chunk: int, size: int, study: RocStudy) -> ChunkCounts:
    """Counts of chunk number ``chunk``: steps 1-2 from child (chunk, 0), the errors from
    (chunk, 1). ``incorrect`` holds the scores' counts, then the sds', then the pairs tied in
    truth (last); ``sums`` the deviation sums per sd, then their squares."""
    return _pair_chunk(_count_chunk, root, chunk, size, study)


def _pair_chunk(count, root: np.random.SeedSequence, chunk: int, size: int, study) -> ChunkCounts:
    """The :func:`count_chunk` of a kernel ``count(rng, rng_error, size, study, incorrect,
    deviation_sum, deviation_squares)`` that counts pairs as this one does (the ROC and the
    probabilities kinds)."""
    rng, rng_error = chunk_generators(root, chunk, 2)
    incorrect = np.zeros(study.score_codes.size + study.sds.size + 1, dtype=np.int64)
    deviation_sum, deviation_squares = np.zeros(study.sds.size), np.zeros(study.sds.size)
    count(rng, rng_error, size, study, incorrect, deviation_sum, deviation_squares)
    return ChunkCounts(incorrect, np.concatenate((deviation_sum, deviation_squares)))


def kernel(config: StudyConfig) -> ModuleType:
    """This module: the roc kind has one kernel for every setting."""
    return sys.modules[__name__]


def study_result(config: StudyConfig, totals) -> StudyResult:
    """A :class:`StudyResult` of the kernel's totals: its last count per batch is the pairs
    tied in truth, left out of every denominator (``batch_samples`` counts the others)."""
    tied = totals.batch_incorrect[:, -1]
    batch_incorrect = totals.batch_incorrect[:, :-1]
    batch_samples = totals.batch_samples - tied
    incorrect = batch_incorrect.sum(axis=0)
    metrics, sds = len(config.metrics), len(config.sds)
    # The deviations of U' - U are summed over the untied pairs only.
    realised = counts.realised_sd(config, totals.sums[:sds], totals.sums[sds : 2 * sds], int(batch_samples.sum()))
    return StudyResult(
        config=config,
        metric_incorrect=dict(zip(config.metrics, (int(c) for c in incorrect[:metrics]))),
        utility_incorrect=incorrect[metrics:],
        realised_sd=realised,
        batch_samples=batch_samples,
        batch_incorrect=batch_incorrect,
        truth_tied=int(tied.sum()),
        wall_time=totals.wall_time,
    )


def check_chunks(config: StudyConfig, chunks: np.ndarray, sizes: np.ndarray, incorrect: np.ndarray, sums: np.ndarray) -> None:
    """A ValueError naming the first of ``chunks`` (their numbers, their pairs ``sizes``, and
    one row each of ``incorrect`` and ``sums``, as :func:`count_chunk` lays them out) that the
    kernel of ``config`` could not have counted: the pairs tied in truth, a whole number from 0
    to the chunk's pairs, and each count of incorrectly ranked pairs, a whole number from 0 to
    the pairs left; the deviations finite, their squares' sums not negative, and both 0 under
    an error model with a closed form. The probabilities kind's chunks are laid out alike."""
    scores, sds = len(config.metrics), len(config.sds)
    closed_form = ERROR_MODELS[config.error].closed_form
    check_chunk_layout(incorrect, sums, "int64", (scores + sds + 1, 2 * sds))
    rows = [repr(name) for name in config.metrics] + [f"the utility at sd {sd:g}" for sd in config.sds]
    check_chunk_values(chunks, incorrect[:, -1:], [""], "the count of pairs tied in truth", high=sizes)
    untied = sizes - incorrect[:, -1]
    check_chunk_values(chunks, incorrect[:, :-1], rows, "the count of incorrectly ranked pairs (of those untied in truth)", high=untied)
    deviations, squares = sums[:, :sds], sums[:, sds:]
    low, high = (0, 0) if closed_form else (-np.inf, np.inf)
    check_chunk_values(chunks, deviations, rows[scores:], "the sum of the deviations", low=low, high=high, whole=False)
    check_chunk_values(chunks, squares, rows[scores:], "the sum of the squared deviations", high=high, whole=False)
