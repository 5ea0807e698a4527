"""Deployment class frequencies in ``mcrank evaluate`` (paper §6): the confusion matrices
re-weighted column by column, ``C'_ij = C_ij / sum_i C_ij * pi_j``, before everything else.

Every expected value is computed here by hand or with plain NumPy, never by the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from csv_parts import csv_parts

from mcrank.cli import main
from mcrank.evaluate import ItemLabels, evaluate, evaluate_file, load_labels

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LOTTERY = EXAMPLES / "lottery.json"
TRIAGE = json.loads((EXAMPLES / "triage_3class.json").read_text())
#: The prior's total count, the package's default, written out for the oracles.
PRIOR = 1.0


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- the seed's lottery (§6) -----------------------------------------------------------------


def test_the_lottery_ranks_as_the_seed_says():
    """Buying yields 10 on a win and -1 on a loss, not buying 0. On a 50/50 test set always-buy
    yields 0.5 * 10 + 0.5 * (-1) = +4.5 and ranks first; deployed, where one lottery in 100
    wins, it yields 0.01 * 10 + 0.99 * (-1) = -0.89 and ranks last, behind never-buy's 0."""
    tested = evaluate_file(LOTTERY)
    assert [(c.name, c.rank) for c in tested.classifiers] == [("always buy", 1), ("never buy", 2)]
    assert {c.name: c.utility_yield for c in tested.classifiers} == {"always buy": 4.5, "never buy": 0.0}
    deployed = evaluate_file(LOTTERY, class_frequencies=[0.01, 0.99])
    assert [(c.name, c.rank) for c in deployed.classifiers] == [("never buy", 1), ("always buy", 2)]
    yields = {c.name: c.utility_yield for c in deployed.classifiers}
    assert yields["always buy"] == pytest.approx(0.01 * 10 + 0.99 * -1, abs=1e-15) and yields["always buy"] == pytest.approx(-0.89)
    assert yields["never buy"] == 0.0
    assert deployed.class_frequencies["deployment"] == {"win": 0.01, "lose": 0.99}
    assert deployed.class_frequencies["test_set"] == {"win": 0.5, "lose": 0.5}


def test_the_lottery_command_says_which_frequencies_it_used(capsys):
    code, out, err = run(capsys, LOTTERY, "--class-frequencies", "0.01,0.99")
    assert code == 0, err
    assert "Deployment class frequencies (given): win 0.01, lose 0.99; the test set's own: win 0.5, lose 0.5." in " ".join(out.split())
    ranking = out[out.index("Ranking by utility yield") :].split("\n\n")[0]
    rows = [line[: len("     1  never buy           +0.00")] for line in ranking.splitlines() if line[:6].strip().isdigit()]
    assert rows == ["     1  never buy           +0.00", "     2  always buy          -0.89"]  # one format for the column
    code, out, _ = run(capsys, LOTTERY, "--class-frequencies", "0.01,0.99", "--format", "json")
    result = json.loads(out)
    assert result["class_frequencies"]["deployment"] == {"win": 0.01, "lose": 0.99}
    assert result["class_frequencies"]["test_set"] == {"win": 0.5, "lose": 0.5}
    assert result["class_frequencies"]["source"] == "given" and result["class_frequencies"]["tolerance"] == 1e-6
    always = next(c for c in result["classifiers"] if c["name"] == "always buy")
    assert always["confusion"] == [[50, 50], [0, 0]]  # the counts, as tested
    assert always["deployment_confusion"] == [[0.01, 0.99], [0.0, 0.0]]
    code, out, _ = run(capsys, LOTTERY, "--class-frequencies", "0.01,0.99", "--format", "csv")
    comments, rows = csv_parts(out)
    assert comments["class_frequencies"] == {"win": 0.01, "lose": 0.99}
    assert comments["test_set_class_frequencies"] == {"win": 0.5, "lose": 0.5}
    assert [row["classifier"] for row in rows] == ["never buy", "always buy"]


