"""What a study's kernels count, for every kind of study (two classes, n classes, test sets).

A chunk kernel adds into a :class:`StudyCounts` (zeroed by :func:`new_counts`);
:func:`chunk_counts` turns it into the :class:`~mcrank.engine.runner.ChunkCounts` the runner
adds up, and :func:`split_sums` names the run's float sums again.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank.engine.runner import ChunkCounts
from mcrank.error_models import ERROR_MODELS

__all__ = ["ChunkSums", "StudyCounts", "chunk_counts", "new_counts", "realised_sd", "split_sums"]


@jit(inline="always")
def _add_deviations(u, v, k, deviation_sum, deviation_squares):
    """Add the sum of the elements of ``v - u`` and of their squares to ``deviation_sum[k]`` and
    ``deviation_squares[k]``: what :func:`realised_sd` makes the realised sd of an error model
    without a closed form (truncated, say) from, in every kind's kernel."""
    n = u.shape[0]
    total, squares = 0.0, 0.0
    for i in range(n):
        for j in range(n):
            total += v[i, j] - u[i, j]
            squares += (v[i, j] - u[i, j]) ** 2
    deviation_sum[k] += total
    deviation_squares[k] += squares


class StudyCounts(NamedTuple):
    """The output buffers of a chunk kernel, added into."""

    metric_incorrect: np.ndarray  # int64, per metric
    utility_incorrect: np.ndarray  # int64, per sd (the sample estimator)
    deviation_sum: np.ndarray  # per sd: sum of the elements of U' - U (truncated errors)
    deviation_squares: np.ndarray  # per sd: sum of their squares
    metric_tied: np.ndarray  # int64, per metric: ties and NaN differences (finite test sets)
    utility_tied: np.ndarray  # int64, per sd: the same
    probability_sum: np.ndarray  # per sd: the conditional estimator's probabilities, summed
    probability_squares: np.ndarray  # per sd: the sum of their squares


def new_counts(study) -> StudyCounts:
    """Zeroed buffers for ``study`` (a kernel's parameters, with ``metric_codes`` and ``sds``)."""
    metrics, sds = study.metric_codes.size, study.sds.size
    return StudyCounts(
        np.zeros(metrics, dtype=np.int64), np.zeros(sds, dtype=np.int64), np.zeros(sds), np.zeros(sds),
        np.zeros(metrics, dtype=np.int64), np.zeros(sds, dtype=np.int64), np.zeros(sds), np.zeros(sds),
    )  # fmt: skip


def chunk_counts(counts: StudyCounts, conditional: bool) -> ChunkCounts:
    """What the runner adds up: ``incorrect`` holds the metrics' counts then the sds' (with
    the conditional estimator, the sums of the sds' probabilities: floats, the metrics'
    counts exact among them); ``sums`` is laid out as :func:`split_sums` reads it."""
    if conditional:
        incorrect = np.concatenate((counts.metric_incorrect.astype(float), counts.probability_sum))
    else:
        incorrect = np.concatenate((counts.metric_incorrect, counts.utility_incorrect))
    return ChunkCounts(
        incorrect,
        np.concatenate(
            (counts.deviation_sum, counts.deviation_squares, counts.metric_tied, counts.utility_tied, counts.probability_squares)
        ),
    )


class ChunkSums(NamedTuple):
    """The float sums of a run, by name (see :func:`split_sums`)."""

    deviation_sum: np.ndarray  # per sd
    deviation_squares: np.ndarray  # per sd
    tied: np.ndarray  # per row (metrics, then sds): whole numbers
    probability_squares: np.ndarray  # per sd: the conditional estimator's


def split_sums(metrics: int, sds: int, sums: np.ndarray) -> ChunkSums:
    """The run's ``sums`` (what :func:`chunk_counts` returns, added up), by name."""
    ends = np.cumsum([sds, sds, metrics + sds, sds])
    deviation_sum, deviation_squares, tied, squares, _ = np.split(sums, ends)
    return ChunkSums(deviation_sum, deviation_squares, tied, squares)


def realised_sd(config, deviation_sum: np.ndarray, deviation_squares: np.ndarray, pairs: int) -> np.ndarray:
    """Standard deviation of ``U' - U`` over all elements and the ``pairs`` whose deviations
    were summed (every pair, or the roc kind's untied ones), per sd; NaN with no pair."""
    sds = np.array(config.sds, dtype=float)
    if ERROR_MODELS[config.error].closed_form:
        return sds  # U' - U is N(0, s^2) element by element, by construction
    count = float(config.classes**2) * pairs
    if not count:
        return np.full(sds.size, np.nan)
    mean = deviation_sum / count
    return np.sqrt(np.maximum(deviation_squares / count - mean**2, 0.0))
