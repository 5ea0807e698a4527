"""The ``mcrank`` command line as a whole: what every subcommand shares."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcrank.cli import BROKEN_PIPE, main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

ENTRY_POINT = [sys.executable, "-c", "import sys; from mcrank.cli import main; sys.exit(main())"]


@pytest.mark.parametrize(
    "argv",
    [["story"], ["run", "--samples", "1000", "--seed", "1", "--format", "csv", "--quiet"]],
    ids=["story", "run-csv"],
)
def test_a_reader_that_goes_away_is_not_an_input_error(argv):
    # `mcrank story | head -1` once head has exited: the read end of the pipe is closed
    # before mcrank writes, so every write fails with EPIPE.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        finished = subprocess.run([*ENTRY_POINT, *argv], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert finished.returncode == BROKEN_PIPE == 141
    assert finished.stderr == ""  # no "error", no traceback, no "Exception ignored"


def test_a_reader_that_leaves_part_way_through_a_large_output_gives_141():
    """`mcrank run ... --format json | head -c 100`: 1.1 MB of output, the reader gone after
    100 bytes. Written in one call, CPython took the partial write for complete: exit 0."""
    argv = ["run", "--samples", "2000", "--seed", "1", "--sd", "0:0.5:0.0001", "--metrics", "accuracy", "--format", "json", "--quiet"]
    child = subprocess.Popen([*ENTRY_POINT, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(child.stdout.read(100)) == 100
    child.stdout.close()
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == BROKEN_PIPE and stderr == b""


EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "factory.json")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    "argv",
    [["story"], ["run", "--samples", "1000", "--seed", "1", "--quiet"], ["evaluate", EXAMPLE]],
    ids=["story", "run", "evaluate"],
)
def test_a_full_standard_output_is_named_in_one_line(argv):
    # Before, '[Errno 28] No space left on device', where '--out /dev/full' named the file.
    with open("/dev/full", "w") as full:
        finished = subprocess.run([*ENTRY_POINT, *argv], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == 2
    assert finished.stderr == f"mcrank {argv[0]}: error: standard output: No space left on device\n"


def _closing(fd):
    """A ``preexec_fn`` that starts the child with descriptor ``fd`` closed, as ``>&-`` does."""
    return lambda: os.close(fd)


def test_a_closed_stdout_is_one_line_and_exit_code_2():
    # `mcrank story >&-`: Python starts with sys.stdout = None; before, an AttributeError.
    finished = subprocess.run([*ENTRY_POINT, "story"], preexec_fn=_closing(1), stderr=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == 2
    assert finished.stderr == "mcrank story: error: standard output: Bad file descriptor\n"


def test_a_closed_stdout_does_not_matter_when_the_results_go_to_out(tmp_path):
    out = tmp_path / "r.json"
    argv = ["run", "--samples", "1000", "--seed", "1", "--out", str(out)]
    finished = subprocess.run([*ENTRY_POINT, *argv], preexec_fn=_closing(1), stderr=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert finished.stderr == f"mcrank run: wrote {out}\n"
    assert '"rows"' in out.read_text()


def test_no_stdout_in_process_is_exit_code_2(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["story"]) == 2  # nowhere to print
    assert capsys.readouterr().err == "mcrank story: error: standard output: Bad file descriptor\n"


@pytest.mark.parametrize("command", ["story", "run", "reproduce", "evaluate"])
def test_an_unknown_option_is_the_subcommands_error(capsys, command):
    argv = [command, "--bogus"] if command != "evaluate" else [command, "file.json", "--bogus"]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"mcrank {command}: error: unrecognized arguments: --bogus"), err
    assert f"'mcrank {command} --help'" in err


def test_an_unknown_option_before_the_subcommand_is_the_top_levels_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--bogus", "story"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith("mcrank: error: unrecognized arguments: --bogus"), err


def test_no_command_is_one_line_and_exit_code_2(capsys):
    with pytest.raises(SystemExit) as exit:
        main([])
    err = capsys.readouterr().err.strip().splitlines()
    assert exit.value.code == 2 and len(err) == 1
    assert err[0] == "mcrank: error: a command is required: story, run, merge, reproduce, evaluate (see 'mcrank --help')"


def test_out_dash_is_standard_output(tmp_path, monkeypatch, capsys):
    # Before, `--out -` wrote a file named "-".
    from mcrank.cli._common import check_outputs, write_output

    monkeypatch.chdir(tmp_path)
    check_outputs({"--out": "-"})
    assert write_output("one\n", "-") is None and write_output("two\n", None) is None
    assert capsys.readouterr().out == "one\ntwo\n" and list(tmp_path.iterdir()) == []
    write_output("three\n", "r.txt")
    assert (tmp_path / "r.txt").read_text() == "three\n" and capsys.readouterr().out == ""


def test_out_onto_a_read_only_file_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    # Before, the read-only (0444) file was replaced by a writable one.
    import stat

    import mcrank.engine

    target = tmp_path / "r.csv"
    target.write_text("kept\n")
    target.chmod(0o444)
    monkeypatch.setattr(mcrank.engine, "run_study", lambda *a, **k: pytest.fail("the study ran"))
    code = main(["run", "--samples", "100", "--quiet", "--out", str(target)])
    assert code == 2
    assert capsys.readouterr().err == f"mcrank run: error: {target}: a read-only file, which mcrank does not replace\n"
    assert target.read_text() == "kept\n" and stat.S_IMODE(target.stat().st_mode) == 0o444


def test_out_over_an_existing_file_keeps_its_mode(tmp_path, capsys):
    # The write is a temporary file renamed over the old one: the old file's mode, not
    # mkstemp's 0600 nor the umask's, is what the owner chose for it.
    import stat

    target = tmp_path / "ranking.json"
    target.write_text("old\n")
    target.chmod(0o604)
    assert main(["evaluate", str(EXAMPLES / "factory.json"), "--quiet", "--out", str(target)]) == 0
    assert json.loads(target.read_text())["classifiers"] and stat.S_IMODE(target.stat().st_mode) == 0o604


@pytest.fixture
def committed_results(tmp_path):
    """A checkout's results/ beside its experiments/, holding 10^6-pair results."""
    results = tmp_path / "repo" / "results"
    results.mkdir(parents=True)
    (results / "fig6_uniform.json").write_text(json.dumps({"config": {"samples": 10**6, "seed": 1}, "rows": []}))
    (results / "other.json").write_text('{"not": "a study"}')  # skipped, not an error
    return results


