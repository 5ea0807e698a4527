"""mcrank.sklearn: utility yield as a scikit-learn metric and scorer, and the UtilityClassifier meta-estimator."""

import importlib.util
import pickle
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")

from run_example import run_example  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_iris, make_classification  # noqa: E402
from sklearn.exceptions import DataConversionWarning, NotFittedError, SkipTestWarning  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    FixedThresholdClassifier,
    GridSearchCV,
    StratifiedKFold,
    TunedThresholdClassifierCV,
    cross_val_score,
)
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import SVC  # noqa: E402
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks  # noqa: E402

import mcrank.sklearn  # noqa: E402
from mcrank.confusion import from_sklearn  # noqa: E402
from mcrank.decisions import base_rate_corrected, optimal_decisions  # noqa: E402
from mcrank.sklearn import UtilityClassifier, make_utility_scorer, utility_score  # noqa: E402
from mcrank.utility_space import utility_yield  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sklearn_decisions.py"
CALIBRATION_EXAMPLE = EXAMPLE.with_name("calibrated_decisions.py")
BINARY_UTILITY = np.array([[1.0, 0.0], [0.3, 0.8]])  # output class 1 when p(class 1) > 0.7 / 1.5
TREAT_DISMISS_TEST = np.array([[0.9, 0.6], [0.0, 1.0], [0.85, 0.9]])


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _model():
    return LogisticRegression(max_iter=1000)


# --- scikit-learn's estimator checks --------------------------------------------------------


# "identity" sizes the utility to the classes seen in fit, so every check passes, whatever
# number of classes it fits on, and whatever the estimator inside: calibrated probabilities
# here, a tree (which accepts NaN and multi-output targets itself) in the one call below.
@parametrize_with_checks(
    [
        UtilityClassifier(LogisticRegression(), "identity"),
        UtilityClassifier(LogisticRegression(), "identity", calibration="sigmoid", cv=2),
    ]
)
def test_identity_utility_passes_every_estimator_check(estimator, check):
    check(estimator)


def test_check_estimator_with_a_tree_inside_passes_in_one_call():
    # The call docs/decisions.md quotes, as a user would make it; every check the list above
    # runs one by one, and any other warning an error as there.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=SkipTestWarning)  # the array API check's skip
        check_estimator(UtilityClassifier(DecisionTreeClassifier(random_state=0), utility="identity"))


_FITS_MORE_CLASSES = (
    "fits on 3 or 4 classes: a 2x2 utility cannot weigh them, and fit says so with a one-line ValueError, the intended behaviour"
)
#: The checks a fixed binary utility (its classes named 0, 1) cannot meet, and why (scikit-learn 1.9).
BINARY_UTILITY_EXPECTED_FAILURES = {
    **dict.fromkeys(
        [
            "check_dict_unchanged",
            "check_dont_overwrite_parameters",
            "check_dtype_object",
            "check_estimator_sparse_array",
            "check_estimator_sparse_matrix",
            "check_estimator_sparse_tag",
            "check_estimators_fit_returns_self",
            "check_estimators_overwrite_params",
            "check_f_contiguous_array_estimator",
            "check_fit2d_predict1d",
            "check_fit_score_takes_y",
            "check_methods_sample_order_invariance",
            "check_methods_subset_invariance",
            "check_n_features_in_after_fitting",
            "check_positive_only_tag_during_fit",
            "check_readonly_memmap_input",
            "check_supervised_y_2d",
        ],
        _FITS_MORE_CLASSES,
    ),
    **dict.fromkeys(
        ["check_classifier_data_not_an_array", "check_estimators_dtypes", "check_fit2d_1feature"],
        "fits on the labels 1 and 2, which labels=[0, 1] does not name: a two-class utility's columns are matched to "
        "named labels only, never by a guess (their sorted order), and fit says so with a one-line ValueError, the intended behaviour",
    ),
    "check_classifiers_classes": _FITS_MORE_CLASSES.replace("on 3 or 4 classes", "on 3 string classes"),
    "check_classifiers_train": (
        "asserts that predict is the argmax of predict_proba, the most probable class of eq. (21); "
        "a utility other than the identity chooses the optimal decision instead, eq. (20), which is "
        "the point of this estimator (and its multi-class half fits 3 classes)"
    ),
}


