"""--out never replaces a committed result or experiment, nor the command's own input."""

import shutil
import subprocess
import sys
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


def test_out_over_the_experiment_files_metric_file_is_refused(tmp_path):
    # --metric-file F --out F was refused, but not an experiment file's metric_file = "F":
    # the results replaced the user's metrics. Loading a metric file registers its metrics for
    # good, so the command runs in a process of its own.
    metrics = tmp_path / "mine.py"
    metrics.write_text("import mcrank.metrics\n\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef mine(p, tpr, tnr):\n    return tpr\n")
    before = metrics.read_bytes()
    (tmp_path / "study.toml").write_text('metric_file = "mine.py"\nmetrics = ["mine"]\nsamples = 100\nseed = 1\n')
    command = [sys.executable, "-m", "mcrank", "run", "--config", "study.toml", "--quiet", "--out"]
    for out in ("mine.py", str(metrics), "./mine.py"):
        done = subprocess.run([*command, out], capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr == f"mcrank run: error: --out {out}: is the input mine.py, which the output would replace; give another file\n"
        assert metrics.read_bytes() == before


def _scores(tmp_path):
    """A small --scores file: a column of true classes and one of scores per model."""
    path = tmp_path / "scores.csv"
    path.write_text("true,m1,m2\n" + "".join(f"{k % 2},{(k % 2 + k / 10) / 2:.3f},{k / 10:.3f}\n" for k in range(10)))
    return path


def test_plot_goes_through_the_check_of_every_output(capsys, tmp_path, monkeypatch):
    # --plot was never checked: it wrote into results/, through a link over a committed
    # figure, over the --out file, and created missing directories, after the work. Here the
    # repository is a copy, so that a failing check harms no committed file.
    repository = tmp_path / "repository"
    (repository / "results" / "figures").mkdir(parents=True)
    figure = repository / "results" / "figures" / "fig10_roc_tangents.png"
    figure.write_bytes(b"committed")
    monkeypatch.setattr("mcrank.results.repository_root", lambda: repository)
    scores = _scores(tmp_path)
    link = tmp_path / "evil.png"
    link.symlink_to(figure)
    base = ["evaluate", "--scores", str(scores), "--positive", "1", "--quiet"]
    for plot, fragment in (
        (str(repository / "results" / "figures" / "new.png"), "is inside the repository's results/"),
        (str(link), "is inside the repository's results/"),
        (str(tmp_path / "missing" / "p.png"), f"directory {tmp_path / 'missing'} does not exist"),
        (str(scores), f"is the input {scores}"),
    ):
        code, captured = _run(capsys, *base, "--plot", plot)
        assert code == 2 and captured.out == "" and captured.err.count("\n") == 1, captured.err
        assert captured.err.startswith(f"mcrank evaluate: error: --plot {plot}: ") and fragment in captured.err
    assert figure.read_bytes() == b"committed" and not (repository / "results" / "figures" / "new.png").exists()
    assert not (tmp_path / "missing").exists()
    both = tmp_path / "o.png"
    code, captured = _run(capsys, *base, "--plot", str(both), "--out", str(both))
    assert code == 2 and captured.err == (
        f"mcrank evaluate: error: --plot {both}: is also --out, which it would replace; give each output its own file\n"
    )
    assert not both.exists()
