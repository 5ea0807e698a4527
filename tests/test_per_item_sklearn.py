"""Per-item utilities inside scikit-learn (issue 31, items 4 and 6): metadata routing of the
item columns to UtilityClassifier and the scorer, in GridSearchCV, cross_validate and
TunedThresholdClassifierCV; the gallery's business metric and German-credit cost matrix
(``plot_cost_sensitive_learning``) written out here, on data the test makes."""

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")

from sklearn.base import clone  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import confusion_matrix, make_scorer  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, TunedThresholdClassifierCV, cross_validate  # noqa: E402

from mcrank.evaluate.per_item import parse_affine  # noqa: E402
from mcrank.sklearn import UtilityClassifier, make_utility_scorer, utility_score  # noqa: E402

# The gallery's fraud metric, in its current form: refusing a fraud gains 50 and the amount.
GALLERY = parse_affine({"classes": ["fraud", "legitimate"], "decisions": ["refuse", "accept"],
                        "cells": {"refuse": {"fraud": {"constant": 50, "amount": 1}, "legitimate": -5},
                                  "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}}})  # fmt: skip


def business_metric(y_true, y_pred, amount):
    """The gallery's ``business_metric`` (fraud = 1, refuse = predict 1), as it is written there."""
    mask_true_positive = (y_true == 1) & (y_pred == 1)
    mask_true_negative = (y_true == 0) & (y_pred == 0)
    mask_false_positive = (y_true == 0) & (y_pred == 1)
    mask_false_negative = (y_true == 1) & (y_pred == 0)
    fraudulent_refuse = (mask_true_positive.sum() * 50) + amount[mask_true_positive].sum()
    fraudulent_accept = -amount[mask_false_negative].sum()
    legitimate_refuse = mask_false_positive.sum() * -5
    legitimate_accept = (amount[mask_true_negative] * 0.02).sum()
    return fraudulent_refuse + fraudulent_accept + legitimate_refuse + legitimate_accept


def credit_gain_score(y, y_pred, neg_label, pos_label):
    """The gallery's German-credit gain: rows = true class, columns = prediction (good, bad)."""
    cm = confusion_matrix(y, y_pred, labels=[neg_label, pos_label])
    gain_matrix = np.array([[0, -1], [-5, 0]])
    return np.sum(cm * gain_matrix)


def _transactions(n=1000, seed=0):
    """Features, fraud (1) or not (0) and amounts: lognormal amounts, fraud likelier for large ones."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    amount = rng.lognormal(3.5, 1.2, n)
    logit = -3.5 + 1.5 * X[:, 0] - X[:, 1] + 0.5 * (np.log(amount) - 3.5)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return np.column_stack([X, np.log(amount)]), y, amount


def _oracle_decisions(p_fraud, amount):
    """Refuse (1) where the expected utility of refusing is not lower: ties go to refuse, the first row."""
    refuse = p_fraud * (50 + amount) - 5 * (1 - p_fraud)
    accept = -amount * p_fraud + 0.02 * amount * (1 - p_fraud)
    return np.where(refuse >= accept, 1, 0)


def test_gallery_business_metric_equals_the_per_item_yield_times_the_items():
    X, y, amount = _transactions()
    for y_pred in (np.zeros_like(y), np.ones_like(y), np.random.default_rng(3).integers(0, 2, y.shape[0])):
        expected = business_metric(y, y_pred, amount)
        # utility column order fraud, legitimate = labels 1, 0; row order refuse, accept = predictions 1, 0
        got = utility_score(y, y_pred, utility=GALLERY, labels=[1, 0], decisions=[1, 0], amount=amount)
        assert got * y.shape[0] == pytest.approx(expected, rel=1e-13, abs=1e-9)


def test_german_credit_matrix_gives_the_gallerys_scorer_yields():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 4))
    y = np.where(rng.random(600) < 1 / (1 + np.exp(-(X[:, 0] - 1))), "bad", "good")
    gallery = make_scorer(credit_gain_score, neg_label="good", pos_label="bad")
    # rows = decision (good, bad), columns = true class (good, bad): the transpose of the gain matrix
    ours = make_utility_scorer([[0, -5], [-1, 0]], labels=["good", "bad"])
    for C in (1e-3, 1.0):
        model = LogisticRegression(C=C).fit(X[:400], y[:400])
        assert ours(model, X[400:], y[400:]) * 200 == pytest.approx(gallery(model, X[400:], y[400:]), rel=1e-14)


def test_utility_classifier_decides_per_item_through_metadata_routing():
    X, y, amount = _transactions()
    model = UtilityClassifier(LogisticRegression(), GALLERY, labels=[1, 0], decisions=[1, 0]).fit(X, y)
    p_fraud = model.predict_proba(X)[:, 0]
    assert np.array_equal(model.predict(X, amount=amount), _oracle_decisions(p_fraud, amount))
    assert model.score(X, y, amount=amount) * 1000 == pytest.approx(business_metric(y, model.predict(X, amount=amount), amount))
    with pytest.raises(ValueError, match="no column 'amount'"):
        model.predict(X)
    with pytest.raises(ValueError, match="'price' is not a column the utility reads"):
        model.predict(X, amount=amount, price=amount)


def _fold_yields(X, y, amount, C, folds):
    """Each fold's yield by hand: fit, decide per item by the oracle, average the gallery's utility."""
    yields = []
    for train, test in folds.split(X):
        fitted = LogisticRegression(C=C).fit(X[train], y[train])
        p_fraud = fitted.predict_proba(X[test])[:, 1]
        yields.append(business_metric(y[test], _oracle_decisions(p_fraud, amount[test]), amount[test]) / len(test))
    return np.array(yields)


def test_grid_search_routes_the_amounts_to_score():
    X, y, amount = _transactions()
    folds = KFold(4, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        base = UtilityClassifier(LogisticRegression(), GALLERY, labels=[1, 0], decisions=[1, 0]).set_score_request(amount=True)
        search = GridSearchCV(base, {"estimator__C": [0.01, 1.0]}, cv=folds).fit(X, y, amount=amount)
    for k, C in enumerate((0.01, 1.0)):
        assert search.cv_results_["mean_test_score"][k] == pytest.approx(_fold_yields(X, y, amount, C, folds).mean(), rel=1e-12)


def test_cross_validate_with_the_scorer_routes_the_amounts_to_predict_and_score():
    X, y, amount = _transactions()
    folds = KFold(3, shuffle=True, random_state=1)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_utility_scorer(GALLERY, labels=[1, 0], decisions=[1, 0]).set_score_request(amount=True)
        model = UtilityClassifier(LogisticRegression(), GALLERY, labels=[1, 0], decisions=[1, 0])
        scores = cross_validate(model, X, y, scoring=scorer, cv=folds, params={"amount": amount})["test_score"]
    assert scores == pytest.approx(_fold_yields(X, y, amount, 1.0, folds), rel=1e-12)


def test_tuned_threshold_picks_the_gallerys_threshold():
    X, y, amount = _transactions(n=1000)
    with sklearn.config_context(enable_metadata_routing=True):
        ours = make_utility_scorer(GALLERY, labels=[1, 0], decisions=[1, 0]).set_score_request(amount=True)
        theirs = make_scorer(business_metric).set_score_request(amount=True)
        tuned = {}
        for name, scorer in (("ours", ours), ("gallery", theirs)):
            model = TunedThresholdClassifierCV(LogisticRegression(), scoring=scorer, cv=KFold(5), thresholds=50, store_cv_results=True)
            tuned[name] = clone(model).fit(X, y, amount=amount)
    # equal folds of 200 items: the gallery's sums are 200 times the yields
    assert tuned["ours"].best_threshold_ == tuned["gallery"].best_threshold_
    assert tuned["ours"].cv_results_["scores"] * 200 == pytest.approx(tuned["gallery"].cv_results_["scores"], rel=1e-12)


@pytest.mark.slow
def test_fraud_example_runs_as_docs_decisions_md_shows_it(capsys, monkeypatch):
    from pathlib import Path

    from run_example import run_example

    root = Path(__file__).resolve().parents[1]
    code, out, err = run_example(root / "examples" / "fraud_amounts.py", capsys, monkeypatch)
    assert code == 0 and err == "", err
    assert "per item" in out and "replications" in out
    assert out.strip() in (root / "docs" / "decisions.md").read_text()


def test_evaluate_md_shows_what_the_per_item_command_prints(capsys):
    from pathlib import Path

    from mcrank.cli import main

    root = Path(__file__).resolve().parents[1]
    code = main(["evaluate", "--labels", str(root / "examples" / "fraud_labels.csv"), "--utility",
                 str(root / "examples" / "fraud_per_item.json"), "--test-uncertainty", "--seed", "1"])  # fmt: skip
    assert code == 0
    assert capsys.readouterr().out.strip() in (root / "docs" / "evaluate-per-item.md").read_text()
