"""Reproduce the paper: every study of ``experiments/``, the crossover tables and figs 1-11.

Data flows one way: experiment files -> study -> engine -> results on disk -> figures. This
module only orchestrates: it runs the studies (:func:`mcrank.engine.run_study`) and writes
``<experiment>.json``/``.csv`` (:mod:`mcrank.results`), then the paper wing
(:mod:`mcrank.paper`) writes the crossover tables, draws the small illustrative samples of
figs 2-6 into ``samples/`` (sized and seeded in ``experiments/figures.toml``) and has the
figures (:mod:`mcrank.figures`, one entry each in :data:`mcrank.paper.figures.FIGURES`) read
both and draw (``docs/method.md``, "Figures").

Each step is skipped when its output is on disk and up to date, so an interrupted run picks
up where it stopped and a second run with nothing changed only checks:

- a study whose results file holds exactly its config and seed;
- a sample whose record holds the same seed and settings, next to its data;
- a figure whose PNG and PDF exist and whose inputs (the data it draws, the source of its
  module and of the shared style, the matplotlib version) have the digest recorded in
  ``figures/manifest.json``.

``force`` redoes all three; a study or sample drawn again with the same numbers keeps its
files (and their dates). Into the repository's own ``results/``, only a full reproduce of its
``experiments/`` writes, and from a tree with uncommitted changes only when allowed
(:mod:`mcrank.paper.committed`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcrank._signals import say

__all__ = ["ReproduceReport", "check_out_directory", "draw_figures", "reproduce", "write_crossovers"]


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
        say(message)


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
    allow_dirty: bool = False,
) -> ReproduceReport:
    """Run every study of ``experiments``, then write crossover tables, samples and figures to ``out``.

    Parameters
    ----------
    experiments : path, default "experiments"
        Directory of experiment TOML files.
    out : path, default "results"
        Where ``<experiment>.csv``/``.json``, ``crossover.csv``/``.md``, ``samples/`` and
        ``figures/`` go; created if missing. A file there is an error before any study runs.
        Inside the repository's ``results/`` or ``experiments/``, only ``results/`` itself,
        for its own ``experiments/`` at their sizes (:mod:`mcrank.paper.committed`).
    samples : int, optional
        Override every study's number of samples (e.g. for a quick check).
    force : bool, default False
        Recompute studies whose results are already complete, and draw every sample and
        figure again. Files whose numbers come out the same are kept as they are.
    jobs : int, default -1
        Parallel jobs: studies side by side, the costliest first, each on one core (a single
        study on all of them). Counts do not depend on it.
    figures : bool, default True
        Draw the samples and the figures.
    quiet, progress : bool
        Log lines on stderr unless quiet; progress bars if progress.
    allow_dirty : bool, default False
        Write into the repository's ``results/`` even from a tree with uncommitted changes
        (what is written records ``"modified": true``, and a warning says so).

    Raises
    ------
    mcrank.paper.committed.CommittedResultsError
        For a write into the repository's committed results that the rule refuses, before
        anything is written.
    """
    from mcrank.paper.committed import DirtyTreeGate, check_destination
    from mcrank.paper.samples import load_figure_settings
    from mcrank.results import is_complete, read_study, write_study
    from mcrank.study import load_experiments

    start = time.perf_counter()
    studies = load_experiments(experiments, samples=samples)
    # Checked before any study runs, but only when the figures are drawn.
    figure_settings = load_figure_settings(experiments) if figures else None
    # The committed-results rule first: a refused run touches nothing, not even with the
    # writability probe of check_out_directory.
    committed = check_destination(experiments, Path(out), samples=samples)
    out = check_out_directory(out)
    before_write = DirtyTreeGate(allow_dirty=allow_dirty) if committed else None
    report = ReproduceReport()
    to_run = []
    for number, experiment in enumerate(studies, 1):
        if not force and is_complete(out, experiment.name, experiment.config):
            _log(f"[{number}/{len(studies)}] {experiment.name}: up to date, skipped", quiet)
            report.skipped.append(experiment.name)
            continue
        if before_write is not None:
            before_write(out / f"{experiment.name}.json")  # before any study runs, not after
        to_run.append((number, experiment))
    if to_run:
        from mcrank._jit import kernels_cached

        if sys.stderr.isatty() and not kernels_cached():  # a terminal's first run
            _log("compiling the kernels (first run after an install or a change, tens of seconds)...", quiet)

    def finish(number, experiment, result, sibling=None):
        report.files.extend(
            write_study(result, out, experiment.name, description=experiment.description, source=str(experiment.path), keep_same=True)
        )
        report.ran.append(experiment.name)
        shared = f" (score rows of {sibling.name})" if sibling is not None else ""
        _log(f"[{number}/{len(studies)}] {experiment.name}: done in {result.wall_time:.1f} s{shared}", quiet)

    _run_studies(to_run, len(studies), jobs=jobs, quiet=quiet, progress=progress, finish=finish)
    order = {experiment.name: k for k, experiment in enumerate(studies)}
    report.ran.sort(key=order.get)
    documents = {e.name: read_study(out / f"{e.name}.json") for e in studies}
    report.files += write_crossovers(documents, out, before_write=before_write)
    if figures:
        _log("figures...", quiet)
        draw_figures(documents, out, figure_settings, force=force, quiet=quiet, report=report, before_write=before_write)
    report.wall_time = time.perf_counter() - start
    _log(f"reproduce: {len(report.ran)} run, {len(report.skipped)} skipped, {report.wall_time:.1f} s; results in {out}", quiet)
    return report


def _cost(config, scores: bool = True) -> float:
    """A study's rough cost, to start the costliest first: its pairs times their work, each
    metric's (unless its score rows are a sibling's) and, where the errors are drawn, each
    sd's perturbation of an n x n matrix."""
    from mcrank.estimators import ESTIMATORS

    drawn = not ESTIMATORS[config.estimator_used].needs_closed_form
    return config.samples * (scores * len(config.metrics) + drawn * len(config.sds) * config.classes**2)


