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
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.engine.runner import ChunkCounts, chunk_generators
from mcrank.ranking import _ranked_correctly
from mcrank.roc import _corners, _linear_compare, _roc_compare
from mcrank.samplers import (
    _closed_form,
    _draw_utility,
    _perturb_into,
)
from mcrank.study.config import StudyConfig, kernel_arguments

__all__ = ["RocStudy", "count_chunk", "study_arguments"]


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
    """A number with the sign of ``Y*_2(u) - Y*_1(u)``, exactly 0 for a pair tied: the corners
    once, for both classifiers (:func:`mcrank.roc._linear_compare`)."""
    corner_low, corner_high, a, d = _corners(u[0, 0], u[0, 1], u[1, 0], u[1, 1], prevalence)
    return _linear_compare(a, d, corner_low, corner_high, mu_1, sigma_1, mu_2, sigma_2)


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
        # A comparison is decided soonest when the worse classifier is evaluated first
        # (mcrank.roc._linear_compare): the truth's guess is the lower AUC, the others' the
        # truth. Swapped, a difference changes sign: x - y is exactly -(y - x).
        swap = mu_2 * abs(mu_2) * (1.0 + sigma_1 * sigma_1) < mu_1 * abs(mu_1) * (1.0 + sigma_2 * sigma_2)
        worse_mu, worse_sigma, better_mu, better_sigma = _ordered(swap, mu_1, sigma_1, mu_2, sigma_2)
        d_true = _yield_difference(u, prevalence, worse_mu, worse_sigma, better_mu, better_sigma)
        d_true = -d_true if swap else d_true
        if d_true == 0.0:
            incorrect[tied] += 1
            continue
        direction = 1.0 if d_true > 0.0 else (-1.0 if d_true < 0.0 else math.nan)
        swap = direction < 0.0
        worse_mu, worse_sigma, better_mu, better_sigma = _ordered(swap, mu_1, sigma_1, mu_2, sigma_2)
        ordered = -direction if swap else direction  # the direction of the ordered pair
        for k in range(scores):
            d = _roc_compare(codes[k], prevalence, worse_mu, worse_sigma, better_mu, better_sigma)
            incorrect[k] += not _ranked_correctly(ordered, d)
        for k in range(sds.size):
            _perturb_into(rng_error, u, sds[k], study.error, v)
            d = _yield_difference(v, prevalence, worse_mu, worse_sigma, better_mu, better_sigma)
            incorrect[scores + k] += not _ranked_correctly(ordered, d)
            if not _closed_form(study.error):  # the realised sd of the model (truncated, say)
                total, squares = 0.0, 0.0
                for i in range(2):
                    for j in range(2):
                        total += v[i, j] - u[i, j]
                        squares += (v[i, j] - u[i, j]) ** 2
                deviation_sum[k] += total
                deviation_squares[k] += squares


def study_arguments(config: StudyConfig) -> RocStudy:
    """The kernel's parameters of a (valid) study of kind ``roc``."""
    return kernel_arguments(config, RocStudy)


def count_chunk(root: np.random.SeedSequence, chunk: int, size: int, study: RocStudy) -> ChunkCounts:
    """Counts of chunk number ``chunk``: steps 1-2 from child (chunk, 0), the errors from
    (chunk, 1). ``incorrect`` holds the scores' counts, then the sds', then the pairs tied in
    truth (last); ``sums`` the deviation sums per sd, then their squares."""
    rng, rng_error = chunk_generators(root, chunk, 2)
    incorrect = np.zeros(study.score_codes.size + study.sds.size + 1, dtype=np.int64)
    deviation_sum, deviation_squares = np.zeros(study.sds.size), np.zeros(study.sds.size)
    _count_chunk(rng, rng_error, size, study, incorrect, deviation_sum, deviation_squares)
    return ChunkCounts(incorrect, np.concatenate((deviation_sum, deviation_squares)))
