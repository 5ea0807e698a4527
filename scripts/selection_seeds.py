"""How often each model comes first over 30 seeds, and how often the output says it is not sure.

On the breast-cancer data of ``examples/model_selection.py`` (six scikit-learn models, the
utility matrix of ``examples/breast_cancer_curves.py``):

- **mcrank's seed** (the experiment of ``mcrank evaluate --scores --seed``): the first
  repeat's pooled out-of-fold scores of cross-validation seed 0, ranked by
  ``rank_scoring(threshold_choice="crossfit", test_uncertainty=True)`` at seeds 0..29 (the
  seed sets the crossfit folds and the posterior's draws);
- **the cross-validation's seed**: the whole example (5 x 2 stratified k-fold, each fold's
  threshold tuned on its training part) at shuffling seeds 0..29, ranked across the folds by
  ``compare_folds``.

For each: how often each model is first, and how often the output said that the first was
not separated from some other (the scoring posterior's ``not_separated``, the folds' verdicts:
no order of the pair reaches 0.95).

Usage::

    python scripts/selection_seeds.py [SEEDS]      # default 30; about 11 minutes of CPU

The table is in ``docs/evaluate-folds.md`` ("A worked example: model selection on the breast-cancer
and wine data").
"""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _example():
    spec = importlib.util.spec_from_file_location("model_selection", ROOT / "examples" / "model_selection.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    from mcrank.evaluate import rank_scoring, scored_test_set

    argv = sys.argv[1:] if argv is None else argv
    seeds = int(argv[0]) if argv else 30
    example = _example()
    runs = example.cross_validate(0)
    test_set = scored_test_set(runs["y"], runs["pooled"], positive="malignant", classes=example.CLASSES)
    first, unsure = collections.Counter(), 0
    for seed in range(seeds):
        ranking = rank_scoring(test_set, example.UTILITY, threshold_choice="crossfit", test_uncertainty=True, samples=example.SAMPLES,
                               rng=seed)  # fmt: skip
        top = ranking.models[0].name
        first[top] += 1
        unsure += bool(ranking.posterior.not_separated)
    print(f"mcrank's seed, {seeds} seeds (pooled scores, crossfit): first " +
          ", ".join(f"{name} {n}" for name, n in first.most_common()) + f"; not separated from another: {unsure} of {seeds}", flush=True)  # fmt: skip
    folds_first, pooled_first, folds_unsure, pooled_unsure = collections.Counter(), collections.Counter(), 0, 0
    for seed in range(seeds):
        result = example.analyse(example.cross_validate(seed), seed)
        folds, scoring = result["folds"], result["scoring"]
        folds_first[folds.chosen.name] += 1
        folds_unsure += any(p.verdict(folds.rope) == "not separated" for p in folds.pairs if p.first == folds.chosen.name)
        top = scoring.models[0].name
        pooled_first[top] += 1
        pooled_unsure += bool(scoring.posterior.not_separated)
        print(f"  CV seed {seed}: folds {folds.chosen.name} (P(best) {folds.chosen.probability_best:.2f}), pooled {top}", flush=True)
    print(f"CV seed, {seeds} seeds, across folds: first " + ", ".join(f"{name} {n}" for name, n in folds_first.most_common()) +
          f"; not separated from another: {folds_unsure} of {seeds}")  # fmt: skip
    print(f"CV seed, {seeds} seeds, pooled scores: first " + ", ".join(f"{name} {n}" for name, n in pooled_first.most_common()) +
          f"; not separated from another: {pooled_unsure} of {seeds}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