@parametrize_with_checks(
    [UtilityClassifier(LogisticRegression(), BINARY_UTILITY, labels=[0, 1])],
    expected_failed_checks=lambda estimator: BINARY_UTILITY_EXPECTED_FAILURES,
    xfail_strict=True,
)
def test_binary_utility_meets_every_check_it_can(estimator, check):
    check(estimator)


# --- utility_score ----------------------------------------------------------------------------


def test_utility_score_is_the_utility_yield_of_the_confusion_matrix():
    rng = np.random.default_rng(11)
    for n_classes in (2, 3, 5):
        y_true = rng.integers(0, n_classes, size=400)
        y_pred = np.where(rng.random(400) < 0.7, y_true, rng.integers(0, n_classes, size=400))
        utility = rng.random((n_classes, n_classes))
        weights = rng.random(400)
        labels = np.arange(n_classes)
        for sample_weight in (None, weights):
            confusion = confusion_matrix(y_true, y_pred, labels=labels, sample_weight=sample_weight, normalize="all")
            expected = utility_yield(utility, from_sklearn(confusion))
            value = utility_score(y_true, y_pred, utility=utility, labels=labels, sample_weight=sample_weight)
            assert value == pytest.approx(expected, rel=1e-12)


def test_utility_score_by_hand_with_string_labels_and_decisions():
    # rows: treat, dismiss, test; columns: malignant, benign
    y_true = ["malignant", "malignant", "benign", "benign"]
    y_pred = ["treat", "test", "dismiss", "test"]
    value = utility_score(
        y_true, y_pred, utility=TREAT_DISMISS_TEST, labels=["malignant", "benign"], decisions=["treat", "dismiss", "test"]
    )
    assert value == pytest.approx((0.9 + 0.85 + 1.0 + 0.9) / 4, rel=1e-15)
    # The doctest of utility_score.
    assert utility_score([0, 0, 1, 1], [0, 1, 1, 1], utility=[[1, 0], [0.2, 1]], labels=[0, 1]) == pytest.approx(0.8)


def test_labels_fix_the_class_order():
    y_true = np.array(["b", "a", "c", "a", "b"])
    y_pred = np.array(["b", "c", "c", "a", "a"])
    utility = np.arange(9.0).reshape(3, 3)  # in the order a, b, c
    order = [2, 0, 1]  # c, a, b
    permuted = utility[np.ix_(order, order)]
    assert utility_score(y_true, y_pred, utility=utility, labels=["a", "b", "c"]) == utility_score(
        y_true, y_pred, utility=permuted, labels=["c", "a", "b"]
    )
    # Text labels have no order of their own: without labels= it is refused, not the sorted one guessed.
    with pytest.raises(
        ValueError, match=r"labels: the labels of y \('a', 'b', 'c'\): they are not the integers 0..2.*the parameter labels"
    ):
        utility_score(y_true, y_pred, utility=utility)
    with pytest.raises(ValueError, match="the parameter labels"):
        UtilityClassifier(LogisticRegression(), utility).fit(np.arange(6.0).reshape(-1, 1), ["a", "b", "c"] * 2)


def test_mixed_label_types_keep_their_types():
    # np.asarray([0, 1, "test"]) would turn the classes into strings.
    value = utility_score([0, 1, 1], [0, "test", 1], utility=TREAT_DISMISS_TEST, labels=[0, 1], decisions=[0, 1, "test"])
    assert value == pytest.approx((0.9 + 0.9 + 1.0) / 3)


# --- the scorer in model selection ---------------------------------------------------------------


