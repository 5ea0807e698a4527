"""Model selection across cross-validation folds (``mcrank.evaluate.folds``): the Bayesian
correlated t-test against its closed form with scipy.stats.t (and baycomp when installed), the
probability of being best against the pair tests and against scipy's multivariate t, the
zero-variance cases, the yields from labels, the command line end to end, and every bad input."""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from mcrank.cli import main
from mcrank.evaluate import compare_folds, fold_yields
from mcrank.evaluate.folds import compare_folds_file, student_t_cdf, student_t_sf
from mcrank.evaluate.folds.report import render_csv
from mcrank.evaluate.report import short_probability as _short

ROOT = Path(__file__).resolve().parent.parent
UTILITY = [[3, -1], [-4, 1]]


# --- the oracle: the test as SPEC writes it, with scipy.stats.t --------------------------------


def correlated_t_test(x, y, rope, runs=1):
    """(P(x better), P(equivalent), P(y better), p-value): the Bayesian correlated t-test
    (Corani & Benavoli 2015) and the corrected resampled t-test, written from their formulas;
    baycomp's ``two_on_single(x, y, rope, runs)`` computes the same (its ``1 / (k - 1)`` is
    ``rho / (1 - rho)`` at ``rho = 1 / k``)."""
    d = np.asarray(y, float) - np.asarray(x, float)
    n = d.size
    k = n / runs
    scale = math.sqrt(d.var(ddof=1) * (1 / n + 1 / (k - 1)))
    posterior = stats.t(n - 1, loc=d.mean(), scale=scale)
    left, right = posterior.cdf(-rope), posterior.sf(rope)
    return left, 1 - left - right, right, 2 * stats.t.sf(abs(d.mean()) / scale, n - 1)


def oriented(result, a, b):
    """(P(a better), P(equivalent), P(b better), p) of the pair (a, b), whichever comes first."""
    p = result.pair(a, b)
    if p.first == a:
        return p.probability_first_better, p.probability_equivalent, p.probability_second_better, p.p_value
    return p.probability_second_better, p.probability_equivalent, p.probability_first_better, p.p_value


# --- the Student t distribution, without scipy at run time ----------------------------------


@pytest.mark.parametrize("df", [2, 3, 4, 5, 9, 19, 49, 99, 999])
def test_the_student_t_tail_is_scipys(df):
    t = np.concatenate([-np.logspace(-6, 3, 40), [0.0], np.logspace(-6, 3, 40)])
    ours = np.array([student_t_sf(float(v), df) for v in t])
    np.testing.assert_allclose(ours, stats.t.sf(t, df), rtol=1e-11, atol=0)
    np.testing.assert_allclose([student_t_cdf(float(v), df) for v in t], stats.t.cdf(t, df), rtol=1e-11, atol=0)


def test_the_student_t_tail_with_one_and_many_degrees_of_freedom():
    t = np.concatenate([-np.logspace(-8, 6, 50), np.logspace(-8, 6, 50)])
    # One degree of freedom is Cauchy's, whose upper tail is atan(1/t)/pi (scipy is off by 3e-9 near 0 there).
    cauchy = [math.atan(1 / v) / math.pi if v > 0 else 0.5 - math.atan(v) / math.pi for v in t]
    np.testing.assert_allclose([student_t_sf(float(v), 1) for v in t], cauchy, rtol=1e-13)
    np.testing.assert_allclose([student_t_sf(float(v), 10**5) for v in t[np.abs(t) < 30]], stats.t.sf(t[np.abs(t) < 30], 10**5), rtol=1e-8)
    assert student_t_sf(math.inf, 5) == 0.0 and student_t_sf(-math.inf, 5) == 1.0 and student_t_sf(1e300, 3) == 0.0


# --- the pair test against its closed form -----------------------------------------------------


