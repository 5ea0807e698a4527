"""Read the CSV files mcrank writes: ``# key: value`` lines, then a header and rows."""

from __future__ import annotations

import csv
import io
import json


def csv_parts(text: str) -> tuple[dict, list[dict]]:
    """The ``# key: value`` lines of a CSV text as a dict (values are JSON), and its rows."""
    lines = io.StringIO(text).readlines()  # on "\n" only: str.splitlines also splits on U+2028
    comments = [line for line in lines if line.startswith("#")]
    assert lines[: len(comments)] == comments  # all before the header
    provenance = dict(line[2:].rstrip("\n").split(": ", 1) for line in comments)
    return {key: json.loads(value) for key, value in provenance.items()}, list(csv.DictReader(lines[len(comments) :]))