@pytest.fixture
def reproduced(monkeypatch):
    """The numbers of samples reproduce was called with (nothing is run)."""
    import mcrank.reproduce

    calls = []
    monkeypatch.setattr(mcrank.reproduce, "reproduce", lambda *args, **kwargs: calls.append(kwargs["samples"]))
    return calls


def test_samples_never_replace_results_made_with_another_number(committed_results, reproduced, tmp_path, monkeypatch, capsys):
    # Run from another directory, `--out /repo/results --experiments /repo/experiments`
    # overwrote the committed results: the guard compared --out with ./results.
    committed = committed_results / "fig6_uniform.json"
    before = committed.read_bytes()
    monkeypatch.chdir(tmp_path)
    experiments = str(committed_results.parent / "experiments")
    for out in (str(committed_results), "repo/results", "repo/./results/"):
        code = main(["reproduce", "--samples", "1e4", "--out", out, "--experiments", experiments, "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and err == (
            f"mcrank reproduce: error: --samples changes the studies: {Path(out) / 'fig6_uniform.json'} was made with "
            "1,000,000 samples; give another --out DIR\n"
        )
    # From the checkout itself, with the default --out.
    monkeypatch.chdir(committed_results.parent)
    assert main(["reproduce", "--samples", "1e4", "--quiet"]) == 2
    assert reproduced == [] and committed.read_bytes() == before


def test_samples_may_go_where_no_results_or_the_same_number_are(committed_results, reproduced, tmp_path, capsys):
    assert main(["reproduce", "--samples", "1e6", "--out", str(committed_results), "--quiet"]) == 0
    assert main(["reproduce", "--samples", "1e4", "--out", str(tmp_path / "quick"), "--quiet"]) == 0
    assert main(["reproduce", "--out", str(committed_results), "--quiet"]) == 0  # the experiments' own numbers
    assert reproduced == [10**6, 10**4, None] and capsys.readouterr().err == ""


# What a command that draws nothing does not import: numba (and llvmlite under it), loaded
# when a kernel is first called, nor what only drawing and figures need.
_NOT_AT_START = ("numba", "llvmlite", "scipy", "matplotlib", "joblib")
_START_SCRIPT = """
import contextlib, io, json, sys
from mcrank.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
print(json.dumps([code, sorted(sys.modules)]))
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        *([command, "--help"] for command in ("story", "run", "reproduce", "evaluate")),
        ["story"],
        ["evaluate", str(EXAMPLES / "factory.json")],
        ["evaluate", str(EXAMPLES / "triage_3class.json")],
        ["evaluate", str(EXAMPLES / "factory.json"), "--format", "json"],
    ],
    ids=" ".join,
)
def test_commands_that_draw_nothing_start_without_numba(argv):
    """``--help``, ``story`` and ``evaluate`` on confusion matrices imported numba (0.45 s of
    CPU) to list ``--error``'s choices, and loaded a compiled kernel to score two matrices."""
    done = subprocess.run([sys.executable, "-c", _START_SCRIPT, *argv], capture_output=True, text=True, timeout=120, check=True)
    code, modules = json.loads(done.stdout)
    assert code == 0
    assert [m for m in modules if m.split(".")[0] in _NOT_AT_START] == []


#: What ranking confusion matrices does not read: the other ways of evaluating.
_OTHER_EVALUATIONS = ("mcrank.evaluate.curves", "mcrank.evaluate.folds", "mcrank.evaluate.scoring", "mcrank.evaluate.per_item",
                      "mcrank.study", "mcrank.story")  # fmt: skip
#: Modules that only a few functions read, which import them themselves: the Gauss-Legendre nodes
#: (numpy.polynomial), a count given as text (decimal), the inverse normal (statistics), an
#: experiment file (tomllib), numba's cache directory (tempfile).
_READ_ONLY_BY_THEIR_CALLERS = ("numpy.polynomial", "decimal", "statistics", "tomllib", "tempfile")
_FOLDS = ["evaluate", "--labels", str(EXAMPLES / "wine_folds.csv"), "--utility", str(EXAMPLES / "wine_utility.json"),
          "--folds-column", "fold", "--samples", "1000", "--seed", "1"]  # fmt: skip


@pytest.mark.parametrize(
    "argv, not_read",
    [
        (["--help"], ("numpy", "mcrank.evaluate", "mcrank.story", "mcrank.study", "mcrank.results")),
        (["story", "--help"], ("numpy", "mcrank.evaluate", "mcrank.story", "mcrank.study")),
        (["run", "--help"], ("mcrank.evaluate", "mcrank.story", "decimal", "statistics", "tomllib", "tempfile")),
        (["story"], ("mcrank.evaluate", "mcrank.study", "mcrank.results", *_READ_ONLY_BY_THEIR_CALLERS)),
        (["evaluate", "--help"], (*_OTHER_EVALUATIONS, *_READ_ONLY_BY_THEIR_CALLERS, "mcrank.samplers")),
        # Nothing drawn: no root seed made, and not numpy.random, which makes it, nor the samplers.
        (
            ["evaluate", str(EXAMPLES / "factory.json")],
            (*_OTHER_EVALUATIONS, *_READ_ONLY_BY_THEIR_CALLERS, "numpy.random", "mcrank.samplers"),
        ),
        (["evaluate", str(EXAMPLES / "factory.json"), "--format", "json"], (*_OTHER_EVALUATIONS, "numpy.random", "mcrank.samplers")),
        # A result rendered by its report module, which the command does not import itself.
        ([*_FOLDS, "--format", "json"], ("mcrank.evaluate.curves", "mcrank.evaluate.scoring", "mcrank.study")),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_a_command_imports_only_what_it_reads(argv, not_read):
    """Building the command line imports no command's implementation: ``mcrank evaluate``'s
    flags, generated from its options, imported the whole evaluate package (numpy, the decision
    curves, the folds, the scoring) into ``mcrank --help`` and ``mcrank story``."""
    done = subprocess.run([sys.executable, "-c", _START_SCRIPT, *argv], capture_output=True, text=True, timeout=120, check=True)
    code, modules = json.loads(done.stdout)
    assert code == 0
    assert [m for m in modules if m in not_read or m.startswith(tuple(f"{name}." for name in not_read))] == []


_ENTRY_SCRIPT = """
import contextlib, io, json, os, sys
import mcrank.__main__ as entry
numpy_before = "numpy" in sys.modules
sys.argv = ["mcrank", "story"]
with contextlib.redirect_stdout(io.StringIO()):
    code = entry.main()
print(json.dumps([numpy_before, code, os.environ.get("OPENBLAS_THREAD_TIMEOUT")]))
"""


@pytest.mark.parametrize("given, expected", [(None, "4"), ("20", "20")])
def test_the_command_lets_idle_blas_threads_sleep(given, expected):
    """OpenBLAS's idle threads spun for 0.1 s after numpy's import, on another core: on an idle
    machine about as much CPU again as a short command's own. The entry point sets their timeout
    before numpy is imported, and keeps a value the environment gives."""
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    if given is not None:
        environment["OPENBLAS_THREAD_TIMEOUT"] = given
    done = subprocess.run([sys.executable, "-c", _ENTRY_SCRIPT], capture_output=True, text=True, timeout=120, check=True, env=environment)
    assert json.loads(done.stdout) == [False, 0, expected]
