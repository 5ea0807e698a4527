"""The registry of metrics, and the numba dispatch generated from it.

Each metric is one :class:`Metric`: its two-class form on the four cells (the kernels' and
scikit-learn's exact arithmetic), its order form, and its form for any number of classes,
whichever it has, in :data:`REGISTRY` (an :class:`mcrank._axes.Registry`, as every axis).
:func:`register` adds one; :func:`dispatch` then writes the kernels' switch on the metric code
from the registry (:func:`mcrank._axes.generate`) when a kernel first needs it, which seals the
registry: no branch is copied by hand, adding a metric touches only its definition, and a user's
metric file (:mod:`mcrank.metrics.user`) can add to it until then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry, branches, generate_when_used, pieces
from mcrank.ranking import _beyond_rounding

__all__ = ["REGISTRY", "UTILITY_ROW", "Metric", "dispatch", "dispatch_difference", "dispatch_matrix", "register"]

#: The name of a study's rows of the perturbed utility matrix (one per error sd), beside the
#: rows of its metrics or scores, which are named by their ids: no metric may take it.
UTILITY_ROW = "utility"


@dataclass(frozen=True)
class Metric:
    """One metric of the library.

    Attributes
    ----------
    id : str
        Stable identifier, used on the command line and in results files.
    name : str
        Display name.
    code : int
        Position in :data:`mcrank.metrics.METRICS`: how the numba kernels name it.
    compliant : bool
        Whether the metric is of the decision-theoretic form of eq. (16).
    binary : numba function or None
        ``binary(c00, c01, c10, c11, beta)``: the score of one two-class confusion matrix in
        the paper's layout (TP, FP, FN, TN); ``beta`` is used by F-beta only.
    order : numba function or None
        ``order(c00, c01, c10, c11, beta) -> (N, D)`` with ``D > 0`` and the metric an
        increasing function of ``N / D``: the sign of ``m(C2) - m(C1)`` is that of
        ``N2 D1 - N1 D2``, without a division or a root.
    general : numba function or None
        ``general(c, margins)`` on one float matrix of shape (n, n), any n >= 2, and its
        :class:`~mcrank.metrics.definitions.Margins`; None for a metric defined for two
        classes only. :func:`mcrank.metrics.score` applies it to stacks.
    equivalent_um : ndarray of shape (2, 2) or None
        For a compliant metric, the utility matrix whose yield ranks exactly as it does.
    aliases : tuple of str
        Other names under which it is known.
    origin : str or None
        For a user's metric (:mod:`mcrank.metrics.user`), the file it was defined in; None
        for the library's own.
    source : str or None
        For a user's metric, the text of that file, on which the jit cache is keyed.
    exact : bool
        Whether equal values come out bit-equal: true of the library's own, whose forms take
        at most one correctly rounded division of sums of cells for the values that tie on a
        finite test set. A user's function of the rates is not (``p * tpr`` rounds where
        ``C00 / N`` does not), so its two values count as tied when they differ by rounding
        only (:func:`mcrank.ranking._beyond_rounding`).
    """

    id: str
    name: str
    code: int
    compliant: bool
    binary: Callable | None = field(default=None, repr=False, compare=False)
    order: Callable | None = field(default=None, repr=False, compare=False)
    general: Callable | None = field(default=None, repr=False, compare=False)
    equivalent_um: np.ndarray | None = field(default=None, repr=False, compare=False)
    aliases: tuple[str, ...] = ()
    origin: str | None = None
    source: str | None = field(default=None, repr=False, compare=False)
    exact: bool = True

    @property
    def binary_only(self) -> bool:
        """Whether the metric is defined for two classes only."""
        return self.general is None

    def defined_for(self, classes: int) -> bool:
        """Whether the metric is defined for ``classes`` classes."""
        return (classes == 2 and self.binary is not None) or self.general is not None

    def __call__(self, confusion, *, beta: float = 1.0, zero_division: float = np.nan):
        """Score confusion matrices; see :func:`mcrank.metrics.score`."""
        return SCORING["score"](self, confusion, beta=beta, zero_division=zero_division)

    def from_pab(self, p, tpr, tnr, *, beta: float = 1.0, zero_division: float = np.nan):
        """Score the normalised two-class matrices with class-0 fraction ``p``, TPR and TNR.

        Parameters
        ----------
        p, tpr, tnr : array_like
            Broadcast together.
        beta : float, default 1.0
            Only for ``fbeta``.
        zero_division : {0, 1, NaN}, default NaN
            Value returned where the metric is 0/0.
        """
        return SCORING["from_pab"](self, p, tpr, tnr, beta, zero_division)


#: The scoring functions a record's methods call: :mod:`mcrank.metrics` installs them when it
#: is imported (every record is reached through it), so that this module does not import its
#: package back.
SCORING: dict[str, Callable] = {}

#: Every metric by id, in the order registered (its code); :data:`mcrank.metrics.METRICS`.
REGISTRY: Registry = Registry("metric", key="id")


def register(
    id: str,
    name: str,
    *,
    binary=None,
    order=None,
    general=None,
    compliant: bool = False,
    equivalent_um=None,
    aliases=(),
    origin: str | None = None,
    source: str | None = None,
    exact: bool = True,
) -> Metric:
    """Add a metric to the library; its code is its position.

    Its definition goes in :mod:`mcrank.metrics.definitions` (a user's, in a metric file:
    :mod:`mcrank.metrics.user`): the kernels' switches are generated when first used, which
    seals the registry, and a RuntimeError says so afterwards.
    """
    metric = Metric(
        id,
        name,
        len(REGISTRY),
        compliant,
        binary,
        order,
        general,
        None if equivalent_um is None else np.array(equivalent_um, dtype=float),
        tuple(aliases),
        origin,
        source,
        exact,
    )
    return REGISTRY.add(metric)


#: Where a metric goes, in the refusal of one registered once the kernels' switches exist.
_ADVICE = (
    "define it in mcrank/metrics/definitions.py, beside the others, or load a metric file "
    "(mcrank.metrics.load_metric_file) before any metric is scored"
)


# The switch on the metric code. One branch per metric, its loop written out, so that each
# loop is one metric's arithmetic, which the compiler vectorises (several times faster than
# dispatching per matrix); the code is tested once per call, outside the loops.
_SCORE_BRANCH = """\
for i in range(n):
            out[i] = {f}(c00[i], c01[i], c10[i], c11[i], beta)
            if difference:
                out[i] -= {f}(r00[i], r01[i], r10[i], r11[i], beta)"""
_ORDER_BRANCH = """\
for i in range(n):
            n1, d1 = {f}(r00[i], r01[i], r10[i], r11[i], beta)
            n2, d2 = {f}(c00[i], c01[i], c10[i], c11[i], beta)
            out[i] = n2 * d1 - n1 * d2"""
# The same for a metric that is not exact: a difference within rounding is a tie.
_ROUNDED_SCORE_BRANCH = """\
for i in range(n):
            out[i] = {f}(c00[i], c01[i], c10[i], c11[i], beta)
            if difference:
                out[i] = _beyond_rounding(out[i], {f}(r00[i], r01[i], r10[i], r11[i], beta))"""
_ROUNDED_ORDER_BRANCH = """\
for i in range(n):
            n1, d1 = {f}(r00[i], r01[i], r10[i], r11[i], beta)
            n2, d2 = {f}(c00[i], c01[i], c10[i], c11[i], beta)
            out[i] = _beyond_rounding(n2 * d1, n1 * d2)"""
_HEAD = """\
def {name}(code, cells, beta, out):
    n = out.size
    difference = len(cells) == 8
    c00, c01, c10, c11 = cells[-4], cells[-3], cells[-2], cells[-1]
    r00, r01, r10, r11 = cells[0], cells[1], cells[2], cells[3]
