"""The study layer: a StudyConfig checks itself once, when built; text is parsed alike at the edge."""

from __future__ import annotations

import dataclasses

import pytest

from mcrank.cli import main
from mcrank.study import MAX_SDS, StudyConfig, load_experiment, parse_sds, parse_values
from mcrank.study.experiments import MAX_TOML_BYTES


def test_a_config_is_checked_when_built_and_when_replaced():
    config = StudyConfig(samples=10, sds=(0.1,), seed=1)
    assert config.samples == 10 and config.sds == (0.1,)
    with pytest.raises(ValueError, match="samples must be a whole number"):
        StudyConfig(samples=0)
    with pytest.raises(ValueError, match="error sd must be non-negative"):
        dataclasses.replace(config, sds=(-0.1,))


def test_values_take_their_canonical_types_once():
    config = StudyConfig(samples=1e3, sds=[0, 0.5], rate_beta=[2, 1], metrics=["recall"])
    assert config.samples == 1000 and isinstance(config.samples, int)
    assert config.sds == (0.0, 0.5) and config.rate_beta == (2.0, 1.0)
    assert config.metrics == ("tpr",)  # the alias, as its id


def test_two_class_metrics_are_refused_by_name_for_more_classes():
    with pytest.raises(ValueError, match="metric 'tpr' is defined for two classes only, not 3"):
        StudyConfig(classes=3, metrics=("accuracy", "tpr"))
    # At two classes an n-class metric is counted too, by the n-class kernel.
    config = StudyConfig(metrics=("accuracy", "macro_f1"))
    assert config.classes == 2 and not config.binary and StudyConfig().binary


def test_the_defaults_follow_the_number_of_classes():
    two, five = StudyConfig(), StudyConfig(classes=5)
    assert (two.true_um, two.rate_range, two.metrics[:2]) == ("uniform", (0.5, 1.0), ("accuracy", "tpr"))
    assert (five.true_um, five.rate_range) == ("uniform-elements", (0.2, 1.0))
    assert five.metrics == ("accuracy", "balanced_accuracy", "macro_precision", "macro_f1", "mcc", "cohen_kappa")
    with pytest.raises(ValueError, match="hexagon of two-class matrices; for 3 classes choose"):
        StudyConfig(classes=3, true_um="gaussian")
    for bad, message in (({"classes": 1}, "classes must be a whole number from 2 to 50"), ({"classes": 51}, "from 2 to 50"),
                         ({"class_concentration": 0}, "class_concentration must be positive")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            StudyConfig(**bad)


def test_text_parses_alike_for_every_parameter():
    values = parse_values(
        {
            "samples": "1e3",
            "seed": "2e2",
            "chunk_size": "1e4",
            "sds": ["0.1,0.2", "0:0.2:0.1"],
            "metrics": ["accuracy,f1", "mcc"],
            "error": None,
        }
    )
    assert values == {
        "samples": 1000,
        "seed": 200,
        "chunk_size": 10_000,
        "sds": (0.1, 0.2, 0.0, 0.1, 0.2),
        "metrics": ("accuracy", "f1", "mcc"),
    }
    with pytest.raises(ValueError, match="seed must be a whole number"):
        parse_values({"seed": "1.5"})


def test_a_grid_larger_than_allowed_is_refused_before_it_is_built():
    with pytest.raises(ValueError, match=f"at most {MAX_SDS:,} are allowed"):
        parse_sds("0:1:1e-9")


def test_an_experiment_file_over_the_size_limit_is_refused(tmp_path):
    path = tmp_path / "huge.toml"
    path.write_bytes(b"samples = 100\n" + b"#" * MAX_TOML_BYTES)
    with pytest.raises(ValueError, match=f"larger than {MAX_TOML_BYTES:,} bytes"):
        load_experiment(path)


def test_run_config_dev_zero_is_one_line_and_exit_2(capsys):
    # /dev/zero never ends: it must be refused unread, not read into memory.
    code = main(["run", "--config", "/dev/zero", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err == "mcrank run: error: /dev/zero: is a device, not a regular file\n"
