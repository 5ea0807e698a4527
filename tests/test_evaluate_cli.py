"""``mcrank evaluate``: output formats, and one clear stderr line with exit code 2 for bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from csv_parts import csv_parts

from mcrank.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
GOOD = {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}, "utility": [[15, -335], [-35, 165]]}
GOOD_CSV = "classifier,output,true,count\nA,long,long,27\nA,long,short,15\nA,short,long,23\nA,short,short,35\n"


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(tmp_path, name, content):
    path = tmp_path / name
    text = content if isinstance(content, str) else json.dumps(content)
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    return path


# --- good runs -------------------------------------------------------------------------------


def test_table_of_the_factory_example(capsys):
    code, out, err = run(capsys, EXAMPLES / "factory.json", "--details")
    assert code == 0 and err == ""
    ranking = out[out.index("Ranking by utility yield") :]
    assert ranking.index(" A ") < ranking.index(" B ")
    assert "+3.5" in out and "-3.5" in out
    assert "accuracy (picks B as best): ranks B above A" in out
    assert "tnr:" not in out.split("disagrees with the utility yield")[-1]


def test_json_output(capsys):
    code, out, _ = run(capsys, EXAMPLES / "triage_3class.json", "--format", "json")
    assert code == 0
    result = json.loads(out)
    names = [c["name"] for c in result["classifiers"]]
    yields = [c["utility_yield"] for c in result["classifiers"]]
    assert yields == sorted(yields, reverse=True) and names[0] == "cautious"
    assert set(result["classifiers"][0]["scores"]) == {
        "accuracy", "balanced_accuracy", "macro_f1", "micro_f1", "mcc", "cohen_kappa", "macro_precision",
    }  # fmt: skip
    assert {d["metric"] for d in result["disagreements"]} >= {"accuracy", "mcc"}
    assert "pairs" not in result


def test_json_with_sd_has_pairs_and_seed(capsys):
    argv = (EXAMPLES / "factory.json", "--sd", "0.1", "--error", "truncated", "--samples", "2000", "--seed", "5", "--format", "json")
    code, out, _ = run(capsys, *argv)
    assert code == 0
    result = json.loads(out)
    assert result["monte_carlo"] == {"sd": 0.1, "error": "truncated", "samples": 2000, "seed": 5}
    (pair,) = result["pairs"]
    assert (pair["better"], pair["worse"]) == ("A", "B")
    assert 0 <= pair["flip_probability"] <= 1 and pair["standard_error"] >= 0
    again = json.loads(run(capsys, *argv)[1])
    # Same seed, same numbers: everything but the date of the run, which may tick between the two.
    assert {**again, "date": None} == {**result, "date": None}


def test_json_with_a_gaussian_sd_is_exact(capsys):
    code, out, _ = run(capsys, EXAMPLES / "triage_3class.json", "--sd", "0.1", "--format", "json")
    result = json.loads(out)
    assert code == 0 and "monte_carlo" not in result
    assert result["closed_form"] == {"sd": 0.1, "error": "gaussian", "formula": "Phi(-d / (sd * ||C_A - C_B||_F))", "exact": True}
    assert len(result["pairs"]) == 3
    for pair in result["pairs"]:
        assert 0 < pair["flip_probability"] < 0.5 and pair["standard_error"] is None and pair["flips"] is None
    code, out, _ = run(capsys, EXAMPLES / "triage_3class.json", "--sd", "0.1", "--format", "csv")
    _, rows = csv_parts(out)
    by_name = {r["classifier"]: r for r in rows}
    assert code == 0 and not any(key.startswith(("monte_carlo", "standard_error")) for key in rows[0])
    assert {(r["closed_form_sd"], r["closed_form_error"]) for r in rows} == {("0.1", "gaussian")}
    for pair in result["pairs"]:
        assert float(by_name[pair["better"]][f"flip_probability_vs_{pair['worse']}"]) == pair["flip_probability"]


def test_table_with_sd(capsys):
    code, out, _ = run(capsys, EXAMPLES / "factory_uncertain.json", "--error", "truncated", "--samples", "1000", "--seed", "1", "--details")
    assert code == 0
    assert "expected over 2 matrices, eq. (17)" in out
    assert "1000 samples, seed 1" in out and "P(flip)" in out and " ± " in out
    code, out, _ = run(capsys, EXAMPLES / "factory_uncertain.json", "--details")  # gaussian errors: exact
    assert code == 0 and "exact (closed form, no sampling)" in out and "seed" not in out and " ± " not in out


def test_csv_output(capsys):
    code, out, _ = run(capsys, EXAMPLES / "factory.json", "--format", "csv", "--metrics", "accuracy,tnr")
    assert code == 0
    made, _ = csv_parts(out)
    rows = list(csv.reader(io.StringIO("".join(line for line in io.StringIO(out) if not line.startswith("#")))))
    assert rows[0] == ["rank", "classifier", "utility_yield", "accuracy", "tnr", "accuracy_rank", "tnr_rank"]
    assert rows[1][:2] == ["1", "A"] and float(rows[1][2]) == pytest.approx(3.5)
    assert rows[2][1] == "B" and float(rows[2][3]) == pytest.approx(0.75) and rows[2][5] == "1"
    # How it was made, before the header: the rows alone hold no utility matrix.
    assert made["input"] == str(EXAMPLES / "factory.json")
    assert made["classes"] == ["long durability", "short durability"]
    assert made["utility"] == [[15, -335], [-35, 165]] and made["utility_form"] == "as given"
    assert made["versions"]["mcrank"] and made["date"] and "python" in made and "revision" in made


def test_json_output_says_how_it_was_made(capsys):
    code, out, _ = run(capsys, EXAMPLES / "factory.json", "--format", "json")
    document = json.loads(out)
    assert code == 0 and document["input"] == str(EXAMPLES / "factory.json")
    assert "utility_input" not in document
    code, out, _ = run(capsys, EXAMPLES / "factory.json", "--utility", "[[1, 0], [0, 1]]", "--format", "json")
    assert json.loads(out)["utility_input"] == "[[1, 0], [0, 1]]"
    assert document["versions"]["mcrank"] and document["versions"]["llvmlite"] and document["date"]
    assert {"python", "platform", "revision"} <= set(document)


def test_csv_with_sd_has_the_flip_probabilities_and_the_seed(capsys, tmp_path):
    argv = (EXAMPLES / "triage_3class.json", "--sd", "0.1", "--error", "truncated", "--samples", "2000", "--seed", "5")
    code, out, _ = run(capsys, *argv, "--format", "csv", "--metrics", "accuracy")
    assert code == 0
    _, rows = csv_parts(out)
    result = json.loads(run(capsys, *argv, "--format", "json")[1])
    assert [r["classifier"] for r in rows] == [c["name"] for c in result["classifiers"]]
    for row in rows:
        settings = (row["monte_carlo_sd"], row["monte_carlo_error"], row["monte_carlo_samples"], row["monte_carlo_seed"])
        assert settings == ("0.1", "truncated", "2000", "5")
        assert row[f"flip_probability_vs_{row['classifier']}"] == row[f"standard_error_vs_{row['classifier']}"] == ""
    by_name = {r["classifier"]: r for r in rows}
    assert len(result["pairs"]) == 3
    for pair in result["pairs"]:
        for first, second in ((pair["better"], pair["worse"]), (pair["worse"], pair["better"])):
            assert float(by_name[first][f"flip_probability_vs_{second}"]) == pair["flip_probability"]
            assert float(by_name[first][f"standard_error_vs_{second}"]) == pair["standard_error"]
    # A pair tied under the utility matrix has no ranking to flip: empty cells, as null in JSON.
    tied = write(tmp_path, "tied.json", _with(classifiers={"A": [[27, 15], [23, 35]], "B": [[27, 15], [23, 35]]}))
    code, out, _ = run(capsys, tied, "--sd", "0.1", "--error", "truncated", "--samples", "100", "--seed", "1", "--format", "csv")
    _, rows = csv_parts(out)
    assert code == 0 and rows[0]["flip_probability_vs_B"] == rows[1]["flip_probability_vs_A"] == ""


def test_utility_option_overrides_the_file(capsys, tmp_path):
    path = write(tmp_path, "in.json", GOOD)
    code, out, _ = run(capsys, path, "--utility", "[[45, -335], [-65, 165]]", "--format", "json")  # eq. (5)
    assert code == 0
    assert [c["name"] for c in json.loads(out)["classifiers"]] == ["B", "A"]
    distribution = write(tmp_path, "u.json", {"matrices": [[[1, 0], [0, 1]], [[1, 0], [0, 0]]], "probabilities": [0.5, 0.5]})
    code, out, _ = run(capsys, path, "--utility", distribution, "--format", "json")
    assert code == 0 and json.loads(out)["utility"]["matrix"] == [[1, 0], [0, 0.5]]


def test_csv_input_with_classes_from_the_utility_file(capsys, tmp_path):
    path = write(tmp_path, "in.csv", GOOD_CSV)
    utility = write(tmp_path, "u.json", {"utility": [[15, -335], [-35, 165]], "classes": ["long", "short"]})
    code, out, _ = run(capsys, path, "--utility", utility, "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert result["classes"] == ["long", "short"]
    assert result["classifiers"][0]["utility_yield"] == pytest.approx(3.5)


def test_help_mentions_the_normalised_sd(capsys):
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert "normalised by eq. (11)" in out and "--sd" in out


def test_the_entry_point_without_traceback(tmp_path):
    bad = write(tmp_path, "bad.json", "{not json")
    command = [sys.executable, "-c", "import sys; from mcrank.cli import main; sys.exit(main())", "evaluate"]
    good = subprocess.run([*command, str(EXAMPLES / "medical.json")], capture_output=True, text=True)
    assert good.returncode == 0 and "+338.5" in good.stdout
    failed = subprocess.run([*command, str(bad)], capture_output=True, text=True)
    assert failed.returncode == 2 and failed.stdout == ""
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr


# --- bad input: one line on stderr, exit code 2 ----------------------------------------------


def _with(**changes):
    data = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            data.pop(key)
        else:
            data[key] = value
    return data


BAD_FILES = [
    ("missing.json", None, "No such file or directory"),
    ("empty.json", "", "empty.json: the file is empty"),
    ("empty.csv", "  \n", "empty.csv: the file is empty"),
    ("invalid.json", '{"classifiers": {"A": [[1, 2], [3, 4]]', "not valid JSON"),
    ("list.json", "[1, 2]", "expected a JSON object with 'classifiers'"),
    ("unknown_key.json", _with(utilities=[[1, 0], [0, 1]]), "unknown key 'utilities'"),
    ("duplicate.json", '{"classifiers": {"A": [[1, 0], [0, 1]], "A": [[1, 0], [0, 1]]}}', "duplicate key 'A'"),
    ("no_classifiers.json", _with(classifiers={}), "'classifiers' must be a non-empty object"),
    ("not_square.json", _with(classifiers={"A": [[1, 2, 3], [4, 5, 6]]}), "classifier 'A': not square: 2 rows but row 0 has 3"),
    (
        "sizes.json",
        _with(classifiers={"A": [[1, 2], [3, 4]], "B": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}),
        "'B': the confusion matrix is 3x3 but that of classifier 'A' is 2x2",
    ),
    (
        "negative.json",
        _with(classifiers={"A": [[27, 15], [23, 35]], "B": [[-1, 18], [51, 32]]}),
        "classifier 'B', row 0 (output '0'), column 0 (true '0'): count -1 is negative",
    ),
    (
        "fraction.json",
        _with(classifiers={"A": [[0.27, 0.15], [0.23, 0.35]]}),
        "count 0.27 is not a whole number (give counts, not fractions)",
    ),
    (
        "nan.json",
        '{"classifiers": {"A": [[1, NaN], [3, 4]]}, "utility": [[1, 0], [0, 1]]}',
        "row 0 (output '0'), column 1 (true '1'): count nan is NaN",
    ),
    (
        "inf.json",
        '{"classifiers": {"A": [[1, 2], [Infinity, 4]]}, "utility": [[1, 0], [0, 1]]}',
        "row 1 (output '1'), column 0 (true '0'): count inf is infinite",
    ),
    (
        "huge_count.json",
        _with(classifiers={"A": [[27, 15], [23, 10**400]]}),
        "huge_count.json: classifier 'A', row 1, column 1: a number too large for a floating-point number",
    ),
    (
        "big_count.json",
        _with(classifiers={"A": [[27, 15], [23, 2**53 + 1]]}),
        "row 1 (output '1'), column 1 (true '1'): count 9.0072e+15 is too large",
    ),
    (
        "huge_utility.json",
        _with(utility=[[15, -335], [-35, -(10**400)]]),
        "huge_utility.json: utility, row 1, column 1: a number too large for a floating-point number",
    ),
    ("overflowing_yield.json", _with(utility=[[1e308, -1e308], [-1e308, 1e308]]), "the utility yields overflow"),
    (
        "huge_sd.json",
        _with(utility={"matrix": [[1, 0], [0, 1]], "sd": 10**400}),
        "huge_sd.json: utility: sd: a number too large for a floating-point number",
    ),
    ("string.json", _with(classifiers={"A": [[1, "2"], [3, 4]]}), "classifier 'A', row 0, column 1: '2' is not a number"),
    (
        "test_set.json",
        _with(classifiers={"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 33]]}),
        "classifiers 'A' and 'B' have different column totals (true class '1': 50 vs 51): they were not tested on the same test set",
    ),
    ("zeros.json", _with(classifiers={"A": [[0, 0], [0, 0]]}), "classifier 'A': the confusion matrix is all zeros"),
    (
        "utility_size.json",
        _with(utility=[[1, 0, 0], [0, 1, 0], [0, 0, 1]]),
        "utility: the utility matrix is 3x3 but the confusion matrices are 2x2",
    ),
    ("utility_constant.json", _with(utility=[[2, 2], [2, 2]]), "utility: the utility matrix is constant"),
    (
        "utility_nan.json",
        '{"classifiers": {"A": [[1, 2], [3, 4]]}, "utility": [[1, NaN], [0, 1]]}',
        "utility, row 0, column 1: utility nan is not finite",
    ),
    (
        "negative_probability.json",
        _with(utility={"matrices": [[[1, 0], [0, 1]], [[1, 0], [0, 0]]], "probabilities": [1.2, -0.2]}),
        "utility: probabilities[1] = -0.2 is not a probability",
    ),
    (
        "probability_sum.json",
        _with(utility={"matrices": [[[1, 0], [0, 1]], [[1, 0], [0, 0]]], "probabilities": [0.5, 0.6]}),
        "utility: probabilities sum to 1.1, not 1",
    ),
    (
        "probability_count.json",
        _with(utility={"matrices": [[[1, 0], [0, 1]], [[1, 0], [0, 0]]], "probabilities": [1.0]}),
        "utility: 2 matrices but 1 probabilities",
    ),
    ("classes_length.json", _with(classes=["long", "short", "medium"]), "3 class names but the confusion matrices are 2x2"),
    ("classes_twice.json", _with(classes=["long", "long"]), "class name 'long' appears twice"),
    (
        "newline_name.json",
        _with(classifiers={"A": [[27, 15], [23, 35]], "x\ny": [[43, 18], [7, 32]]}),
        "classifier name 'x\\ny' contains the control character '\\n': names are printed one per line",
    ),
    ("empty_name.json", _with(classifiers={"": [[27, 15], [23, 35]]}), "a classifier name is empty ('')"),
    ("separator_class.json", _with(classes=["long\u2028", "short"]), "class name 'long\\u2028' contains the control character"),
    ("no_utility.json", _with(utility=None), "no utility matrix: the ranking needs the problem's utilities"),
    ("matrix.txt", "1,2", "unknown file type '.txt'"),
    ("header.csv", "name,output,true,count\nA,0,0,1\n", "line 1: missing column 'classifier'"),
    ("fields.csv", "classifier,output,true,count\nA,0,0\n", "line 2: expected 4 fields, got 3"),
    (
        "twice.csv",
        "classifier,output,true,count,Count\nA,0,0,1,1\n",
        "line 1: column 'count' appears twice; the header must be classifier,output,true,count",
    ),
    ("extra.csv", "classifier,output,weight,true,count\nA,0,1,0,1\n", "line 1: unexpected column 'weight'"),
    ("count.csv", "classifier,output,true,count\nA,0,0,many\n", "line 2: count 'many' is not a number"),
    (
        "huge_count.csv",
        "classifier,output,true,count\nA,0,0,5\nA,1,1," + "9" * 400 + "\n",
        "huge_count.csv: classifier 'A', row 1, column 1: a number too large for a floating-point number",
    ),
    (
        "repeat.csv",
        "classifier,output,true,count\nA,0,0,1\nA,1,1,2\nA,0,0,3\n",
        "line 4: classifier 'A', output '0', true '0' already given on line 2",
    ),
    ("one_class.csv", "classifier,output,true,count\nA,x,x,5\n", "only one class ('x')"),
    (
        "newline_name.csv",
        'classifier,output,true,count\nA,0,0,5\n"x\ny",1,1,4\n',
        "line 3: classifier name 'x\\ny' contains the control character '\\n'",
    ),
    ("tab_class.csv", "classifier,output,true,count\nA,a\tb,a\tb,5\n", "line 2: class name 'a\\tb' contains the control character '\\t'"),
    (
        "negative.csv",
        "classifier,output,true,count\nA,0,0,5\nA,1,0,-2\nA,1,1,4\n",
        "classifier 'A', row 1 (output '1'), column 0 (true '0'): count -2 is negative",
    ),
    (
        "gaps.csv",
        "classifier,output,true,count\nA,0,0,5\nA,1000000,1,4\n",
        "class indices must run from 0 without gaps, found 0, 1, 1000000",
    ),
    ("empty_class.csv", "classifier,output,true,count\nA,0,,5\n", "line 2: empty 'true' field"),
    ("header_only.csv", "classifier,output,true,count\n", "no data rows below the header"),
    ("huge.csv", 'classifier,output,true,count\nA,0,0,"' + "1" * 200_000 + '"\n', "not valid CSV: field larger than field limit"),
    ("binary.json", "\udcff", "not a text file (not UTF-8)"),
    ("deep.json", "[" * 100_000, "deep.json: nested too deeply to read"),
    (
        "deep_utility.json",
        '{"classifiers": {"A": [[1, 2], [3, 4]]}, "utility": ' + "[" * 500 + "]" * 500 + "}",
        "deep_utility.json: utility, row 0, column 0: a list is not a number",
    ),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_file_gives_one_line_and_exit_2(capsys, tmp_path, name, content, message):
    path = tmp_path / name if content is None else write(tmp_path, name, content)
    argv = [path] if not name.endswith(".csv") else [path, "--utility", "[[1, 0], [0, 1]]"]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert message in err, err
    if content is not None:
        assert name in err  # the file is named


BAD_OPTIONS = [
    (["--metrics", "accuracy,auc"], "unknown metric 'auc' for 2 classes; known: accuracy"),
    (["--metrics", "fbeta"], "metric 'fbeta' is not offered"),
    (["--metrics", " , "], "--metrics: give at least one metric id"),
    (["--metrics", "accuracy,tnr,accuracy"], "metric 'accuracy' is listed twice"),
    (["--metrics", "specificity,tnr"], "metric 'tnr' is listed twice (as 'specificity' and 'tnr')"),
    (["--utility", "[[1, 0], [0, 1], [1, 1]]"], "--utility: not square"),
    (["--utility", "[[1, 0], [0, 1]"], "--utility: not valid JSON"),
    (["--utility", "nowhere.json"], "nowhere.json: No such file or directory"),
    (["--utility", '{"matrix": [[1, 0], [0, 1]], "probabilities": [1]}'], "'probabilities' belong with 'matrices'"),
    (["--utility", '{"matrices": [[[1, 0], [0, 1]]], "probabilities": [-1]}'], "--utility: probabilities[0] = -1 is not a probability"),
    (["--utility", '{"utility": [[1, 0], [0, 1]], "classes": ["up", "down"]}'], "class names do not match"),
    (["--error", "truncated"], "an error model ('truncated') needs an error sd"),
    (["--utility", "[[0, 1], [1, 0]]", "--sd", "0.1", "--error", "truncated"], "truncated error model keeps correct classification best"),
    (["--utility", "[" * 100_000], "--utility: nested too deeply to read"),
    (["--sd", "-0.1"], "--sd must be positive, got '-0.1'"),
    (["--sd", "abc"], "--sd must be a number, got 'abc'"),
    (["--samples", "0"], "--samples must be a whole number from 1 to 1,000,000,000, got '0'"),
    (["--seed", "-3"], "seed must be a non-negative integer, got -3"),
    (["--metrics", "accuracy", "in.json"], "--metrics took in.json for a metric id: give FILE before --metrics"),
]


@pytest.mark.parametrize(("options", "message"), BAD_OPTIONS, ids=[case[1][:30] for case in BAD_OPTIONS])
def test_bad_option_gives_one_line_and_exit_2(capsys, tmp_path, options, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, "in.json", _with(classes=["long", "short"]))
    if options[-1] == "in.json":  # FILE taken by --metrics: no FILE before it
        code, out, err = run(capsys, *options)
    else:
        code, out, err = run(capsys, path, *options)
    assert code == 2 and out == ""
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_huge_sd_runs_without_warnings(capsys):
    # Any finite sd, as `mcrank run` takes it; 1e308 printed "RuntimeWarning: invalid value
    # encountered in matmul" (an error under this test suite's warning filter).
    code, out, err = run(capsys, EXAMPLES / "factory.json", "--sd", "1e308", "--details")
    assert code == 0 and err == ""
    assert "errors of sd 1e+308" in out and "P(flip) = 0.5000" in out


def test_monte_carlo_samples_are_capped(capsys):
    # Without the cap this would run for years; with it, one line and exit code 2 at once.
    code, out, err = run(
        capsys, EXAMPLES / "factory.json", "--sd", "0.1", "--error", "truncated", "--samples", "99999999999999999", "--details"
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--samples must be a whole number from 1 to 1,000,000,000, got '99999999999999999'" in err
    code, out, _ = run(
        capsys, EXAMPLES / "factory.json", "--sd", "0.1", "--error", "truncated", "--samples", "1e3", "--seed", "0", "--details"
    )
    assert code == 0 and "1000 samples" in out


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_is_refused_unread(capsys, tmp_path):
    # `mcrank evaluate` read a file whole: /dev/zero filled the memory.
    endless = tmp_path / "zero.json"
    endless.symlink_to("/dev/zero")
    for argv in ([endless], [EXAMPLES / "factory.json", "--utility", "/dev/zero"]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "zero" in err and err.endswith(": is a device, not a regular file\n"), err
    code, _, err = run(capsys, "/dev/zero")  # no suffix: refused unread
    assert code == 2 and "/dev/zero: unknown file type" in err


def test_the_size_limit_is_the_last_byte_allowed(capsys, tmp_path, monkeypatch):
    from mcrank.evaluate import input as evaluate_input

    text = json.dumps(GOOD)
    monkeypatch.setattr(evaluate_input, "MAX_INPUT_BYTES", len(text))
    code, _, err = run(capsys, write(tmp_path, "fits.json", text))
    assert code == 0 and err == ""
    code, _, err = run(capsys, write(tmp_path, "over.json", text + " "))
    assert code == 2 and "over.json: larger than" in err


def test_progress_bar_on_a_terminal_unless_quiet(capsys, monkeypatch):
    # A long Monte Carlo run (--sd on many classes) showed nothing for minutes.
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    argv = (EXAMPLES / "factory.json", "--sd", "0.1", "--error", "truncated", "--samples", "2000", "--seed", "1", "--format", "json")
    code, out, err = run(capsys, *argv)
    assert code == 0 and "/2.00k [" in err and "sample/s" in err, err
    code, quiet_out, err = run(capsys, *argv, "--quiet")
    assert code == 0 and err == "" and json.loads(quiet_out)["pairs"] == json.loads(out)["pairs"]
    code, _, err = run(capsys, EXAMPLES / "factory.json")  # no error sd: no Monte Carlo, no bar
    assert code == 0 and err == ""


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--seed", "abc"], "argument --seed: invalid int value: 'abc'"),
        (["--error", "uniform"], "invalid choice: 'uniform'"),
    ],
)
def test_bad_option_values_are_argparse_errors(capsys, options, message):
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", str(EXAMPLES / "factory.json"), *options])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_out_of_memory_is_one_line_and_exit_2(capsys, monkeypatch):
    from mcrank.evaluate import pipeline

    def exhausted(*args, **kwargs):
        raise MemoryError("Unable to allocate 372 GiB for an array with shape (499500, 100000) and data type float64")

    monkeypatch.setattr(pipeline, "_count_flips", exhausted)
    code, out, err = run(capsys, EXAMPLES / "factory.json", "--sd", "0.1", "--error", "truncated", "--format", "json")
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("mcrank evaluate: error: not enough memory (Unable to allocate 372 GiB"), err


def test_csv_class_names_that_do_not_match(capsys, tmp_path):
    path = write(tmp_path, "in.csv", GOOD_CSV)
    utility = write(tmp_path, "u.json", {"utility": [[1, 0], [0, 1]], "classes": ["long", "medium"]})
    code, out, err = run(capsys, path, "--utility", utility)
    assert code == 2 and err.count("\n") == 1
    # The classes are named with the file they came from (the message blamed in.csv alone).
    assert f"in.csv: class 'short' does not match any of the classes of {utility}: 'long', 'medium'" in err
    labels = write(tmp_path, "labels.csv", "true,A\nlong,long\nshort,long\n")
    code, out, err = run(capsys, "--labels", labels, "--utility", utility)
    assert code == 2 and err.endswith(f"line 3, column 'true': label 'short' is not one of the classes of {utility}: 'long', 'medium'\n")


def test_csv_without_utility(capsys, tmp_path):
    code, _, err = run(capsys, write(tmp_path, "in.csv", GOOD_CSV))
    assert code == 2 and "in.csv: no utility matrix" in err and "--utility" in err
    assert "add a 'utility' to the file" not in err  # a CSV cannot hold one
    assert '"classes": [...]' in err  # its classes are named: say at once how to give their order


def test_csv_with_class_names_needs_their_order_from_the_utility(capsys, tmp_path):
    """The rows of a long-form CSV can come in any order. A plain matrix would take the
    class order from the names' first appearance, and one reordering of the file would swap
    the matrix's rows and columns: refused. With the classes given, the order of the rows
    does not matter."""
    lines = GOOD_CSV.splitlines()
    lines += ["B,long,long,43", "B,long,short,18", "B,short,long,7", "B,short,short,32"]
    reordered = [lines[0], *sorted(lines[1:], key=lambda line: line.split(",")[1] != "short")]
    assert reordered[1].split(",")[1] == "short"  # 'short' now appears first
    plain = "[[15, -335], [-35, 165]]"
    named = '{"utility": [[15, -335], [-35, 165]], "classes": ["long", "short"]}'
    yields = []
    for k, rows in enumerate((lines, reordered)):
        path = write(tmp_path, f"in{k}.csv", "\n".join(rows) + "\n")
        code, out, err = run(capsys, path, "--utility", plain)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"in{k}.csv: the file names its classes" in err and '"classes"' in err, err
        code, out, _ = run(capsys, path, "--utility", named, "--format", "json")
        assert code == 0
        yields.append({c["name"]: c["utility_yield"] for c in json.loads(out)["classifiers"]})
    assert yields[0] == yields[1] == {"A": pytest.approx(3.5), "B": pytest.approx(-3.5)}
    indexed = write(tmp_path, "indexed.csv", "classifier,output,true,count\nA,1,1,35\nA,0,0,27\nA,0,1,15\nA,1,0,23\n")
    code, out, _ = run(capsys, indexed, "--utility", plain, "--format", "json")  # numbered classes: no doubt
    assert code == 0 and json.loads(out)["classifiers"][0]["utility_yield"] == pytest.approx(3.5)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("bare.json", {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[-1, 18], [51, 32]]}}),
        ("bare.csv", "classifier,output,true,count\nA,0,0,5\nA,1,1,4\nB,0,0,-1\nB,1,1,4\n"),
        ("constant.json", {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[-1, 18], [51, 32]]}, "utility": [[2, 2], [2, 2]]}),
        ("malformed.json", {"classifiers": {"A": [[27, 15], [23, 35]], "B": [[-1, 18], [51, 32]]}, "utility": [[1, 0], [0]]}),
    ],
)
def test_bad_counts_are_reported_before_the_utility_that_follows_them(capsys, tmp_path, name, content):
    # The confusion matrices come first in the file, the utility matrix after: the first fault is theirs.
    code, _, err = run(capsys, write(tmp_path, name, content))
    assert code == 2 and err.count("\n") == 1
    assert "classifier 'B', row 0 (output '0'), column 0 (true '0'): count -1 is negative" in err, err
    assert "no utility matrix" not in err and "utility:" not in err, err


def test_multiclass_unknown_metric(capsys):
    code, _, err = run(capsys, EXAMPLES / "triage_3class.json", "--metrics", "f1")
    assert code == 2 and "unknown metric 'f1' for 3 classes; known: accuracy, balanced_accuracy, macro_f1" in err


def test_every_message_is_distinct():
    messages = [m for *_, m in BAD_FILES] + [m for _, m in BAD_OPTIONS]
    assert len(set(messages)) == len(messages)
    assert np.all([isinstance(m, str) and m for m in messages])


def test_the_guide_shows_the_real_output(capsys):
    # The README's section is a paragraph since 258fe2b; the three-class output lives in the guide.
    guide = (EXAMPLES.parent / "docs" / "evaluate-inputs.md").read_text()
    section = guide[guide.index("(`mcrank evaluate examples/triage_3class.json --details`, an excerpt)") :]
    shown = section[section.index("```text\n") + len("```text\n") :]
    shown = shown[: shown.index("```")]
    code, out, _ = run(capsys, EXAMPLES / "triage_3class.json", "--details")
    # An excerpt of whole lines: every number shown is the real output's.
    assert code == 0 and shown.count("\n") >= 10 and ("\n" + shown) in out


@pytest.mark.parametrize(
    ("options", "unused"),
    [
        (["--seed", "5"], "--seed not used: nothing is drawn (no error sd and no --test-uncertainty)"),
        (["--samples", "1e4", "--seed", "5"], "--samples and --seed not used: nothing is drawn"),
        (["--sd", "0.1", "--seed", "5"], "--seed not used: nothing is drawn (the flip probabilities under gaussian errors are exact)"),
    ],
)
def test_a_seed_where_nothing_is_drawn_is_noted_not_refused(capsys, options, unused):
    # A script that always passes a seed must not break where nothing is random (issue 25).
    code, out, err = run(capsys, EXAMPLES / "factory.json", *options)
    assert code == 0 and err.startswith("mcrank evaluate: note: ") and err.count("\n") == 1 and unused in err, err
    drawn_nothing = [value for k, value in enumerate(options) if options[k - 1 if k else 0] not in ("--seed", "--samples")
                     and value not in ("--seed", "--samples")]  # fmt: skip
    assert out == run(capsys, EXAMPLES / "factory.json", *drawn_nothing)[1]


def test_metrics_are_separated_by_spaces_or_commas_as_run_takes_them(capsys):
    spaced = run(capsys, EXAMPLES / "factory.json", "--metrics", "accuracy", "f1", "--format", "json")
    commas = run(capsys, EXAMPLES / "factory.json", "--metrics", "accuracy,f1", "--format", "json")
    assert spaced[0] == commas[0] == 0
    assert [m["id"] for m in json.loads(spaced[1])["metrics"]] == ["accuracy", "f1"]
    assert {**json.loads(spaced[1]), "date": None} == {**json.loads(commas[1]), "date": None}
    code, out, _ = run(capsys, "--details", "--metrics", "accuracy", "f1", "--", EXAMPLES / "factory.json")  # FILE after the list
    assert code == 0 and "accuracy*" in out


@pytest.mark.parametrize("suffix", [".json", ".csv", ".txt"])
def test_out_writes_the_file_in_the_format_of_its_extension(capsys, tmp_path, suffix):
    path = tmp_path / f"ranking{suffix}"
    code, out, err = run(capsys, EXAMPLES / "triage_3class.json", "--out", path)
    assert code == 0 and out == "" and err == f"mcrank evaluate: wrote {path}\n"
    text = path.read_text()
    expected = run(capsys, EXAMPLES / "triage_3class.json", "--format", {".json": "json", ".csv": "csv"}.get(suffix, "table"))[1]
    if suffix == ".json":
        assert {**json.loads(text), "date": None} == {**json.loads(expected), "date": None}
    elif suffix == ".csv":
        assert csv_parts(text)[1] == csv_parts(expected)[1]
    else:
        assert text == expected
    assert run(capsys, EXAMPLES / "triage_3class.json", "--out", path, "--quiet")[2] == ""
    code, _, err = run(capsys, EXAMPLES / "triage_3class.json", "--out", tmp_path / "missing" / "x.json")
    assert code == 2 and "does not exist" in err


def test_a_fifo_as_any_input_is_refused_in_one_line_without_waiting(capsys, fifo):
    # Each of these waited forever for a writer.
    pipe = fifo("pipe.json")
    table = fifo("pipe.csv")
    for argv in (
        [pipe],
        ["--labels", table, "--utility", EXAMPLES / "triage_3class.json"],
        ["--scores", table, "--positive", "a"],
        [EXAMPLES / "factory.json", "--utility", pipe],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.endswith(": is a FIFO (named pipe), not a regular file\n"), err


@pytest.mark.parametrize(
    "option", [["--plot", "p.png"], ["--threshold-choice", "test"], ["--folds", "3"], ["--positive", "long"], ["--thresholds", "0.5"]]
)
def test_an_option_of_scores_without_scores_is_refused(capsys, tmp_path, monkeypatch, option):
    # They were silently ignored: nothing would change.
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, EXAMPLES / "factory.json", *option)
    assert code == 2 and out == "" and list(tmp_path.iterdir()) == []
    assert err == f"mcrank evaluate: error: {option[0]} is an option of --scores, which is not given: it would change nothing\n"


def test_macro_f1_is_taken_for_two_classes_as_run_takes_it(capsys):
    # The registry defines it for any n; evaluate refused it for two classes.
    code, out, err = run(capsys, EXAMPLES / "factory.json", "--metrics", "macro_f1", "--format", "json")
    assert code == 0, err
    (a, b), classes = json.loads(out)["classifiers"], (0, 1)
    for row, matrix in ((a, [[27, 15], [23, 35]]), (b, [[43, 18], [7, 32]])):
        m = np.array(matrix, dtype=float)  # rows = output, columns = true class
        f1 = [2 * m[k, k] / (m[k, :].sum() + m[:, k].sum()) for k in classes]
        assert row["scores"]["macro_f1"] == pytest.approx(np.mean(f1), abs=1e-15)


def test_a_list_ended_by_a_double_dash_as_the_docs_say(capsys):
    # "unrecognized arguments: --" when nothing followed it.
    expected = run(capsys, EXAMPLES / "factory.json", "--metrics", "tpr")
    assert run(capsys, EXAMPLES / "factory.json", "--metrics", "tpr", "--") == expected
    assert run(capsys, "--metrics", "tpr", "--", EXAMPLES / "factory.json") == expected


def test_a_leading_minus_in_a_list_reaches_the_values_check(capsys, tmp_path):
    # argparse took -0.1,0.5 for an option: "expected one argument".
    scores = write(tmp_path, "s.csv", "true,m\n1,0.9\n0,0.2\n1,0.6\n0,0.4\n")
    code, out, err = run(capsys, "--scores", scores, "--positive", "1", "--thresholds", "-0.1,0.5")
    assert code == 2 and out == ""
    assert err == "mcrank evaluate: error: --thresholds: -0.1 is not a threshold probability in (0, 1) (open interval)\n"


def test_a_table_of_labels_given_as_file_points_to_labels(capsys):
    # It said only "missing column 'classifier'".
    code, out, err = run(capsys, EXAMPLES / "triage_labels.csv")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.endswith(
        "line 1: missing column 'classifier'; the header must be classifier,output,true,count; a table of labels, one row per "
        "test item, is read with --labels\n"
    )
