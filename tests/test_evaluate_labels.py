"""``mcrank evaluate --labels``: labels item by item give the report of the equivalent confusion matrices."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.evaluate import evaluate_file, load_labels

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LABELS = EXAMPLES / "triage_labels.csv"
MATRICES = EXAMPLES / "triage_3class.json"


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_example_holds_the_confusion_matrices_of_the_triage_example():
    # Tabulated here with a Counter, independently of load_labels.
    data = json.loads(MATRICES.read_text())
    with open(LABELS, newline="") as file:
        rows = list(csv.DictReader(file))
    for name, matrix in data["classifiers"].items():
        counts = Counter((row[name], row["true"]) for row in rows)
        tabulated = [[counts[output, true] for true in data["classes"]] for output in data["classes"]]
        assert tabulated == matrix, name
    # ... and the classifiers err on different items, as real ones do.
    assert any(row["cautious"] != row["in-between"] for row in rows)


def test_labels_give_the_same_evaluation_as_the_confusion_matrices():
    by_labels = evaluate_file(LABELS, labels=True, utility=MATRICES, sd=0.1, rng=7, samples=20_000)
    by_matrices = evaluate_file(MATRICES, sd=0.1, rng=7, samples=20_000)
    assert by_labels.classes == by_matrices.classes
    for a, b in zip(by_labels.classifiers, by_matrices.classifiers, strict=True):
        assert (a.name, a.rank, a.utility_yield, a.ranks) == (b.name, b.rank, b.utility_yield, b.ranks)
        assert np.array_equal(a.confusion, b.confusion)
        assert a.scores == pytest.approx(b.scores, abs=0, rel=0, nan_ok=True)
    assert by_labels.disagreements == by_matrices.disagreements
    assert by_labels.pairs == by_matrices.pairs  # the same counts give the same flips, draw for draw
    assert by_labels.class_order == "utility" and by_matrices.class_order is None


def test_the_labels_are_kept_item_by_item():
    data = load_labels(LABELS, classes=("healthy", "benign", "malignant"))
    with open(LABELS, newline="") as file:
        rows = list(csv.DictReader(file))
    assert data.labels.truth.tolist() == [("healthy", "benign", "malignant").index(row["true"]) for row in rows]
    assert list(data.labels.outputs) == ["high-accuracy", "cautious", "in-between"]
    assert data.labels.outputs["cautious"][:5].tolist() == [("healthy", "benign", "malignant").index(row["cautious"]) for row in rows[:5]]


def test_the_report_says_where_the_class_order_came_from(capsys):
    code, out, _ = run(capsys, "--labels", LABELS, "--utility", MATRICES)
    assert code == 0 and "Classes: healthy, benign, malignant (the utility's order); rows = decision,\ncolumns = true class." in out
    code, out, _ = run(capsys, "--labels", LABELS, "--utility", MATRICES, "--format", "json")
    assert json.loads(out)["class_order"] == "utility"
    code, out, _ = run(capsys, "--labels", LABELS, "--utility", MATRICES, "--format", "csv")
    assert '# class_order: "utility"' in out


def test_text_labels_with_a_plain_matrix_need_the_class_order(capsys, tmp_path):
    # Sorting the labels would be a guess (it reversed a user's costs): refused, saying how to name the order.
    path = write(tmp_path, "labels.csv", "true,A,B\nshort,short,long\nlong,long,long\nshort,long,short\n")
    code, out, err = run(capsys, "--labels", path, "--utility", "[[15, -335], [-35, 165]]")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert (
        "--classes: the labels of" in err
        and "('long', 'short'): two classes have no natural order" in err
        and "name it with --classes" in err
    )
    for named in (["--classes", "short,long"], ["--utility", '{"utility": [[15, -335], [-35, 165]], "classes": ["short", "long"]}']):
        argv = ["--labels", path, "--utility", "[[15, -335], [-35, 165]]", *named][: 6 if named[0] == "--classes" else 2] + named
        code, out, err = run(capsys, *argv, "--format", "json")
        result = json.loads(out)
        assert code == 0 and result["classes"] == ["short", "long"], err
        assert result["class_order"] == ("given" if named[0] == "--classes" else "utility")
        # rows = output (short, long), columns = true class (short, long)
        assert {c["name"]: c["confusion"] for c in result["classifiers"]} == {"A": [[1, 0], [1, 1]], "B": [[1, 0], [1, 1]]}


def test_integer_labels_0_to_n_minus_1_are_in_their_natural_order(tmp_path):
    path = write(tmp_path, "numbers.csv", "true,A\n2,1\n1,0\n0,2\n")
    data = load_labels(path)
    assert data.classes == ("0", "1", "2") and data.class_order == "natural"
    # item 1: output 1, true 2: cell (1, 2)
    assert data.confusions["A"].tolist() == [[0, 1, 0], [0, 0, 1], [1, 0, 0]]
    # A class no label names keeps its row and column: class k is row and column k of the utility.
    data = load_labels(write(tmp_path, "gap.csv", "true,A\n2,0\n0,2\n"), n_classes=3)
    assert data.classes == ("0", "1", "2") and data.confusions["A"].tolist() == [[0, 0, 1], [0, 0, 0], [1, 0, 0]]
    with pytest.raises(ValueError, match=r"classes: the labels of .* \('1', '10', '2'\): they are not the integers 0..2"):
        load_labels(write(tmp_path, "other.csv", "true,A\n10,2\n2,1\n1,10\n"))


def test_truth_names_the_column_of_true_classes(capsys, tmp_path):
    path = write(tmp_path, "labels.csv", "A,y,B\nlong,long,short\nshort,short,short\n")
    code, out, err = run(capsys, "--labels", path, "--truth", "y", "--utility", "[[1, 0], [0, 1]]", "--classes", "long,short",
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    assert [c["name"] for c in json.loads(out)["classifiers"]] == ["A", "B"]


UTILITY = '{"utility": [[1, 0], [0, 1]], "classes": ["long", "short"]}'
BAD = [
    ("true,A\nlong,long\nshort,medium\n", [], "line 3, column 'A': label 'medium' is not one of the classes of --utility: 'long', 'short'"),
    ("true,A\nlong,long\nshort\n", [], "line 3: expected 2 fields, got 1"),
    ("true,A\nlong,long\nshort, \n", [], "line 3, column 'A': empty label"),
    ("truth,A\nlong,long\n", [], "no column 'true' of true classes (the columns are 'truth', 'A'); name it with --truth"),
    ("true\nlong\n", [], "no classifier columns"),
    ("true,A,A\nlong,long,long\n", [], "column 'A' appears twice"),
    ("true,A\n", [], "no data rows below the header"),
    ("", [], "the file is empty"),
    ("true,A\nlong,long\n", ["--truth", "y"], "no column 'y' of true classes"),
]


@pytest.mark.parametrize(("content", "options", "message"), BAD, ids=[case[2][:40] for case in BAD])
def test_bad_labels_give_one_line_and_exit_2(capsys, tmp_path, content, options, message):
    path = write(tmp_path, "labels.csv", content)
    code, out, err = run(capsys, "--labels", path, "--utility", UTILITY, *options)
    assert code == 2 and out == ""
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert message in err and "labels.csv" in err, err


BAD_USE = [
    (["--labels", LABELS], "labels need a utility matrix: give one with --utility"),
    (
        ["--labels", LABELS, "--utility", "[[1, 0], [0, 1]]"],
        "the labels name 3 classes ('benign', 'healthy', 'malignant') but the utility matrix is 2x2",
    ),
    ([MATRICES, "--labels", LABELS], "give one input: FILE (confusion matrices) or --labels FILE.csv"),
    ([], "give one input: FILE (confusion matrices) or --labels FILE.csv"),
    ([MATRICES, "--truth", "y"], "--truth names the column of true classes in a --labels file"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_USE, ids=[case[1][:40] for case in BAD_USE])
def test_bad_use_gives_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_the_docs_show_the_real_output(capsys):
    docs = (Path(__file__).resolve().parent.parent / "docs" / "evaluate-inputs.md").read_text()
    command = "$ mcrank evaluate --labels examples/triage_labels.csv --utility examples/triage_3class.json --details\n"
    shown = docs[docs.index(command) + len(command) :].split("```")[0]
    code, out, _ = run(capsys, "--labels", LABELS, "--utility", MATRICES, "--details")
    assert code == 0 and len(shown.splitlines()) >= 2 and out.startswith(shown)
