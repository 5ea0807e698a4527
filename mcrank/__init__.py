"""mcrank: rank classifiers by utility yield, and measure how often popular metrics misrank them.

The layers, from the bottom up; data flows one way, experiment file -> study -> engine ->
results on disk -> figures (``docs/method.md`` holds the procedure):

- the mathematics: :mod:`mcrank.utility_space` (utility matrices, eq. 9-12 and 17),
  :mod:`mcrank.confusion` (confusion matrices) and :mod:`mcrank.metrics` (one registry of
  metrics);
- :mod:`mcrank.samplers`: the random draws of the study's steps 1-4;
- :mod:`mcrank.study`: what a study is (config, result, experiment files), checked once;
- :mod:`mcrank.engine`: a parallel runner and the Monte Carlo kernels;
- :mod:`mcrank.results`, :mod:`mcrank.figures`, :mod:`mcrank.paper`, :mod:`mcrank.reproduce`:
  results on disk, the figures drawn from them, the paper's tables, samples and registry of
  figures, and the command that runs it all (``docs/development.md``, "Layout");
- :mod:`mcrank.evaluate`: ranking your own classifiers by utility yield;
- :mod:`mcrank.cli`: the ``mcrank`` command, which parses, calls the above and prints.
"""


def __getattr__(name: str):
    # The version is read from the installed metadata when asked for: importlib.metadata
    # takes longer to import than the command line needs to start.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("mcrank")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
            return "0+unknown"
    raise AttributeError(f"module 'mcrank' has no attribute {name!r}")
