"""Probabilistic classifiers (``mcrank evaluate --probabilities``): the yields of the
expected-utility decisions against a plain-NumPy oracle, the Brier score and log loss against
scikit-learn's, the flagged pairs, the test-set posterior against a Dirichlet drawn here, the
recalibration, and the CLI on the examples and on bad files."""

from __future__ import annotations

import csv
import json
import math
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss

from mcrank.cli import main
from mcrank.evaluate import evaluate, evaluate_probabilities
from mcrank.evaluate.probabilities import ProbabilityEvaluation

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = ROOT / "examples" / "triage_3class.json"
EXAMPLE = ROOT / "examples" / "probabilities.csv"
BINARY = ROOT / "examples" / "probabilities_binary.csv"
BINARY_UTILITY = json.dumps({"utility": [[1, 0.9], [0, 1]], "classes": ["malignant", "benign"]})


def _random_probabilities(rng, items, n, sharpness=1.0):
    z = rng.normal(size=(items, n)) * sharpness
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _oracle_yield(y, p, u):
    """The mean utility of each item's decision of maximal expected utility, by loops: the first
    decision of the highest expected utility wins a tie."""
    u = np.asarray(u, dtype=float)
    total = 0.0
    for k in range(len(y)):
        expected = [sum(u[i, j] * p[k, j] for j in range(u.shape[1])) for i in range(u.shape[0])]
        best = 0
        for i in range(1, len(expected)):
            if expected[i] > expected[best]:
                best = i
        total += u[best, y[k]]
    return total / len(y)


# --- the scores and the yields ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_brier_and_log_loss_are_sklearns(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 200)
    models = {"a": _random_probabilities(rng, 200, 2), "b": _random_probabilities(rng, 200, 2, 3.0)}
    u = [[3, -1], [-2, 1]]  # columns: 0, 1, the order of predict_proba's columns
    result = evaluate_probabilities(y, models, u, classes=[0, 1], recalibration=None)
    for m in result.models:
        p = models[m.name]
        assert abs(m.brier_score - brier_score_loss(y, p[:, 1], pos_label=1)) < 1e-9
        assert abs(m.brier_score - brier_score_loss(y, p)) < 1e-9  # scale_by_half="auto": halved for two classes
        assert abs(m.log_loss - log_loss(y, p)) < 1e-9
        assert abs(m.utility_yield - _oracle_yield(y, p, u)) < 1e-12


def test_binary_one_column_with_text_labels():
    """One column per model, the positive class's probability, for text labels in a named order."""
    rng = np.random.default_rng(3)
    y = np.where(rng.random(150) < 0.4, "ill", "well")
    q = rng.random(150)  # P(ill)
    u = [[5, -1], [-10, 1]]  # columns: ill, well
    result = evaluate_probabilities(y, {"m": q}, u, classes=["ill", "well"], positive="ill", recalibration=None)
    (m,) = result.models
    assert abs(m.brier_score - brier_score_loss(y, q, pos_label="ill")) < 1e-9
    assert abs(m.log_loss - log_loss(y == "ill", q)) < 1e-9
    truth = np.where(y == "ill", 0, 1)
    assert abs(m.utility_yield - _oracle_yield(truth, np.column_stack([q, 1 - q]), u)) < 1e-12
    # The other class's probabilities, named so, give the same decisions and scores.
    other = evaluate_probabilities(y, {"m": 1 - q}, u, classes=["ill", "well"], positive="well", recalibration=None)
    assert other.models[0].utility_yield == m.utility_yield and abs(other.models[0].brier_score - m.brier_score) < 1e-12


@pytest.mark.parametrize("seed", [0, 1])
def test_multiclass_brier_is_the_sum_over_classes_and_log_loss_is_sklearns(seed):
    rng = np.random.default_rng(seed)
    n, items = 4, 250
    y = rng.integers(0, n, items)
    models = {f"m{k}": _random_probabilities(rng, items, n, 0.5 + k) for k in range(3)}
    u = rng.integers(-5, 10, size=(n, n))
    result = evaluate_probabilities(y, models, u, recalibration=None)
    for m in result.models:
        p = models[m.name]
        seed_003 = np.mean(np.sum((p - np.eye(n)[y]) ** 2, axis=1))  # mean over items of sum_j (p_j - [y = j])^2
        assert abs(m.brier_score - seed_003) < 1e-9
        # scikit-learn >= 1.7 has the multi-class Brier score: with scale_by_half="auto", not halved, the same sum.
        assert abs(m.brier_score - brier_score_loss(y, p, labels=list(range(n)))) < 1e-9
        assert abs(m.log_loss - log_loss(y, p, labels=list(range(n)))) < 1e-9
        assert abs(m.utility_yield - _oracle_yield(y, p, u)) < 1e-12


def test_ties_go_to_the_lowest_decision_and_a_zero_probability_gives_an_infinite_log_loss():
    y = np.array([0, 1, 1])
    p = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])  # a tie under the identity; item 2 is certain and wrong
    result = evaluate_probabilities(y, {"m": p}, [[1, 0], [0, 1]], recalibration=None)  # the identity needs no class order
    (m,) = result.models
    assert result.order_source == "natural"
    assert m.decisions.tolist() == [0, 0, 0]
    assert m.utility_yield == pytest.approx(1 / 3, abs=1e-15)
    assert m.log_loss == math.inf  # scikit-learn clips to machine epsilon instead
    assert result.to_dict()["models"][0]["log_loss"] is None and result.to_dict()["models"][0]["log_loss_infinite"]


