"""The one jit decorator of mcrank, with its options set here and nowhere else.

``cache=True`` keeps compiled kernels on disk between runs; ``error_model="numpy"``
makes 0/0 a NaN instead of an exception (the metrics' documented undefined value);
``nogil=True`` lets joblib's threading backend run kernels on all cores at once.

numba invalidates a cached kernel only when the file that defines it changes, not when a
function it calls from another module does: the engine kernel would keep running an old
sampler. So the cache lives in a directory named after a hash of the sources of every
module that compiles kernels, and any edit to one of them starts a fresh cache. ``NUMBA_CACHE_DIR`` still takes precedence.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import numba

__all__ = ["jit"]

_OPTIONS = dict(cache=True, error_model="numpy", nogil=True)


def _source_digest() -> str:
    """Hash of the modules that compile kernels (this one and those that import it)."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.rglob("*.py")):
        source = path.read_bytes()
        if path.name == "_jit.py" or b"mcrank._jit" in source:
            digest.update(path.name.encode() + source)
    return digest.hexdigest()[:16]


def _cache_dir() -> str | None:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for root in (base, tempfile.gettempdir()):
        path = os.path.join(root, "mcrank", "numba", _source_digest())
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            return path
    return None


def _prune_siblings(directory: str, *, older_than: float = 86400.0) -> None:
    """Remove caches of other source versions not used for ``older_than`` seconds."""
    parent = Path(directory).parent
    now = time.time()
    for sibling in parent.iterdir():
        try:
            if sibling.name != Path(directory).name and now - sibling.stat().st_mtime > older_than:
                shutil.rmtree(sibling, ignore_errors=True)
        except OSError:
            continue


if not os.environ.get("NUMBA_CACHE_DIR"):
    _directory = _cache_dir()
    if _directory is not None:
        _prune_siblings(_directory)
        # Both: numba re-reads its configuration from the environment whenever a NUMBA_*
        # variable changes, and process workers (loky) inherit the environment.
        os.environ["NUMBA_CACHE_DIR"] = _directory
        numba.config.CACHE_DIR = _directory


def jit(func=None, **overrides):
    """Compile ``func`` with mcrank's jit options (usable with or without arguments)."""
    options = {**_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
