"""Results on disk: atomic writes, provenance, and the CSV/JSON files of a study.

A study writes ``<name>.csv`` (the rows, after ``# key: value`` lines with the seed, every
parameter, the package versions and the date) and then ``<name>.json`` (the config, the
root seed, the rows, batches, package versions, wall time and date). The JSON file is
written last and marks the study complete: a run interrupted before it leaves nothing that
looks finished. Every file is written to a temporary file in the same directory and renamed
into place, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import platform
import re
import stat
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from mcrank import _signals

__all__ = [
    "MAX_INPUT_BYTES",
    "ROW_FIELDS",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_out_file",
    "check_writable",
    "holds_same_study",
    "is_clean",
    "is_complete",
    "provenance",
    "read_study",
    "read_text",
    "repository_root",
    "rows_to_csv",
    "source_revision",
    "study_csv",
    "study_document",
    "uncommitted_changes",
    "write_study",
]

#: Columns of a results CSV, in order.
ROW_FIELDS = ("name", "sd", "realised_sd", "incorrect", "samples", "incorrect_pct", "se_pct")

#: The packages whose versions a result records: mcrank, its dependencies, and llvmlite, which
#: compiles numba's kernels.
_PACKAGES = ("mcrank", "numpy", "numba", "llvmlite", "scipy", "matplotlib", "joblib", "tqdm")


def _file_mode() -> int:
    """The mode ``open()`` would give a new file under the current umask (mkstemp gives 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _naming(path):
    """Within the block, an OSError names ``path`` (not a temporary file, not nothing)."""
    try:
        yield
    except OSError as error:  # OSError(EPIPE, ...) is still a BrokenPipeError
        raise OSError(error.errno, error.strerror, str(path)) from None


def _descriptor(path: Path) -> int | None:
    """The descriptor that ``path`` names as typed, else None: 1 for ``/dev/stdout``, 2 for
    ``/dev/stderr``, N for ``/dev/fd/N`` and ``/proc/self/fd/N`` (or ``thread-self``).

    Such a path is written through the descriptor itself: replacing the file it has open
    would lose what a shell's ``>>`` had kept (``mcrank run --out /dev/stdout >> log``).
    """
    name = os.fspath(path)
    match = re.fullmatch(r"/+(?:dev|proc/(?:thread-)?self)/fd/([0-9]+)", name)
    return int(match[1]) if match else {"/dev/stdout": 1, "/dev/stderr": 2}.get(name)


def _existing(path: Path) -> os.stat_result | None:
    """``os.stat(path)``, following links; None if nothing is there (or a link to nothing)."""
    with _naming(path):
        try:
            return os.stat(path)
        except FileNotFoundError:
            return None


def _refuse_read_only(path: Path, target: os.stat_result) -> None:
    """A file its owner made read-only is not replaced (a rename would ignore its mode). The
    mode bits are read too: to root, ``os.access`` says every file is writable."""
    if not target.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise OSError(errno.EACCES, "a read-only file, which mcrank does not replace", str(path))


def check_out_file(path) -> None:
    """Raise OSError unless ``path`` can be written by :func:`atomic_write_bytes`, before a
    long computation: a link loop; a read-only file; a regular file (or the place of a new
    one) in a directory where no file can be created. Devices, pipes and descriptors
    (``/dev/stdout``) need no check."""
    path = Path(path)
    if _descriptor(path) is not None:
        return
    target = _existing(path)
    if target is None:
        check_writable(path.parent)
    elif stat.S_ISREG(target.st_mode):
        _refuse_read_only(path, target)
        check_writable(Path(os.path.realpath(path)).parent)


def check_writable(directory) -> None:
    """Raise OSError unless files can be created in ``directory``, or, if it is missing, in
    its nearest existing parent (where it would be created).

    Called before a long computation, so that it does not end on an unwritable path. The
    check creates and removes an empty temporary file: permissions alone do not tell (a
    read-only file system, or root on ``/sys``).
    """
    directory = Path(directory)
    existing = next((p for p in (directory, *directory.parents) if p.exists()), Path("."))
    with _naming(existing), _signals.held():  # a signal between the two would leave the probe
        handle, probe = tempfile.mkstemp(dir=existing, prefix=".mcrank-write-check.", suffix=".tmp")
        os.close(handle)
        os.unlink(probe)


def atomic_write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Readers see the old file or the new one, never half of one. Missing parent directories
    are created. Errors name ``path``, not the temporary file. A symbolic link to an existing
    file is followed: its target is replaced and the link kept (a link to nothing is
    replaced). The new file has the mode of the file it replaces, or, where there was none,
    the mode ``open()`` gives under the umask. A read-only file is refused. A device or a pipe (``/dev/null``, a FIFO) is
    written to directly, since there is no file to replace; so is a descriptor named as one
    (``/dev/stdout``, ``/dev/fd/3``), through the descriptor itself.
    """
    path = Path(path)
    descriptor = _descriptor(path)
    if descriptor is not None:
        for stream in filter(None, (sys.stdout, sys.stderr)):  # what Python buffered goes first
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        view = memoryview(data)
        with _naming(path):
            while view:
                view = view[os.write(descriptor, view) :]
        return path
    target = _existing(path)
    if target is not None and not stat.S_ISREG(target.st_mode) and not stat.S_ISDIR(target.st_mode):
        with _naming(path), open(path, "wb") as device:
            device.write(data)
        return path
    mode = None
    if target is not None and stat.S_ISREG(target.st_mode):
        _refuse_read_only(path, target)
        path = Path(os.path.realpath(path))
        mode = stat.S_IMODE(target.st_mode)  # an overwrite keeps what its owner chose
    with _naming(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = None
        try:
            with _signals.held():  # a signal as mkstemp returns would lose the file's name
                handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, _file_mode() if mode is None else mode)
            os.replace(temporary, path)
        except BaseException:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            raise
    return path


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file and a rename."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def provenance() -> dict:
    """Package versions, Python, platform, the source ``revision`` and the current UTC date."""
    from importlib.metadata import PackageNotFoundError, version  # slow to import: only when writing

    versions = {}
    for package in _PACKAGES:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = None
    return {
        "versions": versions,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "revision": source_revision(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def repository_root() -> Path | None:
    """The git checkout mcrank's source is in (the directory holding ``.git``), else None
    (an installed copy)."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / ".git").exists() else None


#: What a result's revision covers: the code, the experiment files and the packaging. Results
#: files and the rest of the repository do not count.
SOURCE_PATHS = ("mcrank", "experiments", "pyproject.toml")


def uncommitted_changes() -> list[str] | None:
    """The paths of :data:`SOURCE_PATHS` that differ from the checkout's commit: modified,
    added, deleted or untracked (and not ignored), relative to the repository. None when
    mcrank does not run from a git checkout, or git cannot tell."""
    root = repository_root()
    if root is None:
        return None
    try:
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "-z", "--untracked-files=all", "--", *SOURCE_PATHS],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    paths, entries = [], iter(status.split("\0"))
    for entry in entries:
        if entry:
            paths.append(entry[3:])
            if entry[0] in "RC":  # a rename or copy: its source path follows
                next(entries, None)
    return sorted(paths)


