"""Crossover: the error sd at which a perturbed utility matrix becomes as unreliable as a metric.

The paper (§4.2) reads off fig. 7 that utility matrices with errors of sd "slightly higher
than 0.15" still rank pairs better than accuracy, the best of the popular metrics. Here that
sd is computed, for every metric, by linear interpolation of the sweep's curve of %
incorrect against sd where it first reaches the metric's %.

Its standard error is a delete-a-batch jackknife when the study kept its batch counts
(:attr:`mcrank.engine.StudyResult.batch_incorrect`): the crossover is recomputed with each
batch left out, which accounts for the correlations that common random numbers create
between the points of the curve and the metric. Without batches, a delta-method error that
treats the three estimates involved as independent is given instead, and said to be so.
"""

from __future__ import annotations

import math

__all__ = ["crossover_table", "crossover_markdown"]


def _crossing(grid: list[dict], level: float, level_se: float) -> dict:
    for left, right in zip(grid, grid[1:]):
        if left["incorrect_pct"] <= level < right["incorrect_pct"]:
            rise = right["incorrect_pct"] - left["incorrect_pct"]
            step = right["sd"] - left["sd"]
            t = (level - left["incorrect_pct"]) / rise
            # Delta method, treating the three estimates as independent.
            variance = level_se**2 + (1 - t) ** 2 * left["se_pct"] ** 2 + t**2 * right["se_pct"] ** 2
            realised = None
            if left.get("realised_sd") is not None and right.get("realised_sd") is not None:
                realised = left["realised_sd"] + t * (right["realised_sd"] - left["realised_sd"])
            return {
                "crossover_sd": left["sd"] + t * step,
                "crossover_se": step / rise * math.sqrt(variance),
                "crossover_realised_sd": realised,
                "status": "crossed",
                "se_method": "delta, independent",
            }
    status = "below grid" if grid and level < grid[0]["incorrect_pct"] else "beyond grid"
    return {"crossover_sd": None, "crossover_se": None, "crossover_realised_sd": None, "status": status, "se_method": None}


def _table(rows: list[dict]) -> list[dict]:
    grid = sorted((r for r in rows if r["name"] == "utility"), key=lambda r: r["sd"])
    if len(grid) < 2:
        raise ValueError("a crossover needs a sweep: at least two utility rows with different sds")
    metrics = sorted((r for r in rows if r["name"] != "utility"), key=lambda r: r["incorrect_pct"])
    return [
        {
            "metric": r["name"],
            "incorrect_pct": r["incorrect_pct"],
            "se_pct": r["se_pct"],
            **_crossing(grid, r["incorrect_pct"], r["se_pct"]),
        }
        for r in metrics
    ]


def _rows_without_batch(rows: list[dict], batches: dict, left_out: int) -> list[dict]:
    samples = sum(batches["samples"]) - batches["samples"][left_out]
    replicate = []
    for row, count in zip(rows, batches["incorrect"][left_out]):
        fraction = (row["incorrect"] - count) / samples
        replicate.append({**row, "incorrect_pct": 100 * fraction, "se_pct": 100 * math.sqrt(fraction * (1 - fraction) / samples)})
    return replicate


def crossover_table(rows: list[dict], *, batches: dict | None = None) -> list[dict]:
    """For each metric row, the sd at which the perturbed utility matrix is as unreliable.

    Parameters
    ----------
    rows : list of dict
        The rows of one sweep (see :meth:`mcrank.engine.StudyResult.rows`): metric rows and
        ``utility`` rows on a grid of sds.
    batches : dict, optional
        ``{"samples": [...], "incorrect": [[...], ...]}``, the batch counts of the same study
        (``StudyResult.to_dict()["batches"]``), columns in the order of ``rows``. With at
        least two batches, ``crossover_se`` is a delete-a-batch jackknife.

    Returns
    -------
    list of dict
        One per metric, in decreasing reliability (increasing % incorrect): ``metric``,
        ``incorrect_pct``, ``se_pct``, ``crossover_sd`` and ``crossover_se`` (None when the
        curve does not reach the metric's level on the grid, see ``status``),
        ``crossover_realised_sd``, the realised sd of ``U' - U`` there, and ``se_method``.
    """
    table = _table(rows)
    groups = 0 if batches is None else len(batches["samples"])
    if groups < 2:
        return table
    replicates = [{r["metric"]: r["crossover_sd"] for r in _table(_rows_without_batch(rows, batches, j))} for j in range(groups)]
    for row in table:
        if row["crossover_sd"] is None:
            continue
        values = [replicate[row["metric"]] for replicate in replicates]
        if any(v is None for v in values):
            row["crossover_se"], row["se_method"] = None, "jackknife failed: a replicate does not cross"
            continue
        mean = sum(values) / groups
        row["crossover_se"] = math.sqrt((groups - 1) / groups * sum((v - mean) ** 2 for v in values))
        row["se_method"] = f"jackknife, {groups} batches"
    return table


def crossover_markdown(table: list[dict], *, title: str, note: str | None = None, names=None) -> str:
    """One crossover table as Markdown.

    Parameters
    ----------
    table : list of dict
        From :func:`crossover_table`.
    title : str
        The heading (level 3).
    note : str, optional
        A paragraph between the heading and the table, e.g. the study it comes from.
    names : mapping of str to str, optional
        The display name of each row's id; by default the metrics' (the roc study gives its
        scores').
    """
    from mcrank.metrics import METRICS

    names = {k: m.name for k, m in METRICS.items()} if names is None else names

    lines = [f"### {title}", ""]
    if note:
        lines += [note, ""]
    lines += [
        "| metric | % incorrect | crossover sd | realised sd there |",
        "|---|---:|---:|---:|",
    ]
    for row in table:
        name = names[row["metric"]]
        level = f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f}"
        if row["crossover_sd"] is None:
            crossing, realised = row["status"], ""
        else:
            error = "?" if row["crossover_se"] is None else f"{row['crossover_se']:.4f}"
            crossing = f"{row['crossover_sd']:.4f} ± {error}"
            realised = "" if row["crossover_realised_sd"] is None else f"{row['crossover_realised_sd']:.3f}"
        lines.append(f"| {name} | {level} | {crossing} | {realised} |")
    return "\n".join(lines) + "\n"