def _run_studies(to_run: list, total: int, *, jobs: int, quiet: bool, progress: bool, finish) -> None:
    """Run the studies ``to_run`` (``(number, experiment)``) and hand each result to
    ``finish(number, experiment, result, sibling)`` in this thread as soon as it is done.

    Sibling studies among them (:func:`mcrank.engine.score_siblings`: equal but for their
    errors) share their score rows: the first is run in full, the others without their scores
    (``sibling``: the experiment whose score rows they take), each result then equal to its
    study's run alone. The siblings run at the same time; one without its scores is handed to
    ``finish`` when its sibling in full is done too.

    On more than one core the studies run side by side, one per core, the costliest first
    (:func:`_cost`), so that no core idles while another finishes a long study (a study cut
    into a few unequal chunks would leave one idle); every study's counts are the same on any
    number of cores. Threads suffice: the kernels release the GIL. The progress bars of studies
    side by side would overwrite each other, so there each study says when it starts and ends.
    If one study fails or the run is interrupted, every study that had finished is handed to
    ``finish`` first (one without its scores only if its sibling had finished), and the ones
    not started never start.
    """
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    import joblib

    import mcrank.engine  # here: a run with every study up to date needs no engine
    from mcrank.engine import score_siblings, with_scores

    shared = score_siblings([experiment.config for _, experiment in to_run])
    scored: dict[int, object] = {}  # the results of the studies run in full whose siblings wait for them
    unscored: dict[int, object] = {}  # the results of the studies run without their scores, waiting

    def run(index, study_jobs, study_progress):
        number, experiment = to_run[index]
        without = "" if shared[index] is None else ", score rows shared"
        _log(
            f"[{number}/{total}] {experiment.name}: {experiment.config.samples:,} pairs, {len(experiment.config.sds)} sd(s){without}...",
            quiet,
        )
        return mcrank.engine.run_study(experiment.config, jobs=study_jobs, progress=study_progress, scores=shared[index] is None)

    def done(index, result):
        number, experiment = to_run[index]
        first = shared[index]
        if first is None:
            finish(number, experiment, result)
            if index in shared:
                scored[index] = result
        elif first in scored:
            finish(number, experiment, with_scores(experiment.config, result, scored[first]), to_run[first][1])
            return
        else:
            unscored[index] = result
            return
        for sibling in sorted(k for k in unscored if shared[k] == index):
            _, sibling_experiment = to_run[sibling]
            finish(
                to_run[sibling][0], sibling_experiment, with_scores(sibling_experiment.config, unscored.pop(sibling), result), experiment
            )

    workers = min(joblib.effective_n_jobs(jobs), len(to_run))
    if workers <= 1:
        for index in range(len(to_run)):  # a study in full before its siblings (score_siblings)
            done(index, run(index, jobs, progress))
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="mcrank-study")
    order = sorted(range(len(to_run)), key=lambda k: -_cost(to_run[k][1].config, shared[k] is None))
    try:
        running = {pool.submit(run, index, 1, False): index for index in order}
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            failure = None
            for future in finished:
                index = running.pop(future)
                if future.exception() is None:
                    done(index, future.result())
                else:
                    failure = failure or future.exception()
            if failure is not None:
                raise failure
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def write_crossovers(documents: dict, out, *, before_write=None) -> list[Path]:
    """``crossover.csv`` and ``crossover.md`` of the sweeps of ``documents``
    (:func:`mcrank.paper.crossover.write_crossovers`)."""
    from mcrank.paper.crossover import write_crossovers

    return write_crossovers(documents, out, before_write=before_write)


