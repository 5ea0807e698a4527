"""The crossover table: interpolation and its delta-method standard error, checked by hand."""

import math

import pytest

from mcrank.crossover import crossover_markdown, crossover_table


def _utility(sd, pct, se, realised=None):
    return {"name": "utility", "sd": sd, "realised_sd": realised, "incorrect_pct": pct, "se_pct": se}


def _metric(name, pct, se):
    return {"name": name, "sd": None, "realised_sd": None, "incorrect_pct": pct, "se_pct": se}


ROWS = [
    _metric("accuracy", 7.5, 0.2),
    _metric("f1", 12.0, 0.3),
    _metric("tpr", 30.0, 0.4),
    _utility(0.0, 0.0, 0.0, 0.0),
    _utility(0.1, 5.0, 0.1, 0.09),
    _utility(0.2, 10.0, 0.2, 0.17),
    _utility(0.3, 15.0, 0.25, 0.24),
]


def test_crossover_interpolates_and_propagates_the_standard_error():
    table = {row["metric"]: row for row in crossover_table(ROWS)}
    accuracy = table["accuracy"]
    # Halfway between (0.1, 5%) and (0.2, 10%): sd 0.15; realised sd halfway, 0.13.
    assert accuracy["crossover_sd"] == pytest.approx(0.15)
    assert accuracy["crossover_realised_sd"] == pytest.approx(0.13)
    # (step / rise) * sqrt(se_m^2 + (1-t)^2 se_left^2 + t^2 se_right^2), t = 1/2, by hand.
    assert accuracy["crossover_se"] == pytest.approx(0.02 * math.sqrt(0.04 + 0.25 * 0.01 + 0.25 * 0.04))
    assert table["f1"]["crossover_sd"] == pytest.approx(0.24)
    assert table["tpr"]["crossover_sd"] is None and table["tpr"]["status"] == "beyond grid"


def test_crossover_rows_go_from_the_most_to_the_least_reliable_metric():
    assert [row["metric"] for row in crossover_table(ROWS)] == ["accuracy", "f1", "tpr"]


def test_crossover_needs_a_sweep():
    with pytest.raises(ValueError, match="sweep"):
        crossover_table([_metric("accuracy", 8.0, 0.1), _utility(0.1, 5.0, 0.1)])


def test_crossover_markdown_names_metrics_and_values():
    text = crossover_markdown(crossover_table(ROWS), title="uniform, gaussian")
    assert "### uniform, gaussian" in text
    assert "| Accuracy | 7.50 ± 0.20 | 0.150 ± 0.005 | 0.130 |" in text
    assert "beyond grid" in text
