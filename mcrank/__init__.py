"""mcrank: rank classifiers by utility yield, and measure how often popular metrics misrank them.

The layers, from the bottom up:

- :mod:`mcrank.utility_space`, :mod:`mcrank.confusion`, :mod:`mcrank.metrics`: the
  mathematics (utility matrices, eq. 9-12 and 17; confusion matrices; the metric library);
- samplers and the Monte Carlo engine (paper §4.2);
- results on disk, figures and the ``mcrank`` command line.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("mcrank")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0+unknown"