def draw_figures(
    documents: dict,
    out,
    settings: dict,
    *,
    force: bool = False,
    quiet: bool = True,
    report: ReproduceReport | None = None,
    before_write=None,
) -> ReproduceReport:
    """The samples of figs 2-6 into ``out/samples``, then figs 1-11 (PNG and PDF) into
    ``out/figures``, each skipped when up to date (see the module docstring) unless ``force``.

    Parameters
    ----------
    documents : dict
        ``{experiment: results document}`` (:func:`mcrank.results.read_study`).
    out : path
        The results directory.
    settings : dict
        The figures' settings (:func:`mcrank.paper.samples.load_figure_settings`).
    force : bool, default False
        Draw every sample and figure, up to date or not.
    quiet : bool, default True
    report : ReproduceReport, optional
        Where to add what was drawn and skipped; a new one by default.
    before_write : callable, optional
        Called with a path before anything is written there; it may refuse by raising.

    Returns
    -------
    ReproduceReport
    """
    from mcrank.paper import figures as paper_figures
    from mcrank.paper._interrupts import Interrupts
    from mcrank.paper.samples import is_up_to_date, plan_samples, read_record, write_sample

    report = ReproduceReport() if report is None else report
    out = Path(out)
    samples_directory, figures_directory = out / "samples", out / "figures"
    manifest_path = figures_directory / paper_figures.MANIFEST
    with Interrupts() as interrupts:
        records = {}
        for sample in plan_samples(settings, documents):
            if not force and is_up_to_date(samples_directory, sample):
                _log(f"  sample {sample.name}: up to date, skipped", quiet)
                report.up_to_date.append(f"samples/{sample.name}")
            else:
                report.files += write_sample(samples_directory, sample, before_write=before_write)
                report.drawn.append(f"samples/{sample.name}")
                _log(f"  sample {sample.name}", quiet)
            interrupts.check()
            records[sample.name] = read_record(samples_directory, sample.name)

        manifest = paper_figures.read_manifest(manifest_path)
        sources: dict = {}
        for job in paper_figures.figure_jobs(documents, records, samples_directory):
            digest = paper_figures.inputs_digest(job, sources)
            files = [figures_directory / f"{job.name}.{suffix}" for suffix in ("png", "pdf")]
            entry = manifest.get(job.name)
            if not force and isinstance(entry, dict) and entry.get("inputs") == digest and all(f.is_file() for f in files):
                _log(f"  {job.name}: up to date, skipped", quiet)
                report.up_to_date.append(f"figures/{job.name}")
                continue
            if before_write is not None:
                before_write(files[0])
            report.files += paper_figures.draw(job, figures_directory)
            interrupts.check()  # before the manifest says the figure is done
            manifest[job.name] = {"inputs": digest, "module": f"mcrank.figures.{job.module}"}
            paper_figures.write_manifest(manifest_path, manifest)
            report.drawn.append(f"figures/{job.name}")
            _log(f"  {job.name}", quiet)
    if any(name.startswith("figures/") for name in report.drawn):
        report.files.append(manifest_path)
    return report
