"""mcrank._jit: kernels compiled when first needed, and cached once per content of the sources."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from kernel_cache import cache_without

import mcrank
from mcrank._jit import Kernel, interpreted, jit

PACKAGE = Path(mcrank.__file__).resolve().parent

# Calls one kernel and reports numba's count of loads from its cache and of compilations.
_CALL_A_KERNEL = """
import json
import numpy as np
from mcrank.confusion import _cells_from_pab
_cells_from_pab(np.array([0.5]), np.array([0.25]), np.array([0.75]))
stats = _cells_from_pab.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


@pytest.mark.slow
def test_a_kernel_compiled_in_one_checkout_is_loaded_by_another(tmp_path):
    """numba's own locators key a cached kernel on its source file's absolute path: a second
    clone compiled every kernel again. Two copies of the package in two directories, with
    fresh modification times, share one compilation."""
    cache = tmp_path / "cache"
    counts = []
    for checkout in ("first", "second"):
        shutil.copytree(
            PACKAGE, tmp_path / checkout / "mcrank", ignore=shutil.ignore_patterns("__pycache__"), copy_function=shutil.copyfile
        )
        environment = {"PYTHONPATH": str(tmp_path / checkout), "NUMBA_CACHE_DIR": str(cache), "PATH": ""}
        done = subprocess.run(
            [sys.executable, "-c", _CALL_A_KERNEL], capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300
        )
        assert done.returncode == 0, done.stderr
        hits_and_misses = json.loads(done.stdout)
        counts.append((hits_and_misses, sorted(p.relative_to(cache) for p in cache.rglob("*.nb[ic]"))))
    (first, first_files), (second, second_files) = counts
    assert first == [0, 1] and second == [1, 0], counts  # compiled once, then loaded
    assert second_files == first_files and len(first_files) == 2
    assert str(tmp_path) not in "".join(map(str, first_files))  # no trace of where it was compiled


# Runs both variants of the kernel of steps 1-3 (uniform and Beta rates, one signature) on the
# same stream, and reports their rates with numba's counts of cache loads and compilations.
_DRAW_TWO_VARIANTS = """
import json
import numpy as np
from mcrank.engine.binary import _draw_block_beta, _draw_block_uniform, study_arguments
from mcrank.study import StudyConfig
study = study_arguments(StudyConfig(rate_beta=(2.0, 3.0)))
report = {}
for kernel in (_draw_block_uniform, _draw_block_beta):
    utility, rates, cells, d_true = np.empty((4, 256)), np.empty((5, 256)), np.empty((8, 256)), np.empty(256)
    kernel(np.random.default_rng(1), study, 8, utility, rates, cells, d_true)
    stats = kernel.stats
    report[kernel.__qualname__] = [rates[:, :8].tolist(), sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]
print(json.dumps(report))
"""


@pytest.mark.slow
def test_each_variant_of_a_kernel_loads_its_own_code(tmp_path):
    """The two-class kernels are made per variant of a study (mcrank.engine.binary.Variant):
    closures of one definition, with the same signature. Compiled in one process, each is
    loaded by the next from a file of its own, and runs its own code, not the other's. The
    cache holds every other kernel: only the two variants compile, not the functions they call."""
    cache = tmp_path / "cache"
    cache_without(cache, "engine", "._draw_block")
    environment = {"PYTHONPATH": str(PACKAGE.parent), "NUMBA_CACHE_DIR": str(cache), "PATH": ""}
    reports = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", _DRAW_TWO_VARIANTS], capture_output=True, text=True, env=environment, cwd=tmp_path, timeout=300
        )
        assert done.returncode == 0, done.stderr
        reports.append(json.loads(done.stdout))
    compiled, loaded = reports
    assert sorted(compiled) == ["_draw_block[beta]", "_draw_block[uniform]"]
    for name in compiled:
        assert compiled[name][1:] == [0, 1] and loaded[name][1:] == [1, 0], reports
        assert loaded[name][0] == compiled[name][0]  # the code compiled for this variant
    assert compiled["_draw_block[beta]"][0][1] != compiled["_draw_block[uniform]"][0][1]  # TPRs: two draws
    assert len(list(cache.rglob("*_draw_block*.nbi"))) == 2


