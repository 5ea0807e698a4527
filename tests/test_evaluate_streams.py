"""evaluate's Monte Carlo: one seed, one stream per random quantity, and memory that does not
grow with the number of draws (issue 25).

The references are plain NumPy, from the children of the root SeedSequence that
``mcrank._rng`` documents, never the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcrank._rng import DEPLOYMENT_FREQUENCIES, TEST_SET, UTILITY_ERRORS, root_of, stream_generator
from mcrank.evaluate import ItemLabels, decision_curves, evaluate, load_labels
from mcrank.evaluate.uncertainty import _IntervalQuantiles

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FACTORY = json.loads((EXAMPLES / "factory.json").read_text())
TRIAGE = json.loads((EXAMPLES / "triage_3class.json").read_text())


def _test_set_numbers(result):
    return ([c.utility_yield_interval for c in result.classifiers],
            [(p.flip_probability_test, p.flip_probability_test_se) for p in result.pairs])  # fmt: skip


def _triage_labels():
    data = load_labels(EXAMPLES / "triage_labels.csv", classes=tuple(TRIAGE["classes"]))
    keep = np.random.default_rng(0).random(data.labels.truth.size) < 0.2  # small enough for real doubt
    labels = ItemLabels(data.labels.truth[keep], {k: v[keep] for k, v in data.labels.outputs.items()})
    confusions = {k: np.bincount(v * 3 + labels.truth, minlength=9).reshape(3, 3) for k, v in labels.outputs.items()}
    return labels, confusions


# --- one stream per quantity ------------------------------------------------------------------


@pytest.mark.parametrize("extra", [dict(sd=0.1), dict(sd=0.1, error="truncated"), dict(sd=0.3, estimator="sample")])
def test_an_error_sd_leaves_the_test_set_numbers_alone(extra):
    """The issue's case: --test-uncertainty --seed 1, then with --sd 0.1: the same intervals
    and test-set probabilities, from matrices and from labels (where the sd makes the exact
    pairs drawn too, each pair from a stream of its own)."""
    plain = evaluate(FACTORY["classifiers"], FACTORY["utility"], test_uncertainty=True, samples=5000, rng=1)
    with_sd = evaluate(FACTORY["classifiers"], FACTORY["utility"], test_uncertainty=True, samples=5000, rng=1, **extra)
    assert _test_set_numbers(plain) == _test_set_numbers(with_sd)
    assert with_sd.pairs[0].flip_probability_both is not None
    labels, confusions = _triage_labels()
    common = dict(classes=TRIAGE["classes"], labels=labels, test_uncertainty=True, samples=3000, rng=1)
    plain = evaluate(confusions, TRIAGE["utility"], **common)
    with_sd = evaluate(confusions, TRIAGE["utility"], **common, **{k: v for k, v in extra.items() if k != "error"})
    assert _test_set_numbers(plain) == _test_set_numbers(with_sd)


def test_deployment_counts_and_the_test_set_leave_the_utility_error_numbers_alone():
    """The sample estimator's counts under truncated errors: the same with --test-uncertainty
    and with --class-counts (counts in the test set's proportions: the same matrices ranked)."""
    common = dict(sd=0.2, error="truncated", samples=4000, rng=3)
    plain = evaluate(FACTORY["classifiers"], FACTORY["utility"], **common)
    for extra in (dict(test_uncertainty=True), dict(class_counts=[40, 40]), dict(class_counts=[40, 40], test_uncertainty=True)):
        other = evaluate(FACTORY["classifiers"], FACTORY["utility"], **common, **extra)
        assert [p.flips for p in other.pairs] == [p.flips for p in plain.pairs], extra
    assert 0 < plain.pairs[0].flips < 4000


def test_deployment_counts_draw_from_their_own_stream():
    """With --class-counts the class proportions come from DEPLOYMENT_FREQUENCIES, and the
    columns stay on TEST_SET: the same columns as with fixed frequencies."""
    fixed = evaluate(FACTORY["classifiers"], FACTORY["utility"], class_frequencies=[0.3, 0.7], test_uncertainty=True,
                     samples=3000, rng=2)  # fmt: skip
    counted = evaluate(FACTORY["classifiers"], FACTORY["utility"], class_counts=[3e9, 7e9], test_uncertainty=True,
                       samples=3000, rng=2)  # fmt: skip
    # 10^10 registry cases pin the frequencies to within 1e-5: the numbers agree to that.
    for a, b in zip(_test_set_numbers(fixed)[0], _test_set_numbers(counted)[0]):
        assert a == pytest.approx(b, abs=1e-2)
    assert fixed.pairs[0].flip_probability_test == pytest.approx(counted.pairs[0].flip_probability_test, abs=0.01)


def test_the_factory_numbers_are_those_of_plain_numpy_draws_from_the_test_set_stream():
    """`mcrank evaluate examples/factory.json --test-uncertainty --seed 1`, redone in NumPy:
    Dirichlet draws by gammas from the child (TEST_SET, 0) of SeedSequence(1), in blocks of 2048,
    the class proportions then each classifier's columns."""
    samples = 5000
    result = evaluate(FACTORY["classifiers"], FACTORY["utility"], test_uncertainty=True, samples=samples, rng=1)
    u = np.array(FACTORY["utility"], dtype=float)
    v = (u - u.min()) / (u.max() - u.min())
    counts = np.array([FACTORY["classifiers"][k] for k in ("A", "B")], dtype=float)
    rng = np.random.default_rng(np.random.SeedSequence(1, spawn_key=(0, 0)))
    yields, done = [[], []], 0
    while done < samples:
        size = min(2048, samples - done)
        done += size
        g = rng.standard_gamma(np.broadcast_to(counts[0].sum(axis=0) + 0.5, (size, 2)))
        proportions = g / g.sum(axis=1, keepdims=True)
        for c in range(2):
            g = rng.standard_gamma(np.broadcast_to(counts[c].T + 0.25, (size, 2, 2)))  # (size, true, output)
            columns = g / g.sum(axis=2, keepdims=True)
            yields[c].append(np.einsum("sjo,oj,sj->s", columns, v, proportions))
    a, b = (u.min() + (u.max() - u.min()) * np.concatenate(y) for y in yields)
    flips = np.mean(a - b <= 0)
    assert result.pairs[0].flip_probability_test == pytest.approx(flips, abs=1e-12)
    for c, draws in zip(result.classifiers, (a, b)):
        assert c.utility_yield_interval == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), rel=1e-12)