def source_revision() -> dict | None:
    """The git commit of mcrank's source, when it runs from a git checkout, else None.

    ``{"commit": "<40 hex digits>", "modified": bool}``: ``modified`` says whether the code,
    the experiment files or ``pyproject.toml`` differed from that commit, untracked files
    among them included (:func:`uncommitted_changes`; results files and the rest of the
    repository do not count). The version number alone does not identify the code that
    made a result.
    """
    root = repository_root()
    if root is None:
        return None
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    changes = uncommitted_changes()
    if changes is None:
        return None
    return {"commit": commit, "modified": bool(changes)}


def is_clean(revision) -> bool:
    """Whether ``revision`` (:func:`source_revision`, as a results file records it) names a
    commit with nothing modified."""
    return isinstance(revision, dict) and isinstance(revision.get("commit"), str) and revision.get("modified") is False


def csv_comments(comments: dict) -> str:
    """``# key: value`` lines, one per item, the value as JSON: how mcrank's CSV files say how
    they were made, before their header (see :func:`rows_to_csv`)."""
    return "".join(f"# {key}: {json.dumps(value, ensure_ascii=False)}\n" for key, value in comments.items())


def rows_to_csv(rows: list[dict], *, comments: dict | None = None) -> str:
    """The rows of a study as CSV text with the columns :data:`ROW_FIELDS` (empty for None).

    Parameters
    ----------
    rows : list of dict
        The rows (see :meth:`mcrank.study.StudyResult.rows`).
    comments : dict, optional
        Written before the header as one ``# key: value`` line each, the value as JSON (so
        ``# seed: 7``, ``# error: "gaussian"``). pandas (``comment="#"``), numpy's ``loadtxt``
        and R's ``read.csv(comment.char = "#")`` skip them; with Python's :mod:`csv`, filter
        out the lines that start with ``#``.
    """
    buffer = io.StringIO()
    buffer.write(csv_comments(comments or {}))
    # A finite test set's rows have tied_pct too.
    fields = ROW_FIELDS + tuple(k for k in ("tied_pct",) if rows and k in rows[0])
    writer = csv.DictWriter(buffer, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if row.get(k) is None else row[k] for k in fields})
    return buffer.getvalue()


