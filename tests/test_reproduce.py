"""`mcrank reproduce`: every results file and figure, resuming, and bad experiment files."""

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from csv_parts import csv_parts

import mcrank.engine
import mcrank.results
from mcrank.cli import main
from mcrank.reproduce import reproduce

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
STUDIES = ["fig6_uniform", "fig7_gaussian_gaussian", "fig7_gaussian_truncated", "fig7_uniform_gaussian", "fig7_uniform_truncated"]
FIGURES = [
    "fig1_hexagon",
    "fig2_yield_vs_metric_p50",
    "fig3_yield_vs_metric_p90",
    "fig4_true_um_gaussian",
    "fig5_perturbation_cloud",
    "fig6_uniform",
    "fig7_sweep",
]

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
    (directory / "figures.toml").write_text("seed = 3\nyield_vs_metric_matrices = 40\ntrue_um_samples = 200\nperturbation_samples = 200\npairs = 300\n")
    return directory


def _no_temporary_files(directory: Path) -> bool:
    return not [p for p in directory.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp"]


def test_reproduce_writes_every_result_and_figure(experiments, tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(out), "--samples", "3000", "--quiet"])
    assert code == 0
    for name in STUDIES:
        made, rows = csv_parts((out / f"{name}.csv").read_text())
        assert rows and rows[0]["name"] == "accuracy"
        document = json.loads((out / f"{name}.json").read_text())
        assert document["config"]["samples"] == 3000 and document["config"]["seed"] is not None
        assert document["versions"]["numpy"] and document["date"] and document["wall_time"] >= 0
        assert len(document["rows"]) == len(rows)
        # The CSV says how it was made on its own, as the JSON does.
        assert made["experiment"] == name and made["seed"] == document["config"]["seed"]
        assert {k: made[k] for k in document["config"]} == document["config"]
        assert made["versions"] == document["versions"] and made["date"] == document["date"]
    crossover = list(csv.DictReader(io.StringIO((out / "crossover.csv").read_text())))
    assert {(r["true_um"], r["error"]) for r in crossover} == {(t, e) for t in ("uniform", "gaussian") for e in ("gaussian", "truncated")}
    assert "### uniform true utility matrices, gaussian errors" in (out / "crossover.md").read_text()
    _check_crossover_provenance(out, crossover)
    for name in FIGURES:
        png = out / "figures" / f"{name}.png"
        pdf = out / "figures" / f"{name}.pdf"
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), name
        assert pdf.read_bytes().startswith(b"%PDF"), name
    assert _no_temporary_files(out)


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
        reproduce(experiments, out, samples=2000, figures=False, quiet=True)
    assert sorted(p.name for p in out.iterdir()) == ["fig6_uniform.csv", "fig6_uniform.json"]
    first = (out / "fig6_uniform.json").read_text()

    monkeypatch.setattr(mcrank.engine, "run_study", real_run_study)
    report = reproduce(experiments, out, samples=2000, figures=False, quiet=True)
    assert report.skipped == ["fig6_uniform"] and report.ran == STUDIES[1:]
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
    assert report.ran == STUDIES and report.skipped == []
    report = reproduce(experiments, out, samples=2500, figures=False, quiet=True, force=True)
    assert report.ran == STUDIES
    assert _no_temporary_files(out)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('samples = 100\nseed = 1\nsigma = 0.1\n', "unknown key 'sigma'"),
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
    from mcrank.reproduce import load_figure_settings

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
    code = main(["reproduce", "--experiments", str(experiments), "--out", str(tmp_path / "r"), "--samples", "500", "--quiet", "--no-figures"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "fig7_uniform_gaussian" in err[0] and "zz_copy" in err[0]


def test_figure_settings_are_not_read_without_figures(experiments, tmp_path):
    """--no-figures runs the studies whatever figures.toml holds: it only sets the figures."""
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
