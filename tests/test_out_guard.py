"""--out never replaces a committed result or experiment, nor the command's own input."""

import shutil
from pathlib import Path

import pytest

from mcrank.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--samples", "100", "--seed", "1", "--quiet", "--out", "results/fig6_uniform.json"],
        ["run", "--samples", "100", "--seed", "1", "--quiet", "--out", "experiments/fig6_uniform.toml"],
        ["run", "--samples", "100", "--seed", "1", "--quiet", "--out", "results/figures/new.csv"],
        ["evaluate", "examples/factory.json", "--out", "results/evaluation.json"],
        ["story", "--out", "experiments/story.txt"],
    ],
)
def test_out_inside_the_committed_folders_is_refused_and_nothing_changes(capsys, monkeypatch, argv):
    monkeypatch.chdir(ROOT)
    target = ROOT / argv[-1]
    before = target.read_bytes() if target.exists() else None
    code, captured = _run(capsys, *argv)
    assert code == 2 and captured.out == ""
    assert "only a full-size mcrank reproduce writes" in captured.err and len(captured.err.strip().splitlines()) == 1
    assert (target.read_bytes() if target.exists() else None) == before


def test_a_link_into_the_committed_results_is_refused_too(capsys, tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(ROOT / "results" / "fig6_uniform.json")
    before = (ROOT / "results" / "fig6_uniform.json").read_bytes()
    code, captured = _run(capsys, "run", "--samples", "100", "--seed", "1", "--quiet", "--out", str(link))
    assert code == 2 and "inside the repository's results/" in captured.err
    assert (ROOT / "results" / "fig6_uniform.json").read_bytes() == before


def test_out_over_the_commands_own_input_is_refused(capsys, tmp_path):
    config = tmp_path / "study.toml"
    shutil.copy(ROOT / "experiments" / "fig6_uniform.toml", config)
    before = config.read_bytes()
    code, captured = _run(capsys, "run", "--config", str(config), "--samples", "100", "--quiet", "--out", str(config))
    assert code == 2 and "is the input" in captured.err and config.read_bytes() == before
    matrices = tmp_path / "factory.json"
    shutil.copy(ROOT / "examples" / "factory.json", matrices)
    before = matrices.read_bytes()
    code, captured = _run(capsys, "evaluate", str(matrices), "--out", str(matrices))
    assert code == 2 and "is the input" in captured.err and matrices.read_bytes() == before