def test_scorer_in_grid_search_picks_the_model_of_a_hand_written_loop():
    X, y = make_classification(n_samples=300, n_features=8, weights=[0.7], flip_y=0.05, random_state=0)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    grid = [0.001, 0.003, 0.01, 0.1, 1.0, 10.0]
    search = GridSearchCV(LogisticRegression(), {"C": grid}, scoring=make_utility_scorer(BINARY_UTILITY, labels=[0, 1]), cv=cv).fit(X, y)
    by_hand = []
    for C in grid:
        folds = [
            utility_score(y[test], LogisticRegression(C=C).fit(X[train], y[train]).predict(X[test]), utility=BINARY_UTILITY, labels=[0, 1])
            for train, test in cv.split(X, y)
        ]
        by_hand.append(np.mean(folds))
    assert len(set(by_hand)) > 2, "the grid should separate the models"
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], by_hand, rtol=1e-12)
    assert search.best_params_["C"] == grid[int(np.argmax(by_hand))]
    scores = cross_val_score(LogisticRegression(C=grid[0]), X, y, scoring=make_utility_scorer(BINARY_UTILITY, labels=[0, 1]), cv=cv)
    assert np.mean(scores) == pytest.approx(by_hand[0], rel=1e-12)


def test_scorer_in_tuned_threshold_and_eq20_as_a_threshold(cancer):
    X, y = cancer
    tuned = TunedThresholdClassifierCV(_model(), scoring=make_utility_scorer(BINARY_UTILITY, labels=[0, 1]), cv=5, random_state=0).fit(X, y)
    # Few items of these data have middling probabilities, so the tuned threshold lies anywhere
    # on a wide plateau: only check that it ran and scored in the utility's range.
    assert 0 < tuned.best_threshold_ < 1 and 0 <= tuned.best_score_ <= 1
    # In the binary case eq. (20) is a threshold on p1, exactly: choose class 1 when
    # 0.3 p0 + 0.8 p1 > 1.0 p0 + 0.0 p1, that is when p1 > 0.7 / 1.5.
    bayes_threshold = 0.7 / 1.5
    fixed = FixedThresholdClassifier(_model(), threshold=bayes_threshold, response_method="predict_proba").fit(X, y)
    decided = UtilityClassifier(_model(), BINARY_UTILITY, labels=[0, 1]).fit(X, y)
    np.testing.assert_array_equal(decided.predict(X), fixed.predict(X))


# --- UtilityClassifier ----------------------------------------------------------------------------


def test_binary_decisions_are_eq20_on_the_estimators_probabilities(cancer):
    X, y = cancer
    # Treat (output class 0) unless p(benign) > 0.9 / 1.3, far from the 0.5 of predict.
    model = UtilityClassifier(_model(), TREAT_DISMISS_TEST[:2], labels=[0, 1]).fit(X, y)
    probabilities = model.estimator_.predict_proba(X)
    np.testing.assert_array_equal(model.predict_proba(X), probabilities)
    np.testing.assert_array_equal(model.predict(X), np.array([0, 1])[optimal_decisions(probabilities, TREAT_DISMISS_TEST[:2])])
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.score(X, y) == utility_score(y, model.predict(X), utility=TREAT_DISMISS_TEST[:2], labels=[0, 1])
    assert np.any(model.predict(X) != model.estimator_.predict(X)), "the utility should change some decisions"
    with pytest.raises(NotFittedError):
        model.estimator.predict(X)  # fit cloned it