@pytest.mark.parametrize("runs", [1, 2, 10])
@pytest.mark.parametrize("rope", [0.0, 0.01, 0.05])
def test_each_pair_is_the_correlated_t_test(runs, rope):
    rng = np.random.default_rng(runs * 100 + int(rope * 1000))
    n = 10 * runs
    x = rng.normal(0.80, 0.03, n)
    y = x + rng.normal(0.01, 0.02, n)
    result = compare_folds({"x": x, "y": y}, repeats=runs, rope=rope, samples=1000, rng=1)
    expected = correlated_t_test(x, y, rope, runs)
    np.testing.assert_allclose(oriented(result, "x", "y"), expected, rtol=1e-9, atol=1e-15)
    assert result.test_fraction == pytest.approx(1 / 10) and result.repeats == runs


def test_a_test_fraction_is_rho_itself():
    rng = np.random.default_rng(5)
    x, y = rng.normal(0.5, 0.1, 30), rng.normal(0.55, 0.1, 30)
    result = compare_folds({"x": x, "y": y}, test_fraction=0.25, rope=0.02, samples=1000, rng=1)
    d = y - x
    scale = math.sqrt(d.var(ddof=1) * (1 / 30 + 0.25 / 0.75))
    left, right = stats.t.cdf(-0.02, 29, d.mean(), scale), stats.t.sf(0.02, 29, d.mean(), scale)
    np.testing.assert_allclose(oriented(result, "x", "y")[:3], (left, 1 - left - right, right), rtol=1e-9)
    assert result.repeats is None and result.pair("x", "y").scale == pytest.approx(scale)


def test_baycomp_two_on_single_agrees_when_installed():
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(11)
    for runs, rope in ((1, 0.0), (3, 0.0), (3, 0.02), (5, 0.005)):
        x = rng.normal(0.7, 0.05, 10 * runs)
        y = x + rng.normal(0.005, 0.03, 10 * runs)
        result = compare_folds({"x": x, "y": y}, repeats=runs, rope=rope, samples=1000, rng=1)
        ours = oriented(result, "x", "y")
        theirs = baycomp.two_on_single(x, y, rope, runs=runs)
        np.testing.assert_allclose((ours[0], ours[2]) if rope == 0 else ours[:3], theirs, rtol=1e-9, atol=1e-15)
    same = np.array([0.5, 0.75, 0.25, 0.5])
    for rope in (0.0, 0.1):  # identical models: baycomp splits a rope of 0 evenly, else all equivalent
        ours = oriented(compare_folds({"x": same, "y": same}, rope=rope, samples=100, rng=1), "x", "y")
        theirs = baycomp.two_on_single(same, same.copy(), rope)
        np.testing.assert_array_equal((ours[0], ours[2]) if rope == 0 else ours[:3], theirs)


# --- the probability of being best --------------------------------------------------------------


@pytest.mark.parametrize("runs", [1, 4])
def test_with_two_models_p_best_is_the_pairs_p_better(runs):
    rng = np.random.default_rng(runs)
    x = rng.normal(0.8, 0.02, 5 * runs)
    y = x + rng.normal(0.006, 0.02, 5 * runs)
    result = compare_folds({"x": x, "y": y}, repeats=runs, samples=200_000, rng=7)
    x_better, _, y_better, _ = oriented(result, "x", "y")
    by_name = {m.name: m for m in result.models}
    for name, exact in (("x", x_better), ("y", y_better)):
        model = by_name[name]
        assert abs(model.probability_best - exact) < 4 * model.probability_best_se, (name, model, exact)
    assert by_name["x"].probability_best + by_name["y"].probability_best == pytest.approx(1)