def study_document(result, **labels) -> dict:
    """A study's results with how they were made: what a study's JSON file holds.

    Parameters
    ----------
    result : StudyResult
        See :class:`mcrank.study.StudyResult`.
    **labels
        Keys that come first (``experiment``, ``description``, ``source`` for a study of
        ``experiments/``).

    Returns
    -------
    dict
        ``labels``, then ``config`` (every parameter, the seed, the mcrank version), ``rows``,
        ``batches`` and ``wall_time``, ``metric_files`` if a user's metrics are among the
        rows (each file's path, SHA-256 and its metrics' compliance), then :func:`provenance`: ``versions``, ``python``,
        ``platform``, ``revision`` (:func:`source_revision`) and ``date``.
    """
    return {**labels, **result.to_dict(), **_metric_files(result.config.metrics), **provenance()}


def _metric_files(metrics) -> dict:
    """``{"metric_files": [...]}``: the path, SHA-256 and compliance of each user's metric file
    whose metrics are among ``metrics``, or nothing if none is (:mod:`mcrank.metrics.user`)."""
    from mcrank.metrics.user import loaded_metric_files

    files = [f.provenance() for f in loaded_metric_files() if set(f.ids) & set(metrics)]
    return {"metric_files": files} if files else {}


#: What a study's CSV gives in its leading ``# key: value`` lines besides the config.
CSV_PROVENANCE = ("versions", "python", "platform", "revision", "date")


def study_csv(document: dict) -> str:
    """A study document (:func:`study_document`) as CSV: its rows, after ``# key: value``
    lines with its labels (``experiment``, ...), the seed, every parameter, the package
    versions, Python, platform and date, so that the file says how it was made on its own.
    """
    config = document["config"]
    comments = {key: document[key] for key in ("experiment", "description", "source") if key in document}
    comments.update(seed=config["seed"], **{k: v for k, v in config.items() if k != "seed"})
    if "metric_files" in document:
        comments["metric_files"] = "; ".join(f"{f['path']} (sha256 {f['sha256']})" for f in document["metric_files"])
    comments.update((key, document[key]) for key in CSV_PROVENANCE)
    return rows_to_csv(document["rows"], comments=comments)


def write_study(
    result, directory, name: str, *, description: str = "", source: str | None = None, keep_same: bool = False, before_write=None
) -> tuple[Path, ...]:
    """Write a :class:`~mcrank.study.StudyResult` as ``<name>.csv`` then ``<name>.json``.

    Parameters
    ----------
    keep_same : bool, default False
        Leave the files alone if they already hold this study with the same counts
        (:func:`holds_same_study`): they keep the date, versions and revision of the run that
        made them, so a run that changes no count changes no file.
    before_write : callable, optional
        Called with the CSV's path before anything is written; it may refuse by raising.

    Returns
    -------
    tuple of Path
        ``(csv_path, json_path)``, or nothing if the files were kept.
    """
    directory = Path(directory)
    document = study_document(result, experiment=name, description=description, source=source)
    if keep_same and holds_same_study(directory, name, document):
        return ()
    if before_write is not None:
        before_write(directory / f"{name}.csv")
    csv_path = atomic_write_text(directory / f"{name}.csv", study_csv(document))
    json_path = atomic_write_text(directory / f"{name}.json", json.dumps(document, indent=2) + "\n")
    return csv_path, json_path


#: What identifies a study's numbers in its document; the rest (wall time, versions, python,
#: platform, revision, date) says how and when they were made.
_SAME_STUDY = ("experiment", "description", "source", "config", "rows", "batches")


