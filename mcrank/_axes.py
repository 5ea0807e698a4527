"""What every registry shares: records by name, and switches generated from them.

Metrics (:mod:`mcrank.metrics`), ROC scores (:mod:`mcrank.roc`), error models, true-utility
distributions and estimators are each one :class:`Registry`: a dict of frozen records by name,
in the order registered, each record's ``code`` its position, which is how the numba kernels
name it. Where the kernels switch on a code, the switch is generated from the registry by
:func:`generate` (its ``if``/``elif`` chain by :func:`branches`), as numba-stats generates its
wrappers: no branch is copied by hand, and a new entry touches only its registry.

A switch is generated once, when the module that holds it is imported (or, for the metrics',
by :func:`generate_when_used`, when numba or the interpreter first needs it, so that a user's
metric file can be loaded after :mod:`mcrank.metrics` is imported); from then on its registry is
sealed, and :meth:`Registry.add` refuses new entries rather than leave them out of the kernels. Entries added after the built-in ones (by a plugin or a test) key numba's on-disk
cache on their sources as well (:func:`mcrank._jit.extend_cache_key`), so that no kernel
compiled without them is ever loaded with them, nor the other way round.
"""

from __future__ import annotations

import math
import sys
import threading

from mcrank._jit import _OPTIONS, Kernel, extend_cache_key, jit

__all__ = ["Registry", "branches", "generate", "generate_predicate", "generate_switch", "generate_when_used", "pieces"]


class Registry(dict):
    """The records of one axis by name, in the order registered; a record's ``code`` is its position.

    A dict, so that ``registry[name]``, ``name in registry``, ``tuple(registry)`` (the names)
    and :func:`mcrank._validation.check_choice` work as on any mapping. Add records with
    :meth:`add` only.

    Parameters
    ----------
    what : str
        What a record is, for messages (``"error model"``).
    key : str, default "name"
        The record's attribute that names it (``"id"`` for metrics and ROC scores, whose
        ``name`` is for display).
    """

    def __init__(self, what: str, key: str = "name"):
        super().__init__()
        self.what = what
        self.key = key
        self._sealed_by: str | None = None
        self._builtin = True

    def add(self, record):
        """Register ``record`` (its ``code`` must be ``len(self)``) and return it.

        Raises
        ------
        RuntimeError
            If a switch has been generated from the registry already (see the module's
            docstring): register before that module is imported.
        ValueError
            If the name is taken or the code is not the next one.
        """
        name = getattr(record, self.key)
        if self._sealed_by is not None:
            raise RuntimeError(
                f"cannot register the {self.what} {name!r}: the kernels' switch over the {self.what}s was generated "
                f"when {self._sealed_by}; {self._advice}"
            )
        if not isinstance(name, str) or not name or name in self:
            raise ValueError(f"the {self.what} name {name!r} is empty, not a string, or registered already")
        if record.code != len(self):
            raise ValueError(f"the {self.what} {name!r} must have code {len(self)} (its position), got {record.code!r}")
        if not self._builtin:
            extend_cache_key(_source_text(record, name), vars(record).values() if hasattr(record, "__dict__") else ())
        super().__setitem__(name, record)
        return record

    def builtins_registered(self) -> None:
        """Mark the end of the built-in records: those added later key the jit cache."""
        self._builtin = False

    @property
    def builtin(self) -> bool:
        """Whether the built-in records are still being registered."""
        return self._builtin

    def seal(self, by: str, advice: str = "", *, when: str = "") -> None:
        """Refuse new records from now on: module ``by`` generated a switch from the registry.

        ``advice`` says, in the refusal, where to register instead (by default: before
        importing ``by``, or mcrank.engine and mcrank.study, which import it); ``when`` says
        when the switch was generated (by default: when ``by`` was imported)."""
        if self._sealed_by is None:
            self._sealed_by = when or f"{by} was imported"
            self._advice = advice or f"register it before importing {by} (or mcrank.engine, mcrank.study)"

    @property
    def sealed(self) -> bool:
        """Whether a switch has been generated from the registry (no record can be added)."""
        return self._sealed_by is not None

    def __setitem__(self, key, value):
        raise TypeError(f"add a {self.what} with its registry's add(), not by assignment")

    def lookup(self, name, known: str):
        """The record named ``name``; a KeyError listing the ``known`` names (``"scores"``) if none is."""
        try:
            return self[name]
        except (KeyError, TypeError):
            raise KeyError(f"unknown {self.what} {name!r}; known {known}: {', '.join(self)}") from None

    def help(self) -> str:
        """Every record's name and one-line help, for the command line."""
        return "; ".join(f"{name}: {record.help}" for name, record in self.items())

    def width(self) -> int:
        """The longest name: the width of a table's column of them."""
        return max(map(len, self), default=0)


