"""`mcrank reproduce`: every results file and figure, resuming, and bad experiment files."""

import csv
import importlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from csv_parts import csv_parts
from dropped_interrupt import drop_an_interrupt

import mcrank.engine
import mcrank.results
from mcrank._rng import spawn_generators
from mcrank.cli import main
from mcrank.paper.samples import load_figure_settings, plan_samples, read_pairs, read_sample, write_sample
from mcrank.reproduce import reproduce
from mcrank.samplers import sample_rates

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
STUDIES = ["fig6_uniform", "fig7_gaussian_gaussian", "fig7_gaussian_truncated", "fig7_uniform_gaussian", "fig7_uniform_truncated"]
STUDIES += [f"nclass_{error}_n{n:02d}" for error in ("gaussian", "truncated") for n in range(2, 11)]
STUDIES += [f"roc_b{b:03d}_{e}" for b in (1, 5, 10, 20, 50) for e in ("gaussian", "truncated")]
STUDIES += [f"probabilities_uniform_{e}" for e in ("gaussian", "truncated")]
STUDIES += [f"roc_{t}_{e}" for t in ("gaussian", "uniform") for e in ("gaussian", "truncated")]
STUDIES += [f"testset_{c}class_{n:05d}" for c in (2, 3) for n in (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)]
#: The samples of figs 2-6, in results/samples/.
SAMPLES = ["fig2_yield_vs_metric_p50", "fig3_yield_vs_metric_p90", "fig4_true_um_gaussian", "fig5_perturbation_cloud", "fig6_uniform"]
FIGURES = [
    "fig1_hexagon",
    "fig2_yield_vs_metric_p50",
    "fig3_yield_vs_metric_p90",
    "fig4_true_um_gaussian",
    "fig5_perturbation_cloud",
    "fig6_uniform",
    "fig7_sweep",
    "fig8_classes",
    "fig9_test_size",
    "fig10_roc_tangents",
    "fig11_roc_prevalence",
    "fig12_probabilities",
]
#: The roc study's results files (its rows are scores of scoring classifiers, not metrics).
ROC_STUDIES = [name for name in STUDIES if name.startswith("roc_")]
#: The probabilities study's (its rows are scores of probabilistic classifiers).
PROBABILITY_STUDIES = [name for name in STUDIES if name.startswith("probabilities_")]

#: The names of the paper's seven metrics in the crossover tables.
CROSSOVER_METRICS = [
    "Accuracy",
    "F1 measure",
    "Fowlkes-Mallows index",
    "Matthews correlation coefficient",
    "Balanced accuracy",
    "Precision (PPV)",
    "True-positive rate (recall)",
]


@pytest.fixture()
def experiments(tmp_path):
    """The repository's experiment files, with small figure samples so the test is quick."""
    directory = tmp_path / "experiments"
    shutil.copytree(EXPERIMENTS, directory)
    (directory / "figures.toml").write_text(
        "seed = 3\nyield_vs_metric_matrices = 40\ntrue_um_samples = 200\nperturbation_samples = 200\npairs = 300\n"
    )
    return directory


@pytest.fixture()
def quick_encoder(monkeypatch):
    """Figures drawn in full but encoded cheaply: each PNG and PDF is its format's signature and
    a digest of what the figure holds (its axes' titles, labels, lines and points), so that the
    same figure gives the same bytes and another figure other bytes. These tests are about which
    files ``reproduce`` writes and when; matplotlib's encoding, two thirds of a figure's time, is
    tested where it matters: every figure saved for real from a results directory
    (tests/test_study_kinds.py) and the PDF's reproducible bytes (tests/test_figures.py)."""
    import hashlib

    from matplotlib.figure import Figure

    def savefig(self, buffer, format=None, **options):
        content = hashlib.sha256()
        for ax in self.axes:
            content.update(repr((ax.get_title(), ax.get_xlabel(), ax.get_ylabel())).encode())
            for line in ax.get_lines():
                content.update(np.asarray(line.get_xydata(), dtype=float).tobytes())
            for collection in ax.collections:
                content.update(np.asarray(collection.get_offsets(), dtype=float).tobytes())
        buffer.write({"png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-1.4\n"}[format] + content.hexdigest().encode())

    monkeypatch.setattr(Figure, "savefig", savefig)