def holds_same_study(directory, name: str, document: dict) -> bool:
    """Whether ``<name>.json`` and ``.csv`` in ``directory`` hold the study of ``document``
    (:func:`study_document`): the same labels, config (its mcrank version aside), rows and
    batches, from a clean revision (:func:`is_clean`) or while ``document``'s is not clean.

    A run that repeats a study bit for bit then leaves its files as they are, unless it can
    replace a record of a modified tree by one of a clean commit.
    """
    directory = Path(directory)
    if not (directory / f"{name}.csv").is_file():
        return False
    try:
        recorded = read_study(directory / f"{name}.json")
    except (OSError, ValueError):
        return False

    def numbers(d):  # as JSON text: NaN equals NaN, a tuple its list
        kept = {key: ({k: v for k, v in d[key].items() if k != "version"} if key == "config" else d.get(key)) for key in _SAME_STUDY}
        return json.dumps(kept, sort_keys=True)

    return numbers(recorded) == numbers(document) and (is_clean(recorded.get("revision")) or not is_clean(document.get("revision")))


#: Largest input file read, in bytes: ``--config /dev/zero`` is refused, not read until the
#: memory runs out.
MAX_INPUT_BYTES = 16 << 20


def read_text(path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> str:
    """The text of the UTF-8 file ``path`` (a byte-order mark skipped), reading at most
    ``limit + 1`` bytes.

    Raises
    ------
    ValueError
        Naming the file: not a regular file (:func:`mcrank._io.read_regular`), larger than
        ``limit`` bytes, or not UTF-8. ``what`` says what
        kind of file it is ("experiment file"): "<path>: the <what> is larger than ...".
    OSError
        If the file cannot be read (the error names it).
    """
    from mcrank._io import read_regular

    data = read_regular(path, limit + 1)  # a FIFO or a device refused, not waited on
    if len(data) > limit:
        raise ValueError(f"{path}: the {what} is larger than the limit of {limit:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (not UTF-8)") from None


def read_study(path) -> dict:
    """Read a study's JSON file; ValueError if it is not valid JSON with config and rows (or
    larger than :data:`MAX_INPUT_BYTES`)."""
    path = Path(path)
    try:
        document = json.loads(read_text(path, what="results file"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from None
    if not isinstance(document, dict) or "config" not in document or "rows" not in document:
        raise ValueError(f"{path}: not an mcrank results file (no config or rows)")
    return document


#: Largest shard file read: a shard of 10^10 pairs holds its 150,000 chunks' counts.
MAX_SHARD_BYTES = 256 << 20


def shard_document(shard) -> dict:
    """A :class:`~mcrank.study.StudyShard` with how it was made: ``metric_files`` if a user's
    metrics are counted (each file's path, SHA-256 and compliance, as :func:`study_document`
    records them, so that a merge can tell the file it is given is the one the shard counted),
    then :func:`provenance`; what ``mcrank run --shard`` writes and ``mcrank merge`` reads."""
    return {**shard.to_dict(), **_metric_files(shard.config.metrics), **provenance()}


def read_shard(path):
    """The :class:`~mcrank.study.StudyShard` of a shard file (:func:`shard_document`).

    Raises
    ------
    ValueError
        Naming the file: not valid JSON, not a shard file, or a shard that does not hold what it says.
    """
    import numpy as np

    from mcrank.engine import check_shard, check_shard_chunks
    from mcrank.study import StudyConfig, StudyShard

    path = Path(path)
    try:
        document = json.loads(read_text(path, limit=MAX_SHARD_BYTES, what="shard file"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON: {error}") from None
    keys = ("shard", "config", "dtype", "chunks")
    if not isinstance(document, dict) or any(key not in document for key in keys) or not isinstance(document["shard"], dict):
        raise ValueError(f"{path}: not an mcrank shard file (written by mcrank run --shard)")
    try:
        config = StudyConfig.from_dict({k: v for k, v in document["config"].items() if k != "version"}, source=str(path))
    except (TypeError, AttributeError):
        raise ValueError(f"{path}: not an mcrank shard file (written by mcrank run --shard): its config is malformed") from None
    except ValueError as error:  # a study parameter, or a user's metric that no --metric-file loaded
        message = str(error)
        raise ValueError(message if message.startswith(f"{path}: ") else f"{path}: {message}") from None
    try:
        index, count = check_shard(tuple(document["shard"][key] for key in ("index", "count")))
        dtype = {"int64": np.int64, "float64": np.float64}[document["dtype"]]
        if not isinstance(document["chunks"], list):
            raise TypeError("its chunks are not a list")
        chunks = [_chunk(path, item, dtype) for item in document["chunks"]]
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        if isinstance(error, ValueError) and str(error).startswith(f"{path}: "):
            raise
        raise ValueError(f"{path}: not an mcrank shard file (written by mcrank run --shard): its counts are malformed") from None
    if config.to_dict() != {k: v for k, v in document["config"].items() if k != "version"}:
        raise ValueError(f"{path}: its config is not one this version of mcrank writes")
    try:
        check_shard_chunks(config, chunks)
    except ValueError as error:
        raise ValueError(f"{path}: not the counts of mcrank run --shard: {error}") from None
    wall_time = document.get("wall_time", 0.0)
    if isinstance(wall_time, bool) or not isinstance(wall_time, (int, float)) or not 0 <= wall_time < float("inf"):
        raise ValueError(f"{path}: not an mcrank shard file: its wall_time is {wall_time!r}, not a number of seconds")
    if not isinstance(document.get("source", ""), str):
        raise ValueError(f"{path}: not an mcrank shard file: its source is {document['source']!r}, not the path of an experiment file")
    return StudyShard(
        config=config,
        index=index,
        count=count,
        chunks=chunks,
        wall_time=float(wall_time),
        provenance={
            **{key: document.get(key) for key in ("versions", "revision", "date", "source")},
            "metric_files": _recorded_metric_files(path, document, config),
        },
    )


def _chunk(path: Path, item, dtype) -> tuple:
    """One chunk of a shard file, ``[chunk, size, [counts], [sums]]``, as arrays; a ValueError
    naming the file for a value of another JSON type than the format's (a string, a bool, a
    fraction where a whole number belongs), which NumPy would convert silently ("5" to 5, 5.7
    to 5); a TypeError for a chunk that is not four values."""
    import numpy as np

    chunk, size, incorrect, sums = item
    if type(chunk) is not int or type(size) is not int or not isinstance(incorrect, list) or not isinstance(sums, list):
        raise TypeError("not [chunk, size, [counts], [sums]]")
    counts = (int,) if dtype is np.int64 else (int, float)  # type(), not isinstance: a bool is an int
    for values, types, what in (
        (incorrect, counts, "a whole number" if dtype is np.int64 else "a number"),
        (sums, (int, float), "a number"),
    ):
        wrong = next((value for value in values if type(value) not in types), None)
        if wrong is not None:
            raise ValueError(f"{path}: not an mcrank shard file (written by mcrank run --shard): chunk {chunk} holds {wrong!r}, not {what}")
    return chunk, size, np.array(incorrect, dtype=dtype), np.array(sums, dtype=np.float64)


def _recorded_metric_files(path: Path, document: dict, config) -> list[dict]:
    """The ``metric_files`` a shard file records (:func:`shard_document`), checked: a list of
    each file's ``path`` and ``sha256``; one is needed if a user's metric is counted."""
    from mcrank.metrics.user import loaded_metric_files

    recorded = document.get("metric_files", [])
    if not isinstance(recorded, list) or not all(
        isinstance(f, dict)
        and isinstance(f.get("path"), str)
        and isinstance(f.get("sha256"), str)
        and re.fullmatch(r"[0-9a-f]{64}", f["sha256"])
        for f in recorded
    ):
        raise ValueError(f"{path}: not an mcrank shard file (written by mcrank run --shard): its metric_files are malformed")
    counted = [f.path for f in loaded_metric_files() if set(f.ids) & set(config.metrics)]
    if counted and not recorded:
        raise ValueError(
            f"{path}: records no SHA-256 of the metric file {counted[0]} whose metrics it counts (an older mcrank wrote it): "
            "run the shard again"
        )
    return recorded


def is_complete(directory, name: str, config) -> bool:
    """Whether ``<name>.json`` and ``.csv`` exist and were made with exactly ``config``.

    ``config`` is a :class:`~mcrank.study.StudyConfig` with a fixed seed; the comparison
    covers every parameter, the seed and the number of samples.
    """
    directory = Path(directory)
    json_path, csv_path = directory / f"{name}.json", directory / f"{name}.csv"
    if not (json_path.is_file() and csv_path.is_file()):
        return False
    try:
        recorded = read_study(json_path)["config"]
    except (OSError, ValueError):
        return False
    recorded = {k: v for k, v in recorded.items() if k != "version"}
    return recorded == json.loads(json.dumps(config.to_dict()))