def test_the_perturbed_matrices_come_from_the_utility_error_stream():
    """The sample estimator's perturbed matrices are those of the child (UTILITY_ERRORS, 0):
    drawn directly from it, they give the same counts."""
    from mcrank.samplers import perturb_um
    from mcrank.utility_space import normalise_um

    result = evaluate(FACTORY["classifiers"], FACTORY["utility"], sd=0.3, estimator="sample", samples=3000, rng=4)
    perturbed = perturb_um(normalise_um(np.array(FACTORY["utility"], dtype=float)), 0.3, size=3000,
                           rng=np.random.default_rng(np.random.SeedSequence(4, spawn_key=(1, 0))))  # fmt: skip
    a, b = (np.einsum("sij,ij->s", perturbed, np.array(FACTORY["classifiers"][k]) / 100) for k in ("A", "B"))
    assert result.pairs[0].flips == int(np.count_nonzero(b >= a))


def test_the_stream_keys_are_distinct_and_documented():
    root = root_of(1)
    firsts = {(q, i): stream_generator(root, q, i).random() for q in (TEST_SET, UTILITY_ERRORS, DEPLOYMENT_FREQUENCIES) for i in range(3)}
    assert len(set(firsts.values())) == len(firsts)
    # A Generator gives a root drawn from it once: reproducible from the Generator's seed.
    assert root_of(np.random.default_rng(5)).entropy == root_of(np.random.default_rng(5)).entropy