def _no_temporary_files(directory: Path) -> bool:
    return not [p for p in directory.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]


@pytest.mark.slow
def test_reproduce_writes_every_result_and_figure(experiments, tmp_path, capsys, quick_encoder):
    out = tmp_path / "results"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "3000", "--quiet"])
    assert code == 0
    for name in STUDIES:
        made, rows = csv_parts((out / f"{name}.csv").read_text())
        assert rows and rows[0]["name"] == ("auc" if name in ROC_STUDIES else "brier" if name in PROBABILITY_STUDIES else "accuracy")
        document = json.loads((out / f"{name}.json").read_text())
        assert document["config"]["samples"] == 3000 and document["config"]["seed"] is not None
        assert document["versions"]["numpy"] and document["date"] and document["wall_time"] >= 0
        assert len(document["rows"]) == len(rows)
        # The CSV says how it was made on its own, as the JSON does.
        assert made["experiment"] == name and made["seed"] == document["config"]["seed"]
        assert {k: made[k] for k in document["config"]} == document["config"]
        assert made["versions"] == document["versions"] and made["date"] == document["date"]
    for name in ROC_STUDIES:
        document = json.loads((out / f"{name}.json").read_text())
        assert document["config"]["kind"] == "roc" and [r["name"] for r in document["rows"]][:4] == [
            "auc",
            "best_accuracy",
            "best_youden",
            "best_f1",
        ]
        assert 0 < document["rows"][0]["tied_pct"] < 20 and document["rows"][0]["samples"] < 3000
    crossover = list(csv.DictReader(io.StringIO((out / "crossover.csv").read_text())))
    roc = [r for r in crossover if r["experiment"].startswith("roc_")]
    probabilities = [r for r in crossover if r["experiment"].startswith("probabilities_")]
    crossover = [r for r in crossover if not r["experiment"].startswith(("roc_", "probabilities_"))]
    assert {r["experiment"] for r in probabilities} == set(PROBABILITY_STUDIES)
    assert {r["metric"] for r in probabilities} == {"brier", "log_loss", "accuracy"}
    paper = {(t, e) for t in ("uniform", "gaussian") for e in ("gaussian", "truncated")}
    assert {(r["true_um"], r["error"]) for r in crossover if r["classes"] == "2"} == paper | {
        ("uniform-elements", e) for e in ("gaussian", "truncated")
    }
    # One crossover table per roc sweep (B ~ Uniform(0, 1)), after the others.
    assert {r["experiment"] for r in roc} == {f"roc_{t}_{e}" for t, e in paper}
    assert {r["metric"] for r in roc} == {"auc", "best_accuracy", "best_youden", "best_f1", "hmeasure", "auprc"}
    # ... and one table per number of classes of the n-class study, 2 to 10, per error model.
    n_class = {(int(r["classes"]), r["error"]) for r in crossover if r["true_um"] == "uniform-elements"}
    assert n_class == {(n, e) for n in range(2, 11) for e in ("gaussian", "truncated")}
    markdown = (out / "crossover.md").read_text()
    assert "### uniform true utility matrices, gaussian errors" in markdown
    assert "### 10 classes, uniform-elements true utility matrices, truncated errors" in markdown
    assert "### scoring classifiers (ROC), uniform true utility matrices, gaussian errors, B ~ Uniform(0, 1)" in markdown
    _check_crossover_provenance(out, [r for r in crossover if r["true_um"] in ("uniform", "gaussian")])
    for name in FIGURES:
        png = out / "figures" / f"{name}.png"
        pdf = out / "figures" / f"{name}.pdf"
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name
        assert pdf.read_bytes().startswith(b"%PDF"), name
    assert _no_temporary_files(out)
    _check_nothing_is_drawn_twice(experiments, out)


