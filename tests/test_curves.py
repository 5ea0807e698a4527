"""Decision curves (mcrank.evaluate.curves): net benefit against the dcurves package and by
hand, the posterior probability that one model's net benefit exceeds another's against
scipy's incomplete beta function, a plain NumPy posterior and ``evaluate --test-uncertainty``,
the bands against NumPy draws, bad input, the figure and the CLI."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from scipy.special import betainc

from mcrank.cli import main
from mcrank.evaluate import (
    ItemLabels,
    confusions_from_labels,
    decision_curves,
    evaluate,
    load_scores,
    net_benefit_utility,
)
from mcrank.figures.decision_curves import decision_curve_figure


def _logistic(z):
    return 1.0 / (1.0 + np.exp(-z))


def _test_set(items=400, seed=0, prevalence=0.3):
    """Labels 0/1 (1 = event) and three models' probabilities, two of them rounded to 2
    decimals so that scores fall exactly on thresholds (the >= convention is exercised)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(items) < prevalence).astype(int)
    x = rng.normal(size=items) + 1.2 * y
    scores = {
        "sharp": np.round(_logistic(1.5 * x - 1.5), 2),
        "blunt": np.round(_logistic(0.6 * x - 1.0 + 0.4 * rng.normal(size=items)), 2),
        "raw": _logistic(x - 1.2),
    }
    scores["sharp"][:3] = [0.0, 1.0, 0.5]  # the ends of [0, 1] are probabilities too
    return y, scores


# --- the curves ------------------------------------------------------------------------------


@pytest.mark.slow
def test_net_benefit_matches_the_dcurves_package():
    # dcurves is a test-only dependency (pyproject's test extra): the reference implementation
    # of decision-curve analysis (treat when probability >= threshold).
    import pandas as pd
    from dcurves import dca

    y, scores = _test_set()
    thresholds = np.round(np.arange(1, 100) / 100, 2)
    curves = decision_curves(y, scores, thresholds=thresholds)
    reference = dca(data=pd.DataFrame({"outcome": y, **scores}), outcome="outcome", modelnames=list(scores), thresholds=thresholds)
    for name in [*scores, "all", "none"]:
        rows = reference[reference["model"] == name]
        np.testing.assert_array_equal(rows["threshold"].to_numpy(), thresholds)
        ours = {"all": curves.treat_all, "none": curves.treat_none}.get(name, curves.net_benefit.get(name))
        np.testing.assert_allclose(ours, rows["net_benefit"].to_numpy(dtype=float), rtol=0, atol=1e-12, err_msg=name)


