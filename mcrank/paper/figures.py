"""The figures of ``mcrank reproduce``: one registry entry per figure, and what each is drawn from.

Each record of the registry :data:`FIGURES` names a figure, its module in
:mod:`mcrank.figures` and the function that gathers its data from the results documents
(``{experiment: document}``, as :func:`mcrank.results.read_study` reads them) and the
illustrative samples (:mod:`mcrank.paper.samples`). Gathering gives zero, one or several
:class:`FigureJob`: one file each (PNG and PDF), with the data it draws, as JSON, and how to
draw it. Adding a figure is its module plus its :func:`register_figure` call here
(``docs/development.md``, "Adding a figure").

A figure is up to date when its files exist and the digest of its inputs
(:func:`inputs_digest`: its data, its module's source, the shared style's, the matplotlib
version) is the one recorded in ``figures/manifest.json`` (:data:`MANIFEST`).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from mcrank._axes import Registry
from mcrank.paper.samples import read_pairs, read_sample
from mcrank.paper.sweeps import HEXAGON, all_sweeps, hexagon_sweeps, kind, probabilities_sweeps
from mcrank.results import atomic_write_text

__all__ = [
    "FIGURES",
    "MANIFEST",
    "ROC_EXAMPLE",
    "Figure",
    "FigureJob",
    "Inputs",
    "draw",
    "figure_jobs",
    "inputs_digest",
    "read_manifest",
    "register_figure",
    "write_manifest",
]

#: Where the figure modules are: their source is part of each figure's inputs. Found without
#: importing them (and matplotlib), which a run with nothing to draw does not need.
_FIGURES_SOURCE = Path(__file__).resolve().parent.parent / "figures"

#: The record of what each figure was drawn from, in the figures directory.
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Inputs:
    """What figures are drawn from: the results documents, the samples' records
    (:func:`mcrank.paper.samples.read_record`, by name) and the directory that holds the
    samples."""

    documents: dict
    records: dict
    samples_directory: Path


@dataclass(frozen=True)
class FigureJob:
    """One figure file to draw: its name, the module of :mod:`mcrank.figures` that draws it,
    the data it draws as JSON, for its digest, and ``draw(module) -> Figure``, which is given
    that module and reads the data from disk if it needs to."""

    name: str
    module: str
    data: object
    draw: Callable


@dataclass(frozen=True)
class Figure:
    """A record of :data:`FIGURES`: the figure's name (as ``docs/method.md`` calls it), its
    position in the registry, its module of :mod:`mcrank.figures`, and ``gather(inputs) ->
    [(file name, data, draw), ...]``, none when the results hold nothing it draws."""

    name: str
    code: int
    module: str
    gather: Callable[[Inputs], list]

    def jobs(self, inputs: Inputs) -> list[FigureJob]:
        return [FigureJob(name, self.module, data, draw) for name, data, draw in self.gather(inputs)]


# --- what each figure draws ------------------------------------------------------------------


def _fig1(inputs: Inputs) -> list:
    return [("fig1_hexagon", None, lambda module: module.fig1_hexagon())]


def _from_sample(name: str, draw: Callable) -> Callable[[Inputs], list]:
    """The gathering of a figure drawn from one sample, ``draw(module, arrays, settings)``."""

    def gather(inputs: Inputs) -> list:
        record = inputs.records.get(name)
        if record is None:
            return []

        def drawing(module):
            arrays, recorded = read_sample(inputs.samples_directory, name)
            return draw(module, arrays, recorded["settings"])

        return [(name, record, drawing)]

    return gather


def _yield_vs_metric(module, arrays, settings):
    return module.fig_yield_vs_metric(settings["p"], arrays["tpr"], arrays["tnr"])


def _fig4(module, arrays, settings):
    return module.fig4_true_um_gaussian(arrays["x"], arrays["y"], sd=settings["sd"])


def _fig5(module, arrays, settings):
    return module.fig5_perturbation_cloud(arrays["perturbed"], centre=settings["centre"], sds=settings["sds"], errors=settings["errors"])


def _fig6(inputs: Inputs) -> list:
    """One fig. 6 per sample of pairs (one per single-sd study), with its study's rows: the
    percentages in the titles."""
    jobs = []
    for name, record in inputs.records.items():
        if record["settings"]["kind"] == "pairs":
            data = {"sample": record, "rows": inputs.documents[name]["rows"], "sd": float(record["settings"]["config"]["sds"][0])}
            jobs.append((name, data, partial(_draw_pairs, inputs.samples_directory, name, data)))
    return jobs


def _draw_pairs(directory: Path, name: str, data: dict, module):
    return module.fig6_pairs(read_pairs(directory, name), data["rows"], sd=data["sd"])


def _fig7(inputs: Inputs) -> list:
    """The paper's four sweeps (two classes, the hexagon)."""
    sweeps = hexagon_sweeps(inputs.documents)
    if not sweeps:
        return []
    rows = {key: document["rows"] for key, (_, document) in sweeps.items()}
    data = {f"{true_um}/{error}": r for (true_um, error), r in sorted(rows.items())}
    return [("fig7_sweep", data, lambda module: module.fig7_sweep(rows))]


