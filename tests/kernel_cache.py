"""A copy of this session's numba cache without some kernels, for tests that need numba to
compile: it compiles only the kernels left out, and loads the functions they call from the
copy, instead of compiling everything from nothing (a fresh cache)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mcrank._jit import cache_directory


def cache_without(numba_cache_dir: Path, folder: str, part: str) -> None:
    """Under ``numba_cache_dir`` (a process's ``NUMBA_CACHE_DIR``), a copy of this session's
    kernel cache without the files of ``folder`` (a subpackage's folder in the cache, such as
    ``engine``) whose names hold ``part``. Without a cache to copy, nothing: the process then
    compiles every kernel, as from a fresh cache."""
    directory = cache_directory()
    if directory is None or not (Path(directory) / folder).is_dir():
        return
    left_out = []

    def ignore(here, names):
        names = [name for name in names if Path(here).name == folder and part in name]
        left_out.extend(names)
        return names

    # A process's cache directory is <NUMBA_CACHE_DIR>/mcrank/numba/<digest of the sources>.
    shutil.copytree(directory, numba_cache_dir.joinpath(*Path(directory).parts[-3:]), ignore=ignore)
    assert left_out, f"no {folder}/*{part}* in the cache to leave out: nothing would compile"
