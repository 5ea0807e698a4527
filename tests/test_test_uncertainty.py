"""Test-set uncertainty in ``mcrank evaluate`` (:mod:`mcrank.evaluate.uncertainty`): against an
independent NumPy posterior, calibrated exactly, and its edge cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.evaluate import ItemLabels, evaluate, load_labels
from mcrank.evaluate.uncertainty import posterior_uncertainty

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TRIAGE = json.loads((EXAMPLES / "triage_3class.json").read_text())
U = np.array(TRIAGE["utility"], dtype=float)
CLASSES = tuple(TRIAGE["classes"])
#: The prior's total count, spread evenly over the cells of whatever table is drawn: the
#: package's default, written out here so that the oracles do not call the code under test.
PRIOR = 1.0


def _oracle_labels(labels, first, second, u, samples, rng):
    """Plain NumPy: the full n^3 joint table of the pair, Dirichlet(counts + PRIOR / n^3), no merging."""
    n = u.shape[0]
    table = np.zeros((n, n, n))
    for j, a, b in zip(labels.truth, labels.outputs[first], labels.outputs[second]):
        table[j, a, b] += 1
    f = rng.dirichlet(table.ravel() + PRIOR / n**3, samples).reshape(samples, n, n, n)
    weights = np.array([[[u[a, j] - u[b, j] for b in range(n)] for a in range(n)] for j in range(n)])
    return np.einsum("sjab,jab->s", f, weights)


def _doubtful_pair():
    """A pair of the triage example whose order is in real doubt, and its oracle's flip probability."""
    data = load_labels(EXAMPLES / "triage_labels.csv", classes=CLASSES)
    u = (U - U.min()) / (U.max() - U.min())
    # A pair whose order is in real doubt: a small yield difference on 1,000 items, made by
    # dropping most of the items.
    keep = np.random.default_rng(0).random(data.labels.truth.size) < 0.08
    labels = ItemLabels(data.labels.truth[keep], {k: v[keep] for k, v in data.labels.outputs.items()})
    names = ["cautious", "in-between"]
    n = len(CLASSES)
    counts = np.array([np.bincount(labels.outputs[k] * n + labels.truth, minlength=n * n).reshape(n, n) for k in names])
    totals = np.einsum("kij,ij->k", counts, u)
    order = [0, 1] if totals[0] >= totals[1] else [1, 0]
    sign = np.sign(totals[order[0]] - totals[order[1]])
    d = _oracle_labels(labels, names[order[0]], names[order[1]], u, 200_000, np.random.default_rng(2))
    reference = np.mean(np.where(d * sign > 0, 0.0, np.where(d == 0, 0.5, 1.0)))
    assert 0.02 < reference < 0.5, reference
    return (counts, names, order, [sign], labels), reference, np.sqrt(reference * (1 - reference) / 200_000)


def test_the_exact_labels_flip_probability_agrees_with_a_numpy_posterior():
    (counts, names, order, signs, labels), reference, se = _doubtful_pair()
    result = posterior_uncertainty(U, counts, names, order, signs, labels=labels, samples=1000, rng=1)
    assert result.flip_test_exact[0] and np.isnan(result.flip_test_se[0])
    assert abs(result.flip_test[0] - reference) < 4 * se, (result.flip_test, reference)


def test_the_monte_carlo_labels_flip_probability_agrees_with_a_numpy_posterior(monkeypatch):
    # The fallback where the integral does not converge within its budget.
    monkeypatch.setattr("mcrank.evaluate.uncertainty._flip_exact", lambda weights, alpha: None)
    (counts, names, order, signs, labels), reference, se = _doubtful_pair()
    result = posterior_uncertainty(U, counts, names, order, signs, labels=labels, samples=40_000, rng=1)
    assert not result.flip_test_exact[0]
    assert abs(result.flip_test[0] - reference) < 4 * np.hypot(result.flip_test_se[0], se), (result.flip_test, reference)


