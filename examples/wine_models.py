"""Rank six scikit-learn models on its bundled wine data by utility yield, as deployed.

The wine data (178 wines of three cultivars, 13 chemical measurements) ship with
scikit-learn: nothing is downloaded. Six model families are tested by 5-fold cross-validation
(``cross_val_predict``): every wine is predicted once, by a model that did not see it, so the
178 predictions are one test set, item by item. This script writes them to
``examples/wine_labels.csv`` (a column ``true`` and one per model), then ranks the models with

    mcrank evaluate --labels examples/wine_labels.csv --utility examples/wine_utility.json \\
        --test-uncertainty --class-frequencies 0.1,0.6,0.3 --seed 1

The utility (``examples/wine_utility.json``) is a cooperative's net gain per lot sold under a
cultivar's name: a premium lot (class_0) sold as such earns 10, sold as another cultivar 4; a
lot of class_1 or class_2 sold under its own name earns 4, under the other's 0, and sold as
premium -20 (the buyer's laboratory finds out). The cooperative's harvest is 10 % class_0,
60 % class_1 and 30 % class_2, not the data's 33/40/27 %: ``--class-frequencies`` ranks for
the harvest. Its output is in docs/evaluate-uncertainty.md. Run from the repository's root (a few
seconds)::

    python examples/wine_models.py
"""

import csv
import sys
from pathlib import Path

from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

EXAMPLES = Path(__file__).resolve().parent
LABELS = EXAMPLES / "wine_labels.csv"
SEED = 0
#: The command whose output docs/evaluate-uncertainty.md shows.
COMMAND = ["evaluate", "--labels", "examples/wine_labels.csv", "--utility", "examples/wine_utility.json",
           "--test-uncertainty", "--class-frequencies", "0.1,0.6,0.3", "--seed", "1", "--details"]  # fmt: skip


def models(trees: int = 200) -> dict:
    """Six model families, each with the scaling it needs; every random one seeded (``trees``:
    the forest's size)."""
    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
        "forest": RandomForestClassifier(n_estimators=trees, random_state=SEED),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(n_neighbors=15)),
        "naive_bayes": GaussianNB(),
        "svm": make_pipeline(StandardScaler(), SVC(random_state=SEED)),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=SEED),
    }


def cross_validated_labels() -> list[list[str]]:
    """The rows of the labels file: a header, then per wine its true class and each model's output."""
    data = load_wine()
    names = [str(name) for name in data.target_names]
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=SEED)
    predicted = {name: cross_val_predict(model, data.data, data.target, cv=folds) for name, model in models().items()}
    rows = [["true", *predicted]]
    for item, truth in enumerate(data.target):
        rows.append([names[truth], *(names[p[item]] for p in predicted.values())])
    return rows


def main() -> int:
    with open(LABELS, "w", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows(cross_validated_labels())
    print(f"wrote {LABELS.relative_to(EXAMPLES.parent)}; mcrank {' '.join(COMMAND)}\n")
    from mcrank.cli import main as mcrank

    return mcrank(COMMAND)


if __name__ == "__main__":
    sys.exit(main())
