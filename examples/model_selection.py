"""Model selection by utility on scikit-learn's breast-cancer and wine data, with their uncertainties.

Six scikit-learn models predict whether a tumour is malignant, under the utility matrix of
``examples/breast_cancer_curves.py`` (a missed cancer costs as much as 9 needless biopsies).
Repeated stratified 5-fold cross-validation (5 x 2: ten folds) fits every model on each
training part and

- **the threshold choice, per fold:** wraps each model in scikit-learn's
  ``TunedThresholdClassifierCV`` scored by mcrank's utility scorer, so that each fold's
  threshold is chosen on its training part only (by an inner stratified 3-fold cross-validation), never
  on the fold it is tested on. (mcrank's ``UtilityClassifier`` would decide at the
  probability 0.1 that the matrix implies, with no choice at all, which is right only for
  calibrated probabilities; the SVM's score is not a probability, and naive Bayes' are far
  from calibrated.)
- **the folds:** the tuned models' per-fold utility yields go to
  ``mcrank.evaluate.compare_folds`` (the Bayesian correlated t-test, rho = 1/5): P(best) and,
  per pair, P(first better), with the models it cannot separate named.
- **the test items:** the first repeat's out-of-fold scores (each tumour scored once, by a
  model that never saw it) go to ``rank_scoring(..., threshold_choice="crossfit",
  test_uncertainty=True)``: the posterior of the population yield of the thresholds chosen
  on them, by the Bayesian bootstrap over the tumours.

Beside them AUC (on those pooled scores) and accuracy (the untuned models' ``predict``,
mean over the folds), and the pairs each orders otherwise than the folds' utility. It runs
at two seeds of the cross-validation's shuffling and prints them side by side.

Then the wine data (178 wines, three cultivars), by the labels route: the six models of
``examples/wine_models.py`` decide by their ``predict``, the cooperative's 3 x 3 utility per
lot (``examples/wine_utility.json``) gives each fold's yield (``compare_folds`` across the
folds) and the first repeat's pooled labels their ranking with the wines' uncertainty
(``evaluate_predictions(..., test_uncertainty=True)``), beside AUC (one class against the
rest) and accuracy, at the same two seeds.

Usage::

    python examples/model_selection.py

The printed output is in ``docs/evaluate-folds.md`` ("A worked example: model selection on the
breast-cancer and wine data"); a test checks it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.base import clone

#: Rows = decision (biopsy, no biopsy), columns = true class (malignant, benign): as in
#: ``examples/breast_cancer_curves.py``.
UTILITY = np.array([[0.0, -1.0], [-9.0, 0.0]])
CLASSES = ("malignant", "benign")
#: The seeds of the cross-validation's shuffling, printed side by side.
SEEDS = (0, 1)
SPLITS, REPEATS = 5, 2
#: Posterior draws of the scoring posterior and of the folds' P(best).
SAMPLES = 2000


def models(fast: bool = False) -> dict:
    """The six candidates (``fast``: smaller ensembles, for the tests' quick form)."""
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    trees = 10 if fast else 50
    return {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "forest": RandomForestClassifier(n_estimators=trees, random_state=0),
        "boosting": GradientBoostingClassifier(n_estimators=trees, random_state=0),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier(15)),
        "svm": make_pipeline(StandardScaler(), SVC()),
        "naive_bayes": GaussianNB(),
    }


def malignant_score(model, X) -> np.ndarray:
    """A score that is higher for malignant: P(malignant), or the SVM's decision function."""
    classes = list(model.classes_)
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, classes.index("malignant")]
    return model.decision_function(X) * (1 if classes[1] == "malignant" else -1)