@pytest.mark.parametrize("seed", range(6))
def test_the_gil_pelaez_integral_is_exact_where_a_beta_cdf_is(seed):
    """Weights of two values, +1 on some components and -c on the others: the sums of the
    gammas of each group are gammas, so P(S < 0) = P(Beta(A+, A-) < c / (1 + c)), with scipy's
    incomplete beta function as the reference; from a few items to 10^5 and c over 4 decades."""
    from scipy import stats

    from mcrank.evaluate.uncertainty import _flip_exact

    rng = np.random.default_rng(seed)
    for _ in range(50):
        plus, minus = rng.integers(1, 8, size=2)
        c = 10 ** rng.uniform(-2, 2)
        alpha = 1 + rng.integers(0, 10 ** rng.integers(0, 5), plus + minus) * rng.random() * 0.999
        weights = np.concatenate((np.ones(plus), -c * np.ones(minus)))
        permutation = rng.permutation(plus + minus)
        exact = _flip_exact(weights[permutation] * 0.37, alpha[permutation])
        reference = stats.beta.cdf(c / (1 + c), alpha[:plus].sum(), alpha[plus:].sum())
        assert exact is not None and abs(exact - reference) < 1e-10, (exact, reference, alpha, c)


@pytest.mark.parametrize("scale", [1e-200, 1e-310])
def test_the_exact_flip_holds_for_tiny_weights(scale):
    """A threshold of 1e-200 or 1e-320 gives such weights: their squares underflowed to a sigma
    of 0, and NumPy warned of invalid values. The probability depends on the weights' ratio
    only (scipy's incomplete beta function as the reference, as above)."""
    import warnings

    from scipy import stats

    from mcrank.evaluate.uncertainty import _flip_exact

    alpha, c = np.array([3.0, 2.0, 4.0]), 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exact = _flip_exact(np.array([1.0, -c, 1.0]) * scale, alpha)
        assert exact is not None and abs(exact - stats.beta.cdf(c / (1 + c), 7.0, 2.0)) < 1e-10
        # One weight subnormal beside normal ones: drawn instead (None), or a probability.
        tiny = _flip_exact(np.array([1.0, -1e-320, 1.0]), alpha)
    assert tiny is None or 0.0 <= tiny <= 1.0


@pytest.mark.slow
def test_the_gil_pelaez_integral_agrees_with_gammas_for_any_weights():
    """Weights over 3 decades, 2 to 18 components (n = 2 and 3): against 4 x 10^5 gamma draws."""
    from mcrank.evaluate.uncertainty import _flip_exact

    rng = np.random.default_rng(7)
    for _ in range(12):
        m = rng.integers(2, 19)
        weights = rng.normal(size=m) * 10 ** rng.uniform(-3, 0, m)
        alpha = 1 + rng.integers(0, 10 ** rng.integers(0, 4), m).astype(float)
        exact = _flip_exact(weights, alpha)
        q = np.mean(rng.standard_gamma(alpha, size=(400_000, m)) @ weights < 0)
        assert abs(exact - q) < 4 * np.sqrt(max(q * (1 - q), 1 / 400_000) / 400_000), (exact, q)


def test_the_intervals_hold_95_percent_of_an_independent_posterior():
    counts = np.array(TRIAGE["classifiers"]["cautious"], dtype=float)
    result = posterior_uncertainty(U, counts[None], ["cautious"], [0], [], samples=40_000, rng=3)
    low, high = result.intervals["cautious"]
    rng = np.random.default_rng(4)  # one Dirichlet over the classifier's own 9 cells
    cells = rng.dirichlet(counts.ravel() + PRIOR / 9, 40_000).reshape(40_000, 3, 3)
    yields = np.einsum("sij,ij->s", cells, U)
    for fraction, expected in ((np.mean(yields < low), 0.025), (np.mean(yields > high), 0.025)):
        assert abs(fraction - expected) < 4 * np.sqrt(2 * expected * (1 - expected) / 40_000), (fraction, expected)


