"""The study's result schema: counts of incorrectly ranked pairs, and how they were obtained.

The rows are what ``results/*.csv`` and ``.json`` hold (``docs/method.md``, "The Monte Carlo
study": percentages and their Monte Carlo standard errors).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mcrank.metrics import UTILITY_ROW
from mcrank.study.config import StudyConfig

__all__ = ["BATCHES", "StudyResult", "StudyShard"]

#: Number of batches whose counts a result keeps, for jackknife errors of derived quantities.
BATCHES = 32


def _percent_and_se(count: int, n: int) -> tuple[float, float]:
    if n == 0:  # every pair tied in truth (roc kind): nothing to rank
        return math.nan, math.nan
    fraction = count / n
    return 100.0 * fraction, 100.0 * math.sqrt(fraction * (1.0 - fraction) / n)


def _mean_and_se(total: float, squares: float, n: int) -> tuple[float, float]:
    """The mean of ``n`` probabilities (in %) and its standard error, from their sum and the
    sum of their squares: the sample sd (n - 1 in the denominator) over sqrt(n)."""
    if n == 0:
        return math.nan, math.nan
    mean = total / n
    variance = max(squares - n * mean * mean, 0.0) / (n - 1) if n > 1 else 0.0
    return 100.0 * mean, 100.0 * math.sqrt(variance / n)


@dataclass(frozen=True)
class StudyResult:
    """Counts of incorrectly ranked pairs from one study, and how they were obtained.

    Attributes
    ----------
    config : StudyConfig
        The validated configuration; ``config.seed`` holds the root seed actually used.
    metric_incorrect : dict of str to int
        Incorrectly ranked pairs per metric id.
    utility_incorrect : ndarray of int or float, shape (len(config.sds),)
        Incorrectly ranked pairs by the perturbed utility matrix, per sd: counted, or with
        the conditional estimator expected (the sum of the pairs' probabilities, a float).
    realised_sd : ndarray of float, shape (len(config.sds),)
        Standard deviation of ``U' - U`` over all elements and samples, per sd.
    batch_samples : ndarray of int, shape (b,)
        Samples in each of ``b`` batches (chunk ``k`` belongs to batch ``k mod b``).
    batch_incorrect : ndarray of int, shape (b, len(rows))
        Incorrect counts per batch, in the order of :meth:`rows`: independent replicates
        for jackknife standard errors of quantities derived from several rows.
    tied : ndarray of int, shape (len(rows),), or None
        On a finite test set, the pairs of each row whose difference is 0 or NaN (an
        undefined score): counted incorrect, and reported apart as ``tied_pct``. None for
        the population.
    utility_squares : ndarray of float, shape (len(config.sds),), or None
        With the conditional estimator, the sum of the squared probabilities per sd, for
        the standard error; None with the sample estimator.
    truth_tied : int or None
        The ``roc`` kind: pairs tied in truth (both best thresholds at the same corner), left
        out of every row's denominator (``batch_samples`` counts the others) and reported as
        ``tied_pct``, a percentage of all pairs. None for the ``confusion`` kind.
    wall_time : float
        Seconds for the whole run: chunks, scheduling and any cluster start-up, and the
        compilation or cache load of the kernels in a process's first run (tens of seconds
        after a change to the source, ``docs/performance.md``).
    """

    config: StudyConfig
    metric_incorrect: dict[str, int]
    utility_incorrect: np.ndarray
    realised_sd: np.ndarray
    batch_samples: np.ndarray
    batch_incorrect: np.ndarray
    tied: np.ndarray | None = None
    utility_squares: np.ndarray | None = None
    truth_tied: int | None = None
    wall_time: float = field(default=0.0, compare=False)

    @property
    def samples(self) -> int:
        return self.config.samples

    def rows(self) -> list[dict]:
        """One row per metric, then one per sd: ``name``, ``sd``, ``realised_sd``,
        ``incorrect``, ``samples``, ``incorrect_pct`` and ``se_pct`` (its Monte Carlo standard
        error, ``100 * sqrt(f (1 - f) / n)``; with the conditional estimator, the expected
        count and the sample sd of the pairs' probabilities over ``sqrt(n)``). ``sd`` and
        ``realised_sd`` are None for metrics;
        the perturbed utility matrix is named ``utility`` (:data:`mcrank.metrics.UTILITY_ROW`). On a finite test set each row also
        has ``tied_pct``: the percentage of pairs it ties (difference 0 or NaN), which are
        counted incorrect too. In the ``roc`` kind ``samples`` counts the pairs untied in
        truth, and ``tied_pct`` is the percentage of all pairs tied in truth, left out."""
        n = int(self.batch_samples.sum())  # the pairs ranked: all of them but those tied in truth
        rows = []
        for name, count in self.metric_incorrect.items():
            pct, se = _percent_and_se(count, n)
            rows.append(dict(name=name, sd=None, realised_sd=None, incorrect=int(count), samples=n, incorrect_pct=pct, se_pct=se))
        for k, (s, realised, count) in enumerate(zip(self.config.sds, self.realised_sd, self.utility_incorrect)):
            if self.utility_squares is None:
                count = int(count)
                pct, se = _percent_and_se(count, n)
            else:  # the conditional estimator: an expected count
                count = float(count)
                pct, se = _mean_and_se(count, float(self.utility_squares[k]), n)
            rows.append(dict(name=UTILITY_ROW, sd=s, realised_sd=float(realised), incorrect=count, samples=n, incorrect_pct=pct, se_pct=se))
        if self.tied is not None:
            for row, tied in zip(rows, self.tied.tolist()):
                row["tied_pct"] = 100.0 * tied / n
        if self.truth_tied is not None:
            for row in rows:
                row["tied_pct"] = 100.0 * self.truth_tied / self.samples
        return rows

    def _batch_rows(self) -> list[list]:
        """The batch counts as lists, the metrics' as integers (conditional sums are floats)."""
        metrics = len(self.metric_incorrect)
        return [[int(v) if k < metrics else v for k, v in enumerate(row)] for row in self.batch_incorrect.tolist()]

    def to_dict(self) -> dict:
        """``{"config": {...every parameter, seed, version}, "rows": [...], "batches": {...}, "wall_time"}``."""
        from mcrank import __version__  # read from the installed metadata: only when written

        return {
            "config": {**self.config.to_dict(), "version": __version__},
            "rows": self.rows(),
            "batches": {"samples": self.batch_samples.tolist(), "incorrect": self._batch_rows()},
            "wall_time": self.wall_time,
        }


@dataclass(frozen=True)
class StudyShard:
    """One shard of a study: the counts of each of its chunks, to be merged with the other
    shards' into the :class:`StudyResult` of the whole study (:func:`mcrank.engine.merge_shards`).

    Attributes
    ----------
    config : StudyConfig
        The whole study's configuration, its seed fixed (every shard draws from the same root).
    index, count : int
        This is shard ``index`` of ``count``, ``1 <= index <= count``.
    chunks : list of tuple
        ``(chunk, size, incorrect, sums)`` for each chunk of the shard, in chunk order: its
        number, its pairs, and its :class:`~mcrank.engine.runner.ChunkCounts` arrays.
    wall_time : float
        Seconds this shard took.
    provenance : dict
        How it was made (versions, revision, date), as a results file records it; shards of one
        study must agree on the versions and the revision.
    """

    config: StudyConfig
    index: int
    count: int
    chunks: list = field(default_factory=list)
    wall_time: float = field(default=0.0, compare=False)
    provenance: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """``{"shard": {index, count}, "config": {...}, "dtype", "chunks": [[chunk, size, [...], [...]], ...], "wall_time"}``:
        the integer counts as integers, the sums as floats (JSON's shortest round trip keeps every bit)."""
        from mcrank import __version__  # read from the installed metadata: only when written

        dtype = str(self.chunks[0][2].dtype) if self.chunks else "int64"
        return {
            "shard": {"index": self.index, "count": self.count},
            "config": {**self.config.to_dict(), "version": __version__},
            "dtype": dtype,
            "chunks": [[int(chunk), int(size), incorrect.tolist(), sums.tolist()] for chunk, size, incorrect, sums in self.chunks],
            "wall_time": self.wall_time,
        }
