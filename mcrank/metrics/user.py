"""A researcher's own metric: a metric file, its rows beside the built-in ones
(``docs/method.md``, "Test your own metric").

A metric file is Python. In it, :func:`metric` decorates a function of the class-0 fraction
``p``, TPR and TNR (higher is better), or with ``general=True`` a function of the normalised
n x n confusion matrix (rows = output, columns = true class), any n::

    import mcrank.metrics

    @mcrank.metrics.metric("my_accuracy", "My accuracy")
    def my_accuracy(p, tpr, tnr):
        return p * tpr + (1 - p) * tnr

:func:`load_metric_file` reads the file (at most :data:`MAX_METRIC_FILE_BYTES`), runs it,
compiles each function with numba and registers it in :data:`mcrank.metrics.METRICS` after the
built-in metrics, before the kernels' switches over the metrics are generated (they are
generated when a metric is first scored, which seals the registry). The two-class kernels call
a ``(p, tpr, tnr)`` function on the cells ``C00 .. C11`` of each matrix as
``p = (C00 + C10) / N``, ``tpr = C00 / (C00 + C10)``, ``tnr = C11 / (C01 + C11)``, with
``N`` the sum of the cells (1 for a normalised matrix, the test set's size for counts), and
the rate of a class absent from a test set at 0 and at 1, the value theirs if they agree, else
NaN; the n-class kernel calls a ``general`` function on ``C / N``. Two values of a user's metric
that differ by rounding only tie (:func:`mcrank.ranking._beyond_rounding`). Each record keeps the file's text,
on which the jit cache is keyed (:func:`mcrank._jit.extend_cache_key`): two different files
never share a compiled kernel, and an edited file compiles anew.
"""

from __future__ import annotations

import hashlib
import re
import sys
import types
from pathlib import Path
from typing import NamedTuple

import numpy as np

from mcrank._axes import generate
from mcrank._io import read_bounded
from mcrank._jit import jit
from mcrank._validation import MAX_EXPERIMENT_BYTES
from mcrank.metrics import _compliance
from mcrank.metrics._registry import REGISTRY, UTILITY_ROW, register
from mcrank.ranking import _beyond_rounding

__all__ = ["MAX_METRIC_FILE_BYTES", "MetricFile", "load_metric_file", "loaded_metric_files", "metric", "user_metric_error"]

#: Largest metric file read: a few functions of Python.
MAX_METRIC_FILE_BYTES = MAX_EXPERIMENT_BYTES

_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


class MetricFile(NamedTuple):
    """A metric file as loaded: where it is, its text and its SHA-256, its metrics' ids, and
    whether each complies with eq. (16) (:func:`mcrank.metrics.compliance`); the name its code
    was compiled under (its resolved path) and each metric's function by name, by which an
    exception raised inside a study is traced to its metric (:func:`user_metric_error`)."""

    path: str
    text: str
    sha256: str
    ids: tuple[str, ...]
    compliance: dict
    filename: str = ""
    functions: tuple[tuple[str, str], ...] = ()  # (function name, metric id)

    def provenance(self) -> dict:
        """What a results file records of it: path, SHA-256, and each metric's compliance."""
        return {"path": self.path, "sha256": self.sha256, "metrics": {id: str(found) for id, found in self.compliance.items()}}


class _Definition(NamedTuple):
    id: str
    name: str
    function: object
    general: bool


#: The metric files loaded in this process, by digest, in the order loaded (their metrics'
#: codes follow that order).
_LOADED: dict[str, MetricFile] = {}

#: The definitions of the file being loaded (None when none is).
_PENDING: list[_Definition] | None = None


def metric(id: str, name: str, *, general: bool = False):
    """Decorate a user's metric in a metric file (:func:`load_metric_file`).

    Parameters
    ----------
    id : str
        Its identifier in ``--metrics`` and the results: a letter, then letters, digits and
        underscores; not a built-in metric's, nor another of a study's row names (a score
        of the roc or probabilities study, or ``utility``).
    name : str
        Its display name.
    general : bool, default False
        False: the function is ``f(p, tpr, tnr)`` of two-class matrices. True: it is ``f(c)``
        of one normalised n x n confusion matrix ``c`` (rows = output, columns = true class,
        its cells adding up to 1), for any number of classes. Either returns a number (a bool
        counts as 1 for True, 0 for False).

    Returns
    -------
    callable
        The decorator. It returns the function itself, which :func:`mcrank.metrics.compliance`
        takes too; the metric is registered only while its file is loaded
        (:func:`load_metric_file`, ``mcrank run --metric-file``), and elsewhere (the file run as a
        script, a notebook) the decorator registers nothing.
    """

    def decorate(function):
        definition = _Definition(id, name, function, bool(general))
        if _PENDING is not None:
            _PENDING.append(definition)
        try:
            function.mcrank_metric = definition
        except (AttributeError, TypeError):  # a builtin or a numba dispatcher: nothing to mark
            pass
        return function

    return decorate


