"""How optimistic is each threshold choice of ``rank_scoring``? A table against the test set's size.

A known population: two classes, prevalence 0.3 of the positive one, the utility matrix
U = [[0, -1], [-4, 0]] (rows = output, columns = true class, positive first), and a binormal
scoring classifier: negatives' scores N(0, 1), positives' N(1.5, 1). The population yield of
any threshold is then a closed form. For test sets of N items drawn from it, each threshold
choice reports a yield; its **optimism** is that minus the population yield of the thresholds
it chose (``crossfit``: each fold's threshold, weighted by the fold's items; ``split``: the one
chosen on the first half; ``test``: the one chosen on the whole test set). An unbiased choice
has optimism 0 on average. The folds and halves are dealt at random (mcrank's rule) and, for
comparison, stratified by class (the rule before): stratified folds give the held-out part the
class balance its threshold was tuned on. Each cell is the mean over test sets with its SE; the
same test sets serve every column. Run from the repository's root (about two minutes)::

    python scripts/scoring_optimism.py [--replicates-scale 1.0]
"""

import argparse
import math

import numpy as np
from scipy.stats import norm

from mcrank.evaluate import rank_scoring, scored_test_set
from mcrank.evaluate.scoring import _best_threshold, _total_at

PREVALENCE, MU, FOLDS, SEED = 0.3, 1.5, 5, 20261126
U = np.array([[0.0, -1.0], [-4.0, 0.0]])
SIZES = {50: 4000, 100: 4000, 200: 3000, 500: 2000, 1000: 1000, 5000: 300}


def population_yield(threshold: float) -> float:
    """The yield per item of ``score >= threshold`` on the population, exactly."""
    treat_positive, treat_negative = norm.sf(threshold - MU), norm.sf(threshold)
    return (PREVALENCE * (U[0, 0] * treat_positive + U[1, 0] * (1 - treat_positive))
            + (1 - PREVALENCE) * (U[0, 1] * treat_negative + U[1, 1] * (1 - treat_negative)))  # fmt: skip


def draw(items: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    positive = rng.random(items) < PREVALENCE
    return positive, rng.normal(MU * positive, 1.0)


def stratified_folds(positive: np.ndarray, folds: int, rng: np.random.Generator) -> np.ndarray:
    """The rule before: each class shuffled and dealt in turn."""
    fold = np.empty(positive.size, dtype=np.int64)
    offset = 0
    for members in (np.flatnonzero(positive), np.flatnonzero(~positive)):
        shuffled = rng.permutation(members)
        fold[shuffled] = (offset + np.arange(shuffled.size)) % folds
        offset += shuffled.size
    return fold


def optimism(positive, scores, fold, choose_folds) -> float:
    """Reported yield minus the population yield of the chosen thresholds, for folds ``fold``
    of which ``choose_folds`` are evaluated (each at the threshold chosen on the others)."""
    reported, true = 0.0, 0.0
    held_items = 0
    for f in choose_folds:
        held = fold == f
        threshold, _ = _best_threshold(positive[~held], scores[~held], U)
        reported += _total_at(positive[held], scores[held], U, threshold)
        true += population_yield(threshold) * held.sum()
        held_items += held.sum()
    return (reported - true) / held_items


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates-scale", type=float, default=1.0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    columns = ["crossfit", "crossfit (stratified)", "split", "split (stratified)", "test"]
    print("| N | test sets | " + " | ".join(columns) + " |")
    print("|---:|---:|" + "---:|" * len(columns))
    for items, replicates in SIZES.items():
        replicates = max(20, int(replicates * args.replicates_scale))
        values = {c: [] for c in columns}
        for _ in range(replicates):
            positive, scores = draw(items, rng)
            if positive.sum() < FOLDS or (~positive).sum() < FOLDS:
                continue  # rank_scoring's rule: at most as many folds as items of the smaller class
            seed = int(rng.integers(2**32))
            fold = np.random.default_rng(seed)  # the random folds are mcrank's own, from rank_scoring
            result = rank_scoring(scored_test_set(positive, {"m": scores}, classes=(True, False)), U, folds=FOLDS, rng=seed).models[0]
            true = np.mean([population_yield(t) for t in result.fold_thresholds])  # folds differ by at most 1 item
            values["crossfit"].append(result.utility_yield - true)
            split = rank_scoring(
                scored_test_set(positive, {"m": scores}, classes=(True, False)), U, threshold_choice="split", rng=seed
            ).models[0]
            values["split"].append(split.utility_yield - population_yield(split.fold_thresholds[0]))
            values["test"].append(result.test_set_yield - population_yield(result.threshold))
            values["crossfit (stratified)"].append(optimism(positive, scores, stratified_folds(positive, FOLDS, fold), range(FOLDS)))
            values["split (stratified)"].append(optimism(positive, scores, stratified_folds(positive, 2, fold), [1]))
        cells = []
        for c in columns:
            v = np.array(values[c])
            cells.append(f"{v.mean():+.4f} ± {v.std(ddof=1) / math.sqrt(v.size):.4f}")
        print(f"| {items} | {len(values['test'])} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
