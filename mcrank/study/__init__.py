"""The study layer: what a Monte Carlo study is (config and result) and where it is written down.

- :mod:`mcrank.study.config`: :class:`StudyConfig`, every parameter, validated once when built,
  and the parsing of text into parameters (the command line and experiment files use it alike);
- :mod:`mcrank.study.kinds`: the kinds of study, one record each (what its classifiers are,
  its scores, its rules, its table's header, the engine module that runs it);
- :mod:`mcrank.study.result`: :class:`StudyResult`, the counts and their rows;
- :mod:`mcrank.study.experiments`: experiment TOML files.

The engine (:mod:`mcrank.engine`) takes a :class:`StudyConfig` and returns a
:class:`StudyResult`; it does not parse or check anything itself.
"""

from mcrank.study.config import MAX_SAMPLES, MAX_SDS, StudyConfig, parse_count, parse_metrics, parse_sds, parse_values
from mcrank.study.experiments import FIGURE_SETTINGS, Experiment, load_experiment, load_experiments, read_toml
from mcrank.study.result import BATCHES, StudyResult, StudyShard

__all__ = [
    "BATCHES",
    "FIGURE_SETTINGS",
    "MAX_SAMPLES",
    "MAX_SDS",
    "Experiment",
    "StudyConfig",
    "StudyResult",
    "StudyShard",
    "load_experiment",
    "load_experiments",
    "parse_count",
    "parse_metrics",
    "parse_sds",
    "parse_values",
    "read_toml",
]