def loaded_metric_files() -> tuple[MetricFile, ...]:
    """The metric files loaded in this process, in the order loaded."""
    return tuple(_LOADED.values())


def load_metric_file(path, *, text: str | None = None) -> MetricFile:
    """Read, run and register the metrics of the metric file ``path``.

    Loading a file again (the same text) does nothing. A worker process of the engine loads
    the parent's files from their ``text``.

    Parameters
    ----------
    path : str or path-like
    text : str, optional
        The file's text, if already read (then the file is not read again).

    Returns
    -------
    MetricFile

    Raises
    ------
    ValueError
        One line naming the file: too large or not UTF-8, a syntax error or another error
        when it runs, no metric in it, an id that is malformed, a built-in metric's,
        another file's or another name of a study's rows (a score's, ``utility``), a
        function numba cannot compile or that raises when its compliance is measured, or the
        metrics already scored in this process (the kernels' switches then exist: load metric
        files first). What a metric raises later, in a study, is made one line by
        :func:`user_metric_error`.
    OSError
        If the file cannot be read.
    """
    global _PENDING
    path = Path(path)
    if text is None:
        text = read_bounded(path, limit=MAX_METRIC_FILE_BYTES, what="a metric file (a few functions of Python)")
    digest = hashlib.sha256(text.encode()).hexdigest()
    if digest in _LOADED:
        return _LOADED[digest]
    try:
        code = compile(text, str(path.resolve()), "exec")
    except (SyntaxError, ValueError) as error:  # ValueError: a NUL byte
        line = f"line {error.lineno}: " if getattr(error, "lineno", None) else ""
        raise ValueError(f"{path}: {line}syntax error: {getattr(error, 'msg', error)}") from None
    module = types.ModuleType(f"mcrank_metric_file_{digest[:16]}")
    module.__file__ = str(path.resolve())
    _PENDING = []
    try:
        sys.modules[module.__name__] = module  # as an imported module is, while it runs
        exec(code, module.__dict__)
    except (Exception, SystemExit) as error:  # whatever the user's code raises, sys.exit() too, as one line
        sys.modules.pop(module.__name__, None)
        raise ValueError(f"{path}: running it raised {_described(error)}") from None
    finally:
        definitions, _PENDING = _PENDING, None
    if not definitions:
        raise ValueError(f"{path}: no metric in it: decorate a function with @mcrank.metrics.metric(id, name)")
    _check_ids(path, definitions)
    kernels = [_compiled(path, definition) for definition in definitions]
    # Every metric measured before any is registered: one that raises registers none.
    found = {definition.id: _measured(path, definition, kernel) for definition, kernel in zip(definitions, kernels)}
    if REGISTRY.sealed:
        raise ValueError(f"{path}: cannot add its metrics: metrics were scored already in this process; load metric files first")
    for definition, kernel in zip(definitions, kernels):
        _register(definition, kernel, found[definition.id], str(path), text)
    functions = tuple((getattr(d.function, "__name__", ""), d.id) for d in definitions)
    _LOADED[digest] = MetricFile(str(path), text, digest, tuple(found), found, module.__file__, functions)
    return _LOADED[digest]


def user_metric_error(error: BaseException) -> ValueError | None:
    """The exception ``error``, raised while a study scored metrics, as one line naming the
    metric file and the metric it came from; None if it came from none.

    A function of a metric file raises inside the compiled kernels: numba gives its exception
    a last frame at the line that raised, with the function's name and the name of the file
    it was compiled from. A kernel loaded from the jit cache (keyed on the file's text) keeps
    the path the file had when first compiled, so a file moved or copied since is known by a
    function of that name defined in it. An error of numba's when it compiles the kernels
    names the form of the metric it could not type (``_user_binary_<code>``).
    """
    found = _raised_in(error)
    if found is not None:
        metric_file, function, line = found
        ids = [id for name, id in metric_file.functions if name == function] or list(metric_file.ids)
        which = f"metric {ids[0]!r}" if len(ids) == 1 else f"one of its metrics ({', '.join(map(repr, ids))})"
        return ValueError(f"{metric_file.path}: {which} raised {_described(error)} (in {function}, line {line}, while a study scored it)")
    records = {record.code: record for record in REGISTRY.values() if record.origin is not None}
    for code in re.findall(r"\b_user_(?:binary|order|general)_([0-9]+)\b", str(error)):
        record = records.get(int(code))
        if record is not None:
            return ValueError(
                f"{record.origin}: metric {record.id!r} cannot be compiled into the study's kernels: {_first_line(str(error))}"
            )
    return None