def cross_validate(seed: int, fast: bool = False) -> dict:
    """Every model on every fold of 5 x 2 repeated stratified k-fold shuffled by ``seed``."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, TunedThresholdClassifierCV

    from mcrank.sklearn import make_utility_scorer

    data = load_breast_cancer()
    X, y = data.data, data.target_names[data.target]  # target 0 = malignant, 1 = benign
    scorer = make_utility_scorer(UTILITY, labels=list(CLASSES))
    candidates = models(fast)
    splitter = RepeatedStratifiedKFold(n_splits=SPLITS, n_repeats=REPEATS, random_state=seed)
    truth, fold = [], []
    decided = {name: [] for name in candidates}  # the tuned models' decisions, fold after fold
    default = {name: [] for name in candidates}  # the untuned models' predict, for accuracy
    pooled = {name: np.empty(y.size) for name in candidates}  # the first repeat's out-of-fold scores
    for f, (train, test) in enumerate(splitter.split(X, y)):
        truth.append(y[test])
        fold.append(np.full(test.size, f))
        for name, model in candidates.items():
            inner = StratifiedKFold(3, shuffle=True, random_state=seed)  # the threshold is for classes_[1], "malignant"
            tuned = TunedThresholdClassifierCV(model, scoring=scorer, cv=inner, thresholds=50)
            tuned.fit(X[train], y[train])
            decided[name].append(tuned.predict(X[test]))
            default[name].append(tuned.estimator_.predict(X[test]))
            if f < SPLITS:
                pooled[name][test] = malignant_score(tuned.estimator_, X[test])
    joined = {name: np.concatenate(d) for name, d in decided.items()}
    return {"y": y, "truth": np.concatenate(truth), "fold": np.concatenate(fold), "decided": joined,
            "default": {name: np.concatenate(d) for name, d in default.items()}, "pooled": pooled}  # fmt: skip


def analyse(runs: dict, seed: int) -> dict:
    """The three uncertainties and the two metrics for one seed's cross-validation."""
    from mcrank.evaluate import compare_folds, fold_yields, rank_scoring, scored_test_set

    yields = fold_yields(runs["truth"], runs["decided"], runs["fold"], utility={"utility": UTILITY.tolist(), "classes": list(CLASSES)})
    folds = compare_folds(yields, repeats=REPEATS, samples=100_000, rng=seed)
    test_set = scored_test_set(runs["y"], runs["pooled"], positive="malignant", classes=CLASSES)
    scoring = rank_scoring(test_set, UTILITY, threshold_choice="crossfit", test_uncertainty=True, samples=SAMPLES, rng=seed)
    n_folds = SPLITS * REPEATS
    accuracy = {name: float(np.mean([np.mean(d[runs["fold"] == f] == runs["truth"][runs["fold"] == f]) for f in range(n_folds)]))
                for name, d in runs["default"].items()}  # fmt: skip
    return {"folds": folds, "scoring": scoring, "accuracy": accuracy}


def _order(values: dict) -> list:
    return sorted(values, key=lambda name: -values[name])


def _otherwise(utility_order: list, values: dict) -> list[str]:
    """The pairs (better, worse) by the folds' utility that ``values`` orders the other way."""
    return [f"{a}>{b}" for i, a in enumerate(utility_order) for b in utility_order[i + 1 :] if values[a] < values[b]]


