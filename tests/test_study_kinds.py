"""Registry-wide tests of the study kinds (mcrank.study.kinds) and the figures (mcrank.paper.figures).

Every record of each registry is checked by the same tests, so that a new kind or figure is
safe as one record: its fields are complete and point at what exists, its checks refuse what
they should, its table's header matches its rows, and every figure draws from a small results
directory.
"""

from __future__ import annotations

import importlib
import json
import textwrap
from dataclasses import fields
from pathlib import Path

import pytest

from mcrank.cli._common import DEFAULT_WIDTH
from mcrank.cli.run import render_table
from mcrank.distributions import TRUE_UM_DISTRIBUTIONS
from mcrank.engine import run_study
from mcrank.paper.figures import FIGURES, Inputs
from mcrank.paper.samples import read_record
from mcrank.reproduce import reproduce
from mcrank.results import read_study, study_document
from mcrank.study import StudyConfig
from mcrank.study.config import reads, study_parameters
from mcrank.study.kinds import DEFAULT_KIND, STUDY_KINDS, StudyKind, register_study_kind

KINDS = list(STUDY_KINDS)
PARAMETERS = {parameter.name: parameter for parameter in study_parameters()}

# --- study kinds -------------------------------------------------------------------------------


def test_the_built_in_kinds_in_order():
    assert KINDS == ["confusion", "roc", "probabilities"] and DEFAULT_KIND == "confusion"
    assert [kind.code for kind in STUDY_KINDS.values()] == list(range(len(KINDS)))


@pytest.mark.parametrize("name", KINDS)
def test_a_kinds_record_is_complete(name):
    kind = STUDY_KINDS[name]
    assert kind.name == name and kind.help and "\n" not in kind.help
    engine = importlib.import_module(kind.engine)
    assert kind.engine.startswith("mcrank.engine.") and callable(engine.kernel) and callable(engine.study_result)
    assert callable(engine.check_chunks)
    assert all(callable(f) for f in (kind.scores, kind.score_codes, kind.header))
    # Its rules are on parameters every kind reads; its sweep key on its own parameters.
    assert all(PARAMETERS[p].metadata["kinds"] is None for p in kind.rules), kind.rules
    assert all(reads(PARAMETERS[p], name) and PARAMETERS[p].metadata["kinds"] is not None for p in kind.sweep_key)
    # A kind with parameters of its own shows them in a flag group of its own, or of another
    # kind that reads them too.
    own = [p for p in PARAMETERS.values() if p.metadata["kinds"] is not None and name in p.metadata["kinds"] and p.metadata["flag"]]
    assert all(p.metadata["group"] in ("study", *p.metadata["kinds"]) for p in own)
    assert (kind.group is not None) == any(p.metadata["group"] == name for p in own)


@pytest.mark.parametrize("name", KINDS)
def test_a_kinds_default_study_is_valid_and_records_its_kind_unless_the_default(name):
    config = StudyConfig(kind=name, samples=1000)
    assert config.metrics == STUDY_KINDS[name].scores(None, config.classes)
    assert ("kind" in config.to_dict()) == (name != DEFAULT_KIND)


@pytest.mark.parametrize("name", KINDS)
def test_a_kinds_scores_are_checked(name):
    kind = STUDY_KINDS[name]
    ids = kind.scores(None, 2)
    assert ids and kind.scores(list(ids), 2) == ids
    codes = kind.score_codes(ids)
    assert len(codes) == 1 and len(next(iter(codes.values()))) == len(ids)
    for bad, message in (
        (["no_such_score"], "no_such_score"),
        ([*ids, ids[0]], "listed twice"),
        ("auc", "must be a list"),
        ([1], "ids"),
    ):
        with pytest.raises(ValueError, match=message):
            StudyConfig(kind=name, metrics=bad)
    # Another kind's scores are not this kind's.
    for other in KINDS:
        foreign = set(STUDY_KINDS[other].scores(None, 2)) - set(ids)
        for score in foreign:
            with pytest.raises(ValueError, match=repr(score)):
                StudyConfig(kind=name, metrics=(score,))