def _files(directory: Path) -> dict:
    return {p.relative_to(directory): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_the_committed_results_are_up_to_date_so_reproduce_in_a_fresh_clone_changes_nothing(tmp_path):
    """``mcrank reproduce`` over a copy of ``results/`` (new files, new times, as a clone has
    them) finds every study, sample and figure up to date: it runs and draws nothing and changes
    no byte. Fails when a source that a figure's digest covers changed without the results being
    regenerated."""
    out = tmp_path / "results"
    shutil.copytree(EXPERIMENTS.parent / "results", out, copy_function=shutil.copyfile)
    before = _files(out)
    report = reproduce(EXPERIMENTS, out, quiet=True)
    assert (report.ran, report.drawn) == ([], [])
    assert _files(out) == before


def test_fig10_is_drawn_from_the_numbers_its_digest_covers():
    # Its digest covers the closed forms' numbers, computed as Python: the compiled kernels' numbers.
    from mcrank._jit import interpreted
    from mcrank.paper.figures import FIGURES as REGISTERED
    from mcrank.paper.figures import Inputs, roc_example

    documents = {"roc": {"kind": "roc", "config": {"kind": "roc"}}}
    (figure,) = [f for f in REGISTERED.values() if f.module == "fig10_roc_tangents"]
    (job,) = figure.jobs(Inputs(documents, {}, Path()))
    with interpreted():
        python = roc_example()
    assert job.data == python == roc_example()


def _check_nothing_is_drawn_twice(experiments, out):
    """A second run with nothing changed draws nothing and changes no file."""
    assert sorted(p.name for p in (out / "samples").iterdir()) == sorted(f"{n}.{s}" for n in SAMPLES for s in ("json", "npz"))
    manifest = json.loads((out / "figures" / "manifest.json").read_text())
    assert sorted(manifest["figures"]) == sorted(FIGURES)
    before = _files(out)
    report = reproduce(experiments, out, samples=3000, quiet=True)
    assert report.ran == [] and report.drawn == []
    assert report.up_to_date == [f"samples/{n}" for n in SAMPLES] + [f"figures/{n}" for n in FIGURES]
    assert _files(out) == before


@pytest.mark.slow
def test_a_change_redraws_what_depends_on_it_and_a_forced_run_changes_no_file(experiments, tmp_path, monkeypatch, quick_encoder):
    """A change redraws what depends on it, and only that; --force recomputes every study,
    sample and figure, and files whose numbers come out the same keep their bytes, dates and
    wall times included, so `git status` shows nothing. Two studies show it: figs 1-7."""
    studies = _keep_only(experiments, ["fig6_uniform", "fig7_uniform_gaussian"])
    figures = FIGURES[:7]
    out = tmp_path / "results"
    reproduce(experiments, out, samples=2000, quiet=True)
    assert sorted(json.loads((out / "figures" / "manifest.json").read_text())["figures"]) == sorted(figures)

    # Fewer pairs in fig. 6: its sample and its figure, nothing else.
    settings = experiments / "figures.toml"
    settings.write_text(settings.read_text().replace("pairs = 300", "pairs = 200"))
    assert reproduce(experiments, out, samples=2000, quiet=True).drawn == ["samples/fig6_uniform", "figures/fig6_uniform"]
    assert read_pairs(out / "samples", "fig6_uniform").d_true.shape == (200,)
    # A missing figure file is drawn again; a sample file that is not what its record says is
    # drawn again, and the figures drawn from it are not, since the data are the same.
    (out / "figures" / "fig1_hexagon.pdf").unlink()
    (out / "samples" / "fig4_true_um_gaussian.npz").write_bytes(b"not a sample")
    assert reproduce(experiments, out, samples=2000, quiet=True).drawn == ["samples/fig4_true_um_gaussian", "figures/fig1_hexagon"]
    # A change of a figure's code draws it again.
    manifest = json.loads((out / "figures" / "manifest.json").read_text())
    manifest["figures"]["fig7_sweep"]["inputs"] = "0" * 64
    (out / "figures" / "manifest.json").write_text(json.dumps(manifest))
    assert reproduce(experiments, out, samples=2000, quiet=True).drawn == ["figures/fig7_sweep"]

    # --force, on another day with other versions installed: every file as it was, the
    # samples' too (the same seed gives the same samples, byte for byte).
    before = _files(out)
    real_provenance = mcrank.results.provenance
    later = {"date": "2099-01-01T00:00:00+00:00", "platform": "elsewhere", "versions": {"mcrank": "9.9", "numpy": "9.9", "numba": "9.9"}}
    monkeypatch.setattr(mcrank.results, "provenance", lambda: {**real_provenance(), **later})
    report = reproduce(experiments, out, samples=2000, quiet=True, force=True)
    assert report.ran == studies and report.skipped == []
    assert report.drawn == [f"samples/{n}" for n in SAMPLES] + [f"figures/{n}" for n in figures] and report.up_to_date == []
    assert _files(out) == before
    assert _no_temporary_files(out)


def _keep_only(experiments: Path, names: list[str]) -> list[str]:
    """Remove every experiment file but ``names`` (and the figures' settings): the smallest set
    that shows a property of the runs, not the paper's 55 studies."""
    for path in experiments.glob("*.toml"):
        if path.stem not in (*names, "figures"):
            path.unlink()
    return names


def test_samples_are_drawn_from_the_streams_the_figures_always_used(tmp_path):
    """Child k of the figures' seed draws the sample of fig. k + 2, as it did when the figures
    drew their own: the figures of results/ look the same."""
    settings = {"seed": 7, "yield_vs_metric_matrices": 5, "true_um_samples": 4, "perturbation_samples": 3, "pairs": 6}
    document = {"config": {"sds": [0.1], "samples": 10, "seed": 1, "version": "0"}, "rows": []}
    planned = {sample.name: sample for sample in plan_samples(settings, {"study": document})}
    assert sorted(planned) == sorted([*SAMPLES[:4], "study"])
    rng = spawn_generators(7, 5)[1]
    tpr, tnr = sample_rates(5, rng=rng), sample_rates(5, rng=rng)
    write_sample(tmp_path, planned["fig3_yield_vs_metric_p90"])
    arrays, record = read_sample(tmp_path, "fig3_yield_vs_metric_p90")
    assert np.array_equal(arrays["tpr"], tpr) and np.array_equal(arrays["tnr"], tnr)
    assert (record["seed"], record["stream"], record["settings"]) == (7, 1, {"kind": "rates", "n": 5, "p": 0.9})
    # What the pairs of fig. 6 do not depend on is not part of their settings.
    assert set(planned["study"].settings["config"]) == {"sds"}
    (tmp_path / "fig3_yield_vs_metric_p90.npz").write_bytes(b"PK")
    with pytest.raises(ValueError, match="fig3_yield_vs_metric_p90.npz: not the sample"):
        read_sample(tmp_path, "fig3_yield_vs_metric_p90")


@pytest.mark.slow
def test_an_interrupt_dropped_while_drawing_still_stops_the_run(experiments, tmp_path, capsys, monkeypatch):
    out = tmp_path / "results"
    reproduce(experiments, out, samples=500, figures=False, quiet=True)
    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable.exc_type))
    module = importlib.import_module("mcrank.figures.fig1_hexagon")  # the figure's module draws it
    real_fig1 = module.fig1_hexagon

    def fig1_interrupted():
        drop_an_interrupt()
        return real_fig1()

    monkeypatch.setattr(module, "fig1_hexagon", fig1_interrupted)
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "500", "--quiet"])
    assert dropped == [KeyboardInterrupt]  # the interrupt did land where it is dropped
    assert code == 130 and capsys.readouterr().err.strip().splitlines() == ["mcrank reproduce: interrupted"]
    # Stopped after fig. 1, which the manifest does not count as done.
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["fig1_hexagon.pdf", "fig1_hexagon.png"]
    assert _no_temporary_files(out)