def _csv_rows(text):
    return list(csv.DictReader(line for line in text.splitlines() if not line.startswith("#")))


def test_an_infinite_log_loss_ranks_last_and_ties_only_another_infinite():
    """A model that gives a true class probability 0 has an infinite log loss: below every finite
    one, level with another infinite one, in every rendering; and no pair is flagged that the
    yields and the log loss order alike."""
    from scipy.stats import rankdata

    from mcrank.evaluate.probabilities_report import render_csv
    from mcrank.evaluate.result import _compare

    y = np.array([0, 1, 0, 1, 0, 1])
    class_1 = {
        "a": [0.2, 0.8, 0.3, 0.7, 0.4, 0.6],  # every item right, a finite loss
        "b": [0.0, 0.9, 0.1, 0.8, 0.2, 0.0],  # item 5 (class 1) at P = 0: infinite
        "c": [1.0, 0.9, 0.1, 0.8, 0.2, 0.7],  # item 0 (class 0) at P(0) = 0: infinite
    }
    models = {name: np.column_stack([1 - np.array(q), q]) for name, q in class_1.items()}
    result = evaluate_probabilities(y, models, np.eye(2), recalibration=None)
    with np.errstate(divide="ignore"):
        losses = {name: -np.mean(np.log(p[np.arange(6), y])) for name, p in models.items()}
    expected = dict(zip(losses, rankdata(list(losses.values()), method="min").astype(int).tolist()))
    assert expected == {"a": 1, "b": 2, "c": 2}
    by_name = {m.name: m for m in result.models}
    assert {name: m.log_loss_rank for name, m in by_name.items()} == expected
    assert [m.name for m in result.models] == ["a", "b", "c"] and [m.rank for m in result.models] == [1, 2, 2]  # yields 1, 5/6, 5/6
    assert result.disagreements["log_loss"] == ()  # b and c tie by yield and by log loss
    text = str(result)
    assert "log loss ranks otherwise" not in text
    assert re.search(r"\n   2  b .* inf \(2\)", text) and re.search(r"\n   2  c .* inf \(2\)", text)
    rows = result.to_dict()["models"]
    assert [(r["model"], r["log_loss"], r["log_loss_rank"], r.get("log_loss_infinite")) for r in rows] == [
        ("a", pytest.approx(losses["a"], abs=1e-12), 1, None), ("b", None, 2, True), ("c", None, 2, True)]  # fmt: skip
    assert [(r["log_loss"], r["log_loss_rank"]) for r in _csv_rows(render_csv(result))][1:] == [("inf", "2"), ("inf", "2")]
    page = result._repr_html_()
    assert page.count("<td>+inf (2)</td>") == 2 and "infinite" not in page
    # Each score's rank shares its value's cell, the Brier score's (brier_rank) as the log loss's.
    headings = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    assert "brier score" in headings and not any("rank" in h for h in headings if h != "rank")
    brier = {m.name: m.brier_score for m in result.models}
    assert f"<td>{brier['a']:.4f} (1)</td>" in page
    # The rule itself: an infinity ties only with an equal one.
    assert [int(_compare(a, b)) for a, b in [(math.inf, 1e300), (1.0, math.inf), (math.inf, math.inf), (-math.inf, -math.inf),
                                             (-math.inf, -1.0), (1.0, 1.0 + 1e-13), (2.0, 1.0)]] == [1, -1, 0, 0, -1, 0, 1]  # fmt: skip


def test_an_infinite_log_loss_of_the_best_yield_is_flagged_the_right_way(tmp_path, capsys):
    """The model with the best yield has an infinite log loss: the log loss ranks the other above
    it, and the report says so, through the CLI too."""
    rows = [("0", 0.0, 0.6), ("1", 0.9, 0.4), ("0", 0.1, 0.6), ("1", 0.8, 0.4), ("0", 0.2, 0.2), ("1", 0.0, 0.8)]  # P(class 1)
    path = _write(tmp_path, "true,sure:0,sure:1,vague:0,vague:1\n" + "".join(f"{t},{1 - b},{b},{1 - e},{e}\n" for t, b, e in rows))
    # sure: item 5 wrong (P = 0 for its class), yield 5/6, infinite loss; vague: items 0-3 wrong, yield 2/6.
    code, out, err = run(capsys, "--probabilities", path, "--utility", "[[1, 0], [0, 1]]", "--recalibration", "none")
    assert code == 0 and err == ""
    assert re.search(r"\n   1  sure .* inf \(2\)", out) and re.search(r"\n   2  vague .* \(1\)", out)
    assert "* the log loss ranks otherwise: vague over sure" in out
    code, out, err = run(capsys, "--probabilities", path, "--utility", "[[1, 0], [0, 1]]", "--recalibration", "none", "--format", "json")
    document = json.loads(out)
    assert [(m["model"], m["log_loss_rank"]) for m in document["models"]] == [("sure", 2), ("vague", 1)]
    assert document["disagreements"]["log_loss"] == [["sure", "vague"]]


