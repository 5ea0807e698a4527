"""The figures of the paper and beyond, figs 1-11: data in, figure out (``docs/method.md``, "Figures").

One module per figure; each takes arrays or rows and only draws (no random numbers, no
sampler, no engine). The illustrative samples of figs 2-6 are drawn by
:mod:`mcrank.paper.samples` and written into ``results/samples/``; figs 6 and 7 also draw
the rows of the studies' results files. :mod:`mcrank.paper.figures`, one registry entry per
figure, reads both from disk and calls these functions.

- :mod:`~mcrank.figures.fig1_hexagon`: fig. 1, the space of utility matrices;
- :mod:`~mcrank.figures.yield_vs_metric`: figs 2 and 3, yield against score;
- :mod:`~mcrank.figures.fig4_true_um`: fig. 4, the true utility matrices;
- :mod:`~mcrank.figures.fig5_perturbation`: fig. 5, perturbed utility matrices;
- :mod:`~mcrank.figures.fig6_pairs`: fig. 6, pairs of classifiers;
- :mod:`~mcrank.figures.fig7_sweep`: fig. 7, the sweep over the error sd;
- :mod:`~mcrank.figures.fig8_classes`: beyond the paper, misranking against the number of
  classes;
- :mod:`~mcrank.figures.fig9_test_size`: beyond the paper, misranking against the size of
  the test set;
- :mod:`~mcrank.figures.fig10_roc_tangents`: the published version's fig. 8, two crossing
  ROC curves and their best operating points;
- :mod:`~mcrank.figures.fig11_roc_prevalence`: beyond the paper, how often AUC and the
  best-threshold scores misrank scoring classifiers, against the prevalence;
- :mod:`~mcrank.figures._style`: the style, the hexagon and :func:`save_figure`, shared.
"""

from mcrank.figures._style import HEXAGON_VERTICES, OKABE_ITO, PAPER_RC, apply_style, paper_style, save_figure
from mcrank.figures.fig1_hexagon import fig1_hexagon
from mcrank.figures.fig4_true_um import fig4_true_um_gaussian
from mcrank.figures.fig5_perturbation import fig5_perturbation_cloud
from mcrank.figures.fig6_pairs import fig6_pairs
from mcrank.figures.fig7_sweep import fig7_sweep
from mcrank.figures.fig8_classes import fig8_classes
from mcrank.figures.fig9_test_size import fig9_test_size
from mcrank.figures.fig10_roc_tangents import fig10_roc_tangents
from mcrank.figures.fig11_roc_prevalence import fig11_roc_prevalence
from mcrank.figures.yield_vs_metric import fig_yield_vs_metric

__all__ = [
    "HEXAGON_VERTICES",
    "OKABE_ITO",
    "PAPER_RC",
    "apply_style",
    "fig1_hexagon",
    "fig4_true_um_gaussian",
    "fig5_perturbation_cloud",
    "fig6_pairs",
    "fig7_sweep",
    "fig8_classes",
    "fig9_test_size",
    "fig10_roc_tangents",
    "fig11_roc_prevalence",
    "fig_yield_vs_metric",
    "paper_style",
    "save_figure",
]