@pytest.mark.slow
def test_ctrl_c_during_the_figures_exits_130(experiments, tmp_path):
    out = tmp_path / "results"
    reproduce(experiments, out, samples=500, figures=False, quiet=True)
    command = [sys.executable, "-c", "import sys; from mcrank.cli import main; sys.exit(main())"]
    arguments = ["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "500"]
    lines = []
    with subprocess.Popen(command + arguments, stderr=subprocess.PIPE, text=True) as process:
        for line in process.stderr:
            lines.append(line)
            if line.startswith("figures..."):
                os.kill(process.pid, signal.SIGINT)
                break
        lines += process.stderr.readlines()
    assert process.returncode == 130, lines
    assert lines[-1] == "mcrank reproduce: interrupted\n"


def _check_crossover_provenance(out, crossover):
    """Each crossover row names its study, seed, samples, and the date and versions of its
    run (not of the writing); the Markdown says them too."""
    markdown = (out / "crossover.md").read_text()
    for row in crossover:
        study = f"fig7_{row['true_um']}_{row['error']}"
        document = json.loads((out / f"{study}.json").read_text())
        config = document["config"]
        assert (row["experiment"], int(row["seed"]), int(row["samples"])) == (study, config["seed"], 3000)
        assert row["version"] == config["version"] and row["date"] == document["date"]
        versions = document["versions"]
        assert (
            f"From `{study}.json`: seed {config['seed']}, 3,000 pairs, 51 sds from 0 to 0.5; run on {document['date']} "
            f"by mcrank {config['version']} (numpy {versions['numpy']}, numba {versions['numba']})."
        ) in markdown
    # The README's check of its crossover rows (tests/test_readme.py) reads the new layout too.
    section = markdown[markdown.index("### uniform true utility matrices, gaussian errors") :]
    rows = [line for line in section.splitlines()[1:] if line.startswith("| ")][:8]
    assert rows[0] == "| metric | % incorrect | crossover sd | realised sd there |"
    assert sorted(row.split(" | ")[0][2:] for row in rows[1:]) == sorted(CROSSOVER_METRICS)


def test_an_interrupted_reproduce_resumes_where_it_stopped(experiments, tmp_path, monkeypatch):
    # Three studies of three kinds, in the order they run on one job.
    studies = _keep_only(experiments, ["fig6_uniform", "nclass_gaussian_n03", "testset_2class_00020"])
    out = tmp_path / "results"
    calls = []
    real_run_study = mcrank.engine.run_study

    def interrupted_after_first(config, **kwargs):
        if calls:
            raise KeyboardInterrupt
        calls.append(config)
        return real_run_study(config, **kwargs)

    monkeypatch.setattr(mcrank.engine, "run_study", interrupted_after_first)
    with pytest.raises(KeyboardInterrupt):
        reproduce(experiments, out, samples=2000, figures=False, quiet=True, jobs=1)
    assert sorted(p.name for p in out.iterdir()) == ["fig6_uniform.csv", "fig6_uniform.json"]
    first = (out / "fig6_uniform.json").read_text()

    monkeypatch.setattr(mcrank.engine, "run_study", real_run_study)
    report = reproduce(experiments, out, samples=2000, figures=False, quiet=True)
    assert report.skipped == ["fig6_uniform"] and report.ran == studies[1:]
    assert (out / "fig6_uniform.json").read_text() == first

    # Up to date: nothing is run, and no file changes, the crossover tables included, even
    # on another day and with other versions installed.
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    real_provenance = mcrank.results.provenance
    later = {"date": "2099-01-01T00:00:00+00:00", "versions": {"mcrank": "9.9", "numpy": "9.9", "numba": "9.9"}}
    monkeypatch.setattr(mcrank.results, "provenance", lambda: {**real_provenance(), **later})
    report = reproduce(experiments, out, samples=2000, figures=False, quiet=True)
    assert report.ran == [] and {p.name: p.read_bytes() for p in out.iterdir()} == before

    # A changed config (here the sample count) is not "complete": it runs again.
    report = reproduce(experiments, out, samples=2500, figures=False, quiet=True)
    assert report.ran == studies and report.skipped == []
    report = reproduce(experiments, out, samples=2500, figures=False, quiet=True, force=True)
    assert report.ran == studies
    assert _no_temporary_files(out)


def test_studies_side_by_side_keep_what_finished_when_one_is_interrupted(experiments, tmp_path, monkeypatch):
    """Two jobs run studies side by side: an interrupt in one keeps every study that had
    finished, whole, and the resumed run gives the files of a run never interrupted."""
    studies = _keep_only(experiments, ["fig6_uniform", "nclass_gaussian_n03", "testset_2class_00020", "testset_2class_00050"])
    whole = tmp_path / "whole"
    reproduce(experiments, whole, samples=2000, figures=False, quiet=True, jobs=2)
    real_run_study = mcrank.engine.run_study
    started, lock = [], threading.Lock()

    def interrupted_at_the_last(config, **kwargs):
        with lock:
            started.append(config)
            last = len(started) == len(studies)
        if last:  # two studies at a time: two have finished by now, a third may be running
            raise KeyboardInterrupt
        return real_run_study(config, **kwargs)

    out = tmp_path / "results"
    monkeypatch.setattr(mcrank.engine, "run_study", interrupted_at_the_last)
    with pytest.raises(KeyboardInterrupt):
        reproduce(experiments, out, samples=2000, figures=False, quiet=True, jobs=2)
    kept = sorted(p.stem for p in out.glob("*.json"))
    assert 2 <= len(kept) <= 3 and sorted(p.stem for p in out.glob("*.csv")) == kept and _no_temporary_files(out)
    assert {json.loads((out / f"{name}.json").read_text())["config"]["seed"] for name in kept} <= {c.seed for c in started[:-1]}
    monkeypatch.setattr(mcrank.engine, "run_study", real_run_study)
    report = reproduce(experiments, out, samples=2000, figures=False, quiet=True, jobs=2)
    assert sorted(report.skipped) == kept and sorted(report.ran + report.skipped) == sorted(studies)
    for name in studies:
        done, reference = (json.loads((d / f"{name}.json").read_text()) for d in (out, whole))
        assert done["rows"] == reference["rows"] and done["config"] == reference["config"], name


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("samples = 100\nseed = 1\nsigma = 0.1\n", "unknown key 'sigma'"),
        ("samples = [\n", "not valid TOML"),
        ('samples = 100\nsds = "0:1"\nseed = 1\n', "start:stop:step"),
        ("samples = 100\n", "key 'seed' is missing"),
    ],
)
def test_a_bad_experiment_file_names_itself_and_the_key(experiments, tmp_path, capsys, text, fragment):
    bad = experiments / "zz_bad.toml"
    bad.write_text(text)
    out = tmp_path / "results"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "zz_bad.toml" in err[0] and fragment in err[0]
    assert not out.exists()  # every file is checked before anything runs