def test_the_guide_shows_the_lottery_command():
    guide = (EXAMPLES.parent / "docs" / "evaluate-inputs.md").read_text()
    assert "mcrank evaluate examples/lottery.json --class-frequencies 0.01,0.99" in guide


# --- re-weighting, against a hand computation -------------------------------------------------


def _reweighted(confusion, pi):
    """C'_ij = C_ij / sum_i C_ij * pi_j, with loops."""
    n = len(pi)
    totals = [sum(confusion[i][j] for i in range(n)) for j in range(n)]
    return np.array([[confusion[i][j] / totals[j] * pi[j] if totals[j] else 0.0 for j in range(n)] for i in range(n)])


def test_yields_and_metrics_are_those_of_the_reweighted_matrices():
    pi = [0.2, 0.3, 0.5]
    result = evaluate(TRIAGE["classifiers"], TRIAGE["utility"], classes=TRIAGE["classes"], class_frequencies=pi)
    u = np.array(TRIAGE["utility"], dtype=float)
    expected = {name: float(np.sum(u * _reweighted(c, pi))) for name, c in TRIAGE["classifiers"].items()}
    assert [c.name for c in result.classifiers] == sorted(expected, key=expected.get, reverse=True)
    for c in result.classifiers:
        reweighted = _reweighted(TRIAGE["classifiers"][c.name], pi)
        assert c.utility_yield == pytest.approx(expected[c.name], rel=1e-12)
        assert np.allclose(c.deployment_confusion, reweighted, rtol=1e-14, atol=0)
        assert c.scores["accuracy"] == pytest.approx(np.trace(reweighted), rel=1e-12)
        recall = np.diag(reweighted) / reweighted.sum(axis=0)
        assert c.scores["balanced_accuracy"] == pytest.approx(recall.mean(), rel=1e-12)
        assert np.array_equal(c.confusion, np.array(TRIAGE["classifiers"][c.name]))  # the counts kept


def test_the_test_sets_own_frequencies_change_nothing():
    counts = np.array(TRIAGE["classifiers"]["cautious"]).sum(axis=0)
    own = counts / counts.sum()
    plain = evaluate(TRIAGE["classifiers"], TRIAGE["utility"], classes=TRIAGE["classes"], sd=0.1)
    same = evaluate(TRIAGE["classifiers"], TRIAGE["utility"], classes=TRIAGE["classes"], sd=0.1, class_frequencies=own)
    assert [c.name for c in plain.classifiers] == [c.name for c in same.classifiers]
    for a, b in zip(plain.classifiers, same.classifiers):
        assert a.utility_yield == pytest.approx(b.utility_yield, rel=1e-12)
        assert a.scores == pytest.approx(b.scores, rel=1e-12)
    for a, b in zip(plain.pairs, same.pairs):
        assert a.flip_probability == pytest.approx(b.flip_probability, rel=1e-9)


def test_a_class_absent_from_the_test_set_may_only_have_frequency_0():
    confusions = {"A": [[5, 0, 1], [2, 0, 0], [0, 0, 7]], "B": [[6, 0, 0], [0, 0, 1], [1, 0, 7]]}
    u = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(ValueError, match=r"^class_frequencies: class '1' has no test items but a deployment frequency of 0.2"):
        evaluate(confusions, u, class_frequencies=[0.4, 0.2, 0.4])
    with pytest.raises(ValueError, match=r"^class_counts: class '1' has no test items"):
        evaluate(confusions, u, class_counts=[10, 0, 10])
    result = evaluate(confusions, u, class_frequencies=[0.5, 0, 0.5])
    assert {c.name: c.utility_yield for c in result.classifiers} == pytest.approx(
        {"A": 0.5 * 5 / 7 + 0.5 * 7 / 8, "B": 0.5 * 6 / 7 + 0.5 * 7 / 8}
    )


# --- uncertain frequencies, from counts -------------------------------------------------------