def test_net_benefit_by_hand_with_probabilities_on_the_thresholds():
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    p = np.array([0.9, 0.5, 0.2, 0.5, 0.3, 0.2, 0.1, 0.0])
    curves = decision_curves(y, {"m": p}, thresholds=[0.2, 0.5, 0.95])
    # p_t = 0.2: treated 0.9, 0.5, 0.2 | 0.5, 0.3, 0.2: TP 3, FP 3, odds 1/4.
    # p_t = 0.5: treated 0.9, 0.5 | 0.5: TP 2, FP 1, odds 1.  p_t = 0.95: none.
    np.testing.assert_allclose(curves.net_benefit["m"], [3 / 8 - 3 / 8 / 4, 2 / 8 - 1 / 8, 0.0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(curves.treat_all, [3 / 8 - 5 / 8 / 4, 3 / 8 - 5 / 8, 3 / 8 - 5 / 8 * 19], rtol=0, atol=1e-13)
    assert curves.prevalence == 3 / 8


def test_net_benefit_is_the_utility_yield_of_the_threshold_path():
    y, scores = _test_set(items=200, seed=3)
    curves = decision_curves(y, scores, thresholds=[0.1, 0.25, 0.4])
    for k, t in enumerate(curves.thresholds):
        # Class 0 = positive = treat, in mcrank's layout (rows = output, columns = true class).
        predictions = {name: (np.where(y == 1, "treat", "no"), np.where(p >= t, "treat", "no")) for name, p in scores.items()}
        confusions, classes = confusions_from_labels(predictions, classes=("treat", "no"))
        result = evaluate(confusions, net_benefit_utility(t), classes=classes)
        for c in result.classifiers:
            assert c.utility_yield == pytest.approx(curves.net_benefit[c.name][k], abs=1e-14)
    np.testing.assert_array_equal(net_benefit_utility(0.25), [[1, -1 / 3], [0, 0]])


def test_a_file_of_scores_gives_the_same_curves(tmp_path):
    y, scores = _test_set(items=50, seed=4)
    path = tmp_path / "scores.csv"
    rows = ["true," + ",".join(scores)] + [",".join([("event" if v else "none"), *(repr(float(s[i])) for s in scores.values())])
                                           for i, v in enumerate(y)]  # fmt: skip
    path.write_text("\n".join(rows) + "\n")
    from_file = decision_curves(load_scores(path, positive="event"))
    from_arrays = decision_curves(y, scores)
    for name in scores:
        np.testing.assert_array_equal(from_file.net_benefit[name], from_arrays.net_benefit[name])
    assert from_file.classes == ("event", "none")


# --- the posterior ---------------------------------------------------------------------------


def _joint_cells(y, a, b, t):
    """The 4 cells where A and B decide differently, counted item by item: A alone treats a
    positive, a negative; B alone treats a positive, a negative."""
    ta, tb, pos = a >= t, b >= t, y == 1
    return np.array([np.sum(ta & ~tb & pos), np.sum(ta & ~tb & ~pos), np.sum(~ta & tb & pos), np.sum(~ta & tb & ~pos)])


def test_probability_at_one_half_is_an_incomplete_beta_function():
    # At p_t = 1/2 the weights are +1 (A alone, positive; B alone, negative) and -1 (the
    # others): P(NB_A > NB_B) = P(G+ > G-) with independent gammas = I_{1/2}(alpha-, alpha+).
    y, scores = _test_set(items=300, seed=5)
    curves = decision_curves(y, scores, thresholds=[0.5], test_uncertainty=True, samples=100, rng=1, prior_count=0.8)
    for (a, b), probability in curves.probability_better.items():
        cells = _joint_cells(y, scores[a], scores[b], 0.5) + 0.8 / 8
        plus, minus = cells[0] + cells[3], cells[1] + cells[2]
        assert probability[0] == pytest.approx(betainc(minus, plus, 0.5), abs=1e-10), (a, b)
        assert curves.exact[a, b].all()


def test_probability_agrees_with_a_numpy_posterior():
    y, scores = _test_set(items=120, seed=6)
    thresholds = [0.05, 0.2, 0.35, 0.6, 0.8]
    curves = decision_curves(y, scores, thresholds=thresholds, test_uncertainty=True, samples=100, rng=2)
    rng = np.random.default_rng(7)
    draws = 200_000
    for (a, b), probability in curves.probability_better.items():
        for k, t in enumerate(thresholds):
            # The full joint table of 8 cells, Dirichlet(counts + 1/8), and the net benefits.
            pos, ta, tb = y == 1, scores[a] >= t, scores[b] >= t
            cells = [(p_, x, z) for p_ in (True, False) for x in (True, False) for z in (True, False)]
            counts = np.array([np.sum((pos == p_) & (ta == x) & (tb == z)) for p_, x, z in cells]) + 1 / 8
            f = rng.dirichlet(counts, size=draws)
            odds = t / (1 - t)
            nb = {}
            for side, which in (("a", 1), ("b", 2)):
                treated_pos = sum(f[:, i] for i, c in enumerate(cells) if c[0] and c[which])
                treated_neg = sum(f[:, i] for i, c in enumerate(cells) if not c[0] and c[which])
                nb[side] = treated_pos - odds * treated_neg
            reference = np.mean(nb["a"] > nb["b"])
            se = max(np.sqrt(reference * (1 - reference) / draws), 1 / draws)
            assert abs(probability[k] - reference) <= 4 * se, (a, b, t, probability[k], reference)


def test_probability_is_that_of_evaluate_with_labels_at_the_threshold():
    # The same posterior as ``evaluate --labels --test-uncertainty``: the pair thresholded at
    # p_t under U(p_t) flips with probability P(NB_worse > NB_better).
    y, scores = _test_set(items=150, seed=8)
    t = 0.3
    curves = decision_curves(y, scores, thresholds=[t], test_uncertainty=True, samples=100, rng=3)
    names = list(scores)
    truth = np.where(y == 1, 0, 1)  # class 0 = positive = treat
    outputs = {name: np.where(scores[name] >= t, 0, 1) for name in names}
    confusions = {name: np.bincount(o * 2 + truth, minlength=4).reshape(2, 2) for name, o in outputs.items()}
    result = evaluate(confusions, net_benefit_utility(t), classes=("event", "none"), labels=ItemLabels(truth, outputs),
                      test_uncertainty=True, samples=100, rng=1)  # fmt: skip
    for pair in result.pairs:
        if pair.flip_probability_test is None:
            continue
        key = (pair.better, pair.worse) if (pair.better, pair.worse) in curves.probability_better else (pair.worse, pair.better)
        better_wins = curves.probability_better[key][0] if key[0] == pair.better else 1 - curves.probability_better[key][0]
        assert 1 - better_wins == pytest.approx(pair.flip_probability_test, abs=1e-10)


def test_bands_cover_as_a_numpy_posterior_says():
    y, scores = _test_set(items=200, seed=9)
    thresholds = [0.1, 0.3, 0.5]
    samples = 40_000
    curves = decision_curves(y, scores, thresholds=thresholds, test_uncertainty=True, samples=samples, rng=4)
    rng = np.random.default_rng(10)
    draws = 200_000
    for name, p in scores.items():
        for k, t in enumerate(thresholds):
            treated, pos = p >= t, y == 1
            counts = np.array([np.sum(treated & pos), np.sum(treated & ~pos), np.sum(~treated & pos), np.sum(~treated & ~pos)]) + 1 / 4
            f = rng.dirichlet(counts, size=draws)
            nb = f[:, 0] - t / (1 - t) * f[:, 1]
            low, high = curves.bands[name][k]
            # The share of the reference posterior below each end: 2.5 %, up to the Monte
            # Carlo error of our quantile (samples) and of the reference (draws).
            se = np.sqrt(0.025 * 0.975 * (1 / samples + 1 / draws))
            assert abs(np.mean(nb < low) - 0.025) <= 4 * se, (name, t)
            assert abs(np.mean(nb > high) - 0.025) <= 4 * se, (name, t)
            assert low <= curves.net_benefit[name][k] <= high


def test_same_seed_same_bands_and_the_seed_is_recorded():
    y, scores = _test_set(items=80, seed=11)
    first = decision_curves(y, scores, thresholds=[0.2, 0.4], test_uncertainty=True, samples=500, rng=12)
    second = decision_curves(y, scores, thresholds=[0.2, 0.4], test_uncertainty=True, samples=500, rng=12)
    assert first.seed == 12
    for name in scores:
        np.testing.assert_array_equal(first.bands[name], second.bands[name])
    assert decision_curves(y, scores, thresholds=[0.2], test_uncertainty=True, samples=10).seed is not None


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(scores={"m": [0.2, 1.2, 0.3, 0.1]}), r"scores\['m'\]: item 1: 1.2 is not a probability in \[0, 1\]"),
        (dict(scores={"m": [0.2, -0.1, 0.3, 0.1]}), r"scores\['m'\]: item 1: -0.1 is not a probability"),
        (dict(scores={"m": [0.2, np.nan, 0.3, 0.1]}), r"scores\['m'\]: item 1: score nan is not a finite number"),
        (dict(scores={"m": [0.2, 0.3]}), r"scores\['m'\]: expected 4 scores"),
        (dict(thresholds=[0.0, 0.5]), r"thresholds: 0.0 is not a threshold probability in \(0, 1\)"),
        (dict(thresholds=[0.5, 1.0]), r"thresholds: 1.0 is not"),
        (dict(thresholds=[0.5, np.nan]), r"thresholds: nan is not"),
        (dict(thresholds=[0.5, 0.2]), r"thresholds: must be strictly increasing"),
        (dict(y_true=[1, 1, 1, 1]), r"y_true: only one class"),
        (dict(y_true=["a", "b", "a", "b"]), r"positive: give the label of the positive class"),
        (dict(y_true=[0, 1, 2, 1]), r"y_true: 3 distinct labels"),
        (dict(test_uncertainty=True, prior_count=0), r"prior_count must be from 1e-06 to 1e\+12"),
        (dict(test_uncertainty=True, samples=0), r"samples"),
    ],
)
def test_bad_input_names_the_parameter(change, message):
    arguments = dict(y_true=[1, 0, 1, 0], scores={"m": [0.9, 0.2, 0.6, 0.4]}) | change
    with pytest.raises(ValueError, match=message):
        decision_curves(arguments.pop("y_true"), arguments.pop("scores"), **arguments)