def test_a_generator_gives_one_root_for_every_stream():
    """Given a Generator, the truncated model's counts and the posterior's perturbed matrices
    share one root (drawn once), as with a seed."""
    kwargs = dict(sd=0.2, error="truncated", samples=2000)
    with_test = evaluate(FACTORY["classifiers"], FACTORY["utility"], test_uncertainty=True, rng=np.random.default_rng(8), **kwargs)
    alone = evaluate(FACTORY["classifiers"], FACTORY["utility"], rng=np.random.default_rng(8), **kwargs)
    assert with_test.pairs[0].flips == alone.pairs[0].flips and with_test.seed is None


def test_decision_curve_bands_have_a_stream_per_model():
    """Adding a model changes no other model's band."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    first, second = np.clip(y * 0.3 + rng.random(200) * 0.7, 0, 1), rng.random(200)
    kwargs = dict(thresholds=[0.2, 0.5], test_uncertainty=True, samples=3000, rng=1)
    one = decision_curves(y, {"first": first}, **kwargs)
    two = decision_curves(y, {"first": first, "second": second}, **kwargs)
    assert np.array_equal(one.bands["first"], two.bands["first"])


# --- memory and the streamed quantiles -------------------------------------------------------


def test_the_quantiles_are_exact_while_the_draws_are_kept():
    rng = np.random.default_rng(1)
    draws = rng.normal(size=(3, 10_000))
    quantiles = _IntervalQuantiles(3, 10_000, (0.025, 0.975))
    for start in range(0, 10_000, 2048):
        quantiles.add(draws[:, start : start + 2048])
    assert quantiles.exact and np.array_equal(quantiles.result(), np.quantile(draws, [0.025, 0.975], axis=1).T)


@pytest.mark.parametrize("distribution", ["normal", "beta", "lumpy"])
def test_the_streamed_quantiles_are_within_a_quarter_of_their_standard_error(distribution):
    """Forced to stream (small budget and pilot), against numpy's quantile of every draw: the
    share of draws below each estimate is within a quarter of the quantile's Monte Carlo SE,
    sqrt(q (1 - q) / N), of q (plus the last draw's 1/N), the precision the class states."""
    rng = np.random.default_rng(2)
    samples, k = 1_000_000, 2
    if distribution == "normal":
        draws = rng.normal(3.0, 1e-3, size=(k, samples))
    elif distribution == "beta":
        draws = rng.beta(0.5, 5.0, size=(k, samples))
    else:  # a few values only, as the yields of a tiny test set: many draws equal
        draws = rng.integers(0, 7, size=(k, samples)) / 7.0
    q = np.array([0.025, 0.975])
    quantiles = _IntervalQuantiles(k, samples, q, exact_draws=1000, pilot=1 << 14)
    for start in range(0, samples, 2048):
        quantiles.add(draws[:, start : start + 2048])
    assert not quantiles.exact and quantiles.kept.shape == (k, 1 << 14)
    estimate, exact = quantiles.result(), np.quantile(draws, q, axis=1).T
    se = np.sqrt(q * (1 - q) / samples)
    for c in range(k):
        below = np.mean(draws[c][:, None] < estimate[c], axis=0)
        at_or_below = np.mean(draws[c][:, None] <= estimate[c], axis=0)
        # The estimate lies among the draws of rank q N, within the stated precision.
        assert np.all(below <= q + se / 4 + 1 / samples) and np.all(at_or_below >= q - se / 4 - 1 / samples), (below, q)
        spread = np.quantile(draws[c], 0.99) - np.quantile(draws[c], 0.01)
        assert np.all(np.abs(estimate[c] - exact[c]) <= 0.01 * spread), (estimate[c], exact[c])


def test_the_quantiles_work_space_does_not_grow_with_the_samples():
    """At the largest number of draws evaluate allows, 10^9, two classifiers: the kept pilot
    and the histograms take a few MiB, as at 10^7."""
    sizes = {}
    for samples in (10**7, 10**9):
        quantiles = _IntervalQuantiles(2, samples, (0.025, 0.975))
        rng = np.random.default_rng(0)
        for _ in range(40):  # the pilot, and a few blocks beyond it
            quantiles.add(rng.normal(size=(2, 4096)))
        sizes[samples] = quantiles.kept.nbytes + quantiles.counts.nbytes + quantiles.below.nbytes
    assert sizes[10**9] < 4 << 20, sizes