def test_three_classes_square_rectangular_and_identity(iris):
    X, y = iris
    rng = np.random.default_rng(2)
    utility = rng.random((3, 3)) + 2 * np.eye(3)
    model = UtilityClassifier(_model(), utility).fit(X, y)
    probabilities = model.estimator_.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), optimal_decisions(probabilities, utility))
    identity = UtilityClassifier(_model(), "identity").fit(X, y)
    np.testing.assert_array_equal(identity.predict(X), identity.estimator_.predict(X))
    # A fourth decision, "refer", worth 0.6 whatever the class: taken where no class is likely enough.
    refer = np.vstack([np.eye(3), [0.6, 0.6, 0.6]])
    decisions = ["setosa", "versicolor", "virginica", "refer"]
    referring = UtilityClassifier(_model(), refer, decisions=decisions).fit(X, y)
    chosen = referring.predict(X)
    np.testing.assert_array_equal(chosen, np.array(decisions)[optimal_decisions(probabilities, refer)])
    assert set(chosen) == set(decisions)
    np.testing.assert_array_equal(referring.decisions_, decisions)
    assert referring.score(X, y) == pytest.approx(utility_score(y, chosen, utility=refer, labels=[0, 1, 2], decisions=decisions), rel=1e-15)


def test_labels_reorder_the_utility_and_may_name_unseen_classes(iris):
    X, y = iris
    utility = np.array([[1.0, 0.2, 0.0], [0.1, 1.0, 0.4], [0.0, 0.5, 1.0]])
    order = [2, 0, 1]
    plain = UtilityClassifier(_model(), utility).fit(X, y)
    reordered = UtilityClassifier(_model(), utility[np.ix_(order, order)], labels=order).fit(X, y)
    np.testing.assert_array_equal(reordered.classes_, order)
    np.testing.assert_array_equal(reordered.predict(X), plain.predict(X))
    np.testing.assert_allclose(reordered.predict_proba(X), plain.predict_proba(X)[:, order])
    seen = y < 2
    unseen = UtilityClassifier(_model(), utility, labels=[0, 1, 2]).fit(X[seen], y[seen])
    assert unseen.predict_proba(X).shape == (len(y), 3)
    assert np.all(unseen.predict_proba(X)[:, 2] == 0)


def test_string_classes_and_prior_correction(cancer):
    X, y = cancer
    names = np.array(["malignant", "benign"])[y]
    training = np.array([np.mean(y == 0), np.mean(y == 1)])
    priors = [0.01, 0.99]  # screening: 1 % malignant
    options = dict(labels=["malignant", "benign"], decisions=["treat", "dismiss", "test"])
    plain = UtilityClassifier(_model(), TREAT_DISMISS_TEST, **options).fit(X, names)
    corrected = UtilityClassifier(_model(), TREAT_DISMISS_TEST, priors=priors, training_priors=training, **options)
    corrected.fit(X, names)
    probabilities = corrected.predict_proba(X)
    np.testing.assert_array_equal(probabilities[:, 0], corrected.estimator_.predict_proba(X)[:, 1])  # malignant first
    expected = optimal_decisions(base_rate_corrected(probabilities, priors=priors, training_priors=training), TREAT_DISMISS_TEST)
    np.testing.assert_array_equal(corrected.predict(X), np.array(options["decisions"])[expected])
    assert np.sum(corrected.predict(X) == "dismiss") > np.sum(plain.predict(X) == "dismiss")


def test_fit_passes_sample_weight_to_the_estimator(cancer):
    X, y = cancer
    weights = np.where(y == 0, 5.0, 1.0)
    model = UtilityClassifier(_model(), "identity").fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.predict_proba(X), _model().fit(X, y, sample_weight=weights).predict_proba(X))


class _RecordsWeights(LogisticRegression):
    """A classifier that records the sample_weight its fit received."""

    seen: list = []

    def fit(self, X, y, sample_weight=None):
        type(self).seen.append(None if sample_weight is None else np.asarray(sample_weight).copy())
        return super().fit(X, y, sample_weight=sample_weight)