# --- the figure ------------------------------------------------------------------------------


def test_the_figure_draws_curves_bands_and_a_panel_per_model_against_the_best():
    y, scores = _test_set(items=100, seed=13)
    curves = decision_curves(y, scores, test_uncertainty=True, samples=200, rng=1)
    with_posterior = decision_curve_figure(curves)
    assert isinstance(with_posterior, Figure) and len(with_posterior.axes) == 3  # the curves, two models minus the best
    top, *panels = with_posterior.axes
    assert len(top.collections) == 3  # a band per model, up to three models
    assert {line.get_label() for line in top.get_lines()} >= {"treat all", "treat none", *scores}
    assert [axes.get_title() for axes in panels] == [f"{name} minus {curves.best}" for name in scores if name != curves.best]
    plain = decision_curve_figure(decision_curves(y, scores))
    assert len(plain.axes) == 1 and not plain.axes[0].collections


def test_six_models_get_small_multiples_one_colour_each_and_a_legend_inside():
    rng = np.random.default_rng(21)
    y = (rng.random(300) < 0.3).astype(int)
    scores = {f"model_{k}": _logistic((0.4 + 0.3 * k) * (rng.normal(size=300) + 1.2 * y) - 1.0) for k in range(6)}
    curves = decision_curves(y, scores, test_uncertainty=True, samples=200, rng=2)
    figure = decision_curve_figure(curves)
    top, *panels = figure.axes
    assert len(panels) == 5 and len(figure.axes) == 6  # one panel per model but the best
    assert not top.collections  # six bands together would hide each other: each is in its panel
    colour = {line.get_label(): to_hex(line.get_color()) for line in top.get_lines() if line.get_label() in scores}
    assert len(set(colour.values())) == 6  # one colour per model
    for axes in panels:
        name = axes.get_title().split(" minus ")[0]
        assert to_hex(axes.title.get_color()) == colour[name]
        assert {to_hex(line.get_color()) for line in axes.get_lines() if line.get_linewidth() > 1} == {colour[name]}
        assert to_hex(axes.collections[0].get_facecolor()[0][:3]) == colour[name]  # its band, in its colour
    (legend,) = figure.legends
    assert sorted(text.get_text() for text in legend.get_texts()) == sorted(["treat all", "treat none", *scores])
    canvas = FigureCanvasAgg(figure)
    canvas.draw()  # the constrained layout places the legend
    box, page = legend.get_window_extent(canvas.get_renderer()), figure.bbox
    assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1


