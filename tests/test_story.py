"""The paper's prologue (§0-§1): every expected number below is typed from the paper."""

from __future__ import annotations

import json
import re

import pytest

from mcrank.cli import main
from mcrank.story import story

# Table 1, as printed (two decimals); balanced accuracy is given with accuracy there.
TABLE1 = {
    "accuracy": ("0.62", "0.75"),
    "balanced_accuracy": ("0.62", "0.75"),
    "precision": ("0.64", "0.70"),
    "f1": ("0.59", "0.77"),
    "mcc": ("0.24", "0.51"),
    "fowlkes_mallows": ("0.59", "0.78"),
    "tpr": ("0.54", "0.86"),
    "tnr": ("0.70", "0.64"),
}

# Yields per test item: eq. (3) for eq. (4); §1 (a) for eq. (5); eq. (6) is eq. (4) + 335.
YIELDS = {
    "eq4": (3.5, -3.5, "A"),
    "eq5": (4.7, 7.3, "B"),
    "eq6": (338.5, 331.5, "A"),
}

UTILITY_MATRICES = {
    "eq4": [[15, -335], [-35, 165]],
    "eq5": [[45, -335], [-65, 165]],
    "eq6": [[350, 0], [300, 500]],
}

CLASSIFIERS = {"A": [[0.27, 0.15], [0.23, 0.35]], "B": [[0.43, 0.18], [0.07, 0.32]]}


def _check_story(result: dict):
    metrics = {m["id"]: m for m in result["metrics"]}
    assert set(metrics) == set(TABLE1)
    for metric_id, (a, b) in TABLE1.items():
        row = metrics[metric_id]
        assert {"id", "name", "A", "B"} <= set(row)
        assert (f"{row['A']:.2f}", f"{row['B']:.2f}") == (a, b), metric_id
    assert [m["id"] for m in result["utilities"]] == ["eq4", "eq5", "eq6"]
    for u in result["utilities"]:
        assert {"id", "matrix", "A", "B", "best"} <= set(u)
        yield_a, yield_b, best = YIELDS[u["id"]]
        assert u["A"] == pytest.approx(yield_a, abs=1e-9)
        assert u["B"] == pytest.approx(yield_b, abs=1e-9)
        assert u["best"] == best
        assert u["matrix"] == UTILITY_MATRICES[u["id"]]


def test_story_reproduces_table1_and_the_yields():
    _check_story(story())


def test_story_classifiers_are_eqs_1_and_2():
    assert story()["classifiers"] == CLASSIFIERS


def test_every_table1_metric_but_tnr_favours_b():
    favours = {m["id"]: m["favours"] for m in story()["metrics"]}
    assert favours == {metric_id: ("A" if metric_id == "tnr" else "B") for metric_id in TABLE1}


def test_metrics_against_the_utility_yield():
    utilities = {u["id"]: u for u in story()["utilities"]}
    # eq. (4) and eq. (6): A is better, every metric but TNR says B.
    assert set(utilities["eq4"]["metrics_against"]) == set(TABLE1) - {"tnr"}
    assert set(utilities["eq6"]["metrics_against"]) == set(TABLE1) - {"tnr"}
    # eq. (5): B is better, only TNR says A.
    assert utilities["eq5"]["metrics_against"] == ["tnr"]


def test_cli_json(capsys):
    assert main(["story", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    result = json.loads(captured.out)
    _check_story(result)
    assert set(result) >= {"metrics", "utilities"}


def test_cli_table(capsys):
    assert main(["story"]) == 0
    assert main(["story", "--format", "table"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    out = captured.out
    for metric_id, (a, b) in TABLE1.items():
        assert re.search(rf"\s{a}\s+{b}\s", out), metric_id
    for value in ("+3.5", "-3.5", "+4.7", "+7.3", "+338.5", "+331.5"):
        assert value in out
    # Within 80 columns, with every metric that votes against the utility yield still listed.
    assert max(map(len, out.splitlines())) <= 80
    factory = out[out.index("factory, eq. (4)") : out.index("factory with other gains")]
    assert " ".join(factory.split()).endswith("accuracy, balanced_accuracy, precision, f1, mcc, fowlkes_mallows, tpr")


def test_cli_bad_format_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as excinfo:
        main(["story", "--format", "bogus"])
    assert excinfo.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert "Traceback" not in captured.err
    assert "bogus" in lines[0]
