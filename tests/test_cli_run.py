"""`mcrank run` and experiment files: output formats, overrides and input errors."""

import json
import math
from pathlib import Path

import pytest
from csv_parts import csv_parts

from mcrank.cli import build_parser, main
from mcrank.study import BATCHES, load_experiment, parse_sds
from mcrank.study import parse_count as parse_samples

SMALL = ["--samples", "2000", "--seed", "7", "--quiet"]


def run(capsys, *args):
    code = main(["run", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_has_config_and_rows(capsys):
    code, out, err = run(capsys, *SMALL, "--sd", "0", "0.1", "--format", "json")
    assert code == 0 and err == ""
    document = json.loads(out)
    config = document["config"]
    assert config["seed"] == 7 and config["samples"] == 2000 and config["sds"] == [0.0, 0.1]
    assert "version" in config and config["true_um"] == "uniform" and config["error"] == "gaussian"
    rows = document["rows"]
    assert [r["name"] for r in rows] == [
        "accuracy",
        "tpr",
        "precision",
        "balanced_accuracy",
        "mcc",
        "fowlkes_mallows",
        "f1",
        "utility",
        "utility",
    ]
    for row in rows:
        assert set(row) >= {"name", "sd", "realised_sd", "incorrect_pct", "se_pct"}
        if row["name"] != "utility":
            assert row["sd"] is None and row["realised_sd"] is None
    assert rows[-2]["sd"] == 0.0 and rows[-2]["incorrect_pct"] == 0.0


def test_json_says_how_it_was_made_as_reproduce_does(capsys, tmp_path):
    from mcrank.engine import run_study
    from mcrank.results import write_study
    from mcrank.study import StudyConfig

    code, out, _ = run(capsys, *SMALL, "--format", "json")
    document = json.loads(out)
    assert code == 0 and document["versions"]["numpy"] and document["versions"]["numba"]
    assert document["versions"]["mcrank"] == document["config"]["version"]
    assert document["date"] and document["python"] and document["platform"]
    assert "revision" in document
    write_study(run_study(StudyConfig(samples=2000, seed=7)), tmp_path, "study")
    written = json.loads((tmp_path / "study.json").read_text())
    assert set(written) - set(document) == {"experiment", "description", "source"}
    assert written["config"] == document["config"] and written["rows"] == document["rows"]


def test_csv_says_how_it_was_made_in_comment_lines(capsys):
    _, out, _ = run(capsys, *SMALL, "--sd", "0", "0.1", "--error", "truncated", "--format", "csv")
    _, document, _ = run(capsys, *SMALL, "--sd", "0", "0.1", "--error", "truncated", "--format", "json")
    document = json.loads(document)
    assert out.startswith("# seed: 7\n")
    provenance, rows = csv_parts(out)
    assert {k: provenance[k] for k in document["config"]} == document["config"]
    assert (provenance["samples"], provenance["error"], provenance["sds"]) == (2000, "truncated", [0.0, 0.1])
    assert provenance["versions"] == document["versions"] and provenance["date"]
    assert provenance["revision"] == document["revision"]
    assert [float(r["incorrect_pct"]) for r in rows] == [r["incorrect_pct"] for r in document["rows"]]


def test_csv_and_table_formats_carry_the_same_rows(capsys):
    _, out_csv, _ = run(capsys, *SMALL, "--format", "csv")
    _, out_json, _ = run(capsys, *SMALL, "--format", "json")
    _, out_table, _ = run(capsys, *SMALL)
    _, rows = csv_parts(out_csv)
    expected = json.loads(out_json)["rows"]
    assert [r["name"] for r in rows] == [r["name"] for r in expected]
    assert [float(r["incorrect_pct"]) for r in rows] == [r["incorrect_pct"] for r in expected]
    assert "2,000 pairs" in out_table and "seed 7" in out_table
    assert f"{expected[0]['incorrect_pct']:.2f}" in out_table


def test_sd_grid_and_samples_in_scientific_notation():
    assert parse_sds(["0:0.5:0.01"]) == tuple(round(0.01 * k, 12) for k in range(51))
    assert parse_sds(["0.1", "0:0.2:0.1"]) == (0.1, 0.0, 0.1, 0.2)
    assert parse_samples("1e6") == 1_000_000 and parse_samples("250") == 250


def test_out_writes_the_file_atomically(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / "run.json"
    code, out, _ = run(capsys, *SMALL, "--format", "json", "--out", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["config"]["seed"] == 7
    assert [p.name for p in target.parent.iterdir()] == ["run.json"]


def test_config_file_and_flags_override_it(tmp_path, capsys):
    path = tmp_path / "study.toml"
    path.write_text('samples = 3000\nerror = "truncated"\nsds = "0:0.2:0.1"\nseed = 11\n')
    code, out, _ = run(capsys, "--config", str(path), "--format", "json", "--quiet")
    config = json.loads(out)["config"]
    assert code == 0 and (config["samples"], config["error"], config["sds"], config["seed"]) == (3000, "truncated", [0.0, 0.1, 0.2], 11)
    code, out, _ = run(capsys, "--config", str(path), "--samples", "1e3", "--seed", "12", "--format", "json", "--quiet")
    document = json.loads(out)
    config = document["config"]
    assert (config["samples"], config["seed"], config["error"]) == (1000, 12, "truncated")
    assert document["source"] == str(path)  # which file the parameters came from
    code, out, _ = run(capsys, "--config", str(path), "--format", "csv", "--quiet")
    assert csv_parts(out)[0]["source"] == str(path)
    code, out, _ = run(capsys, "--samples", "1e3", "--sd", "0.1", "--format", "json", "--quiet")
    assert "source" not in json.loads(out)  # no file, no source


def test_same_seed_same_counts_whatever_the_jobs(capsys):
    _, one, _ = run(capsys, *SMALL, "--jobs", "1", "--format", "csv")
    _, two, _ = run(capsys, *SMALL, "--jobs", "2", "--format", "csv")

    def undated(text):  # the clock may tick between the runs
        return [line for line in text.splitlines() if not line.startswith("# date: ")]

    assert undated(one) == undated(two)


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--sd", "-0.1"], "non-negative"),
        (["--sd", "abc"], "must be a number"),
        (["--sd", "0:0.5"], "start:stop:step"),
        (["--sd", "0:1:-0.1"], "the step of the sd grid '0:1:-0.1' must be positive"),
        (["--sd", "1:1.0000000000000001:1e-17"], "is below the spacing of floating-point numbers there: equal values"),
        (["--sd", "0.1", "0.3", "0.1"], "error sd 0.1 is listed twice"),
        (["--samples", "0"], "--samples must be a whole number from 1"),
        (["--samples", "many"], "samples"),
        (["--samples", "1.5"], "whole number"),
        (["--metrics", "accuracy", "nonsense"], "unknown metric 'nonsense'"),
        (["--error", "cauchy"], "invalid choice"),
        (["--true-um", "beta"], "invalid choice"),
        (["--class-proportion", "0.6", "0.2"], "--class-proportion must satisfy"),
        (["--rate-beta", "0", "1"], "--rate-beta: Beta parameters must be positive, got (0, 1)"),
        (["--jobs", "0"], "jobs"),
        (["--seed", "-3"], "seed"),
        (["--scheduler", "tcp://127.0.0.1:1"], "--backend dask"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(capsys, args, fragment):
    try:
        code = main(["run", "--samples", "100", *args] if "--samples" not in args else ["run", *args])
    except SystemExit as exit:  # argparse's own errors
        code = exit.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--rate-beta", "1e-20", "1e-20"], "must sum to at least 0.001"),
        (["--rate-beta", "1e-10", "1e-10"], "must sum to at least 0.001"),
        (["--true-um", "gaussian", "--true-um-sd", "1e6"], "--true-um-sd must be at most 10"),
        (["--true-um", "gaussian", "--true-um-sd", "1e4"], "(--true-um uniform)"),
    ],
)
def test_settings_whose_sampler_never_returns_are_refused_before_the_run(capsys, monkeypatch, args, fragment):
    # These once hung in a numba loop that Ctrl-C cannot stop.
    import mcrank.engine

    def never(*args, **kwargs):
        raise AssertionError("the study ran")

    monkeypatch.setattr(mcrank.engine, "run_study", never)
    code, out, err = run(capsys, *args, "--samples", "100", "--seed", "1", "--quiet")
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1 and fragment in lines[0]


def test_bad_experiment_files_name_the_file_and_the_key(tmp_path, capsys):
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("samples = 100\nsigma = 0.1\n")
    malformed = tmp_path / "malformed.toml"
    malformed.write_text("samples = = 100\n")
    bad_value = tmp_path / "bad_value.toml"
    bad_value.write_text('samples = 100\nerror = "cauchy"\n')
    for path, fragment in ((unknown, "unknown key 'sigma'"), (malformed, "not valid TOML"), (bad_value, "unknown error model 'cauchy'")):
        code = main(["run", "--config", str(path), "--quiet"])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1
        assert str(path) in err[0] and fragment in err[0]
    code = main(["run", "--config", str(tmp_path / "missing.toml")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "missing.toml" in err[0]


@pytest.mark.parametrize(
    "line, message",
    [
        ('metrics = [["a"]]', "metrics must be metric ids (strings), got ['a']"),
        ('fbeta_beta = "1"', "fbeta_beta must be a number, not a string, got '1'"),
        ('true_um_sd = "0.3"', "true_um_sd must be a number, not a string, got '0.3'"),
        ('rate_beta = ["2", "1"]', "rate_beta must be numbers, not strings, got '2'"),
        ("sds = {a=1}", "sds must be a number, a grid 'start:stop:step' or a list of them, got {'a': 1}"),
        ('sds = ["0.1"]', "key 'sds' must hold numbers or grids 'start:stop:step', got the string '0.1'"),
        ('sds = "0:1:-0.1"', "the step of the sd grid '0:1:-0.1' must be positive, got '-0.1'"),
        ('sds = "0:1:0"', "the step of the sd grid '0:1:0' must be positive, got '0'"),
        ('sds = "-0.1:1:0.1"', "the start of the sd grid '-0.1:1:0.1' must be non-negative, got '-0.1'"),
        ('sds = "1:0:0.1"', "the stop of the sd grid '1:0:0.1' must be at least its start, got '0'"),
        ('sds = "0:x:0.1"', "the stop of the sd grid '0:x:0.1' must be a number, got 'x'"),
        ("sds = []\nmetrics = []", "nothing to measure: metrics and sds are both empty; give at least one metric or one error sd"),
    ],
)
def test_wrong_types_in_an_experiment_file_are_named(tmp_path, capsys, line, message):
    path = tmp_path / "types.toml"
    path.write_text(f"samples = 100\nseed = 1\n{line}\n")
    code, out, err = run(capsys, "--config", str(path), "--quiet")
    assert code == 2 and out == ""
    assert err.strip() == f"mcrank run: error: {path}: {message}"


def test_an_experiment_file_may_start_with_a_byte_order_mark(tmp_path, capsys):
    # Some editors write one; evaluate's JSON reader skips it too.
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + b"samples = 100\nsds = [0.2]\nseed = 5\n")
    assert load_experiment(path).config.sds == (0.2,)
    code, out, err = run(capsys, "--config", str(path), "--format", "json", "--quiet")
    assert code == 0 and err == "" and json.loads(out)["config"]["seed"] == 5


def test_an_experiment_file_that_is_not_utf8_is_named_as_evaluate_names_one(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b"\xff\xfesamples = 100\n")
    code, out, err = run(capsys, "--config", str(path), "--quiet")
    assert code == 2 and out == ""
    assert err.strip() == f"mcrank run: error: {path}: not a text file (not UTF-8)"


def test_the_experiment_files_of_the_repository_load():
    from pathlib import Path

    directory = Path(__file__).resolve().parents[1] / "experiments"
    names = sorted(p.stem for p in directory.glob("*.toml") if p.name != "figures.toml")
    paper = ["fig6_uniform", "fig7_gaussian_gaussian", "fig7_gaussian_truncated", "fig7_uniform_gaussian", "fig7_uniform_truncated"]
    sizes = (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
    test_sets = [f"testset_2class_{n:05d}" for n in sizes] + [f"testset_3class_{n:05d}" for n in sizes]
    classes = [f"nclass_{error}_n{n:02d}" for error in ("gaussian", "truncated") for n in range(2, 11)]
    roc = [f"roc_b{b:03d}_{error}" for b in (1, 5, 10, 20, 50) for error in ("gaussian", "truncated")]
    roc += [f"roc_{true_um}_{error}" for true_um in ("gaussian", "uniform") for error in ("gaussian", "truncated")]
    probabilities = [f"probabilities_uniform_{error}" for error in ("gaussian", "truncated")]
    assert names == paper + classes + probabilities + roc + test_sets
    for name in names:
        experiment = load_experiment(directory / f"{name}.toml")
        truncated_classes = name.startswith("nclass_truncated")  # 10^5: see the file
        assert experiment.config.seed is not None and experiment.config.samples == (10**5 if truncated_classes else 10**6)
        assert experiment.description
        if truncated_classes:  # steps of 0.05: the budget of reproduce
            assert experiment.config.sds == tuple(round(0.05 * k, 2) for k in range(11))
        if name.startswith("roc_"):  # the scoring classifiers of the published §5
            assert experiment.config.kind == "roc"
            b = name.split("_")[1]
            if b.startswith("b"):
                assert experiment.config.prevalence == int(b[1:]) / 100 and experiment.config.seed == 20230225
                assert experiment.config.sds == (0.1, 0.2) and experiment.config.error == name.split("_")[2]
                assert experiment.config.true_um == "uniform"
            else:
                assert experiment.config.prevalence is None and len(experiment.config.sds) == 26  # steps of 0.02: the budget of reproduce
                assert (experiment.config.true_um, experiment.config.error) == tuple(name.split("_")[1:])
    sweep = load_experiment(directory / "fig7_uniform_gaussian.toml").config
    assert len(sweep.sds) == 51 and sweep.sds[0] == 0.0 and sweep.sds[-1] == 0.5
    # The test-set studies draw the pairs of the population sweep (same seed and settings).
    for name in test_sets:
        config = load_experiment(directory / f"{name}.toml").config
        if config.classes == 3:
            sweep = load_experiment(directory / "nclass_gaussian_n03.toml").config
        assert (config.seed, config.chunk_size) == (sweep.seed, sweep.chunk_size) and (config.true_um, config.error) == (
            sweep.true_um,
            sweep.error,
        )
        assert config.test_size == int(name[-5:]) and set(config.sds) <= set(sweep.sds)
    # The truncated n-class studies draw the first pairs of the gaussian ones (same seed, same
    # chunks), and those chunks are small enough to give every batch one.
    for n in range(2, 11):
        gaussian, truncated = (load_experiment(directory / f"nclass_{error}_n{n:02d}.toml").config for error in ("gaussian", "truncated"))
        assert (truncated.seed, truncated.chunk_size) == (gaussian.seed, gaussian.chunk_size)
        assert truncated.samples // truncated.chunk_size >= BATCHES


def test_out_is_checked_before_the_run(tmp_path, capsys):
    for target, fragment in ((tmp_path, "is a directory"), (tmp_path / "missing" / "x.csv", "does not exist")):
        code = main(["run", "--samples", "100", "--quiet", "--out", str(target)])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and fragment in err[0]
    assert not (tmp_path / "missing").exists()


def test_results_files_are_readable_by_others(tmp_path, capsys):
    import os
    import stat

    target = tmp_path / "run.csv"
    old = os.umask(0o022)
    try:
        assert main(["run", "--samples", "100", "--quiet", "--format", "csv", "--out", str(target)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_out_on_a_read_only_file_system_fails_before_the_run(monkeypatch, capsys):
    import os

    import mcrank.engine

    if not os.path.isdir("/proc/self"):
        pytest.skip("needs Linux's /proc, where nobody (not even root) can create a file")
    monkeypatch.setattr(mcrank.engine, "run_study", lambda *a, **k: pytest.fail("the study ran"))
    code = main(["run", "--samples", "100", "--quiet", "--out", "/proc/x.csv"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("mcrank run: error: /proc:")


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--out", ""],
        ["run", "--config", " "],
        ["reproduce", "--out", ""],
        ["reproduce", "--experiments", ""],
        ["evaluate", ""],
        ["evaluate", "examples/factory.json", "--utility", ""],
    ],
)
def test_an_empty_path_is_refused(args, capsys):
    with pytest.raises(SystemExit) as exit:  # argparse's own errors
        main(args)
    code = exit.value.code
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "empty path" in err[0]


def test_the_out_file_extension_sets_the_format(tmp_path, capsys):
    for name in ("r.json", "r.csv", "r.txt"):
        assert main(["run", *SMALL, "--out", str(tmp_path / name)]) == 0
    capsys.readouterr()
    assert json.loads((tmp_path / "r.json").read_text())["config"]["seed"] == 7
    made, rows = csv_parts((tmp_path / "r.csv").read_text())
    assert made["seed"] == 7 and rows[0]["name"] == "accuracy"
    assert (tmp_path / "r.txt").read_text().startswith("2,000 pairs")
    # An explicit --format wins.
    assert main(["run", *SMALL, "--format", "table", "--out", str(tmp_path / "t.json")]) == 0
    assert (tmp_path / "t.json").read_text().startswith("2,000 pairs")


def test_out_through_a_symbolic_link_writes_its_target_and_keeps_the_link(tmp_path, capsys):
    target = tmp_path / "target.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert main(["run", *SMALL, "--out", str(link)]) == 0
    assert link.is_symlink() and csv_parts(target.read_text())[0]["seed"] == 7


def test_out_to_a_pipe_writes_into_it_and_leaves_it_a_pipe(tmp_path, capsys):
    import os
    import stat
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["run", *SMALL, "--format", "json", "--out", str(fifo)]) == 0
    reader.join(timeout=60)
    assert json.loads(received[0])["config"]["seed"] == 7
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def _wait_until_it_catches(process, signum: int, timeout: float) -> None:
    """Wait until ``process`` has a handler for ``signum`` (Linux: the SigCgt mask of
    /proc/PID/status), so that a signal sent then cannot kill it before ``main`` starts;
    elsewhere, wait a fixed 3 s."""
    import time
    from pathlib import Path

    status = Path(f"/proc/{process.pid}/status")
    if not status.exists():
        time.sleep(3)
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the process ended (code {process.returncode}) before catching signal {signum}")
        fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        if int(fields["SigCgt"], 16) >> (signum - 1) & 1:
            return
        time.sleep(0.05)
    pytest.fail(f"process {process.pid} never installed a handler for signal {signum}")


def test_sigterm_cleans_up_like_ctrl_c(tmp_path):
    """SIGTERM mid-run: exit 143, one line, no results file and no temporary file left."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "big.json"
    script = f"import sys; from mcrank.cli import main; sys.exit(main(['run', '--samples', '1e10', '--jobs', '1', '--quiet', '--out', {str(out)!r}]))"
    # faulthandler: a crash prints where it happened, in the message of the failure
    process = subprocess.Popen([sys.executable, "-X", "faulthandler", "-c", script], stderr=subprocess.PIPE, text=True)
    _wait_until_it_catches(process, signal.SIGTERM, timeout=120)
    time.sleep(0.5)  # into the run
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert (process.returncode, err.strip()) == (143, "mcrank run: terminated"), err
    assert list(tmp_path.iterdir()) == []


def test_results_name_the_commit_of_the_code_that_made_them():
    import shutil
    import subprocess
    from pathlib import Path

    from mcrank.results import source_revision

    root = Path(__file__).resolve().parents[1]
    if not (root / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    revision = source_revision()
    assert revision["commit"] == head and len(head) == 40 and isinstance(revision["modified"], bool)


def test_metrics_separated_by_commas_or_spaces(capsys):
    _, spaces, _ = run(capsys, *SMALL, "--metrics", "accuracy", "f1", "--format", "json")
    _, commas, _ = run(capsys, *SMALL, "--metrics", "accuracy,f1", "--format", "json")
    assert [r["name"] for r in json.loads(commas)["rows"]][:2] == ["accuracy", "f1"]
    assert json.loads(commas)["rows"] == json.loads(spaces)["rows"]
    _, trailing, _ = run(capsys, *SMALL, "--metrics", "accuracy,", "f1", "--format", "json")
    assert json.loads(trailing)["rows"] == json.loads(spaces)["rows"]
    code, _, err = run(capsys, *SMALL, "--metrics", ",")
    assert code == 2 and "give at least one metric id" in err


def test_the_table_writes_a_huge_sd_in_exponent_form(capsys):
    code, out, _ = run(capsys, *SMALL, "--sd", "0.1", "1e300", "--metrics", "accuracy")
    lines = [line for line in out.splitlines() if line.startswith("utility")]
    assert code == 0 and lines[0].split()[1:3] == ["0.100", "0.1000"]
    assert lines[1].split()[1:3] == ["1e+300", "1e+300"] and max(len(line) for line in lines) < 80


@pytest.mark.parametrize(
    ("sds", "message"),
    [
        (["5e307", "1e308"], "error sd must be at most 1e+300, got '5e307'"),
        (["0:1e308:1e305"], "the stop of the sd grid '0:1e308:1e305' must be at most 1e+300 (the largest error sd), got '1e308'"),
    ],
)
@pytest.mark.parametrize("kind", ["confusion", "roc"])
def test_an_error_sd_above_its_range_is_refused_in_one_line(capsys, kind, sds, message):
    # The roc study's yields overflowed into wrong percentages (84 % at 1e308, 72 % below);
    # the grid printed two NumPy RuntimeWarnings before its refusal.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out, err = run(capsys, "--study", kind, "--metrics", "auc" if kind == "roc" else "accuracy", "--sd", *sds, "--seed", "1")
    assert code == 2 and out == "" and err == f"mcrank run: error: {message}\n"


@pytest.mark.slow
def test_out_dev_stdout_appends_to_a_redirected_file_and_feeds_a_pipe(tmp_path):
    """``--out /dev/stdout`` writes this process's stdout: after ``>>`` the file keeps what it
    held; into a pipe the output arrives."""
    import shlex
    import shutil
    import subprocess
    import sys

    if not Path("/dev/stdout").exists() or shutil.which("sh") is None:
        pytest.skip("needs /dev/stdout and a POSIX shell")
    script = "import sys; from mcrank.cli import main; sys.exit(main(['run', '--samples', '1000', '--seed', '1', '--quiet', '--format', 'csv', '--out', '/dev/stdout']))"
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    log = tmp_path / "log.txt"
    log.write_text("previous line\n")
    done = subprocess.run(["sh", "-c", f"{command} >> {shlex.quote(str(log))}"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("previous line\n# seed: 1\n") and "accuracy," in text
    piped = subprocess.run(["sh", "-c", f"{command} | cat"], capture_output=True, text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert csv_parts(piped.stdout)[1] == csv_parts(text[len("previous line\n") :])[1]


def test_out_through_a_dangling_link_replaces_the_link(tmp_path, capsys):
    link = tmp_path / "link.csv"
    link.symlink_to(tmp_path / "elsewhere" / "deep" / "x.csv")
    assert main(["run", *SMALL, "--out", str(link)]) == 0
    assert not link.is_symlink() and csv_parts(link.read_text())[0]["seed"] == 7
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("directory", ["/dev/fd", "//dev/fd", "/proc/self/fd", "/proc/thread-self/fd"])
def test_out_dev_fd_n_appends_to_what_the_descriptor_has_open(tmp_path, directory):
    import subprocess
    import sys

    if not Path(directory).exists():
        pytest.skip(f"needs {directory}")
    log = tmp_path / "log.txt"
    log.write_text("previous line\n")
    with open(log, "a") as appended:
        script = "from mcrank.results import atomic_write_bytes; atomic_write_bytes(f'{DIR}/{FD}', b'three\\n')"
        script = script.replace("{DIR}", directory).replace("{FD}", str(appended.fileno()))
        done = subprocess.run([sys.executable, "-c", script], pass_fds=(appended.fileno(),), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert log.read_text() == "previous line\nthree\n"


def test_dev_stdout_is_descriptor_1_even_when_sys_stdout_is_replaced(capfd):
    import contextlib
    import io

    from mcrank.results import atomic_write_bytes

    if not Path("/dev/stdout").exists():
        pytest.skip("needs /dev/stdout")
    with contextlib.redirect_stdout(io.StringIO()):
        atomic_write_bytes("/dev/stdout", b"through descriptor 1\n")
    assert "through descriptor 1" in capfd.readouterr().out


def test_out_through_a_link_loop_fails_before_the_run(tmp_path, monkeypatch, capsys):
    import mcrank.engine

    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    monkeypatch.setattr(mcrank.engine, "run_study", lambda *a, **k: pytest.fail("the study ran"))
    code = main(["run", "--samples", "100", "--quiet", "--out", str(loop)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "symbolic links" in err[0]


def test_numbers_and_lists_parse_alike_on_the_command_line(capsys):
    # --seed reads whole numbers as --samples does; --sd takes commas as --metrics does.
    common = ("--samples", "2000", "--metrics", "accuracy", "--jobs", "1", "--quiet", "--format", "csv")
    _, by_exponent, _ = run(capsys, *common, "--seed", "1e3", "--sd", "0.1,0.2")
    _, by_digits, _ = run(capsys, *common, "--seed", "1000", "--sd", "0.1", "0.2")

    def rows(text):
        return [line for line in text.splitlines() if not line.startswith("#")]

    assert rows(by_exponent) == rows(by_digits) and len(rows(by_digits)) == 4
    code, _, err = run(capsys, *common, "--seed", "1.5")
    assert code == 2 and err.startswith("mcrank run: error: --seed must be a whole number")


@pytest.mark.parametrize(("low", "expected"), [("-1e-1", -0.1), ("-2", -2.0), ("-.5", -0.5), ("-inf", -math.inf), ("-Infinity", -math.inf)])
def test_a_negative_number_is_a_value_not_an_option(low, expected):
    # argparse's own pattern takes -1 and -0.5 only: "-inf" and "-1e-1" were options to it,
    # and --calibration-intercept-range said "expected 2 arguments".
    args = build_parser().parse_args(["run", "--study", "probabilities", "--calibration-intercept-range", low, "0"])
    assert args.calibration_intercept_range == [expected, 0.0]
    assert math.isnan(build_parser().parse_args(["run", "--calibration-intercept-range", "-nan", "0"]).calibration_intercept_range[0])


@pytest.mark.parametrize("low", ["-inf", "-NaN"])
def test_minus_infinity_reaches_the_check_that_names_it(capsys, low):
    code, out, err = run(capsys, "--study", "probabilities", "--calibration-intercept-range", low, "0", "--samples", "100")
    assert code == 2 and out == "" and err.startswith("mcrank run: error: --calibration-intercept-range must be finite, got ")
    assert len(err.splitlines()) == 1


def test_out_dash_is_standard_output_and_writes_no_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "--samples", "1000", "--metrics", "accuracy", "--seed", "1", "--jobs", "1", "--quiet", "--out", "-")
    assert code == 0 and err == "" and "accuracy" in out and "% incorrect" in out
    assert list(tmp_path.iterdir()) == []


def test_a_fifo_as_the_config_is_refused_in_one_line_without_waiting(capsys, fifo):
    # `mcrank run --config F` waited forever for a writer.
    pipe = fifo("pipe.toml")
    assert main(["run", "--config", str(pipe), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"mcrank run: error: {pipe}: is a FIFO (named pipe), not a regular file\n"


def test_an_error_about_the_files_values_names_a_value_given_as_a_flag_by_its_flag(capsys):
    # It named the kind as the schema's field: "not of kind='roc'", for --study roc.
    config = Path(__file__).resolve().parents[1] / "experiments" / "testset_2class_00020.toml"
    code, out, err = run(capsys, "--config", str(config), "--study", "roc", "--metrics", "auc", "--quiet")
    assert code == 2 and out == ""
    assert err == f"mcrank run: error: {config}: test_size is a parameter of the confusion study kind, not of --study roc; got 20\n"


@pytest.mark.parametrize("kind", ['kind = "confusion"\n', ""])
def test_an_error_about_the_kind_of_the_file_names_its_key(capsys, tmp_path, kind):
    # It named the kind as Python's keyword, "not of kind='confusion'", which no file holds.
    config = tmp_path / "c.toml"
    config.write_text(kind + "prevalence = 0.5\n")
    code, out, err = run(capsys, "--config", str(config), "--quiet")
    assert code == 2 and out == ""
    assert (
        err
        == f'mcrank run: error: {config}: prevalence is a parameter of the roc or probabilities study kind, not of kind = "confusion"; got 0.5\n'
    )


def test_a_config_nested_too_deeply_is_one_line(capsys, tmp_path):
    # tomllib recurses once per level: a RecursionError escaped main().
    config = tmp_path / "c.toml"
    config.write_text("sds = " + "[" * 5000 + "]" * 5000 + "\n")
    code, out, err = run(capsys, "--config", str(config), "--quiet")
    assert code == 2 and out == ""
    assert err == f"mcrank run: error: {config}: nested too deeply to read (no experiment file is more than 2 levels deep)\n"


def test_jobs_zero_names_the_flag(capsys):
    # It said "jobs must be ...", the engine's parameter.
    code, out, err = run(capsys, *SMALL, "--jobs", "0")
    assert code == 2 and out == "" and err == "mcrank run: error: --jobs must be a non-zero integer, got 0\n"


@pytest.mark.parametrize("seed", [12345678901234567891, 2**128 - 1])
def test_a_large_seed_is_read_exactly(capsys, seed):
    # Read through a float: 12345678901234567891 ran as ...7168, and 2**128 - 1, the largest
    # seed the message offered, was refused as 2**128.
    code, out, err = run(capsys, "--samples", "100", "--seed", str(seed), "--metrics", "accuracy", "--format", "json", "--quiet")
    assert code == 0, err
    assert json.loads(out)["config"]["seed"] == seed
