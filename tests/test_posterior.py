"""One posterior for the intervals and the flip probabilities of ``evaluate --test-uncertainty``,
with a prior whose total count does not grow with the number of cells.

The references are plain NumPy Dirichlet draws of the full joint table of a pair (true class,
A's output, B's output), never the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.evaluate import ItemLabels, evaluate, load_labels

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TRIAGE = json.loads((EXAMPLES / "triage_3class.json").read_text())
CLASSES = tuple(TRIAGE["classes"])
U = np.array(TRIAGE["utility"], dtype=float)
#: The prior's total count, the package's default, written out for the oracles.
PRIOR = 1.0


def _small_test_set(fraction: float, seed: int) -> tuple[ItemLabels, dict]:
    """A random part of the triage test set, item by item, and its confusion matrices."""
    data = load_labels(EXAMPLES / "triage_labels.csv", classes=CLASSES)
    keep = np.random.default_rng(seed).random(data.labels.truth.size) < fraction
    labels = ItemLabels(data.labels.truth[keep], {k: v[keep] for k, v in data.labels.outputs.items()})
    n = len(CLASSES)
    return labels, {k: np.bincount(v * n + labels.truth, minlength=n * n).reshape(n, n) for k, v in labels.outputs.items()}


def _joint_posterior(labels, first, second, samples, rng):
    """Plain NumPy: draws of the pair's full n^3 joint table, Dirichlet(counts + PRIOR / n^3),
    and from the same draws each classifier's yield and their difference."""
    n = len(CLASSES)
    table = np.zeros((n, n, n))
    np.add.at(table, (labels.truth, labels.outputs[first], labels.outputs[second]), 1)
    f = rng.dirichlet(table.ravel() + PRIOR / n**3, samples).reshape(samples, n, n, n)  # (s, true, A, B)
    yield_first = np.einsum("sjab,aj->s", f, U)
    yield_second = np.einsum("sjab,bj->s", f, U)
    return yield_first, yield_second


def test_the_intervals_and_the_flips_are_marginals_of_one_joint_posterior():
    """At N = 50 with three classes, the example of the issue: the interval of each classifier
    from --labels and the pair's flip probability both agree with one NumPy joint posterior."""
    labels, confusions = _small_test_set(0.05, seed=1)
    assert 40 <= labels.truth.size <= 60, labels.truth.size
    names = ["cautious", "in-between"]
    result = evaluate({k: confusions[k] for k in names}, U, classes=CLASSES, labels=labels, test_uncertainty=True,
                      samples=40_000, rng=2)  # fmt: skip
    (pair,) = result.pairs
    s = 200_000
    first, second = _joint_posterior(labels, pair.better, pair.worse, s, np.random.default_rng(3))
    tail = 4 * np.sqrt(0.025 * 0.975 / 40_000 + 0.025 * 0.975 / s)  # both quantiles are estimates
    for name, draws in ((pair.better, first), (pair.worse, second)):
        low, high = next(c.utility_yield_interval for c in result.classifiers if c.name == name)
        assert abs(np.mean(draws < low) - 0.025) < tail, (name, np.mean(draws < low))
        assert abs(np.mean(draws > high) - 0.025) < tail, (name, np.mean(draws > high))
    reference = np.mean(first - second < 0)
    assert 0.01 < reference < 0.5, reference  # in real doubt: not an idle check
    assert pair.flip_probability_test_se is None  # exact
    assert abs(pair.flip_probability_test - reference) < 4 * np.sqrt(reference * (1 - reference) / s), (pair, reference)


@pytest.mark.parametrize("test_size", [50, 120, 500])
def test_each_observed_yield_lies_inside_its_own_interval(test_size):
    """Random populations of four classifiers (three classes), a test set of each size drawn from
    each, with labels and from matrices only: every observed yield inside its 95 % interval."""
    rng = np.random.default_rng(test_size)
    n = 3
    for _ in range(4):
        truth = rng.choice(n, size=test_size, p=rng.dirichlet(np.full(n, 4.0)))
        skill = rng.uniform(0.4, 0.95, size=4)
        outputs = {f"m{k}": np.where(rng.random(test_size) < skill[k], truth, rng.integers(0, n, test_size)) for k in range(4)}
        if np.bincount(truth, minlength=n).min() == 0:
            continue
        confusions = {k: np.bincount(v * n + truth, minlength=n * n).reshape(n, n) for k, v in outputs.items()}
        utility = rng.normal(size=(n, n))
        for labels in (ItemLabels(truth, outputs), None):
            result = evaluate(confusions, utility, labels=labels, test_uncertainty=True, samples=4000, rng=rng)
            for c in result.classifiers:
                low, high = c.utility_yield_interval
                assert low <= c.utility_yield <= high, (test_size, c.name, c.utility_yield, low, high)