def _calibration(test_size: int, trials: int, seed: int):
    """Draw population joint frequencies of two classifiers (two classes) from the prior (the
    package's, total count PRIOR spread over the 8 cells: a Bayesian posterior is calibrated
    under its own prior), a test set from them, and the reported flip probability:
    (reported, truly flipped)."""
    rng = np.random.default_rng(seed)
    n, reported, flipped = 2, [], []
    for _ in range(trials):
        u = rng.random((n, n))
        theta = rng.dirichlet(np.full(n**3, PRIOR / n**3))  # (true, A, B)
        cells = rng.multinomial(test_size, theta)
        index = np.repeat(np.arange(n**3), cells)
        truth, first, second = index // n**2, (index // n) % n, index % n
        labels = ItemLabels(truth, {"A": first, "B": second})
        counts = np.array([np.bincount(o * n + truth, minlength=n * n).reshape(n, n) for o in (first, second)], dtype=float)
        normalised = (u - u.min()) / (u.max() - u.min())
        totals = np.einsum("kij,ij->k", counts, normalised)
        sign = np.sign(totals[0] - totals[1])
        if sign == 0:
            continue
        # The flip probability is exact (the Gil-Pelaez integral), not drawn: the posterior's
        # draws make the intervals only, which this test does not read, so a few suffice.
        result = posterior_uncertainty(u, counts, ["A", "B"], [0, 1], [sign], labels=labels, samples=10, rng=rng)
        assert result.flip_test_exact[0]
        weights = np.array([[[normalised[a, j] - normalised[b, j] for b in range(n)] for a in range(n)] for j in range(n)])
        population = np.sum(theta.reshape(n, n, n) * weights)
        reported.append(result.flip_test[0])
        flipped.append(population * sign < 0)
    return np.array(reported), np.array(flipped)


@pytest.mark.slow
@pytest.mark.parametrize("test_size", [100, 1000])
def test_the_flip_probability_is_calibrated(test_size):
    reported, flipped = _calibration(test_size, 4000, seed=test_size)
    table = []
    for low, high in ((0.0, 0.01), (0.01, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.5), (0.5, 1.0)):
        inside = (reported >= low) & (reported < high)
        if inside.sum() < 30:
            continue
        q, observed = reported[inside].mean(), flipped[inside].mean()
        se = np.sqrt(max(q * (1 - q), 1e-4) / inside.sum())
        table.append((low, high, int(inside.sum()), round(q, 4), round(observed, 4)))
        assert abs(observed - q) < 4 * se, (test_size, low, high, q, observed, inside.sum())
    assert len(table) >= 4, table  # the probabilities spread over the range: not an idle check
    print(f"\ncalibration at N = {test_size} (bin, pairs, mean reported, fraction flipped):", *table, sep="\n  ")


