"""`mcrank run --study roc`: its output, its records, and every bad input as one line and exit 2.

The numbers of the study are checked against an independent NumPy oracle in test_roc.py; here
the command line, the records and the crossover tables of the roc kind.
"""

import json

import pytest

from mcrank.cli import main
from mcrank.study import StudyConfig

SMALL = ["--study", "roc", "--samples", "4000", "--seed", "7", "--quiet"]


def run(capsys, *args):
    code = main(["run", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_roc_study_prints_its_scores_the_utility_rows_and_the_pairs_tied_in_truth(capsys):
    code, out, err = run(capsys, *SMALL, "--sd", "0.1", "0.2")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80  # the header wrapped
    header, table = out.split("\n\n")
    assert " ".join(header.split()).startswith(
        "4,000 pairs of scoring classifiers (binormal ROC, mu ~ U(0, 3), log sigma ~ U(log 0.5, log 2)); B ~ Uniform(0, 1)"
    )
    assert "% of pairs tied in truth" in header
    names = [line.split()[0] for line in table.splitlines()[1:]]
    assert names == ["auc", "best_accuracy", "best_youden", "best_f1", "utility", "utility"]


def test_the_records_of_a_roc_study_hold_its_parameters_and_none_of_another_kind(capsys):
    code, out, _ = run(capsys, *SMALL, "--sd", "0.1", "--prevalence", "0.2", "--roc-mu-range", "0.5", "2", "--format", "json")
    assert code == 0
    document = json.loads(out)
    config = document["config"]
    assert config["kind"] == "roc" and config["prevalence"] == 0.2 and config["roc_mu_range"] == [0.5, 2.0]
    assert config["roc_sigma_range"] == [0.5, 2.0] and config["estimator"] == "sample"
    assert not {"rate_beta", "rate_range", "class_proportion", "class_concentration", "fbeta_beta", "test_size"} & set(config)
    rows = document["rows"]
    tied = {row["tied_pct"] for row in rows}
    untied = {row["samples"] for row in rows}
    assert len(tied) == 1 and len(untied) == 1
    # The pairs tied in truth are left out of every denominator.
    assert untied.pop() == round(4000 * (1 - tied.pop() / 100))
    assert sum(document["batches"]["samples"]) == rows[0]["samples"]
    assert [sum(column) for column in zip(*document["batches"]["incorrect"])] == [row["incorrect"] for row in rows]
    # The record rebuilds the config, as reproduce reads it back.
    assert StudyConfig.from_dict({k: v for k, v in config.items() if k != "version"}).to_dict() == {
        k: v for k, v in config.items() if k != "version"
    }


def test_a_confusion_study_records_exactly_what_it_did_before_there_were_kinds():
    keys = set(StudyConfig(samples=10).to_dict())
    assert keys == {"samples", "classes", "true_um", "true_um_sd", "error", "sds", "metrics", "class_proportion", "class_concentration",
                    "rate_beta", "rate_range", "fbeta_beta", "seed", "chunk_size", "estimator", "test_size"}  # fmt: skip


@pytest.mark.parametrize(
    "args, message",
    [
        (["--prevalence", "0"], "prevalence (the fraction of class 0) must lie in (0, 1), got 0.0"),
        (["--prevalence", "1"], "prevalence (the fraction of class 0) must lie in (0, 1), got 1.0"),
        (["--prevalence", "1.5"], "prevalence (the fraction of class 0) must lie in (0, 1), got 1.5"),
        (["--prevalence", "nan"], "prevalence must be finite, got 'nan'"),
        (["--prevalence", "x"], "prevalence must be a number, got 'x'"),
        (["--roc-mu-range", "3", "0"], "--roc-mu-range is reversed: low 3 > high 0"),
        (["--roc-mu-range", "0", "inf"], "--roc-mu-range must be finite, got inf"),
        (["--roc-mu-range", "0", "100"], "--roc-mu-range must lie within [-38, 38], got (0, 100)"),
        (["--roc-sigma-range", "0", "2"], "--roc-sigma-range must lie within [0.001, 1000], got (0, 2)"),
        (["--roc-sigma-range", "-1", "2"], "--roc-sigma-range must lie within [0.001, 1000], got (-1, 2)"),
        (["--roc-sigma-range", "2", "1"], "--roc-sigma-range is reversed: low 2 > high 1"),
        (["--rate-beta", "2", "1"], "--rate-beta is an option of --study confusion, not of --study roc"),
        (["--classes", "3"], "--classes must be 2 in the roc study, which compares scoring classifiers of two classes; got 3"),
        (["--test-size", "100"], "--test-size is an option of --study confusion, not of --study roc"),
        (["--estimator", "conditional"], "the conditional estimator has no closed form in the roc study"),
        (["--true-um", "uniform-elements"], "--true-um must be uniform or gaussian in the roc study, which draws its true utility"),
        (["--metrics", "accuracy"], "unknown"),
    ],
)
def test_bad_input_of_the_roc_study_is_one_line_and_exit_2_and_writes_nothing(capsys, tmp_path, args, message):
    out = tmp_path / "result.json"
    code, stdout, err = run(capsys, *SMALL, *args, "--out", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    assert len(err.strip().splitlines()) == 1 and err.startswith("mcrank run: error: ")
    assert message in err


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--prevalence", "0.3"], "--prevalence"),
        (["--roc-mu-range", "0", "3"], "--roc-mu-range"),
        (["--roc-sigma-range", "1", "1"], "--roc-sigma-range"),
    ],
)
def test_an_option_of_the_roc_study_given_to_another_kind_is_refused(capsys, tmp_path, args, flag):
    out = tmp_path / "result.csv"
    code, stdout, err = run(capsys, "--samples", "100", "--seed", "1", "--quiet", *args, "--out", str(out))
    assert code == 2 and stdout == "" and not out.exists()
    assert err.strip() == f"mcrank run: error: {flag} is an option of --study roc or --study probabilities, not of --study confusion"


def test_the_library_names_the_parameter_where_the_cli_names_the_flag():
    with pytest.raises(ValueError, match="^prevalence is a parameter of the roc or probabilities study kind, not of kind='confusion'"):
        StudyConfig(prevalence=0.3)
    with pytest.raises(ValueError, match="^rate_beta is a parameter of the confusion study kind, not of kind='roc'"):
        StudyConfig(kind="roc", rate_beta=(1.0, 1.0))
    with pytest.raises(ValueError, match="unknown study kind"):
        StudyConfig(kind="scoring")
