"""The hostile pass (scripts/hostile.py), in a short form: a fixed tenth of its scenarios, every
known defect and every scenario aimed at the repository's committed folders, each run as the
pass runs it; and the pass itself, shown able to fail.

A scenario of ``KNOWN_DEFECTS`` is expected to fail (strict): when a fix makes it pass, this
test says so, and its entry is removed from the set. The signals' scenarios sent after a delay
run only in the full pass (``python scripts/hostile.py``), since they time a child process; those
a child sends itself at a point it reaches for certain run here, every one.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("hostile", ROOT / "scripts" / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)
sys.modules["hostile"] = hostile  # dataclasses look their module up by name
_spec.loader.exec_module(hostile)

SCENARIOS = {s.name: s for s in hostile.all_scenarios()}


def _aims_at_the_repository(s) -> bool:
    """Whether a scenario points into the repository's results/ or experiments/ (a path, a link,
    or the repository as its directory)."""
    targets = [*s.argv, *(f.target for f in s.files.values() if isinstance(f, hostile.Link))]
    return s.cwd == "root" or any(f"{{root}}/{name}" in t for t in targets for name in hostile.COMMITTED)


def _short(name: str) -> bool:
    """A fixed tenth of the scenarios, by a hash of the name; and every known defect, except
    those that point into results/ or experiments/: while they fail they write there (the full
    pass puts the files back), so the short form runs them once they are fixed."""
    if _aims_at_the_repository(SCENARIOS[name]):
        return name not in hostile.KNOWN_DEFECTS
    return name in hostile.KNOWN_DEFECTS or zlib.crc32(name.encode()) % 10 == 0


#: Signals at these moments wait for a whole import of numba or joblib, or for two jobs' first
#: chunks (1 to 2.5 s each): the slow tier.
SLOW_MOMENTS = ("import-numba", "import-joblib", "two-jobs")


def _param(name: str):
    marks = [pytest.mark.slow] if any(moment in name for moment in SLOW_MOMENTS) else []
    if name in hostile.KNOWN_DEFECTS:
        marks.append(pytest.mark.xfail(strict=True, reason="a known defect of issue 33"))
    return pytest.param(name, marks=marks, id=name)


SHORT = [
    _param(name)
    for name, s in SCENARIOS.items()
    if (_short(name) and s.area != "signals") or (s.area == "signals" and isinstance(s.send[1], str))
]


@pytest.fixture(scope="module")
def committed():
    """The repository's results/ and experiments/ as they are: each scenario is checked against
    them, and what one changes is put back. The kernels are compiled first, outside the
    scenarios' time limits."""
    hostile.warm_up()
    return hostile.Committed()


@pytest.mark.parametrize("name", SHORT)
def test_scenario(name, committed):
    s = SCENARIOS[name]
    outcome = hostile.run_scenario(s, committed)
    assert hostile.problems(s, outcome) == []


def test_the_pass_is_large_and_covers_every_area():
    areas = {s.area for s in SCENARIOS.values()}
    assert len(SCENARIOS) >= 750
    assert {"run", "evaluate", "reproduce", "story", "api", "signals"} <= areas


def test_every_known_defect_is_a_scenario():
    assert sorted(hostile.KNOWN_DEFECTS - set(SCENARIOS)) == []


def test_the_short_form_takes_a_tenth_and_never_writes_into_the_repository():
    assert len(SCENARIOS) // 20 < sum(1 for s in SCENARIOS.values() if _short(s.name)) < len(SCENARIOS) // 4
    assert _aims_at_the_repository(SCENARIOS["evaluate/plot/link-to-committed-figure"])
    assert not any(_short(name) for name in hostile.KNOWN_DEFECTS if name.startswith("evaluate/plot/inside-"))


def _planted(name, expect, *argv, **options):
    return hostile.Scenario(name, expect, tuple(argv), **options)


@pytest.mark.parametrize(
    ("planted", "reported"),
    [
        (_planted("evaluate/planted/missing-file", "ok", "evaluate", "{tmp}/none.json"), "exit 2"),
        (_planted("story/planted/refuse-a-good-command", "refuse", "story"), "exit 0"),
        (_planted("evaluate/planted/names-a-flag", "refuse", "evaluate", "{tmp}/none.json", says=("--bogus",)), "does not say '--bogus'"),
        (_planted("story/planted/writes", "refuse", "story", "--out", "{tmp}/o.txt"), "exit 0"),
        (_planted("api/planted/returns", "raise", call=lambda: 1.0, names="x"), "returned 1.0"),
        (_planted("api/planted/index-error", "raise", call=lambda: [][1], names="x"), "raised IndexError"),
        (_planted("api/planted/nan", "ok", call=lambda: float("nan")), "returned NaN"),
        (_planted("api/planted/unnamed", "raise", call=lambda: int("x"), names="count"), "does not name 'count'"),
        (_planted("api/planted/hangs", "raise", call=lambda: time.sleep(5), time_limit=0.2), "hung"),
    ],
    ids=lambda value: getattr(value, "name", ""),
)
def test_the_pass_reports_a_planted_failure(planted, reported):
    found = hostile.problems(planted, hostile.run_scenario(planted))
    assert any(reported in problem for problem in found), found


def test_a_scenario_that_writes_into_the_committed_folders_fails_and_is_undone(tmp_path, monkeypatch):
    for name in hostile.COMMITTED:
        (tmp_path / name).mkdir()
        (tmp_path / name / "kept.csv").write_text("1\n")
    monkeypatch.setattr(hostile, "ROOT", tmp_path)
    committed = hostile.Committed()

    def vandal():
        (tmp_path / "results" / "kept.csv").write_text("changed\n")
        (tmp_path / "experiments" / "new.toml").write_text("seed = 1\n")

    planted = _planted("api/planted/vandal", "ok", call=vandal)
    found = hostile.problems(planted, hostile.run_scenario(planted, committed))
    assert any("changed the repository's" in problem for problem in found), found
    assert (tmp_path / "results" / "kept.csv").read_text() == "1\n"
    assert not (tmp_path / "experiments" / "new.toml").exists()


def test_the_summary_names_the_failing_scenario_and_exits_1(monkeypatch, capsys):
    planted = [
        _planted("story/planted/clean", "ok", "story"),
        _planted("story/planted/failing", "refuse", "story"),
    ]
    monkeypatch.setattr(hostile, "all_scenarios", lambda: planted)
    code = hostile.main(["--refusals"])
    out = capsys.readouterr().out
    assert code == 1
    assert "2 scenarios" in out and "1 clean" in out
    assert "story/planted/failing (expected refuse): exit 0" in out