def _at_once(make, threads: int = 8) -> list:
    """``make()`` called by ``threads`` threads released together, with thread switches as
    frequent as Python allows: what each returned."""
    import threading

    barrier, made = threading.Barrier(threads), []

    def run():
        barrier.wait()
        made.append(make())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=run) for _ in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    finally:
        sys.setswitchinterval(interval)
    return made


def test_threads_that_start_the_same_variant_share_one_kernel():
    """The threading backend's workers start a study at once and each asks for its variant's
    kernel: they must share one, or numba compiles (or loads) it once per thread. The factories
    are called under a lock; a slow factory shows it, the engine's own must use it."""
    from mcrank.engine import binary

    calls = []

    def slow(key):
        calls.append(key)
        time.sleep(0.05)
        return object()

    shared = binary._once_per_variant(slow)
    assert len({id(k) for k in _at_once(lambda: shared("a"))}) == 1 and calls == ["a"]
    for factory in (binary._chunk_counter, binary._pairs_recorder):
        for flags in itertools.product((False, True), repeat=3):
            kernels = _at_once(lambda: factory(binary.Variant(*flags)))
            assert len({id(k) for k in kernels}) == 1, (factory.__name__, flags)
    assert binary._block_drawer(True) is binary._draw_block_beta


def test_two_processes_saving_one_function_never_cross_its_signatures(tmp_path):
    """Two processes compile one function for two signatures at once, each from the index it
    read before the other saved (numba numbered both data files 1). In every order their file
    writes can land, and at every step between, each key of the index loads its own code."""
    from mcrank._jit import _keyed_cache_file

    saved = {("int64",): "code for int64", ("float64",): "code for float64"}

    def writes(directory):
        """The file writes of each process's save, in its order, each deferred."""
        steps = []
        for key, data in saved.items():
            cache_file = _keyed_cache_file()(str(directory), "kernel-1.py311", "stamp")
            cache_file._load_index = dict  # stale: read before the other process saved
            own = []
            cache_file._save_data = lambda name, payload, f=cache_file, own=own: own.append(lambda: type(f)._save_data(f, name, payload))
            cache_file._save_index = lambda overloads, f=cache_file, own=own: own.append(lambda: type(f)._save_index(f, dict(overloads)))
            cache_file.save(key, data)
            steps.append(own)
        return steps

    orders = 0
    for first in itertools.combinations(range(4), 2):  # the slots of the first process's writes
        directory = tmp_path / f"order{orders}"
        directory.mkdir()
        mine, theirs = writes(directory)
        reader = _keyed_cache_file()(str(directory), "kernel-1.py311", "stamp")
        for slot in range(4):
            (mine if slot in first else theirs).pop(0)()
            index = type(reader)._load_index(reader)
            assert all(reader.load(key) == saved[key] for key in index), (first, slot, index)
        assert index, first
        orders += 1
    assert orders == 6


def test_a_kernel_is_compiled_only_when_first_needed():
    calls = []

    @jit
    def twice(x):
        calls.append(x)  # only as Python: numba could not compile this
        return 2 * x

    assert isinstance(twice, Kernel) and twice._dispatcher is None
    with interpreted():
        assert twice(np.float64(3.0)) == 6.0 and calls == [3.0]
    assert twice._dispatcher is None  # run as Python: numba was never asked
    assert twice.py_func(1) == 2 and twice.__name__ == "twice"


def _libm_cos():
    """libm's cos through ctypes: a function numba calls but cannot cache (a dynamic global)."""
    import ctypes
    import ctypes.util

    cosine = ctypes.CDLL(ctypes.util.find_library("m")).cos
    cosine.argtypes, cosine.restype = [ctypes.c_double], ctypes.c_double
    return cosine


_COSINE = _libm_cos()


@jit
def _through_ctypes(x):
    return _COSINE(x)


def test_a_kernel_that_cannot_be_cached_warns_and_runs():
    """numba declines to cache a kernel that calls a ctypes function and says so in a warning
    that names the kernel's file, which mcrank's cache locator must know."""
    import warnings

    from numba.core.errors import NumbaWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _through_ctypes(0.0) == 1.0
    messages = [str(w.message) for w in caught if issubclass(w.category, NumbaWarning)]
    assert any("Cannot cache" in m and "_through_ctypes" in m for m in messages), messages