def test_a_heavy_prior_is_noted(capsys):
    small = {"A": [[8, 2], [2, 8]], "B": [[7, 1], [3, 9]]}  # 20 items: a prior of 1 is 5 %
    result = evaluate(small, [[1, 0], [0, 1]], test_uncertainty=True, samples=2000, rng=1)
    assert result.test_uncertainty["prior_share"] == pytest.approx(1 / 20)
    assert "the prior weighs as 1 of the 20 test items (5 %)" in result.test_uncertainty["note"]
    large = evaluate({k: np.array(v) * 10 for k, v in small.items()}, [[1, 0], [0, 1]], test_uncertainty=True, samples=2000, rng=1)
    assert "note" not in large.test_uncertainty
    assert (
        main(["evaluate", str(EXAMPLES / "factory.json"), "--test-uncertainty", "--prior-count", "5", "--samples", "2000", "--details"])
        == 0
    )
    out = " ".join(capsys.readouterr().out.split())  # as one paragraph, whatever the width
    assert "Note: the prior weighs as 5 of the 100 test items (5 %)" in out and "--prior-count" in out


def test_the_prior_count_is_the_total_spread_over_the_cells():
    """--prior-count 27 on three classes puts 1 on each of a pair's 27 joint cells: the flip
    probability of the rule before issue 24, against a NumPy Dirichlet(counts + 1)."""
    labels, confusions = _small_test_set(0.08, seed=0)
    names = ["cautious", "in-between"]
    result = evaluate({k: confusions[k] for k in names}, U, classes=CLASSES, labels=labels, test_uncertainty=True,
                      samples=1000, rng=2, prior_count=27)  # fmt: skip
    (pair,) = result.pairs
    n, s = 3, 200_000
    table = np.zeros((n, n, n))
    np.add.at(table, (labels.truth, labels.outputs[pair.better], labels.outputs[pair.worse]), 1)
    f = np.random.default_rng(4).dirichlet(table.ravel() + 1, s).reshape(s, n, n, n)
    reference = np.mean(np.einsum("sjab,aj->s", f, U) < np.einsum("sjab,bj->s", f, U))
    assert abs(pair.flip_probability_test - reference) < 4 * np.sqrt(reference * (1 - reference) / s), (pair, reference)
    assert result.test_uncertainty["prior_mass"] == 27 and result.test_uncertainty["prior_count"] == 27  # the deprecated name kept


def test_the_factory_number_in_the_guide_agrees_with_a_numpy_posterior():
    """The guide's factory example, confusion matrices only: the class proportions shared,
    Dirichlet(totals + PRIOR / 2), each classifier's columns Dirichlet(counts + PRIOR / 4)."""
    factory = json.loads((EXAMPLES / "factory.json").read_text())
    result = evaluate(factory["classifiers"], factory["utility"], test_uncertainty=True, samples=100_000, rng=1)
    (pair,) = result.pairs
    rng, s = np.random.default_rng(8), 200_000
    a, b = (np.array(factory["classifiers"][k], dtype=float) for k in ("A", "B"))
    u = np.array(factory["utility"], dtype=float)
    proportions = rng.dirichlet(a.sum(axis=0) + PRIOR / 2, s)
    yields = []
    for c in (a, b):
        columns = np.stack([rng.dirichlet(c[:, j] + PRIOR / 4, s) for j in range(2)], axis=2)
        yields.append(np.einsum("sij,ij->s", columns * proportions[:, None, :], u))
    reference = np.mean(yields[0] < yields[1])
    se = np.hypot(pair.flip_probability_test_se, np.sqrt(reference * (1 - reference) / s))
    assert abs(pair.flip_probability_test - reference) < 4 * se, (pair.flip_probability_test, reference)


def test_the_triage_number_in_the_guide_agrees_with_a_numpy_posterior():
    """The guide's exact test-set probability of cautious over in-between (1,000 labelled items)."""
    data = load_labels(EXAMPLES / "triage_labels.csv", classes=CLASSES)
    result = evaluate(data.confusions, U, classes=CLASSES, labels=data.labels, test_uncertainty=True, samples=100, rng=1)
    pair = next(p for p in result.pairs if (p.better, p.worse) == ("cautious", "in-between"))
    s = 400_000
    first, second = _joint_posterior(data.labels, "cautious", "in-between", s, np.random.default_rng(9))
    reference = np.mean(first < second)
    assert 5e-4 < reference < 0.01, reference
    assert abs(pair.flip_probability_test - reference) < 4 * np.sqrt(reference * (1 - reference) / s), (pair, reference)
