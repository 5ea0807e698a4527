"""scripts/bench.py runs to the end and prints its table (no timing is asserted: speed is
reported by the script, never tested)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "scripts" / "bench.py"


@pytest.mark.slow
def test_bench_quick_run_prints_the_table(tmp_path):
    """A smoke run (``--smoke``: ``--quick``, with every section once at tiny sizes)."""
    out = tmp_path / "bench.json"
    completed = subprocess.run(
        [sys.executable, str(BENCH), "--smoke", "--samples", "3000", "--jobs", "2", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr
    text = completed.stdout
    for expected in (
        "(a) one setting",
        "median of the 1 runs",
        "(b) sweep",
        "(c) NumPy oracle",
        "oracle / engine",
        "(d) random-number floor",
        "engine / floor",
        "cpu",
        "oracle / floor x 2 cores",
        "(o) the probabilities study",
    ):
        assert expected in text, expected
    # Every section ran and printed its table.
    for section in "efghijklmno":
        assert f"\n({section}) " in text, section
    payload = json.loads(out.read_text())
    assert payload["results"]["samples"] == 3000
    # The targets are set for 10^6 pairs a study: not beside a quick run's numbers.
    assert "targets   set for 1e+06 pairs a study, so not shown for 3e+03" in text
    assert payload["targets"] is None and all(row["target"] == "" for row in payload["table"])
    assert ">= 25x" not in text and "<= 2x" not in text
    assert set(payload["results"]["sweep"]) == {"gaussian", "truncated"}
    # The draws counted for the paper's gaussian errors: one normal per sd per pair.
    counts = payload["results"]["variates_per_pair"]["sweep/uniform/gaussian"]
    assert abs(counts["normals"] - 51) < 1
    # The ceiling of oracle / engine: the oracle against drawing the same variates only.
    assert all(entry["floor"] > 0 for entry in payload["results"]["oracle"].values())
    # The n-class floor loop draws what the engine draws: the same 64-bit outputs per pair.
    for n, entry in payload["results"]["classes"].items():
        used = entry["outputs_per_pair"]
        assert used["engine"] == used["floor"] > 3 * int(n) ** 2, (n, used)
    assert "the engine's samplers and matrices" in text
    # (n): the n-class truncated sampler draws fewer normals than the former one, at every n.
    assert "(n) truncated errors of the n-class study" in text
    for n, entry in payload["results"]["truncated"].items():
        normals = entry["normals_per_element"]
        assert 1 <= normals["new"] < normals["old"], (n, normals)
