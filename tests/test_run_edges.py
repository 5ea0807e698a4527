"""A loop of symbolic links given as a directory is one line, exit code 2; a study whose pairs all tie writes strict JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcrank.cli import main


def test_reproduce_out_on_a_link_loop_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "--out", "a", "--samples", "1e3", "--no-figures"]) == 2
    assert capsys.readouterr().err == "mcrank reproduce: error: a: Too many levels of symbolic links\n"


def test_a_roc_study_whose_pairs_all_tie_writes_strict_json_and_says_so(tmp_path, capsys):
    import json

    argv = ["run", "--study", "roc", "--roc-mu-range", "38", "38", "--samples", "1e3", "--seed", "1"]
    assert main([*argv, "--out", str(tmp_path / "r.json")]) == 0
    text = (tmp_path / "r.json").read_text()
    json.loads(text, parse_constant=lambda token: pytest.fail(f"{token} in the JSON"))
    assert main(argv) == 0
    assert "Every pair is tied in truth" in capsys.readouterr().out


def test_a_note_before_a_refusal_is_dropped(tmp_path, capsys):
    factory = str(Path(__file__).resolve().parents[1] / "examples" / "factory.json")
    assert main(["evaluate", factory, "--seed", "1", "--out", "/dev/full"]) == 2
    assert capsys.readouterr().err == "mcrank evaluate: error: /dev/full: No space left on device\n"
    assert main(["evaluate", factory, "--seed", "1"]) == 0
    assert "note: --seed not used" in capsys.readouterr().err
