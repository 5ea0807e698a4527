r"""Utility yield and expected-utility decisions inside scikit-learn.

The paper's practical advice in two halves, each one line in scikit-learn:

- **evaluate** a classifier by its utility yield, eq. (9): :func:`utility_score`, and
  :func:`make_utility_scorer` for ``GridSearchCV``, ``cross_val_score`` and
  ``TunedThresholdClassifierCV(scoring=...)``;
- **decide** each case by maximal expected utility, eq. (20) of §8.2:
  :class:`UtilityClassifier`, a meta-estimator whose ``predict`` chooses the optimal decision
  from the wrapped estimator's ``predict_proba`` (:func:`mcrank.decisions.optimal_decisions`),
  optionally calibrated first (``calibration=``, scikit-learn's ``CalibratedClassifierCV``).
  The decisions are only as good as those probabilities: ``docs/decisions.md``, "Calibration".

Conventions (``docs/method.md``, "Conventions"; ``docs/decisions.md``): ``utility[d, c]`` is
the utility of decision (output) ``d`` when class ``c`` is true: rows = decisions, columns =
true classes, the transpose of the cost and gain matrices of scikit-learn's examples, whose rows
are true classes. ``labels`` fixes the order of the columns, ``decisions`` names the rows. As at
every door of the package (:mod:`mcrank.evaluate.targets`), the order is never guessed: without
``labels``, only labels that are the integers 0..n-1 or booleans have one (their natural order);
any others are refused. A utility may be rectangular: a decision need not be a class ("order
another test").

scikit-learn is imported only when it is needed: :func:`utility_score` works without it, and
:func:`make_utility_scorer` and :class:`UtilityClassifier` raise an ImportError saying
``pip install scikit-learn`` if it is missing.
"""

from __future__ import annotations

from mcrank._utility_score import (  # noqa: F401 - CALIBRATION_METHODS and MIN_SKLEARN_VERSION are documented here
    CALIBRATION_METHODS,
    MIN_SKLEARN_VERSION,
    _import_sklearn,
    _is_affine,
    _resolve_labels,
    utility_score,
)
from mcrank.decisions import _check_utility

__all__ = ["UtilityClassifier", "make_utility_scorer", "utility_score"]  # noqa: F822 - UtilityClassifier comes from __getattr__, on use


def make_utility_scorer(utility, *, labels=None, decisions=None):
    """A scorer of utility yield, eq. (9), for scikit-learn's model selection.

    Use it as ``scoring=`` of ``GridSearchCV``, ``cross_val_score`` or
    ``TunedThresholdClassifierCV``: greater is better, and it scores the estimator's
    ``predict``.

    Parameters
    ----------
    utility : array_like of shape (n_decisions, n_classes), or AffineUtility
        ``utility[i, j]`` = utility of decision ``i`` when class ``j`` is true. A per-item
        :class:`~mcrank.evaluate.per_item.AffineUtility` reads item columns, which reach the
        scorer by metadata routing: ``make_utility_scorer(u).set_score_request(amount=True)``
        (and ``predict`` of a per-item :class:`UtilityClassifier` gets them too).
    labels : array_like of shape (n_classes,), default=None
        The classes in the order of the utility's columns. If None, as for
        :func:`utility_score`: labels 0..n-1 or booleans in their natural order, others refused
        (an AffineUtility's own class names).
    decisions : array_like of shape (n_decisions,), default=None
        The decisions in the order of the utility's rows, for estimators (such as
        :class:`UtilityClassifier`) whose ``predict`` returns decisions that are not classes.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, sample_weight=None)``, from
        :func:`sklearn.metrics.make_scorer`.

    Raises
    ------
    ValueError
        If the utility is not a finite matrix, or does not fit ``labels`` and ``decisions``.
    ImportError
        If scikit-learn is not installed.
    """
    _import_sklearn()
    from sklearn.metrics import make_scorer

    if _is_affine(utility):
        _resolve_labels(utility.constant, utility.classes if labels is None else labels,
                        utility.decisions if decisions is None else decisions)  # fmt: skip
        scorer = make_scorer(utility_score, greater_is_better=True, utility=utility, labels=labels, decisions=decisions)
        # The same scorer, whose predictions get the routed columns when the estimator decides per item.
        from mcrank._sklearn import PerItemScorer

        scorer.__class__ = PerItemScorer
        return scorer
    u = _check_utility(utility)
    # Checked now, so that a wrong width fails at once rather than inside every fold.
    _resolve_labels(u, labels, decisions)
    return make_scorer(utility_score, greater_is_better=True, utility=u, labels=labels, decisions=decisions)


def __getattr__(name):
    # UtilityClassifier subclasses scikit-learn's base classes, so it lives in a module that
    # imports scikit-learn (mcrank._sklearn), imported on first use: `import mcrank.sklearn`
    # needs only NumPy.
    if name == "UtilityClassifier":
        _import_sklearn()
        from mcrank._sklearn import UtilityClassifier

        globals()[name] = UtilityClassifier
        return UtilityClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), "UtilityClassifier"})
