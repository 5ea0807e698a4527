"""Reproduce the paper: every study of ``experiments/``, the crossover tables and figs 1-7.

Data flows one way: experiment files -> engine -> results files -> figures. Figures read
the results files (and draw only their own small illustrative samples, sized and seeded in
``experiments/figures.toml``). A study whose results are on disk with exactly its config and
seed is skipped, so an interrupted run picks up where it stopped.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = ["FIGURE_SETTINGS", "ReproduceReport", "reproduce"]

#: The file of ``experiments/`` that holds the figures' settings rather than a study.
FIGURE_SETTINGS = "figures.toml"

_FIGURE_DEFAULTS = {"seed": 20220519, "yield_vs_metric_matrices": 300, "true_um_samples": 3000, "perturbation_samples": 2000, "pairs": 3000}

#: The most points a figure setting may ask for: the figures plot every point they draw.
MAX_FIGURE_SAMPLES = 10**6

#: The smallest value of each figure setting: figs 2 and 3 compare pairs of matrices.
_FIGURE_MINIMA = {"seed": 0, "yield_vs_metric_matrices": 2, "true_um_samples": 1, "perturbation_samples": 1, "pairs": 1}


@dataclass
class ReproduceReport:
    """What a reproduce run did: studies run and skipped, files written, wall time."""

    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    wall_time: float = 0.0


def _log(message: str, quiet: bool) -> None:
    if not quiet:
        print(message, file=sys.stderr, flush=True)


def load_experiments(directory, *, samples: int | None = None) -> list:
    """Every study file of ``directory``, validated before anything runs."""
    from mcrank.study import load_experiment

    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"{directory}: no such experiments directory")
    paths = sorted(p for p in directory.glob("*.toml") if p.name != FIGURE_SETTINGS)
    if not paths:
        raise ValueError(f"{directory}: no experiment files (*.toml)")
    experiments = [load_experiment(path, samples=samples) for path in paths]
    sweeps: dict = {}
    for experiment in experiments:
        config = experiment.config
        if config.seed is None:
            raise ValueError(f"{experiment.path}: key 'seed' is missing; a reproducible study needs one")
        key = (config.true_um, config.error)
        if len(config.sds) >= 2 and sweeps.setdefault(key, experiment.name) != experiment.name:
            raise ValueError(
                f"{sweeps[key]} and {experiment.name} are both sweeps of {key[0]} true utility matrices "
                f"with {key[1]} errors: keep one"
            )
    return experiments


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


def load_figure_settings(directory) -> dict:
    """The figures' sample sizes and seed from ``figures.toml`` (defaults where absent).

    Every value is checked here, before any study runs, against what the figures need:
    ``seed`` a non-negative whole number, ``yield_vs_metric_matrices`` from 2 (figs 2 and 3
    rank pairs of matrices), the other sizes from 1; sizes at most
    :data:`MAX_FIGURE_SAMPLES`.

    Raises
    ------
    ValueError
        Naming the file and the key, for a file that is not UTF-8 TOML, an unknown key or a
        bad value.
    """
    from mcrank.study import read_toml

    path = Path(directory) / FIGURE_SETTINGS
    settings = dict(_FIGURE_DEFAULTS)
    if path.exists() or path.is_symlink():  # a directory or a dangling link is an error, not "absent"
        values = read_toml(path)
        unknown = sorted(set(values) - set(settings))
        if unknown:
            raise ValueError(f"{path}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(settings))}")
        for key, value in values.items():
            lowest = _FIGURE_MINIMA[key]
            highest = None if key == "seed" else MAX_FIGURE_SAMPLES
            if isinstance(value, bool) or not isinstance(value, int) or value < lowest or (highest is not None and value > highest):
                allowed = "a non-negative whole number" if highest is None else f"a whole number from {lowest:,} to {highest:,}"
                raise ValueError(f"{path}: key {key!r} must be {allowed}, got {value!r}")
        settings.update(values)
    return settings


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
    """Run every study of ``experiments``, then write crossover tables and figures to ``out``.

    Parameters
    ----------
    experiments : path, default "experiments"
        Directory of experiment TOML files.
    out : path, default "results"
        Where ``<experiment>.csv``/``.json``, ``crossover.csv``/``.md`` and ``figures/`` go;
        created if missing. A file there is an error before any study runs.
    samples : int, optional
        Override every study's number of samples (e.g. for a quick check).
    force : bool, default False
        Recompute studies whose results are already complete.
    jobs : int, default -1
        Parallel jobs per study.
    figures : bool, default True
        Draw the figures.
    quiet, progress : bool
        Log lines on stderr unless quiet; progress bars if progress.
    """
    from mcrank.engine import run_study
    from mcrank.results import is_complete, read_study, write_study

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
        _log(f"{label}: {experiment.config.samples:,} pairs, {len(experiment.config.sds)} sd(s)...", quiet)
        result = run_study(experiment.config, jobs=jobs, progress=progress)
        report.files += write_study(result, out, experiment.name, description=experiment.description, source=str(experiment.path))
        report.ran.append(experiment.name)
        _log(f"{label}: done in {result.wall_time:.1f} s", quiet)
    documents = {e.name: read_study(out / f"{e.name}.json") for e in studies}
    report.files += write_crossovers(documents, out)
    if figures:
        _log("figures...", quiet)
        report.files += draw_figures(documents, out / "figures", figure_settings, quiet=quiet)
    report.wall_time = time.perf_counter() - start
    _log(f"reproduce: {len(report.ran)} run, {len(report.skipped)} skipped, {report.wall_time:.1f} s; results in {out}", quiet)
    return report


def _sweeps(documents: dict) -> dict:
    """The studies with a grid of sds (two or more), as ``{(true_um, error): (name, document)}``;
    one each, as :func:`load_experiments` checked."""
    return {
        (document["config"]["true_um"], document["config"]["error"]): (name, document)
        for name, document in documents.items()
        if len(document["config"]["sds"]) >= 2
    }


def write_crossovers(documents: dict, out) -> list[Path]:
    """``crossover.csv`` and ``crossover.md``: one table per true-UM distribution and error model.

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

    sweeps = _sweeps(documents)
    if not sweeps:
        return []
    fields = ("true_um", "error", "metric", "incorrect_pct", "se_pct", "crossover_sd", "crossover_se", "crossover_realised_sd", "status", "se_method")
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
    for (true_um, error), (name, document) in sorted(sweeps.items()):
        config = document["config"]
        table = crossover_table(document["rows"], batches=document.get("batches"))
        versions = document.get("versions") or {}
        study = {"experiment": name, "seed": config["seed"], "samples": config["samples"], "date": document.get("date", ""), "version": config.get("version", "")}
        for row in table:
            writer.writerow({"true_um": true_um, "error": error, **{k: "" if v is None else v for k, v in row.items()}, **study})
        sds = config["sds"]
        note = (
            f"From `{name}.json`: seed {config['seed']}, {config['samples']:,} pairs, {len(sds)} sds from {min(sds):g} to "
            f"{max(sds):g}; run on {document.get('date', 'an unrecorded date')} by mcrank {config.get('version', '?')} "
            f"(numpy {versions.get('numpy', '?')}, numba {versions.get('numba', '?')})."
        )
        markdown.append(crossover_markdown(table, title=f"{true_um} true utility matrices, {error} errors", note=note))
    out = Path(out)
    return [atomic_write_text(out / "crossover.csv", buffer.getvalue()), atomic_write_text(out / "crossover.md", "\n".join(markdown))]


