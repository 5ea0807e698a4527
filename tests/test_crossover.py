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
    assert "| Accuracy | 7.50 ± 0.20 | 0.1500 ± 0.0046 | 0.130 |" in text
    assert "beyond grid" in text
    noted = crossover_markdown(crossover_table(ROWS), title="uniform, gaussian", note="From `sweep.json`: seed 1.")
    assert noted.splitlines()[:4] == ["### uniform, gaussian", "", "From `sweep.json`: seed 1.", ""]
    assert noted.splitlines()[4:] == text.splitlines()[2:]


def test_jackknife_over_batches_by_hand():
    rows = [
        {**_metric("accuracy", 7.5, 0.1), "incorrect": 75},
        {**_utility(0.1, 5.0, 0.1), "incorrect": 50},
        {**_utility(0.2, 10.0, 0.1), "incorrect": 100},
    ]
    batches = {"samples": [500, 500], "incorrect": [[40, 20, 50], [35, 30, 50]]}
    (row,) = crossover_table(rows, batches=batches)
    assert row["crossover_sd"] == pytest.approx(0.15)
    # Leaving out batch 0: 7% on a curve 6% -> 10%: 0.125; leaving out batch 1: 8% on
    # 4% -> 10%: 0.1667. Jackknife: sqrt((g-1)/g * sum of squared deviations) = 0.0208333.
    assert row["crossover_se"] == pytest.approx(0.0208333, rel=1e-5)
    assert row["se_method"] == "jackknife, 2 batches"
    identical = {"samples": [500, 500], "incorrect": [[37.5, 25, 50], [37.5, 25, 50]]}
    assert crossover_table(rows, batches=identical)[0]["crossover_se"] == pytest.approx(0.0, abs=1e-12)


def test_jackknife_on_a_real_sweep_is_close_to_the_spread_of_independent_runs():
    """The jackknife error of one run matches the scatter of the crossover over runs."""
    import statistics

    from mcrank.engine import run_study

    sweep = tuple(round(0.02 * k, 2) for k in range(16))
    estimates, errors = [], []
    assert len(run_study(samples=2**18, sds=(0.1,), seed=1, chunk_size=2**13).batch_samples) == 32
    for seed in range(100, 116):
        result = run_study(samples=2**18, sds=sweep, metrics=("accuracy",), seed=seed, chunk_size=2**13)
        (row,) = crossover_table(result.rows(), batches=result.to_dict()["batches"])
        estimates.append(row["crossover_sd"])
        errors.append(row["crossover_se"])
    spread = statistics.stdev(estimates)
    typical = statistics.mean(errors)
    # With 16 runs the sample sd is itself uncertain by about 18%: a band of a factor 1.6 either
    # way is a real check that stays clear of chance.
    assert typical / 1.6 < spread < typical * 1.6