@pytest.mark.parametrize("name", KINDS)
def test_a_kinds_rules_refuse_exactly_what_they_say(name):
    """Each rule of a kind is applied by the schema: a value is refused, naming the parameter,
    exactly when the rule refuses it."""
    kind = STUDY_KINDS[name]
    candidates = {"classes": (2, 3, 5), "true_um": tuple(TRUE_UM_DISTRIBUTIONS)}
    for parameter in kind.rules:
        for value in candidates[parameter]:
            try:
                kind.check(parameter, value)
            except ValueError as error:
                assert str(error).startswith(parameter), error
                with pytest.raises(ValueError, match=f"^{parameter}"):
                    StudyConfig(kind=name, **{parameter: value})
            else:
                StudyConfig(kind=name, **{parameter: value})


def test_the_roc_kinds_rules_refuse_more_classes_and_element_distributions():
    # Not vacuous: the rules of the roc kind do refuse something.
    with pytest.raises(ValueError, match="classes must be 2 in the roc study"):
        StudyConfig(kind="roc", classes=3)
    with pytest.raises(ValueError, match="true_um must be uniform or gaussian in the roc study"):
        StudyConfig(kind="roc", true_um="uniform-elements")
    StudyConfig(kind="confusion", classes=3, true_um="uniform-elements")


@pytest.mark.parametrize("name", KINDS)
def test_a_kind_without_a_closed_form_refuses_the_conditional_estimator(name):
    kind = STUDY_KINDS[name]
    if kind.closed_form is None:
        assert StudyConfig(kind=name, estimator="conditional").estimator_used == "conditional"
        assert StudyConfig(kind=name).estimator_used == "conditional"  # gaussian errors, the default
    else:
        assert StudyConfig(kind=name).estimator_used == "sample"
        with pytest.raises(ValueError, match=f"no closed form in the {name} study"):
            StudyConfig(kind=name, estimator="conditional")


@pytest.mark.parametrize("name", KINDS)
def test_another_kinds_parameters_are_refused(name):
    for parameter in PARAMETERS.values():
        if reads(parameter, name):
            continue
        with pytest.raises(ValueError, match=f"^{parameter.name} is a parameter of the"):
            StudyConfig(kind=name, **{parameter.name: _other_value(parameter.default)})


def _other_value(default):
    """A value other than ``default`` that the schema would read as such."""
    if default is None:
        return 0.5
    if isinstance(default, tuple):
        return tuple(v + 0.25 for v in default)
    return default + 1


@pytest.fixture(scope="module")
def small_studies():
    """A small study of each kind, and of the confusion kind with a finite test set, run
    through the engine module each kind's record names."""
    settings = {name: [{}] for name in KINDS}
    settings[DEFAULT_KIND].append({"test_size": 50, "classes": 3})
    return {
        (name, i): run_study(kind=name, samples=2_000, sds=(0.1, 0.2), seed=7, jobs=1, **extra)
        for name, extras in settings.items()
        for i, extra in enumerate(extras)
    }


@pytest.mark.parametrize("name", KINDS)
def test_a_kinds_table_header_matches_its_rows(name, small_studies):
    for (kind_name, _), result in small_studies.items():
        if kind_name != name:
            continue
        assert result.config.kind == name
        document = study_document(result)
        lines = render_table(document).splitlines()
        header = STUDY_KINDS[name].header(document["config"], document["rows"])
        wrapped = [line for paragraph in header.split("\n") for line in textwrap.wrap(paragraph, DEFAULT_WIDTH, subsequent_indent="  ")]
        assert lines[: len(wrapped)] == wrapped and lines[len(wrapped)] == ""
        assert f"{document['config']['samples']:,} pairs" in header and f"seed {document['config']['seed']}" in header
        columns, rows = lines[len(wrapped) + 1], lines[len(wrapped) + 2 :]
        # One line per row, each as wide as the column headings, in the rows' order.
        assert len(rows) == len(document["rows"]) > 0
        assert all(len(line) == len(columns) for line in rows), (columns, rows)
        assert [line.split()[0] for line in rows] == [row["name"] for row in document["rows"]]
        assert ("% tied" in columns) == (document["config"].get("test_size") is not None)


