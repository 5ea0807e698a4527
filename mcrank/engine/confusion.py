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
from mcrank.estimators import ESTIMATORS
from mcrank.study import StudyConfig, StudyResult

__all__ = ["kernel", "study_result"]


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
