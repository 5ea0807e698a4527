"""Expected-utility decisions are only as good as the probabilities: the digits data.

A utility that discourages one decision: reading a digit right is worth 1, reading it wrong 0,
but reading an "8" that is not an 8 costs 3 (say it triggers a costly action). For each
probability model, 5-fold cross-validation compares, on the same held-out probabilities,

- the most probable class (argmax of ``predict_proba``, eq. 21), with
- ``UtilityClassifier``'s decision of maximal expected utility (eq. 20),

for a logistic regression and a Gaussian naive Bayes, each uncalibrated and calibrated by
``UtilityClassifier(..., calibration=...)`` (scikit-learn's ``CalibratedClassifierCV``). The gain
is the mean per-image difference of utility, with its standard error over the images.

Needs scikit-learn (``pip install scikit-learn``); the data ship with it, nothing is downloaded.
Run: ``python examples/calibrated_decisions.py`` (a few seconds). docs/decisions.md shows and
discusses its output.
"""

import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from mcrank.sklearn import CALIBRATION_METHODS, UtilityClassifier

SEED = 0
FOLDS = 5
DISCOURAGED = 8  # the digit whose false reading costs
FALSE_READING_COST = 3.0
SKLEARN_VERSION = tuple(int(part) for part in sklearn.__version__.split(".")[:2])


def digits_utility() -> np.ndarray:
    """Rows = decisions (the digit read), columns = true digits: mcrank's layout."""
    utility = np.eye(10)
    utility[DISCOURAGED, np.arange(10) != DISCOURAGED] = -FALSE_READING_COST
    return utility


def compare(estimator, calibration, X, y, utility, *, folds=FOLDS, seed=SEED) -> dict:
    """Cross-validated utility of argmax and of UtilityClassifier on the same probabilities.

    Returns
    -------
    dict
        ``log_loss`` of the held-out probabilities; ``argmax`` and ``decided``, the mean utility
        per item (eq. 9) of each way of deciding; ``gain`` (decided - argmax) and its standard
        error ``gain_se`` over the items; ``false_argmax`` and ``false_decided``, the items read
        as the discouraged digit that are not.
    """
    probabilities = np.empty((len(y), 10))
    by_argmax = np.empty(len(y), dtype=int)
    decided = np.empty(len(y), dtype=int)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(X, y):
        model = UtilityClassifier(estimator, utility, calibration=calibration).fit(X[train], y[train])
        probabilities[test] = model.predict_proba(X[test])
        by_argmax[test] = model.classes_[np.argmax(probabilities[test], axis=1)]
        decided[test] = model.predict(X[test])
    gained = utility[decided, y] - utility[by_argmax, y]
    return {
        "log_loss": log_loss(y, probabilities),
        "argmax": utility[by_argmax, y].mean(),
        "decided": utility[decided, y].mean(),
        "gain": gained.mean(),
        "gain_se": gained.std(ddof=1) / np.sqrt(len(y)),
        "false_argmax": int(np.sum((by_argmax == DISCOURAGED) & (y != DISCOURAGED))),
        "false_decided": int(np.sum((decided == DISCOURAGED) & (y != DISCOURAGED))),
    }


def main():
    X, y = load_digits(return_X_y=True)
    utility = digits_utility()
    print(f"digits data: {len(y)} images of 10 digits; {FOLDS}-fold cross-validation (stratified, shuffled, seed {SEED})")
    print(f'utility: 1 for the right digit, 0 for a wrong one, -{FALSE_READING_COST:g} for an "{DISCOURAGED}" that is not one')
    print()
    false_readings = f'false "{DISCOURAGED}"s'
    print(f"{'':28}{'log':>8}   {'utility per image, eq. (9)':^34}   {false_readings:^16}".rstrip())
    print(f"{'probabilities':<28}{'loss':>8}   {'argmax':>7}{'decided':>9}{'gain':>9}{'SE':>9}   {'argmax':>7}{'decided':>9}")
    estimators = {
        "logistic regression": make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
        "naive Bayes": GaussianNB(),
    }
    for name, estimator in estimators.items():
        for calibration in [None, *CALIBRATION_METHODS]:
            label = name if calibration is None else f"  + {calibration} calibration"
            if calibration is not None and SKLEARN_VERSION < CALIBRATION_METHODS[calibration]:
                print(f"{label:<28}   (needs scikit-learn >= {'.'.join(map(str, CALIBRATION_METHODS[calibration]))})")
                continue
            r = compare(estimator, calibration, X, y, utility)
            print(
                f"{label:<28}{r['log_loss']:>8.4f}   {r['argmax']:>7.4f}{r['decided']:>9.4f}"
                f"{r['gain']:>+9.4f}{r['gain_se']:>9.4f}   {r['false_argmax']:>7}{r['false_decided']:>9}"
            )


if __name__ == "__main__":
    # One BLAS thread: on data this small, threads cost more than they bring, and many times
    # more where the cores are shared.
    with threadpool_limits(limits=1):
        main()