def report(results: dict) -> str:
    """Both seeds side by side."""
    from mcrank.evaluate.folds import SEPARATED

    seeds = list(results)
    names = [m.name for m in results[seeds[0]]["folds"].models]
    lines = ["569 tumours (212 malignant, 357 benign); utility [[0, -1], [-9, 0]] (rows: biopsy, none;",
             "columns: malignant, benign); stratified 5-fold cross-validation repeated 2 times, at two seeds",
             "of its shuffling; each fold's threshold tuned on its training part only", "",
             "Utility per tumour: mean over the 10 folds; first repeat's pooled out-of-fold scores",
             "(crossfit) with its 95% interval given the tumours (its thresholds' population yield)",
             f"{'':<12} {'across folds':^17} {'pooled, crossfit':^49}",
             f"{'model':<12}" + "".join(f" {'seed ' + str(s):>8}" for s in seeds)
             + "".join(f" {'seed ' + str(s):^24}" for s in seeds)]  # fmt: skip
    models = {s: ({m.name: m for m in results[s]["folds"].models}, {m.name: m for m in results[s]["scoring"].models}) for s in seeds}
    for name in names:
        row = f"{name:<12}" + "".join(f" {models[s][0][name].mean_yield:>+8.3f}" for s in seeds)
        for s in seeds:
            low, high = results[s]["scoring"].posterior.intervals[name]
            row += f" {models[s][1][name].utility_yield:+.3f} [{low:+.3f}, {high:+.3f}]"
        lines.append(row)
    lines += ["", "Rank and P(best), seed " + " | seed ".join(map(str, seeds)) + "; AUC and accuracy (untuned models' predict, mean",
              "over the folds): rank",
              f"{'model':<12} {'across folds':^23} {'pooled, crossfit':^23} {'AUC':^7} {'accuracy':^8}"]  # fmt: skip
    for name in names:
        row = f"{name:<12}"
        row += " " + " | ".join(f"{models[s][0][name].rank} {models[s][0][name].probability_best:.2f}" for s in seeds).center(23)
        row += " " + " | ".join(f"{models[s][1][name].rank} {results[s]['scoring'].posterior.probability_best[name][0]:.2f}"
                                for s in seeds).center(23)  # fmt: skip
        row += " " + " | ".join(str(models[s][1][name].auc_rank) for s in seeds).center(7)
        row += " " + " | ".join(str(1 + _order(results[s]["accuracy"]).index(name)) for s in seeds).center(8)
        lines.append(row)
    for s in seeds:
        folds, scoring, accuracy = results[s]["folds"], results[s]["scoring"], results[s]["accuracy"]
        chosen = folds.chosen.name
        order = [m.name for m in folds.models]
        pairs = [p for p in folds.pairs if p.first == chosen]
        unseparated = [f"{p.second} ({p.probability_first_better:.2f})" for p in pairs if p.verdict(folds.rope) == "not separated"]
        separated = [p.second for p in pairs if p.verdict(folds.rope) != "not separated"]
        top = scoring.models[0].name
        unsure = [f"{b} ({p:.2f})" for (a, b), (p, _) in scoring.posterior.probability_above.items() if a == top and p < SEPARATED]
        lines += ["", f"Seed {s}:",
                  f"  folds: choose {chosen}, P(best) {folds.chosen.probability_best:.2f}; not separated from it, P({chosen} better):",
                  f"    {', '.join(unseparated) or 'none'}",
                  f"  folds: {chosen} better with P >= {SEPARATED:g} than: {', '.join(separated) or 'none'}",
                  f"  items: first {top}, P(best) {scoring.posterior.probability_best[top][0]:.2f}; P({top} above) below {SEPARATED:g}:",
                  f"    {', '.join(unsure) or 'none'}",
                  f"  pairs a>b across folds that AUC orders b>a: {', '.join(_otherwise(order, {m.name: m.auc for m in scoring.models})) or 'none'}",
                  f"  pairs a>b across folds that accuracy orders b>a: {', '.join(_otherwise(order, accuracy)) or 'none'}"]  # fmt: skip
    lines += ["", *stability(results[seeds[0]]["folds"], results[seeds[1]]["folds"], seeds)]
    return "".join(line.rstrip() + "\n" for line in lines)


def stability(base, other, seeds) -> list[str]:
    """Where the first seed's folds were sure of a pair, does the second keep its order? And
    where they were not, how many pairs swap?"""
    from mcrank.evaluate.folds import SEPARATED

    sure = [p for p in base.pairs if p.verdict(base.rope) != "not separated"]
    unsure = [p for p in base.pairs if p.verdict(base.rope) == "not separated"]
    kept = sum(other.pair(p.first, p.second).first == p.first for p in sure)
    swapped = [f"{p.first}/{p.second}" for p in unsure if other.pair(p.first, p.second).first != p.first]
    return [f"Seed {seeds[0]} -> {seeds[1]}, across folds: of the {len(sure)} pairs seed {seeds[0]} separates (P >= {SEPARATED:g}), "
            f"{kept} keep", f"their order; of the {len(unsure)} it does not, {len(swapped)} swap: {', '.join(swapped) or 'none'}"]  # fmt: skip


# --- the wine data: three classes, the labels route ------------------------------------------

#: A cooperative's net gain per lot sold under a cultivar's name (``examples/wine_utility.json``):
#: rows = decision, columns = true class, both in the order of ``WINE_CLASSES``.
WINE_UTILITY_FILE = Path(__file__).resolve().parent / "wine_utility.json"
WINE_CLASSES = ("class_0", "class_1", "class_2")