def test_an_infinite_recalibrated_log_loss_is_said_so():
    """Isotonic recalibration maps a probability below every one it was fitted on to the value
    there: here 0 for the class that occurs, so the recalibrated log loss is infinite."""
    from mcrank.evaluate.probabilities_report import render_csv

    # Class 0: five items at P(0) = 0.9, one at 0.05; class 1: six at 0.1. With two folds, the
    # fold without the odd item maps P(0) <= 0.1 to 0, and the odd item is below that: P(0) = 0.
    y = np.array([0] * 6 + [1] * 6)
    p0 = np.array([0.9] * 5 + [0.05] + [0.1] * 6)
    result = evaluate_probabilities(y, {"m": np.column_stack([p0, 1 - p0])}, np.eye(2), recalibration="isotonic", folds=2, rng=3)
    (m,) = result.models
    assert math.isfinite(m.log_loss) and m.recalibrated_log_loss == math.inf
    (row,) = result.to_dict()["models"]
    assert row["recalibrated_log_loss"] is None and row["recalibrated_log_loss_infinite"] is True and "log_loss_infinite" not in row
    json.dumps(row, allow_nan=False)  # JSON-safe
    (line,) = _csv_rows(render_csv(result))
    assert line["recalibrated_log_loss"] == "inf" and "recalibrated_log_loss_infinite" not in line
    assert line["log_loss"] == repr(m.log_loss)
    assert "<td>+inf</td>" in result._repr_html_()


def test_the_pairs_the_scores_order_otherwise_are_flagged():
    """A utility that weighs one class's errors heavily: the sharp, biased model scores better but decides worse."""
    rng = np.random.default_rng(11)
    items = 400
    y = (rng.random(items) < 0.3).astype(int)  # class 1 rare
    log_odds = rng.normal(size=items) + 2.5 * (2 * y - 1)  # log odds of class 1
    calibrated = 1 / (1 + np.exp(-(0.5 * log_odds)))
    sharp = 1 / (1 + np.exp(-(log_odds - 2.5)))  # better separated, shifted towards class 0
    models = {"calibrated": np.column_stack([1 - calibrated, calibrated]), "sharp": np.column_stack([1 - sharp, sharp])}
    u = [[1, -20], [0, 1]]  # columns: 0, 1; missing class 1 costs 21 times a false alarm
    result = evaluate_probabilities(y, models, u, classes=[0, 1], recalibration=None)
    yields = {name: _oracle_yield(y, p, u) for name, p in models.items()}
    briers = {name: np.mean(np.sum((p - np.eye(2)[y]) ** 2, axis=1)) / 2 for name, p in models.items()}
    losses = {name: -np.mean(np.log(p[np.arange(items), y])) for name, p in models.items()}
    (a, b) = sorted(models, key=lambda name: -yields[name])
    assert [m.name for m in result.models] == [a, b]
    for key, score in (("brier_score", briers), ("log_loss", losses)):
        expected = ((a, b),) if score[b] < score[a] else ()
        assert result.disagreements[key] == expected
    assert result.disagreements["brier_score"], "the example must show a flagged pair"


TIE2 = "true,m1,m2\nyes,0.9,0.4\nno,0.6,0.3\nyes,0.7,0.8\nno,0.1,0.3\nyes,0.8,0.9\nno,0.2,0.1\n"
YES_NO = '{"utility": [[1, 0], [0, 1]], "classes": ["yes", "no"]}'


@pytest.mark.parametrize("swapped", [False, True])
def test_a_pair_tied_by_yield_is_said_as_the_score_orders_it(tmp_path, capsys, swapped):
    """Two models of the same yield: the scores separate them, and the line names the one the
    score puts first, whichever comes first in the file."""
    header, *rows = TIE2.splitlines()
    if swapped:
        rows = [",".join(cells[i] for i in (0, 2, 1)) for cells in (row.split(",") for row in rows)]
        header = "true,m2,m1"
    path = _write(tmp_path, "\n".join([header, *rows]) + "\n")
    y = np.array([1, 0, 1, 0, 1, 0])  # yes
    p_yes = {"m1": np.array([0.9, 0.6, 0.7, 0.1, 0.8, 0.2]), "m2": np.array([0.4, 0.3, 0.8, 0.3, 0.9, 0.1])}
    yields = {name: np.mean((q > 0.5) == y) for name, q in p_yes.items()}  # the identity decides yes above 1/2
    briers = {name: np.mean((q - y) ** 2) for name, q in p_yes.items()}
    losses = {name: -np.mean(np.log(np.where(y == 1, q, 1 - q))) for name, q in p_yes.items()}
    assert yields["m1"] == yields["m2"] == 5 / 6 and briers["m1"] < briers["m2"] and losses["m1"] < losses["m2"]
    code, out, err = run(capsys, "--probabilities", path, "--utility", YES_NO, "--positive", "yes", "--recalibration", "none")
    assert code == 0 and err == ""
    assert re.search(r"\n   1  m1 .*\(1\) +[0-9.]+ \(1\)\n", out) and re.search(r"\n   1  m2 .*\(2\) +[0-9.]+ \(2\)\n", out)
    assert "* the Brier score ranks otherwise: m1 over m2 (equal yields)\n" in out
    assert "* the log loss ranks otherwise: m1 over m2 (equal yields)\n" in out and "m2 over m1" not in out
    code, out, err = run(capsys, "--probabilities", path, "--utility", YES_NO, "--positive", "yes", "--recalibration", "none",
                         "--format", "json")  # fmt: skip
    document = json.loads(out)
    ranks = {m["model"]: (m["rank"], m["brier_rank"], m["log_loss_rank"]) for m in document["models"]}
    assert ranks == {"m1": (1, 1, 1), "m2": (1, 2, 2)}
    first = ["m2", "m1"] if swapped else ["m1", "m2"]  # the pair in rank order, ties in the file's
    assert document["disagreements"] == {"brier_score": [first], "log_loss": [first]}


