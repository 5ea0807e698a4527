"""The one protocol of every result of :mod:`mcrank.evaluate`, and the registry of its renderings.

Every result type (:class:`~mcrank.evaluate.Evaluation`,
:class:`~mcrank.evaluate.ScoringEvaluation`, :class:`~mcrank.evaluate.DecisionCurves`,
:class:`~mcrank.evaluate.FoldComparison`, :class:`~mcrank.evaluate.per_item.PerItemEvaluation`)
answers the same calls, each routed to a rendering its report module registers:

- ``str(result)``: the text report, whose first line is the decision ("choose A: ...", with how
  sure) -- rendering ``"text"``;
- ``repr(result)``: one line, the type, the number of models and the decision -- ``"repr"``;
- ``result.to_dict()``: a JSON-ready dict (``json.dumps(..., allow_nan=False)`` takes it: an
  undefined number is None) -- ``"dict"``;
- ``result.to_records()``: one dict per model, best first, without pandas -- ``"records"``;
- ``result.to_frame()``: those records as a pandas DataFrame, one row per model (pandas, of the
  ``sklearn`` extra, imported only then);
- ``result._repr_html_()``: an HTML table, names escaped and long ones cut, which Jupyter shows
  -- ``"html_table"``.

Only this module routes; the renderings are in the report modules, one per result type
(:mod:`mcrank.evaluate.report`, ``scoring.report``, ``curves.report``, ``folds.report``,
``per_item.report``, ``probabilities_report``), and the ones every type shares unless its report registers its own (the
one-line ``repr``, the HTML table from the records, the HTML page of ``--format html``) in
:mod:`mcrank.evaluate.html_report`. A report module registers its type's renderings with
:func:`renders` when imported; :mod:`mcrank.evaluate` imports it on the first rendering of one
of its types (:func:`load_renderings_with`), so that no result module imports a report and the
import graph has no cycle.

**A new result type joins in one place each**: it subclasses :class:`ResultProtocol` and is
declared ``@dataclass(frozen=True, repr=False)`` (a dataclass would otherwise write its own
``__repr__``, a dump of every field); its report module calls
``renders(TheType, text=..., dict=..., records=...)`` at its end, ``text`` opening with the
decision; and ``_REPORT_OF`` of :mod:`mcrank.evaluate` names that report module for the result
module. ``tests/test_result_protocol.py`` then runs it through the protocol's checks when a
result of it is added to its list.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["ResultProtocol", "load_renderings_with", "rendering", "renders"]

#: Each result type's renderings by name (``"text"``, ``"dict"``, ``"records"``, ...), as its
#: report module registers them (:func:`renders`).
_RENDERINGS: dict[type, dict[str, Callable]] = {}


def renders(result_type: type, **renderings: Callable) -> None:
    """Register the renderings of ``result_type``, each a function of a result, by name: what
    its methods (``str()``, ``to_dict()``, ...) call. Called once by the type's report module."""
    _RENDERINGS.setdefault(result_type, {}).update(renderings)


#: Imports the report module of a module's result types, by the module's name: installed by
#: :mod:`mcrank.evaluate` (:func:`load_renderings_with`).
_load_renderings: Callable[[str], None] | None = None


def load_renderings_with(load: Callable[[str], None]) -> None:
    """Install ``load(module)``, which imports the report module that registers the renderings
    of ``module``'s result types: called on the first rendering of one of them."""
    global _load_renderings
    _load_renderings = load


def rendering(result, name: str) -> Callable:
    """The rendering ``name`` registered for the type of ``result`` (or a base of it, the
    shared ones on :class:`ResultProtocol`), its report module imported first if it is not yet."""
    for kind in type(result).__mro__:
        if kind not in _RENDERINGS and _load_renderings is not None:
            _load_renderings(kind.__module__)
        if name in _RENDERINGS.get(kind, {}):
            return _RENDERINGS[kind][name]
    raise TypeError(f"no rendering {name!r} of {type(result).__name__}: none is registered")


class ResultProtocol:
    """What every result answers: the text report, a one-line repr, a JSON-ready dict, records,
    a DataFrame and an HTML table, each from its report module (module docstring)."""

    __slots__ = ()

    def __str__(self) -> str:
        """The text report, 80 characters wide, opening with the decision."""
        return rendering(self, "text")(self)

    def __repr__(self) -> str:
        """One line: the type, how many models, and the decision."""
        return rendering(self, "repr")(self)

    def to_dict(self) -> dict:
        """A JSON-ready dict; undefined numbers are None."""
        return rendering(self, "dict")(self)

    def to_records(self) -> list[dict]:
        """The table without pandas: one dict per model, best first."""
        return rendering(self, "records")(self)

    def to_frame(self):
        """:meth:`to_records` as a pandas DataFrame: one row per model, best first.

        Raises
        ------
        ImportError
            If pandas is not installed (it comes with the ``sklearn`` extra; :meth:`to_records`
            needs no pandas).
        """
        try:
            import pandas
        except ImportError:
            raise ImportError(f"{type(self).__name__}.to_frame needs pandas (pip install 'mcrank[sklearn]', or pip install "
                              "pandas); to_records() gives the same table as a list of dicts, one per model") from None  # fmt: skip
        return pandas.DataFrame.from_records(self.to_records())

    def _repr_html_(self) -> str:
        """An HTML table (Jupyter's rich display): the decision, then one row per model."""
        return rendering(self, "html_table")(self)
