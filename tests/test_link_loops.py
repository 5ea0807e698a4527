"""A loop of symbolic links given as a directory (``reproduce --out``) is one line, exit code 2."""

from __future__ import annotations

from mcrank.cli import main


def test_reproduce_out_on_a_link_loop_is_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    assert main(["reproduce", "--out", "a", "--samples", "1e3", "--no-figures"]) == 2
    assert capsys.readouterr().err == "mcrank reproduce: error: a: Too many levels of symbolic links\n"
