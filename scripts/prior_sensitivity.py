"""How much the test-set posterior of ``mcrank evaluate --test-uncertainty`` leans on its prior.

On the wine example (``examples/wine_labels.csv``, 178 cross-validated predictions of six
scikit-learn models, three classes; ``examples/wine_models.py`` wrote it), at the test set's
own class frequencies: for total prior counts from 0.01 to 27, the forest's 95 % interval,
the probability that logistic regression's order over the forest and over the SVM is wrong,
and how many of the six observed yields lie inside their own interval. A total of 9 on three
classes is 1 on each cell of a classifier's own table, and 27 is 1 on each cell of a pair's
joint table: the two halves of the rule before issue 24. Run from the repository's root::

    python scripts/prior_sensitivity.py
"""

from pathlib import Path

from mcrank.evaluate import evaluate_file

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    print(
        "| prior total | a pair's cell | forest: yield, 95 % interval | P(flip) logistic over forest | P(flip) logistic over svm | yields inside |"
    )
    print("|---:|---:|---|---:|---:|---:|")
    for total in (0.01, 0.1, 1.0, 3.0, 9.0, 27.0):
        result = evaluate_file(ROOT / "examples" / "wine_labels.csv", labels=True, utility=ROOT / "examples" / "wine_utility.json",
                               test_uncertainty=True, prior_count=total, samples=20_000, rng=1)  # fmt: skip
        forest = next(c for c in result.classifiers if c.name == "forest")
        low, high = forest.utility_yield_interval
        flips = {(p.better, p.worse): p.flip_probability_test for p in result.pairs}
        inside = sum(c.utility_yield_interval[0] <= c.utility_yield <= c.utility_yield_interval[1] for c in result.classifiers)
        print(
            f"| {total:g} | {total / 27:.2g} | {forest.utility_yield:+.3f} [{low:+.3f}, {high:+.3f}] | "
            f"{flips['logistic', 'forest']:.3f} | {flips['logistic', 'svm']:.3f} | {inside} of {len(result.classifiers)} |"
        )


if __name__ == "__main__":
    main()
