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

Sibling studies, equal in every parameter but the error model and the sd grid, share their
score rows: every kernel draws a chunk's pairs from child ``(k, 0)`` of the root seed and the
errors from ``(k, 1)``, and no score draws anything, so the scores' counts (and the pairs tied
in truth, and the finite test sets' counts) are the same in each. :func:`score_siblings` finds
them, :func:`run_study` with ``scores=False`` runs a study without its score rows, and
:func:`with_scores` completes it from a sibling run in full; :func:`run_studies` does all three.
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
    "check_shard_chunks",
    "merge_shards",
    "ranked_correctly",
    "run_shard",
    "run_studies",
    "run_study",
    "sample_pairs",
    "score_siblings",
    "with_scores",
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
    scores: bool = True,
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
    scores : bool, default True
        False: leave the score rows out, and draw the same numbers on the same kernel as the
        whole study does; the result is that of ``config`` with no metrics (its rows the sds'),
        for :func:`with_scores` to complete from a sibling's.

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
    kind = STUDY_KINDS[config.kind]
    # The kind's engine module, imported (and its kernels compiled) only when a study of it runs.
    engine = importlib.import_module(kind.engine)
    kernel = engine.kernel(config)
    arguments = kernel.study_arguments(config)
    if not scores:
        # The whole study's kernel, told to score nothing: the two-class kernels or the n-class
        # one, as the metrics chose, draw the same numbers with or without them.
        config = _without_scores(config)
        arguments = arguments._replace(**kind.score_codes(()))
    totals = run_chunks(
        _chunk_function(kernel.count_chunk, config),
        arguments,
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


def check_shard_chunks(config: StudyConfig, chunks) -> None:
    """A ValueError unless each of ``chunks``, ``(chunk, size, incorrect, sums)`` as a
    :class:`~mcrank.study.StudyShard` holds them, is what a kernel of ``config`` counts: its
    counts of the study's dtype and number, each within what its pairs allow (the checks of
    the kind's engine module, ``check_chunks``), before a merge adds them up."""
    if not chunks:
        return
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    if len({(len(incorrect), len(sums)) for _, _, incorrect, sums in chunks}) > 1:
        raise ValueError("its chunks hold different numbers of counts")
    numbers = np.array([chunk for chunk, *_ in chunks])
    sizes = np.array([size for _, size, *_ in chunks], dtype=np.int64)
    incorrect = np.stack([np.asarray(counts) for _, _, counts, _ in chunks])
    sums = np.stack([np.asarray(sums, dtype=np.float64) for *_, sums in chunks])
    engine.check_chunks(config, numbers, sizes, incorrect, sums)


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
    for shard in shards:
        _check_metric_files(shard)
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
        try:
            check_shard_chunks(config, shard.chunks)
        except ValueError as error:
            raise ValueError(f"shards: shard {shard.index}/{shard.count}: {error}") from None
    ordered = sorted(shards, key=lambda shard: shard.index)
    records = ((chunk, size, ChunkCounts(incorrect, sums)) for shard in ordered for chunk, size, incorrect, sums in shard.chunks)
    totals = add_up(records, chunk_count(config.samples, config.chunk_size))
    totals = totals._replace(wall_time=sum(shard.wall_time for shard in shards))
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    return engine.study_result(config, totals)


def _check_metric_files(shard: StudyShard) -> None:
    """A ValueError naming the metric file if one whose metrics ``shard`` counts is not, to
    its SHA-256, the one it recorded (``provenance["metric_files"]``, read from a shard file;
    a shard run in this process records none, and counted the files loaded here)."""
    from mcrank.metrics.user import loaded_metric_files

    if "metric_files" not in shard.provenance:
        return
    recorded = {f["sha256"]: f["path"] for f in shard.provenance["metric_files"]}
    loaded = {f.sha256: f for f in loaded_metric_files() if set(f.ids) & set(shard.config.metrics)}
    for digest, metric_file in loaded.items():
        if digest not in recorded:
            was = "; ".join(f"{path} (sha256 {sha[:16]})" for sha, path in recorded.items()) or "none"
            raise ValueError(
                f"{metric_file.path}: not the metric file shard {shard.index}/{shard.count} was run with: its sha256 is "
                f"{digest[:16]}..., the shard's file was {was}; merge with that file"
            )
    unused = sorted(set(recorded) - set(loaded))
    if unused:
        raise ValueError(
            f"shards: shard {shard.index}/{shard.count} was run with the metric file {recorded[unused[0]]} (sha256 {unused[0][:16]}), "
            "which is not among the metric files loaded here"
        )


#: The parameters sibling studies may differ in: those of the errors, which every kernel draws
#: from a stream of their own (child ``(k, 1)`` of chunk ``k``), after the pair's scores.
_ERROR_PARAMETERS = ("error", "sds", "estimator")


def _without_scores(config: StudyConfig) -> StudyConfig:
    """``config`` with no metrics, and ``fbeta_beta`` at its default (only the fbeta metric reads it)."""
    fbeta_beta = next(f for f in fields(StudyConfig) if f.name == "fbeta_beta").default
    return replace(config, metrics=(), fbeta_beta=fbeta_beta)


def _sibling_key(config: StudyConfig) -> tuple | None:
    """What sibling studies have in common: every parameter but those of the errors, and the
    kernel that runs them (the error model may choose it: the two-class kernels draw only
    some); None for a study with no seed (each draws a root of its own) or no scores."""
    if config.seed is None or not config.metrics:
        return None
    engine = importlib.import_module(STUDY_KINDS[config.kind].engine)
    common = tuple((f.name, getattr(config, f.name)) for f in fields(StudyConfig) if f.name not in _ERROR_PARAMETERS)
    return (engine.kernel(config).__name__, *common)


def score_siblings(configs) -> list[int | None]:
    """For each of ``configs``, the index of the earlier one whose score rows it shares, or None.

    Two studies equal in every parameter but the error model, the sd grid and the estimator
    (seed, samples, chunk size, metrics, every parameter of the pairs) have the same score
    rows: every kernel draws chunk ``k``'s pairs from child ``(k, 0)`` of the root seed (a
    finite test set's counts from ``(k, 2)``) and the errors from ``(k, 1)``, and scoring a
    pair draws nothing. The first of each group is run in full; the others, if they have sds,
    take its score rows (:func:`with_scores`).

    Parameters
    ----------
    configs : iterable of StudyConfig

    Returns
    -------
    list of int or None
    """
    firsts: dict = {}
    shared: list[int | None] = []
    for index, config in enumerate(configs):
        if not isinstance(config, StudyConfig):
            raise TypeError(f"configs must be StudyConfigs, got {type(config).__name__}")
        key = _sibling_key(config)
        first = None if key is None else firsts.setdefault(key, index)
        shared.append(first if first != index and config.sds else None)
    return shared


def with_scores(config: StudyConfig, unscored: StudyResult, scored: StudyResult) -> StudyResult:
    """The result of ``config``: its sd rows from ``unscored`` (its :func:`run_study` with
    ``scores=False``), its score rows from ``scored``, the result of a sibling run in full
    (:func:`score_siblings`). Equal in every row, count and batch to ``run_study(config)``.

    Raises
    ------
    ValueError
        If ``scored`` is not the result of a sibling of ``config``, or ``unscored`` not of
        ``config`` without its scores.
    """
    if config.seed is None or _sibling_key(scored.config) != _sibling_key(config):
        raise ValueError("scored is not the result of a sibling of config (they differ in more than the errors)")
    if unscored.config != _without_scores(config):
        raise ValueError("unscored is not the result of config run with scores=False")
    if not np.array_equal(scored.batch_samples, unscored.batch_samples) or scored.truth_tied != unscored.truth_tied:
        raise ValueError("scored and unscored drew different pairs")
    metrics = len(config.metrics)
    # The score columns of either estimator's counts: whole numbers, exact as int64 or as floats.
    score_columns = scored.batch_incorrect[:, :metrics].astype(unscored.batch_incorrect.dtype)
    return StudyResult(
        config=config,
        metric_incorrect=dict(scored.metric_incorrect),
        utility_incorrect=unscored.utility_incorrect,
        realised_sd=unscored.realised_sd,
        batch_samples=unscored.batch_samples,
        batch_incorrect=np.concatenate((score_columns, unscored.batch_incorrect), axis=1),
        tied=None if unscored.tied is None else np.concatenate((scored.tied[:metrics], unscored.tied)),
        utility_squares=unscored.utility_squares,
        truth_tied=unscored.truth_tied,
        wall_time=unscored.wall_time,
    )


def run_studies(
    configs, *, jobs: int = -1, backend: str = "threading", scheduler: str | None = None, progress: bool = False
) -> list[StudyResult]:
    """The result of each of ``configs``, one after the other, siblings sharing their score rows
    (:func:`score_siblings`): each equal to its :func:`run_study`. The execution parameters
    are those of :func:`run_study`."""
    configs = list(configs)
    shared = score_siblings(configs)
    results = []
    for config, first in zip(configs, shared):
        result = run_study(config, jobs=jobs, backend=backend, scheduler=scheduler, progress=progress, scores=first is None)
        results.append(result if first is None else with_scores(config, result, results[first]))
    return results


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
    (nothing to do where they are: the threading backend, a worker's later chunks). What a
    user's metric raises is one ValueError naming its file and itself, made here, where the
    traceback that tells which one raised still is (a process worker sends back no frames)."""
    from mcrank.metrics.user import load_metric_file, user_metric_error

    for path, text in files:
        load_metric_file(path, text=text)
    try:
        return count_chunk(root, chunk, size, arguments)
    except Exception as error:
        explained = user_metric_error(error)
        if explained is None:  # not a user's metric's: the engine's own, left as it is
            raise
        raise explained from None


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
