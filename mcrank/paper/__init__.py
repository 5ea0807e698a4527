"""The paper wing: what the paper's tables and figures need, above the study layer.

The study layer says what a study is; the engine runs it; :mod:`mcrank.results` writes it.
Everything the paper makes from those results lives here, and only here:

- :mod:`mcrank.paper.sweeps`: which results documents are which of the paper's sweeps;
- :mod:`mcrank.paper.crossover`: the crossover tables, ``crossover.csv`` and ``.md``;
- :mod:`mcrank.paper.samples`: the illustrative samples of figs 2-6 (planned, drawn from the
  samplers and the engine, written into ``results/samples/`` and read back);
- :mod:`mcrank.paper.figures`: the registry of figures (:data:`~mcrank.paper.figures.FIGURES`,
  one entry each: its name, its module of :mod:`mcrank.figures`, and what it draws), their
  digests and ``figures/manifest.json``;
- :mod:`mcrank.paper.committed`: the rule that guards the repository's own ``results/`` and
  ``experiments/``.

:func:`mcrank.reproduce.reproduce` calls them in order: studies, crossover tables, samples,
figures.
"""
