"""Every numeric option of ``mcrank evaluate`` at the float limits (issue 25): 0, subnormals,
1e300, the largest float, inf, NaN, -0.0 and integers too large for a float. Each run either
works, exit 0 with finite, sane output and not one warning, or is refused with one line on
stderr, exit 2, naming the option; never a traceback, a warning or a number outside its range.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FACTORY = str(EXAMPLES / "factory.json")
TRIAGE = str(EXAMPLES / "triage_3class.json")
TRIAGE_LABELS = str(EXAMPLES / "triage_labels.csv")
#: The values thrown at every option.
EXTREMES = ["0", "1e-320", "1e-300", "1e300", "1e308", "inf", "nan", "-0.0", "-1", "1" * 400, "1e20"]
#: Few draws, so that the many runs stay quick; the option under test is given after it.
QUICK = ["--samples", "2000", "--seed", "1"]


def _run(capsys, argv):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            code = main(["evaluate", *argv])
        except SystemExit as exit:  # argparse's own refusals (an --seed that is not an integer)
            code = exit.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err, [str(w.message) for w in caught]


def _finite(value) -> bool:
    """Every number in a JSON value is finite (None stands for undefined)."""
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


def _check_sane(result: dict) -> None:
    """Probabilities in [0, 1]; intervals ordered and within the utility's range."""
    assert _finite(result), result
    curves = result.get("decision_curves", {}).get("posterior")
    if curves is not None:
        assert all(low <= high for band in curves["bands"].values() for low, high in band), curves
        assert all(0 <= p <= 1 for pair in curves["probability_better"] for p in pair["probability"]), curves
    if "utility" not in result:
        return
    u = np.array(result["utility"]["matrix"], dtype=float)
    for c in result["classifiers"]:
        if "utility_yield_interval" in c:
            low, high = c["utility_yield_interval"]
            assert u.min() <= low <= high <= u.max(), c
    for pair in result.get("pairs", []):
        for key in ("flip_probability", "flip_probability_test", "flip_probability_both"):
            if pair.get(key) is not None:
                assert 0 <= pair[key] <= 1, pair


def _expect(capsys, argv, flag):
    code, out, err, caught = _run(capsys, [*argv, "--format", "json"])
    assert caught == [], caught
    if code == 0:
        assert err == "", err
        result = json.loads(out)
        _check_sane(result)
        return result
    assert code == 2 and out == "", (code, err)
    assert err.startswith("mcrank evaluate: error: ") and err.count("\n") == 1, err
    assert flag in err, err
    assert "Traceback" not in err
    return None


CASES = {
    "--prior-count": lambda v: [FACTORY, "--test-uncertainty", *QUICK, "--prior-count", v],
    "--prior-count (labels)": lambda v: ["--labels", TRIAGE_LABELS, "--utility", TRIAGE, "--test-uncertainty", *QUICK, "--prior-count", v],
    "--prior-count (counts)": lambda v: [TRIAGE, "--class-counts", "5,3,2", "--prior-count", v],
    "--sd": lambda v: [FACTORY, "--sd", v],
    "--sd (truncated)": lambda v: [FACTORY, "--sd", v, "--error", "truncated", *QUICK],
    "--sd (test set)": lambda v: [FACTORY, "--sd", v, "--test-uncertainty", *QUICK],
    "--samples": lambda v: [FACTORY, "--test-uncertainty", "--seed", "1", "--samples", v],
    "--seed": lambda v: [FACTORY, "--test-uncertainty", "--samples", "2000", "--seed", v],
    "--class-frequencies": lambda v: [FACTORY, "--class-frequencies", f"{v},1", "--test-uncertainty", *QUICK],
    "--class-frequencies (second)": lambda v: [FACTORY, "--class-frequencies", f"1,{v}", "--test-uncertainty", *QUICK],
    "--class-counts": lambda v: [FACTORY, "--class-counts", f"{v},1", "--test-uncertainty", *QUICK],
    "--class-counts (both)": lambda v: [FACTORY, "--class-counts", f"{v},{v}", "--test-uncertainty", *QUICK],
}


@pytest.mark.parametrize("value", EXTREMES)
@pytest.mark.parametrize("option", list(CASES))
def test_every_numeric_option_works_or_is_refused_in_one_line(capsys, option, value):
    _expect(capsys, CASES[option](value), option.split()[0])


UTILITIES = {
    "diagonal": lambda v: [[v, 0], [0, 1]],
    "off-diagonal": lambda v: [[1, -v], [0, 1]],
    "every entry": lambda v: [[v, -v], [-v, v]],
}


@pytest.mark.parametrize("value", [0.0, 1e-320, 1e-300, 1e300, 1e308, -0.0, -1e308, 1.7976931348623157e308])
@pytest.mark.parametrize("where", list(UTILITIES))
@pytest.mark.parametrize("extra", [[], ["--sd", "0.1"], ["--test-uncertainty", *QUICK], ["--sd", "0.1", "--error", "truncated", *QUICK]])
def test_utility_entries_at_the_float_limits(capsys, where, value, extra):
    utility = json.dumps(UTILITIES[where](value))
    _expect(capsys, [FACTORY, "--utility", utility, *extra], "utility")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_utility_entries_that_are_not_finite(capsys, value):
    code, out, err, caught = _run(capsys, [FACTORY, "--utility", f"[[{value}, 0], [0, 1]]"])
    assert caught == [] and code == 2 and out == "" and err.count("\n") == 1, (code, err)


