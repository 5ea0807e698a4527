"""Evaluate and decide by utility in scikit-learn, on its bundled breast-cancer data.

Three steps, each one line of mcrank (docs/decisions.md):

1. rank three classifiers by utility yield, eq. (9), with ``utility_score``;
2. tune one with ``make_utility_scorer`` inside ``GridSearchCV``;
3. decide each patient by maximal expected utility, eq. (20), with ``UtilityClassifier``, also
   with a third decision that is no class, "order another test", and compare with ``predict``.

Needs scikit-learn (``pip install scikit-learn``); the data ship with it, nothing is downloaded.
Run: ``python examples/sklearn_decisions.py`` (a few seconds).
"""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from mcrank.sklearn import UtilityClassifier, make_utility_scorer, utility_score

SEED = 0
MALIGNANT, BENIGN = 0, 1  # the classes of load_breast_cancer, in the utility's column order
LABELS = [MALIGNANT, BENIGN]

# Utility per patient, rows = decisions, columns = true class (malignant, benign): mcrank's layout.
# A missed cancer is the worst outcome (0); treating a benign tumour costs much (0.6);
# another test delays the treatment of a cancer a little and costs a little when benign.
UTILITY = np.array(
    [
        [0.90, 0.60],  # treat
        [0.00, 1.00],  # dismiss
    ]
)
UTILITY_WITH_TEST = np.vstack([UTILITY, [0.85, 0.90]])  # + order another test
DECISIONS = ["treat", "dismiss", "another test"]


def main():
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, stratify=y, random_state=SEED)
    print(f"breast-cancer data: {len(y_train)} patients to train, {len(y_test)} to test, {np.mean(y == MALIGNANT):.0%} malignant")

    print("\n1. Three classifiers ranked by utility yield (utility per patient, eq. 9)")
    classifiers = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression()),
        "random forest": RandomForestClassifier(n_estimators=200, random_state=SEED),
        "naive Bayes": GaussianNB(),
    }
    rows = []
    for name, classifier in classifiers.items():
        predicted = classifier.fit(X_train, y_train).predict(X_test)
        rows.append((utility_score(y_test, predicted, utility=UTILITY, labels=LABELS), accuracy_score(y_test, predicted), name))
    print(f"   {'classifier':<22}{'utility':>9}{'accuracy':>10}")
    for value, accuracy, name in sorted(rows, reverse=True):
        print(f"   {name:<22}{value:>9.4f}{accuracy:>10.4f}")

    print("\n2. Logistic regression tuned by utility yield (GridSearchCV, 5 folds)")
    search = GridSearchCV(
        make_pipeline(StandardScaler(), LogisticRegression()),
        {"logisticregression__C": [0.001, 0.01, 0.1, 1.0, 10.0, 100.0]},
        scoring=make_utility_scorer(UTILITY, labels=LABELS),
        cv=StratifiedKFold(5, shuffle=True, random_state=SEED),
    ).fit(X_train, y_train)
    for C, value in zip(search.cv_results_["param_logisticregression__C"], search.cv_results_["mean_test_score"]):
        print(f"   C = {C:<8g} cross-validated utility {value:.4f}")
    best_C = search.best_params_["logisticregression__C"]
    print(f"   best C = {best_C:g}; on the test set: utility {search.score(X_test, y_test):.4f}")

    print("\n3. Decisions of maximal expected utility (eq. 20) against plain predict")
    model = make_pipeline(StandardScaler(), LogisticRegression(C=best_C))
    plain = model.fit(X_train, y_train).predict(X_test)
    two = UtilityClassifier(model, UTILITY, labels=LABELS, decisions=DECISIONS[:2]).fit(X_train, y_train)
    three = UtilityClassifier(model, UTILITY_WITH_TEST, labels=LABELS, decisions=DECISIONS).fit(X_train, y_train)
    plain_decisions = np.array(DECISIONS[:2])[plain]  # predicting malignant means treating
    print(f"   {'decided by':<36}{'utility':>9}   {'treat':>6}{'dismiss':>8}{'another test':>13}")
    for name, chosen, value in [
        ("predict (most probable class)", plain_decisions, utility_score(y_test, plain, utility=UTILITY, labels=LABELS)),
        ("UtilityClassifier: treat, dismiss", two.predict(X_test), two.score(X_test, y_test)),
        ("UtilityClassifier: + another test", three.predict(X_test), three.score(X_test, y_test)),
    ]:
        counts = [np.sum(chosen == decision) for decision in DECISIONS]
        print(f"   {name:<36}{value:>9.4f}   {counts[0]:>6}{counts[1]:>8}{counts[2]:>13}")
    missed = [
        np.sum((chosen == "dismiss") & (y_test == MALIGNANT)) for chosen in (plain_decisions, two.predict(X_test), three.predict(X_test))
    ]
    print(f"   malignant tumours dismissed: {missed[0]} by predict, {missed[1]} and {missed[2]} by UtilityClassifier")


if __name__ == "__main__":
    main()
