"""Reproduce the paper: every study of ``experiments/``, the crossover tables and figs 1-11.

Data flows one way: experiment files -> study -> engine -> results on disk -> figures. The
studies write ``<experiment>.json``/``.csv``; :mod:`mcrank.study.samples` writes the small
illustrative samples of figs 2-6 into ``samples/`` (sized and seeded in
``experiments/figures.toml``); the figures (:mod:`mcrank.figures`) read both and only draw
(``docs/method.md``, "Figures").

Each step is skipped when its output is on disk and up to date, so an interrupted run picks
up where it stopped and a second run with nothing changed only checks:

- a study whose results file holds exactly its config and seed;
- a sample whose record holds the same seed and settings, next to its data;
- a figure whose PNG and PDF exist and whose inputs (the data it draws, the source of its
  module and of the shared style, the matplotlib version) have the digest recorded in
  ``figures/manifest.json``.

``force`` redoes all three.
"""

from __future__ import annotations

import hashlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

__all__ = ["ReproduceReport", "check_out_directory", "draw_figures", "reproduce", "write_crossovers"]

#: Where the figure modules are: their source is part of each figure's inputs. Found without
#: importing them (and matplotlib), which a run with nothing to draw does not need.
_FIGURES_SOURCE = Path(__file__).resolve().parent / "figures"

#: The record of what each figure was drawn from, in the figures directory.
MANIFEST = "manifest.json"


@dataclass
class ReproduceReport:
    """What a reproduce run did: studies run and skipped, samples and figures drawn and
    skipped (up to date), files written, wall time."""

    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    drawn: list[str] = field(default_factory=list)
    up_to_date: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    wall_time: float = 0.0