def _fig8(inputs: Inputs) -> list:
    """The n-class sweeps of the first element distribution: the rows and their crossover
    tables (jackknife SEs from the batches), computed here so that the figure only draws."""
    from mcrank.crossover import crossover_table

    class_sweeps: dict = {}
    for (classes, true_um, error), (_, document) in all_sweeps(inputs.documents).items():
        if true_um not in HEXAGON:
            class_sweeps.setdefault((true_um, error), {})[classes] = document
    if not class_sweeps:
        return []
    class_sweeps = {key: dict(sorted(value.items())) for key, value in sorted(class_sweeps.items())}
    true_um = next(iter(class_sweeps))[0]
    sweeps = {error: {n: d["rows"] for n, d in by_n.items()} for (t, error), by_n in class_sweeps.items() if t == true_um}
    crossovers = {
        error: {n: crossover_table(d["rows"], batches=d.get("batches")) for n, d in by_n.items()}
        for (t, error), by_n in class_sweeps.items()
        if t == true_um
    }
    data = {
        "sweeps": {e: {str(n): r for n, r in v.items()} for e, v in sweeps.items()},
        "crossovers": {e: {str(n): t for n, t in v.items()} for e, v in crossovers.items()},
    }
    return [("fig8_classes", data, lambda module: module.fig8_classes(sweeps, crossovers))]


def _fig9(inputs: Inputs) -> list:
    """The finite-test-set studies, one panel per setting (classes, true U, error model):
    ``{title: ({N: rows}, population rows or None)}``. The population is the study of the
    same setting without a test set, of the same seed if there is one."""
    documents = inputs.documents

    def setting(config):
        return config.get("classes", 2), config["true_um"], config["error"]

    groups: dict = {}
    for document in documents.values():
        config = document["config"]
        if config.get("test_size") is not None and kind(document) == "confusion":
            groups.setdefault(setting(config), {})[config["test_size"]] = document
    panels = {}
    for key, studies in sorted(groups.items()):
        seeds = {d["config"]["seed"] for d in studies.values()}
        candidates = [
            d for d in documents.values() if d["config"].get("test_size") is None and kind(d) == "confusion" and setting(d["config"]) == key
        ]
        population = next((d for d in candidates if d["config"]["seed"] in seeds), candidates[0] if candidates else None)
        classes, true_um, error = key
        title = f"{classes} classes, {true_um} true utility matrices, {error} errors ({studies[min(studies)]['config']['samples']:,} pairs per point)"
        panels[title] = ({n: d["rows"] for n, d in sorted(studies.items())}, None if population is None else population["rows"])
    if not panels:
        return []
    data = {
        title: {"studies": {str(n): r for n, r in studies.items()}, "population": population}
        for title, (studies, population) in panels.items()
    }
    return [("fig9_test_size", data, lambda module: module.fig9_test_size(panels))]


#: The example of the published version's fig. 8 (its caption: the curve with the larger
#: area loses under U = [[4, 0], [0, 1]] at B = 0.5): two binormal classifiers, (mu, sigma).
ROC_EXAMPLE = {"utility": ((4.0, 0.0), (0.0, 1.0)), "prevalence": 0.5, "classifiers": {"A": (2.6, 2.0), "B": (1.3, 0.7)}}


