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

import functools
import re

import numpy as np

from mcrank.decisions import (
    _check_prior,
    _check_utility,
    _real_array,
    _scale_of,
    optimal_decisions,
)

__all__ = ["UtilityClassifier", "make_utility_scorer", "utility_score"]  # noqa: F822 - UtilityClassifier comes from __getattr__, on use


#: The first scikit-learn with ``__sklearn_tags__`` and ``expected_failed_checks``.
MIN_SKLEARN_VERSION = (1, 6)

#: ``UtilityClassifier(calibration=...)``: the methods of ``CalibratedClassifierCV``, each with
#: the first scikit-learn that has it.
CALIBRATION_METHODS = {"sigmoid": (1, 6), "isotonic": (1, 6), "temperature": (1, 8)}


def _sklearn_version() -> tuple[int, ...]:
    import sklearn

    return tuple(int(part) for part in re.findall(r"\d+", sklearn.__version__)[:2])


def _import_sklearn():
    try:
        import sklearn  # lazily: the rest of mcrank runs without scikit-learn
    except ImportError as error:
        raise ImportError("mcrank.sklearn needs scikit-learn: pip install scikit-learn") from error
    found = _sklearn_version()
    if found < MIN_SKLEARN_VERSION:
        raise ImportError(
            f"mcrank.sklearn needs scikit-learn >= {'.'.join(map(str, MIN_SKLEARN_VERSION))}, "
            f"found {sklearn.__version__}: pip install -U scikit-learn"
        )


def _as_labels(values, what: str) -> np.ndarray:
    """A 1-D array of labels; a list of mixed types (such as ``[0, 1, "test"]``) stays Python objects."""
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{what} must be a sequence of labels, got the string {values!r}")
    if isinstance(values, np.ndarray) or hasattr(values, "__array__"):  # arrays, pandas
        array = np.asarray(values)
    else:
        items = list(values)
        kinds = {type(item.item() if isinstance(item, np.generic) else item) for item in items}
        # np.asarray([0, 1, "test"]) would turn 0 into "0", which would then match no class 0.
        array = np.asarray(items, dtype=object if len(kinds) > 1 else None)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {array.shape}")
    return array


def _check_unique(labels: np.ndarray, what: str) -> None:
    seen = set()
    for label in labels.tolist():
        if label in seen:
            raise ValueError(f"{what} must not repeat a label: {label!r} appears more than once")
        seen.add(label)


def _indices(values: np.ndarray, labels: np.ndarray, what: str, among: str) -> np.ndarray:
    """The position in ``labels`` of every value, or a ValueError naming the first unknown label."""
    lookup = {label: i for i, label in enumerate(labels.tolist())}
    try:
        return np.fromiter((lookup[v] for v in values.tolist()), dtype=np.intp, count=values.shape[0])
    except (KeyError, TypeError):
        unknown = [v for v in values.tolist() if not _known(v, lookup)]
        raise ValueError(f"{what} holds {unknown[0]!r}, which {among} does not name ({labels.tolist()})") from None


def _known(value, lookup) -> bool:
    try:
        return value in lookup
    except TypeError:  # an unhashable label
        return False


def _natural_order(values, n_classes: int, what: str) -> np.ndarray:
    """The classes of labels that are the integers 0..n-1 or booleans, in their natural order
    (:func:`mcrank.evaluate.targets.natural_classes`); any other labels are refused, since the
    order of the utility's columns would be a guess."""
    from mcrank.evaluate.targets import LAYOUT, natural_classes

    distinct = list(dict.fromkeys(values))
    try:
        shown = sorted(distinct)
    except TypeError:  # labels of mixed types
        shown = distinct
    if len(distinct) > n_classes:  # no order can fit them
        raise ValueError(f"utility has {n_classes} columns (one per true class) but there are {len(distinct)} classes {shown}; "
                         "pass labels= to name the classes in the utility's column order")  # fmt: skip
    if (classes := natural_classes(distinct, n_classes)) is None:
        raise ValueError(
            f"labels: {what} has the labels {shown[:5]} ({len(distinct)} in all), not the integers 0..{n_classes - 1}, so the "
            f"order of the utility's columns ({LAYOUT}) is not known: pass labels=, the classes in that order"
        )
    return np.asarray(classes)


