"""The one jit decorator of mcrank, with its options set here and nowhere else.

``cache=True`` keeps compiled kernels on disk between runs; ``error_model="numpy"``
makes 0/0 a NaN instead of an exception (the metrics' documented undefined value);
``nogil=True`` lets joblib's threading backend run kernels on all cores at once.

A decorated function is a :class:`Kernel`: numba is imported, and the function handed to it,
only when a kernel is first called or compiled into another. Importing the package, and
every command that draws nothing (``mcrank --help``, ``story``, ``evaluate`` on confusion
matrices), never loads numba: a few matrices are scored by the kernels' Python functions
(:func:`interpreted`) in less time than numba takes to import.

numba invalidates a cached kernel only when the file that defines it changes, not when a
function it calls from another module does, nor a constant it reads from one (the engine's
kernel reads ``mcrank.metrics.ORDER_MIN_CELL``): it would keep running the old code. So the
cache lives in a directory named after a digest of every source file of the package, and any
edit starts a fresh cache. numba's own locators key a cached function on the absolute path of
its source file as well, so every checkout of the same sources (a fresh clone, CI) would
compile everything again; mcrank's kernels are located by :class:`_ContentLocator` instead,
under the digest and the module's path inside the package, wherever the package sits. Process
workers (loky, dask) import mcrank and compute the same directory. It sits in
``$NUMBA_CACHE_DIR`` if set, else in the user's cache directory
(``~/.cache/mcrank/numba/<digest>``); the directories of older sources can be deleted at will.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import threading
from pathlib import Path

from mcrank import _signals

__all__ = ["Kernel", "cache_directory", "extend_cache_key", "interpreted", "jit", "kernels_cached"]

_OPTIONS = dict(cache=True, error_model="numpy", nogil=True)

_PACKAGE = Path(__file__).parent

#: Whether kernels called from Python run their Python functions (:func:`interpreted`).
_INTERPRETED = contextvars.ContextVar("mcrank_interpreted", default=False)

# Kernels are handed to numba from any thread of the threading backend: once each.
_LOCK = threading.RLock()


def _compile(dispatcher, signature):
    """numba's compile of ``dispatcher`` for ``signature`` (or its load from the cache), with a
    signal's exception held until it returns (:func:`_numba_at_work`)."""
    with _numba_at_work():
        return type(dispatcher).compile(dispatcher, signature)  # looked up now: a test may wrap it


def _numba_at_work():
    """A block of numba's work (a compile, a load from its cache, the first dispatcher, which
    builds numba's code generator) where a signal's exception waits until the outermost such
    block returns (:class:`mcrank._signals.held`). Raised inside one of LLVM's callbacks into
    Python (ctypes), Python prints it ("Exception ignored on calling ctypes callback function")
    and drops it, and the compile fails with a traceback of its own; raised between two of
    numba's calls into LLVM, it can leave an object that LLVM freed still owned by Python,
    freed again later (abort)."""
    return _signals.held()


@functools.cache
def _source_digest(extra: tuple[str, ...] = ()) -> str:
    """A digest of every source file of the package, with their paths inside it, and of the
    extra sources ``extra``."""
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes())
    for text in extra:
        digest.update(b"\0extra\0" + text.encode())
    return digest.hexdigest()[:16]


def _file_digest(path: str) -> str:
    import hashlib

    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@functools.cache
def _cache_directory(extra: tuple[str, ...] = ()) -> str | None:
    """A writable directory for this version of the sources, or None (then no cache)."""
    import tempfile  # here: a command that draws nothing never reads it, nor random, which it imports

    user = os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    for base in (user, tempfile.gettempdir()):
        path = os.path.join(base, "mcrank", "numba", _source_digest(extra))
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            continue
        if os.access(path, os.W_OK):
            return path
    return None


def cache_directory() -> str | None:
    """The directory of the kernels compiled from this version of the sources, or None if no
    directory is writable (then nothing is cached). A kernel that reaches an entry added to a
    registry from outside the package (:func:`extend_cache_key`) has a directory of its own."""
    return _cache_directory()


def kernels_cached() -> bool:
    """Whether numba's cache for this version of the sources holds compiled kernels (one
    index file, ``.nbi``, per function): if not, the next study compiles them (tens of
    seconds), which a command says before it starts rather than sit silent."""
    directory = cache_directory()
    return directory is not None and any(Path(directory).rglob("*.nbi"))