def test_a_pair_a_score_ties_or_reverses_is_said_so():
    """b decides better than a; the Brier score ties them and the log loss prefers a."""
    y = np.array([0, 1, 1])
    p_1 = {"a": np.array([0.6, 1.0, 1.0]), "b": np.array([0.2, 0.6, 0.6])}  # a wrong on item 0; b right on all
    models = {name: np.column_stack([1 - q, q]) for name, q in p_1.items()}
    briers = {name: np.mean((q - y) ** 2) for name, q in p_1.items()}  # 0.36 / 3 both
    losses = {name: -np.mean(np.log(np.where(y == 1, q, 1 - q))) for name, q in p_1.items()}
    assert abs(briers["a"] - briers["b"]) < 1e-15 and losses["a"] < losses["b"]
    result = evaluate_probabilities(y, models, np.eye(2), recalibration=None)
    assert [(m.name, m.rank, m.brier_rank, m.log_loss_rank) for m in result.models] == [("b", 1, 1, 2), ("a", 2, 1, 1)]
    assert result.disagreements == {"brier_score": (("b", "a"),), "log_loss": (("b", "a"),)}
    text = str(result)
    assert "* the Brier score ranks otherwise: b level with a\n" in text and "* the log loss ranks otherwise: a over b\n" in text


def test_evaluate_takes_probabilities_by_keyword():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 3, 60)
    models = {"a": _random_probabilities(rng, 60, 3), "b": _random_probabilities(rng, 60, 3, 2.0)}
    u = [[4, 0, -2], [0, 3, 0], [-1, 0, 5]]
    via_front_door = evaluate(y_true=y, probabilities=models, utility=u, recalibration=None)
    assert isinstance(via_front_door, ProbabilityEvaluation)
    direct = evaluate_probabilities(y, models, u, recalibration=None)
    assert via_front_door.to_dict() == direct.to_dict()
    with pytest.raises(ValueError, match="y_true"):
        evaluate(probabilities=models, utility=u)


# --- the class order ------------------------------------------------------------------------------


def test_a_plain_matrix_for_one_column_of_0_1_labels_is_refused_not_guessed():
    y, q = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.1]  # P(1), by scikit-learn's positive label
    u = [[1, 0], [0, 2]]
    with pytest.raises(ValueError, match=r"^classes: the labels of y_true are 0 and 1, .* name its order"):
        evaluate_probabilities(y, {"m": q}, u, recalibration=None)
    # A column per class, in a plain matrix, is refused the same way: two classes are always named.
    with pytest.raises(ValueError, match=r"^classes: the labels of y_true are 0 and 1"):
        evaluate_probabilities(y, {"m": np.column_stack([1 - np.array(q), q])}, [[2, 0], [0, 1]], recalibration=None)
    # Said either way, it is read as said: by classes=, or by the utility's own classes.
    named = evaluate_probabilities(y, {"m": q}, u, classes=[1, 0], recalibration=None)
    in_class_order = evaluate_probabilities(y, {"m": np.column_stack([1 - np.array(q), q])}, [[2, 0], [0, 1]], classes=[0, 1],
                                            recalibration=None)  # fmt: skip
    with_classes = evaluate_probabilities(y, {"m": q}, {"utility": u, "classes": [1, 0]}, recalibration=None)
    assert named.models[0].utility_yield == in_class_order.models[0].utility_yield == with_classes.models[0].utility_yield
    assert named.models[0].utility_yield == pytest.approx(5 / 4, abs=1e-15)  # decisions 0, 1, 0, 0: (2 + 1 + 0 + 2) / 4
    # The identity reads alike in both orders: it needs no name.
    assert evaluate_probabilities(y, {"m": q}, np.eye(2), recalibration=None).models[0].utility_yield == 1.0
    # Text labels with no order named are refused too; a column per class in a named order is read in it.
    with pytest.raises(ValueError, match="classes"):
        evaluate_probabilities(["a", "b"], {"m": [[0.5, 0.5], [0.2, 0.8]]}, u, recalibration=None)


Y01, Q01, U01 = [0, 1, 1, 0], [0.2, 0.7, 0.6, 0.1], [[1, 0], [0, 2]]
LABEL_FORMS = {"int": int, "text": str, "float": float}


def _in_cli(tmp_path, capsys, *extra, utility=U01):
    path = _write(tmp_path, "true,m\n" + "".join(f"{t},{q}\n" for t, q in zip(Y01, Q01)))
    return run(capsys, "--probabilities", path, "--utility", json.dumps(utility), "--recalibration", "none", *extra)