def _resolve_labels(utility: np.ndarray, labels, decisions, *, observed=()) -> tuple[np.ndarray, np.ndarray]:
    """Class labels (columns) and decision labels (rows) of a checked utility."""
    n_decisions, n_classes = utility.shape
    if labels is None:
        classes = _natural_order([v for values in observed for v in values.tolist()], n_classes, "y") if observed else None
    else:
        classes = _as_labels(labels, "labels")
        _check_unique(classes, "labels")
    if classes is not None and classes.shape[0] != n_classes:
        hint = "" if labels is not None else "; pass labels= to name the classes in the utility's column order"
        raise ValueError(
            f"utility has {n_classes} columns (one per true class) but there are {classes.shape[0]} classes {classes.tolist()}{hint}"
        )
    if decisions is None:
        if n_decisions != n_classes:
            raise ValueError(f"utility is {n_decisions}x{n_classes}: a rectangular utility needs decisions= naming its {n_decisions} rows")
        return classes, classes
    outputs = _as_labels(decisions, "decisions")
    _check_unique(outputs, "decisions")
    if outputs.shape[0] != n_decisions:
        raise ValueError(f"decisions names {outputs.shape[0]} decisions but utility has {n_decisions} rows (one per decision)")
    return classes, outputs


def _is_affine(utility) -> bool:
    from mcrank.evaluate.per_item import AffineUtility

    return isinstance(utility, AffineUtility)


def _utility_of_items(utility, n_items: int, labels, decisions, columns: dict):
    """The checked utility of ``n_items`` items (a matrix, or a per-item array), and the labels
    and decisions it names: an AffineUtility's own names unless ``labels``/``decisions`` are given."""
    from mcrank.evaluate.per_item import check_per_item

    if _is_affine(utility):
        if unknown := sorted(set(columns) - set(utility.columns)):
            raise ValueError(f"columns: {unknown[0]!r} is not a column the utility reads ({', '.join(utility.columns) or 'none'})")
        if utility.columns:
            u = check_per_item(utility.array(columns), n_items, what=f"columns: {utility.columns[0]!r}")
        else:  # constants only: one matrix
            u = np.broadcast_to(utility.constant, (n_items, *utility.constant.shape))
        labels = utility.classes if labels is None else labels
        decisions = utility.decisions if decisions is None else decisions
        return u, labels, decisions
    if columns:
        raise ValueError(f"{next(iter(columns))}: item columns are read by a per-item utility (AffineUtility) only")
    u = _real_array(utility, "utility", "a matrix of shape (decisions, classes)")
    if u.ndim == 3:
        return check_per_item(u, n_items), labels, decisions
    return _check_utility(utility), labels, decisions