def _fig10(inputs: Inputs) -> list:
    """Drawn when the results hold a roc study. Its data are computed in closed form
    (:func:`roc_example`) as Python (:func:`mcrank._jit.interpreted`: the compiled kernels' numbers,
    in a few hundredths of a second, where loading those kernels would take a run with nothing to
    draw about a second), so that its digest covers the numbers drawn: an edit of
    :mod:`mcrank.roc` that moves none leaves the figure up to date."""
    if not any(kind(document) == "roc" for document in inputs.documents.values()):
        return []
    from mcrank._jit import interpreted

    with interpreted():
        data = roc_example()
    return [("fig10_roc_tangents", data, lambda module: module.fig10_roc_tangents(**data))]


def roc_example() -> dict:
    """Fig. 10's data, in closed form (:mod:`mcrank.roc`): each curve, its area, its best
    operating point under the example's utility matrix, and the iso-utility lines of eq. (25)."""
    import numpy as np

    from mcrank import roc

    utility, prevalence = np.array(ROC_EXAMPLE["utility"]), ROC_EXAMPLE["prevalence"]
    # Dense where the curves bend: evenly spaced in Phi^-1(f), with both corners.
    fpr = np.array([0.0, *(0.5 * math.erfc(-x / math.sqrt(2.0)) for x in np.linspace(-6.0, 6.0, 241)), 1.0])
    classifiers = []
    for name, (mu, sigma) in ROC_EXAMPLE["classifiers"].items():
        best_fpr, best_yield = roc.best_threshold(utility, prevalence, mu, sigma)
        classifiers.append(
            {
                "name": f"{name} (mu {mu:g}, sigma {sigma:g})",
                "fpr": fpr.tolist(),
                "tpr": roc.binormal_tpr(fpr, mu, sigma).tolist(),
                "auc": float(roc.binormal_auc(mu, sigma)),
                "best_fpr": float(best_fpr),
                "best_tpr": float(roc.binormal_tpr(best_fpr, mu, sigma)),
                "best_yield": float(best_yield),
            }
        )
    slope = float(roc.iso_utility_slope(utility, prevalence))
    touching = [c["best_tpr"] - slope * c["best_fpr"] for c in classifiers]
    intercepts = np.arange(-1.0, 1.0, 0.1)
    return {
        "classifiers": classifiers,
        "utility": utility.tolist(),
        "prevalence": prevalence,
        "slope": slope,
        "intercepts": [float(c) for c in intercepts if all(abs(c - t) > 0.03 for t in touching)],
    }


def _fig11(inputs: Inputs) -> list:
    """The roc studies at a fixed prevalence, ``{error: {B: rows}}``, B ascending."""
    by_error: dict = {}
    for document in inputs.documents.values():
        config = document["config"]
        if kind(document) == "roc" and config["prevalence"] is not None:
            by_error.setdefault(config["error"], {})[config["prevalence"]] = document["rows"]
    if not by_error:
        return []
    prevalences = {error: dict(sorted(rows.items())) for error, rows in sorted(by_error.items())}
    from mcrank.roc import ROC_SCORES

    names = {score.id: score.name for score in ROC_SCORES.values()}
    data = {"studies": {e: {format(b, "g"): rows for b, rows in by_b.items()} for e, by_b in prevalences.items()}, "names": names}
    return [("fig11_roc_prevalence", data, lambda module: module.fig11_roc_prevalence(prevalences, names))]


def _fig12(inputs: Inputs) -> list:
    """The probabilities study's sweeps of the first true-UM distribution of the hexagon's
    (uniform before gaussian), ``{error: rows}``."""
    sweeps = probabilities_sweeps(inputs.documents)
    if not sweeps:
        return []
    true_um = next(t for t in (*HEXAGON, *sorted(t for t, _ in sweeps)) if any(key[0] == t for key in sweeps))
    rows = {error: document["rows"] for (t, error), (_, document) in sorted(sweeps.items()) if t == true_um}
    from mcrank.probabilities import PROBABILITY_SCORES

    names = {score.id: score.name for score in PROBABILITY_SCORES.values()}
    data = {"sweeps": rows, "names": names}
    return [("fig12_probabilities", data, lambda module: module.fig12_probabilities(rows, names))]


