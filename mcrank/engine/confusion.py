"""The confusion kind of study (:data:`mcrank.study.kinds.STUDY_KINDS`): which kernel runs a
study, and its result.

The paper's two-class study runs on :mod:`mcrank.engine.binary`'s kernels, every other setting
(any number of classes, the ``-elements`` distributions, finite test sets beyond them) on
:mod:`mcrank.engine.nclass`'s; both count as :mod:`mcrank.engine.counts` says.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from mcrank.engine import binary, counts, nclass
from mcrank.engine.runner import check_chunk_layout, check_chunk_values
from mcrank.error_models import ERROR_MODELS
from mcrank.estimators import ESTIMATORS
from mcrank.study import StudyConfig, StudyResult

__all__ = ["check_chunks", "kernel", "study_result"]


def kernel(config: StudyConfig) -> ModuleType:
    """The paper's two-class study on its own kernels; every other setting on the n-class one."""
    return binary if config.binary else nclass


def study_result(config: StudyConfig, totals) -> StudyResult:
    """A :class:`StudyResult` of the binary or n-class kernels' totals (:mod:`mcrank.engine.counts`)."""
    incorrect = totals.batch_incorrect.sum(axis=0)
    metrics = len(config.metrics)
    sums = counts.split_sums(len(config.metrics), len(config.sds), totals.sums)
    conditional = ESTIMATORS[config.estimator_used].needs_closed_form
    return StudyResult(
        config=config,
        metric_incorrect=dict(zip(config.metrics, (int(c) for c in incorrect[:metrics]))),
        utility_incorrect=incorrect[metrics:],
        realised_sd=counts.realised_sd(config, sums.deviation_sum, sums.deviation_squares, config.samples),
        batch_samples=totals.batch_samples,
        batch_incorrect=totals.batch_incorrect,
        tied=None if config.test_size is None else sums.tied.astype(np.int64),
        utility_squares=sums.probability_squares if conditional else None,
        wall_time=totals.wall_time,
    )


def check_chunks(config: StudyConfig, chunks: np.ndarray, sizes: np.ndarray, incorrect: np.ndarray, sums: np.ndarray) -> None:
    """A ValueError naming the first of ``chunks`` (their numbers, their pairs ``sizes``, and
    one row each of ``incorrect`` and ``sums``, as :func:`mcrank.engine.counts.chunk_counts`
    lays them out) that no kernel of ``config`` could have counted.

    Each count of incorrectly ranked pairs, and each tie, is a whole number from 0 to the
    chunk's pairs, and a tie is counted incorrect too; the conditional estimator's sums of
    probabilities lie in the same range; the deviations are finite, their squares' sums not
    negative. What a setting does not count is 0: ties off a finite test set, deviations under
    an error model with a closed form, squared probabilities without the conditional estimator.
    """
    metrics, sds = len(config.metrics), len(config.sds)
    conditional = ESTIMATORS[config.estimator_used].needs_closed_form
    closed_form = ERROR_MODELS[config.error].closed_form
    check_chunk_layout(incorrect, sums, "float64" if conditional else "int64", (metrics + sds, metrics + 4 * sds))
    rows = [repr(name) for name in config.metrics] + [f"the utility at sd {sd:g}" for sd in config.sds]
    counted = metrics if conditional else metrics + sds  # the rest: the conditional estimator's sums
    check_chunk_values(chunks, incorrect[:, :counted], rows, "the count of incorrectly ranked pairs", high=sizes)
    check_chunk_values(
        chunks, incorrect[:, counted:], rows[counted:], "the expected count of incorrectly ranked pairs", high=sizes, whole=False
    )
    deviations, squares = sums[:, :sds], sums[:, sds : 2 * sds]
    tied, probability_squares = sums[:, 2 * sds : 3 * sds + metrics], sums[:, 3 * sds + metrics :]
    sd_rows = rows[metrics:]
    if closed_form:
        check_chunk_values(chunks, deviations, sd_rows, "the sum of the deviations", high=0, whole=False)
    else:
        check_chunk_values(chunks, deviations, sd_rows, "the sum of the deviations", low=-np.inf, high=np.inf, whole=False)
    check_chunk_values(chunks, squares, sd_rows, "the sum of the squared deviations", high=0 if closed_form else np.inf, whole=False)
    check_chunk_values(chunks, tied, rows, "the count of tied pairs", high=sizes if config.test_size is not None else 0)
    check_chunk_values(chunks, tied[:, :counted], rows, "the count of tied pairs (each counted incorrect too)", high=incorrect[:, :counted])
    check_chunk_values(
        chunks, probability_squares, sd_rows, "the sum of the squared probabilities", high=sizes if conditional else 0, whole=False
    )