def test_counts_rank_by_the_posterior_mean_of_the_frequencies():
    result = evaluate_file(LOTTERY, class_counts=[3, 297])
    mean = (np.array([3, 297]) + PRIOR / 2) / (300 + PRIOR)  # Dirichlet(counts + PRIOR spread over 2 classes)
    assert list(result.class_frequencies["deployment"].values()) == pytest.approx(mean, rel=1e-14)
    always = next(c for c in result.classifiers if c.name == "always buy")
    assert always.utility_yield == pytest.approx(10 * mean[0] - mean[1], rel=1e-12)
    assert result.class_frequencies["counts"] == {"win": 3.0, "lose": 297.0}


def test_uncertain_frequencies_widen_the_intervals_as_a_numpy_posterior_does():
    """Confusion matrices only: pi ~ Dirichlet(counts + PRIOR / n), each column Dirichlet(its
    counts + PRIOR / n^2), the yield sum_j pi_j sum_i U_ij P(i | j)."""
    name, k = "in-between", np.array([30.0, 50.0, 20.0])
    counts = np.array(TRIAGE["classifiers"][name], dtype=float)
    u = np.array(TRIAGE["utility"], dtype=float)
    result = evaluate({name: counts}, u, classes=TRIAGE["classes"], class_counts=k, test_uncertainty=True, samples=40_000, rng=3)
    low, high = result.classifiers[0].utility_yield_interval
    rng, s = np.random.default_rng(11), 40_000
    pi = rng.dirichlet(k + PRIOR / 3, s)
    columns = np.stack([rng.dirichlet(counts[:, j] + PRIOR / 9, s) for j in range(3)], axis=2)  # (s, output, true)
    yields = np.einsum("sij,ij->s", columns * pi[:, None, :], u)
    for fraction in (np.mean(yields < low), np.mean(yields > high)):
        assert abs(fraction - 0.025) < 4 * np.sqrt(2 * 0.025 * 0.975 / s), (fraction, low, high)
    fixed = evaluate({name: counts}, u, classes=TRIAGE["classes"], class_frequencies=(k + PRIOR / 3) / (k.sum() + PRIOR),
                     test_uncertainty=True, samples=40_000, rng=3)  # fmt: skip
    fixed_low, fixed_high = fixed.classifiers[0].utility_yield_interval
    assert high - low > fixed_high - fixed_low  # the frequencies' own doubt is added


def _deployment_oracle(labels, first, second, u, pi, samples, rng):
    """Plain NumPy: per true class j, P(A's output, B's output | j) ~ Dirichlet(the class's n^2
    joint counts + PRIOR / n^3), independent; the difference sum_j pi_j sum_ab P(a, b | j) w_jab."""
    n = u.shape[0]
    table = np.zeros((n, n, n))
    np.add.at(table, (labels.truth, labels.outputs[first], labels.outputs[second]), 1)
    difference = np.zeros(samples)
    for j in range(n):
        f = rng.dirichlet(table[j].ravel() + PRIOR / n**3, samples).reshape(samples, n, n)
        weights = u[:, j][:, None] - u[:, j][None, :]  # (a, b): U[a, j] - U[b, j]
        difference += pi[j] * np.einsum("sab,ab->s", f, weights)
    return difference