def _log(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def check_out_directory(out) -> Path:
    """``out`` as a Path, or an error if it cannot be the results directory.

    It may be missing (it is created), but it, or its nearest existing parent, must be a
    directory where files can be created: checked before any study runs, rather than when
    the first one is written.

    Raises
    ------
    ValueError
        If it, or its nearest existing parent, is a file.
    OSError
        If no file can be created there (:func:`mcrank.results.check_writable`).
    """
    from mcrank.results import check_writable

    out = Path(out)
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                where = f"{out}" if path == out else f"{out}: {path}"
                raise ValueError(f"output directory {where} is a file, not a directory")
            break
    check_writable(out)
    return out


def reproduce(
    experiments="experiments",
    out="results",
    *,
    samples: int | None = None,
    force: bool = False,
    jobs: int = -1,
    figures: bool = True,
    quiet: bool = False,
    progress: bool = False,
) -> ReproduceReport:
    """Run every study of ``experiments``, then write crossover tables, samples and figures to ``out``.

    Parameters
    ----------
    experiments : path, default "experiments"
        Directory of experiment TOML files.
    out : path, default "results"
        Where ``<experiment>.csv``/``.json``, ``crossover.csv``/``.md``, ``samples/`` and
        ``figures/`` go; created if missing. A file there is an error before any study runs.
    samples : int, optional
        Override every study's number of samples (e.g. for a quick check).
    force : bool, default False
        Recompute studies whose results are already complete, and draw every sample and
        figure again.
    jobs : int, default -1
        Parallel jobs per study.
    figures : bool, default True
        Draw the samples and the figures.
    quiet, progress : bool
        Log lines on stderr unless quiet; progress bars if progress.
    """
    from mcrank.results import is_complete, read_study, write_study
    from mcrank.study import load_experiments
    from mcrank.study.samples import load_figure_settings

    start = time.perf_counter()
    studies = load_experiments(experiments, samples=samples)
    # Checked before any study runs, but only when the figures are drawn.
    figure_settings = load_figure_settings(experiments) if figures else None
    out = check_out_directory(out)
    report = ReproduceReport()
    for number, experiment in enumerate(studies, 1):
        label = f"[{number}/{len(studies)}] {experiment.name}"
        if not force and is_complete(out, experiment.name, experiment.config):
            _log(f"{label}: up to date, skipped", quiet)
            report.skipped.append(experiment.name)
            continue
        from mcrank.engine import run_study  # here: a run with every study up to date needs no engine

        _log(f"{label}: {experiment.config.samples:,} pairs, {len(experiment.config.sds)} sd(s)...", quiet)
        result = run_study(experiment.config, jobs=jobs, progress=progress)
        report.files += write_study(result, out, experiment.name, description=experiment.description, source=str(experiment.path))
        report.ran.append(experiment.name)
        _log(f"{label}: done in {result.wall_time:.1f} s", quiet)
    documents = {e.name: read_study(out / f"{e.name}.json") for e in studies}
    report.files += write_crossovers(documents, out)
    if figures:
        _log("figures...", quiet)
        draw_figures(documents, out, figure_settings, force=force, quiet=quiet, report=report)
    report.wall_time = time.perf_counter() - start
    _log(f"reproduce: {len(report.ran)} run, {len(report.skipped)} skipped, {report.wall_time:.1f} s; results in {out}", quiet)
    return report


#: The paper's distributions of two-class utility matrices, on the hexagon (fig. 7's panels).
_HEXAGON = ("uniform", "gaussian")


def _all_sweeps(documents: dict) -> dict:
    """The population studies (no finite test set) with a grid of sds (two or more), as
    ``{(classes, true_um, error): (name, document)}``; one each, as :func:`load_experiments`
    checked."""
    return {
        (document["config"].get("classes", 2), document["config"]["true_um"], document["config"]["error"]): (name, document)
        for name, document in documents.items()
        if len(document["config"]["sds"]) >= 2 and document["config"].get("test_size") is None and _kind(document) == "confusion"
    }


def _kind(document: dict) -> str:
    """The study kind of a results document (records of the confusion kind name none)."""
    return document["config"].get("kind", "confusion")


def _roc_sweeps(documents: dict) -> dict:
    """The sweeps of the roc study with B ~ Uniform(0, 1), ``{(true_um, error): (name, document)}``."""
    return {
        (document["config"]["true_um"], document["config"]["error"]): (name, document)
        for name, document in sorted(documents.items())
        if _kind(document) == "roc" and len(document["config"]["sds"]) >= 2 and document["config"]["prevalence"] is None
    }


def _roc_prevalences(documents: dict) -> dict:
    """The roc studies at a fixed prevalence, ``{error: {B: rows}}``, B ascending."""
    by_error: dict = {}
    for document in documents.values():
        config = document["config"]
        if _kind(document) == "roc" and config["prevalence"] is not None:
            by_error.setdefault(config["error"], {})[config["prevalence"]] = document["rows"]
    return {error: dict(sorted(rows.items())) for error, rows in sorted(by_error.items())}


def _sweeps(documents: dict) -> dict:
    """The paper's sweeps (two classes, the hexagon), as ``{(true_um, error): (name, document)}``."""
    return {(true_um, error): value for (classes, true_um, error), value in _all_sweeps(documents).items() if classes == 2 and true_um in _HEXAGON}


def _class_sweeps(documents: dict) -> dict:
    """The sweeps of the n-class study, ``{(true_um, error): {classes: document}}``: every
    distribution but the paper's, by the number of classes."""
    sweeps: dict = {}
    for (classes, true_um, error), (_, document) in _all_sweeps(documents).items():
        if true_um not in _HEXAGON:
            sweeps.setdefault((true_um, error), {})[classes] = document
    return {key: dict(sorted(value.items())) for key, value in sorted(sweeps.items())}


def write_crossovers(documents: dict, out) -> list[Path]:
    """``crossover.csv`` and ``crossover.md``: one table per sweep, the paper's first (per
    true-UM distribution and error model), then the n-class study's (per error model and
    number of classes).

    Both say where their numbers come from: each row of the CSV names its study, with its seed,
    samples, and the date and mcrank version of its run; the Markdown says the same, with the
    numpy and numba versions, above each table. The studies' JSON files hold the rest
    (every parameter, the versions of the run). Nothing here depends on when the tables are
    written, so rewriting them from unchanged studies changes no byte.
    """
    import csv
    import io

    from mcrank.crossover import crossover_markdown, crossover_table
    from mcrank.results import atomic_write_text

    sweeps = _all_sweeps(documents)
    roc_sweeps = _roc_sweeps(documents)
    if not sweeps and not roc_sweeps:
        return []
    fields = ("classes", "true_um", "error", "metric", "incorrect_pct", "se_pct", "crossover_sd", "crossover_se", "crossover_realised_sd", "status", "se_method")
    fields += ("experiment", "seed", "samples", "date", "version")  # the study the row comes from, and its run
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    markdown = [
        "# Crossover: the error sd at which the perturbed utility matrix is as unreliable as each metric",
        "",
        "Linear interpolation of the sweep; ± is a delete-a-batch jackknife standard error.",
        "Each table names the study it comes from, whose JSON file gives all its parameters and how",
        "it was run.",
        "",
    ]
    order = sorted(sweeps, key=lambda key: (key[1] not in _HEXAGON, key[2], key[0], key[1]))
    # The roc study's sweeps last: one table per true-UM distribution and error model.
    tables = [(key, *sweeps[key], None) for key in order]
    tables += [((2, true_um, error), name, document, "scoring classifiers (ROC)") for (true_um, error), (name, document) in roc_sweeps.items()]
    for (classes, true_um, error), name, document, kind in tables:
        config = document["config"]
        table = crossover_table(document["rows"], batches=document.get("batches"))
        versions = document.get("versions") or {}
        study = {"experiment": name, "seed": config["seed"], "samples": config["samples"], "date": document.get("date", ""), "version": config.get("version", "")}
        for row in table:
            writer.writerow({"classes": classes, "true_um": true_um, "error": error, **{k: "" if v is None else v for k, v in row.items()}, **study})
        sds = config["sds"]
        note = (
            f"From `{name}.json`: seed {config['seed']}, {config['samples']:,} pairs, {len(sds)} sds from {min(sds):g} to "
            f"{max(sds):g}; run on {document.get('date', 'an unrecorded date')} by mcrank {config.get('version', '?')} "
            f"(numpy {versions.get('numpy', '?')}, numba {versions.get('numba', '?')})."
        )
        title = f"{true_um} true utility matrices, {error} errors"
        names = None
        if kind is not None:
            from mcrank.roc import ROC_SCORES

            names = {score.id: score.name for score in ROC_SCORES.values()}
            tied = document["rows"][0]["tied_pct"]
            title = f"{kind}, {title}, B ~ Uniform(0, 1)"
            note += f" {tied:.2f} % of the pairs are tied in truth and left out of every percentage."
        elif true_um not in _HEXAGON:
            title = f"{classes} classes, {title}"
        markdown.append(crossover_markdown(table, title=title, note=note, names=names))
    out = Path(out)
    return [atomic_write_text(out / "crossover.csv", buffer.getvalue()), atomic_write_text(out / "crossover.md", "\n".join(markdown))]



# --- samples and figures ---------------------------------------------------------------------


class _Interrupts:
    """Ctrl-C (or SIGTERM) while samples and figures are drawn stops the run, even when it
    lands where Python cannot raise it.

    matplotlib keeps WeakSets, whose callbacks run during garbage collection; a
    KeyboardInterrupt raised inside one is printed ("Exception ignored in ...") and dropped,
    and the run would carry on and exit 0. While this context is active, each signal's
    handler notes the signal before handling it as before, and :meth:`check`, called after
    each sample and figure, hands a signal whose exception was dropped to its handler again.
    Handlers can only be set from the main thread, and only those already handled in Python
    are wrapped (an ignored signal stays ignored).
    """

    def __init__(self) -> None:
        self._previous: dict = {}
        self._pending: list[int] = []

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                previous = signal.getsignal(signum)
                if callable(previous):
                    self._previous[signum] = previous
                    signal.signal(signum, self._handler)
        return self

    def __exit__(self, *exc_info) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)

    def _handler(self, signum, frame) -> None:
        self._pending.append(signum)
        self._previous[signum](signum, frame)

    def check(self) -> None:
        """Raise again (KeyboardInterrupt for SIGINT) a signal whose exception was dropped."""
        if self._pending:
            signum = self._pending[0]
            self._pending.clear()
            self._previous[signum](signum, None)


