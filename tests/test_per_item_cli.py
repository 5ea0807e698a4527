"""``mcrank evaluate --labels F --utility PER_ITEM.json`` (issue 31, item 2): the report, and
bad input refused in one line with exit code 2 and nothing written."""

import json

import numpy as np
import pytest

from mcrank.cli import main

FRAUD = {
    "classes": ["fraud", "legitimate"],
    "decisions": ["refuse", "accept"],
    "cells": {"refuse": {"fraud": 50, "legitimate": -5}, "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}},
}
TABLE = """true,amount,A,B
fraud,1000,accept,refuse
fraud,10,refuse,accept
legitimate,20,accept,accept
legitimate,30,accept,refuse
"""


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "u.json").write_text(json.dumps(FRAUD))
    (tmp_path / "t.csv").write_text(TABLE)
    return tmp_path


def test_report_gives_the_per_item_yields(files, capsys):
    code, out, err = run(capsys, "--labels", files / "t.csv", "--utility", files / "u.json", "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    yields = {row["classifier"]: row["utility_yield"] for row in result["classifiers"]}
    assert yields["A"] == pytest.approx((-1000 + 50 + 0.4 + 0.6) / 4)
    assert yields["B"] == pytest.approx((50 - 10 + 0.4 - 5) / 4)
    assert np.allclose(result["average_matrix"], [[50, -5], [-265, 5.3]])
    code, out, _ = run(
        capsys, "--labels", files / "t.csv", "--utility", files / "u.json", "--test-uncertainty", "--seed", "1", "--samples", "500"
    )
    assert code == 0 and "P(best)" in out and "Bayesian bootstrap" in out


@pytest.mark.parametrize(
    ("table", "utility", "message"),
    [
        (TABLE.replace("amount", "price"), FRAUD, "no column 'amount'"),
        (TABLE.replace("1000", "lots"), FRAUD, "line 2, column 'amount': 'lots' is not a number"),
        (TABLE.replace("1000", "nan"), FRAUD, "line 2, column 'amount': 'nan': per-item utilities must be finite"),
        (TABLE.replace("1000", "inf"), FRAUD, "must be finite"),
        (TABLE, {**FRAUD, "cells": {**FRAUD["cells"], "block": {"fraud": 1, "legitimate": 1}}}, "'block' is not a decision"),
        (
            TABLE,
            {**FRAUD, "cells": {**FRAUD["cells"], "accept": {"fraud": 1, "legitimate": 1, "other": {"amount": 1}}}},
            "'other' is not a class",
        ),
        (TABLE.replace("accept,refuse\nfraud", "block,refuse\nfraud"), FRAUD, "label 'block' is not one of refuse, accept"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_and_nothing_written(tmp_path, capsys, table, utility, message):
    (tmp_path / "u.json").write_text(json.dumps(utility))
    (tmp_path / "t.csv").write_text(table)
    out = tmp_path / "out.json"
    code, stdout, err = run(capsys, "--labels", tmp_path / "t.csv", "--utility", tmp_path / "u.json", "--out", out)
    assert code == 2 and message in err and err.count("\n") == 1 and not stdout and not out.exists(), err


def test_per_item_utility_with_confusion_matrices_is_refused(files, capsys):
    matrices = files / "m.json"
    matrices.write_text(json.dumps({"classifiers": {"A": [[1, 2], [3, 4]]}}))
    code, out, err = run(capsys, matrices, "--utility", files / "u.json")
    assert code == 2 and "confusion matrices have no items" in err and not out
    code, _, err = run(capsys, "--labels", files / "t.csv", "--utility", files / "u.json", "--sd", "0.1")
    assert code == 2 and "--sd has no per-item form" in err


def test_the_table_reader_agrees_with_and_without_quotes(tmp_path):
    from mcrank.evaluate.per_item import load_item_table

    (tmp_path / "a.csv").write_text(TABLE)
    (tmp_path / "b.csv").write_text(TABLE.replace("fraud,10,", '"fraud", 10 ,').replace("\n", "\r\n") + "\r\n")
    a, b = load_item_table(tmp_path / "a.csv", columns=("amount",)), load_item_table(tmp_path / "b.csv", columns=("amount",))
    assert a[0].tolist() == b[0].tolist() and np.array_equal(a[2]["amount"], b[2]["amount"])
    assert {k: v.tolist() for k, v in a[1].items()} == {k: v.tolist() for k, v in b[1].items()}


def test_scores_decide_each_item_by_its_own_matrix(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 400
    amount = rng.lognormal(3.5, 1.2, n)
    fraud = rng.random(n) < 0.1
    p = {"sharp": np.clip(np.where(fraud, 0.6, 0.05) + rng.normal(0, 0.05, n), 0, 1), "vague": rng.uniform(0, 0.3, n)}
    lines = ["true,amount,sharp,vague"] + [
        f"{'fraud' if f else 'legitimate'},{float(a)!r},{float(s)!r},{float(v)!r}"
        for f, a, s, v in zip(fraud, amount, p["sharp"], p["vague"], strict=True)
    ]
    (tmp_path / "s.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "u.json").write_text(json.dumps(FRAUD))
    code, out, err = run(capsys, "--scores", tmp_path / "s.csv", "--utility", tmp_path / "u.json", "--format", "json")
    assert code == 0, err
    yields = {row["classifier"]: row["utility_yield"] for row in json.loads(out)["classifiers"]}
    for name, q in p.items():
        # refuse where 50 q - 5 (1 - q) >= -amount q + 0.02 amount (1 - q) (ties: refuse, the first row)
        refuse = 50 * q - 5 * (1 - q) >= -amount * q + 0.02 * amount * (1 - q)
        earned = np.where(refuse, np.where(fraud, 50, -5), np.where(fraud, -amount, 0.02 * amount))
        assert yields[name] == pytest.approx(earned.mean(), rel=1e-12)
    (tmp_path / "s.csv").write_text("\n".join([lines[0], lines[1].rsplit(",", 1)[0] + ",high", *lines[2:]]) + "\n")
    code, out, err = run(capsys, "--scores", tmp_path / "s.csv", "--utility", tmp_path / "u.json")
    assert code == 2 and "column 'vague': 'high' is not a probability" in err and not out
