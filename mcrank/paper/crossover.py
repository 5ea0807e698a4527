"""The crossover tables of the paper's sweeps: ``crossover.csv`` and ``crossover.md``.

:mod:`mcrank.crossover` computes one table from one sweep; this module picks the sweeps from
the results documents (:mod:`mcrank.paper.sweeps`) and writes them all, with where each
number comes from.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

from mcrank.crossover import crossover_markdown, crossover_table
from mcrank.paper.sweeps import HEXAGON, all_sweeps, probabilities_sweeps, roc_sweeps
from mcrank.results import atomic_write_text

__all__ = ["CROSSOVER_FILES", "crossover_texts", "write_crossovers"]

#: The files of the crossover tables, in the results directory.
CROSSOVER_FILES = ("crossover.csv", "crossover.md")

_FIELDS = (
    "classes",
    "true_um",
    "error",
    "metric",
    "incorrect_pct",
    "se_pct",
    "crossover_sd",
    "crossover_se",
    "crossover_realised_sd",
    "status",
    "se_method",
)
_FIELDS += ("experiment", "seed", "samples", "date", "version")  # the study the row comes from, and its run


def crossover_texts(documents: dict) -> dict[str, str] | None:
    """The text of ``crossover.csv`` and ``crossover.md`` for ``documents``
    (``{experiment: results document}``), or None if they hold no sweep.

    One table per sweep, the paper's first (per true-UM distribution and error model), then
    the n-class study's (per error model and number of classes), then the roc study's, then the
    probabilities study's. Both
    files say where their numbers come from: each row of the CSV names its study, with its
    seed, samples, and the date and mcrank version of its run; the Markdown says the same,
    with the numpy and numba versions, above each table. Nothing here depends on when the
    tables are written.
    """
    sweeps = all_sweeps(documents)
    roc = roc_sweeps(documents)
    probabilities = probabilities_sweeps(documents)
    if not sweeps and not roc and not probabilities:
        return None
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=_FIELDS, lineterminator="\n")
    writer.writeheader()
    markdown = [
        "# Crossover: the error sd at which the perturbed utility matrix is as unreliable as each metric",
        "",
        "Linear interpolation of the sweep; ± is a delete-a-batch jackknife standard error.",
        "Each table names the study it comes from, whose JSON file gives all its parameters and how",
        "it was run.",
        "",
    ]
    order = sorted(sweeps, key=lambda key: (key[1] not in HEXAGON, key[2], key[0], key[1]))
    tables = [(key, *sweeps[key], None) for key in order]
    # The scoring classifiers' sweeps last, each with the registry its rows name.
    for label, chosen, registry in (("scoring classifiers (ROC)", roc, "mcrank.roc:ROC_SCORES"),
                                    ("probabilistic classifiers", probabilities, "mcrank.probabilities:PROBABILITY_SCORES")):  # fmt: skip
        tables += [((2, true_um, error), name, document, (label, registry)) for (true_um, error), (name, document) in chosen.items()]
    for (classes, true_um, error), name, document, kind in tables:
        config = document["config"]
        table = crossover_table(document["rows"], batches=document.get("batches"))
        versions = document.get("versions") or {}
        study = {
            "experiment": name,
            "seed": config["seed"],
            "samples": config["samples"],
            "date": document.get("date", ""),
            "version": config.get("version", ""),
        }
        for row in table:
            writer.writerow(
                {"classes": classes, "true_um": true_um, "error": error, **{k: "" if v is None else v for k, v in row.items()}, **study}
            )
        sds = config["sds"]
        note = (
            f"From `{name}.json`: seed {config['seed']}, {config['samples']:,} pairs, {len(sds)} sds from {min(sds):g} to "
            f"{max(sds):g}; run on {document.get('date', 'an unrecorded date')} by mcrank {config.get('version', '?')} "
            f"(numpy {versions.get('numpy', '?')}, numba {versions.get('numba', '?')})."
        )
        title = f"{true_um} true utility matrices, {error} errors"
        names = None
        if kind is not None:
            import importlib  # the scores' registry, only for a sweep of scoring classifiers

            kind, registry = kind
            module, attribute = registry.split(":")
            names = {score.id: score.name for score in getattr(importlib.import_module(module), attribute).values()}
            tied = document["rows"][0]["tied_pct"]
            title = f"{kind}, {title}, B ~ Uniform(0, 1)"
            note += f" {tied:.2f} % of the pairs are tied in truth and left out of every percentage."
        elif true_um not in HEXAGON:
            title = f"{classes} classes, {title}"
        markdown.append(crossover_markdown(table, title=title, note=note, names=names))
    return {"crossover.csv": buffer.getvalue(), "crossover.md": "\n".join(markdown)}


def write_crossovers(documents: dict, out, *, before_write: Callable[[Path], None] | None = None) -> list[Path]:
    """Write ``crossover.csv`` and ``crossover.md`` (:func:`crossover_texts`) into ``out``.

    A file that already holds the same text is left alone, so rewriting the tables from
    unchanged studies changes nothing on disk. ``before_write(path)``, if given, is called
    before a file is replaced, and may refuse by raising.

    Returns
    -------
    list of Path
        The files written (none if ``documents`` hold no sweep or nothing changed).
    """
    texts = crossover_texts(documents)
    if texts is None:
        return []
    written = []
    for name, text in texts.items():
        path = Path(out) / name
        if _holds(path, text):
            continue
        if before_write is not None:
            before_write(path)
        written.append(atomic_write_text(path, text))
    return written


def _holds(path: Path, text: str) -> bool:
    """Whether the file ``path`` holds exactly ``text`` (UTF-8)."""
    data = text.encode("utf-8")
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False