@dataclass(frozen=True)
class _FigureJob:
    """One figure file to draw: its name, the module of :mod:`mcrank.figures` that draws it,
    the data it draws (as JSON, for its digest) and ``draw(mcrank.figures) -> Figure``, which
    reads that data from disk."""

    name: str
    module: str
    data: object
    draw: Callable


#: The module of :mod:`mcrank.figures` that draws each kind of sample.
_SAMPLE_FIGURES = {"rates": "yield_vs_metric", "true_um": "fig4_true_um", "perturbations": "fig5_perturbation", "pairs": "fig6_pairs"}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _figure_jobs(documents: dict, records: dict, samples_directory: Path) -> list[_FigureJob]:
    """The figures: fig. 1, one figure per sample (figs 2-5 and one fig. 6 per single-sd
    study), fig. 7 if there are sweeps, fig. 8 if there are n-class sweeps, fig. 9 if there are
    finite test sets, fig. 10 if there is a roc study and fig. 11 if there are roc studies at
    fixed prevalences. ``records`` are the samples' records."""
    jobs = [_FigureJob("fig1_hexagon", "fig1_hexagon", None, lambda figures: figures.fig1_hexagon())]
    for name, record in records.items():
        kind = record["settings"]["kind"]
        data = record
        if kind == "pairs":  # and the percentages of the study, in the titles
            data = {"sample": record, "rows": documents[name]["rows"], "sd": float(record["settings"]["config"]["sds"][0])}
        jobs.append(_FigureJob(name, _SAMPLE_FIGURES[kind], data, partial(_draw_sample, samples_directory, name, data)))
    sweeps = _sweeps(documents)
    if sweeps:
        rows = {key: document["rows"] for key, (_, document) in sweeps.items()}
        data = {f"{true_um}/{error}": r for (true_um, error), r in sorted(rows.items())}
        jobs.append(_FigureJob("fig7_sweep", "fig7_sweep", data, lambda figures: figures.fig7_sweep(rows)))
    if class_sweeps := _class_sweeps(documents):
        jobs.append(_class_figure_job(class_sweeps))
    if panels := _test_size_panels(documents):
        data = {title: {"studies": {str(n): r for n, r in studies.items()}, "population": population} for title, (studies, population) in panels.items()}
        jobs.append(_FigureJob("fig9_test_size", "fig9_test_size", data, lambda figures: figures.fig9_test_size(panels)))
    if any(_kind(document) == "roc" for document in documents.values()):
        example = _roc_example()
        jobs.append(_FigureJob("fig10_roc_tangents", "fig10_roc_tangents", example, lambda figures: figures.fig10_roc_tangents(**example)))
    if prevalences := _roc_prevalences(documents):
        from mcrank.roc import ROC_SCORES

        names = {score.id: score.name for score in ROC_SCORES.values()}
        data = {"studies": {e: {format(b, "g"): rows for b, rows in by_b.items()} for e, by_b in prevalences.items()}, "names": names}
        jobs.append(_FigureJob("fig11_roc_prevalence", "fig11_roc_prevalence", data, lambda figures: figures.fig11_roc_prevalence(prevalences, names)))
    return jobs


