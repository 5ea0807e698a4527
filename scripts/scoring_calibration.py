"""Is the posterior of ``rank_scoring(..., test_uncertainty=True)`` calibrated? Tables.

Populations with a known truth: two classes, prevalence 0.3 of the positive one, the utility
matrix U = [[0, -1], [-4, 0]] (rows = output, columns = true class, positive first), and three
scoring classifiers whose scores are binormal (negatives N(0, 1), positives N(mu, 1)) and
correlated (a shared normal term of variance 1/2, as models trained on the same data share
their mistakes); each population draws each model's mu uniformly from [0.8, 2.0], so that some
pairs are near a tie and some far apart. The population yield of any threshold is a closed
form. From each population one test set of N items and its posterior (``--samples`` draws).

The estimand is the **population yield of the thresholds the procedure chose on this test
set**: ``crossfit``, each fold's threshold (chosen on the other folds) on fresh items, weighted
by its fold's share of the items; ``split``, the threshold chosen on the first half; ``test``,
the threshold chosen on the whole test set (the one to deploy). It moves with the test set.
The tables give

- the **coverage** of each model's 95 % interval of that estimand, and beside it of the
  population yield of the threshold to deploy (chosen on all N items; the same for ``test``);
- the **calibration** of P(a above b): each pair read in its more probable order, binned by that
  probability, against the fraction whose estimands are in that order; beside it the same
  table for a **reference** posterior on the same pairs that is exactly right about each
  difference's error (normal, centred on the truth, of the posterior's own SD: P = Phi(d/s + Z)),
  which shows how calibrated in bins a probability of order can be given how close these
  pairs' truths lie; and the z-scores (posterior mean difference less the true one, over the
  posterior SD of the difference);
- for ``test``, the **optimism**: the yield on the test set less the estimand, against the
  posterior's estimate of it (the test-set yield less the cross-fitted estimate, on which the
  intervals are centred).

Each fraction and mean has its Monte Carlo SE. The populations and test sets are drawn from the
seed ``SEED``, each posterior from a seed drawn from it. Run from the repository's root (about
a minute of CPU, 2.5 minutes on a loaded machine)::

    python scripts/scoring_calibration.py [--populations 300] [--samples 1000] [--items 100 300 1000] [--mu-range 0.8 2.0]
"""

import argparse
import math
import time

import numpy as np
from scipy.stats import norm

from mcrank.evaluate import rank_scoring, scored_test_set, scoring
from mcrank.evaluate.scoring import DEFAULT_FOLDS as FOLDS

PREVALENCE, MODELS, SEED = 0.3, 3, 20261127
U = np.array([[0.0, -1.0], [-4.0, 0.0]])
MU_RANGE = (0.8, 2.0)
#: Bins of P(a above b) read in the more probable order of each pair.
BINS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0 + 1e-12)
CHOICES = ("crossfit", "split", "test")
#: Draws of the reference posterior per pair.
REFERENCE = 20

#: The draws of the last posterior, kept by a wrapper of ScoringPosterior.from_draws (the result
#: holds their summaries only).
_LAST = {}
_from_draws = scoring.ScoringPosterior.from_draws


def _keeping_draws(names, order, draws, seed, optimism=None):
    _LAST["names"], _LAST["draws"] = list(names), draws
    return _from_draws(names, order, draws, seed, optimism)


scoring.ScoringPosterior.from_draws = staticmethod(_keeping_draws)


def population_yield(threshold, mu: float) -> float:
    """The yield per item of ``score >= threshold`` for a model whose positives score N(mu, 1)."""
    treat_positive, treat_negative = norm.sf(threshold - mu), norm.sf(threshold)
    return (PREVALENCE * (U[0, 0] * treat_positive + U[1, 0] * (1 - treat_positive))
            + (1 - PREVALENCE) * (U[0, 1] * treat_negative + U[1, 1] * (1 - treat_negative)))  # fmt: skip