def test_p_best_is_the_argmax_of_scipys_multivariate_t():
    # An independent oracle: scipy draws the joint posterior the docstring defines.
    rng = np.random.default_rng(3)
    n, repeats = 15, 3
    shared = rng.normal(0, 0.02, n)  # correlated models, as models on the same folds are
    y = np.array([0.80 + shared + rng.normal(0, 0.01, n), 0.805 + shared + rng.normal(0, 0.015, n), 0.79 + rng.normal(0, 0.02, n)])
    names = ["a", "b", "c"]
    result = compare_folds(dict(zip(names, y)), repeats=repeats, samples=200_000, rng=2)
    rho = repeats / n
    shape = np.cov(y) * (1 / n + rho / (1 - rho))
    draws = stats.multivariate_t(loc=y.mean(axis=1), shape=shape, df=n - 1).rvs(size=200_000, random_state=np.random.default_rng(9))
    oracle = np.bincount(draws.argmax(axis=1), minlength=3) / draws.shape[0]
    for model in result.models:
        expected = oracle[names.index(model.name)]
        se = math.hypot(model.probability_best_se, math.sqrt(expected * (1 - expected) / draws.shape[0]))
        assert abs(model.probability_best - expected) < 4 * se, (model, expected)
    assert sum(m.probability_best for m in result.models) == pytest.approx(1)


def test_more_models_than_folds_and_a_seed_that_repeats():
    rng = np.random.default_rng(4)
    yields = {f"m{k}": rng.normal(0.5 + 0.01 * k, 0.05, 4) for k in range(7)}  # a singular covariance
    first = compare_folds(yields, samples=20_000, rng=5)
    again = compare_folds(yields, samples=20_000, rng=5)
    assert [m.probability_best for m in first.models] == [m.probability_best for m in again.models]
    assert sum(m.probability_best for m in first.models) == pytest.approx(1) and first.seed == 5
    assert len(first.pairs) == 21 and [m.rank for m in first.models] == list(range(1, 8))


# --- zero variance ------------------------------------------------------------------------------


def test_identical_models_say_so_and_share_their_chance():
    a = np.array([0.5, 0.75, 0.25, 0.5, 0.625])
    b = a + np.array([-0.1, 0.05, 0.0, 0.02, -0.03])
    result = compare_folds({"a": a, "twin": a.copy(), "b": b}, samples=50_000, rng=1)
    pair = result.pair("a", "twin")
    assert pair.zero_variance and pair.identical and pair.difference == 0.0 and pair.scale == 0.0
    assert (pair.probability_first_better, pair.probability_equivalent, pair.probability_second_better, pair.p_value) == (
        0.5,
        0.0,
        0.5,
        1.0,
    )
    assert pair.verdict(0.0) == "identical"
    by_name = {m.name: m for m in result.models}
    assert by_name["a"].probability_best == by_name["twin"].probability_best  # tied in every draw
    assert by_name["a"].rank == by_name["twin"].rank == 1
    with_rope = compare_folds({"a": a, "twin": a.copy()}, rope=0.01, samples=100, rng=1).pair("a", "twin")
    assert (with_rope.probability_first_better, with_rope.probability_equivalent, with_rope.probability_second_better) == (0, 1, 0)
    assert "identical to a on every fold: twin" in str(result)


def test_a_difference_the_same_on_every_fold_is_certain():
    a = np.array([0.5, 0.75, 0.25, 0.5])
    result = compare_folds({"a": a, "b": a + 0.125}, samples=10_000, rng=1)
    pair = result.pair("a", "b")
    assert pair.first == "b" and pair.zero_variance and not pair.identical and pair.difference == 0.125
    assert (pair.probability_first_better, pair.probability_second_better, pair.p_value) == (1.0, 0.0, 0.0)
    assert [(m.name, m.probability_best, m.probability_best_se) for m in result.models] == [("b", 1.0, 0.0), ("a", 0.0, 0.0)]
    inside = compare_folds({"a": a, "b": a + 0.125}, rope=0.125, samples=100, rng=1).pair("a", "b")  # on the rope's edge: equivalent
    assert (inside.probability_first_better, inside.probability_equivalent) == (0.0, 1.0)
    # Rounding can leave an offset such as 0.1 not quite constant: near certainty, no division by zero.
    near = compare_folds({"a": a * 0.3, "b": a * 0.3 + 0.1}, samples=100, rng=1).pair("a", "b")
    assert near.probability_first_better > 1 - 1e-9 and near.p_value < 1e-9
    # Differences whose squares underflow: a zero variance, not a division by zero.
    tiny = compare_folds({"a": [0.0, 0.0, 0.0], "b": [1e-310, 2e-310, 1e-310]}, samples=100, rng=1).pair("a", "b")
    assert tiny.zero_variance and (tiny.probability_first_better, tiny.p_value) == (1.0, 0.0)