#: The example of the published version's fig. 8 (its caption: the curve with the larger
#: area loses under U = [[4, 0], [0, 1]] at B = 0.5): two binormal classifiers, (mu, sigma).
ROC_EXAMPLE = {"utility": ((4.0, 0.0), (0.0, 1.0)), "prevalence": 0.5, "classifiers": {"A": (2.6, 2.0), "B": (1.3, 0.7)}}


def _roc_example() -> dict:
    """Fig. 10's data, in closed form (:mod:`mcrank.roc`): each curve, its area, its best
    operating point under the example's utility matrix, and the iso-utility lines of eq. (25)."""
    import math

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


def _class_figure_job(class_sweeps: dict) -> _FigureJob:
    """Fig. 8 from the n-class sweeps of the first element distribution: the rows and their
    crossover tables (jackknife SEs from the batches), computed here so that the figure only
    draws."""
    from mcrank.crossover import crossover_table

    true_um = next(iter(class_sweeps))[0]
    sweeps = {error: {n: d["rows"] for n, d in by_n.items()} for (t, error), by_n in class_sweeps.items() if t == true_um}
    crossovers = {
        error: {n: crossover_table(d["rows"], batches=d.get("batches")) for n, d in by_n.items()}
        for (t, error), by_n in class_sweeps.items()
        if t == true_um
    }
    data = {"sweeps": {e: {str(n): r for n, r in v.items()} for e, v in sweeps.items()}, "crossovers": {e: {str(n): t for n, t in v.items()} for e, v in crossovers.items()}}
    return _FigureJob("fig8_classes", "fig8_classes", data, lambda figures: figures.fig8_classes(sweeps, crossovers))


def _test_size_panels(documents: dict) -> dict:
    """The finite-test-set studies, one panel per setting (classes, true U, error model):
    ``{title: ({N: rows}, population rows or None)}``. The population is the study of the
    same setting without a test set, of the same seed if there is one."""
    def setting(config):
        return config.get("classes", 2), config["true_um"], config["error"]

    groups: dict = {}
    for document in documents.values():
        config = document["config"]
        if config.get("test_size") is not None and _kind(document) == "confusion":
            groups.setdefault(setting(config), {})[config["test_size"]] = document
    panels = {}
    for key, studies in sorted(groups.items()):
        seeds = {d["config"]["seed"] for d in studies.values()}
        candidates = [d for d in documents.values() if d["config"].get("test_size") is None and _kind(d) == "confusion" and setting(d["config"]) == key]
        population = next((d for d in candidates if d["config"]["seed"] in seeds), candidates[0] if candidates else None)
        classes, true_um, error = key
        title = f"{classes} classes, {true_um} true utility matrices, {error} errors ({studies[min(studies)]['config']['samples']:,} pairs per point)"
        panels[title] = ({n: d["rows"] for n, d in sorted(studies.items())}, None if population is None else population["rows"])
    return panels


