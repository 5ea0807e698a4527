"""The figures of the paper and beyond, figs 1-11: data in, figure out (``docs/method.md``, "Figures").

One module per figure; each takes arrays or rows and only draws (no random numbers, no
sampler, no engine). The illustrative samples of figs 2-6 are drawn by
:mod:`mcrank.paper.samples` and written into ``results/samples/``; figs 6 and 7 also draw
the rows of the studies' results files. :mod:`mcrank.paper.figures`, one registry entry per
figure, reads both from disk and calls these functions.

Each module's public names (its ``__all__``) are this package's, found here by walking its
modules, so that ``from mcrank.figures import fig7_sweep`` needs no line of its own;
:mod:`~mcrank.figures._style` holds the style, the hexagon and :func:`save_figure`, shared.
"""

import importlib
import pkgutil

from mcrank.figures._style import HEXAGON_VERTICES, OKABE_ITO, PAPER_RC, apply_style, paper_style, save_figure

__all__ = ["HEXAGON_VERTICES", "OKABE_ITO", "PAPER_RC", "apply_style", "paper_style", "save_figure"]
for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_"):
        _public = importlib.import_module(f"{__name__}.{_module.name}")
        globals().update({name: getattr(_public, name) for name in _public.__all__})
        __all__ += _public.__all__
__all__ = sorted(__all__)
del _module, _public