def _raised_in(error: BaseException):
    """``(MetricFile, function name, line)`` of the metric file's code that raised ``error``
    (its innermost frame), or None."""
    traceback = error.__traceback__
    if traceback is None:
        return None
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    code = traceback.tb_frame.f_code
    if Path(code.co_filename).resolve().is_relative_to(Path(__file__).resolve().parents[1]):
        return None  # mcrank's own code raised
    files = loaded_metric_files()
    named = [f for f in files if f.filename == code.co_filename]
    defining = [f for f in files if re.search(rf"^\s*def {re.escape(code.co_name)}\(", f.text, re.MULTILINE)]
    chosen = named or defining
    return (chosen[0], code.co_name, traceback.tb_lineno) if len(chosen) == 1 else None


def _taken_ids() -> dict[str, str]:
    """What each id that a user's metric may not take is: a metric's id or alias (another
    file's too), the id of a score of the kinds of study that compare scoring or probabilistic
    classifiers (:data:`mcrank.roc.ROC_SCORES`, :data:`mcrank.probabilities.PROBABILITY_SCORES`),
    or :data:`~mcrank.metrics.UTILITY_ROW`. A study's rows are named by these ids: a metric of
    one of them would give rows of two things one name, in a results file or across them."""
    from mcrank.probabilities import PROBABILITY_SCORES  # only when a metric file is loaded
    from mcrank.roc import ROC_SCORES

    taken = {UTILITY_ROW: "the name of the rows of the perturbed utility matrix"}
    for scores in (PROBABILITY_SCORES, ROC_SCORES):
        for record in scores.values():
            taken.update(dict.fromkeys((record.id, *getattr(record, "aliases", ())), f"a {scores.what}, the rows of another kind of study"))
    for record in REGISTRY.values():
        owner = f"a metric of {record.origin}" if record.origin else "a built-in metric (or its alias)"
        taken.update(dict.fromkeys((record.id, *record.aliases), owner))
    return taken


def _check_ids(path: Path, definitions) -> None:
    taken = _taken_ids()
    seen = set()
    for definition in definitions:
        id, name = definition.id, definition.name
        if not isinstance(id, str) or not _ID.match(id):
            raise ValueError(f"{path}: metric id {id!r} must be a letter then letters, digits or underscores")
        if not isinstance(name, str) or not name.strip() or "\n" in name:
            raise ValueError(f"{path}: metric {id!r}: its name must be one line of text, got {name!r}")
        if not callable(definition.function):
            raise ValueError(f"{path}: metric {id!r}: @mcrank.metrics.metric decorates a function")
        if id in taken:
            raise ValueError(f"{path}: metric id {id!r} is taken: it is {taken[id]}; choose another")
        if id in seen:
            raise ValueError(f"{path}: metric id {id!r} is defined twice")
        seen.add(id)