@pytest.mark.parametrize("form", LABEL_FORMS)
def test_the_positive_class_of_one_column_is_decided_alike_at_every_door(tmp_path, capsys, form):
    """Labels 0/1 as integers, text or floats, and the same file on the command line: named 0
    first with no positive, the first class (0) and scikit-learn's positive label (1) disagree,
    and every door refuses it in one line that names both; named 1 first, or positive named,
    every door reads the column so."""
    label = LABEL_FORMS[form]
    y = [label(v) for v in Y01]
    with pytest.raises(ValueError) as refused:
        evaluate_probabilities(y, {"m": Q01}, U01, classes=[label(0), label(1)], recalibration=None)
    message = str(refused.value)
    assert message.startswith("positive: the first of the classes is ") and "positive label for y_true is" in message
    assert f"with the parameter positive ({label(1)!r} or {label(0)!r})" in message and "only for labels" not in message
    code, out, err = _in_cli(tmp_path, capsys, "--classes", "0,1")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("mcrank evaluate: error: --positive: the first of the classes is '0' but scikit-learn's positive label")
    assert "with --positive ('1' or '0')" in err
    # Class 1 first: the column is P(1) by either rule.
    u = np.asarray(U01, dtype=float)
    q = np.array(Q01)
    truth = 1 - np.array(Y01)  # index in the order 1, 0
    expected = _oracle_yield(truth, np.column_stack([q, 1 - q]), u)
    assert expected == 5 / 4
    result = evaluate_probabilities(y, {"m": Q01}, U01, classes=[label(1), label(0)], recalibration=None)
    assert result.positive == str(label(1)) and result.models[0].utility_yield == expected
    code, out, err = _in_cli(tmp_path, capsys, "--classes", "1,0", "--format", "json")
    assert code == 0 and json.loads(out)["positive"] == "1" and json.loads(out)["models"][0]["utility_yield"] == expected
    # The positive class named: the column is P(0), read in the order 0, 1.
    named = _oracle_yield(np.array(Y01), np.column_stack([q, 1 - q]), u)
    result = evaluate_probabilities(y, {"m": Q01}, U01, classes=[label(0), label(1)], positive=label(0), recalibration=None)
    assert result.positive == str(label(0)) and result.models[0].utility_yield == named
    code, out, err = _in_cli(tmp_path, capsys, "--classes", "0,1", "--positive", "0", "--format", "json")
    assert code == 0 and json.loads(out)["positive"] == "0" and json.loads(out)["models"][0]["utility_yield"] == named


def test_labels_0_1_take_1_as_positive_at_every_door_when_no_order_is_needed(tmp_path, capsys):
    """The identity reads alike in both orders: labels 0/1 need no named order, and the column
    is P(1), as scikit-learn's positive label, for integer labels and for a file's."""
    q = np.array(Q01)
    expected = _oracle_yield(np.array(Y01), np.column_stack([1 - q, q]), np.eye(2))
    assert expected == 1.0
    for y in (Y01, [str(v) for v in Y01]):
        result = evaluate_probabilities(y, {"m": Q01}, np.eye(2), recalibration=None)
        assert result.positive == "1" and result.models[0].utility_yield == expected
    code, out, err = _in_cli(tmp_path, capsys, "--format", "json", utility=[[1, 0], [0, 1]])
    assert code == 0 and err == "" and json.loads(out)["positive"] == "1" and json.loads(out)["models"][0]["utility_yield"] == expected


@pytest.mark.parametrize(
    ("probabilities", "match"),
    [
        ({"m": [[0.5, 0.6], [0.2, 0.8]]}, "sum to 1.1"),
        ({"m": [[1.2, -0.2], [0.2, 0.8]]}, "outside"),
        ({"m": [[math.nan, 0.5], [0.2, 0.8]]}, "NaN"),
        ({"m": [[0.5, 0.5], [0.2, 0.8]], "n": [[0.5, 0.5, 0.0], [0.2, 0.8, 0.0]]}, r"probabilities\['n'\]: shape \(2, 3\)"),
        ({"m": [0.5, 0.2, 0.3]}, "3 items but y_true has 2"),
        ({}, "non-empty"),
    ],
)
def test_bad_probabilities_name_the_parameter(probabilities, match):
    with pytest.raises(ValueError, match=match):
        evaluate_probabilities([0, 1], probabilities, [[1, 0], [0, 1]], recalibration=None)


def test_an_out_of_range_probability_is_shown_as_it_is():
    """Just above 1 is not printed as 1, in the API or the command line."""
    with pytest.raises(ValueError, match=r"^probabilities\['m'\]: item 1: probability 1\.0000000001 is outside \[0, 1\]$"):
        evaluate_probabilities([0, 1], {"m": [0.5, 1.0000000001]}, np.eye(2), recalibration=None)
    with pytest.raises(ValueError, match=r"item 0, column 1: probability -1e-12 is outside \[0, 1\]$"):
        evaluate_probabilities([0, 1], {"m": [[1.0, -1e-12], [0.5, 0.5]]}, np.eye(2), recalibration=None)


