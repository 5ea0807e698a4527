"""The ``mcrank`` command line as a whole: what every subcommand shares."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcrank.cli import BROKEN_PIPE, main

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
    # `mcrank story >&-`: Python starts with sys.stdout = None.
    finished = subprocess.run([*ENTRY_POINT, "story"], preexec_fn=_closing(1), stderr=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == 2
    assert finished.stderr == "mcrank story: error: standard output: Bad file descriptor (it was closed when mcrank started)\n"


def test_a_closed_stdout_does_not_matter_when_the_results_go_to_out(tmp_path):
    out = tmp_path / "r.json"
    argv = ["run", "--samples", "1000", "--seed", "1", "--out", str(out)]
    finished = subprocess.run([*ENTRY_POINT, *argv], preexec_fn=_closing(1), stderr=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert finished.stderr == f"mcrank run: wrote {out}\n"
    assert '"rows"' in out.read_text()


@pytest.mark.parametrize("argv, code", [(["story"], 0), (["run", "--sd", "x"], 2)], ids=["ok", "bad-input"])
def test_a_closed_stderr_keeps_the_exit_code_and_stdout_clean(argv, code):
    finished = subprocess.run([*ENTRY_POINT, *argv], preexec_fn=_closing(2), stdout=subprocess.PIPE, text=True, timeout=120)
    assert finished.returncode == code
    assert "error" not in finished.stdout and "Traceback" not in finished.stdout


@pytest.mark.parametrize(
    "closed, out", [(1, "/dev/stdout"), (2, "/dev/stderr"), (1, "/dev/fd/1"), (1, "//dev/fd/1"), (1, "/proc/thread-self/fd/1")]
)
def test_out_to_a_descriptor_closed_at_start_is_still_an_error(closed, out):
    # /dev/null is put on the closed descriptor while the command runs; writing the results
    # there would lose them silently.
    argv = ["run", "--samples", "1000", "--seed", "1", "--out", out]
    streams = {"stdout": subprocess.PIPE} if closed == 2 else {"stderr": subprocess.PIPE}
    finished = subprocess.run([*ENTRY_POINT, *argv], preexec_fn=_closing(closed), text=True, timeout=120, **streams)
    assert finished.returncode == 2
    if closed == 1:
        assert finished.stderr == f"mcrank run: error: {out}: not an open file descriptor\n"
    else:
        assert finished.stdout == ""


def test_process_workers_start_with_the_closed_stderr_open(tmp_path):
    # loky's workers inherit the descriptors: without one on 2 they failed with
    # "sys.stderr is None", and the command with a traceback.
    out = tmp_path / "r.json"
    argv = ["run", "--samples", "200000", "--seed", "1", "--backend", "loky", "--jobs", "2", "--out", str(out)]
    finished = subprocess.run([*ENTRY_POINT, *argv], preexec_fn=_closing(2), stdout=subprocess.PIPE, text=True, timeout=300)
    assert finished.returncode == 0 and finished.stdout == ""
    assert json.loads(out.read_text())["config"]["samples"] == 200000


def test_main_puts_the_streams_back(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["story"]) == 2  # nowhere to print
    assert sys.stdout is None


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
    assert err[0] == "mcrank: error: a command is required: story, run, reproduce, evaluate (see 'mcrank --help')"