# --- per-fold yields ------------------------------------------------------------------------------


def test_fold_yields_are_the_mean_utility_of_each_folds_items():
    rng = np.random.default_rng(8)
    truth = rng.choice(["sick", "well"], 60)
    outputs = {"a": rng.choice(["sick", "well"], 60), "b": truth.copy()}
    folds = np.repeat(["f2", "f0", "f1"], 20)
    yields = fold_yields(truth, outputs, folds, utility=UTILITY, classes=["sick", "well"])
    index = {"sick": 0, "well": 1}
    for name, output in outputs.items():
        for position, fold in enumerate(["f0", "f1", "f2"]):  # sorted fold names
            items = [UTILITY[index[o]][index[t]] for o, t, f in zip(output, truth, folds) if f == fold]
            assert yields[name][position] == pytest.approx(sum(items) / len(items))


def test_the_two_ways_from_scikit_learn_agree():
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from mcrank.sklearn import make_utility_scorer

    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::3], y[::3]
    models = {"logistic": make_pipeline(StandardScaler(), LogisticRegression()), "naive_bayes": GaussianNB()}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    scorer = make_utility_scorer(UTILITY, labels=[0, 1])
    scored = {name: cross_validate(model, X, y, cv=cv, scoring=scorer)["test_score"] for name, model in models.items()}
    truth, outputs, folds = [], {name: [] for name in models}, []
    for split, (train, test) in enumerate(cv.split(X, y)):
        truth.append(y[test])
        folds.append(np.full(test.size, split))
        for name, model in models.items():
            outputs[name].append(clone(model).fit(X[train], y[train]).predict(X[test]))
    yields = fold_yields(np.concatenate(truth), {n: np.concatenate(o) for n, o in outputs.items()}, np.concatenate(folds), utility=UTILITY,
                         classes=[0, 1])  # fmt: skip
    for name in models:
        np.testing.assert_allclose(yields[name], scored[name], rtol=1e-12)


def test_the_examples_in_the_docstrings_run():
    pytest.importorskip("sklearn")
    import doctest

    import mcrank.evaluate.folds as module

    outcome = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert outcome.attempted >= 20 and outcome.failed == 0


# --- the report ------------------------------------------------------------------------------------


def test_the_report_leads_with_the_choice_and_names_what_it_cannot_separate():
    logistic = np.random.default_rng(12).normal(0.7, 0.03, 10)
    noise = np.array([0.01, -0.012, 0.008, -0.006, 0.011, -0.009, 0.004, -0.007, 0.002, 0.001])
    yields = {"logistic": logistic, "svm": logistic + 0.003 + noise, "tree": logistic - 0.1}
    result = compare_folds(yields, repeats=2, samples=20_000, rng=1)
    lines = str(result).splitlines()
    svm_over_logistic = oriented(result, "svm", "logistic")[0]
    assert lines[0].startswith(f"choose svm: P(best) {_short(result.chosen.probability_best)} across 10 folds; over logistic")
    assert svm_over_logistic < 0.95 and "not separated from svm" in lines[1] and "logistic" in str(result).split("\n\n")[0]
    assert "tree" not in str(result).split("\n\n")[0]  # separated: P(svm better) is 1
    assert result.pair("svm", "tree").verdict(0.0) == "first better"