def test_a_second_kind_of_one_name_is_refused():
    record = STUDY_KINDS[DEFAULT_KIND]
    with pytest.raises(ValueError, match="registered already"):
        register_study_kind(DEFAULT_KIND, **{f.name: getattr(record, f.name) for f in fields(StudyKind) if f.name not in ("name", "code")})


# --- figures ----------------------------------------------------------------------------------

#: Small studies that between them give every figure something to draw.
SMALL_EXPERIMENTS = {
    "single": "sds = [0.1]\nseed = 1\n",
    "sweep": 'sds = "0:0.2:0.1"\nseed = 2\n',
    "classes3": 'classes = 3\nsds = "0:0.2:0.1"\nseed = 3\n',
    "testset": "test_size = 20\nsds = [0.1, 0.2]\nseed = 1\n",
    "roc_sweep": 'kind = "roc"\nsds = [0.1, 0.2]\nseed = 5\n',
    "roc_b050": 'kind = "roc"\nprevalence = 0.5\nsds = [0.1]\nseed = 6\n',
    "probabilities_sweep": 'kind = "probabilities"\nsds = [0.1, 0.2]\nseed = 8\n',
}


@pytest.fixture(scope="module")
def small_results(tmp_path_factory):
    """A small results directory, drawn by ``reproduce`` from :data:`SMALL_EXPERIMENTS`."""
    experiments = tmp_path_factory.mktemp("experiments")
    for name, text in SMALL_EXPERIMENTS.items():
        (experiments / f"{name}.toml").write_text(text)
    (experiments / "figures.toml").write_text(
        "seed = 3\nyield_vs_metric_matrices = 40\ntrue_um_samples = 200\nperturbation_samples = 200\npairs = 300\n"
    )
    out = tmp_path_factory.mktemp("results")
    reproduce(experiments, out, samples=2_000, jobs=1, quiet=True)
    documents = {name: read_study(out / f"{name}.json") for name in SMALL_EXPERIMENTS}
    records = {path.name.split(".")[0]: None for path in (out / "samples").iterdir()}
    records = {name: read_record(out / "samples", name) for name in records}
    return out, Inputs(documents, records, out / "samples")


def test_the_figures_in_order():
    assert [figure.code for figure in FIGURES.values()] == list(range(len(FIGURES)))
    assert len(FIGURES) == 12


@pytest.mark.parametrize("name", list(FIGURES))
@pytest.mark.slow
def test_every_figure_draws_from_a_results_directory(name, small_results):
    out, inputs = small_results
    figure = FIGURES[name]
    assert (Path(importlib.import_module("mcrank.figures").__file__).parent / f"{figure.module}.py").is_file()
    jobs = figure.jobs(inputs)
    assert jobs, f"{name} has nothing to draw from the small results"
    manifest = json.loads((out / "figures" / "manifest.json").read_text())["figures"]
    for job in jobs:
        json.dumps(job.data, allow_nan=True)  # its data, as JSON, for its digest
        assert manifest[job.name]["module"] == f"mcrank.figures.{figure.module}"
        for suffix in (".png", ".pdf"):
            assert (out / "figures" / f"{job.name}{suffix}").stat().st_size > 1000


@pytest.mark.parametrize("name", list(FIGURES))
def test_a_figure_of_results_it_does_not_draw_from_has_nothing_to_draw(name, tmp_path):
    """Only fig. 1 draws with no results at all: every other figure draws from its studies or samples."""
    jobs = FIGURES[name].jobs(Inputs({}, {}, tmp_path))
    assert bool(jobs) == (FIGURES[name].module == "fig1_hexagon")