def _draw_sample(directory: Path, name: str, data: dict, figures):
    """Figs 2-6 from their samples in ``directory`` (fig. 6 also from its study's rows)."""
    from mcrank.study.samples import read_pairs, read_sample

    if "rows" in data:
        return figures.fig6_pairs(read_pairs(directory, name), data["rows"], sd=data["sd"])
    arrays, record = read_sample(directory, name)
    settings = record["settings"]
    if settings["kind"] == "rates":
        return figures.fig_yield_vs_metric(settings["p"], arrays["tpr"], arrays["tnr"])
    if settings["kind"] == "true_um":
        return figures.fig4_true_um_gaussian(arrays["x"], arrays["y"], sd=settings["sd"])
    return figures.fig5_perturbation_cloud(arrays["perturbed"], centre=settings["centre"], sds=settings["sds"], errors=settings["errors"])


def _inputs_digest(job: _FigureJob, sources: dict) -> str:
    """SHA-256 of everything a figure's file depends on: its data, its module's source and
    the shared style's, and the matplotlib version that draws it."""
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


def _read_manifest(path: Path) -> dict:
    """The figures' recorded digests, or none if the manifest is missing or unreadable
    (then every figure is drawn again)."""
    try:
        figures = json.loads(path.read_text(encoding="utf-8"))["figures"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return figures if isinstance(figures, dict) else {}


def draw_figures(documents: dict, out, settings: dict, *, force: bool = False, quiet: bool = True, report: ReproduceReport | None = None) -> ReproduceReport:
    """The samples of figs 2-6 into ``out/samples``, then figs 1-11 (PNG and PDF) into
    ``out/figures``, each skipped when up to date (see the module docstring) unless ``force``.

    Parameters
    ----------
    documents : dict
        ``{experiment: results document}`` (:func:`mcrank.results.read_study`).
    out : path
        The results directory.
    settings : dict
        The figures' settings (:func:`mcrank.study.samples.load_figure_settings`).
    force : bool, default False
        Draw every sample and figure, up to date or not.
    quiet : bool, default True
    report : ReproduceReport, optional
        Where to add what was drawn and skipped; a new one by default.

    Returns
    -------
    ReproduceReport
    """
    from mcrank.results import atomic_write_text
    from mcrank.study.samples import is_up_to_date, plan_samples, read_record, write_sample

    report = ReproduceReport() if report is None else report
    out = Path(out)
    samples_directory, figures_directory = out / "samples", out / "figures"
    manifest_path = figures_directory / MANIFEST
    with _Interrupts() as interrupts:
        records = {}
        for sample in plan_samples(settings, documents):
            if not force and is_up_to_date(samples_directory, sample):
                _log(f"  sample {sample.name}: up to date, skipped", quiet)
                report.up_to_date.append(f"samples/{sample.name}")
            else:
                report.files += write_sample(samples_directory, sample)
                report.drawn.append(f"samples/{sample.name}")
                _log(f"  sample {sample.name}", quiet)
            interrupts.check()
            records[sample.name] = read_record(samples_directory, sample.name)

        manifest = _read_manifest(manifest_path)
        sources: dict = {}
        for job in _figure_jobs(documents, records, samples_directory):
            digest = _inputs_digest(job, sources)
            files = [figures_directory / f"{job.name}.{suffix}" for suffix in ("png", "pdf")]
            entry = manifest.get(job.name)
            if not force and isinstance(entry, dict) and entry.get("inputs") == digest and all(f.is_file() for f in files):
                _log(f"  {job.name}: up to date, skipped", quiet)
                report.up_to_date.append(f"figures/{job.name}")
                continue
            from mcrank import figures  # here: a run with every figure up to date needs no matplotlib

            with figures.paper_style():
                report.files += figures.save_figure(job.draw(figures), figures_directory, job.name)
            interrupts.check()  # before the manifest says the figure is done
            manifest[job.name] = {"inputs": digest, "module": f"mcrank.figures.{job.module}"}
            document = {
                "note": (
                    "What each figure was drawn from: the SHA-256 of its data, its module's source, the shared "
                    "style's and the matplotlib version. mcrank reproduce redraws a figure when it changes."
                ),
                "figures": dict(sorted(manifest.items())),
            }
            atomic_write_text(manifest_path, json.dumps(document, indent=1) + "\n")
            report.drawn.append(f"figures/{job.name}")
            _log(f"  {job.name}", quiet)
    if any(name.startswith("figures/") for name in report.drawn):
        report.files.append(manifest_path)
    return report