#: Every figure by name, in the order they are drawn (its code). Figures draw no kernels: the
#: registry is never sealed, and a figure added from outside the package keys no jit cache.
FIGURES: Registry = Registry("figure")


def register_figure(name: str, module: str, gather: Callable[[Inputs], list]) -> Figure:
    """Register the figure ``name``, drawn by ``module`` of :mod:`mcrank.figures` from what
    ``gather`` takes of the results (see :class:`Figure`), and return it."""
    return FIGURES.add(Figure(name, len(FIGURES), module, gather))


register_figure("fig. 1", "fig1_hexagon", _fig1)
register_figure("fig. 2", "yield_vs_metric", _from_sample("fig2_yield_vs_metric_p50", _yield_vs_metric))
register_figure("fig. 3", "yield_vs_metric", _from_sample("fig3_yield_vs_metric_p90", _yield_vs_metric))
register_figure("fig. 4", "fig4_true_um", _from_sample("fig4_true_um_gaussian", _fig4))
register_figure("fig. 5", "fig5_perturbation", _from_sample("fig5_perturbation_cloud", _fig5))
register_figure("fig. 6", "fig6_pairs", _fig6)
register_figure("fig. 7", "fig7_sweep", _fig7)
register_figure("fig. 8 (n classes)", "fig8_classes", _fig8)
register_figure("fig. 9 (test sets)", "fig9_test_size", _fig9)
register_figure("fig. 10 (the published fig. 8)", "fig10_roc_tangents", _fig10)
register_figure("fig. 11 (ROC, prevalence)", "fig11_roc_prevalence", _fig11)
register_figure("fig. 12 (probabilistic classifiers)", "fig12_probabilities", _fig12)


def figure_jobs(documents: dict, records: dict, samples_directory) -> list[FigureJob]:
    """The files of every figure of :data:`FIGURES` that ``documents`` and the samples'
    ``records`` hold data for, in order."""
    inputs = Inputs(documents, records, Path(samples_directory))
    return [job for figure in FIGURES.values() for job in figure.jobs(inputs)]


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inputs_digest(job: FigureJob, sources: dict) -> str:
    """SHA-256 of everything a figure's file depends on: its data, its module's source and
    the shared style's, and the matplotlib version that draws it. ``sources`` caches the
    digests of the modules' sources."""
    from importlib.metadata import version

    for module in (job.module, "_style"):
        if module not in sources:
            sources[module] = _sha256((_FIGURES_SOURCE / f"{module}.py").read_bytes())
    inputs = {
        "figure": job.name,
        "module": sources[job.module],
        "style": sources["_style"],
        "matplotlib": version("matplotlib"),
        "data": job.data,
    }
    return _sha256(json.dumps(inputs, sort_keys=True, allow_nan=True).encode())


def draw(job: FigureJob, directory) -> list[Path]:
    """Draw ``job`` in the paper's style and write its PNG and PDF into ``directory``."""
    from mcrank import figures  # here: a run with every figure up to date needs no matplotlib

    with figures.paper_style():
        return figures.save_figure(job.draw(importlib.import_module(f"mcrank.figures.{job.module}")), directory, job.name)


def read_manifest(path) -> dict:
    """The figures' recorded digests, or none if the manifest is missing or unreadable
    (then every figure is drawn again)."""
    try:
        figures = json.loads(Path(path).read_text(encoding="utf-8"))["figures"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return figures if isinstance(figures, dict) else {}


def write_manifest(path, manifest: dict) -> Path:
    """Write the figures' digests (``{name: {"inputs": digest, "module": ...}}``) to ``path``."""
    document = {
        "note": (
            "What each figure was drawn from: the SHA-256 of its data, its module's source, the shared "
            "style's and the matplotlib version. mcrank reproduce redraws a figure when it changes."
        ),
        "figures": dict(sorted(manifest.items())),
    }
    return atomic_write_text(path, json.dumps(document, indent=1) + "\n")