def wine_utility() -> dict:
    return json.loads(WINE_UTILITY_FILE.read_text())


def wine_models(fast: bool = False) -> dict:
    """The six candidates of ``examples/wine_models.py`` (``fast``: a smaller forest)."""
    spec = importlib.util.spec_from_file_location("wine_models", Path(__file__).resolve().parent / "wine_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.models(trees=20 if fast else 200)


def class_probabilities(model, X) -> np.ndarray:
    """``predict_proba``, or for the SVM the softmax of its one-against-the-rest decision
    function: scores of each class that sum to 1, for AUC."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)
    decision = model.decision_function(X)
    exponential = np.exp(decision - decision.max(axis=1, keepdims=True))
    return exponential / exponential.sum(axis=1, keepdims=True)


def wine_cross_validate(seed: int, fast: bool = False) -> dict:
    """Every wine model on every fold of 5 x 2 repeated stratified k-fold shuffled by ``seed``:
    each fold's labels (``predict``), and the first repeat's pooled labels and probabilities."""
    from sklearn.datasets import load_wine
    from sklearn.model_selection import RepeatedStratifiedKFold

    data = load_wine()
    X, y = data.data, np.array([str(name) for name in data.target_names])[data.target]
    candidates = wine_models(fast)
    splitter = RepeatedStratifiedKFold(n_splits=SPLITS, n_repeats=REPEATS, random_state=seed)
    truth, fold = [], []
    decided = {name: [] for name in candidates}
    pooled = {name: np.empty(y.size, dtype=object) for name in candidates}
    probabilities = {name: np.empty((y.size, len(WINE_CLASSES))) for name in candidates}
    for f, (train, test) in enumerate(splitter.split(X, y)):
        truth.append(y[test])
        fold.append(np.full(test.size, f))
        for name, model in candidates.items():
            fitted = clone(model).fit(X[train], y[train])
            decided[name].append(fitted.predict(X[test]))
            if f < SPLITS:
                pooled[name][test] = decided[name][-1]
                columns = [list(fitted.classes_).index(c) for c in WINE_CLASSES]
                probabilities[name][test] = class_probabilities(fitted, X[test])[:, columns]
    return {"y": y, "truth": np.concatenate(truth), "fold": np.concatenate(fold),
            "decided": {name: np.concatenate(d) for name, d in decided.items()},
            "pooled": {name: p.astype(str) for name, p in pooled.items()}, "probabilities": probabilities}  # fmt: skip


def wine_analyse(runs: dict, seed: int) -> dict:
    """The folds' and the wines' uncertainties, AUC and accuracy, for one seed."""
    from sklearn.metrics import roc_auc_score

    from mcrank.evaluate import compare_folds, evaluate_predictions, fold_yields

    utility = wine_utility()
    yields = fold_yields(runs["truth"], runs["decided"], runs["fold"], utility=utility)
    folds = compare_folds(yields, repeats=REPEATS, samples=100_000, rng=seed)
    items = evaluate_predictions(runs["y"], runs["pooled"], utility, test_uncertainty=True, samples=SAMPLES, rng=seed)
    n_folds = SPLITS * REPEATS
    accuracy = {name: float(np.mean([np.mean(d[runs["fold"] == f] == runs["truth"][runs["fold"] == f]) for f in range(n_folds)]))
                for name, d in runs["decided"].items()}  # fmt: skip
    auc = {name: float(roc_auc_score(runs["y"], p, multi_class="ovr", labels=list(WINE_CLASSES)))
           for name, p in runs["probabilities"].items()}  # fmt: skip
    return {"folds": folds, "items": items, "accuracy": accuracy, "auc": auc}


def wine_report(results: dict) -> str:
    """Both seeds of the wine data side by side."""
    from mcrank.evaluate.folds import SEPARATED

    seeds = list(results)
    names = [m.name for m in results[seeds[0]]["folds"].models]
    lines = ["178 wines (59 class_0, 71 class_1, 48 class_2); utility per lot of examples/wine_utility.json",
             "(rows: sold as, columns: true cultivar); each model decides by its predict; stratified 5-fold",
             "cross-validation repeated 2 times, at two seeds of its shuffling", "",
             "Utility per wine: mean over the 10 folds; first repeat's pooled out-of-fold labels with",
             "its 95% interval given the wines",
             f"{'':<12} {'across folds':^17} {'pooled':^49}",
             f"{'model':<12}" + "".join(f" {'seed ' + str(s):>8}" for s in seeds)
             + "".join(f" {'seed ' + str(s):^24}" for s in seeds)]  # fmt: skip
    folds = {s: {m.name: m for m in results[s]["folds"].models} for s in seeds}
    items = {s: {c.name: c for c in results[s]["items"].classifiers} for s in seeds}
    for name in names:
        row = f"{name:<12}" + "".join(f" {folds[s][name].mean_yield:>+8.3f}" for s in seeds)
        for s in seeds:
            low, high = items[s][name].utility_yield_interval
            row += f" {items[s][name].utility_yield:+.3f} [{low:+.3f}, {high:+.3f}]"
        lines.append(row)
    lines += ["", "Rank, seed " + " | seed ".join(map(str, seeds)) + "; P(best) across folds; AUC (one against the rest, on the",
              "pooled probabilities; the SVM's: the softmax of its decision function) and accuracy (mean",
              "over the folds): rank",
              f"{'model':<12} {'across folds':^23} {'pooled':^9} {'AUC':^7} {'accuracy':^8}"]  # fmt: skip
    for name in names:
        row = f"{name:<12}"
        row += " " + " | ".join(f"{folds[s][name].rank} {folds[s][name].probability_best:.2f}" for s in seeds).center(23)
        row += " " + " | ".join(str(items[s][name].rank) for s in seeds).center(9)
        row += " " + " | ".join(str(1 + _order(results[s]["auc"]).index(name)) for s in seeds).center(7)
        row += " " + " | ".join(str(1 + _order(results[s]["accuracy"]).index(name)) for s in seeds).center(8)
        lines.append(row)
    for s in seeds:
        comparison, evaluation = results[s]["folds"], results[s]["items"]
        chosen = comparison.chosen.name
        order = [m.name for m in comparison.models]
        pairs = [p for p in comparison.pairs if p.first == chosen]
        unseparated = [f"{p.second} ({p.probability_first_better:.2f})" for p in pairs if p.verdict(comparison.rope) == "not separated"]
        separated = [p.second for p in pairs if p.verdict(comparison.rope) != "not separated"]
        top = evaluation.classifiers[0].name
        unsure = [f"{p.worse} ({1 - p.flip_probability_test:.2f})" for p in evaluation.pairs
                  if p.better == top and p.flip_probability_test is not None and 1 - p.flip_probability_test < SEPARATED]  # fmt: skip
        lines += ["", f"Seed {s}:",
                  f"  folds: choose {chosen}, P(best) {comparison.chosen.probability_best:.2f}; not separated from it, P({chosen} better):",
                  f"    {', '.join(unseparated) or 'none'}",
                  f"  folds: {chosen} better with P >= {SEPARATED:g} than: {', '.join(separated) or 'none'}",
                  f"  wines: first {top}; P({top} above) below {SEPARATED:g}:", f"    {', '.join(unsure) or 'none'}",
                  "  pairs a>b across folds that AUC orders b>a:", f"    {', '.join(_otherwise(order, results[s]['auc'])) or 'none'}",
                  "  pairs a>b across folds that accuracy orders b>a:",
                  f"    {', '.join(_otherwise(order, results[s]['accuracy'])) or 'none'}"]  # fmt: skip
    lines += ["", *stability(results[seeds[0]]["folds"], results[seeds[1]]["folds"], seeds)]
    return "".join(line.rstrip() + "\n" for line in lines)


def main(argv=None, fast: bool = False) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python examples/model_selection.py", file=sys.stderr)
        return 2
    results = {seed: analyse(cross_validate(seed, fast), seed) for seed in SEEDS}
    sys.stdout.write(report(results))
    wine = {seed: wine_analyse(wine_cross_validate(seed, fast), seed) for seed in SEEDS}
    sys.stdout.write("\n" + wine_report(wine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
