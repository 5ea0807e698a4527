#!/usr/bin/env python
"""Compare a run's results files with the committed ``results/``, study by study.

For every ``<study>.json`` in both directories: whether its config, rows and batches are
identical, and otherwise how far each row's percentage lies from the committed one, in
combined standard errors, ``z = (new - committed) / sqrt(se_new^2 + se_committed^2)`` (the
two runs share their pairs' steps 1-3, so their difference varies less than that: the test is
conservative). A study that may differ (``--redrawn``, shell patterns) passes when every row
is within ``--tolerance`` (4) SE; every other study must be identical.

Usage::

    mcrank reproduce --force --out /tmp/check
    python scripts/compare_results.py /tmp/check --redrawn 'nclass_truncated_*'

Prints one line per study and exits with 1 if any fails.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _key(row: dict) -> tuple:
    return row["name"], row["sd"]


def compare(new: dict, committed: dict) -> dict:
    """``identical`` (config, rows and batches), the largest ``|z|`` over rows and its row,
    and the largest change of the realised sd."""
    identical = all(new[part] == committed[part] for part in ("config", "rows", "batches"))
    old_rows = {_key(row): row for row in committed["rows"]}
    worst, where, realised = 0.0, None, 0.0
    for row in new["rows"]:
        old = old_rows[_key(row)]
        difference = row["incorrect_pct"] - old["incorrect_pct"]
        se = math.hypot(row["se_pct"], old["se_pct"])
        z = 0.0 if difference == 0 else (math.inf if se == 0 else abs(difference) / se)
        if z > worst:
            worst, where = z, _key(row)
        if row.get("realised_sd") is not None and old.get("realised_sd") is not None:
            realised = max(realised, abs(row["realised_sd"] - old["realised_sd"]))
    return {"identical": identical, "max_z": worst, "row": where, "realised_sd_change": realised, "rows": len(new["rows"])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the run's results directory")
    parser.add_argument("--reference", type=Path, default=ROOT / "results", help="the committed results (default: results/)")
    parser.add_argument("--redrawn", action="append", default=[], metavar="PATTERN", help="studies that may differ within the tolerance")
    parser.add_argument("--tolerance", type=float, default=4.0, help="in combined SE (default 4)")
    args = parser.parse_args(argv)
    failed = 0
    print(f"{'study':28s} {'rows':>4s}  {'identical':9s} {'max |z|':>8s}  {'at (row, sd)':28s} {'realised sd moved':>17s}")
    for path in sorted(args.reference.glob("*.json")):
        mine = args.run / path.name
        if not mine.is_file():
            continue
        committed = json.loads(path.read_text())
        if "rows" not in committed:
            continue
        result = compare(json.loads(mine.read_text()), committed)
        redrawn = any(fnmatch.fnmatch(path.stem, pattern) for pattern in args.redrawn)
        ok = result["identical"] or (redrawn and result["max_z"] <= args.tolerance)
        failed += not ok
        where = "" if result["row"] is None else f"{result['row'][0]}, {result['row'][1]}"
        print(
            f"{path.stem:28s} {result['rows']:4d}  {'yes' if result['identical'] else 'no':9s} {result['max_z']:8.2f}  {where:28s} "
            f"{result['realised_sd_change']:17.5f}{'' if ok else '  FAILS'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
