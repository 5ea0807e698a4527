"""What the registries of the study's axes share: records by name, and switches generated from them.

An axis of the study (error models, true-utility distributions, estimators) is one
:class:`Registry`: a dict of frozen records by name, in the order registered, each record's
``code`` its position, which is how the numba kernels name it. Where the kernels switch on a
code, the switch is generated from the registry by :func:`generate`, as
:mod:`mcrank.metrics._registry` generates the metrics' switch and numba-stats its wrappers: no
branch is copied by hand, and a new entry touches only its registry.

A switch is generated once, when the module that holds it is imported; from then on its
registry is sealed, and :meth:`Registry.add` refuses new entries rather than leave them out of
the kernels. Entries added after the built-in ones (by a plugin or a test) key numba's on-disk
cache on their sources as well (:func:`mcrank._jit.extend_cache_key`), so that no kernel
compiled without them is ever loaded with them, nor the other way round.
"""

from __future__ import annotations

import sys

from mcrank._jit import extend_cache_key, jit

__all__ = ["Registry", "generate", "generate_predicate"]


class Registry(dict):
    """The records of one axis by name, in the order registered; a record's ``code`` is its position.

    A dict, so that ``registry[name]``, ``name in registry``, ``tuple(registry)`` (the names)
    and :func:`mcrank._validation.check_choice` work as on any mapping. Add records with
    :meth:`add` only.

    Parameters
    ----------
    what : str
        What a record is, for messages (``"error model"``).
    """

    def __init__(self, what: str):
        super().__init__()
        self.what = what
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
        if self._sealed_by is not None:
            raise RuntimeError(
                f"cannot register the {self.what} {record.name!r}: the kernels' switch over the {self.what}s was generated "
                f"when {self._sealed_by} was imported; register it before importing {self._sealed_by} (or mcrank.engine, mcrank.study)"
            )
        if not isinstance(record.name, str) or not record.name or record.name in self:
            raise ValueError(f"the {self.what} name {record.name!r} is empty, not a string, or registered already")
        if record.code != len(self):
            raise ValueError(f"the {self.what} {record.name!r} must have code {len(self)} (its position), got {record.code!r}")
        if not self._builtin:
            extend_cache_key(_source_text(record))
        super().__setitem__(record.name, record)
        return record

    def builtins_registered(self) -> None:
        """Mark the end of the built-in records: those added later key the jit cache."""
        self._builtin = False

    def seal(self, by: str) -> None:
        """Refuse new records from now on: module ``by`` generated a switch from the registry."""
        if self._sealed_by is None:
            self._sealed_by = by

    def __setitem__(self, key, value):
        raise TypeError(f"add a {self.what} with its registry's add(), not by assignment")

    def help(self) -> str:
        """Every record's name and one-line help, for the command line."""
        return "; ".join(f"{record.name}: {record.help}" for record in self.values())


def _source_text(record) -> str:
    """The name, code and the sources of the numba functions of a record, for the cache key.

    A record whose source cannot be read (defined interactively) gets a key no other run
    shares: its name, code and the functions' ids."""
    import inspect

    parts = [record.name, str(record.code)]
    for value in vars(record).values() if hasattr(record, "__dict__") else ():
        function = getattr(value, "py_func", None)
        if function is None:
            continue
        try:
            parts.append(inspect.getsource(function))
        except (OSError, TypeError):
            parts.append(f"{function.__module__}.{function.__qualname__}@{id(function)}")
    return "\0".join(parts)


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


def generate_predicate(name: str, registry: Registry, attribute: str, module: str, doc: str):
    """The jitted inline ``name(code) -> bool``: whether record number ``code`` has ``attribute`` true."""
    codes = [record.code for record in registry.values() if getattr(record, attribute)]
    test = " or ".join(f"code == {code}" for code in codes) or "False"
    return generate(name, f"def {name}(code):\n    return {test}\n", {}, module, doc, inline="always")