def test_the_difference_bands_are_those_of_the_joint_table():
    """Against plain NumPy: the Dirichlet over the 8 cells (true class, one model treats, the
    best treats) with the prior's count / 8 each, the net benefit difference of each draw."""
    y, scores = _test_set(items=150, seed=5)
    thresholds = np.array([0.2, 0.4])
    curves = decision_curves(y, scores, thresholds=thresholds, test_uncertainty=True, samples=40_000, rng=4)
    best, rng = curves.best, np.random.default_rng(0)
    assert best == max(scores, key=lambda name: curves.net_benefit[name].mean()) and best not in curves.difference_bands
    for name in scores:
        if name == best:
            continue
        for k, t in enumerate(thresholds):
            table = np.zeros((2, 2, 2))
            for event, one, other in zip(y, scores[name] >= t, scores[best] >= t):
                table[event, int(one), int(other)] += 1
            f = rng.dirichlet(table.ravel() + 1.0 / 8, 40_000).reshape(-1, 2, 2, 2)
            w = t / (1 - t)
            # Net benefit: + TP - w FP; the one model's minus the best one's.
            benefit = np.array([-w, 1.0])  # by true class: 0 = no event, 1 = event
            difference = np.einsum("sjab,j,a->s", f, benefit, [0.0, 1.0]) - np.einsum("sjab,j,b->s", f, benefit, [0.0, 1.0])
            expected = np.quantile(difference, [0.025, 0.975])
            assert np.allclose(curves.difference_bands[name][k], expected, atol=0.006), (name, t)


