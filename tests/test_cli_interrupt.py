"""Ctrl-C and SIGTERM at any moment: one line and exit code 130 or 143.

While numba is imported (the first seconds) and while it compiles, each signal is sent at a
point the process reaches for certain (an import hook, a wrapper of numba's compile), not
after a delay, so that the tests hold on a machine of any speed. A signal whose exception
Python drops still ends the command. Ctrl-C just after ``mcrank run --backend loky`` says
"wrote" used to exit 0 with a 13-line traceback from loky's exit handler, which joined the
process workers' manager thread after ``main`` had returned. Now the workers are stopped
inside ``main``: a Ctrl-C there exits 130 with one line; later, in the interpreter's last
instants, it is silent.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import types

import pytest
from dropped_interrupt import drop_an_interrupt
from kernel_cache import cache_without

import mcrank.cli.story
from mcrank.cli import main

#: (signal, exit code, the command's last line) for Ctrl-C and SIGTERM.
SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]

# Sends the signal to the process itself when numba is first imported: before the hook
# returns, so the signal lands inside the import.
_WHILE_IMPORTING = """
import os, sys
class Hook:
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            sys.meta_path.remove(self)
            print("importing numba", file=sys.stderr, flush=True)
            os.kill(os.getpid(), {signum})
sys.meta_path.insert(0, Hook())
"""

# Sends the signal to the process itself when numba is first asked for a kernel (compiled,
# or loaded from its cache), from whichever thread asks.
_WHILE_COMPILING = """
import os, sys
import numba.core.dispatcher as dispatcher
compile = dispatcher.Dispatcher.compile
def compile_signalled(self, sig):
    dispatcher.Dispatcher.compile = compile
    print("compiling", file=sys.stderr, flush=True)
    os.kill(os.getpid(), {signum})
    return compile(self, sig)
dispatcher.Dispatcher.compile = compile_signalled
"""

# Sends the signal to the process itself from inside one of LLVM's callbacks into Python (the
# object code of a module is ready), which numba's compile calls through ctypes: there the
# signal handler's exception was printed as "Exception ignored on calling ctypes callback
# function", dropped, and the compile failed (258 lines, exit 1).
_INSIDE_LLVM = """
import os, sys
from numba.core import codegen
hook = codegen.JITCodeLibrary._object_compiled_hook.__func__
sent = []
def hook_signalled(cls, ll_module, buf):
    if not sent:
        sent.append(True)
        print("compiling", file=sys.stderr, flush=True)
        os.kill(os.getpid(), {signum})
    return hook(cls, ll_module, buf)
codegen.JITCodeLibrary._object_compiled_hook = classmethod(hook_signalled)
"""


# Sends the signal to the process itself as numba sets up its code generator (for the first
# dispatcher), and says when the set-up has returned: an exception raised between two of its
# calls into LLVM left objects LLVM had freed owned by Python, freed again at exit (abort).
_WHILE_SETTING_UP = """
import os, sys, time
from numba.core import cpu
init = cpu.CPUContext.init
def init_signalled(self):
    print("setting up", file=sys.stderr, flush=True)
    os.kill(os.getpid(), {signum})
    time.sleep(0.5)
    init(self)
    print("set up", file=sys.stderr, flush=True)
