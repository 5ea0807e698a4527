"""The scikit-learn classes of :mod:`mcrank.sklearn`: :class:`UtilityClassifier` and the scorer
of a per-item utility.

They subclass scikit-learn's base classes, so this module imports scikit-learn; it is imported
when one of them is first used (``mcrank.sklearn.UtilityClassifier``,
:func:`mcrank.sklearn.make_utility_scorer`), after :mod:`mcrank.sklearn` has checked that a
recent enough scikit-learn is installed, so that ``import mcrank.sklearn`` needs only NumPy.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics._scorer import _Scorer
from sklearn.utils import assert_all_finite, get_tags
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, _routing_enabled, process_routing
from sklearn.utils.validation import check_is_fitted, column_or_1d

from mcrank._utility_score import (
    CALIBRATION_METHODS,
    _as_labels,
    _check_unique,
    _indices,
    _is_affine,
    _natural_order,
    _resolve_labels,
    _sklearn_version,
    _utility_of_items,
    utility_score,
)
from mcrank.decisions import _check_prior, _check_utility, optimal_decisions

__all__ = ["PerItemScorer", "UtilityClassifier"]


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
            Passed to the estimator's ``fit`` (for example ``sample_weight``); with
            scikit-learn's metadata routing enabled, those the estimator requested
            (``estimator.set_fit_request(sample_weight=True)``), as every meta-estimator
            of scikit-learn routes them.

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
        if self.labels is None and y is not None and not _is_affine(self.utility) and not isinstance(self.utility, str):
            # The order of the utility's columns, refused before the fit if it would be a guess
            # (unhashable labels are refused by the estimator, or after the fit).
            try:
                seen = list(dict.fromkeys(np.asarray(y, dtype=object).ravel().tolist()))
            except TypeError:
                seen = None
            if seen:
                _natural_order(seen, _check_utility(self.utility).shape[1], "y", self._order_free())
        if _routing_enabled():  # scikit-learn's metadata routing: what the estimator's fit requested
            fit_params = process_routing(self, "fit", **fit_params).estimator.fit
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
            classes = _natural_order(learned.tolist(), _check_utility(self.utility).shape[1], "y", self._order_free())
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

    def _order_free(self) -> bool:
        """Whether the utility reads alike in both orders of two classes, with no labels needed."""
        from mcrank.evaluate.targets import reads_alike

        return self.decisions is None and reads_alike(_check_utility(self.utility))

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

    def get_metadata_routing(self):
        """The metadata routing of scikit-learn: ``fit``'s to the estimator's ``fit`` (with
        ``calibration``, to ``CalibratedClassifierCV``'s, which routes them to the estimator),
        and this classifier's own requests of ``predict`` and ``score``."""
        router = MetadataRouter(owner=self.__class__.__name__).add_self_request(self)
        return router.add(estimator=self.estimator, method_mapping=MethodMapping().add(caller="fit", callee="fit"))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = inner.input_tags.allow_nan
        return tags


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


# The item columns a per-item utility reads have the names its user gives, so their requests
# are set by name, as a scorer's are (scikit-learn builds these setters from fixed signatures).
UtilityClassifier.set_predict_request = _request_setter("predict")
UtilityClassifier.set_score_request = _request_setter("score")
# Found by pickle and clone where users import it from.
UtilityClassifier.__module__ = "mcrank.sklearn"


class PerItemScorer(_Scorer):
    """scikit-learn's scorer of ``make_scorer``, whose ``predict`` also gets the routed item
    columns when the estimator reads them (a :class:`UtilityClassifier` with a per-item utility):
    scikit-learn's own scorers route metadata to the score function only."""

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        reads = getattr(estimator, "item_columns_", ())
        if not reads:
            return super()._score(method_caller, estimator, X, y_true, **kwargs)
        y_pred = estimator.predict(X, **{name: kwargs[name] for name in reads if name in kwargs})
        return self._sign * self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})
