"""The figures of the paper (figs 1-7) and their atomic writing, on small data.

The figures only draw: the tests give them data drawn here, from the samplers and the engine.
"""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from matplotlib import rcParams
from matplotlib.figure import Figure
from matplotlib.text import Text

from mcrank import figures
from mcrank.confusion import confusion_from_pab
from mcrank.engine import run_study, sample_pairs
from mcrank.figures._style import matrix_tex
from mcrank.figures.fig1_hexagon import FIG1_POINTS
from mcrank.figures.fig5_perturbation import _cloud_xy
from mcrank.figures.fig7_sweep import _spread
from mcrank.figures.yield_vs_metric import _discordant_examples
from mcrank.metrics import get_metric
from mcrank.samplers import perturb_um, sample_rates, sample_true_um_xy
from mcrank.study import StudyConfig
from mcrank.utility_space import IDENTITY_UM, utility_yield

SDS = (0.0, 0.1, 0.2, 0.3)


@pytest.fixture(scope="module")
def study():
    """A tiny fig. 6 setting: rows of a run and pairs of the same config."""
    config = StudyConfig(samples=2000, sds=(0.1,), seed=11)
    return sample_pairs(300, config, rng=12), run_study(config, jobs=1).rows()


@pytest.fixture(scope="module")
def sweeps():
    return {
        (true_um, error): run_study(samples=2000, sds=SDS, true_um=true_um, error=error, seed=21, jobs=1).rows()
        for true_um in ("uniform", "gaussian")
        for error in ("gaussian", "truncated")
    }


def _rates(n: int, seed: int):
    """TPR and TNR of ``n`` classifiers, as the samples of figs 2 and 3 hold them."""
    rng = np.random.default_rng(seed)
    return sample_rates(n, rng=rng), sample_rates(n, rng=rng)


def _true_um(n: int, seed: int):
    return sample_true_um_xy(n, distribution="gaussian", sd=1 / 3, rng=seed)


def _perturbed(n: int, seed: int, sds=(0.1, 0.2), errors=("gaussian", "truncated")):
    """The clouds of fig. 5, one per error model and sd, as its sample holds them."""
    rng = np.random.default_rng(seed)
    centre = [[0.5, 0.5], [0.0, 1.0]]
    return np.array([[perturb_um(centre, sd, error=error, size=n, rng=rng) for sd in sds] for error in errors])


def _markers(ax, marker: str) -> int:
    """Number of points drawn in ``ax`` with ``marker``."""
    return sum(len(line.get_xdata()) for line in ax.get_lines() if line.get_marker() == marker)


def _title_pct(title: str) -> float:
    match = re.search(r": (\d+\.\d) %$", title)
    assert match, title
    return float(match.group(1))


# --- style -----------------------------------------------------------------------------------


def test_the_figures_only_draw():
    """Data flows one way: drawing a figure needs no random numbers, no sampler, no engine."""
    code = "import sys, mcrank.figures; print(' '.join(sorted(sys.modules)))"
    modules = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert "mcrank.figures.fig7_sweep" in modules
    assert not {"mcrank._rng", "mcrank.samplers", "mcrank.engine"} & set(modules)


def test_paper_style_restores_rcparams_and_figures_leave_them_alone():
    before = dict(rcParams)
    with figures.paper_style():
        assert rcParams["font.size"] == figures.PAPER_RC["font.size"]
        assert rcParams["pdf.fonttype"] == 42
    figures.fig1_hexagon()
    assert dict(rcParams) == before


def test_figures_use_the_paper_font_sizes():
    fig = figures.fig4_true_um_gaussian(*_true_um(50, 1))
    ax = fig.axes[0]
    assert ax.xaxis.label.get_fontsize() == figures.PAPER_RC["axes.labelsize"]
    assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()


# --- figs 1-5 --------------------------------------------------------------------------------