@pytest.mark.slow
@pytest.mark.parametrize("test_size", [100, 1000])
def test_the_intervals_cover_95_percent(test_size):
    rng = np.random.default_rng(test_size + 1)
    covered, trials = 0, 3000
    for _ in range(trials):
        u = rng.random((2, 2))
        theta = rng.dirichlet(np.full(4, PRIOR / 4))  # one classifier's own cells (output, true), from the prior
        counts = rng.multinomial(test_size, theta).reshape(2, 2).astype(float)
        index = np.repeat(np.arange(4), counts.ravel().astype(int))
        labels = ItemLabels(index % 2, {"A": index // 2})
        low, high = posterior_uncertainty(u, counts[None], ["A"], [0], [], labels=labels, samples=2000, rng=rng).intervals["A"]
        covered += low <= np.sum(theta.reshape(2, 2) * u) <= high
    assert abs(covered / trials - 0.95) < 4 * np.sqrt(0.95 * 0.05 / trials), covered / trials


def test_identical_classifiers_are_tied_not_a_probability(capsys):
    same = {"A": [[27, 15], [23, 35]], "B": [[27, 15], [23, 35]]}
    result = evaluate(same, [[15, -335], [-35, 165]], test_uncertainty=True, samples=2000, rng=5)
    (pair,) = result.pairs
    assert pair.flip_probability_test is None and pair.flip_probability_both is None
    assert (
        main(
            [
                "evaluate",
                str(EXAMPLES / "factory.json"),
                "--utility",
                "[[1, 0], [0, 1]]",
                "--test-uncertainty",
                "--seed",
                "1",
                "--samples",
                "1000",
                "--details",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "How sure the ranking is" in out and "95% interval" in out


def test_clearly_different_classifiers_on_10000_items_are_sure():
    good, poor = [[4500, 300], [500, 4700]], [[4000, 800], [1000, 4200]]
    result = evaluate({"good": good, "poor": poor}, [[1, 0], [0, 1]], test_uncertainty=True, samples=20_000, rng=6)
    assert result.pairs[0].flip_probability_test < 0.001


def test_the_same_seed_gives_the_same_output(capsys):
    argv = ["evaluate", "--labels", str(EXAMPLES / "triage_labels.csv"), "--utility", str(EXAMPLES / "triage_3class.json"),
            "--test-uncertainty", "--sd", "0.1", "--samples", "3000", "--seed", "7", "--format", "json"]  # fmt: skip
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["pairs"] == second["pairs"] and first["classifiers"] == second["classifiers"]
    assert first["test_uncertainty"] == {"model": "labels", "prior_mass": 1.0, "prior_share": 0.001, "prior_count": 1.0,
                                         "samples": 3000, "seed": 7, "interval": 0.95, "exact_pairs": 3}  # fmt: skip
    assert all(p["flip_probability_test"] is not None and p["flip_probability_both"] is not None for p in first["pairs"])
    # With labels the test-set probabilities are exact (no SE); under both, Monte Carlo.
    # (an SE of 0 where none of the 3000 draws flips: in-between over high-accuracy, about 0.001)
    assert all(p["flip_probability_test_se"] is None and p["flip_probability_both_se"] is not None for p in first["pairs"])
    assert all(len(c["utility_yield_interval"]) == 2 for c in first["classifiers"])


def test_the_table_prints_the_intervals_and_the_three_probabilities(capsys):
    argv = ["evaluate", "--labels", str(EXAMPLES / "triage_labels.csv"), "--utility", str(EXAMPLES / "triage_3class.json"),
            "--test-uncertainty", "--sd", "0.1", "--samples", "3000", "--seed", "7", "--details"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "95% interval" in out and "from labels item by item" in out
    pairs = out[out.index("Pairs: probability") :].split("\n\n")[0].splitlines()
    heading = next(line for line in pairs if line.startswith("  pair"))
    assert heading.split() == ["pair", "test", "set", "utility", "errors", "both"]
    row = next(line for line in pairs if line.startswith("  cautious over in-between"))
    assert row.split()[4] == "0.0352" and row.split()[6] == "±"  # exact under utility errors; both drawn


BAD = [
    (["--test-uncertainty", "--prior-count", "-1"], "--prior-count must be positive"),
    (["--test-uncertainty", "--prior-count", "0"], "--prior-count must be positive"),
    (["--prior-count", "2"], "--prior-count is the prior of --test-uncertainty"),
]


@pytest.mark.parametrize(("options", "message"), BAD, ids=[b[1][:30] for b in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, options, message):
    code = main(["evaluate", str(EXAMPLES / "factory.json"), *options])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err, err


def test_labels_of_unequal_lengths_are_refused(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("true,A,B\nx,x,y\ny,y\n")
    code = main(["evaluate", "--labels", str(path), "--utility", "[[1, 0], [0, 1]]", "--test-uncertainty"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "line 3: expected 3 fields, got 2" in err
    with pytest.raises(ValueError, match="labels"):
        evaluate({"A": [[1, 0], [0, 1]]}, np.eye(2), test_uncertainty=True,
                 labels=ItemLabels(np.array([0, 1]), {"A": np.array([0])}))  # fmt: skip


def test_the_evaluate_guide_shows_the_real_output(capsys):
    guide = (EXAMPLES.parent / "docs" / "evaluate-uncertainty.md").read_text()
    assert main(["evaluate", str(EXAMPLES / "factory.json"), "--test-uncertainty", "--seed", "1", "--details"]) == 0
    out = capsys.readouterr().out
    shown = out[out.index("How sure the ranking is") :]
    assert shown in guide
    argv = ["evaluate", "--labels", str(EXAMPLES / "triage_labels.csv"), "--utility", str(EXAMPLES / "triage_3class.json"),
            "--test-uncertainty", "--sd", "0.1", "--seed", "1", "--details"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    pairs = out[out.index("Pairs: probability") :].split("\n\n")[0]
    assert pairs in guide


def test_the_csv_says_which_probabilities_are_exact(capsys):
    argv = ["evaluate", "--labels", str(EXAMPLES / "triage_labels.csv"), "--utility", str(EXAMPLES / "triage_3class.json"),
            "--test-uncertainty", "--samples", "2000", "--seed", "1", "--format", "csv"]  # fmt: skip
    assert main(argv) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    first = dict(zip(rows[0], rows[1]))
    assert first["test_exact_pairs"] == "3" and first["flip_probability_test_se_vs_in-between"] == ""
    assert 0 < float(first["flip_probability_test_vs_in-between"]) < 0.01, first
    assert (
        main(["evaluate", str(EXAMPLES / "factory.json"), "--test-uncertainty", "--samples", "2000", "--seed", "1", "--format", "csv"]) == 0
    )
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    first = dict(zip(rows[0], rows[1]))
    assert first["test_exact_pairs"] == "0" and float(first["flip_probability_test_se_vs_B"]) > 0, first


@pytest.mark.parametrize("sd", [0.1, 0.2])
def test_both_uncertainties_add_their_spreads(sd):
    """The probability under both uncertainties is that of one yield difference with two
    independent noises. In the normal approximation, P(flip) = Phi(-d / s) for a noise of sd
    s, so the two alone give d / s_test = -Phi^-1(P_test) and d / s_utility = -Phi^-1(P_utility),
    and both at once, whose variances add, Phi(-d / sqrt(s_test^2 + s_utility^2)): nearer 1/2
    than either alone. On 4,000 labelled items of two classes, where the pair differs on 200,
    the approximation is within 0.002 of the exact distribution; 200,000 draws give SE 0.001."""
    from scipy.stats import norm

    from mcrank.evaluate import evaluate_predictions

    n, wrong = 2000, 300
    truth = np.r_[np.zeros(n, int), np.ones(n, int)]
    first = truth.copy()
    first[n - wrong : n], first[2 * n - wrong :] = 1, 0
    second = first.copy()
    second[:104] = 1  # wrong on 104 positives that the first gets right,
    second[2 * n - wrong : 2 * n - wrong + 96] = 1  # right on 96 negatives that the first gets wrong
    result = evaluate_predictions(truth, {"first": first, "second": second}, [[1, -1], [-1, 1]], classes=[0, 1], sd=sd,
                                  test_uncertainty=True, samples=200_000, rng=3)  # fmt: skip
    (pair,) = result.pairs
    test, utility, both = pair.flip_probability_test, pair.flip_probability, pair.flip_probability_both
    assert 0.2 < test < 0.35 and 0.2 < utility < 0.45  # both sources in real doubt
    closed_form = norm.cdf(-1 / np.hypot(1 / norm.ppf(test), 1 / norm.ppf(utility)))
    assert abs(both - closed_form) < 4 * pair.flip_probability_both_se + 0.002
    assert both > max(test, utility)
