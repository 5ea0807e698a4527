"""The study's schema: every parameter declared once, the command line generated from it, and
the parameters that would change nothing refused rather than recorded."""

import json

import pytest

from mcrank.cli import main
from mcrank.study import StudyConfig
from mcrank.study.config import study_parameters
from mcrank.study.kinds import STUDY_KINDS


def run(capsys, *args):
    code = main(["run", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_every_flagged_parameter_is_an_option_of_mcrank_run(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = capsys.readouterr().out
    flagged = [p for p in study_parameters() if p.metadata["flag"] is not None]
    assert len(flagged) >= 19
    for parameter in flagged:
        assert parameter.metadata["flag"] in text, parameter.name
        # Each kind named in the schema is registered (None: every kind reads it).
        assert set(parameter.metadata["kinds"] or ()) <= set(STUDY_KINDS)


def test_a_flag_sets_its_field_and_nothing_else(capsys):
    code, out, _ = run(capsys, "--samples", "200", "--seed", "3", "--quiet", "--rate-beta", "1", "1", "--sd", "0.1,0.2", "--format", "json")
    assert code == 0
    config = json.loads(out)["config"]
    assert config["rate_beta"] == [1.0, 1.0] and config["sds"] == [0.1, 0.2] and config["samples"] == 200 and config["seed"] == 3
    default = StudyConfig(samples=200, seed=3, rate_beta=(1.0, 1.0), sds=(0.1, 0.2)).to_dict()
    assert {k: v for k, v in config.items() if k != "version"} == default


@pytest.mark.parametrize(
    "args, message",
    [
        (["--class-concentration", "2"], "--class-concentration 2.0 would change nothing: it is read only with an element-wise"),
        (["--classes", "3", "--class-proportion", "0.2", "0.8"], "--class-proportion (0.2, 0.8) would change nothing"),
        (["--fbeta-beta", "2"], "--fbeta-beta 2.0 would change nothing: it is read only with the fbeta metric"),
        (
            ["--true-um-sd", "0.5"],
            "--true-um-sd 0.5 would change nothing: it is read only with the true-utility distributions gaussian and gaussian-elements",
        ),
        (["--classes", "3", "--class-concentration", "1e-320"], "--class-concentration must be from 0.01 to 1e+12"),
        (["--classes", "3", "--class-concentration", "1e308"], "--class-concentration must be from 0.01 to 1e+12"),
        (["--true-um", "gaussian", "--true-um-sd", "1e308"], "--true-um-sd must be at most 10"),
        (["--study", "roc", "--prevalence", "1e-300"], "prevalence must be at least 1e-06 from 0 and from 1"),
        (["--study", "roc", "--prevalence", "0.9999999999999999"], "prevalence must be at least 1e-06 from 0 and from 1"),
    ],
)
def test_a_value_that_would_change_nothing_or_break_the_draws_is_one_line_and_exit_2(capsys, tmp_path, args, message):
    out = tmp_path / "result.json"
    code, stdout, err = run(capsys, "--samples", "100", "--seed", "1", "--quiet", *args, "--out", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    assert len(err.strip().splitlines()) == 1 and message in err
    assert "_" not in err.split(": error: ")[1].split(" got ")[0], err  # flags, not the schema's field names


@pytest.mark.parametrize(
    "settings",
    [
        dict(classes=3, class_concentration=2.0),
        dict(metrics=("fbeta",), fbeta_beta=2.0),
        dict(true_um="gaussian", true_um_sd=0.5),
        dict(classes=3, true_um="gaussian-elements", true_um_sd=0.5),
        dict(class_proportion=(0.2, 0.8)),
    ],
)
def test_the_same_values_are_taken_where_they_are_read(settings):
    config = StudyConfig(samples=10, **settings)
    for name, value in settings.items():
        assert getattr(config, name) == value
