"""The parallel runner: seeds, chunks, joblib backends, dask and progress, for any chunk kernel.

A study is cut into chunks of ``chunk_size`` samples. Chunk ``k`` gets the children
``(k, stream)`` of the root :class:`~numpy.random.SeedSequence` (:func:`chunk_generators`), so
its draws depend only on the root seed and ``k``: counts are bit-identical whatever the number
of jobs or the backend. A chunk function returns :class:`ChunkCounts`; the runner adds them
up in chunk order (so float sums are added in a fixed order too) and keeps the integer
counts per batch (chunk ``k`` in batch ``k mod b``) for jackknife standard errors.

Kernels of other study kinds (n classes, finite test sets) plug in by giving
:func:`run_chunks` their own chunk function.

A study can also be run in shards (a SLURM job array): shard ``i`` of ``n`` runs the ``i``-th
contiguous run of chunks (:func:`shard_chunks`, :func:`each_chunk`) and keeps each chunk's
counts; :func:`add_up` adds the chunks of all shards in chunk order, as one run does, so that
the merged counts are bit-identical to one run's.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from mcrank import _signals
from mcrank._rng import child_seed_sequence
from mcrank.study.result import BATCHES

__all__ = [
    "BACKENDS",
    "ChunkCounts",
    "RunTotals",
    "add_up",
    "check_chunk_layout",
    "check_chunk_values",
    "check_execution",
    "chunk_count",
    "chunk_generators",
    "each_chunk",
    "run_chunks",
    "shard_chunks",
]

#: joblib backends mcrank configures itself. Any other backend registered with joblib
#: (``joblib.register_parallel_backend``: Ray's ``register_ray``, joblibspark's
#: ``register_spark``) is used by name as it is registered.
BACKENDS = ("threading", "loky", "dask")


class ChunkCounts(NamedTuple):
    """What one chunk returns, each a 1-d array: what is added per batch (counts of incorrectly
    ranked pairs, or sums of probabilities, floats), and what is added over the run (sums)."""

    incorrect: np.ndarray
    sums: np.ndarray


class RunTotals(NamedTuple):
    """The counts of a whole run.

    Attributes
    ----------
    batch_samples : ndarray of int, shape (b,)
    batch_incorrect : ndarray of int or float, shape (b, k)
    sums : ndarray of float
        The chunks' sums, added in chunk order.
    wall_time : float
        Seconds, scheduling and any cluster start-up included.
    """

    batch_samples: np.ndarray
    batch_incorrect: np.ndarray
    sums: np.ndarray
    wall_time: float


def chunk_generators(root: np.random.SeedSequence, chunk: int, streams: int) -> list[np.random.Generator]:
    """The Generators of chunk number ``chunk``: children ``(chunk, 0 .. streams - 1)`` of ``root``."""
    return [np.random.default_rng(child_seed_sequence(root, chunk, stream)) for stream in range(streams)]


def _parallel_context(backend: str, jobs: int, scheduler: str | None):
    """The joblib configuration (and dask client, if any) to run the chunks under."""
    import joblib

    stack = contextlib.ExitStack()
    if backend == "dask":
        try:
            from dask.distributed import Client, get_client
        except ImportError:
            raise ValueError("the dask backend needs the optional extra: pip install 'mcrank[dask]'") from None
        if scheduler is not None:
            stack.enter_context(Client(scheduler))
        else:
            try:
                get_client()
            except ValueError:
                workers = jobs if jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + jobs)
                stack.enter_context(Client(n_workers=workers, threads_per_worker=1, processes=False))
        stack.enter_context(joblib.parallel_config(backend="dask"))
    elif backend not in BACKENDS:
        stack.enter_context(joblib.parallel_config(backend=backend))
    elif backend == "loky":
        # Workers are processes: cap every thread pool inside them at one thread per worker.
        stack.enter_context(joblib.parallel_config(backend="loky", inner_max_num_threads=1))
    else:
        # The kernels are compiled with nogil=True and use no numba threads, so plain threads
        # run them in parallel without oversubscription and without process start-up.
        stack.enter_context(joblib.parallel_config(backend="threading"))
    return stack


def _registered_backends() -> set[str]:
    """The names joblib knows now, those registered by a plugin included."""
    import joblib.parallel

    return set(joblib.parallel.BACKENDS)


def check_execution(jobs, backend: str, scheduler: str | None) -> None:
    """ValueError naming the bad one of ``jobs``, ``backend`` and ``scheduler``."""
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or jobs == 0:
        raise ValueError(f"jobs must be a non-zero integer, got {jobs!r}")
    if backend not in BACKENDS and backend not in _registered_backends():
        raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}, or a backend registered with joblib")
    if scheduler is not None and backend != "dask":
        raise ValueError(f"scheduler {scheduler!r} is only used with backend='dask', got backend={backend!r}")


def chunk_count(samples: int, chunk_size: int) -> int:
    """The number of chunks of a study of ``samples`` pairs, ``chunk_size`` a chunk (the last one shorter)."""
    return -(-samples // chunk_size)


def shard_chunks(samples: int, chunk_size: int, shard: tuple[int, int]) -> range:
    """The chunks of shard ``(i, n)``, ``1 <= i <= n``: the ``i``-th of ``n`` contiguous runs of
    chunks, as even as whole chunks allow (a shard of more shards than chunks may be empty)."""
    index, count = shard
    chunks = chunk_count(samples, chunk_size)
    return range((index - 1) * chunks // count, index * chunks // count)


def check_chunk_layout(incorrect: np.ndarray, sums: np.ndarray, dtype: str, lengths: tuple[int, int]) -> None:
    """A ValueError unless the chunks' ``incorrect`` counts (one row per chunk) are of
    ``dtype`` and the rows of ``incorrect`` and ``sums`` have ``lengths``: what a kind's
    ``check_chunks`` asks first (a shard's chunks, read from a file)."""
    if str(incorrect.dtype) != dtype:
        raise ValueError(f"its counts are {incorrect.dtype}, but this study's are {dtype}")
    if (incorrect.shape[1], sums.shape[1]) != lengths:
        raise ValueError(
            f"its chunks hold {incorrect.shape[1]} counts and {sums.shape[1]} sums, but this study's hold {lengths[0]} and {lengths[1]}"
        )


def check_chunk_values(chunks, values: np.ndarray, names, what: str, *, high, low=0, whole: bool = True) -> None:
    """A ValueError naming the first chunk (of the numbers ``chunks``) whose ``values`` (one
    row per chunk, a column per name of ``names``) are not finite, whole numbers if ``whole``,
    from ``low`` to ``high`` (each one bound for all, a bound per chunk, or one per value):
    one chunk's counts of a kind's kernel, as a shard file holds them, are checked so before
    they are added up."""
    if values.size == 0:
        return

    def bound(b):
        b = np.asarray(b)
        return np.broadcast_to(b[:, None] if b.ndim == 1 else b, values.shape)

    low, high = bound(low), bound(high)
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(values) & (values >= low) & (values <= high))
        if whole:
            bad |= values != np.round(values)
    rows = np.flatnonzero(bad.any(axis=1))
    if rows.size:
        row = rows[0]
        column = np.flatnonzero(bad[row])[0]
        value, bounds = values[row, column].item(), (low[row, column].item(), high[row, column].item())
        kind = "a whole number" if whole else "a number"
        if np.isinf(bounds).all():
            within = "a finite number"
        elif bounds[0] == bounds[1]:  # a count the setting does not make
            within = f"{bounds[0]:g}, as this study's kernel leaves it"
        else:
            within = f"{kind} from {bounds[0]:,} to {bounds[1]:,}"
        of = f" of {names[column]}" if names[column] else ""
        raise ValueError(f"chunk {chunks[row]}: {what}{of} is {value!r}, not {within}")


