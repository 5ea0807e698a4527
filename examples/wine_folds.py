"""Choose among six scikit-learn models on the wine data across cross-validation folds.

The six models and the utility of ``examples/wine_models.py`` (a cooperative's net gain per
lot), tested by stratified 5-fold cross-validation repeated 4 times: 20 folds, each wine
predicted once per repeat by a model that did not see it. This script writes the predictions
to ``examples/wine_folds.csv``, one row per wine and repeat: the fold (the split's number,
0-19, as ``enumerate(splitter.split(X, y))`` numbers them), the true class and each model's
output. Then it compares the models by their utility yield per fold, with the Bayesian
correlated t-test and a region of practical equivalence of 0.1 per lot:

    mcrank evaluate --labels examples/wine_folds.csv --utility examples/wine_utility.json \\
        --folds-column fold --repeats 4 --rope 0.1 --seed 1

Its output is in docs/evaluate-folds.md, "Comparing models across cross-validation folds". Run from
the repository's root (half a minute)::

    python examples/wine_folds.py
"""

import csv
import sys
from pathlib import Path

from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.model_selection import RepeatedStratifiedKFold

EXAMPLES = Path(__file__).resolve().parent
sys.path.insert(0, str(EXAMPLES))  # the six models have one home: wine_models.py
from wine_models import SEED, models  # noqa: E402

LABELS = EXAMPLES / "wine_folds.csv"
#: The command whose output docs/evaluate-folds.md shows.
COMMAND = ["evaluate", "--labels", "examples/wine_folds.csv", "--utility", "examples/wine_utility.json", "--folds-column", "fold",
           "--repeats", "4", "--rope", "0.1", "--seed", "1"]  # fmt: skip


def cross_validated_folds() -> list[list[str]]:
    """The rows of the labels file: a header, then per test item of each fold its fold, its
    true class and each model's output."""
    data = load_wine()
    names = [str(name) for name in data.target_names]
    splitter = RepeatedStratifiedKFold(n_splits=5, n_repeats=4, random_state=SEED)
    estimators = models()
    rows = [["fold", "true", *estimators]]
    for fold, (train, test) in enumerate(splitter.split(data.data, data.target)):
        outputs = [clone(model).fit(data.data[train], data.target[train]).predict(data.data[test]) for model in estimators.values()]
        for position, item in enumerate(test):
            rows.append([str(fold), names[data.target[item]], *(names[output[position]] for output in outputs)])
    return rows


def main() -> int:
    with open(LABELS, "w", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows(cross_validated_folds())
    print(f"wrote {LABELS.relative_to(EXAMPLES.parent)}; mcrank {' '.join(COMMAND)}\n")
    from mcrank.cli import main as mcrank

    return mcrank(COMMAND)


if __name__ == "__main__":
    sys.exit(main())
