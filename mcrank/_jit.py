"""The one jit decorator of mcrank, with its options set here and nowhere else.

``cache=True`` keeps compiled kernels on disk between runs; ``error_model="numpy"``
makes 0/0 a NaN instead of an exception (the metrics' documented undefined value);
``nogil=True`` lets joblib's threading backend run kernels on all cores at once.

numba invalidates a cached kernel only when the file that defines it changes, not when a
function it calls from another module does, nor a constant it reads from one (the engine's
kernel reads ``mcrank.metrics.ORDER_MIN_CELL``): it would keep running the old code. So the
cache lives in a directory named after a digest of every source file of the package, and any
edit starts a fresh cache. Process workers (loky, dask) import mcrank and compute the same
directory. It sits in ``$NUMBA_CACHE_DIR`` if set, else in the user's cache directory
(``~/.cache/mcrank/numba/<digest>``); the directories of older sources can be deleted at will.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import numba

__all__ = ["extend_cache_key", "jit", "kernels_cached"]

_OPTIONS = dict(cache=True, error_model="numpy", nogil=True)


#: Sources outside the package that kernels compiled from now on depend on: the entries a
#: plugin or a test adds to a registry (:func:`extend_cache_key`).
_EXTRA_SOURCES: list[str] = []


def _source_digest() -> str:
    """A digest of every source file of the package, with their paths, and of the extra sources."""
    package = Path(__file__).parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    for text in _EXTRA_SOURCES:
        digest.update(b"\0extra\0" + text.encode())
    return digest.hexdigest()[:16]


def _cache_directory() -> str | None:
    """A writable directory for this version of the sources, or None (then no cache)."""
    user = numba.config.CACHE_DIR or os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    for base in (user, tempfile.gettempdir()):
        path = os.path.join(base, "mcrank", "numba", _source_digest())
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            return path
    return None


# numba's configuration, not the environment, which every program started from this one
# would inherit. Without a writable directory the cache is off: numba would fall back to
# __pycache__ beside the sources, where an edit of another module goes unnoticed.
numba.config.CACHE_DIR = _cache_directory() or ""
if not numba.config.CACHE_DIR:
    _OPTIONS["cache"] = False


def kernels_cached() -> bool:
    """Whether numba's cache for this version of the sources holds compiled kernels (one
    index file, ``.nbi``, per function): if not, the next study compiles them (tens of
    seconds), which a command says before it starts rather than sit silent."""
    return bool(numba.config.CACHE_DIR) and any(Path(numba.config.CACHE_DIR).rglob("*.nbi"))


def extend_cache_key(text: str) -> None:
    """Key the cache of every function decorated from now on on ``text`` as well.

    For an entry added to a registry from outside the package (:mod:`mcrank._axes`): the
    kernels compiled after it inline its code, which the package's digest does not see. numba
    fixes a function's cache directory when it is decorated, so the functions decorated
    before keep theirs: they cannot depend on the entry, whose registry is sealed once a
    switch is generated from it.
    """
    _EXTRA_SOURCES.append(text)
    numba.config.CACHE_DIR = _cache_directory() or ""
    if not numba.config.CACHE_DIR:
        _OPTIONS["cache"] = False


def jit(func=None, **overrides):
    """Compile ``func`` with mcrank's jit options (usable with or without arguments)."""
    options = {**_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