# --- the CLI ---------------------------------------------------------------------------------


def _scores_file(tmp_path, items=60, seed=14, names=None):
    """A --scores file of ``_test_set``'s models, under ``names`` if given."""
    y, scores = _test_set(items=items, seed=seed)
    path = tmp_path / "scores.csv"
    lines = ["true," + ",".join(names or scores)]
    lines += [",".join(["event" if v else "none", *(repr(float(s[i])) for s in scores.values())]) for i, v in enumerate(y)]
    path.write_text("\n".join(lines) + "\n")
    return path, y, scores


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_json_curves_equal_the_api(tmp_path, capsys):
    path, y, scores = _scores_file(tmp_path)
    code, out, err = run(capsys, "--scores", path, "--positive", "event", "--thresholds", "0.1:0.5:0.1", "--test-uncertainty",
                         "--seed", 3, "--samples", 1000, "--format", "json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)["decision_curves"]
    api = decision_curves(y, scores, thresholds=[0.1, 0.2, 0.3, 0.4, 0.5], test_uncertainty=True, samples=1000, rng=3)
    assert data["thresholds"] == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5], abs=1e-15)
    for name in scores:
        assert data["net_benefit"][name] == pytest.approx(api.net_benefit[name].tolist(), abs=1e-15)
        np.testing.assert_array_equal(data["posterior"]["bands"][name], api.bands[name])
    assert data["posterior"]["seed"] == 3


def test_cli_table_and_plot(tmp_path, capsys):
    path, _, scores = _scores_file(tmp_path)
    plot = tmp_path / "curves.png"
    code, out, err = run(capsys, "--scores", path, "--positive", "event", "--thresholds", "0.1,0.2,0.3", "--test-uncertainty",
                         "--seed", 1, "--plot", plot)  # fmt: skip
    assert code == 0, err
    assert "Decision curves" in out and "treat all" in out and "P(" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--thresholds", "0,0.5"], "--thresholds"),
        (["--thresholds", "0.5,1.5"], "--thresholds"),
        (["--thresholds", "0.1:0.5"], "--thresholds"),
        (["--thresholds", "a,b"], "--thresholds"),
    ],
)
def test_cli_bad_thresholds_one_line_exit_2_nothing_written(tmp_path, capsys, argv, message):
    path, _, _ = _scores_file(tmp_path)
    plot = tmp_path / "out.png"
    code, out, err = run(capsys, "--scores", path, "--positive", "event", "--plot", plot, *argv)
    assert code == 2 and out == "" and not plot.exists()
    assert err.count("\n") == 1 and message in err


@pytest.mark.parametrize(
    ("cell", "message"), [("1.5", "not a probability in [0, 1]"), ("nan", "not a finite number"), ("-0.2", "not a probability")]
)
def test_cli_bad_probabilities_one_line_exit_2_nothing_written(tmp_path, capsys, cell, message):
    path = tmp_path / "scores.csv"
    path.write_text(f"true,m\nevent,0.9\nnone,{cell}\nevent,0.4\n")
    plot = tmp_path / "out.png"
    code, out, err = run(capsys, "--scores", path, "--positive", "event", "--plot", plot)
    assert code == 2 and out == "" and not plot.exists()
    assert err.count("\n") == 1 and message in err and "line 3" in err


# --- the breast-cancer example -------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "breast_cancer_curves.py"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "evaluate-scoring.md"


