"""The kernel of the probabilistic-classifier study (``docs/method.md``, "The probabilistic-classifier study").

Each sample is one pair of probabilistic classifiers (:mod:`mcrank.probabilities`) on one
population with two classes:

1. the fraction ``B`` of class 0, ``Uniform(0, 1)`` or fixed; a true utility matrix ``U`` from
   the hexagon, ``uniform`` or ``gaussian`` (:func:`mcrank.samplers._draw_utility`);
2. each classifier's binormal scores (``mu ~ Uniform(low, high)``, ``log sigma ~ Uniform(log
   low, log high)``) and its calibration (``log a ~ Uniform(log low, log high)``,
   ``c ~ Uniform(low, high)``), stating ``q = logistic(a l + c)``;
3. the truth: the sign of ``Y_2(U) - Y_1(U)``, each classifier deciding by maximal expected
   utility under ``U`` with its own ``q`` (eq. 20). A difference of exactly 0 (both always
   output 0, or both always 1) is a pair tied in truth: counted, and left out of every other
   count;
4. each score of :data:`mcrank.probabilities.PROBABILITY_SCORES` ranks the pair by its oriented
   difference, and each perturbed matrix ``U'`` (any error model,
   :func:`mcrank.samplers._perturb_into`) by ``Y'_2(U') - Y'_1(U')``, each classifier deciding
   and judged under ``U'``. A tie or a NaN counts as incorrect
   (:func:`mcrank.ranking._ranked_correctly`).

One fused kernel draws and counts pair by pair, with its few buffers allocated once per chunk:
memory does not grow with the number of pairs. Chunk ``k`` draws steps 1-2 from child
``(k, 0)`` and the errors from ``(k, 1)``.
"""

from __future__ import annotations

import math
import sys
from types import ModuleType
from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.engine.counts import _add_deviations
from mcrank.engine.roc import _pair_chunk, check_chunks, study_result  # the same chunks and totals: the pairs tied in truth last, left out
from mcrank.engine.runner import ChunkCounts
from mcrank.probabilities import _decision_rates_of, _log_odds, _probability_compares, _yield
from mcrank.ranking import _ranked_correctly
from mcrank.samplers import _closed_form, _draw_utility, _perturb_into
from mcrank.study.config import StudyConfig, kernel_arguments

__all__ = ["ProbabilityStudy", "check_chunks", "count_chunk", "kernel", "study_arguments", "study_result"]


class ProbabilityStudy(NamedTuple):
    """A :class:`~mcrank.study.StudyConfig` of kind ``probabilities`` as the kernel takes it."""

    true_um: int  # code in mcrank.samplers.TRUE_UM_DISTRIBUTIONS (a hexagon one)
    true_um_sd: float
    random_prevalence: bool  # B ~ Uniform(0, 1), else B = prevalence
    prevalence: float
    mu_low: float
    mu_high: float
    log_sigma_low: float
    log_sigma_high: float
    log_slope_low: float
    log_slope_high: float
    intercept_low: float
    intercept_high: float
    error: int  # code in mcrank.samplers.ERROR_MODELS
    score_codes: np.ndarray  # int64, codes in mcrank.probabilities.PROBABILITY_SCORES
    sds: np.ndarray  # float64


@jit
def _yield_difference(m, prevalence, classifiers, coefficients):
    """``Y_2(m) - Y_1(m)``: each classifier's decisions under ``m`` with its own ``q``;
    ``classifiers[i]`` is ``(mu, sigma, slope, intercept)``, ``coefficients[i]`` its ``l``."""
    u00, u01, u10, u11 = m[0, 0], m[0, 1], m[1, 0], m[1, 1]
    difference = 0.0
    for i in range(2):
        t, f = _decision_rates_of(
            u00, u01, u10, u11, coefficients[i, 0], coefficients[i, 1], coefficients[i, 2],
            classifiers[i, 0], classifiers[i, 1], classifiers[i, 2], classifiers[i, 3],
        )  # fmt: skip
        value = _yield(u00, u01, u10, u11, prevalence, t, f)
        difference = value - difference if i == 1 else value
    return difference


@jit
def _count_chunk(rng, rng_error, size, study, incorrect, deviation_sum, deviation_squares):
    """Run ``size`` pairs of ``study`` (a :class:`ProbabilityStudy`) and add their counts:
    ``incorrect`` (int64) receives the scores', then the sds', then the pairs tied in truth;
    the deviation sums are per sd (truncated errors)."""
    codes, sds = study.score_codes, study.sds
    scores = codes.size
    tied = scores + sds.size
    identity, xy, u, v = np.eye(2), np.empty((2, 1)), np.empty((2, 2)), np.empty((2, 2))
    classifiers, coefficients, differences = np.empty((2, 4)), np.empty((2, 3)), np.empty(scores)
    mu_width = study.mu_high - study.mu_low
    log_sigma_width = study.log_sigma_high - study.log_sigma_low
    log_slope_width = study.log_slope_high - study.log_slope_low
    intercept_width = study.intercept_high - study.intercept_low
    for _ in range(size):
        prevalence = rng.random() if study.random_prevalence else study.prevalence
        _draw_utility(rng, study.true_um, study.true_um_sd, identity, xy, u)
        for i in range(2):
            classifiers[i, 0] = study.mu_low + mu_width * rng.random()
            classifiers[i, 1] = math.exp(study.log_sigma_low + log_sigma_width * rng.random())
            classifiers[i, 2] = math.exp(study.log_slope_low + log_slope_width * rng.random())
            classifiers[i, 3] = study.intercept_low + intercept_width * rng.random()
            coefficients[i, 0], coefficients[i, 1], coefficients[i, 2] = _log_odds(prevalence, classifiers[i, 0], classifiers[i, 1])
        d_true = _yield_difference(u, prevalence, classifiers, coefficients)
        if d_true == 0.0:
            incorrect[tied] += 1
            continue
        direction = 1.0 if d_true > 0.0 else (-1.0 if d_true < 0.0 else math.nan)
        _probability_compares(
            codes, prevalence, classifiers[0, 0], classifiers[0, 1], classifiers[0, 2], classifiers[0, 3],
            classifiers[1, 0], classifiers[1, 1], classifiers[1, 2], classifiers[1, 3], differences,
        )  # fmt: skip
        for k in range(scores):
            incorrect[k] += not _ranked_correctly(direction, differences[k])
        for k in range(sds.size):
            _perturb_into(rng_error, u, sds[k], study.error, v)
            d = _yield_difference(v, prevalence, classifiers, coefficients)
            incorrect[scores + k] += not _ranked_correctly(direction, d)
            if not _closed_form(study.error):  # the realised sd of the model (truncated, say)
                _add_deviations(u, v, k, deviation_sum, deviation_squares)


def study_arguments(config: StudyConfig) -> ProbabilityStudy:
    """The kernel's parameters of a (valid) study of kind ``probabilities``."""
    return kernel_arguments(config, ProbabilityStudy)


def count_chunk(root: np.random.SeedSequence, chunk: int, size: int, study: ProbabilityStudy) -> ChunkCounts:
    """Counts of chunk number ``chunk``: steps 1-2 from child (chunk, 0), the errors from
    (chunk, 1). ``incorrect`` holds the scores' counts, then the sds', then the pairs tied in
    truth (last); ``sums`` the deviation sums per sd, then their squares."""
    return _pair_chunk(_count_chunk, root, chunk, size, study)


def kernel(config: StudyConfig) -> ModuleType:
    """This module: the probabilities kind has one kernel for every setting."""
    return sys.modules[__name__]
