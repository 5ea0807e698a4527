"""evaluate's shared pieces: the study's estimator names, the exact normal tail of the
conditional estimator, one tie convention, and the one bounded reader."""

import json
import os

import numpy as np
import pytest
from scipy.special import ndtr

import mcrank.evaluate as ev
from mcrank._io import read_bounded
from mcrank.engine.conditional import NORMAL_SF_ERROR, _incorrect_probabilities, _normal_sf_into, incorrect_probability, normal_sf_exact
from mcrank.evaluate.result import ESTIMATORS
from mcrank.evaluate.uncertainty import _flip

FACTORY = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}
EQ4 = [[15, -335], [-35, 165]]


def test_the_estimators_are_the_studys():
    from mcrank.study.config import ESTIMATORS as STUDY_ESTIMATORS

    assert set(ESTIMATORS) == {str(getattr(e, "name", e)) for e in STUDY_ESTIMATORS}


@pytest.mark.parametrize(("estimator", "method"), [("conditional", "closed form"), ("sample", "monte carlo")])
def test_the_old_names_are_deprecated_aliases(estimator, method):
    error = "gaussian"
    new = ev.evaluate(FACTORY, EQ4, sd=0.1, error=error, samples=2000, rng=3, estimator=estimator)
    for old in ({"method": method}, {"method": estimator}, {"estimator": method}):
        again = ev.evaluate(FACTORY, EQ4, sd=0.1, error=error, samples=2000, rng=3, **old)
        assert again.pairs == new.pairs
        assert (again.estimator, again.method) == (estimator, method)
    document = new.to_dict()
    deprecated = "closed_form" if estimator == "conditional" else "monte_carlo"
    assert document["estimator"] == {"name": estimator, **document[deprecated]}


def test_estimator_and_method_must_agree():
    with pytest.raises(ValueError, match="estimator 'sample' and method 'conditional' disagree"):
        ev.evaluate(FACTORY, EQ4, sd=0.1, estimator="sample", method="closed form")
    with pytest.raises(ValueError, match="unknown estimator 'exact'; choose from sample, conditional"):
        ev.evaluate(FACTORY, EQ4, sd=0.1, estimator="exact")
    with pytest.raises(ValueError, match="truncated error model has no closed form: its flip probabilities take the estimator 'sample'"):
        ev.evaluate(FACTORY, EQ4, sd=0.1, error="truncated", estimator="conditional")


def test_the_exact_tail_is_scipys_and_the_kernels_within_their_error():
    z = np.concatenate((np.linspace(-9, 9, 3601), [0.0, -0.0, np.inf, -np.inf]))
    exact = normal_sf_exact(z)
    assert np.allclose(exact, ndtr(-z), rtol=1e-13, atol=1e-300)  # relative, far into the tail
    approximate = np.empty_like(z)
    _normal_sf_into(z, approximate)
    assert np.max(np.abs(exact - approximate)) < NORMAL_SF_ERROR
    assert normal_sf_exact(np.array([[0.5]])).shape == (1, 1) and np.isnan(normal_sf_exact(np.nan))


def test_one_conditional_probability_for_the_study_and_evaluate():
    rng = np.random.default_rng(0)
    margin, spread = rng.normal(0, 0.1, 500), rng.uniform(0, 0.5, 500)
    margin[:5], spread[5:10] = 0.0, 0.0
    exact = incorrect_probability(margin, spread, 0.2)
    kernel = np.empty(500)
    _incorrect_probabilities(np.ones(500), margin, spread, 0.2, 500, kernel)
    assert np.max(np.abs(exact - kernel)) < NORMAL_SF_ERROR
    # Step 6 where nothing is perturbed: a tie (or a loss) is ranked incorrectly.
    assert np.array_equal(exact[5:10], np.where(margin[5:10] > 0, 0.0, 1.0)) and np.all(exact[:5] == 0.5)
    # evaluate's flips are this function's, digit for digit (the factory example: 0.2716).
    flips = ev.evaluate(FACTORY, EQ4, sd=0.1).pairs[0].flip_probability
    fractions = np.array([FACTORY["A"], FACTORY["B"]]) / 100
    u = (np.array(EQ4) - np.min(EQ4)) / (np.max(EQ4) - np.min(EQ4))
    d = np.sum(u * (fractions[0] - fractions[1]))
    assert abs(flips - float(incorrect_probability(d, np.linalg.norm(fractions[0] - fractions[1]), 0.1))) < 1e-15
    assert round(flips, 4) == 0.2716


def test_a_posterior_tie_counts_as_a_flip_as_in_the_study():
    differences = np.array([0.2, 0.0, -0.1])
    assert _flip(differences, 1.0).tolist() == [0.0, 1.0, 1.0]
    assert _flip(differences, -1.0).tolist() == [1.0, 1.0, 0.0]