"""
# One matrix of any size: the n-class form where there is one, else the two-class form on the
# four cells (the caller makes sure that n = 2).
_MATRIX_BRANCH = {"general": "return {f}(c, margins)", "binary": "return {f}(c[0, 0], c[0, 1], c[1, 0], c[1, 1], beta)"}


def _matrix_form(metric: Metric) -> str:
    return "general" if metric.general is not None else "binary"


def dispatch_matrix(name: str, module: str, doc: str):
    """The jitted switch ``name(code, c, margins, beta) -> float``: metric number ``code`` of
    one n x n matrix ``c`` with its margins (:func:`mcrank.metrics.definitions._margins`), by
    its n-class form, or for a two-class metric by its two-class form (then n must be 2);
    generated from the registry as :func:`dispatch`, in ``module``."""

    def make():
        metrics = [m for m in REGISTRY.values() if m.general is not None or m.binary is not None]
        source = f"def {name}(code, c, margins, beta):\n" + branches(
            metrics, lambda m: _MATRIX_BRANCH[_matrix_form(m)].format(f=f"f{m.code}")
        )
        namespace = {"np": np, **{f"f{m.code}": getattr(m, _matrix_form(m)) for m in metrics}}
        return source + "    return np.nan\n", namespace

    return generate_when_used(name, make, REGISTRY, module, doc, _ADVICE, inline="always")


def dispatch(name: str, form: str, module: str, doc: str):
    """The jitted switch ``name(code, cells, beta, out)`` over every metric's ``form``
    (``"binary"`` or ``"order"``), generated from the registry (:func:`mcrank._axes.generate`)
    in ``module``, when first used (:func:`mcrank._axes.generate_when_used`)."""

    def make():
        metrics = [m for m in REGISTRY.values() if getattr(m, form) is not None]
        exact, rounded = (_SCORE_BRANCH, _ROUNDED_SCORE_BRANCH) if form == "binary" else (_ORDER_BRANCH, _ROUNDED_ORDER_BRANCH)

        def body(metric):
            return (exact if metric.exact else rounded).format(f=f"f{metric.code}")

        source = _HEAD.format(name=name) + branches(metrics, body, default="out[:] = np.nan")
        return source, {"np": np, "_beyond_rounding": _beyond_rounding, **pieces(metrics, form)}

    return generate_when_used(name, make, REGISTRY, module, doc, _ADVICE)


def dispatch_difference(name: str, module: str, doc: str):
    """The jitted switch ``name(code, a, b) -> float``: ``a - b`` for two values of metric
    number ``code``, or 0 where they differ by rounding only for a metric that is not exact
    (:attr:`Metric.exact`); generated from the registry as :func:`dispatch`, in ``module``."""

    def make():
        rounded = [m for m in REGISTRY.values() if not m.exact]
        source = f"def {name}(code, a, b):\n" + branches(rounded, "return _beyond_rounding(a, b)")
        return source + "    return a - b\n", {"_beyond_rounding": _beyond_rounding}

    return generate_when_used(name, make, REGISTRY, module, doc, _ADVICE, inline="always")