def test_the_deployment_flip_probability_with_labels_agrees_with_a_numpy_posterior():
    classes = tuple(TRIAGE["classes"])
    data = load_labels(EXAMPLES / "triage_labels.csv", classes=classes)
    keep = np.random.default_rng(0).random(data.labels.truth.size) < 0.1  # a test set small enough to doubt
    labels = ItemLabels(data.labels.truth[keep], {k: v[keep] for k, v in data.labels.outputs.items()})
    n, names = 3, ["cautious", "in-between"]
    confusions = {k: np.bincount(labels.outputs[k] * n + labels.truth, minlength=n * n).reshape(n, n) for k in names}
    pi = np.array([0.5, 0.3, 0.2])
    result = evaluate(confusions, TRIAGE["utility"], classes=classes, class_frequencies=pi, labels=labels,
                      test_uncertainty=True, samples=40_000, rng=5)  # fmt: skip
    (pair,) = result.pairs
    assert result.test_uncertainty["exact_pairs"] == 0 and pair.flip_probability_test_se > 0  # drawn, not exact
    u = np.array(TRIAGE["utility"], dtype=float)
    d = _deployment_oracle(labels, pair.better, pair.worse, u, pi, 200_000, np.random.default_rng(6))
    reference = np.mean(d < 0)
    assert 0.02 < reference < 0.5, reference  # a pair in real doubt: not an idle check
    se = np.hypot(pair.flip_probability_test_se, np.sqrt(reference * (1 - reference) / 200_000))
    assert abs(pair.flip_probability_test - reference) < 4 * se, (pair.flip_probability_test, reference)


# --- bad input --------------------------------------------------------------------------------

BAD = [
    (["--class-frequencies", "0.5,-0.1,0.6"], "--class-frequencies: the value of class 'benign', -0.1, is negative"),
    (["--class-frequencies", "0.5,nan,0.5"], "--class-frequencies: the value of class 'benign', nan, is NaN"),
    (["--class-frequencies", "0.5,inf,0.5"], "is infinite"),
    (["--class-frequencies", "0.5,0.5"], "--class-frequencies has 2 values but there are 3 classes (healthy, benign, malignant)"),
    (["--class-frequencies", "0.5,0.3,0.3"], "--class-frequencies sum to 1.1, not 1 (within 1e-06)"),
    (["--class-frequencies", "0.5,0.3,0.2000011"], "sum to 1.0000011, not 1"),
    (["--class-frequencies", "0.5,x,0.2"], "--class-frequencies: 'x' is not a number"),
    (["--class-counts", "0,0,0"], "--class-counts are all 0"),
    (["--class-counts", "5,-1,3"], "--class-counts: the value of class 'benign', -1, is negative"),
    (["--class-counts", "-1,5,3"], "--class-counts: the value of class 'healthy', -1, is negative"),  # not an option
    (["--class-counts", "5,1.5,3"], "--class-counts: the value of class 'benign', 1.5, is not a whole number (they are counts)"),
    (["--class-frequencies", "-0.1,0.6,0.5"], "--class-frequencies: the value of class 'healthy', -0.1, is negative"),
    (["--class-counts", "5,3"], "--class-counts has 2 values but there are 3 classes"),
    (["--class-frequencies", "0.5,0.3,0.2", "--class-counts", "5,3,2"], "give --class-frequencies or --class-counts, not both"),
]


@pytest.mark.parametrize(("options", "message"), BAD, ids=[b[1][:40] for b in BAD])
def test_bad_frequencies_give_one_line_exit_2_and_nothing_written(capsys, options, message):
    code, out, err = run(capsys, EXAMPLES / "triage_3class.json", *options)
    assert code == 2 and out == ""
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_frequencies_within_the_tolerance_are_taken_and_normalised():
    result = evaluate(
        TRIAGE["classifiers"], TRIAGE["utility"], classes=TRIAGE["classes"], class_frequencies=[0.3333333, 0.3333333, 0.3333333]
    )
    assert sum(result.class_frequencies["deployment"].values()) == pytest.approx(1.0, abs=1e-15)


def test_library_errors_name_the_parameter_not_the_flag():
    for kwargs, message in (({"class_frequencies": [0.5, 0.6, -0.1]}, "class_frequencies: the value"),
                            ({"class_frequencies": [1.0]}, "class_frequencies has 1 values"),
                            ({"class_counts": [1, 2]}, "class_counts has 2 values")):  # fmt: skip
        with pytest.raises(ValueError) as error:
            evaluate(TRIAGE["classifiers"], TRIAGE["utility"], **kwargs)
        assert str(error.value).startswith(message) and "--" not in str(error.value), error.value