def extend_cache_key(text: str, pieces=()) -> None:
    """Key the cache of the kernels that reach ``pieces`` on ``text`` as well.

    For an entry added to a registry from outside the package (:mod:`mcrank._axes`: a plugin's,
    or a user's metric), ``text`` its sources and ``pieces`` its kernels: the kernels that call
    them, directly or through a registry's switch, inline its code, which the package's digest
    does not see. Each kernel is keyed on the extra sources it reaches
    (:func:`_sources_reached`) when numba is first handed it (:attr:`Kernel.dispatcher`), so a
    user's metric recompiles the kernels that score metrics, not the samplers, and a
    module-level kernel that calls a switch generated later (the n-class study's) is keyed on
    the entries registered by then. The kernels handed to numba before keep their cache: they
    cannot reach the entry, whose registry is sealed once a switch is generated from it.
    """
    for piece in pieces:
        if isinstance(piece, Kernel):
            piece._own_sources = piece._own_sources | {text}


def _referenced(function):
    """What ``function``'s code may call: the globals it names (and the attributes it names of
    a module among them) and its closure's cells, its nested functions' too."""
    import types

    names, codes = set(), [function.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    namespace = getattr(function, "__globals__", {})
    for name in names:
        value = namespace.get(name)
        yield value
        if isinstance(value, types.ModuleType):
            yield from (getattr(value, other, None) for other in names)
    for cell in function.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue


def _sources_reached(kernel: Kernel) -> frozenset:
    """The extra sources (:func:`extend_cache_key`) of ``kernel`` and of every kernel it calls,
    directly or through others: what its cache is keyed on besides the package's sources. The
    whole graph of calls is walked (a kernel's result is the union over all it reaches, kept
    once computed), so that no order of the walk leaves a callee out."""
    if kernel._reached is not None:
        return kernel._reached
    texts, todo, seen = set(), [kernel], {id(kernel)}
    while todo:
        current = todo.pop()
        if current._reached is not None:  # complete: computed by a walk of its own
            texts |= current._reached
            continue
        texts |= current._own_sources
        for value in _referenced(current.py_func):
            if isinstance(value, Kernel) and id(value) not in seen:
                seen.add(id(value))
                todo.append(value)
    kernel._reached = frozenset(texts)
    return kernel._reached


@contextlib.contextmanager
def interpreted():
    """Within this context, kernels called from Python run as Python (their ``py_func``),
    with NumPy's float semantics (0/0 is NaN, silently, as under ``error_model="numpy"``).

    For a handful of values, where importing numba and loading the compiled kernels would
    take longer than the work.
    """
    token = _INTERPRETED.set(True)
    try:
        with _numpy_errors_ignored():
            yield
    finally:
        _INTERPRETED.reset(token)


def _numpy_errors_ignored():
    import numpy as np

    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


class Kernel:
    """A function jitted by numba when first needed, with mcrank's options.

    Called from Python, it runs the compiled kernel (compiling it, or loading it from the
    cache, on the first call), or the Python function inside :func:`interpreted`. Compiled
    into another kernel, numba sees the dispatcher (``_numba_type_``), and with it every
    attribute of numba's dispatcher (``targetoptions`` for inlining, ``signatures``, ...).

    Parameters
    ----------
    py_func : function
        The Python function.
    options : dict
        Keyword arguments of ``numba.njit``.
    """

    #: The extra sources of the registry entry it is a piece of (:func:`extend_cache_key`), and
    #: those it reaches, once computed (:func:`_sources_reached`).
    _own_sources: frozenset = frozenset()
    _reached: frozenset | None = None

    def __init__(self, py_func, options: dict):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self._options = options
        self._dispatcher = None

    @property
    def dispatcher(self):
        """numba's dispatcher of the function, created on first use, its cache keyed on the
        extra sources registered by then (:func:`extend_cache_key`)."""
        if self._dispatcher is None:
            with _LOCK:
                if self._dispatcher is None:
                    self._dispatcher = _njit(self.py_func, self._options, tuple(sorted(_sources_reached(self))))
        return self._dispatcher

    def __call__(self, *args, **kwargs):
        if _INTERPRETED.get():
            return self.py_func(*args, **kwargs)
        return self.dispatcher(*args, **kwargs)

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("dispatcher", "_dispatcher", "_options", "py_func", "_function"):
            raise AttributeError(name)  # not numba's: pickle, numpy and copy probe these
        return getattr(self.dispatcher, name)

    def __reduce__(self):
        return (_dispatcher_of, (self.dispatcher,))

    def __repr__(self) -> str:
        return f"<mcrank kernel {self.__module__}.{self.__qualname__}>"


def _dispatcher_of(dispatcher):
    return dispatcher


def jit(func=None, **overrides):
    """Compile ``func`` with mcrank's jit options (usable with or without arguments), when
    first needed: a :class:`Kernel`."""
    options = {**_OPTIONS, **overrides}
    if func is None:
        return lambda f: Kernel(f, options)
    return Kernel(func, options)


def _njit(py_func, options: dict, extra: tuple[str, ...]):
    """numba's dispatcher of ``py_func``, cached under the digest of the sources and the extra
    sources ``extra``, or not cached if no directory is writable."""
    numba = _numba()
    directory = _cache_directory(extra) if options.get("cache") else None
    if directory is None:
        options = {**options, "cache": False}
    else:
        py_func._mcrank_cache = (directory, _source_digest(extra))
    with _numba_at_work():
        dispatcher = numba.njit(**options)(py_func)
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)  # none: NUMBA_DISABLE_JIT
    if cache_file is not None:
        cache_file.__class__ = _keyed_cache_file()
    # Every compile of it, called from Python or from the compile of another kernel.
    dispatcher.compile = functools.partial(_compile, dispatcher)
    return dispatcher


