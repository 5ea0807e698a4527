"""Is the posterior of ``rank_scoring(..., test_uncertainty=True)`` calibrated? A table.

Populations with a known truth: two classes, prevalence 0.3 of the positive one, the utility
matrix U = [[0, -1], [-4, 0]] (rows = output, columns = true class, positive first), and three
scoring classifiers whose scores are binormal (negatives N(0, 1), positives N(mu, 1)) and
correlated (a shared normal term of variance 1/2, as models trained on the same data share
their mistakes); each population draws each model's mu uniformly from [0.8, 2.0], so that some
pairs are near a tie and some far apart. The population yield of any threshold is a closed
form. From each population one test set of N items; its posterior (``--samples`` draws); and

- the **coverage** of each model's 95 % interval: how often it holds the model's **expected
  yield under the choice rule**, the population yield of a threshold chosen by the rule on a
  fresh test set, averaged over test sets (crossfit: chosen on the items of four folds of N;
  split: on N/2; test: on N), a fixed number per population, computed from ``--fresh`` fresh
  test sets; and, for comparison, how often it holds the population yield of the thresholds
  this test set chose (``crossfit``: each fold's, weighted by the fold's items; ``split``: the
  first half's; ``test``: the whole test set's), a number that moves with the test set;
- the **calibration** of P(a above b) (``a`` ranked above ``b``): pairs binned by it, against
  the fraction whose expected yields are in that order.

Each fraction has its binomial SE. Run from the repository's root (about 20 minutes on a shared 2-core machine)::

    python scripts/scoring_calibration.py [--populations 300] [--samples 1000] [--fresh 100]
"""

import argparse
import math

import numpy as np
from scipy.stats import norm

from mcrank.evaluate import rank_scoring, scored_test_set
from mcrank.evaluate.scoring import DEFAULT_FOLDS as FOLDS
from mcrank.evaluate.scoring import _best_threshold

PREVALENCE, MODELS, SEED = 0.3, 3, 20261127
U = np.array([[0.0, -1.0], [-4.0, 0.0]])
MU_RANGE = (0.8, 2.0)
BINS = (0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0 + 1e-12)


def population_yield(threshold, mu: float) -> float:
    """The yield per item of ``score >= threshold`` for a model whose positives score N(mu, 1)."""
    treat_positive, treat_negative = norm.sf(threshold - mu), norm.sf(threshold)
    return (PREVALENCE * (U[0, 0] * treat_positive + U[1, 0] * (1 - treat_positive))
            + (1 - PREVALENCE) * (U[0, 1] * treat_negative + U[1, 1] * (1 - treat_negative)))  # fmt: skip


def draw(items: int, mus: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    positive = rng.random(items) < PREVALENCE
    shared = rng.normal(size=items) * math.sqrt(0.5)
    return positive, {f"m{k}": mu * positive + shared + rng.normal(size=items) * math.sqrt(0.5) for k, mu in enumerate(mus)}


def chosen_yield(model, mu: float) -> float:
    """The population yield of the thresholds the choice used (folds differ by at most 1 item)."""
    thresholds = model.fold_thresholds or (model.threshold,)
    return float(np.mean([population_yield(t, mu) for t in thresholds]))


def expected_yield(items: int, choice: str, mus: np.ndarray, fresh: int, rng: np.random.Generator) -> np.ndarray:
    """Each model's population yield at a threshold chosen by ``choice`` on fresh test sets, averaged."""
    chosen_on = {"crossfit": items - items // FOLDS, "split": items // 2, "test": items}[choice]
    total = np.zeros(mus.size)
    for _ in range(fresh):
        positive, scores = draw(chosen_on, mus, rng)
        for k, s in enumerate(scores.values()):
            total[k] += population_yield(_best_threshold(positive, s, U)[0], mus[k])
    return total / fresh


def one(items: int, choice: str, samples: int, fresh: int, rng: np.random.Generator):
    """One population and test set: per model (covered, covered chosen); per pair (p, in order)."""
    mus = rng.uniform(*MU_RANGE, size=MODELS)
    expected = dict(zip((f"m{k}" for k in range(MODELS)), expected_yield(items, choice, mus, fresh, rng)))
    positive, scores = draw(items, mus, rng)
    result = rank_scoring(scored_test_set(positive, scores, classes=(True, False)), U, threshold_choice=choice, test_uncertainty=True,
                          samples=samples, rng=int(rng.integers(2**32)))  # fmt: skip
    mu_of = {f"m{k}": mu for k, mu in enumerate(mus)}
    covered = []
    for m in result.models:
        low, high = result.posterior.intervals[m.name]
        chosen = chosen_yield(m, mu_of[m.name])
        covered.append((low <= expected[m.name] <= high, low <= chosen <= high))
    pairs = [(p, expected[a] > expected[b]) for (a, b), (p, _) in result.posterior.probability_above.items()]
    return covered, pairs


def fraction(values) -> str:
    v = np.asarray(values, dtype=float)
    return f"{100 * v.mean():.1f} ± {100 * math.sqrt(v.mean() * (1 - v.mean()) / v.size):.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--populations", type=int, default=300)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--items", type=int, nargs="+", default=[100, 500])
    parser.add_argument("--fresh", type=int, default=100)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    pairs_by = {}
    print("Coverage of the 95 % intervals, % (SE), over", args.populations, "populations of", MODELS, "models each")
    print("| N | threshold choice | intervals | expected yield under the choice rule | yield of this test set's thresholds |")
    print("|---:|---|---:|---:|---:|")
    for items in args.items:
        for choice in ("crossfit", "split", "test"):
            covered, pairs = [], []
            for _ in range(args.populations):
                c, p = one(items, choice, args.samples, args.fresh, rng)
                covered += c
                pairs += p
            pairs_by[(items, choice)] = pairs
            own, deployed = zip(*covered)
            print(f"| {items} | {choice} | {len(own)} | {fraction(own)} | {fraction(deployed)} |")
    print()
    print("P(a above b) in bins against the fraction of pairs in that order on the population, % (SE)")
    print("| N | threshold choice | P(a above b) | pairs | mean P, % | in that order, % |")
    print("|---:|---|---|---:|---:|---:|")
    for (items, choice), pairs in pairs_by.items():
        p, right = np.array(pairs, dtype=float).T
        for low, high in zip(BINS[:-1], BINS[1:]):
            inside = (p >= low) & (p < high)
            if inside.sum() == 0:
                continue
            label = f"[{low:g}, {min(high, 1.0):g}{']' if high > 1 else ')'}"
            print(f"| {items} | {choice} | {label} | {int(inside.sum())} | {100 * p[inside].mean():.1f} | {fraction(right[inside])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