def _scores_file(tmp_path) -> Path:
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 2, 60)
    lines = ["true,m1,m2"] + [f"{t},{min(1, max(0, t * 0.3 + rng.random() * 0.7)):.4f},{rng.random():.4f}" for t in truth]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("value", EXTREMES)
def test_thresholds_folds_and_the_curves_prior_at_the_float_limits(tmp_path, capsys, value):
    scores = str(_scores_file(tmp_path))
    _expect(capsys, ["--scores", scores, "--positive", "1", "--thresholds", value], "--thresholds")
    _expect(capsys, ["--scores", scores, "--positive", "1", "--thresholds", f"0.2,{value}"], "--thresholds")
    _expect(capsys, ["--scores", scores, "--positive", "1", "--thresholds", "0.2,0.5", "--test-uncertainty", *QUICK,
                     "--prior-count", value], "--prior-count")  # fmt: skip
    _expect(capsys, ["--scores", scores, "--utility", '{"utility": [[1, -3], [0, 0]], "classes": ["1", "0"]}', "--seed", "1",
                     "--folds", value], "--folds")  # fmt: skip


def test_labels_of_many_classes_and_a_small_utility_are_refused_before_tabulating(tmp_path, capsys):
    """The issue's 20,000 distinct labels with a 2x2 utility tried to allocate 3 GiB, then blamed
    the pairs of classifiers. Here 3,000 (a confusion matrix of 72 MB each): the class count is
    checked first, and the message names it."""
    import tracemalloc

    rng = np.random.default_rng(0)
    path = tmp_path / "labels.csv"
    path.write_text("true,A,B\n" + "".join(f"c{i},c{rng.integers(3000)},c{rng.integers(3000)}\n" for i in range(3000)))
    _run(capsys, ["--labels", str(EXAMPLES / "triage_labels.csv"), "--utility", TRIAGE])  # every module imported
    tracemalloc.start()
    try:
        code, out, err, caught = _run(capsys, ["--labels", str(path), "--utility", "[[1, 0], [0, 1]]"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2 and out == "" and caught == [] and err.count("\n") == 1, err
    assert "the labels name 3000 classes" in err and "the utility matrix is 2x2" in err and "pair" not in err, err
    # The bounded reader's buffer (64 MiB, MAX_INPUT_BYTES) and little else: not 2 x 72 MB of counts.
    from mcrank._validation import MAX_INPUT_BYTES

    assert peak < MAX_INPUT_BYTES + (8 << 20), peak


def test_the_largest_prior_makes_every_pair_a_coin_toss_and_beyond_it_is_refused(capsys):
    """The issue: from a prior of 1e50 every pair was reported certain, where about 0.5 is right
    (a prior of that many items swamps the test set). At the largest allowed, 1e12, the
    probabilities are 0.5 (exact with labels, within 4 SE drawn); above it, one line."""
    from mcrank.evaluate import evaluate, evaluate_file

    result = evaluate(json.loads(Path(FACTORY).read_text())["classifiers"], [[15, -335], [-35, 165]], test_uncertainty=True,
                      samples=20_000, rng=1, prior_count=1e12)  # fmt: skip
    (pair,) = result.pairs
    assert abs(pair.flip_probability_test - 0.5) < 4 * 0.5 / np.sqrt(20_000), pair
    labelled = evaluate_file(TRIAGE_LABELS, labels=True, utility=TRIAGE, test_uncertainty=True, samples=100, rng=1, prior_count=1e12)
    assert all(p.flip_probability_test_se is None and abs(p.flip_probability_test - 0.5) < 1e-3 for p in labelled.pairs)
    for value in ("1e50", "1e307"):
        code, out, err, caught = _run(capsys, [FACTORY, "--test-uncertainty", *QUICK, "--prior-count", value])
        assert code == 2 and caught == [] and err.count("\n") == 1 and "--prior-count must be from 1e-06 to 1e+12" in err, err


def test_the_smallest_prior_keeps_the_exact_probabilities():
    """At the smallest prior, 1e-6, the labels' probabilities are still exact (the Gil-Pelaez
    integral converges for the three pairs), and close to those of the default prior."""
    from mcrank.evaluate import evaluate_file

    result = evaluate_file(TRIAGE_LABELS, labels=True, utility=TRIAGE, test_uncertainty=True, samples=2000, rng=1, prior_count=1e-6)
    assert all(0 <= p.flip_probability_test <= 1 for p in result.pairs)
    assert result.test_uncertainty["exact_pairs"] == 3 and all(p.flip_probability_test_se is None for p in result.pairs)
    default = evaluate_file(TRIAGE_LABELS, labels=True, utility=TRIAGE, test_uncertainty=True, samples=2000, rng=1)
    for tiny, one in zip(result.pairs, default.pairs):
        assert tiny.flip_probability_test == pytest.approx(one.flip_probability_test, rel=0.5), (tiny, one)
