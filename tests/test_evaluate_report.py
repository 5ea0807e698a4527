"""The report of ``mcrank evaluate`` and ``Evaluation`` (issue 25): many classifiers within the
width, one call from Python, one number format per column, names that cannot reverse a row or
run as a formula, and help texts within 80 columns."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from csv_parts import csv_parts

from mcrank.cli import SUBCOMMANDS, main
from mcrank.evaluate import (
    ItemLabels,
    confusions_from_labels,
    evaluate,
    evaluate_file,
    evaluate_predictions,
    labels_from_predictions,
    load_labels,
)
from mcrank.evaluate.report import (
    column_format,
    csv_text,
    kendall_tau_b,
    metric_agreement,
    printable,
    probability_text,
    render_table,
    short_probability,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EQ4 = [[15, -335], [-35, 165]]
Y_TRUE = ["long"] * 50 + ["short"] * 50
Y_A = ["long"] * 27 + ["short"] * 23 + ["long"] * 15 + ["short"] * 35
Y_B = ["long"] * 43 + ["short"] * 7 + ["long"] * 18 + ["short"] * 32


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _many(k: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    confusions = {}
    for i in range(k):
        tp, tn = (int(v) for v in rng.integers(20, 50, size=2))
        confusions[f"model_{i:04d}"] = [[tp, 50 - tn], [50 - tp, tn]]
    return confusions


# --- many classifiers -------------------------------------------------------------------------


@pytest.mark.parametrize("k", [12, 1000])
@pytest.mark.slow
def test_many_classifiers_one_row_each_within_80_columns(capsys, tmp_path, k):
    # Issue 25: 12 classifiers printed lines of 316 and 494 characters, 1000 a 1.24 MB line.
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"classifiers": _many(k), "utility": EQ4}))
    code, out, err = run(capsys, path, "--details")
    assert code == 0 and err == ""
    widths = [len(line) for line in out.splitlines()]
    assert max(widths) <= 80, max(widths)
    result = evaluate_file(path)
    # One row per classifier, in rank order, in each block of metric columns.
    names = [c.name for c in result.classifiers]
    ranking = out[out.index("Ranking by utility yield") : out.index("Each metric against")]
    rows = [line.split()[1] for line in ranking.splitlines() if re.match(r"\s+\d+\s+model_", line)]
    blocks = len(rows) // k
    assert blocks >= 2 and rows == names * blocks
    # Each metric's summary: the pairs it reverses, and Kendall's tau-b.
    agreement = {a["metric"]: a for a in result.metric_agreement()}
    assert [line.split()[0] for line in out[out.index("Each metric against") :].splitlines() if line.startswith("  ")][1:14] == list(
        agreement
    )
    lists = out[out.index("Pairs each metric orders differently") :]
    for d in result.disagreements:
        assert agreement[d.metric]["reversed"] == len(d.flipped)
        listed = re.split(r"\n  (?=\S)", lists[lists.index(f"\n  {d.metric}") :])[1]  # its line and their continuations
        total = len(d.flipped) + len(d.tied) + len(d.undefined)
        more = " ".join(listed.split())
        if total > 20:
            assert f"and {total - 20} more pairs (all of them in the JSON output)" in more
            assert more.count(" above ") + more.count(" level with ") + more.count(" not at all") <= 20
    if k < 100:  # the JSON lists every pair (at 1000 classifiers, 500,000 of them, a 10 s dump)
        document = json.loads(run(capsys, path, "--format", "json")[1])
        assert sum(len(d["flipped"]) for d in document["disagreements"]) == sum(len(d.flipped) for d in result.disagreements)
        assert [a["metric"] for a in document["metric_agreement"]] == list(agreement)


def test_flip_lists_are_capped_and_every_pair_is_in_json_and_csv(capsys, tmp_path):
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"classifiers": _many(30), "utility": EQ4}))
    code, out, _ = run(capsys, path, "--sd", "0.1", "--details")
    flips = out[out.index("Probability that the utility ranking") :]
    listed = [line for line in flips.splitlines() if "yield difference" in line]
    assert code == 0 and len(listed) == 20
    assert "and 415 more pairs (all of them in the JSON and CSV outputs)" in " ".join(flips.split())
    order = [c.name for c in evaluate_file(path).classifiers]
    assert [line.split()[::2][:2] for line in listed] == [list(pair) for pair in zip(order, order[1:])][:20]
    assert len(json.loads(run(capsys, path, "--sd", "0.1", "--format", "json")[1])["pairs"]) == 435
    _, rows = csv_parts(run(capsys, path, "--sd", "0.1", "--format", "csv")[1])
    assert sum(bool(row[f"flip_probability_vs_{name}"]) for row in rows for name in order) == 2 * sum(
        p.flip_probability is not None for p in evaluate_file(path, sd=0.1).pairs
    )


def test_the_table_fits_the_terminal_width(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    wide = run(capsys, EXAMPLES / "factory.json", "--details")[1]
    monkeypatch.setenv("COLUMNS", "80")
    narrow = run(capsys, EXAMPLES / "factory.json", "--details")[1]
    assert max(map(len, narrow.splitlines())) <= 80 < max(map(len, wide.splitlines())) <= 120
    assert wide.count("  rank  classifier") < narrow.count("  rank  classifier")  # fewer blocks of metric columns
    assert narrow == render_table(evaluate_file(EXAMPLES / "factory.json"), details=True) + "\n"


def test_kendall_tau_b_is_scipys():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    for n in (2, 3, 10, 200):
        x, y = rng.integers(0, 5, size=n), rng.integers(0, 7, size=n)  # many ties
        expected = stats.kendalltau(x, y).statistic
        assert (math.isnan(expected) and math.isnan(kendall_tau_b(x, y))) or kendall_tau_b(x, y) == pytest.approx(expected, abs=1e-12)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == -1.0 and math.isnan(kendall_tau_b([1, 1, 1], [1, 2, 3]))
    assert math.isnan(kendall_tau_b([1], [1]))


def test_metric_agreement_counts_the_disagreements():
    result = evaluate_file(EXAMPLES / "triage_3class.json")
    agreement = {a["metric"]: a for a in metric_agreement(result)}
    assert agreement["accuracy"]["reversed"] == 3 and agreement["accuracy"]["kendall_tau_b"] == -1.0
    assert agreement["balanced_accuracy"]["reversed"] == 0 and agreement["balanced_accuracy"]["kendall_tau_b"] == 1.0
    assert agreement["macro_f1"]["kendall_tau_b"] == pytest.approx(-1 / 3)
    lottery = evaluate_file(EXAMPLES / "lottery.json", class_frequencies=[0.01, 0.99])
    balanced = next(a for a in lottery.metric_agreement() if a["metric"] == "balanced_accuracy")
    assert balanced["tied"] == 1 and balanced["kendall_tau_b"] is None  # it ties the only pair


# --- one call from Python ---------------------------------------------------------------------


def test_evaluate_predictions_is_evaluate_with_paired_labels():
    one_call = evaluate_predictions(Y_TRUE, {"A": Y_A, "B": Y_B}, EQ4, classes=["long", "short"], test_uncertainty=True, rng=1,
                                    samples=2000)  # fmt: skip
    confusions, classes = confusions_from_labels({"A": (Y_TRUE, Y_A), "B": (Y_TRUE, Y_B)})
    assert isinstance(confusions, dict) and classes == ("long", "short")
    _, _, labels = labels_from_predictions(Y_TRUE, {"A": Y_A, "B": Y_B})
    assert isinstance(labels, ItemLabels) and labels.truth.tolist() == [0] * 50 + [1] * 50
    steps = evaluate(confusions, EQ4, classes=classes, labels=labels, test_uncertainty=True, rng=1, samples=2000)
    assert one_call.to_dict() == {**steps.to_dict(), "class_order": "given"}  # and says where its order came from
    assert one_call.test_uncertainty["model"] == "labels" and one_call.pairs[0].flip_probability_test_se is None  # exact
    with pytest.raises(TypeError, match="labels"):
        evaluate_predictions(Y_TRUE, {"A": Y_A}, EQ4, labels=labels)
    # Labels of another test set: named without a doubled quote (it read "classifier 'A''s").
    with pytest.raises(ValueError, match=r"^labels: the labels of classifier 'A' do not tabulate to its confusion matrix$"):
        evaluate({"A": confusions["B"], "B": confusions["B"]}, EQ4, classes=classes, labels=labels, test_uncertainty=True, rng=1)
    # Class indices out of range: "cannot reshape array of size 18 into shape (2,2)".
    wrong = ItemLabels(labels.truth, {"A": labels.outputs["A"] + 7, "B": labels.outputs["B"]})
    with pytest.raises(ValueError, match=r"^labels: classifier 'A' has class index 7, not one of 0..1$"):
        evaluate(confusions, EQ4, classes=classes, labels=wrong, test_uncertainty=True, rng=1)
    # A class named twice passed, where a file naming it twice is refused.
    with pytest.raises(ValueError, match="^class name 'x' appears twice in 'classes'$"):
        evaluate(confusions, EQ4, classes=("x", "x"))


def test_evaluate_predictions_matches_the_labels_file(capsys):
    read = load_labels(EXAMPLES / "triage_labels.csv", classes=("healthy", "benign", "malignant"))
    classes = ("healthy", "benign", "malignant")
    y_true = [classes[k] for k in read.labels.truth]
    predictions = {name: [classes[k] for k in codes] for name, codes in read.labels.outputs.items()}
    utility = json.loads((EXAMPLES / "triage_3class.json").read_text())["utility"]
    # The utility keyed by its class names, as the file gives it: the same order, from the same rule.
    keyed = {"utility": utility, "classes": list(classes)}
    one_call = evaluate_predictions(y_true, predictions, keyed, test_uncertainty=True, rng=4, samples=1000)
    from_file = evaluate_file(EXAMPLES / "triage_labels.csv", labels=True, utility=str(EXAMPLES / "triage_3class.json"),
                              test_uncertainty=True, rng=4, samples=1000)  # fmt: skip
    assert [p.flip_probability_test for p in one_call.pairs] == [p.flip_probability_test for p in from_file.pairs]
    assert [(c.name, c.utility_yield) for c in one_call.classifiers] == [(c.name, c.utility_yield) for c in from_file.classifiers]
    assert str(one_call) == str(from_file)  # the class header included
    assert one_call.class_order == from_file.class_order == "utility"


def test_evaluate_predictions_says_the_class_order_as_the_cli_does(capsys, tmp_path):
    # Classes named in Python (classes=) and on the command line (--classes): str() is what mcrank evaluate --labels prints.
    path = tmp_path / "labels.csv"
    path.write_text((EXAMPLES / "triage_labels.csv").read_text())
    classes = ("healthy", "benign", "malignant")
    read = load_labels(path, classes=classes)
    y_true = [classes[k] for k in read.labels.truth]
    predictions = {name: [classes[k] for k in codes] for name, codes in read.labels.outputs.items()}
    utility = json.loads((EXAMPLES / "triage_3class.json").read_text())["utility"]
    code, out, _ = run(capsys, "--labels", path, "--utility", json.dumps(utility), "--classes", ",".join(classes))
    assert code == 0 and "Classes: healthy, benign, malignant (as named); rows = decision, columns =" in out
    assert str(evaluate_predictions(y_true, predictions, utility, classes=classes)) + "\n" == out
    # Without them the order of text labels is not guessed, at either door.
    code, out, err = run(capsys, "--labels", path, "--utility", json.dumps(utility))
    assert code == 2 and "name it with --classes" in err
    with pytest.raises(ValueError, match="name it with the parameter classes"):
        evaluate_predictions(y_true, predictions, utility)


def test_str_is_the_cli_report_and_records_are_the_csv_columns(capsys):
    result = evaluate_file(EXAMPLES / "factory.json", test_uncertainty=True, rng=1, samples=2000)
    code, out, _ = run(capsys, EXAMPLES / "factory.json", "--test-uncertainty", "--seed", "1", "--samples", "2000")
    assert code == 0 and str(result) + "\n" == out
    assert "Evaluation(" not in str(result)
    records = result.to_records()
    _, rows = csv_parts(
        run(capsys, EXAMPLES / "factory.json", "--test-uncertainty", "--seed", "1", "--samples", "2000", "--format", "csv")[1]
    )
    assert [r["classifier"] for r in records] == [row["classifier"] for row in rows] == ["A", "B"]
    for record, row in zip(records, rows):
        for key, value in record.items():
            assert str(value) == row[key] or float(row[key]) == value, key
    frame = result.to_frame()
    assert list(frame.columns) == list(records[0]) and frame["utility_yield"].tolist() == [3.5, -3.5]


def test_to_frame_without_pandas_says_so(monkeypatch):
    result = evaluate_predictions(Y_TRUE, {"A": Y_A, "B": Y_B}, EQ4, classes=["long", "short"])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"needs pandas .*to_records\(\)"):
        result.to_frame()
    assert result.to_records()[0]["classifier"] == "A"


def test_the_python_blocks_of_the_guide_run_as_printed(monkeypatch, capsys):
    guide = (ROOT / "docs" / "evaluate-output.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", guide, re.DOTALL)
    assert len(blocks) >= 3
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/evaluate-output.md", "exec"), namespace)  # noqa: S102 - the guide's own code
    out = capsys.readouterr().out
    assert "Ranking by utility yield" in out and "[[27, 15], [23, 35]] ('long', 'short')" in out


# --- numbers --------------------------------------------------------------------------------------


def test_one_format_per_column():
    yields = column_format([11.49, 8.925, 5.48], sign=True)
    assert [yields(v) for v in (11.49, 8.925, 5.48)] == ["+11.49", "+8.93", "+5.48"]  # the same decimals
    factory = column_format([3.5, -3.5], sign=True)
    assert [factory(3.5), factory(-3.5), factory(-30.31)] == ["+3.5", "-3.5", "-30.3"]  # intervals at the yield's precision
    close = column_format([1.00001, 1.00002])
    assert close(1.00001) != close(1.00002)  # different values print differently
    assert column_format([2.5e9, 1e9])(2.5e9) == "2.500e+09" and column_format([3e-7])(3e-7) == "3.000e-07"
    assert column_format([0.0, -0.89], sign=True)(0.0) == "+0.00"


def test_a_standard_error_below_the_last_digit_is_a_bound_not_zero():
    assert probability_text(0.0012, 0.00002, 10**6) == "0.0012 (SE < 1e-4)"
    assert probability_text(0.3868, 0.0015, 10**5) == "0.3868 ± 0.0015"
    assert probability_text(3e-6) == "3.0e-06"  # two significant digits, as documented
    assert probability_text(3.3e-9) == "3.3e-09" and probability_text(0.0, 0.0, 1000) == "< 0.003 (0/1000)"
    result = evaluate({"A": [[4500, 300], [500, 4700]], "B": [[4400, 300], [600, 4700]]}, np.eye(2), sd=0.3, estimator="sample",
                      samples=10**6, rng=1)  # fmt: skip
    assert "± 0.0000" not in str(result)


def test_the_intervals_share_the_yields_decimals(capsys):
    code, out, _ = run(capsys, EXAMPLES / "factory.json", "--test-uncertainty", "--seed", "1", "--samples", "2000", "--details")
    rows = out[out.index("95% interval") :].splitlines()[1:3]
    for row in rows:
        value, low, high = re.findall(r"[+-]\d+(?:\.\d+)?", row)
        assert {len(v.split(".")[-1]) for v in (value, low, high)} == {1}, row


# --- names ------------------------------------------------------------------------------------------

RLO = "\u202e"


def test_bidi_and_other_non_printing_characters_are_escaped_everywhere(capsys, tmp_path):
    name = f"evil{RLO}gnp.exe"
    assert printable(name) == "evil\\u202egnp.exe" and printable("plain name") == "plain name"
    assert printable("a\u2066b\u200fc\U000e0001") == "a\\u2066b\\u200fc\\U000e0001"
    path = tmp_path / "bidi.json"
    path.write_text(json.dumps({"classifiers": {name: [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}, "utility": EQ4,
                                "classes": [f"long{RLO}", "short"], "description": f"about {RLO}this"}))  # fmt: skip
    for options in ([], ["--sd", "0.1"], ["--test-uncertainty", "--seed", "1", "--samples", "500"]):
        code, out, _ = run(capsys, path, *options)
        assert code == 0 and RLO not in out and "evil\\u202egnp.exe" in out and "long\\u202e" in out
    # In JSON the names are data: escaped by JSON itself, exact when read back.
    document = json.loads(run(capsys, path, "--format", "json")[1])
    assert document["classifiers"][0]["name"] == name
    # Labels and scores too.
    scores = tmp_path / "scores.csv"
    scores.write_text(f"true,a{RLO}b,c\nyes,0.9,0.8\nno,0.2,0.3\nyes,0.7,0.4\nno,0.1,0.6\n")
    code, out, _ = run(capsys, "--scores", scores, "--positive", "yes", "--thresholds", "0.5")
    assert code == 0 and RLO not in out and "a\\u202eb" in out
    labels = tmp_path / "labels.csv"
    labels.write_text(f"true,x{RLO}\nyes,yes\nno,no\n")
    code, out, _ = run(capsys, "--labels", labels, "--utility", "[[1, 0], [0, 1]]", "--classes", "yes,no")
    assert code == 0 and RLO not in out and "x\\u202e" in out


@pytest.mark.parametrize("first", ["=", "+", "-", "@"])
def test_a_name_that_a_spreadsheet_would_run_is_escaped_in_csv(capsys, tmp_path, first):
    name = f'{first}HYPERLINK("http://x")'
    assert csv_text(name) == "'" + name and csv_text("A") == "A" and csv_text("'quoted") == "'quoted"
    assert csv_text("\tx") == "'\tx" and csv_text("\rx") == "'\rx"  # (control characters are refused in names on input)
    path = tmp_path / "formula.json"
    path.write_text(json.dumps({"classifiers": {name: [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}, "utility": EQ4}))
    for options in ([], ["--sd", "0.1"], ["--test-uncertainty", "--seed", "1", "--samples", "500"]):
        code, out, _ = run(capsys, path, "--format", "csv", *options)
        cells = [cell for row in csv.reader(io.StringIO(out)) if row and not row[0].startswith("#") for cell in row]
        assert code == 0 and not any(cell.startswith(("=", "+", "@", "\t")) for cell in cells)
        assert not any(cell.startswith("-") and not re.fullmatch(r"-[\d.e+-]+", cell) for cell in cells)  # numbers only
        assert "'" + name in cells
    assert json.loads(run(capsys, path, "--format", "json")[1])["classifiers"][0]["name"] == name
    scores = tmp_path / "scores.csv"
    scores.write_text(f'true,"{name}",c\nyes,0.9,0.8\nno,0.2,0.3\nyes,0.7,0.4\nno,0.1,0.6\n')
    for options in (["--thresholds", "0.5", "--test-uncertainty", "--samples", "100", "--seed", "1"],
                    ["--utility", '{"utility": [[1, -1], [0, 0]], "classes": ["yes", "no"]}', "--threshold-choice", "test"]):  # fmt: skip
        code, out, err = run(capsys, "--scores", scores, "--positive", "yes", "--format", "csv", *options)
        cells = [cell for row in csv.reader(io.StringIO(out)) if row and not row[0].startswith("#") for cell in row]
        assert code == 0 and not any(cell.startswith(("=", "+", "@", "\t")) for cell in cells), (err, cells)


def test_a_nul_in_a_label_is_refused_not_dropped(capsys, tmp_path):
    # numpy's string arrays drop trailing NULs: 'short\x00' would silently be 'short'.
    path = tmp_path / "labels.csv"
    path.write_text("true,A\nlong,long\nshort\x00,short\n")
    code, out, err = run(capsys, "--labels", path, "--utility", '{"utility": [[1, 0], [0, 1]], "classes": ["long", "short"]}')
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "line 3, column 'true': class name 'short\\x00' contains the control character '\\x00'" in err
    code, _, err = run(capsys, "--labels", path, "--utility", "[[1, 0], [0, 1]]")
    assert code == 2 and "'short\\x00'" in err
    with pytest.raises(ValueError, match=r"label 'short\\x00' \(item 1\) holds a NUL"):
        confusions_from_labels({"A": (["long", "short\x00"], ["long", "short"])})
    with pytest.raises(ValueError, match="y_true: label"):
        evaluate_predictions(["long", "short\x00"], {"A": ["long", "short"]}, np.eye(2))
    with pytest.raises(ValueError, match="classifier 'A': y_pred: label"):
        evaluate_predictions(["long", "short"], {"A": ["long", "short\x00"]}, np.eye(2))
    from mcrank.evaluate import decision_curves

    with pytest.raises(ValueError, match="y_true: label 'no\\\\x00'"):
        decision_curves(["yes", "no\x00", "yes"], {"m": [0.9, 0.1, 0.8]}, positive="yes")
    confusions, classes = confusions_from_labels({"A": (["long", "short"], ["long", "short"])})
    assert classes == ("long", "short")


# --- help texts ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["", *SUBCOMMANDS])
def test_every_help_text_fits_80_columns(capsys, monkeypatch, command):
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"] if command else ["--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0
    assert max(len(line) for line in out.splitlines()) <= 80, [line for line in out.splitlines() if len(line) > 80]
    if command == "evaluate":
        assert len(out.splitlines()) < 105  # six modes: the long explanations live in docs/evaluate.md
        assert "docs/evaluate.md" in out


def test_story_writes_out_in_the_format_of_its_extension(capsys, tmp_path):
    path = tmp_path / "story.json"
    assert main(["story", "--out", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"mcrank story: wrote {path}\n"
    assert main(["story", "--format", "json"]) == 0
    assert json.loads(path.read_text()) == json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv", [[path] for path in sorted(EXAMPLES.glob("*.json")) if path.name not in ("wine_utility.json", "fraud_per_item.json")]
                         + [["--labels", EXAMPLES / "triage_labels.csv", "--utility", EXAMPLES / "triage_3class.json"]])  # fmt: skip
def test_every_example_prints_within_80_columns(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80


def test_long_names_are_cut_in_the_middle_and_every_line_fits(capsys, tmp_path):
    # Names alike but for their ends: cut at the end they would all print the same.
    confusions = {f"gradient_boosting_depth_{depth:02d}_rate_0p1": matrix for depth, matrix in enumerate(_many(4, seed=3).values())}
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"classifiers": confusions, "utility": EQ4}))
    code, out, _ = run(
        capsys, path, "--test-uncertainty", "--sd", "0.1", "--error", "truncated", "--seed", "1", "--samples", "2000", "--details"
    )
    assert code == 0 and max(map(len, out.splitlines())) <= 80
    ranking = out[out.index("Ranking by utility yield") : out.index("Each metric against")]
    shown = {line.split()[1] for line in ranking.splitlines() if re.match(r"\s+\d\s+gradient", line)}
    assert len(shown) == 4 and all("…" in name and name.endswith("_rate_0p1") for name in shown)
    # No flip in 2000 draws: the rule of three's 95 % bound, 3 / 2000 rounded up.
    assert "P(flip) < 0.002 (0/2000)" in out
    assert probability_text(0.0, 0.0, 7000) == "< 0.0005 (0/7000)"  # 3 / 7000 = 0.00043: up, not down


# --- the decision first (issue 30, item 4) ---------------------------------------------------

WINE = ("--labels", EXAMPLES / "wine_labels.csv", "--utility", EXAMPLES / "wine_utility.json", "--class-frequencies", "0.1,0.6,0.3")


def test_the_report_opens_with_the_choice_and_says_when_it_is_not_how_sure(capsys):
    code, out, _ = run(capsys, *WINE)
    assert code == 0
    assert out.splitlines()[0] == "choose svm: by point yields alone; how sure: --test-uncertainty, --sd SD"
    assert "Each metric against" not in out and "balanced_accuracy (3)." in " ".join(out.split())  # the metrics in one sentence
    full = run(capsys, *WINE, "--details")[1]
    assert full.splitlines()[0] == out.splitlines()[0] and "Each metric against the utility yield" in full
    assert "balanced_accuracy (picks forest as best)" in full
    assert len(out.splitlines()) < 25 < len(full.splitlines())


def test_with_the_uncertainty_the_lead_gives_the_closest_rival_and_who_is_not_separated(capsys):
    options = ("--test-uncertainty", "--sd", "0.1", "--seed", "1", "--samples", "4000")
    code, out, _ = run(capsys, *WINE, *options)
    result = evaluate_file(EXAMPLES / "wine_labels.csv", labels=True, utility=str(EXAMPLES / "wine_utility.json"),
                           class_frequencies=[0.1, 0.6, 0.3], test_uncertainty=True, sd=0.1, rng=1, samples=4000)  # fmt: skip
    against = {p.worse: 1 - p.flip_probability_both for p in result.pairs if p.better == "svm"}
    rival = min(against, key=against.get)
    lines = out.splitlines()
    assert lines[0] == f"choose svm: the highest yield; over {rival} {short_probability(against[rival])} given the test set and sd 0.1"
    assert lines[1].startswith("not separated from svm (P(svm better) below 0.95): logistic")
    assert "P(above next)" in out and "95% interval" in out and "Pairs: probability" not in out
    assert len(lines) <= 30  # from 99 lines with every block (six classifiers, both uncertainties)


def test_the_scores_lead_takes_p_best_from_the_posterior_when_there_is_one():
    from types import SimpleNamespace

    from mcrank.evaluate.scoring.report import decision_line

    models = [SimpleNamespace(name=name) for name in ("svm", "logistic", "knn")]
    posterior = SimpleNamespace(probability_best={"svm": (0.8149, 0.004), "logistic": (0.15, 0.003), "knn": (0.035, 0.002)},
                                probability_above={("svm", "logistic"): (0.6461, 0.004), ("svm", "knn"): (0.9, 0.002),
                                                   ("logistic", "knn"): (0.7, 0.004)})  # fmt: skip
    names = {m.name: m.name for m in models}
    with_posterior = SimpleNamespace(models=models, posterior=posterior)
    assert decision_line(with_posterior, names) == "choose svm: P(best) 0.81 given the test set; over logistic 0.64"
    assert decision_line(SimpleNamespace(models=models), names) == "choose svm: by point yields alone; how sure: --test-uncertainty"