def test_bad_figure_settings_name_the_key(experiments, tmp_path, capsys):
    (experiments / "figures.toml").write_text("seed = 1\npoints = 10\n")
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "figures.toml" in err and "unknown key 'points'" in err


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("yield_vs_metric_matrices = 1\n", "key 'yield_vs_metric_matrices' must be a whole number from 2 to 1,000,000, got 1"),
        ("pairs = 0\n", "key 'pairs' must be a whole number from 1 to 1,000,000, got 0"),
        ("true_um_samples = 10_000_000_000\n", "key 'true_um_samples' must be a whole number from 1 to 1,000,000"),
        ("perturbation_samples = 2.5\n", "key 'perturbation_samples' must be a whole number"),
        ('pairs = "300"\n', "key 'pairs' must be a whole number"),
        ("seed = -1\n", "key 'seed' must be a non-negative whole number, got -1"),
        ("seed = true\n", "key 'seed' must be a non-negative whole number, got True"),
    ],
)
def test_every_figure_setting_is_checked_before_any_study_runs(experiments, tmp_path, capsys, monkeypatch, text, fragment):
    def no_study(*args, **kwargs):
        raise AssertionError("a study ran before figures.toml was checked")

    monkeypatch.setattr(mcrank.engine, "run_study", no_study)
    path = experiments / "figures.toml"
    path.write_text(text)
    out = tmp_path / "r"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "500", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"mcrank reproduce: error: {path}: ") and fragment in err[0]
    assert not out.exists()