def _source_text(record, name: str) -> str:
    """The name, code and the sources of the numba functions of a record, for the cache key.

    A record whose source cannot be read (defined interactively) gets a key no other run
    shares: its name, code and the functions' ids."""
    import inspect

    parts = [name, str(record.code)]
    source = getattr(record, "source", None)
    if isinstance(source, str):  # the text its functions were made from (a user's metric file)
        parts.append(source)
    for value in vars(record).values() if hasattr(record, "__dict__") else ():
        function = getattr(value, "py_func", None)
        if function is None:
            continue
        try:
            parts.append(inspect.getsource(function))
        except (OSError, TypeError):
            parts.append(f"{function.__module__}.{function.__qualname__}@{id(function)}")
    return "\0".join(parts)


def branches(records, body, default: str = "") -> str:
    """The ``if``/``elif`` chain of a switch on ``code``: one test per record, in the order given.

    Parameters
    ----------
    records : iterable of records
        Each with its ``code``.
    body : str or callable
        The source under each test, indented by 8 spaces (lines after the first as written):
        ``body.format(f=f"f{code}", code=code)``, where ``f<code>`` is the record's piece in
        the namespace (:func:`pieces`); or ``body(record)``, that source itself.
    default : str
        A line that runs for a code no record has (an ``else`` branch), if any.
    """
    lines = []
    for k, record in enumerate(records):
        source = body(record) if callable(body) else body.format(f=f"f{record.code}", code=record.code)
        lines += [f"    {'if' if k == 0 else 'elif'} code == {record.code}:", "        " + source]
    if default:
        lines += ["    else:", "        " + default] if lines else ["    " + default]
    return "".join(line + "\n" for line in lines)


def pieces(records, attribute: str, prefix: str = "f") -> dict:
    """The namespace of a switch: each record's ``attribute`` as ``<prefix><code>``."""
    return {f"{prefix}{record.code}": getattr(record, attribute) for record in records}


def generate(name: str, source: str, namespace: dict, module: str, doc: str, **options):
    """The jitted function ``name`` defined by ``source`` (generated from a registry), as if
    written in ``module`` (the module that holds the switch, importing it).

    Compiled under that module's file name: numba's on-disk cache needs a source file to key
    on, and :mod:`mcrank._jit` names the cache directory after a digest of the package's
    sources, so an edit to an entry can never reach a stale kernel.
    """
    namespace = {**namespace, "__name__": module}
    exec(compile(source, sys.modules[module].__file__, "exec"), namespace)
    function = namespace[name]
    function.__doc__ = doc
    return jit(function, **options)


def generate_switch(registry: Registry, name: str, arguments: str, call, module: str, doc: str):
    """The jitted inline switch ``name(code, <arguments>) -> float`` over every record of
    ``registry``: the branch of each the expression ``call(record)``, in which the record's
    ``score`` is ``f<code>`` and its ``compare`` ``c<code>`` (:func:`pieces`); NaN for a code no
    record has."""
    records = list(registry.values())
    source = f"def {name}(code, {arguments}):\n" + branches(records, lambda record: f"return {call(record)}") + "    return math.nan\n"
    namespace = {"math": math, **pieces(records, "score"), **pieces(records, "compare", prefix="c")}
    return generate(name, source, namespace, module, doc, inline="always")


def generate_predicate(name: str, registry: Registry, attribute: str, module: str, doc: str):
    """The jitted inline ``name(code) -> bool``: whether record number ``code`` has ``attribute`` true."""
    codes = [record.code for record in registry.values() if getattr(record, attribute)]
    test = " or ".join(f"code == {code}" for code in codes) or "False"
    return generate(name, f"def {name}(code):\n    return {test}\n", {}, module, doc, inline="always")


class _GeneratedWhenUsed(Kernel):
    """A :class:`~mcrank._jit.Kernel` whose function is generated from its registry when first
    needed: called (compiled or interpreted), or compiled into another kernel. The registry is
    sealed then."""

    def __init__(self, name: str, make, registry: Registry, module: str, doc: str, advice: str, options: dict):
        self.__name__ = self.__qualname__ = name
        self.__module__, self.__doc__ = module, doc
        self._make, self._registry, self._advice_text = make, registry, advice
        self._options = {**_OPTIONS, **options}
        self._function = None
        self._dispatcher = None
        self._generating = threading.Lock()

    @property
    def py_func(self):
        """The Python function, generated from the registry on first use (which seals it)."""
        if self._function is None:
            with self._generating:
                if self._function is None:
                    self._registry.seal(self.__module__, self._advice_text, when=f"{self.__module__}.{self.__name__} was first used")
                    source, namespace = self._make()
                    self._function = generate(self.__name__, source, namespace, self.__module__, self.__doc__).py_func
        return self._function


def generate_when_used(name: str, make, registry: Registry, module: str, doc: str, advice: str = "", **options) -> Kernel:
    """The jitted function ``name`` of :func:`generate`, its source and namespace ``make()``
    generated from ``registry`` when the kernel is first needed rather than now; ``registry`` is
    sealed then, with ``advice`` in its refusals. Records may be added until that moment (a
    user's metric file, loaded after the module that holds the switch was imported)."""
    return _GeneratedWhenUsed(name, make, registry, module, doc, advice, options)