def test_the_bounded_reader(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"\xef\xbb\xbf" + b"x" * 16)
    assert read_bounded(path, limit=19, what="a test file") == "x" * 16  # the byte-order mark skipped
    assert read_bounded(path, limit=19, what="a test file", text=False) == b"\xef\xbb\xbf" + b"x" * 16
    with pytest.raises(ValueError, match=f"^{path}: larger than 18 bytes, the limit of a test file$"):
        read_bounded(path, limit=18, what="a test file")
    with pytest.raises(ValueError, match="^/dev/zero: is a device, not a regular file$"):  # refused unread
        read_bounded("/dev/zero", limit=64 << 20, what="an input file")
    path.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(ValueError, match=f"^{path}: not a text file \\(not UTF-8\\)$"):
        read_bounded(path, limit=100, what="a test file")
    link = tmp_path / "link.json"
    os.symlink(tmp_path / "missing.json", link)
    with pytest.raises(ValueError, match="link.json: a link to '.*missing.json', which does not exist"):
        read_bounded(link, limit=100, what="a test file")
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "absent.json", limit=100, what="a test file")


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux's /proc")
def test_a_file_that_fails_to_read_is_named(tmp_path):
    """Reading /proc/self/mem from its start fails with EIO, which said "[Errno 5] Input/output
    error" and no file name."""
    link = tmp_path / "X.json"
    os.symlink("/proc/self/mem", link)
    with pytest.raises(OSError, match="X.json") as raised:
        read_bounded(link, limit=100, what="a test file")
    assert raised.value.filename == str(link)


def test_one_home_for_the_limits():
    from mcrank import _validation
    from mcrank.evaluate import MAX_INPUT_BYTES, MAX_SAMPLES
    from mcrank.study.config import MAX_SAMPLES as STUDY_MAX_SAMPLES
    from mcrank.study.experiments import MAX_TOML_BYTES

    assert MAX_SAMPLES == _validation.MAX_EVALUATE_SAMPLES and MAX_INPUT_BYTES == _validation.MAX_INPUT_BYTES
    assert STUDY_MAX_SAMPLES == _validation.MAX_STUDY_SAMPLES and MAX_TOML_BYTES == _validation.MAX_EXPERIMENT_BYTES


def test_the_json_and_csv_name_the_estimator(tmp_path, capsys):
    from mcrank.cli import main

    path = tmp_path / "f.json"
    path.write_text(json.dumps({"classifiers": FACTORY, "utility": EQ4}))
    assert main(["evaluate", str(path), "--sd", "0.1", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["estimator"]["name"] == "conditional" and document["closed_form"]["exact"] is True
    assert main(["evaluate", str(path), "--sd", "0.1", "--error", "truncated", "--samples", "100", "--seed", "1", "--format", "csv"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if not line.startswith("#")]
    header, first = rows[0].split(","), rows[1].split(",")
    row = dict(zip(header, first))
    assert row["estimator"] == "sample" and row["estimator_samples"] == row["monte_carlo_samples"] == "100"


def test_the_cli_takes_the_estimator(tmp_path, capsys):
    from mcrank.cli import main

    path = tmp_path / "f.json"
    path.write_text(json.dumps({"classifiers": FACTORY, "utility": EQ4}))
    assert main(["evaluate", str(path), "--sd", "0.1", "--estimator", "sample", "--samples", "1000", "--seed", "1", "--details"]) == 0
    assert "sample estimator (Monte Carlo), 1000 samples, seed 1" in capsys.readouterr().out
    assert main(["evaluate", str(path), "--sd", "0.1", "--error", "truncated", "--estimator", "conditional"]) == 2
    assert "the truncated error model has no closed form" in capsys.readouterr().err
    assert main(["evaluate", str(path), "--estimator", "sample"]) == 2
    assert "--estimator says how the flip probabilities under an error sd are estimated: give --sd" in capsys.readouterr().err


def test_library_errors_name_the_parameter_and_the_cli_the_flag(tmp_path, capsys):
    import re
    from pathlib import Path

    from mcrank.cli import main

    path = tmp_path / "labels.csv"
    path.write_text("true,A\nlong,long\nshort,long\n")
    with pytest.raises(ValueError, match="labels need a utility matrix: give one with the parameter utility"):
        ev.evaluate_file(path, labels=True)
    assert main(["evaluate", "--labels", str(path)]) == 2
    assert "labels need a utility matrix: give one with --utility" in capsys.readouterr().err
    # No message of the library names a flag (read_utility's default source is the one label that does).
    package = Path(ev.__file__).parent
    for module in package.glob("*.py"):
        for number, line in enumerate(module.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if "``" in code or not re.match(r"\s*(raise|f?\"|where|\w+ = f?\")", code) and "ValueError(" not in code:
                continue  # a docstring, or code that is not a message
            if re.search(r"[\"'][^\"']*--[a-z]", code) and 'source: str = "--utility"' not in code:
                raise AssertionError(f"{module.name}:{number} names a flag: {line.strip()}")