def test_fig1_writes_every_matrix_at_its_place():
    fig = figures.fig1_hexagon()
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert _markers(ax, "o") == len(FIG1_POINTS)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == len(FIG1_POINTS)
    # The identity (with its note), TPR and TNR matrices, as computed by eq. (12).
    assert matrix_tex([[1, 0], [0, 1]]) + "\naccuracy" in texts
    assert matrix_tex([[1, 0], [0, 0]]) + "\nTPR" in texts
    assert matrix_tex([[0, 0], [0, 1]]) + "\nTNR" in texts
    assert ax.get_xlabel() == "x" and ax.get_ylabel() == "y"
    assert ax.get_aspect() == 1.0


@pytest.mark.parametrize("p", [0.5, 0.9])
def test_fig2_3_grid_and_reversed_pairs_only_where_not_compliant(p):
    fig = figures.fig_yield_vs_metric(p, *_rates(60, 3))
    axes = np.array(fig.axes).reshape(4, 2)
    names = [get_metric(m).name for m in ("accuracy", "tpr", "f1", "mcc")]
    assert [ax.get_ylabel() for ax in axes[:, 0]] == names
    for ax in axes.flat:
        assert _markers(ax, "o") == 60
    # Compliant cells (eq. 16): accuracy with the identity, TPR with [[1, 0], [0, 0]].
    assert _markers(axes[0, 0], "^") == 0
    assert _markers(axes[1, 1], "^") == 0
    # Accuracy under [[1, 0], [0, 0]] reverses pairs: the marked examples come in twos.
    assert _markers(axes[0, 1], "^") > 0 and _markers(axes[0, 1], "^") % 2 == 0


def test_fig2_draws_exactly_its_data():
    tpr, tnr = _rates(30, 5)
    fig = figures.fig_yield_vs_metric(0.5, tpr, tnr)
    (dots,) = [line for line in fig.axes[0].get_lines() if line.get_marker() == "o"]
    # Accuracy (first row) against the yield under the identity (first column), eq. (9).
    assert np.array_equal(dots.get_xdata(), utility_yield(IDENTITY_UM, confusion_from_pab(0.5, tpr, tnr)))
    assert np.array_equal(dots.get_ydata(), get_metric("accuracy").from_pab(0.5, tpr, tnr))

    def data(fig):
        return [line.get_ydata() for ax in fig.axes for line in ax.get_lines()]

    again = figures.fig_yield_vs_metric(0.5, tpr.copy(), tnr.copy())
    assert all(np.array_equal(a, b) for a, b in zip(data(fig), data(again), strict=True))


def test_fig2_rejects_a_bad_class_proportion_or_rates():
    tpr, tnr = _rates(10, 0)
    with pytest.raises(ValueError, match="p must lie"):
        figures.fig_yield_vs_metric(1.0, tpr, tnr)
    with pytest.raises(ValueError, match="same length"):
        figures.fig_yield_vs_metric(0.5, tpr, tnr[:5])
    with pytest.raises(ValueError, match="at least 2"):
        figures.fig_yield_vs_metric(0.5, tpr[:1], tnr[:1])


def test_discordant_examples_are_reversed_and_none_for_a_monotone_score():
    rng = np.random.default_rng(0)
    yields = rng.random(50)
    assert _discordant_examples(yields, 2 * yields + 1, 3) == []
    scores = yields + rng.normal(0, 0.3, 50)
    pairs = _discordant_examples(yields, scores, 3)
    assert 0 < len(pairs) <= 3
    for i, j in pairs:
        assert (yields[j] - yields[i]) * (scores[j] - scores[i]) < 0


