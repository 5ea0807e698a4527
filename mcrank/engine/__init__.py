"""The Monte Carlo engine: a parallel runner and one kernel per kind of study.

- :mod:`mcrank.engine.runner` owns seeds, chunks, joblib backends, dask and progress, and
  runs any chunk function it is given;
- :mod:`mcrank.engine.binary` holds the two-class kernels of the paper's study (§4.2;
  ``docs/method.md``, "The Monte Carlo study");
- :mod:`mcrank.engine.nclass` the kernel of every other setting: any number of classes, the
  ``-elements`` distributions, n-class metrics (``docs/method.md``, "The n-class study");
  :mod:`mcrank.engine.confusion` picks one of the two for a study of the ``confusion`` kind;
- :mod:`mcrank.engine.roc` the kernel of scoring classifiers, each at its best threshold
  (``docs/method.md``, "The ROC/AUC study");
- :mod:`mcrank.engine.conditional` the conditional estimator both use, and
  :mod:`mcrank.engine.counts` what they count.

:func:`run_study` takes a :class:`~mcrank.study.StudyConfig`, which checked itself when it was
built, and returns a :class:`~mcrank.study.StudyResult`, run by the engine module its study
kind names (:attr:`mcrank.study.kinds.StudyKind.engine`); :func:`sample_pairs` keeps every
difference of a few pairs, for the figures.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import time
from dataclasses import dataclass, fields, replace

import numpy as np

from mcrank._rng import resolve_rng, root_seed_sequence
from mcrank._validation import check_count
from mcrank.engine import binary
from mcrank.engine.runner import BACKENDS, ChunkCounts, add_up, check_execution, chunk_count, each_chunk, run_chunks, shard_chunks
from mcrank.ranking import ranked_correctly
from mcrank.study import StudyConfig, StudyResult, StudyShard
from mcrank.study.kinds import STUDY_KINDS

__all__ = [
    "BACKENDS",
    "MAX_SHARDS",
    "PairSample",
    "check_shard",
    "merge_shards",
    "ranked_correctly",
    "run_shard",
    "run_study",
    "sample_pairs",
]

#: The most shards a study is cut into (a job array of a million tasks is a typo).
MAX_SHARDS = 10**6


def _study_config(config, overrides: dict, caller: str) -> StudyConfig:
    """``config`` (default: the paper's study) with ``overrides`` applied; a TypeError for a
    config that is not a StudyConfig or an override that is not a field."""
    if config is not None and not isinstance(config, StudyConfig):
        hint = "; build one from a dict with StudyConfig.from_dict" if isinstance(config, dict) else ""
        raise TypeError(f"config must be a StudyConfig or None, got {type(config).__name__}{hint}")
    known = {f.name for f in fields(StudyConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"{caller} got an unknown study parameter {unknown[0]!r}; known parameters: {', '.join(sorted(known))}")
    if config is None:  # built from the overrides, so that the defaults follow ``classes``
        return StudyConfig(**overrides)
    return replace(config, **overrides) if overrides else config


def run_study(
    config: StudyConfig | None = None,
    *,
    jobs: int = -1,
    backend: str = "threading",
    scheduler: str | None = None,
    progress: bool = False,
    **overrides,
) -> StudyResult:
    """Estimate how often each metric and each perturbed utility matrix misranks a pair.

    Parameters
    ----------
    config : StudyConfig, optional
        The study; keyword ``overrides`` replace its fields (e.g. ``samples=10**6``).
    jobs : int, default -1
        Parallel jobs (joblib's ``n_jobs``: -1 means all cores). Counts do not depend on it.
    backend : str, default "threading"
        joblib backend: ``"threading"``, ``"loky"``, ``"dask"``, or the name of any backend
        registered with joblib (``ray.util.joblib.register_ray()`` makes ``"ray"``).
        ``dask`` runs on the dask.distributed client at ``scheduler``, on the current
        client, or on a new local cluster. Counts do not depend on it.
    scheduler : str, optional
        Address of a dask scheduler, e.g. ``"tcp://10.0.0.1:8786"``; only with
        ``backend="dask"``.
    progress : bool, default False
        Show a progress bar on stderr.

    Returns
    -------
    StudyResult

    Raises
    ------
    TypeError
        If ``config`` is not a StudyConfig (build one from a dict with
        :meth:`StudyConfig.from_dict`), or an override is not one of its fields.
    ValueError
        Naming the parameter, for a bad study parameter, ``jobs``, ``backend``, or a
        ``scheduler`` without ``backend="dask"``.

    Examples
    --------
    >>> from mcrank.engine import run_study
    >>> result = run_study(samples=10**5, sds=(0.1,), seed=1)
    >>> [row["name"] for row in result.rows()][:2]
    ['accuracy', 'tpr']
    """
    config = _study_config(config, overrides, "run_study")
    check_execution(jobs, backend, scheduler)
    root = root_seed_sequence(config.seed)
    if config.seed is None:
        config = replace(config, seed=int(root.entropy))
    # The kind's engine module, imported (and its kernels compiled) only when a study of it runs.
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    kernel = engine.kernel(config)
    totals = run_chunks(
        _chunk_function(kernel.count_chunk, config),
        kernel.study_arguments(config),
        root=root,
        samples=config.samples,
        chunk_size=config.chunk_size,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    return engine.study_result(config, totals)


def check_shard(shard) -> tuple[int, int]:
    """``shard`` as ``(index, count)``, ``1 <= index <= count <= MAX_SHARDS``; a ValueError naming ``shard`` otherwise."""
    if (
        not isinstance(shard, tuple)
        or len(shard) != 2
        or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in shard)
        or not 1 <= shard[1] <= MAX_SHARDS
        or not 1 <= shard[0] <= shard[1]
    ):
        raise ValueError(f"shard must be (index, count) with 1 <= index <= count <= {MAX_SHARDS:,}, got {shard!r}")
    return int(shard[0]), int(shard[1])


def run_shard(
    config: StudyConfig,
    shard: tuple[int, int],
    *,
    jobs: int = -1,
    backend: str = "threading",
    scheduler: str | None = None,
    progress: bool = False,
) -> StudyShard:
    """Run shard ``shard = (i, n)`` of the study ``config``: the ``i``-th of ``n`` contiguous runs
    of its chunks (a task of a SLURM job array), for :func:`merge_shards`.

    Parameters are those of :func:`run_study`; ``config.seed`` must be fixed, so that every
    shard draws from the same root. The merge of all ``n`` shards is bit-identical to
    ``run_study(config)``, whatever each shard's jobs and backend.

    Raises
    ------
    ValueError
        Naming ``shard``, or ``seed`` if it is None.
    """
    if not isinstance(config, StudyConfig):
        raise TypeError(f"config must be a StudyConfig, got {type(config).__name__}")
    index, count = check_shard(shard)
    if config.seed is None:
        raise ValueError("seed must be fixed to run a study in shards: each shard would draw from a root of its own")
    check_execution(jobs, backend, scheduler)
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    kernel = engine.kernel(config)
    chunks = shard_chunks(config.samples, config.chunk_size, (index, count))
    start = time.perf_counter()
    results = each_chunk(
        _chunk_function(kernel.count_chunk, config),
        kernel.study_arguments(config),
        chunks,
        root=root_seed_sequence(config.seed),
        samples=config.samples,
        chunk_size=config.chunk_size,
        jobs=jobs,
        backend=backend,
        scheduler=scheduler,
        progress=progress,
    )
    with contextlib.closing(results):
        kept = [(chunk, size, counts.incorrect, counts.sums) for chunk, size, counts in results]
    return StudyShard(config=config, index=index, count=count, chunks=kept, wall_time=time.perf_counter() - start)


def merge_shards(shards) -> StudyResult:
    """The :class:`~mcrank.study.StudyResult` of a study from all its shards (:func:`run_shard`),
    given in any order: bit-identical to one run of it. Its wall time is the shards' sum.

    Raises
    ------
    ValueError
        Naming ``shards``: none given, shards of different studies, counts or versions, a shard
        missing or given twice, or a shard that does not hold its chunks.
    """
    shards = list(shards)
    if not shards:
        raise ValueError("shards: none given")
    first = shards[0]
    for shard in shards[1:]:
        if shard.config.to_dict() != first.config.to_dict():
            raise ValueError(
                f"shards {first.index}/{first.count} and {shard.index}/{shard.count} are of different studies (their configs differ)"
            )
        if shard.count != first.count:
            raise ValueError(f"shards: shard {first.index}/{first.count} and shard {shard.index}/{shard.count} cut the study differently")
        for key in ("versions", "revision"):
            if shard.provenance.get(key) != first.provenance.get(key):
                raise ValueError(f"shards {first.index}/{first.count} and {shard.index}/{shard.count} were run with different {key}")
    indices = sorted(shard.index for shard in shards)
    twice = sorted({i for i in indices if indices.count(i) > 1})
    if twice:
        raise ValueError(f"shards: shard {twice[0]}/{first.count} is given twice")
    missing = sorted(set(range(1, first.count + 1)) - set(indices))
    if missing:
        listed = ", ".join(f"{i}/{first.count}" for i in missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise ValueError(f"shards: {len(missing):,} of {first.count:,} missing: {listed}")
    config = first.config
    for shard in shards:
        expected = shard_chunks(config.samples, config.chunk_size, (shard.index, shard.count))
        held = [chunk for chunk, *_ in shard.chunks]
        if held != list(expected) or any(
            size != min(config.chunk_size, config.samples - chunk * config.chunk_size) for chunk, size, *_ in shard.chunks
        ):
            raise ValueError(f"shards: shard {shard.index}/{shard.count} does not hold its chunks {expected.start}-{expected.stop - 1}")
    ordered = sorted(shards, key=lambda shard: shard.index)
    records = ((chunk, size, ChunkCounts(incorrect, sums)) for shard in ordered for chunk, size, incorrect, sums in shard.chunks)
    totals = add_up(records, chunk_count(config.samples, config.chunk_size))
    totals = totals._replace(wall_time=sum(shard.wall_time for shard in shards))
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    return engine.study_result(config, totals)


def _chunk_function(count_chunk, config: StudyConfig):
    """``count_chunk``, or for a study of a user's metrics, ``count_chunk`` after the metric
    files loaded here are loaded where the chunk runs: a process worker (loky's, dask's) starts
    with the built-in metrics only, and the files' metrics must have the same codes there."""
    from mcrank.metrics import METRICS
    from mcrank.metrics.user import loaded_metric_files

    if not any(name in METRICS and METRICS[name].origin is not None for name in config.metrics):
        return count_chunk
    files = tuple((f.path, f.text) for f in loaded_metric_files())
    return functools.partial(_with_metric_files, files, count_chunk)


def _with_metric_files(files, count_chunk, root, chunk: int, size: int, arguments):
    """One chunk of ``count_chunk``, the metric ``files`` ((path, text), in order) loaded first
    (nothing to do where they are: the threading backend, a worker's later chunks)."""
    from mcrank.metrics.user import load_metric_file

    for path, text in files:
        load_metric_file(path, text=text)
    return count_chunk(root, chunk, size, arguments)


@dataclass(frozen=True)
class PairSample:
    """Every difference of a few pairs, for scatter plots (fig. 6).

    Attributes
    ----------
    d_true : ndarray of shape (n,)
        ``yield(U, C2) - yield(U, C1)`` under the true utility matrix.
    d_metric : dict of str to ndarray of shape (n,)
        ``m(C2) - m(C1)`` per metric id.
    d_utility : dict of float to ndarray of shape (n,)
        ``yield(U', C2) - yield(U', C1)`` per error sd.
    """

    d_true: np.ndarray
    d_metric: dict[str, np.ndarray]
    d_utility: dict[float, np.ndarray]


def sample_pairs(size: int, config: StudyConfig | None = None, *, rng=None, **overrides) -> PairSample:
    """Draw ``size`` pairs by the study's procedure and keep every difference (for figures).

    ``config.samples`` and ``config.seed`` are ignored: ``size`` and ``rng`` say how many and
    from which Generator.
    """
    config = _study_config(config, overrides, "sample_pairs")
    if not config.binary:
        raise ValueError("sample_pairs draws the paper's two-class study: two classes, a hexagon distribution, two-class metrics")
    size = check_count(size, "size", maximum=10**8)
    d_true, d_metric, d_utility = binary.record_pairs(binary.study_arguments(config), size, resolve_rng(rng))
    return PairSample(d_true=d_true, d_metric=dict(zip(config.metrics, d_metric)), d_utility=dict(zip(config.sds, d_utility)))