def test_the_decisions_probabilities_never_look_surer_than_they_are():
    assert (_short(0.9459), _short(0.0541), _short(0.57), _short(0.43), _short(0.999), _short(0.5)) == (
        "0.94", "0.06", "0.57", "0.43", "0.9990", "0.50",
    )  # fmt: skip


def test_json_and_csv_hold_every_number():
    rng = np.random.default_rng(2)
    yields = {name: rng.normal(0.5, 0.05, 6) for name in ("a", "b", "c")}
    result = compare_folds(yields, repeats=2, rope=0.01, samples=5000, rng=3)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["chosen"] == result.chosen.name and len(data["pairs"]) == 3 and data["models"][0]["yields"] == list(result.models[0].yields)
    rows = list(csv.DictReader(line for line in render_csv(result).splitlines() if not line.startswith("#")))
    first = rows[0]
    other = result.models[1].name
    assert float(first[f"probability_better_than_{other}"]) == oriented(result, first["model"], other)[0]


# --- bad input: a ValueError naming the argument -----------------------------------------------------


@pytest.mark.parametrize(
    ("yields", "options", "message"),
    [
        ({"a": [0.5], "b": [0.6]}, {}, "yields: model 'a' has 1 fold: the comparison needs at least 2 folds per model"),
        ({"a": [0.5, 0.6, 0.7], "b": [0.6, 0.5]}, {}, "the folds of different models differ"),
        ({"a": [0.5, np.nan], "b": [0.6, 0.5]}, {}, "yields: model 'a', fold 1: yield nan is not finite"),
        ({"a": [0.5, 0.6]}, {}, "at least two model names"),
        ({"a": [0.5, 0.6], "b": [0.6, 0.5]}, {"rope": -0.01}, "rope must be non-negative"),
        ({"a": [0.5, 0.6, 0.4], "b": [0.6, 0.5, 0.4]}, {"repeats": 2}, "repeats: 3 folds do not divide into 2 repeats"),
        ({"a": [0.5, 0.6], "b": [0.6, 0.5]}, {"repeats": 2}, "repeats: 2 folds in 2 repeats is 1 fold a repeat"),
        ({"a": [0.5, 0.6], "b": [0.6, 0.5]}, {"repeats": 1, "test_fraction": 0.5}, "give repeats or test_fraction, not both"),
        ({"a": [0.5, 0.6], "b": [0.6, 0.5]}, {"test_fraction": 1.0}, "test_fraction must be between 0 and 1"),
        ({"a": [0.5, 1e200], "b": [0.6, 0.5]}, {}, "yields: model 'a', fold 1: yield 1e+200 is beyond"),
    ],
)
def test_bad_yields_are_a_value_error_naming_the_argument(yields, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        compare_folds(yields, samples=100, rng=1, **options)


def test_bad_folds_of_labels_are_a_value_error_naming_the_argument(tmp_path):
    truth, a, b = ["sick", "well", "well", "sick"], ["sick", "sick", "well", "well"], ["well", "well", "well", "sick"]
    with pytest.raises(ValueError, match="folds: one fold"):
        fold_yields(truth, {"a": a, "b": b}, [0, 0, 0, 0], utility=UTILITY)
    with pytest.raises(ValueError, match="folds: model 'b''s folds differ from model 'a''s at item 2"):
        fold_yields(truth, {"a": a, "b": b}, {"a": [0, 0, 1, 1], "b": [0, 0, 0, 1]}, utility=UTILITY)
    path = tmp_path / "labels.csv"
    path.write_text("fold,true,a,b\n" + "".join(f"7,{t},{x},{y}\n" for t, x, y in zip(truth, a, b)))
    keyed = json.dumps({"utility": UTILITY, "classes": ["sick", "well"]})
    with pytest.raises(ValueError, match="the parameter folds_column"):
        compare_folds_file(path, utility=keyed, folds_column="fold")
    with pytest.raises(ValueError, match="no column 'split' of folds"):
        compare_folds_file(path, utility=keyed, folds_column="split")


def test_text_labels_with_a_plain_matrix_are_refused_as_through_every_door(tmp_path):
    # One class convention: the order of sick/well under a plain matrix is not guessed.
    truth, a, b = ["sick", "well", "well", "sick"], ["sick", "sick", "well", "well"], ["well", "well", "well", "sick"]
    with pytest.raises(ValueError, match="classes: the labels of y_true and the predictions"):
        fold_yields(truth, {"a": a, "b": b}, [0, 0, 1, 1], utility=UTILITY)
    named = fold_yields(truth, {"a": a, "b": b}, [0, 0, 1, 1], utility=UTILITY, classes=["sick", "well"])
    keyed = fold_yields(truth, {"a": a, "b": b}, [0, 0, 1, 1], utility={"utility": UTILITY, "classes": ["sick", "well"]})
    assert all(np.array_equal(named[m], keyed[m]) for m in named)
    path = tmp_path / "labels.csv"
    path.write_text("fold,true,a,b\n" + "".join(f"{k // 2},{t},{x},{y}\n" for k, (t, x, y) in enumerate(zip(truth, a, b))))
    with pytest.raises(ValueError, match="name it with the parameter classes"):
        compare_folds_file(path, utility=json.dumps(UTILITY), folds_column="fold")


# --- the command line ----------------------------------------------------------------------------------


def _labels_with_folds(tmp_path, folds=6, per_fold=25, seed=0):
    """A labels table with a fold column, and the per-fold yields computed here, item by item."""
    rng = np.random.default_rng(seed)
    rows, yields = [["split", "true", "cautious", "bold"]], {"cautious": [], "bold": []}
    for fold in range(folds):
        totals = {"cautious": 0.0, "bold": 0.0}
        for _ in range(per_fold):
            truth = int(rng.random() < 0.4)
            outputs = {"cautious": truth if rng.random() < 0.85 else 1 - truth, "bold": truth if rng.random() < 0.8 else 1 - truth}
            for name, output in outputs.items():
                totals[name] += UTILITY[output][truth]
            rows.append([f"s{fold}", ("pos", "neg")[truth], *(("pos", "neg")[outputs[n]] for n in ("cautious", "bold"))])
        for name in yields:
            yields[name].append(totals[name] / per_fold)
    path = tmp_path / "labels.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows(rows)
    return path, {name: np.array(v) for name, v in yields.items()}


def test_the_command_line_end_to_end(tmp_path, capsys):
    path, yields = _labels_with_folds(tmp_path)
    utility = json.dumps({"utility": UTILITY, "classes": ["pos", "neg"]})
    argv = ["evaluate", "--labels", str(path), "--utility", utility, "--folds-column", "split", "--repeats", "2", "--rope", "0.05"]
    assert main([*argv, "--seed", "1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["folds"] == 6 and data["repeats"] == 2 and data["test_fraction"] == pytest.approx(1 / 3)
    assert data["fold_names"] == [f"s{k}" for k in range(6)] and data["folds_column"] == "split"
    (pair,) = data["pairs"]
    first, second = pair["first"], pair["second"]
    expected = correlated_t_test(yields[first], yields[second], 0.05, runs=2)
    got = (pair["probability_first_better"], pair["probability_equivalent"], pair["probability_second_better"], pair["p_value"])
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    for model in data["models"]:
        np.testing.assert_allclose(model["yields"], yields[model["name"]], rtol=1e-12)
    assert main([*argv, "--seed", "1", "--samples", "2000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"choose {data['chosen']}: P(best) ") and "Bayesian correlated t-test" in out
    written = tmp_path / "out.csv"
    assert main([*argv, "--seed", "1", "--out", str(written), "--quiet"]) == 0
    assert written.read_text().startswith("# folds: 6\n") and "probability_better_than_bold" in written.read_text()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda a: a[: a.index("--folds-column")] + ["--rope", "0.1"],
            "--rope is a region of practical equivalence, for the comparison across folds",
        ),
        (lambda a: a + ["--rope", "-0.1"], "--rope must be non-negative"),
        (lambda a: a + ["--rope", "wide"], "--rope must be a number"),
        (lambda a: [x.replace("labels.csv", "one_fold.csv") for x in a], "(--folds-column) names one fold ('7')"),
        (lambda a: a[: a.index("--folds-column")] + ["--folds-column", "nope"], "no column 'nope' of folds"),
        (lambda a: a + ["--repeats", "4"], "--repeats: 6 folds do not divide into 4 repeats"),
        (lambda a: a + ["--repeats", "0"], "--repeats must be a whole number"),
        (lambda a: a + ["--sd", "0.1"], "--sd is not an option of --folds-column"),
        (lambda a: a + ["--test-uncertainty"], "--test-uncertainty is not an option of --folds-column"),
        (lambda a: a + ["--folds", "3"], "--folds is not an option of --folds-column"),
        (lambda a: [x for x in a if x != "--labels"][:1] + a[3:], "give --labels"),
        (lambda a: a[:3] + a[5:], "labels need a utility matrix: give --utility"),
    ],
)
def test_bad_command_lines_are_one_line_and_exit_2(tmp_path, capsys, change, message):
    path, _ = _labels_with_folds(tmp_path)
    with open(path) as file:
        rows = list(csv.reader(file))
    one = tmp_path / "one_fold.csv"
    with open(one, "w", newline="") as file:
        csv.writer(file, lineterminator="\n").writerows([rows[0], *(["7", *r[1:]] for r in rows[1:])])
    out = tmp_path / "out.json"
    argv = ["evaluate", "--labels", str(path), "--utility", json.dumps({"utility": UTILITY, "classes": ["pos", "neg"]}),
            "--out", str(out), "--folds-column", "split"]  # fmt: skip
    code = main(change(argv))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("mcrank evaluate: error: "), err
    assert message in err, err
    assert not out.exists()


def test_folds_with_scores_are_refused_with_the_reason(tmp_path, capsys):
    scores = tmp_path / "scores.csv"
    scores.write_text("true,a\npos,0.9\nneg,0.2\n")
    code = main(["evaluate", "--scores", str(scores), "--positive", "pos", "--folds-column", "fold"])
    err = capsys.readouterr().err
    assert code == 2 and "--folds-column takes --labels, not --scores" in err and err.count("\n") == 1


# --- the example of docs/evaluate-folds.md ---------------------------------------------------------


def _example():
    import importlib.util

    spec = importlib.util.spec_from_file_location("wine_folds", ROOT / "examples" / "wine_folds.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_guide_shows_the_fold_examples_real_output(capsys, monkeypatch):
    pytest.importorskip("sklearn")
    monkeypatch.chdir(ROOT)  # the command names its files from the repository's root
    command = _example().COMMAND
    assert main(command) == 0
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "evaluate-folds.md").read_text()
    shown = guide[guide.index(f"$ mcrank {' '.join(command)}\n") :].split("\n", 1)[1].split("```")[0]
    assert shown == out and out.startswith("choose svm: P(best) 0.46 across 20 folds")


@pytest.mark.slow
def test_the_committed_fold_labels_are_the_scripts_cross_validated_predictions():
    pytest.importorskip("sklearn")
    with open(ROOT / "examples" / "wine_folds.csv", newline="") as file:
        committed = list(csv.reader(file))
    rows = _example().cross_validated_folds()
    assert rows[0] == ["fold", "true", "logistic", "forest", "knn", "naive_bayes", "svm", "tree"]
    assert len(rows) == 1 + 4 * 178 and rows == committed