@functools.cache
def _keyed_cache_file() -> type:
    """numba's file pair of a cached function (an index, and a data file per signature), with
    each data file named after its index key.

    numba numbers the data files in the order they are saved, from the index it read: two
    processes that compile one function for two signatures at once (pytest-xdist's workers,
    loky's, two commands on one cache) can both take number 1. The index then names one
    signature's file while the other signature's code is in it, and the process that loads it
    crashes (numba issues 4807 and 10128). Named after its key, a data file holds that key's
    code, whoever wrote it last; an index saved over another process's loses that entry, which
    is compiled again when next needed.
    """
    import hashlib

    from numba.core import caching

    class _KeyedCacheFile(caching.IndexDataCacheFile):
        def save(self, key, data):
            name = f"{self._index_name.removesuffix('.nbi')}.{hashlib.sha256(self._dump(key)).hexdigest()[:16]}.nbc"
            self._save_data(name, data)  # first: an index never names a file not yet written
            overloads = self._load_index()
            if overloads.get(key) != name:
                overloads[key] = name
                self._save_index(overloads)

    return _KeyedCacheFile


@functools.cache
def _numba():
    """numba, with :class:`_ContentLocator` first among its cache locators."""
    import numba
    from numba.core import caching

    class _ContentLocator(caching._CacheLocator):
        """numba's cache locator for mcrank's kernels: the cache directory of the sources'
        digest (:func:`_cache_directory`), then the module's path inside the package, and
        the digest as the source stamp. Nothing depends on where the package sits, so any
        checkout of the same sources loads the kernels another compiled. A kernel defined
        outside the package (a plugin's registry entry) is keyed on its file as well."""

        def __init__(self, directory: str, digest: str, py_file: str, lineno: int):
            folder = Path(py_file).resolve().parent
            if folder.is_relative_to(_PACKAGE.resolve()):
                self._cache_path = os.path.join(directory, *folder.relative_to(_PACKAGE.resolve()).parts)
                self._stamp = digest
            else:  # a registry entry of a plugin or a test: its file is not in the digest
                self._cache_path = os.path.join(directory, "outside", self.get_suitable_cache_subpath(py_file))
                self._stamp = (digest, _file_digest(py_file))
            self._py_file = py_file  # numba names it in the warning when a kernel cannot be cached
            self._lineno = lineno

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return self._stamp

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            key = getattr(py_func, "_mcrank_cache", None)
            if key is None:  # not one of mcrank's kernels: numba's own locators
                return None
            try:
                self = cls(*key, py_file, py_func.__code__.co_firstlineno)
                self.ensure_cache_path()
            except (OSError, ValueError):  # unwritable, or a file outside the package
                return None
            return self

    implementation = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.61
    implementation._locator_classes.insert(0, _ContentLocator)
    return numba