def utility_score(y_true, y_pred, *, utility, labels=None, decisions=None, sample_weight=None, **columns) -> float:
    r"""Utility yield: the mean utility per item of the decisions taken, eq. (9).

    .. math:: \frac{\sum_k w_k\, U_{d_k c_k}}{\sum_k w_k} = \sum_{ij} U_{ij} C_{ij}

    with :math:`c_k` the true class and :math:`d_k` the decision of item :math:`k`, and
    :math:`C` the normalised (weighted) confusion matrix, rows = decisions, columns = true
    classes. Higher is better, as for every scikit-learn ``*_score``.

    Parameters
    ----------
    y_true : array_like of shape (n_samples,)
        True class labels.
    y_pred : array_like of shape (n_samples,)
        The decisions taken: class labels, or labels from ``decisions`` when the utility has
        decisions of its own (such as the output of :meth:`UtilityClassifier.predict`).
    utility : array_like of shape (n_decisions, n_classes) or (n_samples, n_decisions, n_classes), or AffineUtility
        ``utility[i, j]`` = utility of decision ``i`` when class ``j`` is true (rows =
        decisions, columns = true classes; the transpose of scikit-learn's cost-matrix
        examples). Per item: an array ``utility[k, i, j]``, or an
        :class:`~mcrank.evaluate.per_item.AffineUtility` whose columns come as ``**columns``.
    labels : array_like of shape (n_classes,), default=None
        The classes in the order of the utility's columns. If None, the labels of ``y_true``
        (and of ``y_pred`` when ``decisions`` is None) must be the integers 0..n-1 or
        booleans, in their natural order; others (text) are refused. An AffineUtility's
        own class names are the default; ``labels`` names them as ``y_true`` holds them.
    decisions : array_like of shape (n_decisions,), default=None
        The decisions in the order of the utility's rows. If None, the utility must be square
        and its rows are the classes of ``labels`` (an AffineUtility's own decision names are
        the default).
    sample_weight : array_like of shape (n_samples,), default=None
        Non-negative weights of the items.
    **columns : array_like of shape (n_samples,)
        The item columns an AffineUtility reads (such as ``amount=``): routed by scikit-learn's
        metadata routing, ``make_utility_scorer(...).set_score_request(amount=True)``.

    Returns
    -------
    float
        The utility yield, in the units of ``utility``.

    Raises
    ------
    ValueError
        On lengths that differ, a label that ``labels`` or ``decisions`` does not name, a
        utility whose width is not the number of classes, or bad weights.

    Examples
    --------
    >>> utility_score([0, 0, 1, 1], [0, 1, 1, 1], utility=[[1, 0], [0.2, 1]])
    0.8
    """
    truth = _as_labels(y_true, "y_true")
    taken = _as_labels(y_pred, "y_pred")
    if truth.shape[0] != taken.shape[0]:
        raise ValueError(f"y_true has {truth.shape[0]} items but y_pred has {taken.shape[0]}")
    if truth.shape[0] == 0:
        raise ValueError("y_true is empty: the utility yield of no items is undefined")
    u, labels, decisions = _utility_of_items(utility, truth.shape[0], labels, decisions, columns)
    observed = (truth, taken) if decisions is None else (truth,)
    classes, outputs = _resolve_labels(u[0] if u.ndim == 3 else u, labels, decisions, observed=observed)
    true_index = _indices(truth, classes, "y_true", "labels")
    decision_index = _indices(taken, outputs, "y_pred", "decisions" if decisions is not None else "labels")
    # Utilities near the float limit would overflow in the sum; a power of two keeps every bit.
    scale = _scale_of(u)
    if u.ndim == 3:
        utilities = u[np.arange(truth.shape[0]), decision_index, true_index] / scale
    else:
        utilities = u[decision_index, true_index] / scale
    if sample_weight is None:
        return float(utilities.mean()) * scale
    weights = _real_array(sample_weight, "sample_weight", "an array of shape (n_samples,)")
    if weights.shape != utilities.shape:
        raise ValueError(f"sample_weight has shape {weights.shape} but there are {utilities.shape[0]} items")
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise ValueError("sample_weight must be finite and non-negative")
    largest = weights.max()
    if largest <= 0:
        raise ValueError("sample_weight sums to 0: the utility yield of no weight is undefined")
    # Relative to the largest weight: weights near 1e308 would overflow in their sum (inf/inf is
    # NaN), and subnormal ones would lose their last bits in it.
    return float(np.average(utilities, weights=weights / largest)) * scale


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
        scorer.__class__ = _per_item_scorer_class()
        return scorer
    u = _check_utility(utility)
    # Checked now, so that a wrong width fails at once rather than inside every fold.
    _resolve_labels(u, labels, decisions)
    return make_scorer(utility_score, greater_is_better=True, utility=u, labels=labels, decisions=decisions)


@functools.cache
def _per_item_scorer_class():
    """scikit-learn's scorer of ``make_scorer``, whose ``predict`` also gets the routed item
    columns when the estimator reads them (a :class:`UtilityClassifier` with a per-item utility):
    scikit-learn's own scorers route metadata to the score function only."""
    from sklearn.metrics._scorer import _Scorer

    class PerItemScorer(_Scorer):
        def _score(self, method_caller, estimator, X, y_true, **kwargs):
            reads = getattr(estimator, "item_columns_", ())
            if not reads:
                return super()._score(method_caller, estimator, X, y_true, **kwargs)
            y_pred = estimator.predict(X, **{name: kwargs[name] for name in reads if name in kwargs})
            return self._sign * self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})

    return PerItemScorer


