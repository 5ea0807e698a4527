"""One class order through every door (mcrank.evaluate.targets): the same utility matrix gives the
same yield for the same decision rule from labels, confusion matrices (in either orientation),
scores, decision curves, the scikit-learn scorer and estimator, mcrank.decisions and the command
line; where the order would be a guess it is refused. The oracle is plain NumPy: the mean over
the test items of U[decision, true class]."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.decisions import optimal_decisions
from mcrank.evaluate import decision_curves, evaluate, evaluate_predictions, rank_scoring, scored_test_set
from mcrank.evaluate.scoring import inverted_scores_note
from mcrank.evaluate.targets import class_order, natural_classes, oriented, positive_class

sklearn = pytest.importorskip("sklearn")

from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from mcrank.sklearn import UtilityClassifier, make_utility_scorer, utility_score  # noqa: E402

#: The classes in order: 0 benign, 1 malignant. Rows = decision (no biopsy, biopsy), columns =
#: true class: a missed cancer costs 9, a needless biopsy 1. Its Bayes rule: biopsy when P(malignant) > 0.1.
CLASSES = ("benign", "malignant")
UTILITY = np.array([[0.0, -9.0], [-1.0, 0.0]])
THRESHOLD = 0.1


@pytest.fixture(scope="module")
def walk():
    data = load_breast_cancer()
    y = (data.target == 0).astype(int)  # scikit-learn's target is 0 for malignant: 1 = malignant here
    X_train, X_test, y_train, y_test = train_test_split(data.data, y, test_size=0.4, stratify=y, random_state=0)
    model = make_pipeline(StandardScaler(), LogisticRegression(random_state=0)).fit(X_train, y_train)
    probabilities = model.predict_proba(X_test)
    p = probabilities[:, 1]
    assert not np.any(p == THRESHOLD)  # so that > and >= decide alike
    decision = (p > THRESHOLD).astype(int)
    return {"X_train": X_train, "y_train": y_train, "X_test": X_test, "y": y_test, "model": model, "proba": probabilities,
            "p": p, "decision": decision, "oracle": float(np.mean(UTILITY[decision, y_test]))}  # fmt: skip


def _oracle(decision, y):
    return float(np.mean(UTILITY[decision, y]))


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_labels_and_confusion_matrices_give_the_oracles_yield(walk):
    y, decision, oracle = walk["y"], walk["decision"], walk["oracle"]
    # Labels 0/1 and a plain matrix: the order is not guessed (it could be class 1 first).
    with pytest.raises(ValueError, match=r"^classes: the labels of y_true and the predictions are 0 and 1, and a two-class"):
        evaluate_predictions(y, {"lr": decision}, UTILITY)
    by_order = evaluate_predictions(y, {"lr": decision}, UTILITY, classes=(0, 1))
    assert by_order.classifiers[0].utility_yield == pytest.approx(oracle, abs=1e-12)
    named = np.array(CLASSES)
    by_name = evaluate_predictions(named[y], {"lr": named[decision]}, UTILITY, classes=CLASSES)
    keyed = evaluate_predictions(named[y], {"lr": named[decision]}, {"utility": UTILITY.tolist(), "classes": list(CLASSES)})
    assert by_name.classifiers[0].utility_yield == keyed.classifiers[0].utility_yield == pytest.approx(oracle, abs=1e-12)
    counts = np.zeros((2, 2))
    np.add.at(counts, (decision, y), 1)  # rows = decision, columns = true class
    assert evaluate({"lr": counts}, UTILITY).classifiers[0].utility_yield == pytest.approx(oracle, abs=1e-12)
    # scikit-learn's confusion_matrix (rows = true class), accepted by name, not transposed by hand.
    sk = confusion_matrix(y, decision)
    assert np.array_equal(sk.T, counts)
    from_sklearn = evaluate({"lr": sk}, UTILITY, orientation="sklearn")
    assert from_sklearn.classifiers[0].utility_yield == pytest.approx(oracle, abs=1e-12)
    assert np.array_equal(from_sklearn.classifiers[0].confusion, counts)


def test_scores_and_decision_curves_read_the_matrix_in_the_same_order(walk):
    y, p, oracle = walk["y"], walk["p"], walk["oracle"]
    # The silent wrong answer: labels 0/1, scores of class 1 (positive by default) and a matrix
    # in class order used to be read positive first. Now it is refused unless the order is named.
    with pytest.raises(ValueError, match=r"classes: the labels of y_true are '0' and '1', and a two-class utility matrix is written"):
        rank_scoring(scored_test_set(y, {"lr": p}), UTILITY, threshold_choice="test")
    ranking = rank_scoring(scored_test_set(y, {"lr": p}, classes=(0, 1), positive=1), UTILITY, threshold_choice="test")
    best = ranking.models[0]
    assert ranking.classes == ("0", "1") and ranking.positive == "1" and np.array_equal(ranking.utility, UTILITY)
    # Its yield is that of its own rule (>= its threshold), and no worse than the Bayes rule's, one of its candidates.
    own = (p >= best.threshold).astype(int)
    assert best.test_set_yield == pytest.approx(_oracle(own, y), abs=1e-12) and best.test_set_yield >= oracle - 1e-12
    assert evaluate_predictions(y, {"lr": own}, UTILITY, classes=(0, 1)).classifiers[0].utility_yield == pytest.approx(
        best.test_set_yield, abs=1e-12
    )
    # The same matrix written positive first, with the order named so, is the same problem.
    swapped = rank_scoring(scored_test_set(y, {"lr": p}, classes=(1, 0)), UTILITY[::-1, ::-1], threshold_choice="test")
    assert (swapped.models[0].threshold, swapped.models[0].test_set_yield) == (best.threshold, best.test_set_yield)
    # Decision curves: the yield under UTILITY is 9 NB(0.1) - 9 prevalence (treat at >= p_t, the same rule).
    curves = decision_curves(y, {"lr": p}, thresholds=[THRESHOLD])
    assert 9 * curves.net_benefit["lr"][0] - 9 * curves.prevalence == pytest.approx(oracle, abs=1e-12)


def test_scikit_learn_and_decisions_take_the_same_order(walk):
    y, decision, oracle = walk["y"], walk["decision"], walk["oracle"]
    with pytest.raises(ValueError, match=r"^labels: the labels of y are 0 and 1, and a two-class"):
        utility_score(y, decision, utility=UTILITY)
    with pytest.raises(ValueError, match=r"^labels: the labels of y are 0 and 1, and a two-class"):
        UtilityClassifier(walk["model"], UTILITY).fit(walk["X_train"], walk["y_train"])
    assert utility_score(y, decision, utility=UTILITY, labels=(0, 1)) == pytest.approx(oracle, abs=1e-12)
    classifier = UtilityClassifier(walk["model"], UTILITY, labels=[0, 1]).fit(walk["X_train"], walk["y_train"])
    assert np.array_equal(classifier.predict(walk["X_test"]), decision)
    assert make_utility_scorer(UTILITY, labels=[0, 1])(classifier, walk["X_test"], y) == pytest.approx(oracle, abs=1e-12)
    assert classifier.score(walk["X_test"], y) == pytest.approx(oracle, abs=1e-12)
    assert np.array_equal(optimal_decisions(walk["proba"], UTILITY), decision)
    named = np.array(CLASSES)
    with pytest.raises(ValueError, match="the parameter labels"):
        utility_score(named[y], named[decision], utility=UTILITY)
    assert utility_score(named[y], named[decision], utility=UTILITY, labels=CLASSES) == pytest.approx(oracle, abs=1e-12)


def test_the_command_line_reads_the_same_order_and_says_it(walk, capsys, tmp_path):
    y, p, decision, oracle = walk["y"], walk["p"], walk["decision"], walk["oracle"]
    named = np.array(CLASSES)
    labels = tmp_path / "labels.csv"
    labels.write_text("true,lr\n" + "".join(f"{a},{b}\n" for a, b in zip(named[y], named[decision])))
    keyed = json.dumps({"utility": UTILITY.tolist(), "classes": list(CLASSES)})
    code, out, err = run(capsys, "--labels", labels, "--utility", keyed, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["classifiers"][0]["utility_yield"] == pytest.approx(oracle, abs=1e-12)
    code, out, err = run(capsys, "--labels", labels, "--utility", keyed)
    assert code == 0 and "\nClasses: benign, malignant (the utility's order); rows = decision, columns =\ntrue class.\n" in out
    # A plain matrix with text labels: refused, saying how to name the order; named, the same yield.
    code, out, err = run(capsys, "--labels", labels, "--utility", json.dumps(UTILITY.tolist()))
    assert code == 2 and out == "" and err.count("\n") == 1 and "name it with --classes" in err
    code, out, err = run(capsys, "--labels", labels, "--utility", json.dumps(UTILITY.tolist()), "--classes", "benign,malignant",
                         "--format", "json")  # fmt: skip
    assert code == 0 and json.loads(out)["classifiers"][0]["utility_yield"] == pytest.approx(oracle, abs=1e-12)
    # Scores: the header names the classes, the layout and the positive class.
    scores = tmp_path / "scores.csv"
    scores.write_text("true,lr\n" + "".join(f"{a},{float(s)!r}\n" for a, s in zip(named[y], p)))
    code, out, err = run(capsys, "--scores", scores, "--utility", keyed, "--positive", "malignant", "--threshold-choice", "test")
    assert code == 0, err
    assert "Classes: benign, malignant (the utility's order); rows = decision, columns =\ntrue class; positive: malignant." in out
    code, out, err = run(capsys, "--scores", scores, "--utility", keyed, "--positive", "malignant", "--threshold-choice", "test",
                         "--format", "json")  # fmt: skip
    scoring = json.loads(out)["scoring"]
    best = scoring["models"][0]
    assert scoring["classes"] == list(CLASSES) and scoring["positive"] == "malignant"
    code, out, err = run(capsys, "--scores", scores, "--utility", keyed, "--positive", "malignant", "--threshold-choice", "test",
                         "--format", "csv")  # fmt: skip
    assert code == 0 and '# classes: ["benign", "malignant"]\n' in out and '# positive: "malignant"\n' in out
    assert best["test_set_yield"] == pytest.approx(_oracle((p >= best["threshold"]).astype(int), y), abs=1e-12)


def test_sklearn_orientation_is_the_transposed_matrix_in_mcranks(capsys, tmp_path):
    ours = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}
    theirs = {name: np.array(m).T.tolist() for name, m in ours.items()}
    utility = [[15, -335], [-35, 165]]
    plain = tmp_path / "ours.json"
    plain.write_text(json.dumps({"classifiers": ours, "utility": utility}))
    tagged = tmp_path / "theirs.json"
    tagged.write_text(json.dumps({"classifiers": theirs, "utility": utility, "orientation": "sklearn"}))
    untagged = tmp_path / "theirs_untagged.json"
    untagged.write_text(json.dumps({"classifiers": theirs, "utility": utility}))
    expected = run(capsys, plain, "--format", "json")[1]
    assert json.loads(run(capsys, tagged, "--format", "json")[1])["classifiers"] == json.loads(expected)["classifiers"]
    assert (
        json.loads(run(capsys, untagged, "--orientation", "sklearn", "--format", "json")[1])["classifiers"]
        == json.loads(expected)["classifiers"]
    )
    assert run(capsys, tagged)[1] == run(capsys, plain)[1]
    for argv, message in (
        ([tagged, "--orientation", "decision-by-class"], "--orientation: 'decision-by-class', but"),
        ([untagged, "--orientation", "columns"], "--orientation: 'columns' is not an orientation; give one of decision-by-class, sklearn"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
    csv_file = tmp_path / "long.csv"
    csv_file.write_text("classifier,output,true,count\nA,0,0,3\nA,1,1,2\n")
    code, _, err = run(capsys, csv_file, "--utility", json.dumps(utility), "--orientation", "sklearn")
    assert code == 2 and "--orientation: " in err and "is a CSV, which names each cell's output and true class" in err
    code, _, err = run(capsys, "--labels", tmp_path / "theirs.json", "--utility", json.dumps(utility), "--orientation", "sklearn")
    assert code == 2 and "--orientation: " in err and "holds labels" in err
    with pytest.raises(ValueError, match="orientation"):
        evaluate(ours, utility, orientation="transposed")


def test_the_rule(capsys):
    assert natural_classes([2, 0], 3) == (0, 1, 2) and natural_classes(["1", "0"], 2) == ("0", "1")
    assert natural_classes([True, False], 2) == (False, True)
    assert natural_classes([1, 2], 2) is None and natural_classes(["01", "1"], 2) is None and natural_classes(["a"], 2) is None
    assert class_order([0, 2], 3) == ((0, 1, 2), "natural") and class_order([0, 1], 2, order_free=True) == ((0, 1), "natural")
    assert class_order(["b", "a"], 2, utility_classes=("b", "a")) == (("b", "a"), "utility")
    assert class_order(["b", "a"], 2, classes=["a", "b"]) == (("a", "b"), "given")
    for labels, options, message in (
        (["b", "a"], {}, r"classes: the labels of y_true \('a', 'b'\): two classes have no natural order"),
        ([-1, 1], {}, "two classes have no natural order"),
        ([0, 1], {}, r"classes: the labels of y_true are 0 and 1, .* \(0,1 or 1,0\)"),
        ([True, False], {}, "the labels of y_true are False and True"),
        (["a", "b"], {"classes": ["a", "b"], "utility_classes": ("b", "a")}, "give one order"),
        (["a", "c"], {"classes": ["a", "b"]}, "label 'c' is not one of the classes"),
        (["a", "b"], {"classes": ["a", "b", "c"]}, "3 classes .* but the utility matrix has 2 columns"),
    ):
        with pytest.raises(ValueError, match=message):
            class_order(labels, 2, **options)
    assert positive_class([0, 1]) == 1 and positive_class(["x", "y"], classes=("y", "x")) == "y"
    assert positive_class([0, 1], positive=0) == 0 and positive_class([0, 1], classes=(1, 0)) == 1
    with pytest.raises(ValueError, match=r"positive: the first of the classes is 0 but scikit-learn's positive label"):
        positive_class([0, 1], classes=(0, 1))
    with pytest.raises(ValueError, match="positive: give the label of the positive class"):
        positive_class(["x", "y"])
    assert np.array_equal(oriented([[1, 2], [3, 4]], "sklearn"), [[1, 3], [2, 4]])
    # Labels 0/1 whose positive class is 0: the order is still named, whichever class the scores are for.
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([0.9, 0.8, 0.3, 0.1, 0.6, 0.4])
    with pytest.raises(ValueError, match="two-class utility matrix is written either"):
        rank_scoring(scored_test_set(y, {"m": s}, positive=0), UTILITY, threshold_choice="test")
    ranking = rank_scoring(scored_test_set(y, {"m": s}, positive=0, classes=(0, 1)), UTILITY, threshold_choice="test")
    assert ranking.classes == ("0", "1") and ranking.positive == "0" and ranking.order_source == "given"
    # A matrix equal to itself with the classes swapped reads alike in both orders: no name needed.
    assert rank_scoring(scored_test_set(y, {"m": s}, positive=0), np.eye(2), threshold_choice="test").order_source == "natural"
    # Named classes do not make up for a class the test set lacks.
    with pytest.raises(ValueError, match="only one class"):
        scored_test_set(["b", "b"], {"m": [0.1, 0.2]}, classes=("a", "b"))


@pytest.mark.parametrize("form", [int, str, float])
def test_the_0_1_rule_of_the_positive_class_holds_for_labels_as_numbers_or_text(form):
    """scikit-learn's positive label of labels 0/1 is 1 whether they are integers, floats or the
    text a file holds: the command line's labels are text, and decided as the API's are."""
    labels = [form(0), form(1)]
    assert positive_class(labels) == form(1) and positive_class(labels[::-1]) == form(1)
    assert positive_class(labels, classes=(form(1), form(0))) == form(1)
    with pytest.raises(ValueError, match=r"^positive: the first of the classes is .* but scikit-learn's positive label"):
        positive_class(labels, classes=(form(0), form(1)))
    assert positive_class([form(-1), form(1)]) == form(1)
    with pytest.raises(ValueError, match="positive: give the label of the positive class"):
        positive_class([form(0), form(2)])  # not labels 0/1: no default


def test_scores_on_the_command_line_name_0_first_and_the_positive_class_as_the_api_does(tmp_path, capsys):
    """Labels 0/1, --classes 0,1 and no --positive: the first class and scikit-learn's disagree,
    refused as scored_test_set(classes=(0, 1)) refuses it, not read as scores of class 0."""
    path = tmp_path / "scores.csv"
    path.write_text("true,m\n" + "".join(f"{t},{v}\n" for t, v in zip([0, 0, 1, 1, 0, 1], [0.9, 0.8, 0.3, 0.1, 0.6, 0.4])))
    with pytest.raises(ValueError, match=r"^positive: the first of the classes is 0 but scikit-learn's positive label"):
        scored_test_set([0, 0, 1, 1, 0, 1], {"m": [0.9, 0.8, 0.3, 0.1, 0.6, 0.4]}, classes=(0, 1))
    code, out, err = run(
        capsys, "--scores", path, "--utility", json.dumps(UTILITY.tolist()), "--classes", "0,1", "--threshold-choice", "test"
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--positive: the first of the classes is '0' but scikit-learn's positive label" in err and "('1' or '0')" in err
    code, out, err = run(capsys, "--scores", path, "--utility", json.dumps(UTILITY.tolist()), "--classes", "0,1", "--positive", "0",
                         "--threshold-choice", "test", "--format", "json")  # fmt: skip
    assert code == 0 and json.loads(out)["scoring"]["positive"] == "0"


def test_scores_of_labels_0_1_with_no_class_named_take_1_on_the_command_line_as_in_python(tmp_path, capsys):
    """With no --positive and no classes, the file's labels 0/1 take 1, as scored_test_set's do;
    labels with no default are refused in one line, not before the labels are read."""
    y, s = [0, 0, 1, 1, 0, 1], [0.9, 0.8, 0.3, 0.1, 0.6, 0.4]
    path = tmp_path / "scores.csv"
    path.write_text("true,m\n" + "".join(f"{t},{v}\n" for t, v in zip(y, s)))
    assert scored_test_set(y, {"m": s}).classes == ("1", "0")
    code, out, err = run(capsys, "--scores", path, "--utility", "[[1, 0], [0, 1]]", "--threshold-choice", "test", "--format", "json")
    assert code == 0 and err == "" and json.loads(out)["scoring"]["positive"] == "1"
    path.write_text("true,m\n" + "".join(f"{'yes' if t else 'no'},{v}\n" for t, v in zip(y, s)))
    code, out, err = run(capsys, "--scores", path, "--utility", "[[1, 0], [0, 1]]", "--threshold-choice", "test")
    assert code == 2 and out == "" and err.count("\n") == 1 and "give the label of the positive class" in err


def test_a_label_outside_the_classes_names_the_classifier_that_gave_it():
    """It said "y_true and the predictions: label nan ...", whichever array held it."""
    y = ["a", "b"] * 3
    with pytest.raises(ValueError, match=r"^classifier 'm': y_pred: label 'c' is not one of the classes 'a', 'b'$"):
        evaluate_predictions(y, {"n": y, "m": ["a", "c"] * 3}, np.eye(2), classes=("a", "b"))
    with pytest.raises(ValueError, match=r"^y_true: label 'c' is not one of the classes"):
        evaluate_predictions(["c", *y[1:]], {"m": y}, np.eye(2), classes=("a", "b"))


def test_scores_that_look_inverted_get_a_one_line_note(walk, capsys, tmp_path):
    y, p = walk["y"], walk["p"]
    named = np.array(CLASSES)
    scores = tmp_path / "scores.csv"
    scores.write_text("true,lr\n" + "".join(f"{a},{float(s)!r}\n" for a, s in zip(named[y], p)))
    code, _, err = run(capsys, "--scores", scores, "--positive", "malignant", "--thresholds", "0.5")
    assert code == 0 and err == ""
    # The scores of malignant, read as those of benign: every AUC far below 1/2.
    code, out, err = run(capsys, "--scores", scores, "--positive", "benign", "--thresholds", "0.5")
    assert code == 0 and out and err.count("\n") == 1
    assert err.startswith("mcrank evaluate: note: every model's AUC is well below 0.5 (0.00") and "'benign' (--positive)" in err
    # Uninformative scores are not inverted: AUC near 1/2 by chance draws no note.
    noise = np.random.default_rng(3).random(y.size)
    assert inverted_scores_note(scored_test_set(y, {"noise": noise})) is None
    assert inverted_scores_note(scored_test_set(y, {"lr": 1 - p})) is not None


# --- the mix-up of issue 40: a utility written class 1 first, for labels 0/1 -------------------
#
# Flagging (decision 1) a fraud (class 1) earns 95, flagging a legitimate item costs 16, missing
# a fraud costs 105, passing a legitimate item earns 3: written class 1 first, rows = decision
# (flag, pass), columns = true class (fraud, legitimate). Read in class order (0 first) it gave
# +43.6 for these decisions; their true yield is -11.3. Every door refuses it unless the order is
# named, and reads it right when it is.
MIXED_UP = [[95, -16], [-105, 3]]
Y = np.array([1, 0, 1, 1, 0, 0, 0, 0, 0, 0])
DECISION = np.array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0])
SCORE = np.where(DECISION == 1, 0.9, 0.01)  # P(fraud): decision 1 exactly where it is 0.9


def _mix_up_oracle(order):
    """Plain NumPy: the mean of U[row of the decision, column of the true class], the rows and
    columns in ``order``."""
    position = {label: k for k, label in enumerate(order)}
    rows, columns = [position[d] for d in DECISION], [position[t] for t in Y]
    return float(np.mean(np.asarray(MIXED_UP, dtype=float)[rows, columns]))


def test_the_mix_up_is_the_issues_numbers():
    assert _mix_up_oracle((1, 0)) == pytest.approx(-11.3, abs=1e-12)
    assert _mix_up_oracle((0, 1)) == pytest.approx(43.6, abs=1e-12)  # the silent misreading


REFUSED = r"^classes: the labels of .* are 0 and 1, and a two-class utility matrix is written either in class order"
KEYED = {"utility": MIXED_UP, "classes": ["1", "0"]}


def test_the_mix_up_through_evaluate_and_its_modes():
    truth = _mix_up_oracle((1, 0))
    with pytest.raises(ValueError, match=REFUSED):
        evaluate(y_true=Y, predictions={"m": DECISION}, utility=MIXED_UP)
    assert evaluate(y_true=Y, predictions={"m": DECISION}, utility=MIXED_UP, classes=[1, 0]).classifiers[0].utility_yield == pytest.approx(
        truth, abs=1e-12
    )
    # Per item: the same matrix for every item.
    per_item = np.broadcast_to(np.asarray(MIXED_UP, dtype=float), (10, 2, 2))
    with pytest.raises(ValueError, match=REFUSED):
        evaluate(y_true=Y, predictions={"m": DECISION}, utility=per_item)
    assert evaluate(y_true=Y, predictions={"m": DECISION}, utility=per_item, classes=[1, 0]).yields["m"] == pytest.approx(truth, abs=1e-12)
    assert evaluate(y_true=Y, predictions={"m": DECISION}, utility=KEYED).classifiers[0].utility_yield == pytest.approx(truth, abs=1e-12)
    assert evaluate_predictions(Y, {"m": DECISION}, KEYED).classifiers[0].utility_yield == pytest.approx(truth, abs=1e-12)
    # Folds: each fold's yield is the oracle's on its items.
    folds = np.arange(10) % 2
    with pytest.raises(ValueError, match=REFUSED):
        evaluate(y_true=Y, predictions={"m": DECISION, "n": 1 - DECISION}, utility=MIXED_UP, folds=folds)
    from mcrank.evaluate import fold_yields

    yields = fold_yields(Y, {"m": DECISION}, folds, utility=MIXED_UP, classes=[1, 0])["m"]
    u = np.asarray(MIXED_UP, dtype=float)
    by_hand = [float(np.mean(u[1 - DECISION[folds == f], 1 - Y[folds == f]])) for f in (0, 1)]
    np.testing.assert_allclose(yields, by_hand, rtol=1e-12)


def test_the_mix_up_through_the_scores():
    with pytest.raises(ValueError, match=r"^classes: the labels of y_true are '0' and '1', and a two-class"):
        evaluate(y_true=Y, scores={"m": SCORE}, utility=MIXED_UP, threshold_choice="test")
    ranking = evaluate(y_true=Y, scores={"m": SCORE}, utility=MIXED_UP, classes=[1, 0], threshold_choice="test")
    best = ranking.models[0]
    # The yield of its own rule (flag when the score reaches its threshold) under the matrix read right.
    own = (SCORE >= best.threshold).astype(int)
    u = np.asarray(MIXED_UP, dtype=float)
    assert best.test_set_yield == pytest.approx(float(np.mean(u[1 - own, 1 - Y])), abs=1e-12)
    assert ranking.positive == "1" and ranking.classes == ("1", "0")


def test_the_mix_up_through_scikit_learn():
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Fixed(ClassifierMixin, BaseEstimator):
        """predict_proba: P(class 1) is the one feature."""

        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def predict_proba(self, X):
            p = np.asarray(X, dtype=float)[:, 0]
            return np.column_stack([1 - p, p])

    X = SCORE[:, None]
    truth = _mix_up_oracle((1, 0))
    with pytest.raises(ValueError, match=r"^labels: the labels of y are 0 and 1, and a two-class"):
        utility_score(Y, DECISION, utility=MIXED_UP)
    assert utility_score(Y, DECISION, utility=MIXED_UP, labels=[1, 0]) == pytest.approx(truth, abs=1e-12)
    with pytest.raises(ValueError, match=r"^labels: the labels of y are 0 and 1, and a two-class"):
        UtilityClassifier(Fixed(), MIXED_UP).fit(X, Y)
    model = UtilityClassifier(Fixed(), MIXED_UP, labels=[1, 0]).fit(X, Y)
    assert np.array_equal(model.predict(X), DECISION) and model.score(X, Y) == pytest.approx(truth, abs=1e-12)
    with pytest.raises(ValueError, match=r"^labels: the labels of y are 0 and 1"):
        make_utility_scorer(MIXED_UP)(model, X, Y)
    assert make_utility_scorer(MIXED_UP, labels=[1, 0])(model, X, Y) == pytest.approx(truth, abs=1e-12)


def test_the_mix_up_through_the_command_line(capsys, tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text("true,m\n" + "".join(f"{t},{d}\n" for t, d in zip(Y, DECISION)))
    code, out, err = run(capsys, "--labels", labels, "--utility", json.dumps(MIXED_UP))
    assert code == 2 and out == "" and err.count("\n") == 1 and "--classes: the labels of" in err and "with --classes (0,1 or 1,0)" in err
    for named in (["--utility", json.dumps(MIXED_UP), "--classes", "1,0"], ["--utility", json.dumps(KEYED)]):
        code, out, err = run(capsys, "--labels", labels, *named, "--format", "json")
        assert code == 0, err
        assert json.loads(out)["classifiers"][0]["utility_yield"] == pytest.approx(_mix_up_oracle((1, 0)), abs=1e-12)
    # Across folds: refused, then read as named by --classes, as --labels alone reads it.
    folds = tmp_path / "folds.csv"
    folds.write_text("true,fold,m,n\n" + "".join(f"{t},{k % 2},{d},{1 - d}\n" for k, (t, d) in enumerate(zip(Y, DECISION))))
    code, out, err = run(capsys, "--labels", folds, "--utility", json.dumps(MIXED_UP), "--folds-column", "fold")
    assert code == 2 and out == "" and err.count("\n") == 1 and "with --classes (0,1 or 1,0)" in err
    code, out, err = run(capsys, "--labels", folds, "--utility", json.dumps(MIXED_UP), "--folds-column", "fold", "--classes", "1,0",
                         "--samples", "100", "--seed", "1", "--format", "json")  # fmt: skip
    assert code == 0, err
    u = np.asarray(MIXED_UP, dtype=float)
    by_hand = [float(np.mean(u[1 - DECISION[np.arange(10) % 2 == f], 1 - Y[np.arange(10) % 2 == f]])) for f in (0, 1)]
    models = {model["name"]: model for model in json.loads(out)["models"]}
    assert models["m"]["yields"] == pytest.approx(by_hand, abs=1e-12)
    # A utility that reads alike in both orders needs no name.
    code, out, err = run(capsys, "--labels", labels, "--utility", "[[1, 0], [0, 1]]", "--format", "json")
    assert code == 0 and json.loads(out)["classifiers"][0]["utility_yield"] == pytest.approx(0.7, abs=1e-12)