def test_figure_settings_are_read_as_experiment_files_are(experiments, tmp_path, capsys):
    path = experiments / "figures.toml"
    path.write_bytes(b"\xef\xbb\xbfpairs = 40\n")  # a byte-order mark is skipped
    assert load_figure_settings(experiments)["pairs"] == 40
    path.write_bytes(b"pairs = 40 # \xff\n")
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"mcrank reproduce: error: {path}: not a text file (not UTF-8)"]


def test_samples_without_out_would_overwrite_the_papers_results(experiments, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code = main(["reproduce", "--experiments", str(experiments), "--samples", "1000", "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--out" in err[0]
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("target", ["results.txt", "results.txt/sub"])
def test_an_out_that_is_a_file_is_refused_before_any_study_runs(experiments, tmp_path, capsys, monkeypatch, target):
    def no_study(*args, **kwargs):
        raise AssertionError("a study ran before --out was checked")

    monkeypatch.setattr(mcrank.engine, "run_study", no_study)
    (tmp_path / "results.txt").write_text("keep me\n")
    out = tmp_path / target
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "500", "--quiet", "--no-figures"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("mcrank reproduce: error: output directory") and "results.txt is a file, not a directory" in err[0]
    assert (tmp_path / "results.txt").read_text() == "keep me\n"


@pytest.mark.parametrize("spelling", ["./results", "results/", "sub/../results", "link", "absolute"])
def test_samples_into_the_default_results_by_another_spelling_are_refused(experiments, capsys, monkeypatch, tmp_path, spelling):
    # The guard compares resolved paths: any name of ./results is ./results.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "results", target_is_directory=True)
    out = str(tmp_path / "results") if spelling == "absolute" else spelling
    code = main(["reproduce", "--experiments", str(experiments), "--out", out, "--samples", "1000", "--quiet", "--no-figures"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--samples changes the studies" in err[0]
    assert list((tmp_path / "results").iterdir()) == []


def test_two_sweeps_of_the_same_setting_are_refused(experiments, tmp_path, capsys):
    (experiments / "zz_copy.toml").write_text((experiments / "fig7_uniform_gaussian.toml").read_text())
    code = main(
        ["reproduce", "--experiments", str(experiments), "--out", str(tmp_path / "r"), "--samples", "500", "--quiet", "--no-figures"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "fig7_uniform_gaussian" in err[0] and "zz_copy" in err[0]


def test_figure_settings_are_not_read_without_figures(experiments, tmp_path):
    """--no-figures runs the studies whatever figures.toml holds: it only sets the figures."""
    _keep_only(experiments, ["fig6_uniform"])
    (experiments / "figures.toml").write_text("no_such_key = 1\n")
    out = tmp_path / "r"
    assert main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--quiet"]) == 2
    assert not out.exists()
    assert main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "500", "--quiet", "--no-figures"]) == 0
    assert not (out / "figures").exists() and any(out.glob("*.json"))


@pytest.mark.parametrize("kind", ["directory", "dangling link"])
def test_figure_settings_that_cannot_be_read_are_an_error_not_the_defaults(experiments, tmp_path, capsys, kind):
    path = experiments / "figures.toml"
    path.unlink(missing_ok=True)
    if kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "missing.toml")
    out = tmp_path / "r"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith(f"mcrank reproduce: error: {path}: "), err
    if kind == "dangling link":  # not just "No such file", which would name a file that is there
        assert f"a link to '{tmp_path / 'missing.toml'}', which does not exist" in err[0], err
    assert not out.exists()


# --- the repository's committed results ------------------------------------------------------


@pytest.fixture()
def repository(tmp_path, monkeypatch):
    """A stand-in for the checkout mcrank runs from, with two small committed experiments and
    nothing uncommitted (``changes`` sets what git would report)."""
    import mcrank.paper.committed

    root = tmp_path / "repo"
    (root / "experiments").mkdir(parents=True)
    for name in ("fig6_uniform", "fig7_uniform_gaussian"):
        text = (EXPERIMENTS / f"{name}.toml").read_text()
        (root / "experiments" / f"{name}.toml").write_text(re.sub(r"(?m)^samples = .*$", "samples = 2000", text))
    (root / "experiments" / "figures.toml").write_text(
        "seed = 3\nyield_vs_metric_matrices = 40\ntrue_um_samples = 200\nperturbation_samples = 200\npairs = 300\n"
    )
    changes = []
    monkeypatch.setattr(mcrank.paper.committed, "repository_root", lambda: root)
    monkeypatch.setattr(mcrank.paper.committed, "uncommitted_changes", lambda: list(changes))
    monkeypatch.setattr(mcrank.results, "source_revision", lambda: {"commit": "1" * 40, "modified": bool(changes)})
    return root, changes


def _reproduce(capsys, *arguments):
    code = main(["reproduce", *arguments])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.parametrize("target", ["results/samples", "results/figures", "results/sub/dir", "experiments", "experiments/more"])
@pytest.mark.parametrize("samples", [[], ["--samples", "1e3"]])
def test_nothing_is_written_inside_the_committed_folders(repository, capsys, target, samples):
    root, _ = repository
    (root / "results").mkdir()
    before = _files(root), sorted(root.rglob("*"))
    # Not even a probe file created and removed: the folders' times stay as they were.
    times = [(root / folder).stat().st_mtime_ns for folder in ("results", "experiments")]
    code, err = _reproduce(capsys, "--experiments", str(root / "experiments"), "--out", str(root / target), "--quiet", *samples)
    assert code == 2 and len(err) == 1 and "inside the repository's" in err[0] and "--out" in err[0], err
    assert (_files(root), sorted(root.rglob("*"))) == before
    assert [(root / folder).stat().st_mtime_ns for folder in ("results", "experiments")] == times


@pytest.mark.slow
def test_only_the_committed_experiments_at_their_sizes_write_the_committed_results(repository, capsys, tmp_path):
    root, _ = repository
    out = root / "results"
    assert main(["reproduce", "--experiments", str(root / "experiments"), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    before = _files(out)
    assert "crossover.md" in {p.name for p in before} and "figures/fig7_sweep.png" in {p.as_posix() for p in before}
    # One experiment file of the two: its crossover tables and fig. 7 would lose a sweep.
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(root / "experiments" / "fig6_uniform.toml", partial)
    code, err = _reproduce(capsys, "--experiments", str(partial), "--out", str(out), "--quiet")
    assert code == 2 and len(err) == 1 and "is not the repository's experiments/" in err[0], err
    # Another size, by the flag or by an experiment file that says so.
    code, err = _reproduce(capsys, "--experiments", str(root / "experiments"), "--out", str(out), "--samples", "1000", "--quiet")
    assert code == 2 and len(err) == 1 and "--samples" in err[0], err
    small = tmp_path / "small"
    shutil.copytree(root / "experiments", small)
    (small / "fig6_uniform.toml").write_text((small / "fig6_uniform.toml").read_text().replace("samples = 2000", "samples = 1000"))
    code, err = _reproduce(capsys, "--experiments", str(small), "--out", str(out), "--force", "--quiet")
    assert code == 2 and len(err) == 1, err
    assert _files(out) == before


@pytest.mark.slow
def test_a_dirty_tree_does_not_write_into_the_committed_results_unless_allowed(repository, capsys):
    root, changes = repository
    out = root / "results"
    arguments = ["--experiments", str(root / "experiments"), "--out", str(out), "--quiet"]
    changes += ["mcrank/engine/binary.py", "experiments/new.toml", "mcrank/a.py", "mcrank/b.py"]
    code, err = _reproduce(capsys, *arguments)
    assert code == 2 and len(err) == 1 and not out.exists(), err
    assert (
        "uncommitted changes (mcrank/engine/binary.py, experiments/new.toml, mcrank/a.py and 1 more)" in err[0]
        and "--allow-dirty" in err[0]
    )
    # Allowed: written, said on stderr even in a quiet run, and recorded as modified.
    code, err = _reproduce(capsys, *arguments, "--allow-dirty")
    assert (
        code == 0
        and len(err) == 1
        and err[0].startswith("reproduce: warning: writing into results/ although the source tree has uncommitted changes")
    ), err
    assert json.loads((out / "fig6_uniform.json").read_text())["revision"]["modified"] is True
    # Nothing to write: nothing to refuse, from any tree.
    assert _reproduce(capsys, *arguments) == (0, [])
    # Committed: a forced run replaces the record of a modified tree by the clean commit's,
    # every count the same (the studies' files record it; the figures are not drawn again).
    changes.clear()
    rows = json.loads((out / "fig6_uniform.json").read_text())["rows"]
    assert _reproduce(capsys, *arguments, "--force", "--no-figures") == (0, [])
    document = json.loads((out / "fig6_uniform.json").read_text())
    assert document["revision"]["modified"] is False and document["rows"] == rows


def test_a_fifo_among_the_experiment_files_is_refused_in_one_line_without_waiting(experiments, tmp_path, capsys, fifo):
    # A FIFO x.toml in --experiments waited forever for a writer.
    pipe = fifo("x.toml", experiments)
    out = tmp_path / "results"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err == f"mcrank reproduce: error: {pipe}: is a FIFO (named pipe), not a regular file\n"
    assert not out.exists()


@pytest.mark.parametrize("samples", ["0", "-1", "abc", "1e13", "1.5", "nan"])
def test_a_bad_samples_names_the_flag(tmp_path, capsys, samples):
    # It said "samples must be ...", the library's parameter.
    assert main(["reproduce", "--out", str(tmp_path / "out"), "--samples", samples, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcrank reproduce: error: --samples must be a whole number") and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()
