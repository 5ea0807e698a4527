r"""Whether a metric complies with decision theory, eq. (16), measured numerically.

A metric complies when, on every test set, it is an increasing affine map of the utility yield
of one fixed utility matrix ``U``:

.. math:: m(C) = a(f) \sum_{ij} U_{ij} C_{ij} + b(f), \qquad a(f) > 0,

where ``a`` and ``b`` may depend on the test set's true-class proportions ``f`` (the column
sums; ``f = (p, 1 - p)`` for two classes) but ``U`` may not. For two classes this is eq. (16),
``a X C00 + a Y C11 + b``: ``U`` is known up to adding a constant to a column (which ``b``
absorbs, since the columns' sums are fixed) and up to a positive factor.

:func:`mcrank.metrics.compliance` tests it on normalised matrices: for each of several ``f`` (two classes:
``p`` in {0.05, 0.1, ..., 0.95}, each with the grid of TPR and TNR in the same values; more:
random ``f`` and matrices from a fixed seed) it fits ``m`` by least squares on the cells, and
measures how far ``m`` is from linear there (the largest residual relative to the range of
``m`` at that ``f``); then it brings each fitted ``U`` to one form (each column's least entry
0, the largest entry 1) and measures how far they differ across ``f``. A compliant metric gives
about 1e-15 for both; balanced accuracy is linear in the cells for each ``p`` but its ``U``,
``diag(1/(2p), 1/(2(1 - p)))``, changes with ``p``, so it is not compliant, as the paper says
(§3.3), while TPR and TNR are. The fitted ``U`` must also be oriented (higher is better): in
each true class the correct output worth at least any wrong one, and more somewhere.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["COMPLIANT_DEVIATION", "Compliance", "judge", "n_class_matrices", "two_class_matrices", "two_class_points"]

#: Largest deviation of a compliant metric, from linear in the cells at one ``f`` (relative to
#: the metric's range there) and of its utility matrix across ``f``: rounding gives about 1e-15;
#: a metric that does not comply deviates by 1e-3 or more on the test's matrices.
COMPLIANT_DEVIATION = 1e-9

#: The values of p, TPR and TNR of the two-class test.
_GRID = np.linspace(0.05, 0.95, 19)

#: The n-class test: proportions ``f``, matrices per ``f``, and the seed they are drawn from.
_PROPORTIONS, _MATRICES, _SEED = 12, 200, 16


class Compliance(NamedTuple):
    """What :func:`mcrank.metrics.compliance` found.

    Attributes
    ----------
    compliant : bool
        Of the form (16): linear in the cells at each ``f`` and with one utility matrix for
        every ``f`` (``deviation`` at most :data:`COMPLIANT_DEVIATION`), oriented.
    deviation : float
        The larger of the two deviations measured (NaN if the metric is not finite, or
        constant, on some ``f``).
    utility : ndarray of shape (n, n)
        The fitted utility matrix, each column's least entry 0 and the largest entry 1, rows =
        output, columns = true class; NaN unless ``compliant``.
    reason : str
        Why it is not compliant ("" if it is).
    """

    compliant: bool
    deviation: float
    utility: np.ndarray
    reason: str

    def __str__(self) -> str:
        if self.compliant:
            rows = ", ".join("[" + ", ".join(f"{value:.4g}" for value in row) + "]" for row in self.utility)
            return f"compliant: yes, U = [{rows}]"
        return f"compliant: no, {self.reason}"


def two_class_points() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The arrays ``p, tpr, tnr`` of the two-class test, ``p`` the slowest-varying."""
    p, tpr, tnr = np.meshgrid(_GRID, _GRID, _GRID, indexing="ij")
    return p.ravel(), tpr.ravel(), tnr.ravel()


def two_class_matrices(p, tpr, tnr) -> np.ndarray:
    """The normalised matrices (m, 2, 2) of the points ``p, tpr, tnr`` (eq. 17)."""
    return np.stack([np.stack([p * tpr, (1 - p) * (1 - tnr)], -1), np.stack([p * (1 - tpr), (1 - p) * tnr], -1)], -2)


def n_class_matrices(classes: int) -> np.ndarray:
    """The normalised matrices (:data:`_PROPORTIONS` x :data:`_MATRICES`, n, n) of the n-class
    test, grouped by their true-class proportions ``f`` (each column ``f_j`` times a
    uniform point of the simplex), from a fixed seed."""
    from mcrank._rng import resolve_rng

    rng = resolve_rng(_SEED)
    proportions = rng.dirichlet(np.full(classes, 4.0), _PROPORTIONS)  # away from an absent class
    columns = rng.dirichlet(np.ones(classes), (_PROPORTIONS, _MATRICES, classes))  # [.., j, i]
    return np.swapaxes(columns, -1, -2) * proportions[:, None, None, :]


def judge(matrices: np.ndarray, values) -> Compliance:
    """The :class:`Compliance` of a metric whose values on ``matrices`` (g, m, n, n: g groups
    of m normalised matrices, each group of one ``f``) are ``values`` (g * m,)."""
    groups, size, n = matrices.shape[0], matrices.shape[1], matrices.shape[-1]
    values = np.asarray(values, dtype=float).reshape(groups, size)
    nan = np.full((n, n), np.nan)
    if not np.all(np.isfinite(values)):
        return Compliance(False, np.nan, nan, "not finite on every matrix of the test")
    linear, forms = 0.0, []
    for cells, m in zip(matrices.reshape(groups, size, n * n), values):
        spread = m.max() - m.min()
        if not spread > 0:
            return Compliance(False, np.nan, nan, "constant on a test set: it ranks nothing there")
        # The columns' sums are fixed: U is known up to a constant per column, which
        # least squares leaves at its smallest norm, and each column's least entry fixes.
        fit, *_ = np.linalg.lstsq(cells, m, rcond=None)
        linear = max(linear, float(np.max(np.abs(cells @ fit - m)) / spread))
        u = fit.reshape(n, n)
        u = u - u.min(axis=0)
        forms.append(u / u.max() if u.max() > 0 else u)
    if linear > COMPLIANT_DEVIATION:
        return Compliance(False, linear, nan, f"not linear in the cells: max deviation {linear:.2g} (relative to its range)")
    forms = np.array(forms)
    utility = np.median(forms, axis=0)
    varies = float(np.max(np.abs(forms - utility)))
    deviation = max(linear, varies)
    if varies > COMPLIANT_DEVIATION:
        return Compliance(
            False,
            deviation,
            nan,
            f"linear in the cells on each test set, but its utility matrix changes with the class proportions by up to {varies:.2g}",
        )
    # Oriented: in each true class (column), the correct output worth at least any wrong one,
    # and somewhere more.
    margins = (np.diag(utility)[None, :] - utility)[~np.eye(n, dtype=bool)]
    if np.any(margins < -COMPLIANT_DEVIATION) or not np.any(margins > COMPLIANT_DEVIATION):
        return Compliance(False, deviation, nan, "linear in the cells, but lower is better (its utility matrix is not oriented)")
    return Compliance(True, deviation, np.round(utility, 9) + 0.0, "")