@pytest.mark.parametrize(
    ("probabilities", "match"),
    [
        ({"a": [[0.5, 0.5], [0.2, 0.8]], "b": [[0.4, 0.6], [0.3, 0.7]]}, "the probabilities have 2 columns, one per class: give a 2x2"),
        ({"a": [0.5, 0.2], "b": [0.4, 0.3]}, "the probabilities are one per item, the two-class form: give a 2x2 utility"),
    ],
)
def test_a_utility_of_the_wrong_size_is_named_not_the_probabilities(probabilities, match):
    """Every model agrees on two classes and the utility has three: the utility is the one to fix."""
    with pytest.raises(ValueError, match=r"^utility: the utility matrix is 3x3, 3 classes, but " + match):
        evaluate_probabilities([0, 1], probabilities, np.eye(3), recalibration=None)
    with pytest.raises(ValueError, match=r"^utility: the utility matrix is 3x3"):
        evaluate(y_true=[0, 1], probabilities=probabilities, utility=np.eye(3), recalibration=None)


# --- the test-set posterior -------------------------------------------------------------------


def test_probability_above_is_the_joint_tables_dirichlet():
    """P(a above b) against Dirichlet draws of the pair's joint table (true class, a's decision,
    b's decision) with the prior 1 / n^3 a cell, made here."""
    rng = np.random.default_rng(5)
    items, n = 120, 2
    y = rng.integers(0, n, items)
    models = {"a": _random_probabilities(rng, items, n, 2.0), "b": _random_probabilities(rng, items, n, 2.0)}
    u = np.array([[2.0, -1.0], [-3.0, 1.0]])
    result = evaluate_probabilities(y, models, u, classes=[0, 1], test_uncertainty=True, samples=4000, recalibration=None, rng=7)
    first, second = (m.name for m in result.models)
    decisions = {m.name: m.decisions for m in result.models}
    table = np.zeros((n, n, n))
    np.add.at(table, (y, decisions[first], decisions[second]), 1)
    draws = np.random.default_rng(8).dirichlet((table + 1 / n**3).ravel(), size=40_000).reshape(-1, n, n, n)
    j, a, b = np.indices((n, n, n))
    difference = np.einsum("sjab,jab->s", draws, u[a, j] - u[b, j])
    wins = difference > 0
    p, se = result.probability_above[first, second]
    assert abs(p - wins.mean()) < 4 * wins.std() / math.sqrt(wins.size) + 1e-9
    for m in result.models:
        low, high = m.interval
        assert low < m.utility_yield < high


# --- recalibration ----------------------------------------------------------------------------------


def _binormal(rng, items):
    y = (rng.random(items) < 0.4).astype(int)
    scores = rng.normal(size=items) + 1.5 * y
    log_odds = np.log(0.4 / 0.6) + 1.5 * scores - 1.5**2 / 2  # exact log odds of class 1
    return y, log_odds


@pytest.mark.parametrize("method", ["platt", "isotonic"])
def test_recalibration_recovers_the_yield_lost_to_miscalibration(method):
    rng = np.random.default_rng(9)
    y, log_odds = _binormal(rng, 3000)
    calibrated = 1 / (1 + np.exp(-log_odds))
    distorted = 1 / (1 + np.exp(-(0.3 * log_odds - 1.5)))  # underconfident and too low: a monotone map of the calibrated
    models = {"calibrated": np.column_stack([1 - calibrated, calibrated]), "distorted": np.column_stack([1 - distorted, distorted])}
    u = [[1, -4], [0, 1]]  # columns: 0, 1
    result = evaluate_probabilities(y, models, u, classes=[0, 1], recalibration=method, rng=1)
    by_name = {m.name: m for m in result.models}
    loss = by_name["calibrated"].utility_yield - by_name["distorted"].utility_yield
    assert loss > 0.05  # the distortion costs utility
    # Recalibrated, the distorted model decides as well as the calibrated one, within the test set's noise,
    # and the calibrated one gains nothing beyond it.
    assert abs(by_name["distorted"].recalibrated_yield - by_name["calibrated"].utility_yield) < 0.3 * loss
    assert by_name["distorted"].recalibration_gain > 0.7 * loss
    assert abs(by_name["calibrated"].recalibration_gain) < 0.3 * loss
    assert by_name["distorted"].recalibrated_brier_score < by_name["distorted"].brier_score
    again = evaluate_probabilities(y, models, u, classes=[0, 1], recalibration=method, rng=1)
    assert again.to_dict() == result.to_dict()  # one seed, one answer


def test_multiclass_recalibration_and_its_refusals():
    rng = np.random.default_rng(10)
    y = rng.integers(0, 3, 300)
    p = _random_probabilities(rng, 300, 3)
    result = evaluate_probabilities(y, {"m": p}, np.eye(3), recalibration="platt", folds=3, rng=2)
    assert result.recalibration == "platt" and result.recalibration_folds == 3
    assert result.models[0].recalibrated_yield is not None
    with pytest.raises(ValueError, match="isotonic"):
        evaluate_probabilities(y, {"m": p}, np.eye(3), recalibration="isotonic")
    with pytest.raises(ValueError, match="recalibration"):
        evaluate_probabilities(y, {"m": p}, np.eye(3), recalibration="temperature")
    few = evaluate_probabilities([0, 0, 1, 1, 1, 1], {"m": [[0.5, 0.5]] * 6}, np.eye(2), rng=0)
    assert few.recalibration is None and "fewer than the 5 folds" in few.recalibration_note


