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


def test_n_class_metrics_without_a_two_class_form_are_refused_by_name():
    with pytest.raises(ValueError, match="metric 'macro_f1' has no two-class form for the two-class study"):
        StudyConfig(metrics=("accuracy", "macro_f1"))


def test_text_parses_alike_for_every_parameter():
    values = parse_values({"samples": "1e3", "seed": "2e2", "chunk_size": "1e4", "sds": ["0.1,0.2", "0:0.2:0.1"], "metrics": ["accuracy,f1", "mcc"], "error": None})
    assert values == {"samples": 1000, "seed": 200, "chunk_size": 10_000, "sds": (0.1, 0.2, 0.0, 0.1, 0.2), "metrics": ("accuracy", "f1", "mcc")}
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
    # /dev/zero never ends: it must be refused after the limit, not read into memory.
    code = main(["run", "--config", "/dev/zero", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("mcrank run: error: /dev/zero: larger than")