def run_chunks(
    chunk_function: Callable[..., ChunkCounts],
    arguments,
    *,
    root: np.random.SeedSequence,
    samples: int,
    chunk_size: int,
    jobs: int = -1,
    backend: str = "threading",
    scheduler: str | None = None,
    progress: bool = False,
) -> RunTotals:
    """Run ``chunk_function(root, chunk, size, arguments)`` over every chunk and add up the counts.

    ``arguments`` is passed to every chunk unchanged (a named tuple of the kernel's
    parameters). ``jobs``, ``backend`` and ``scheduler`` are as in
    :func:`mcrank.engine.run_study`, checked by :func:`check_execution`.
    """
    start = time.perf_counter()
    chunks = chunk_count(samples, chunk_size)
    results = each_chunk(
        chunk_function,
        arguments,
        range(chunks),
        root=root,
        samples=samples,
        chunk_size=chunk_size,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    with contextlib.closing(results):  # its clean-up now, not when it is collected
        return add_up(results, chunks, time.perf_counter, start)


def add_up(results, chunks: int, clock=None, start: float = 0.0) -> RunTotals:
    """The :class:`RunTotals` of ``results``, ``(chunk, size, ChunkCounts)`` in chunk order, of a
    run of ``chunks`` chunks: chunk ``k`` in batch ``k mod b``, the float sums added in chunk
    order. One run and the merge of its shards add up alike, so that they agree bit for bit.
    ``clock() - start`` is the wall time (0 without a clock)."""
    batches = min(BATCHES, chunks)
    batch_samples = np.zeros(batches, dtype=np.int64)
    batch_incorrect = None
    sums = None
    for chunk, size, counts in results:
        if batch_incorrect is None:  # counts, or sums of probabilities (floats)
            batch_incorrect = np.zeros((batches, counts.incorrect.size), dtype=counts.incorrect.dtype)
            sums = np.zeros(counts.sums.size)
        batch_samples[chunk % batches] += size
        batch_incorrect[chunk % batches] += counts.incorrect
        sums += counts.sums
    return RunTotals(batch_samples, batch_incorrect, sums, 0.0 if clock is None else clock() - start)


def each_chunk(
    chunk_function: Callable[..., ChunkCounts],
    arguments,
    chunks: range,
    *,
    root: np.random.SeedSequence,
    samples: int,
    chunk_size: int,
    jobs: int = -1,
    backend: str = "threading",
    scheduler: str | None = None,
    progress: bool = False,
):
    """Run ``chunk_function`` over ``chunks`` (of a study of ``samples`` pairs), yielding
    ``(chunk, size, ChunkCounts)`` in chunk order; the arguments are those of :func:`run_chunks`."""
    import joblib
    from tqdm import tqdm

    _signals.check()  # a signal whose exception was lost in the imports (mcrank._signals)
    total = max(0, min(samples, chunks.stop * chunk_size) - chunks.start * chunk_size)
    with (
        _parallel_context(backend, jobs, scheduler),
        tqdm(total=total, unit="pair", unit_scale=True, disable=not progress, file=sys.stderr, leave=False) as bar,
    ):
        tasks = (
            joblib.delayed(_run_one)(chunk_function, root, chunk, min(chunk_size, samples - chunk * chunk_size), arguments)
            for chunk in chunks
        )
        if backend == "threading" and (jobs == 1 or len(chunks) <= 1):
            # Nothing to run in parallel: skip the thread pool and its start-up.
            results = (function(*args, **kwargs) for function, args, kwargs in tasks)
        else:
            results = joblib.Parallel(n_jobs=jobs, return_as="generator")(tasks)
        # Results come back in chunk order, so the float sums are added in a fixed order too.
        with _closed_quietly(results):
            for chunk, size, counts in results:
                yield chunk, size, counts
                bar.update(size)
                _signals.check()  # between chunks: a signal whose exception was lost meanwhile


@contextlib.contextmanager
def _closed_quietly(results):
    """Close the generator of the chunks' results on the way out, even by an exception.
    joblib's generator, closed before its end (a Ctrl-C between chunks), cancels its tasks and
    warns that it did, which is what was asked: left to the garbage collector, its warning
    came after the command's last line."""
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            results.close()


def _run_one(chunk_function, root, chunk: int, size: int, arguments) -> tuple[int, int, ChunkCounts]:
    return chunk, size, chunk_function(root, chunk, size, arguments)