def _example():
    spec = importlib.util.spec_from_file_location("breast_cancer_curves", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_breast_cancer_example_runs_quickly(tmp_path):
    example = _example()
    y, scores = example.predictions(n_estimators=10)
    assert set(scores) == {"logistic", "forest", "naive_bayes"} and y.size == 569
    text, curves = example.report(y, scores, samples=300)
    assert "212 malignant" in text and "cross-fitted: 5 folds" in text and "AUC" in text
    assert curves.probability_better is not None and len(curves.thresholds) == 99
    assert isinstance(decision_curve_figure(curves), Figure)


@pytest.mark.slow
def test_the_breast_cancer_example_prints_what_the_docs_show(tmp_path, capsys):
    example = _example()
    assert example.main([str(tmp_path / "curves.png")]) == 0
    printed = capsys.readouterr().out
    assert (tmp_path / "curves.png").read_bytes()[:4] == b"\x89PNG"
    docs = DOCS.read_text()
    start = docs.index("$ python examples/breast_cancer_curves.py")
    block = docs[docs.index("\n", start) + 1 : docs.index("```", start)]
    assert printed == block


def test_the_scores_reports_fit_80_columns_with_one_format_per_column(tmp_path, capsys):
    # Issue 25's rules for the report of --scores too: long names cut in the middle, columns in
    # blocks, every yield of the ranking at the same decimals, probabilities at 4 decimals.
    names = [f"gradient_boosting_depth_{k:02d}_rate_0p1" for k in range(3)]  # _test_set's three models
    path, _, _ = _scores_file(tmp_path, items=80, seed=5, names=names)
    utility = '{"utility": [[1, -3], [0, 0]], "classes": ["event", "none"]}'
    code, ranking, _ = run(capsys, "--scores", path, "--utility", utility, "--seed", 1)
    assert code == 0 and max(map(len, ranking.splitlines())) <= 80
    rows = [line.split() for line in ranking.splitlines() if re.match(r"\s+\d\s+gradient_boo…h_\d\d_rate_0p1\s+[+-]", line)]
    assert len(rows) == len(names)
    yields = [row[2] for row in rows] + [row[4] for row in rows]  # the utility yield and the optimistic one
    assert len({len(value.split(".")[1]) for value in yields}) == 1, yields
    code, curves, _ = run(capsys, "--scores", path, "--positive", "event", "--thresholds", "0.1:0.5:0.1", "--test-uncertainty",
                          "--seed", 1, "--samples", 1000)  # fmt: skip
    assert code == 0 and max(map(len, curves.splitlines())) <= 80
    probabilities = curves[curves.index("P(gradient") :].split("\n\n")[0].splitlines()[1:]
    assert probabilities and all(re.fullmatch(r"\s+0\.\d\s+(\d\.\d{4}|\d\.\de-\d\d)", line) for line in probabilities), probabilities


def test_the_best_threshold_column_has_one_format(tmp_path, capsys):
    # It printed 0.591238, 0.1 and 2e-05 side by side (.6g per value). Best thresholds lie
    # halfway between a positive's lowest score and the next lower one: here 0.591238, 2e-05, 0.1.
    path = tmp_path / "scores.csv"
    path.write_text("true,m1,m2,m3\n1,0.7,0.00003,0.15\n1,0.8,0.00004,0.2\n0,0.482476,0.00001,0.05\n0,0.1,0.000005,0.03\n")
    utility = '{"utility": [[1, -1], [0, 0]], "classes": ["1", "0"]}'
    code, out, err = run(capsys, "--scores", path, "--utility", utility, "--threshold-choice", "test")
    assert code == 0, err
    # The ranking's rows (the curve scores' block below repeats rank and model, without thresholds).
    rows = {line.split()[1]: line.split()[3] for line in out.splitlines() if re.match(r"\s+1\s+m\d\s", line) and len(line.split()) > 4}
    assert rows == {"m1": "0.591238", "m2": "0.000020", "m3": "0.100000"}


def test_scores_of_the_other_class_get_a_note(tmp_path, capsys):
    # Every model's AUC near 0 (scores of the negative class): a result, and no word of it.
    # 20 items a class: 4 SE of uninformative scores' AUC is 0.37, so 0.5 - 0.37 = 0.13.
    path = tmp_path / "scores.csv"
    rows = [f"1,{k / 100:.2f},{k / 200:.3f}" for k in range(20)] + [f"0,{0.5 + k / 100:.2f},{0.4 + k / 200:.3f}" for k in range(20)]
    path.write_text("true,m1,m2\n" + "\n".join(rows) + "\n")
    code, _, err = run(capsys, "--scores", path, "--positive", "1", "--thresholds", "0.5")
    assert code == 0 and err == (
        "mcrank evaluate: note: every model's AUC is well below 0.5 (0.000, 0.000): are the scores those of the other class? "
        "The positive class, the one the scores are for, is '1' (--positive)\n"
    )
    code, _, err = run(capsys, "--scores", path, "--positive", "0", "--thresholds", "0.5")
    assert code == 0 and err == ""
