"""Decision curves and best-threshold ranking on scikit-learn's breast-cancer data.

Three model families (logistic regression, a random forest, Gaussian naive Bayes) predict
the probability that a tumour is malignant, each item by a model that never saw it
(``cross_val_predict``, 5 stratified folds). mcrank then

- draws their decision curves (net benefit against the threshold probability, with the
  test set's 95 % posterior bands and, per pair, the probability that one model's net
  benefit exceeds the other's on the population), into the figure file given;
- ranks them by the utility at each one's best threshold, cross-fitted, under a utility
  matrix where missing a cancer costs as much as 9 needless biopsies, with how sure that is
  (95 % intervals, P(best), P(a above b) of the population yield of the thresholds chosen
  here: the Bayesian bootstrap over the tumours), and flags where AUC orders them otherwise.

Usage::

    python examples/breast_cancer_curves.py curves.png

The printed output is in ``docs/evaluate-scoring.md`` ("Decision curves"); a test checks it.
"""

from __future__ import annotations

import sys

import numpy as np

#: Rows = output (biopsy, no biopsy), columns = true class (malignant, benign): a biopsy of a
#: benign tumour costs 1, a missed cancer 9 (the threshold probability that balances them: 0.1).
UTILITY = np.array([[0.0, -1.0], [-9.0, 0.0]])
#: The thresholds printed (the figure has 1 %, ..., 99 %).
PRINTED = (0.05, 0.1, 0.2, 0.3, 0.5)
SEED = 2024


def predictions(n_estimators: int = 300) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The true labels ("malignant", "benign") and each model's cross-validated probability of malignant."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = load_breast_cancer()
    X, y = data.data, data.target  # target 0 = malignant, 1 = benign
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    models = {
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        "forest": RandomForestClassifier(n_estimators=n_estimators, random_state=0),
        "naive_bayes": GaussianNB(),
    }
    scores = {name: cross_val_predict(model, X, y, cv=folds, method="predict_proba")[:, 0] for name, model in models.items()}
    return data.target_names[y], scores


def report(y_true, scores, *, samples: int = 10_000) -> tuple[str, object]:
    """The printed report and the decision curves (with their posterior)."""
    from mcrank.evaluate import decision_curves, rank_scoring, scored_test_set

    test_set = scored_test_set(y_true, scores, positive="malignant", classes=("malignant", "benign"))  # UTILITY's order
    curves = decision_curves(test_set, test_uncertainty=True, samples=samples, rng=SEED)
    ranking = rank_scoring(test_set, UTILITY, threshold_choice="crossfit", test_uncertainty=True, rng=SEED)
    names, pairs = list(scores), list(curves.probability_better)
    lines = [f"{test_set.items} tumours, {int(test_set.positive.sum())} malignant (prevalence {curves.prevalence:.3f})", "",
             "Net benefit [95 % posterior band]; P(a > b): posterior probability that a's net benefit is higher"]  # fmt: skip
    lines.append(
        f"{'p_t':>5} {'treat all':>9}" + "".join(f" {n:>24}" for n in names) + "".join(f" {a[:3] + '>' + b[:3]:>8}" for a, b in pairs)
    )
    for t in PRINTED:
        k = int(np.argmin(np.abs(curves.thresholds - t)))
        row = f"{t:>5.2f} {curves.treat_all[k]:>+9.3f}"
        for name in names:
            low, high = curves.bands[name][k]
            row += f" {curves.net_benefit[name][k]:>+7.3f} [{low:+.3f}, {high:+.3f}]"
        row += "".join(f" {curves.probability_better[p][k]:>8.3f}" for p in pairs)
        lines.append(row)
    lines += ["", f"Utility {UTILITY.tolist()} (rows: biopsy, none; columns: malignant, benign)",
              f"ranked at each model's best threshold, {ranking.describe_choice()}:"]  # fmt: skip
    posterior = ranking.posterior
    for m in ranking.models:
        low, high = posterior.intervals[m.name]
        lines.append(f"  {m.rank}. {m.name:<12} yield {m.utility_yield:+.4f} [{low:+.4f}, {high:+.4f}]  P(best) "
                     f"{posterior.probability_best[m.name][0]:.3f} (whole test set, optimistic: {m.test_set_yield:+.4f}, "
                     f"threshold {m.threshold:.3f})  AUC {m.auc:.4f} ({m.auc_rank})")  # fmt: skip
    lines.append(f"P(a above b), {posterior.samples} draws: " + ", ".join(
        f"{a} over {b} {p:.3f} ± {se:.3f}" for (a, b), (p, se) in posterior.probability_above.items()))  # fmt: skip
    flagged = ", ".join(f"{a} over {b}" for a, b in ranking.auc_disagreements) or "none"
    lines.append(f"Pairs AUC orders the other way: {flagged}")
    return "\n".join(lines) + "\n", curves


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python examples/breast_cancer_curves.py OUT.png", file=sys.stderr)
        return 2
    from mcrank.figures._style import paper_style
    from mcrank.figures.decision_curves import decision_curve_figure

    text, curves = report(*predictions())
    figure = decision_curve_figure(curves, title="Breast cancer: P(malignant), cross-validated")
    with paper_style():
        figure.savefig(argv[0], dpi=200)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