def test_recalibration_none_and_folds_read_as_on_the_command_line(tmp_path, capsys):
    """recalibration="none" is --recalibration none; folds without a recalibration is refused, as
    --folds with --recalibration none is; folds= through evaluate is the recalibration's."""
    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, 60)
    p = {"m": _random_probabilities(rng, 60, 2)}
    off = evaluate_probabilities(y, p, np.eye(2), recalibration="none")
    assert off.to_dict() == evaluate_probabilities(y, p, np.eye(2), recalibration=None).to_dict()
    assert off.recalibration is None and off.recalibration_note is None and off.models[0].recalibrated_yield is None
    with pytest.raises(ValueError, match=r"^folds: the folds of the recalibration, which recalibration=None \(or 'none'\) turns off"):
        evaluate_probabilities(y, p, np.eye(2), recalibration="none", folds=3)
    with pytest.raises(ValueError, match=r"^unknown recalibration 'temperature'; choose from platt, isotonic, none$"):
        evaluate_probabilities(y, p, np.eye(2), recalibration="temperature")
    three = evaluate(y_true=y, probabilities=p, utility=np.eye(2), folds=3, rng=4)
    assert three.recalibration_folds == 3
    assert three.to_dict() == evaluate_probabilities(y, p, np.eye(2), folds=3, rng=4).to_dict()
    path = _write(tmp_path, "true,m:0,m:1\n" + "".join(f"{t},{a!r},{b!r}\n" for t, (a, b) in zip(y, p["m"].tolist())))
    code, out, err = run(
        capsys, "--probabilities", path, "--utility", "[[1, 0], [0, 1]]", "--folds", "3", "--seed", "4", "--format", "json"
    )
    assert code == 0 and json.loads(out)["recalibration"]["folds"] == 3
    assert json.loads(out)["models"] == three.to_dict()["models"]
    code, out, err = run(capsys, "--probabilities", path, "--utility", "[[1, 0], [0, 1]]", "--recalibration", "none", "--format", "json")
    assert code == 0 and json.loads(out)["models"] == off.to_dict()["models"]


def test_a_fit_that_does_not_converge_is_said_in_the_result_not_warned(monkeypatch):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import mcrank.evaluate.probabilities as probabilities_module

    fit = probabilities_module._fit_and_map

    def stopping(*args):
        warnings.warn("lbfgs failed to converge", ConvergenceWarning, stacklevel=1)
        return fit(*args)

    monkeypatch.setattr(probabilities_module, "_fit_and_map", stopping)
    rng = np.random.default_rng(13)
    y = rng.integers(0, 2, 60)
    result = evaluate_probabilities(y, {"m": _random_probabilities(rng, 60, 2)}, np.eye(2), rng=0)  # warnings are errors here
    assert result.recalibration_unconverged == ("m",) and "did not converge for m" in str(result)
    assert result.to_dict()["recalibration"]["unconverged"] == ["m"]


def test_without_sklearn_the_report_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn raises ImportError
    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 50)
    result = evaluate_probabilities(y, {"m": _random_probabilities(rng, 50, 2)}, np.eye(2), rng=0)
    assert result.recalibration is None and "pip install scikit-learn" in result.recalibration_note
    assert "pip install scikit-learn" in str(result)


# --- the command line -------------------------------------------------------------------------------


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _read_example(path, classes):
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    y = np.array([classes.index(row["true"]) for row in rows])
    models = {}
    for key in rows[0]:
        if key != "true":
            model, _, label = key.rpartition(":")
            models.setdefault(model, {})[label] = np.array([float(row[key]) for row in rows])
    return y, {model: np.column_stack([columns[c] for c in classes]) for model, columns in models.items()}


def test_cli_on_the_three_class_example_is_the_oracle(capsys):
    triage = json.loads(TRIAGE.read_text())
    y, models = _read_example(EXAMPLE, triage["classes"])
    code, out, err = run(capsys, "--probabilities", EXAMPLE, "--utility", TRIAGE, "--recalibration", "none", "--format", "json")
    assert code == 0 and err == ""
    document = json.loads(out)
    assert document["classes"] == triage["classes"]
    for row in document["models"]:
        p = models[row["model"]]
        assert abs(row["utility_yield"] - _oracle_yield(y, p, triage["utility"])) < 1e-12
        assert abs(row["brier_score"] - brier_score_loss(y, p, labels=[0, 1, 2])) < 1e-9
        assert abs(row["log_loss"] - log_loss(y, p, labels=[0, 1, 2])) < 1e-9
    code, out, err = run(capsys, "--probabilities", EXAMPLE, "--utility", TRIAGE, "--seed", "1")
    assert code == 0 and out.startswith("choose calibrated: by point yields alone")
    assert "Recalibration: multinomial logistic regression on log p" in out


def test_cli_on_the_binary_example_flags_the_brier_score(capsys):
    code, out, err = run(capsys, "--probabilities", BINARY, "--positive", "malignant", "--utility", BINARY_UTILITY, "--test-uncertainty",
                         "--samples", "2000", "--seed", "1")  # fmt: skip
    assert code == 0 and err == ""
    assert out.startswith("choose calibrated: the highest yield; over sharp")
    assert "* the Brier score ranks otherwise: sharp over calibrated" in out


def test_cli_writes_an_html_page_by_the_out_files_extension(capsys, tmp_path):
    page = tmp_path / "report.html"
    code, out, err = run(capsys, "--probabilities", BINARY, "--positive", "malignant", "--utility", BINARY_UTILITY, "--out", page)
    assert code == 0 and out == "" and err == f"mcrank evaluate: wrote {page}\n"
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "choose calibrated" in text and "Brier" in text