def test_fig4_draws_n_samples_in_the_hexagon():
    fig = figures.fig4_true_um_gaussian(*_true_um(200, 2))
    (ax,) = fig.axes
    (cloud,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
    x, y = cloud.get_data()
    assert len(x) == 200
    assert np.all((np.abs(x) <= 1) & (np.abs(y) <= 1) & (np.abs(y - x) <= 1))


def test_fig5_grid_and_count_of_matrices_left_out():
    n = 300
    fig = figures.fig5_perturbation_cloud(_perturbed(n, 4, sds=(0.1, 0.4)), sds=(0.1, 0.4))
    assert len(fig.axes) == 4
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == "gaussian errors, s = 0.1" and titles[1] == "gaussian errors, s = 0.4"
    assert titles[2].startswith("truncated errors, s = 0.1") and "realised sd" in titles[2]
    for ax in fig.axes:
        (cloud,) = [line for line in ax.get_lines() if line.get_marker() == "o"]
        drawn = len(cloud.get_xdata())
        (note,) = [t.get_text() for t in ax.texts]
        if drawn == n:
            assert note.startswith(f"all {n} inside")
        else:
            assert note.startswith(f"{n - drawn} of {n} outside")
    # s = 0.4 with gaussian errors breaks the ordering of some matrices; truncated never.
    assert fig.axes[1].texts[0].get_text().split()[0] != "all"
    assert fig.axes[3].texts[0].get_text().startswith("all")


def test_fig5_needs_one_cloud_per_error_model_and_sd():
    with pytest.raises(ValueError, match=r"shape \(2, 2, n, 2, 2\)"):
        figures.fig5_perturbation_cloud(_perturbed(10, 4)[:1])


def test_fig5_cloud_mapping_leaves_out_unordered_and_constant_matrices():
    perturbed = np.array([[[0.5, 0.5], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], [[0.3, 0.3], [0.3, 0.3]]])
    x, y, placed = _cloud_xy(perturbed)
    assert placed.tolist() == [True, False, False]
    assert (x[0], y[0]) == pytest.approx((0.5, 0.5))


# --- fig. 6 ----------------------------------------------------------------------------------


def test_fig6_one_panel_per_metric_plus_utility_sorted_by_decreasing_pct(study):
    pairs, rows = study
    fig = figures.fig6_pairs(pairs, rows, sd=0.1)
    metric_rows = [r for r in rows if r["sd"] is None]
    assert len(fig.axes) == len(metric_rows) + 1
    titles = [ax.get_title() for ax in fig.axes]
    percentages = [_title_pct(t) for t in titles]
    assert percentages == sorted(percentages, reverse=True)
    expected = {get_metric(r["name"]).name: r["incorrect_pct"] for r in metric_rows}
    expected["Utility matrix, sd 0.1"] = next(r["incorrect_pct"] for r in rows if r["name"] == "utility")
    for title in titles:
        name = title.rsplit(":", 1)[0].replace("\n", " ")
        assert _title_pct(title) == pytest.approx(expected[name], abs=0.0501)
    # Every pair is drawn once, as a correct dot or an incorrect triangle.
    for ax in fig.axes:
        assert _markers(ax, "o") + _markers(ax, "^") == 300


def test_fig6_highlights_exactly_the_incorrectly_ranked_pairs(study):
    pairs, rows = study
    fig = figures.fig6_pairs(pairs, rows, sd=0.1)
    (ax,) = [ax for ax in fig.axes if ax.get_title().startswith("Utility matrix")]
    d = pairs.d_utility[0.1]
    incorrect = ~(((pairs.d_true > 0) & (d > 0)) | ((pairs.d_true < 0) & (d < 0)))
    assert _markers(ax, "^") == int(incorrect.sum())


def test_fig6_max_points_and_missing_sd(study):
    pairs, rows = study
    fig = figures.fig6_pairs(pairs, rows, sd=None, max_points=100)
    assert len(fig.axes) == len([r for r in rows if r["sd"] is None])
    assert all(_markers(ax, "o") + _markers(ax, "^") == 100 for ax in fig.axes)
    with pytest.raises(ValueError, match="sd 0.3"):
        figures.fig6_pairs(pairs, rows, sd=0.3)


# --- fig. 7 ----------------------------------------------------------------------------------


def test_fig7_panels_lines_and_labels(sweeps):
    fig = figures.fig7_sweep(sweeps)
    assert len(fig.axes) == 2
    top, bottom = fig.axes
    assert top.get_title().startswith("Uniform") and bottom.get_title().startswith("Truncated gaussian")
    metric_rows = [r for r in sweeps[("uniform", "gaussian")] if r["sd"] is None]
    for ax in fig.axes:
        assert ax.get_xlabel() == "error sd s"
        assert ax.get_ylabel() == "% incorrectly ranked pairs"
        curves = [line for line in ax.get_lines() if len(line.get_xdata()) == len(SDS)]
        assert len(curves) == 3  # gaussian, truncated, truncated against the realised sd
        assert len(ax.texts) == len(metric_rows)
    # Metric labels come from the gaussian-error run, in increasing order of percentage.
    labels = [t.get_text() for t in top.texts]
    expected = sorted(metric_rows, key=lambda r: r["incorrect_pct"])
    assert labels == [f"{get_metric(r['name']).name} {r['incorrect_pct']:.1f} %" for r in expected]
    # Spread so that no two labels overlap.
    fig.draw_without_rendering()
    # The text's own box: an Annotation's get_window_extent also covers its leader line.
    boxes = sorted((Text.get_window_extent(t) for t in top.texts), key=lambda b: b.y0)
    assert all(lower.y1 <= upper.y0 + 0.5 for lower, upper in zip(boxes, boxes[1:]))
    assert fig.legends and len(fig.legends[0].get_texts()) == 3


def test_fig7_with_one_run_and_bad_keys(sweeps):
    fig = figures.fig7_sweep({("gaussian", "truncated"): sweeps[("gaussian", "truncated")]})
    assert len(fig.axes) == 1 and fig.axes[0].get_title().startswith("Truncated gaussian")
    with pytest.raises(ValueError, match="unknown error model"):
        figures.fig7_sweep({("uniform", "laplace"): sweeps[("uniform", "gaussian")]})
    with pytest.raises(ValueError, match="empty"):
        figures.fig7_sweep({})


def test_spread_keeps_order_and_gap_and_moves_nothing_needlessly():
    values = np.array([10.0, 0.0, 10.5, 11.0, 30.0])
    spread = _spread(values, 2.0)
    order = np.argsort(values)
    assert np.all(np.diff(spread[order]) >= 2.0 - 1e-12)
    assert spread[1] == 0.0 and spread[4] == 30.0
    assert np.mean(spread[[0, 2, 3]]) == pytest.approx(np.mean(values[[0, 2, 3]]))


# --- saving ----------------------------------------------------------------------------------


def _small_figure() -> Figure:
    return figures.fig4_true_um_gaussian(*_true_um(20, 0))


def test_save_figure_writes_png_and_pdf_and_no_temp_files(tmp_path):
    paths = figures.save_figure(_small_figure(), tmp_path / "figures", "fig4")
    assert [p.name for p in paths] == ["fig4.png", "fig4.pdf"]
    assert paths[0].read_bytes().startswith(b"\x89PNG")
    assert paths[1].read_bytes().startswith(b"%PDF")
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["fig4.pdf", "fig4.png"]


def test_save_figure_pdf_is_reproducible(tmp_path):
    # No creation date: the same figure, built and saved again, gives the same bytes.
    first = figures.save_figure(_small_figure(), tmp_path / "a", "f")[1].read_bytes()
    second = figures.save_figure(_small_figure(), tmp_path / "b", "f")[1].read_bytes()
    assert first == second


def test_save_figure_into_a_file_raises_and_leaves_nothing(tmp_path):
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("x")
    with pytest.raises(OSError):
        figures.save_figure(_small_figure(), blocker, "fig")
    assert [p.name for p in tmp_path.iterdir()] == ["not_a_directory"]
    assert blocker.read_text() == "x"


def test_save_figure_failing_midway_keeps_the_old_file_and_no_partial_one(tmp_path):
    fig = _small_figure()
    figures.save_figure(fig, tmp_path, "fig")
    old = (tmp_path / "fig.png").read_bytes()

    def broken_savefig(handle, **kwargs):
        handle.write(b"\x89PNG half")
        raise RuntimeError("disk full")

    fig.savefig = broken_savefig
    with pytest.raises(RuntimeError, match="disk full"):
        figures.save_figure(fig, tmp_path, "fig")
    assert (tmp_path / "fig.png").read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.pdf", "fig.png"]


@pytest.mark.parametrize("name", ["", "sub/fig", "..", "."])
def test_save_figure_rejects_a_name_with_a_path(tmp_path, name):
    with pytest.raises(ValueError, match="plain file stem"):
        figures.save_figure(_small_figure(), tmp_path, name)


# --- fig. 9: finite test sets ------------------------------------------------------------------


def _test_set_rows(level: float) -> list[dict]:
    rows = [dict(name=m, sd=None, incorrect_pct=level + k, se_pct=0.1) for k, m in enumerate(("accuracy", "f1"))]
    return rows + [dict(name="utility", sd=s, incorrect_pct=level - 5 + 10 * s, se_pct=0.1) for s in (0.0, 0.1, 0.2)]


def test_fig9_draws_a_line_per_metric_and_sd_and_the_population_marks():
    studies = {n: _test_set_rows(10 + 100 / n) for n in (20, 100, 1000)}
    fig = figures.fig9_test_size({"2 classes": (studies, _test_set_rows(10.0))})
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and ax.get_title() == "2 classes"
    curves = [line for line in ax.get_lines() if len(line.get_xdata()) == 3]
    is_mark = lambda line: len(line.get_xdata()) == 2 and line.get_xdata()[0] != line.get_xdata()[1]  # noqa: E731 (not the divider)
    marks = [line for line in ax.get_lines() if is_mark(line)]
    assert len(curves) == 5 and len(marks) == 5  # 2 metrics and 3 sds, each with its population mark
    accuracy = next(line for line in curves if line.get_label() != "" and np.allclose(line.get_ydata(), [15, 11, 10.1]))
    assert accuracy is not None
    assert len(fig.legends[0].get_texts()) == 5
    without = figures.fig9_test_size({"2 classes": (studies, None)})
    assert not [line for line in without.axes[0].get_lines() if is_mark(line)]
    with pytest.raises(ValueError, match="empty"):
        figures.fig9_test_size({})


# --- fig. 8: the n-class study -------------------------------------------------------------------


def test_fig8_draws_the_metrics_the_utility_and_the_crossovers():
    from mcrank.crossover import crossover_table

    sds = np.round(np.linspace(0, 0.5, 11), 12)

    def rows(n, shift):
        metric_rows = [dict(name=m, sd=None, incorrect_pct=10.0 + k + n / 10, se_pct=0.05) for k, m in enumerate(("accuracy", "mcc"))]
        return metric_rows + [
            dict(name="utility", sd=float(s), realised_sd=float(s), incorrect_pct=shift + 40 * s, se_pct=0.05) for s in sds
        ]

    sweeps = {e: {n: rows(n, 1.0 if e == "gaussian" else 0.5) for n in (2, 3, 4)} for e in ("gaussian", "truncated")}
    crossovers = {e: {n: crossover_table(r) for n, r in by_n.items()} for e, by_n in sweeps.items()}
    fig = figures.fig8_classes(sweeps, crossovers)
    left, right = fig.axes
    assert left.get_xlabel() == right.get_xlabel() == "classes n"
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels == [
        "Accuracy",
        "Matthews correlation coefficient",
        "utility matrix, gaussian errors of sd 0.1",
        "utility matrix, truncated errors of sd 0.1",
    ]
    # The utility at sd 0.1 is 1 + 4 = 5 % under gaussian errors, at every n.
    gaussian = next(line for line in left.get_lines() if line.get_label().startswith("utility matrix, gaussian"))
    np.testing.assert_allclose(gaussian.get_ydata(), [5.0, 5.0, 5.0])
    assert len(right.containers) == 4  # an errorbar per metric and error model
    with pytest.raises(ValueError, match="empty"):
        figures.fig8_classes({}, {})