def draw_figures(documents: dict, directory, settings: dict, *, quiet: bool = True) -> list[Path]:
    """Figures 1-7 of the paper, as PNG and PDF in ``directory``."""
    import numpy as np

    from mcrank import figures
    from mcrank._rng import spawn_generators
    from mcrank.engine import sample_pairs
    from mcrank.study import StudyConfig

    rngs = dict(zip(("fig2", "fig3", "fig4", "fig5", "fig6"), spawn_generators(settings["seed"], 5)))
    drawn: list[Path] = []

    def save(figure, name):
        drawn.extend(figures.save_figure(figure, directory, name))
        _log(f"  {name}", quiet)

    with figures.paper_style():
        save(figures.fig1_hexagon(), "fig1_hexagon")
        save(figures.fig_yield_vs_metric(0.5, n=settings["yield_vs_metric_matrices"], rng=rngs["fig2"]), "fig2_yield_vs_metric_p50")
        save(figures.fig_yield_vs_metric(0.9, n=settings["yield_vs_metric_matrices"], rng=rngs["fig3"]), "fig3_yield_vs_metric_p90")
        save(figures.fig4_true_um_gaussian(n=settings["true_um_samples"], rng=rngs["fig4"]), "fig4_true_um_gaussian")
        save(figures.fig5_perturbation_cloud(n=settings["perturbation_samples"], rng=rngs["fig5"]), "fig5_perturbation_cloud")
        for name, document in documents.items():
            config = document["config"]
            if len(config["sds"]) != 1:
                continue
            study = StudyConfig.from_dict({k: v for k, v in config.items() if k != "version"})
            pairs = sample_pairs(settings["pairs"], replace(study, samples=1), rng=rngs["fig6"])
            save(figures.fig6_pairs(pairs, document["rows"], sd=float(np.asarray(config["sds"])[0])), name)
        sweeps = _sweeps(documents)
        if sweeps:
            save(figures.fig7_sweep({key: document["rows"] for key, (_, document) in sweeps.items()}), "fig7_sweep")
    return drawn