def draw(items: int, mus: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    positive = rng.random(items) < PREVALENCE
    shared = rng.normal(size=items) * math.sqrt(0.5)
    return positive, {f"m{k}": mu * positive + shared + rng.normal(size=items) * math.sqrt(0.5) for k, mu in enumerate(mus)}


def estimand(model, mu: float, items: int, choice: str) -> float:
    """The population yield of the thresholds the choice evaluated (crossfit: fold f holds
    ``items // FOLDS`` items, one more for the first ``items % FOLDS`` folds)."""
    if choice == "test":
        return float(population_yield(model.threshold, mu))
    if choice == "split":
        return float(population_yield(model.fold_thresholds[0], mu))
    sizes = items // FOLDS + (np.arange(FOLDS) < items % FOLDS)
    return float(np.sum(sizes * population_yield(np.array(model.fold_thresholds), mu)) / items)


def one(items: int, choice: str, samples: int, rng: np.random.Generator, mu_range=MU_RANGE):
    """One population and test set: per model (covered, covered deployed, optimism, its estimate);
    per pair (p, in order)."""
    mus = rng.uniform(*mu_range, size=MODELS)
    positive, scores = draw(items, mus, rng)
    result = rank_scoring(scored_test_set(positive, scores, classes=(True, False)), U, threshold_choice=choice, test_uncertainty=True,
                          samples=samples, rng=int(rng.integers(2**32)))  # fmt: skip
    mu_of = {f"m{k}": mu for k, mu in enumerate(mus)}
    posterior, truth, rows = result.posterior, {}, []
    for m in result.models:
        low, high = posterior.intervals[m.name]
        truth[m.name] = estimand(m, mu_of[m.name], items, choice)
        deployed = float(population_yield(m.threshold, mu_of[m.name]))
        estimated = posterior.optimism[m.name] if posterior.optimism else 0.0
        reported = m.test_set_yield if choice == "test" else m.utility_yield  # test's own yield, not the estimate that ranks
        rows.append((low <= truth[m.name] <= high, low <= deployed <= high, reported - truth[m.name], estimated))
    draws, index = _LAST["draws"], {name: k for k, name in enumerate(_LAST["names"])}
    pairs = []
    for (a, b), (p, _) in posterior.probability_above.items():
        difference = draws[:, index[a]] - draws[:, index[b]]
        pairs.append((p, truth[a] > truth[b], truth[a] - truth[b], difference.mean(), difference.std()))
    return rows, pairs


def fraction(values) -> str:
    v = np.asarray(values, dtype=float)
    return f"{100 * v.mean():.1f} ± {100 * math.sqrt(v.mean() * (1 - v.mean()) / v.size):.1f}"


def mean(values) -> str:
    v = np.asarray(values, dtype=float)
    return f"{v.mean():+.4f} ± {v.std(ddof=1) / math.sqrt(v.size):.4f}"


def calibration_table(pairs_by: dict, per_pair: int = 1) -> None:
    """One row per (N, choice), one column per bin of the stated probability read in the more
    probable order; ``pairs_by`` maps (N, choice) to (P(a above b), whether a's estimand is
    above b's). The SE counts ``per_pair`` draws of one pair as one pair."""
    labels = [f"{low:g}-{min(high, 1.0):g}" for low, high in zip(BINS[:-1], BINS[1:])]
    print("| N | threshold choice | " + " | ".join(labels) + " |")
    print("|---:|---|" + "---:|" * len(labels))
    for (items, choice), (p, right) in pairs_by.items():
        stated, observed = np.maximum(p, 1.0 - p), np.where(p >= 0.5, right, 1.0 - right)
        cells = []
        for low, high in zip(BINS[:-1], BINS[1:]):
            inside = (stated >= low) & (stated < high)
            if inside.sum() == 0:
                cells.append("-")
                continue
            v = observed[inside].mean()
            se = math.sqrt(v * (1 - v) / max(inside.sum() / per_pair, 1))
            cells.append(f"{100 * v:.1f} ± {100 * se:.1f} ({100 * stated[inside].mean():.1f}; {round(inside.sum() / per_pair)})")
        print(f"| {items} | {choice} | " + " | ".join(cells) + " |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--populations", type=int, default=300)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--items", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--mu-range", type=float, nargs=2, default=MU_RANGE, help="each model's mu is uniform in it")
    parser.add_argument("--choices", nargs="+", default=CHOICES, choices=CHOICES)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rng = np.random.default_rng(SEED)
    pairs_by, optimism_by = {}, {}
    print("Coverage of the 95 % intervals, % ± SE, over", args.populations, "populations of", MODELS, "models each, mu in",
          args.mu_range)  # fmt: skip
    print("| N | threshold choice | intervals | yield of the thresholds chosen on this test set | yield of the threshold to deploy |")
    print("|---:|---|---:|---:|---:|")
    for items in args.items:
        for choice in args.choices:
            rows, pairs = [], []
            for _ in range(args.populations):
                r, p = one(items, choice, args.samples, rng, args.mu_range)
                rows += r
                pairs += p
            pairs_by[(items, choice)] = pairs
            covered, deployed, optimism, estimated = zip(*rows)
            optimism_by[(items, choice)] = (optimism, estimated)
            print(f"| {items} | {choice} | {len(covered)} | {fraction(covered)} | {fraction(deployed)} |", flush=True)
    print()
    print("Optimism: the reported yield less the estimand, and the posterior's estimate of it (test only), ± SE")
    print("| N | threshold choice | reported yield less the estimand | estimated optimism | corrected yield less the estimand |")
    print("|---:|---|---:|---:|---:|")
    for (items, choice), (optimism, estimated) in optimism_by.items():
        corrected = np.subtract(optimism, estimated)
        print(f"| {items} | {choice} | {mean(optimism)} | {mean(estimated)} | {mean(corrected)} |")
    print()
    print("P(a above b) of each pair, read in its more probable order, in bins: the fraction of pairs whose estimands are in")
    print("that order, % ± SE (mean stated, %; pairs)")
    calibration_table({key: np.array(pairs, dtype=float)[:, :2].T for key, pairs in pairs_by.items()})
    print()
    print(f"The reference posterior on the same pairs, exactly right about each difference's error ({REFERENCE} draws a pair):")
    reference = np.random.default_rng(SEED + 1)
    references = {}
    for key, pairs in pairs_by.items():
        _, _, truth, _, sd = np.array(pairs, dtype=float).T
        keep = sd > 0
        p = norm.cdf(truth[keep, None] / sd[keep, None] + reference.normal(size=(int(keep.sum()), REFERENCE)))
        references[key] = (p.ravel(), np.repeat(truth[keep] > 0, REFERENCE).astype(float))
    calibration_table(references, REFERENCE)
    print()
    print("z = (posterior mean difference - true difference) / posterior SD of the difference, every pair")
    print("| N | threshold choice | pairs | SD of z | |z| > 1.96, % |")
    print("|---:|---|---:|---:|---:|")
    for (items, choice), pairs in pairs_by.items():
        _, _, truth, centre, sd = np.array(pairs, dtype=float).T
        z = (centre - truth)[sd > 0] / sd[sd > 0]
        print(f"| {items} | {choice} | {z.size} | {z.std(ddof=1):.2f} | {fraction(np.abs(z) > 1.96)} |")
    print()
    print(f"seed {SEED}, {args.samples} draws per posterior; {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