cpu.CPUContext.init = init_signalled
"""


def _run_with(prelude: str, arguments: list[str]) -> subprocess.CompletedProcess:
    script = prelude + f"from mcrank.cli import main\nsys.exit(main({arguments!r}))\n"
    # A run of 10^10 pairs would not end by itself: a lost signal fails by the timeout.
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_a_signal_while_numba_is_imported_is_one_line(tmp_path, signum, code, word):
    """It printed a KeyboardInterrupt traceback (SIGINT) or died silently (SIGTERM)."""
    arguments = ["run", "--samples", "1e10", "--jobs", "1", "--out", str(tmp_path / "x.json")]
    done = _run_with(_WHILE_IMPORTING.format(signum=int(signum)), arguments)
    assert (done.returncode, done.stderr.splitlines()) == (code, ["importing numba", f"mcrank run: {word}"]), done.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.slow
def test_a_signal_while_numba_compiles_stops_the_run(tmp_path, signum, code, word, jobs):
    """On one job numba compiles in the main thread, on two in a worker thread, while the main
    thread waits for it: the run stops either way."""
    arguments = ["run", "--samples", "1e10", "--jobs", jobs, "--out", str(tmp_path / "x.json")]
    done = _run_with(_WHILE_COMPILING.format(signum=int(signum)), arguments)
    assert (done.returncode, done.stderr.splitlines()) == (code, ["compiling", f"mcrank run: {word}"]), done.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.slow
def test_a_signal_inside_llvms_callbacks_waits_for_the_compile(tmp_path, signum, code, word):
    """Raised inside the callback, the exception was dropped: 258 lines of tracebacks, exit 1.
    It now waits until the kernel's compile returns. A cache without the study kernels
    (``engine/*._count_chunk*``), so that numba compiles the run's, with the functions it calls
    loaded from the cache (6 s instead of 12 s from a fresh cache)."""
    arguments = ["run", "--samples", "1e10", "--jobs", "1", "--out", str(tmp_path / "x.json")]
    script = _INSIDE_LLVM.format(signum=int(signum)) + f"from mcrank.cli import main\nsys.exit(main({arguments!r}))\n"
    cache_without(tmp_path / "numba", "engine", "._count_chunk")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert (done.returncode, done.stderr.splitlines()) == (code, ["compiling", f"mcrank run: {word}"]), done.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.slow
def test_a_signal_while_numba_sets_up_waits_until_it_is_done(tmp_path, signum, code, word):
    arguments = ["run", "--samples", "1e10", "--jobs", "1", "--out", str(tmp_path / "x.json")]
    done = _run_with(_WHILE_SETTING_UP.format(signum=int(signum)), arguments)
    assert (done.returncode, done.stderr.splitlines()) == (code, ["setting up", "set up", f"mcrank run: {word}"]), done.stderr
    assert not (tmp_path / "x.json").exists()


def test_an_interrupt_dropped_anywhere_still_ends_the_command(monkeypatch, capsys):
    """A Ctrl-C whose exception was dropped (in a weakref callback) ended in exit code 0."""
    story_handler = mcrank.cli.story.handler

    def handler(args):
        drop_an_interrupt()
        return story_handler(args)

    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: None)
    monkeypatch.setattr(mcrank.cli.story, "handler", handler)
    assert main(["story"]) == 130
    assert capsys.readouterr().err.splitlines() == ["mcrank story: interrupted"]


def test_a_signal_turned_into_another_exception_still_ends_the_command(monkeypatch, capsys):
    """SIGTERM while numpy imported its C extension became an ImportError: a 41-line traceback
    and exit 1."""

    def handler(args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the handler raises here
        except KeyboardInterrupt:
            raise ImportError('PyCapsule_Import could not import module "datetime"') from None
        return 0

    monkeypatch.setattr(mcrank.cli.story, "handler", handler)
    assert main(["story"]) == 143
    assert capsys.readouterr().err.splitlines() == ["mcrank story: terminated"]


class _SignalledImport:
    """An import hook for one module, whose import sends SIGTERM to this process and then
    sleeps ``seconds``; ``swallow``: it prints and drops any exception raised meanwhile, as
    numpy's C API does when a module it imports fails."""

    def __init__(self, name: str, seconds: float, swallow: bool) -> None:
        self.name, self.seconds, self.swallow = name, seconds, swallow

    def find_spec(self, name, path=None, target=None):
        import importlib.util

        return importlib.util.spec_from_loader(name, self) if name == self.name else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(int(self.seconds / 0.01)):
                time.sleep(0.01)
        except BaseException as error:
            if not self.swallow:
                raise
            print(f"swallowed {type(error).__name__}", file=sys.stderr)


def _story_after_importing(monkeypatch, hook, then=None) -> None:
    """``mcrank story`` imports ``hook``'s module first, then runs ``then`` (the story)."""
    then = then or mcrank.cli.story.handler

    def handler(args):
        __import__(hook.name)
        return then(args)

    monkeypatch.setattr(sys, "meta_path", [hook, *sys.meta_path])
    monkeypatch.delitem(sys.modules, hook.name, raising=False)
    monkeypatch.setattr(mcrank.cli.story, "handler", handler)


def test_a_signal_inside_an_import_waits_until_it_returns(monkeypatch, capsys):
    """Raised inside an import, the exception was printed by the code that ran the import
    (numpy's C API, an import lock's weakref callback) before the command's line."""
    _story_after_importing(monkeypatch, _SignalledImport("mcrank_test_swallowing", 0.3, swallow=True))
    assert main(["story"]) == 143
    assert capsys.readouterr().err.splitlines() == ["mcrank story: terminated"]


def test_a_signal_raised_before_its_retry_came_is_raised_once(monkeypatch, capsys):
    """A signal that waited for an import, raised by check() before its retry came: the retry
    raised it again, in the command's clean-up (a traceback, exit 1; a stress run of SIGTERMs)."""
    from mcrank import _signals

    monkeypatch.setattr(_signals, "RETRY", 0.2)
    stopped = _signals.stopped

    def slowly_stopped(program, terminated):
        time.sleep(0.5)  # the retry comes meanwhile
        return stopped(program, terminated)

    monkeypatch.setattr(_signals, "stopped", slowly_stopped)
    # The signal waits for the import to return; check() raises it before the retry comes.
    _story_after_importing(monkeypatch, _SignalledImport("mcrank_test_checked", 0.0, swallow=False), then=lambda args: _signals.check())
    assert main(["story"]) == 143
    assert capsys.readouterr().err.splitlines() == ["mcrank story: terminated"]


def test_an_import_that_hangs_is_interrupted_all_the_same(monkeypatch, capsys):
    """The exception waits for the import for at most IMPORT_WAIT seconds."""
    from mcrank import _signals

    monkeypatch.setattr(_signals, "IMPORT_WAIT", 0.2)
    _story_after_importing(monkeypatch, _SignalledImport("mcrank_test_hanging", 60.0, swallow=False))
    start = time.monotonic()
    assert main(["story"]) == 143
    assert time.monotonic() - start < 30
    assert capsys.readouterr().err.splitlines() == ["mcrank story: terminated"]


def test_a_signal_while_the_jit_module_is_imported_is_one_line(monkeypatch, capsys):
    """A signal landing while mcrank._jit was half imported: AttributeError, 'partially
    initialized module', from the handler itself."""

    def handler(args):
        monkeypatch.setitem(sys.modules, "mcrank._jit", types.ModuleType("mcrank._jit"))
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
        return 0

    monkeypatch.setattr(mcrank.cli.story, "handler", handler)
    assert main(["story"]) == 130
    assert capsys.readouterr().err.splitlines() == ["mcrank story: interrupted"]


@pytest.mark.parametrize("delay", [0.05])
@pytest.mark.slow
def test_ctrl_c_after_wrote_with_loky_is_one_line_or_nothing(tmp_path, delay):
    out = tmp_path / "X.json"
    script = f"import sys; from mcrank.cli import main; sys.exit(main(['run', '--backend', 'loky', '--jobs', '2', '--samples', '1e5', '--out', {str(out)!r}]))"
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "wrote" in line:
            time.sleep(delay)
            process.send_signal(signal.SIGINT)
            break
    _, rest = process.communicate(timeout=120)
    err = "".join(lines) + rest
    assert lines and "wrote" in lines[-1], err  # the run finished and wrote its file
    assert "Traceback" not in err and "Exception ignored" not in err, err
    # 130 and "interrupted" while the workers stop; 0, or death by SIGINT (the shell's 130),
    # silently, when the signal lands as the interpreter exits.
    assert process.returncode in (130, 0, -signal.SIGINT), (process.returncode, err)
    expected = ["mcrank run: interrupted"] if process.returncode == 130 else []
    assert err.splitlines() == [f"mcrank run: wrote {out}", *expected], err
    assert out.exists()


def _signal_as_mkstemp_returns(monkeypatch) -> None:
    """tempfile.mkstemp sends SIGTERM to this process once it has created the file: the
    handler runs before its caller has the file's name."""
    import tempfile

    mkstemp = tempfile.mkstemp

    def signalled(*args, **kwargs):
        handle_and_name = mkstemp(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        return handle_and_name

    monkeypatch.setattr(tempfile, "mkstemp", signalled)


def test_a_signal_as_the_write_check_makes_its_file_leaves_nothing(tmp_path, monkeypatch, capsys):
    """The probe of the output's directory was left behind (a stress run of SIGTERMs)."""
    _signal_as_mkstemp_returns(monkeypatch)
    assert main(["run", "--samples", "2000", "--quiet", "--out", str(tmp_path / "x.json")]) == 143
    assert capsys.readouterr().err.splitlines() == ["mcrank run: terminated"]
    assert list(tmp_path.iterdir()) == []


def test_a_signal_as_the_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch):
    from mcrank import _signals
    from mcrank.results import atomic_write_bytes

    _signal_as_mkstemp_returns(monkeypatch)
    assert _signals.install()
    try:
        with pytest.raises(_signals.Terminated):
            atomic_write_bytes(tmp_path / "x.json", b"{}")
    finally:
        _signals.restore()
    assert list(tmp_path.iterdir()) == []


class _Writes:
    """A stream that keeps each write apart."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return len(text)

    def flush(self) -> None:
        pass


def test_each_line_on_stderr_is_one_write(monkeypatch):
    """print writes a line and its newline apart, and a signal's exception can come between the
    two: the study's log line was left open, and 'mcrank reproduce: interrupted' joined to it."""
    from mcrank import _signals, reproduce
    from mcrank.cli._common import fail

    stream = _Writes()
    monkeypatch.setattr(sys, "stderr", stream)
    _signals.stopped("mcrank reproduce", terminated=False)
    fail("run", ValueError("sds must be finite"))
    reproduce._log("[1/1] a: 1,000 pairs, 1 sd(s)...", quiet=False)
    assert stream.writes == [
        "mcrank reproduce: interrupted\n",
        "mcrank run: error: sds must be finite\n",
        "[1/1] a: 1,000 pairs, 1 sd(s)...\n",
    ]


def test_the_package_writes_to_stderr_only_through_say():
    """No print(..., file=sys.stderr) in mcrank: each line goes through mcrank._signals.say."""
    import ast
    from pathlib import Path

    found = []
    for path in sorted(Path(mcrank.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                if any(keyword.arg == "file" and ast.unparse(keyword.value) == "sys.stderr" for keyword in node.keywords):
                    found.append(f"{path.name}:{node.lineno}")
    assert found == []
