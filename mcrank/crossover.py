"""Crossover: the error sd at which a perturbed utility matrix becomes as unreliable as a metric.

The paper (§4.2) reads off fig. 7 that utility matrices with errors of sd "slightly higher
than 0.15" still rank pairs better than accuracy, the best of the popular metrics. Here that
sd is computed, for every metric, by linear interpolation of the sweep's curve of %
incorrect against sd where it first reaches the metric's %, with a delta-method standard
error.
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
            # Delta method, treating the three estimates as independent. Common random numbers
            # correlate them positively, so the true standard error is smaller: conservative.
            variance = level_se**2 + (1 - t) ** 2 * left["se_pct"] ** 2 + t**2 * right["se_pct"] ** 2
            realised = None
            if left.get("realised_sd") is not None and right.get("realised_sd") is not None:
                realised = left["realised_sd"] + t * (right["realised_sd"] - left["realised_sd"])
            return {
                "crossover_sd": left["sd"] + t * step,
                "crossover_se": step / rise * math.sqrt(variance),
                "crossover_realised_sd": realised,
                "status": "crossed",
            }
    status = "below grid" if grid and level < grid[0]["incorrect_pct"] else "beyond grid"
    return {"crossover_sd": None, "crossover_se": None, "crossover_realised_sd": None, "status": status}


def crossover_table(rows: list[dict]) -> list[dict]:
    """For each metric row, the sd at which the perturbed utility matrix is as unreliable.

    Parameters
    ----------
    rows : list of dict
        The rows of one sweep (see :meth:`mcrank.engine.StudyResult.rows`): metric rows and
        ``utility`` rows on a grid of sds.

    Returns
    -------
    list of dict
        One per metric, in decreasing reliability (increasing % incorrect): ``metric``,
        ``incorrect_pct``, ``se_pct``, ``crossover_sd`` and ``crossover_se`` (None when the
        curve does not reach the metric's level on the grid, see ``status``), and
        ``crossover_realised_sd``, the realised sd of ``U' - U`` there.
    """
    grid = sorted((r for r in rows if r["name"] == "utility"), key=lambda r: r["sd"])
    if len(grid) < 2:
        raise ValueError("a crossover needs a sweep: at least two utility rows with different sds")
    metrics = sorted((r for r in rows if r["name"] != "utility"), key=lambda r: r["incorrect_pct"])
    return [
        {"metric": r["name"], "incorrect_pct": r["incorrect_pct"], "se_pct": r["se_pct"], **_crossing(grid, r["incorrect_pct"], r["se_pct"])}
        for r in metrics
    ]


def crossover_markdown(table: list[dict], *, title: str) -> str:
    """One crossover table as Markdown."""
    from mcrank.metrics import get_metric

    lines = [
        f"### {title}",
        "",
        "| metric | % incorrect | crossover sd | realised sd there |",
        "|---|---:|---:|---:|",
    ]
    for row in table:
        name = get_metric(row["metric"]).name
        level = f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f}"
        if row["crossover_sd"] is None:
            crossing, realised = row["status"], ""
        else:
            crossing = f"{row['crossover_sd']:.3f} ± {row['crossover_se']:.3f}"
            realised = "" if row["crossover_realised_sd"] is None else f"{row['crossover_realised_sd']:.3f}"
        lines.append(f"| {name} | {level} | {crossing} | {realised} |")
    return "\n".join(lines) + "\n"