def _first_line(message: str) -> str:
    """The first informative line of an error message (numba's start with the pipeline's
    stage), without terminal colours."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in message.splitlines()]
    lines = [line for line in lines if line and not line.startswith("Failed in ")]
    return lines[0] if lines else "(no message)"


def _described(error: BaseException) -> str:
    """``"<type>: <first line of its message>"``; for ``sys.exit(3)``, ``"SystemExit: 3"``."""
    return f"{type(error).__name__}: {_first_line(str(error))}"


def _compiled(path: Path, definition: _Definition):
    """The user's function jitted and compiled for its arguments now, so that an error is
    one line naming the file and the metric rather than a traceback from inside a study."""
    from numba import types as nb

    kernel = jit(definition.function)
    signature = (nb.Array(nb.float64, 2, "C"),) if definition.general else (nb.float64,) * 3
    try:
        kernel.compile(signature)
    except Exception as error:  # numba's TypingError and kin, or what the function raises
        raise ValueError(f"{path}: metric {definition.id!r} cannot be compiled by numba: {_first_line(str(error))}") from None
    result = kernel.nopython_signatures[-1].return_type
    if not isinstance(result, (nb.Float, nb.Integer, nb.Boolean)):
        raise ValueError(f"{path}: metric {definition.id!r} must return a number, but returns {result}")
    return kernel


def _returns_bool(kernel) -> bool:
    from numba import types as nb

    return isinstance(kernel.nopython_signatures[-1].return_type, nb.Boolean)


def _measured(path: Path, definition: _Definition, kernel):
    """The compliance (eq. 16) of a compiled user metric, from its values on the test's
    matrices; a ValueError naming the file and the metric if it raises on one of them."""
    if definition.general:
        matrices = _compliance.n_class_matrices(3)
        points = [(matrix / matrix.sum(),) for matrix in matrices.reshape(-1, 3, 3)]
    else:
        p, tpr, tnr = _compliance.two_class_points()
        matrices = _compliance.two_class_matrices(p, tpr, tnr).reshape(_compliance._GRID.size, -1, 2, 2)
        points = list(zip(p, tpr, tnr))
    values = []
    for point in points:
        try:
            values.append(kernel(*point))
        except (Exception, SystemExit) as error:
            at = "a 3 x 3 matrix" if definition.general else "p = {:g}, tpr = {:g}, tnr = {:g}".format(*point)
            raise ValueError(f"{path}: metric {definition.id!r} raised {_described(error)} (at {at}, testing its compliance)") from None
    return _compliance.judge(matrices, values)  # a bool's values as 1 and 0, as in the study


@jit(inline="always")
def _one_or_zero(value):
    """A user's metric that returns a bool, as a number: 1.0 for True (numba has no float(bool))."""
    return 1.0 if value else 0.0


@jit(inline="always")
def _either(low, high):
    """The metric's value where it does not depend on an undefined rate: its values at the rates
    0 and 1 (``low``, ``high``) if they agree up to rounding, else NaN."""
    return low if _beyond_rounding(high, low) == 0.0 else np.nan


# The forms the kernels call (mcrank.metrics._registry): the user's function on the cells, its
# value as a float (``number``: float, or _one_or_zero for a bool). A test set without an item of one class leaves that class's rate 0/0. A metric of the matrix
# cannot depend on it, so the function's value is taken if it is the same at the rates 0 and 1
# (a user's accuracy is then the built-in one), and is undefined (NaN, a tie) if it is not.
_BINARY = """\
def _user_binary_{code}(c00, c01, c10, c11, beta):
    positives = c00 + c10
    negatives = c01 + c11
    p = positives / (positives + negatives)
    if positives == 0.0:
        tnr = c11 / negatives
        return _either({number}(f(p, 0.0, tnr)), {number}(f(p, 1.0, tnr)))
    if negatives == 0.0:
        tpr = c00 / positives
        return _either({number}(f(p, tpr, 0.0)), {number}(f(p, tpr, 1.0)))
    return {number}(f(p, c00 / positives, c11 / negatives))
"""
_ORDER = """\
def _user_order_{code}(c00, c01, c10, c11, beta):
    return _user_binary_{code}(c00, c01, c10, c11, beta), 1.0
"""
_GENERAL = """\
def _user_general_{code}(c, margins):
    return {number}(f(c / margins.cells))
"""


def _register(definition: _Definition, kernel, found, origin: str, source: str) -> None:
    """Register one compiled user metric, with its forms and its compliance ``found`` (eq. 16)."""
    code = len(REGISTRY)
    here = {"f": kernel, "_either": _either}
    # A number's form is float(...): a bool's, _one_or_zero (numba has no float(bool)).
    number = "_one_or_zero" if _returns_bool(kernel) else "float"
    if number != "float":
        here[number] = _one_or_zero
    if definition.general:
        source_text = _GENERAL.format(code=code, number=number)
        forms = {"general": generate(f"_user_general_{code}", source_text, here, __name__, definition.name, inline="always")}
    else:
        binary = generate(f"_user_binary_{code}", _BINARY.format(code=code, number=number), here, __name__, definition.name)
        order = generate(
            f"_user_order_{code}", _ORDER.format(code=code), {f"_user_binary_{code}": binary}, __name__, definition.name, inline="always"
        )
        forms = {"binary": binary, "order": order}
    register(
        definition.id,
        definition.name,
        **forms,
        compliant=found.compliant,
        equivalent_um=found.utility if found.compliant else None,
        origin=origin,
        source=source,
        exact=False,
    )