def test_sample_weight_reaches_the_estimators_fit_as_scikit_learn_routes_it():
    import sklearn

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    weights = rng.uniform(0.5, 2.0, 60)
    _RecordsWeights.seen = []
    UtilityClassifier(_RecordsWeights(), BINARY_UTILITY, labels=[0, 1]).fit(X, y, sample_weight=weights)
    assert len(_RecordsWeights.seen) == 1 and np.array_equal(_RecordsWeights.seen[0], weights)
    with sklearn.config_context(enable_metadata_routing=True):
        # Requested: it reaches the estimator's fit, through the meta-estimator and through a search.
        _RecordsWeights.seen = []
        estimator = _RecordsWeights().set_fit_request(sample_weight=True)
        UtilityClassifier(estimator, BINARY_UTILITY, labels=[0, 1]).fit(X, y, sample_weight=weights)
        assert np.array_equal(_RecordsWeights.seen[0], weights)
        _RecordsWeights.seen = []
        model = UtilityClassifier(estimator, BINARY_UTILITY, labels=[0, 1]).set_score_request(sample_weight=True)
        GridSearchCV(model, {"calibration": [None]}, cv=2).fit(X, y, sample_weight=weights)
        sizes = sorted(len(w) for w in _RecordsWeights.seen)
        assert sizes == [30, 30, 60] and np.array_equal(_RecordsWeights.seen[-1], weights)  # two folds, then the refit
        # Not requested: refused, as scikit-learn refuses it, rather than passed or dropped silently.
        with pytest.raises(sklearn.exceptions.UnsetMetadataPassedError):
            UtilityClassifier(_RecordsWeights(), BINARY_UTILITY, labels=[0, 1]).fit(X, y, sample_weight=weights)


def test_grid_search_and_pickle_of_the_meta_estimator(cancer):
    X, y = cancer
    decisions = ["treat", "dismiss", "test"]
    search = GridSearchCV(
        UtilityClassifier(_model(), TREAT_DISMISS_TEST, labels=[0, 1], decisions=decisions), {"estimator__C": [0.01, 1.0]}, cv=3
    ).fit(X, y)
    scorer = make_utility_scorer(TREAT_DISMISS_TEST, labels=[0, 1], decisions=decisions)
    by_scorer = GridSearchCV(
        UtilityClassifier(_model(), TREAT_DISMISS_TEST, labels=[0, 1], decisions=decisions),
        {"estimator__C": [0.01, 1.0]},
        cv=3,
        scoring=scorer,
    ).fit(X, y)
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], by_scorer.cv_results_["mean_test_score"], rtol=1e-12)
    best = search.best_estimator_
    copy = pickle.loads(pickle.dumps(best))
    np.testing.assert_array_equal(copy.predict(X), best.predict(X))


# --- calibration --------------------------------------------------------------------------------


def test_calibration_decides_on_calibrated_classifier_cv_probabilities(iris):
    X, y = iris
    rng = np.random.default_rng(8)
    utility = rng.random((3, 3)) + np.eye(3)
    for method in ("sigmoid", "isotonic"):
        model = UtilityClassifier(_model(), utility, calibration=method, cv=3).fit(X, y)
        assert isinstance(model.estimator_, CalibratedClassifierCV)
        reference = CalibratedClassifierCV(_model(), method=method, cv=3).fit(X, y)
        probabilities = reference.predict_proba(X)
        np.testing.assert_array_equal(model.predict_proba(X), probabilities)
        np.testing.assert_array_equal(model.predict(X), optimal_decisions(probabilities, utility))
    uncalibrated = UtilityClassifier(_model(), utility).fit(X, y)
    assert not np.array_equal(uncalibrated.predict_proba(X), model.predict_proba(X))
    # Parameters are stored as given and cloned as such; the fitted model ends in _.
    assert model.get_params()["calibration"] == "isotonic" and model.get_params()["cv"] == 3