def _write(tmp_path, text, name="p.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


THREE = '{"utility": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "classes": ["a", "b", "c"]}'
TWO = '{"utility": [[1, 0], [0, 1]], "classes": ["a", "b"]}'


@pytest.mark.parametrize(
    ("text", "utility", "extra", "message"),
    [
        ("true,m:a,m:b,m:c\na,0.5,0.3,0.3\n", THREE, (), "line 2, columns m:*: the class probabilities sum to 1.1"),
        ("true,m:a,m:b,m:c\na,1.5,-0.5,0\n", THREE, (), "line 2, column 'm:a': probability 1.5 is outside [0, 1]"),
        ("true,m:a,m:b,m:c\na,nan,0.5,0.5\n", THREE, (), "column 'm:a': the probability is NaN"),
        ("true,m:a,m:b,m:c\na,0.5,x,0.5\n", THREE, (), "column 'm:b': 'x' is not a number"),
        ("true,m:a,m:b\na,0.5,0.5\n", THREE, (), "no column 'm:c'"),
        ("true,m:a,m:b,m:c\nd,0.5,0.5,0\n", THREE, (), "label 'd' is not one of the classes"),
        ("true,m:a,m:b,m:z\na,0.5,0.5,0\n", THREE, (), "label 'z' is not one of the classes"),
        ("true,m\na,1.5\n", TWO, ("--positive", "a"), "probability 1.5 is outside [0, 1]"),
        ("true,m\na,0.5\n", THREE, (), "one column per model is the two-class form"),
        ("true,m\n0,0.5\n1,0.2\n", "[[1, 0], [0, 2]]", ("--positive", "1"), "are '0' and '1', and a two-class utility matrix"),
        ("true,m\n0,0.5\n1,0.2\n", "[[1, 0], [0, 2]]", (), "with --classes (0,1 or 1,0)"),
        ("true,m\na,0.5\n", TWO, ("--positive", "q"), "--positive: 'q' is not one of the classes"),
        ("true,m\na,0.5\n", TWO, ("--positive", "a", "--details"), "--details is not an option of --probabilities"),
        ("true,m\na,0.5\n", TWO, ("--positive", "a", "--sd", "0.1"), "--sd is not an option of --probabilities"),
        ("true,m\na,0.5\n", TWO, ("--positive", "a", "--prior-count", "2"), "--prior-count is the prior of --test-uncertainty"),
        ("true,m\na,0.5\n", TWO, ("--positive", "a", "--recalibration", "isotonic", "--folds", "1"), "--folds"),
        ("true,m\na,0.5\n", None, ("--positive", "a"), "needs --utility"),
    ],
)
def test_cli_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, text, utility, extra, message):
    path = _write(tmp_path, text)
    out_file = tmp_path / "out.json"
    argv = ["--probabilities", path, *(() if utility is None else ("--utility", utility)), *extra, "--out", out_file]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("mcrank evaluate: error: ") and message in err, err
    assert not out_file.exists()


def test_cli_file_over_the_size_limit(tmp_path, capsys, monkeypatch):
    import mcrank.evaluate.input as input_module

    monkeypatch.setattr(input_module, "MAX_INPUT_BYTES", 64)
    path = _write(tmp_path, "true,m:a,m:b\n" + "a,0.5,0.5\n" * 20)
    code, out, err = run(capsys, "--probabilities", path, "--utility", TWO)
    assert code == 2 and out == "" and err.count("\n") == 1 and "64" in err


def test_cli_recalibration_alone_is_refused(capsys):
    code, out, err = run(capsys, TRIAGE, "--recalibration", "platt")
    assert code == 2 and "--recalibration is an option of --probabilities" in err


# --- the docs ---------------------------------------------------------------------------------------

GUIDE = ROOT / "docs" / "probabilities.md"


def _blocks(kind: str) -> list[str]:
    text = GUIDE.read_text()
    return re.findall(rf"```{kind}\n(.*?)```", text, flags=re.S)


def test_the_guides_console_blocks_are_the_real_output(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # the commands name their files from the repository's root
    monkeypatch.setenv("COLUMNS", "80")
    blocks = _blocks("console")
    assert len(blocks) == 2
    for block in blocks:
        command, shown = block.split("\n", 1)
        assert main(shlex.split(command.removeprefix("$ mcrank "))) == 0
        assert capsys.readouterr().out == shown


def test_the_guides_python_blocks_run(capsys):
    blocks = _blocks("python")
    assert len(blocks) == 2
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), {"__name__": "__guide__"})  # noqa: S102 - the docs' own code
    out = capsys.readouterr().out
    assert out.startswith("choose ")


def test_cli_a_note_is_not_said_when_the_command_refuses(capsys):
    code, out, err = run(capsys, "--probabilities", "/nonexistent/p.csv", "--utility", BINARY_UTILITY, "--samples", "100")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "note" not in err
    code, out, err = run(capsys, "--probabilities", BINARY, "--positive", "malignant", "--utility", BINARY_UTILITY, "--samples", "100",
                         "--recalibration", "none")  # fmt: skip
    assert code == 0 and "--samples not used" in err
