"""Numbers read from text (mcrank._validation.numeral) and grids ``start:stop:step``
(mcrank._validation.parse_grid): ASCII decimal numerals only, and grids whose values are the
nearest floats of the exact decimal values, none past the stop."""

from __future__ import annotations

import math
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from mcrank._validation import as_float, check_count, parse_float, parse_floats, parse_grid
from mcrank.cli import main
from mcrank.study import parse_sds
from mcrank.study.experiments import load_experiment

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("text", ["1_000", "１２", "٣", "1e1_0", "0x10", "1,5", ""])
def test_only_ascii_decimal_numerals_are_numbers(text):
    with pytest.raises(ValueError):
        parse_float(text)
    with pytest.raises(ValueError, match="samples"):
        check_count(text, "samples")
    with pytest.raises(ValueError, match="sd"):
        as_float(text, "sd")
    with pytest.raises(ValueError):
        parse_floats(["0.5", text])


@pytest.mark.parametrize(("text", "value"), [(" 1e6 ", 1e6), ("+.5", 0.5), ("-2.", -2.0), ("1E-3", 1e-3)])
def test_decimal_numerals_are_read(text, value):
    assert parse_float(text) == value


@pytest.mark.parametrize("argv", [["--samples", "1_000"], ["--jobs", "１"], ["--true-um-sd", "0.1_0"], ["--sd", "０.1"]])
def test_the_command_line_refuses_other_numerals_in_one_line(argv, capsys):
    try:
        code = main(["run", *argv])
    except SystemExit as exit:  # argparse's own refusal
        code = exit.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mcrank run: error:")


def _exact(text: str) -> list[Fraction]:
    start, stop, step = (Fraction(part) for part in text.split(":"))
    return [start + k * step for k in range(math.floor((stop - start) / step) + 1)]


@pytest.mark.parametrize(
    "text", ["0:0.5:0.01", "0:0.3:0.1", "0.1:0.7:0.2", "1e-13:1e-13:1", "0:0.1:0.1000000001", "0.1234567890123456:1:0.3", "3:3:1e-300"]
)
def test_a_grid_holds_the_nearest_float_of_each_exact_value(text):
    grid = parse_grid(text, "grid", maximum=10**4)
    exact = _exact(text)
    assert [float(v) for v in exact] == grid.tolist()  # float(Fraction) rounds correctly, once
    start, stop, _ = text.split(":")
    assert grid[0] == float(start) and grid[-1] <= float(stop)
    if exact[-1] == Fraction(stop):
        assert grid[-1] == float(stop)


def test_the_sds_are_the_values_given():
    assert parse_sds("1e-13:1e-13:1") == (1e-13,)
    assert parse_sds("0.1234567890123456") == (0.1234567890123456,)
    assert parse_sds("0:0.1:0.1000000001") == (0.0,)
    assert parse_sds("0:0.3:0.1") == (0.0, 0.1, 0.2, 0.3)


@pytest.mark.parametrize("text", ["0:1:5e-324", "0:1e300:1e-300", "0:1:1e-99999", "1:1.0000000000000001:1e-17", "0:1e400:1e400"])
def test_a_grid_too_fine_or_too_long_is_refused_in_one_line(text):
    with pytest.raises(ValueError, match="sd grid"):
        parse_sds(text)


def _grid_before(text: str) -> np.ndarray:
    """The sd grids' rule before they were computed in decimal (rounded to 12 decimals): the
    committed experiments must give the same floats by either rule."""
    start, stop, step = (float(p) for p in text.split(":"))
    grid = start + step * np.arange(math.floor((stop - start) / step + 1e-9) + 1)
    return np.round(grid, 12)


def test_every_committed_experiment_has_the_sds_it_had():
    grids = 0
    for path in sorted((ROOT / "experiments").glob("*.toml")):
        sds = tomllib.loads(path.read_text(encoding="utf-8")).get("sds")
        if not isinstance(sds, str):
            continue
        grids += 1
        before = np.concatenate([_grid_before(item) if ":" in item else [float(item)] for item in sds.split(",")])
        now = np.array(load_experiment(path).config.sds)
        assert now.view(np.uint64).tolist() == before.view(np.uint64).tolist(), path.name
    assert grids >= 20


def test_thresholds_stop_where_the_steps_do(capsys, tmp_path):
    scores = tmp_path / "s.csv"
    scores.write_text("true,m\n" + "".join(f"{k % 2},{k / 20}\n" for k in range(20)))
    assert main(["evaluate", "--scores", str(scores), "--positive", "1", "--thresholds", "0.01:0.5:0.1", "--format", "json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["decision_curves"]["thresholds"] == [0.01, 0.11, 0.21, 0.31, 0.41]