def test_calibration_takes_a_decision_function_and_sample_weight(cancer):
    X, y = cancer
    weights = np.where(y == 0, 3.0, 1.0)
    model = UtilityClassifier(SVC(), TREAT_DISMISS_TEST[:2], labels=[0, 1], calibration="sigmoid", cv=3).fit(X, y, sample_weight=weights)
    reference = CalibratedClassifierCV(SVC(), method="sigmoid", cv=3).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_calibration_is_a_parameter_grid_search_can_choose(iris):
    X, y = iris
    search = GridSearchCV(UtilityClassifier(_model(), "identity", cv=3), {"calibration": ["sigmoid", "isotonic"]}, cv=3).fit(X, y)
    assert search.best_params_["calibration"] in ("sigmoid", "isotonic")
    assert search.best_estimator_.cv == 3


def test_column_vector_y_is_accepted_with_scikit_learns_warning(iris):
    X, y = iris
    with pytest.warns(DataConversionWarning):
        model = UtilityClassifier(DecisionTreeClassifier(random_state=0), "identity").fit(X, y[:, np.newaxis])
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])


# --- bad input: one-line ValueErrors ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (([0, 1, 1], [0, 1], {"utility": np.eye(2)}), "y_true has 3 items but y_pred has 2"),
        (([0, 2, 1], [0, 1, 1], {"utility": np.eye(2), "labels": [0, 1]}), "y_true holds 2, which labels does not name"),
        (
            ([0, 1, 1], [0, 1, "x"], {"utility": TREAT_DISMISS_TEST, "labels": [0, 1], "decisions": [0, 1, "t"]}),
            "y_pred holds 'x', which decisions does not name",
        ),
        (
            ([0, 1, 2], [0, 1, 1], {"utility": np.eye(2)}),
            "utility has 2 columns (one per true class) but there are 3 classes [0, 1, 2]; pass labels=",
        ),
        (([0, 1], [0, 1], {"utility": TREAT_DISMISS_TEST, "labels": [0, 1]}), "a rectangular utility needs decisions= naming its 3 rows"),
        (
            ([0, 1], [0, 1], {"utility": TREAT_DISMISS_TEST, "labels": [0, 1], "decisions": [0, 1]}),
            "decisions names 2 decisions but utility has 3 rows",
        ),
        (([0, 1], [0, 1], {"utility": np.eye(2), "labels": [0, 0]}), "labels must not repeat a label: 0"),
        (([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": [1.0]}), "sample_weight has shape (1,) but there are 2 items"),
        (([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": [1.0, -1.0]}), "sample_weight must be finite and non-negative"),
        (([], [], {"utility": np.eye(2)}), "y_true is empty"),
        (([0, 1], [0, 1], {"utility": [[1, np.nan], [0, 1]]}), "utility contains NaN"),
        (([0, "a"], [0, 1], {"utility": np.eye(2)}), "there are 3 classes [0, 'a', 1]; pass labels="),
        (
            ([0, 1], [0, 1], {"utility": np.eye(2) * (1 + 1j)}),
            "utility must be a matrix of shape (decisions, classes) of real numbers, got complex values",
        ),
        (
            ([0, 1], [0, 1], {"utility": [[1, 0], [0]]}),
            "utility must be a matrix of shape (decisions, classes) of numbers, with rows of equal length",
        ),
        (
            ([0, 1], [0, 1], {"utility": [["1", "0"], ["0", "1"]]}),
            "utility must be a matrix of shape (decisions, classes) of numbers, got strings such as '1'",
        ),
        (([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": [np.nan, 1.0]}), "sample_weight must be finite and non-negative"),
        (
            ([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": [1j, 1.0]}),
            "sample_weight must be an array of shape (n_samples,) of real numbers, got complex values",
        ),
        (
            ([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": ["1", "2"]}),
            "sample_weight must be an array of shape (n_samples,) of numbers, got strings such as '1'",
        ),
        (([0, 1], [0, 1], {"utility": np.eye(2), "sample_weight": [0.0, 0.0]}), "sample_weight sums to 0"),
    ],
)
def test_utility_score_bad_input_raises_one_line(arguments, message):
    y_true, y_pred, options = arguments
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        utility_score(y_true, y_pred, **options)
    assert "\n" not in str(caught.value)


def test_sample_weights_and_utilities_near_the_float_limits_give_finite_scores():
    y_true, y_pred = [0, 1, 1, 0], [0, 1, 0, 0]
    utility = np.array([[1.0, 0.25], [0.0, 1.0]])
    plain = utility_score(y_true, y_pred, utility=utility, labels=[0, 1], sample_weight=[1, 2, 3, 4])
    assert plain == pytest.approx((1 + 2 + 3 * 0.25 + 4) / 10, rel=1e-15)
    # Weights whose sum overflows (it was NaN) and subnormal weights: the same weighted mean.
    big = np.finfo(float).max / 4
    assert utility_score(
        y_true, y_pred, utility=utility, labels=[0, 1], sample_weight=[big / 4, big / 2, 3 * big / 4, big]
    ) == pytest.approx(plain, rel=1e-15)
    assert utility_score(y_true, y_pred, utility=utility, labels=[0, 1], sample_weight=[5e-324, 1e-323, 1.5e-323, 2e-323]) == pytest.approx(
        plain, rel=1e-15
    )
    # Utilities near the float limit: their mean is finite.
    huge = utility * np.finfo(float).max
    assert utility_score(y_true, y_pred, utility=huge, labels=[0, 1]) == pytest.approx(
        utility_score(y_true, y_pred, utility=utility, labels=[0, 1]) * np.finfo(float).max, rel=1e-15
    )


def test_scorer_refuses_a_utility_of_the_wrong_width_at_once():
    with pytest.raises(ValueError, match=re.escape("utility has 2 columns (one per true class) but there are 3 classes")):
        make_utility_scorer(np.eye(2), labels=[0, 1, 2])


@pytest.mark.parametrize(
    ("estimator", "utility", "options", "message"),
    [
        (_model(), np.eye(2), {}, "utility has 2 columns (one per true class) but there are 3 classes [0, 1, 2]"),
        (_model(), np.eye(2), {"labels": [0, 1]}, "y holds 2, which labels does not name ([0, 1])"),
        (_model(), np.eye(4)[:, :3], {}, "a rectangular utility needs decisions= naming its 4 rows"),
        (_model(), np.eye(3), {"priors": [0.2, 0.3, 0.5]}, "give both priors and training_priors"),
        (_model(), np.eye(3), {"priors": [0.5, 0.5], "training_priors": [0.5, 0.5]}, "priors must have one entry per class (3)"),
        (_model(), "diagonal", {}, "utility must be a matrix or 'identity', got 'diagonal'"),
        (SVC(), "identity", {}, "estimator must be a classifier with predict_proba"),
        (_model(), np.eye(3) * 1j, {}, "utility must be a matrix of shape (decisions, classes) of real numbers, got complex values"),
        (_model(), [[1, 0, 0], [0, 1]], {}, "utility must be a matrix of shape (decisions, classes) of numbers, with rows of equal length"),
        (_model(), [["1", "0", "0"]] * 3, {}, "utility must be a matrix of shape (decisions, classes) of numbers, got strings such as '1'"),
        (
            _model(),
            np.eye(3),
            {"calibration": "platt"},
            "calibration must be None or one of 'sigmoid', 'isotonic', 'temperature', got 'platt'",
        ),
        (_model(), np.eye(3), {"cv": 3}, "cv sets the folds of the calibration, but calibration is None (got cv=3)"),
        (
            _model(),
            np.eye(3),
            {"priors": [0.2, 0.3, 0.5], "training_priors": [0.0, 0.5, 0.5]},
            "training_priors must be at least 2.23e-308",
        ),
    ],
)
def test_meta_estimator_bad_input_raises_one_line(iris, estimator, utility, options, message):
    X, y = iris
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        UtilityClassifier(estimator, utility, **options).fit(X, y)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("estimator", [_model(), DecisionTreeClassifier(random_state=0)])
def test_a_two_column_y_is_refused_by_name(iris, estimator):
    # A tree accepts multi-output y itself; UtilityClassifier takes one decision per item.
    X, y = iris
    for target in (np.column_stack([y, y]), np.column_stack([y, y]).tolist()):
        with pytest.raises(
            ValueError, match=re.escape("y must hold one class label per item, of shape (n_samples,), got shape (150, 2)")
        ) as caught:
            UtilityClassifier(estimator, "identity").fit(X, target)
        assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match=re.escape("y must hold one class label per item, of shape (n_samples,)")):
        UtilityClassifier(estimator, "identity").fit(X[:2], [[0, 1], [1]])


def test_probabilities_that_do_not_sum_to_one_are_refused():
    class Unnormalised(LogisticRegression):
        def predict_proba(self, X):
            return super().predict_proba(X) * 0.9

    X, y = load_iris(return_X_y=True)
    model = UtilityClassifier(Unnormalised(max_iter=1000), "identity").fit(X, y)
    with pytest.raises(ValueError, match="must sum to 1") as caught:
        model.predict(X)
    assert "\n" not in str(caught.value)


def test_missing_scikit_learn_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # `import sklearn` now raises ImportError
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        make_utility_scorer(np.eye(2))
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        mcrank.sklearn.__getattr__("UtilityClassifier")  # where it is first looked up
    assert utility_score([0, 1], [0, 1], utility=np.eye(2)) == 1.0  # needs NumPy only


def test_an_old_scikit_learn_says_which_version_it_needs(monkeypatch):
    import sklearn

    monkeypatch.setattr(sklearn, "__version__", "1.5.2")
    with pytest.raises(ImportError, match=re.escape("needs scikit-learn >= 1.6, found 1.5.2: pip install -U scikit-learn")):
        make_utility_scorer(np.eye(2))


# --- the example ------------------------------------------------------------------------------


def test_example_runs_and_prints_its_three_sections(capsys, monkeypatch):
    code, out, err = run_example(EXAMPLE, capsys, monkeypatch)
    assert code == 0 and err == "", err
    for section in (
        "1. Three classifiers ranked by utility yield",
        "2. Logistic regression tuned by utility yield",
        "3. Decisions of maximal expected utility (eq. 20) against plain predict",
        "UtilityClassifier: + another test",
        "malignant tumours dismissed:",
    ):
        assert section in out
    # docs/decisions.md shows this output, as printed.
    assert out.strip() in (EXAMPLE.parents[1] / "docs" / "decisions.md").read_text()


def _calibration_example():
    spec = importlib.util.spec_from_file_location("calibrated_decisions", CALIBRATION_EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_calibration_example_runs_as_docs_decisions_md_shows_it(capsys, monkeypatch):
    code, out, err = run_example(CALIBRATION_EXAMPLE, capsys, monkeypatch)
    assert code == 0 and err == "", err
    assert "naive Bayes" in out and "+ isotonic calibration" in out
    assert out.strip() in (EXAMPLE.parents[1] / "docs" / "decisions.md").read_text()


def test_calibration_example_supports_what_the_docs_conclude():
    # docs/decisions.md: with naive Bayes's overconfident probabilities, deciding by expected
    # utility gains nothing measurable; with calibrated ones it gains, by more than 4 SE.
    example = _calibration_example()
    from sklearn.datasets import load_digits
    from sklearn.naive_bayes import GaussianNB

    X, y = load_digits(return_X_y=True)
    utility = example.digits_utility()
    raw = example.compare(GaussianNB(), None, X, y, utility)
    calibrated = example.compare(GaussianNB(), "isotonic", X, y, utility)
    assert abs(raw["gain"]) < 2 * raw["gain_se"]
    assert calibrated["gain"] > 4 * calibrated["gain_se"]
    assert calibrated["log_loss"] < raw["log_loss"] / 4
    assert calibrated["decided"] > raw["decided"] + 0.1