def __getattr__(name):
    # UtilityClassifier subclasses scikit-learn's base classes, so it can only be defined once
    # scikit-learn is imported: it is built on first use, and `import mcrank.sklearn` needs
    # only NumPy.
    if name == "UtilityClassifier":
        cls = _utility_classifier_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), "UtilityClassifier"})


def _request_setter(method: str):
    def set_request(self, **requests):
        request = self._get_metadata_request()
        for param, alias in requests.items():
            getattr(request, method).add_request(param=param, alias=alias)
        self._metadata_request = request
        return self

    set_request.__name__ = f"set_{method}_request"
    set_request.__doc__ = (f"Request metadata for ``{method}``: ``set_{method}_request(amount=True)`` routes the item column "
                           "``amount`` (and ``sample_weight``) to it, as scikit-learn's metadata routing does.")  # fmt: skip
    return set_request


@functools.cache
def _utility_classifier_class():
    _import_sklearn()
    from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.utils import assert_all_finite, get_tags
    from sklearn.utils.validation import check_is_fitted, column_or_1d

    class UtilityClassifier(ClassifierMixin, MetaEstimatorMixin, BaseEstimator):
        r"""Decide by maximal expected utility from a classifier's probabilities, eq. (20).

        ``predict`` returns, for each item, the decision :math:`d` that maximises
        :math:`\sum_c U_{dc}\, p(c \mid x)`, with :math:`p(c \mid x)` from the fitted
        estimator's ``predict_proba`` (optionally calibrated first, and corrected to other
        base rates, eq. 31). It chooses what is optimal, not what is most probable: with the
        identity utility it returns the most probable class, eq. (21).

        The decisions are only as good as the probabilities. Eq. (20) weighs the utilities by
        :math:`p(c \mid x)`; where these are overconfident or underconfident the decisions
        are optimal for the wrong odds, and can score below the most probable class. See
        Notes, and ``calibration``.

        Parameters
        ----------
        estimator : estimator instance
            A classifier with ``predict_proba`` (with ``calibration``, ``decision_function``
            will do). It is cloned in :meth:`fit`; the instance passed is left unfitted.
        utility : array_like of shape (n_decisions, n_classes) or "identity"
            ``utility[i, j]`` = utility of decision ``i`` when class ``j`` is true (rows =
            decisions, columns = true classes). May be rectangular, with ``decisions``
            naming the rows. ``"identity"`` is the identity matrix of the classes seen in
            :meth:`fit`, which chooses the most probable class. A per-item
            :class:`~mcrank.evaluate.per_item.AffineUtility` decides each item by its own
            matrix: :meth:`predict` and :meth:`score` take its columns (``amount=...``), routed
            by ``set_predict_request(amount=True)`` and ``set_score_request(amount=True)``;
            its class and decision names are the defaults of ``labels`` and ``decisions``.
        labels : array_like of shape (n_classes,), default=None
            The classes in the order of the utility's columns. If None, the estimator's
            ``classes_`` when they are the integers 0..n-1 or booleans (or any, for
            ``utility="identity"``); other classes are refused, since the order of the
            columns would be a guess. It may name classes absent from the training data:
            their probability is 0.
        decisions : array_like of shape (n_decisions,), default=None
            The labels :meth:`predict` returns, in the order of the utility's rows. If None,
            the utility must be square and the decisions are the classes.
        priors : array_like of shape (n_classes,), default=None
            Class frequencies in use (base rates), in the order of the classes. With
            ``training_priors``, the probabilities are corrected by eq. (31) before deciding;
            give both or neither.
        training_priors : array_like of shape (n_classes,), default=None
            Class frequencies the estimator learned under: each at least the smallest normal
            float (about 2.2e-308), summing to 1.
        calibration : {None, "sigmoid", "isotonic", "temperature"}, default=None
            If not None, :meth:`fit` fits
            ``CalibratedClassifierCV(estimator, method=calibration, cv=cv)`` instead of the
            estimator, and the decisions weigh its calibrated probabilities: a clone of the
            estimator is fitted on each training fold and calibrated on the rest, and their
            calibrated probabilities averaged. ``"sigmoid"`` is Platt's scaling (one class
            against the rest, then normalised), ``"isotonic"`` a monotone fit that needs
            many items per class, ``"temperature"`` one scale of all the log-odds (the
            natural choice for several classes; scikit-learn >= 1.8). For other options of
            ``CalibratedClassifierCV``, pass one as ``estimator`` and leave this None.
        cv : int, cross-validation generator or iterable, default=None
            The folds of the calibration, as ``CalibratedClassifierCV`` takes them (None: 5
            stratified folds). Only with ``calibration``: alone it would change nothing, and
            is refused.

        Attributes
        ----------
        estimator_ : estimator instance
            The fitted model whose ``predict_proba`` the decisions weigh: the fitted clone of
            ``estimator``, or with ``calibration`` the fitted ``CalibratedClassifierCV``
            around it.
        classes_ : ndarray of shape (n_classes,)
            The classes, in the order of the utility's columns and of :meth:`predict_proba`.
        decisions_ : ndarray of shape (n_decisions,)
            The labels :meth:`predict` returns, in the order of the utility's rows.
        utility_ : ndarray of shape (n_decisions, n_classes)
            The utility matrix used.
        n_features_in_ : int
            Number of features seen in :meth:`fit`, where the estimator records it.
        feature_names_in_ : ndarray of shape (n_features_in_,)
            Names of the features seen in :meth:`fit`, where the estimator records them.

        See Also
        --------
        mcrank.decisions.optimal_decisions : the decisions, from probabilities.
        utility_score : the utility yield that :meth:`score` returns.
        sklearn.calibration.CalibratedClassifierCV : the calibration behind ``calibration``.

        Notes
        -----
        How much the probabilities matter is measured in ``docs/decisions.md`` (and
        ``examples/calibrated_decisions.py``) on the digits data. Calibration is no cure by
        itself: it refits the probabilities on held-out folds, which helps an overconfident
        estimator, but a poor calibration method can also make good probabilities worse (there,
        one-vs-rest sigmoid scaling of a multinomial logistic regression). Compare the
        candidates by the utility yield under cross-validation, for example with
        ``GridSearchCV(..., {"calibration": [None, "sigmoid", "isotonic"]})``, since
        :meth:`score` is the utility yield.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.pipeline import make_pipeline
        >>> from sklearn.preprocessing import StandardScaler
        >>> X, y = load_breast_cancer(return_X_y=True)      # 0 = malignant, 1 = benign
        >>> utility = [[0.9, 0.7],                          # treat
        ...            [0.0, 1.0],                          # dismiss
        ...            [0.8, 0.8]]                          # order another test
        >>> model = UtilityClassifier(
        ...     make_pipeline(StandardScaler(), LogisticRegression()),
        ...     utility, decisions=["treat", "dismiss", "test"]).fit(X, y)
        >>> model.predict(X[:3]).tolist()
        ['treat', 'treat', 'treat']
        """

        def __init__(
            self,
            estimator,
            utility,
            *,
            labels=None,
            decisions=None,
            priors=None,
            training_priors=None,
            calibration=None,
            cv=None,
        ):
            self.estimator = estimator
            self.utility = utility
            self.labels = labels
            self.decisions = decisions
            self.priors = priors
            self.training_priors = training_priors
            self.calibration = calibration
            self.cv = cv

        def _probability_model(self):
            """The unfitted model whose ``predict_proba`` the decisions weigh."""
            if self.calibration is None:
                if self.cv is not None:
                    raise ValueError(
                        f"cv sets the folds of the calibration, but calibration is None (got cv={self.cv!r}): "
                        "give calibration= or leave cv=None"
                    )
                needed = ("predict_proba",)
            else:
                first = CALIBRATION_METHODS.get(self.calibration) if isinstance(self.calibration, str) else None
                if first is None:
                    raise ValueError(
                        f"calibration must be None or one of {', '.join(map(repr, CALIBRATION_METHODS))}, got {self.calibration!r}"
                    )
                if _sklearn_version() < first:
                    raise ValueError(f"calibration={self.calibration!r} needs scikit-learn >= {'.'.join(map(str, first))}")
                needed = ("predict_proba", "decision_function")  # CalibratedClassifierCV takes either
            if not hasattr(self.estimator, "fit") or not any(hasattr(self.estimator, name) for name in needed):
                raise ValueError(
                    f"estimator must be a classifier with {' or '.join(needed)} (eq. 20 weighs its probabilities), got {self.estimator!r}"
                )
            if self.calibration is None:
                return clone(self.estimator)
            return CalibratedClassifierCV(clone(self.estimator), method=self.calibration, cv=self.cv)

        def _checked_utility(self, n_classes):
            if _is_affine(self.utility):
                return self.utility
            if isinstance(self.utility, str):
                if self.utility != "identity":
                    raise ValueError(f"utility must be a matrix or 'identity', got {self.utility!r}")
                return np.eye(n_classes)
            return _check_utility(self.utility)

        def fit(self, X, y, **fit_params):
            """Fit a clone of the estimator, and fix the classes and decisions.

            Parameters
            ----------
            X : {array-like, sparse matrix} of shape (n_samples, n_features)
                Training data, as the estimator takes it.
            y : array-like of shape (n_samples,)
                Class labels.
            **fit_params : dict
                Passed to the estimator's ``fit`` (for example ``sample_weight``).

            Returns
            -------
            self : UtilityClassifier

            Raises
            ------
            ValueError
                If the estimator has no ``predict_proba`` (nor ``decision_function``, with
                ``calibration``), ``y`` is not one label per item or holds a class that
                ``labels`` does not name, ``calibration`` or ``cv`` is unknown or given
                alone, or the utility, decisions or priors do not fit the classes.
            """
            # Checked before the (possibly long) fit wherever y is not needed.
            model = self._probability_model()
            if self.labels is not None:
                classes = _as_labels(self.labels, "labels")
                _check_unique(classes, "labels")
                self._check_parameters(classes)
            y = self._checked_targets(y)
            estimator = model.fit(X, y, **fit_params)
            learned = getattr(estimator, "classes_", None)
            if learned is None:
                raise ValueError(f"estimator {self.estimator!r} sets no classes_ when fitted: is it a classifier?")
            learned = np.asarray(learned)
            if self.labels is not None:
                classes = _as_labels(self.labels, "labels")
            elif _is_affine(self.utility):  # the utility's own class names
                classes = np.asarray(self.utility.classes)
            elif isinstance(self.utility, str):  # the identity reads every order alike
                classes = learned
            else:
                classes = _natural_order(learned.tolist(), _check_utility(self.utility).shape[1], "y")
            columns = _indices(learned, classes, "y", "labels")
            self.utility_, self.decisions_ = self._check_parameters(classes)
            self.item_columns_ = self.utility_.columns if _is_affine(self.utility_) else ()
            self.estimator_ = estimator
            self.classes_ = classes
            self._columns = columns
            for attribute in ("n_features_in_", "feature_names_in_"):
                if hasattr(estimator, attribute):
                    setattr(self, attribute, getattr(estimator, attribute))
            return self

        @staticmethod
        def _checked_targets(y):
            if y is None:
                return y  # the estimator says that it needs y, in scikit-learn's words
            ragged = ValueError("y must hold one class label per item, of shape (n_samples,)")
            # Object dtype: only the shape and kinds are wanted, and mixed labels such as
            # [0, "a"] must not become strings; np.shape would refuse array-likes that only
            # define __array__.
            try:
                values = y if hasattr(y, "shape") else np.asarray(y, dtype=object)
            except ValueError:
                raise ragged from None
            shape = values.shape
            if len(shape) == 2 and shape[1] == 1:
                # scikit-learn's convention for a column vector: accepted with a DataConversionWarning.
                y = values = column_or_1d(y, warn=True)
            elif len(shape) != 1:
                raise ValueError(
                    f"y must hold one class label per item, of shape (n_samples,), got shape {shape}: "
                    "UtilityClassifier takes one decision per item, so multi-output targets are not supported"
                )
            if getattr(values, "dtype", None) is not None and values.dtype.kind == "O":
                labels = values.tolist()
                # np.asarray([[0, 1], [1]], dtype=object) is a 1-D array of lists: a ragged y.
                if any(isinstance(label, (list, tuple, np.ndarray)) for label in labels):
                    raise ragged
                if labels and all(isinstance(label, float) for label in labels):
                    values = np.asarray(labels, dtype=float)
            # CalibratedClassifierCV casts y before it refuses NaN or infinity, with a
            # RuntimeWarning first: refused here, in scikit-learn's words, before any estimator.
            if getattr(values, "dtype", None) is not None and values.dtype.kind == "f":
                assert_all_finite(values, input_name="y")
            return y

        def _check_parameters(self, classes):
            utility = self._checked_utility(classes.shape[0])
            if _is_affine(utility):
                decisions = utility.decisions if self.decisions is None else self.decisions
                _, decisions = _resolve_labels(utility.constant, classes, decisions)
                return utility, decisions
            _, decisions = _resolve_labels(utility, classes, self.decisions)
            if self.priors is not None or self.training_priors is not None:
                if self.priors is None or self.training_priors is None:
                    raise ValueError("give both priors and training_priors (the class frequencies in use and in training), or neither")
                _check_prior(self.priors, classes.shape[0], "priors", positive=False)
                _check_prior(self.training_priors, classes.shape[0], "training_priors", positive=True)
            return utility, decisions

        def predict_proba(self, X):
            """Class probabilities from the fitted estimator, in the order of ``classes_``.

            Parameters
            ----------
            X : {array-like, sparse matrix} of shape (n_samples, n_features)

            Returns
            -------
            ndarray of shape (n_samples, n_classes)
                The estimator's ``predict_proba``, uncorrected by the priors; a class of
                ``labels`` the estimator never saw has probability 0.
            """
            check_is_fitted(self)
            learned = self.estimator_.predict_proba(X)
            if np.array_equal(self._columns, np.arange(self.classes_.shape[0])):
                return learned  # as it is, when labels is None or says the estimator's order
            probabilities = np.zeros((learned.shape[0], self.classes_.shape[0]))
            probabilities[:, self._columns] = learned
            return probabilities

        def predict(self, X, **columns):
            """The decision of maximal expected utility for each item, eq. (20).

            Parameters
            ----------
            X : {array-like, sparse matrix} of shape (n_samples, n_features)
            **columns : array-like of shape (n_samples,)
                The item columns of a per-item utility (such as ``amount=``); by metadata
                routing, ``set_predict_request(amount=True)``.

            Returns
            -------
            ndarray of shape (n_samples,)
                Labels from ``decisions_``; a tie goes to the first decision of the utility.
            """
            probabilities = self.predict_proba(X)
            utility, _, _ = _utility_of_items(self.utility_, probabilities.shape[0], None, None, columns)
            chosen = optimal_decisions(probabilities, utility, priors=self.priors, training_priors=self.training_priors)
            return self.decisions_[chosen]

        def score(self, X, y, sample_weight=None, **columns):
            """Utility yield of the decisions on ``X``: :func:`utility_score`, eq. (9).

            Parameters
            ----------
            X : {array-like, sparse matrix} of shape (n_samples, n_features)
            y : array-like of shape (n_samples,)
                True class labels.
            sample_weight : array-like of shape (n_samples,), default=None
            **columns : array-like of shape (n_samples,)
                The item columns of a per-item utility; by metadata routing,
                ``set_score_request(amount=True)``.

            Returns
            -------
            float
                The mean utility per item; higher is better.
            """
            return utility_score(
                y,
                self.predict(X, **columns),
                utility=self.utility_,
                labels=self.classes_,
                decisions=self.decisions_,
                sample_weight=sample_weight,
                **columns,
            )

        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            inner = get_tags(self.estimator)
            tags.input_tags.sparse = inner.input_tags.sparse
            tags.input_tags.allow_nan = inner.input_tags.allow_nan
            return tags

    # The item columns a per-item utility reads have the names its user gives, so their requests
    # are set by name, as a scorer's are (scikit-learn builds these setters from fixed signatures).
    UtilityClassifier.set_predict_request = _request_setter("predict")
    UtilityClassifier.set_score_request = _request_setter("score")
    UtilityClassifier.__qualname__ = "UtilityClassifier"  # pickle finds it as mcrank.sklearn.UtilityClassifier
    return UtilityClassifier
