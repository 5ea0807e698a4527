"""evaluate's options, declared once (mcrank.evaluate.options): the object and its keywords give
the same ranking, each option is checked when the object is built, and ``mcrank evaluate``'s
flags and its refusals of a flag a mode does not read are generated from the fields."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import build_parser, main
from mcrank.evaluate import EvaluateOptions, evaluate, evaluate_file
from mcrank.evaluate.options import MODES, option_fields

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CONFUSIONS = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]], "C": [[30, 20], [20, 30]]}
UTILITY = [[15, -335], [-35, 165]]


def test_the_options_object_and_its_keywords_give_the_same_ranking():
    options = EvaluateOptions(sd=0.1, error="truncated", samples=500, rng=3, test_uncertainty=True, metrics=["accuracy", "f1"])
    by_object = evaluate(CONFUSIONS, UTILITY, options)
    by_keywords = evaluate(CONFUSIONS, UTILITY, sd=0.1, error="truncated", samples=500, rng=3, test_uncertainty=True,
                           metrics=["accuracy", "f1"])  # fmt: skip
    assert by_object.to_dict() == by_keywords.to_dict()
    # A keyword in place of the object's field.
    assert evaluate(CONFUSIONS, UTILITY, options, sd=0.2).utility.sd == 0.2
    by_file = evaluate_file(EXAMPLES / "factory.json", options)
    assert by_file.samples == 500 and by_file.estimator == "sample"


@pytest.mark.parametrize(
    "values, message",
    [
        ({"sd": -1}, "sd must be positive"),
        ({"sd": "a"}, "sd"),
        ({"error": "uniform"}, "unknown error model 'uniform'"),
        ({"estimator": "exact"}, "unknown estimator 'exact'"),
        ({"samples": 0}, "samples must be a whole number"),
        ({"prior_count": 0}, "prior_count must be positive"),
        ({"prior_count": 1e300}, "prior_count must be from"),
        ({"class_frequencies": [0.5, 0.5], "class_counts": [1, 1]}, "class_frequencies or class_counts, not both"),
        ({"estimator": "sample", "method": "closed form"}, "estimator 'sample' and method 'conditional' disagree"),
    ],
)
def test_each_option_is_checked_when_the_object_is_built(values, message):
    with pytest.raises(ValueError, match=message):
        EvaluateOptions(**values)


def test_a_metric_list_that_is_a_string_is_refused():
    with pytest.raises(TypeError, match="metrics must be a list"):
        EvaluateOptions(metrics="accuracy")


def test_an_options_object_of_another_type_is_refused():
    with pytest.raises(TypeError, match="EvaluateOptions"):
        evaluate(CONFUSIONS, UTILITY, {"sd": 0.1})


def test_the_options_are_checked_once_when_given_as_an_object(monkeypatch):
    # evaluate takes the object's values as they are: it checks none of them again.
    options = EvaluateOptions(sd=0.1)
    calls = []
    monkeypatch.setattr(EvaluateOptions, "__post_init__", lambda self: calls.append(self))
    evaluate(CONFUSIONS, UTILITY, options)
    assert calls == []


def test_every_option_with_a_flag_is_a_flag_of_evaluate():
    subparsers = next(a for a in build_parser()._actions if a.dest == "command")
    parser = subparsers.choices["evaluate"]
    parser.format_help()  # its flags are added when it is first used
    flags = {flag for action in parser._actions for flag in action.option_strings}
    assert {spec.metadata["flag"] for spec in option_fields()} <= flags
    assert all(set(spec.metadata["modes"]) <= set(MODES) and "matrices" in spec.metadata["modes"] for spec in option_fields())


def _mode_arguments(tmp_path, mode):
    scores = tmp_path / "scores.csv"
    rng = np.random.default_rng(1)
    scores.write_text("true,a\n" + "".join(f"{('yes', 'no')[k % 2]},{rng.random()!r}\n" for k in range(20)))
    return {
        "scores": ["--scores", scores, "--positive", "yes"],
        "folds": ["--labels", EXAMPLES / "wine_folds.csv", "--utility", EXAMPLES / "wine_utility.json", "--folds-column", "fold"],
        "per-item": ["--labels", EXAMPLES / "fraud_labels.csv", "--utility", EXAMPLES / "fraud_per_item.json"],
    }[mode]


_VALUES = {"--sd": ["0.1"], "--error": ["truncated"], "--estimator": ["sample"], "--test-uncertainty": [], "--prior-count": ["2"],
           "--class-frequencies": ["0.5,0.5"], "--class-counts": ["1,1"], "--samples": ["10"], "--seed": ["1"],
           "--metrics": ["accuracy"]}  # fmt: skip
_UNREAD = [(mode, spec.metadata["flag"]) for spec in option_fields() for mode in MODES if mode not in spec.metadata["modes"]]


def test_some_options_are_not_read_in_some_modes():
    assert ("scores", "--estimator") in _UNREAD and ("folds", "--test-uncertainty") in _UNREAD and len(_UNREAD) >= 15


@pytest.mark.parametrize("mode, flag", _UNREAD)
def test_an_option_a_mode_does_not_read_is_refused_in_one_line(capsys, tmp_path, mode, flag):
    code = main(["evaluate", *map(str, _mode_arguments(tmp_path, mode)), flag, *_VALUES[flag]])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and captured.err.count("\n") == 1, captured.err
    assert flag in captured.err and "error" in captured.err


def test_the_samples_help_states_the_default_each_mode_draws(capsys, tmp_path):
    # Each mode has its own default: the help names each, and a run without --samples draws it
    # (as its JSON records).
    import json
    import re

    parser = build_parser()
    parser.parse_args(["evaluate", "x.json"])  # evaluate's flags are added when first used
    sub = parser._subparsers._group_actions[0].choices["evaluate"]
    help_text = " ".join(next(a.help for a in sub._actions if "--samples" in a.option_strings).split())
    stated = [int(n) for n in re.findall(r"\b\d+\b", help_text)]
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 40)
    scores = tmp_path / "scores.csv"
    scores.write_text("true,a,b\n" + "".join(f"{('none', 'event')[t]},{rng.random() / 2 + t / 2:.4f},{rng.random():.4f}\n" for t in truth))
    utility = '{"utility": [[1, -3], [0, 0]], "classes": ["event", "none"]}'
    runs = [  # in the help's order: confusion matrices, scores, decision curves, folds, per item
        (["examples/factory.json", "--test-uncertainty"], ("test_uncertainty", "samples")),
        (["--scores", str(scores), "--utility", utility, "--threshold-choice", "test", "--test-uncertainty"], ("scoring", "posterior", "samples")),
        (["--scores", str(scores), "--positive", "event", "--thresholds", "0.5", "--test-uncertainty"], ("decision_curves", "posterior", "samples")),
        (["--labels", "examples/wine_folds.csv", "--utility", "examples/wine_utility.json", "--folds-column", "fold", "--repeats", "4"], ("samples",)),
        (["--labels", "examples/fraud_labels.csv", "--utility", "examples/fraud_per_item.json", "--test-uncertainty"], ("test_uncertainty", "samples")),
    ]  # fmt: skip
    drawn = []
    for arguments, key in runs:
        arguments = [str(EXAMPLES.parent / a) if a.startswith("examples/") else a for a in arguments]
        assert main(["evaluate", *arguments, "--seed", "1", "--format", "json"]) == 0, arguments
        document = json.loads(capsys.readouterr().out)
        for part in key:
            document = document[part]
        drawn.append(document)
    assert stated == drawn, help_text
