"""Experiment files: one TOML file in ``experiments/`` per study.

A file holds the fields of :class:`~mcrank.study.StudyConfig` at top level, in the same text
forms as the command line (``samples = "1e6"``, ``sds = "0:0.5:0.01"`` or a list), an
optional ``description``, and an optional ``metric_file``: a user's metric file
(:func:`mcrank.metrics.load_metric_file`), its path relative to the experiment file, loaded
before the metrics are checked. It is read, parsed and checked here, once, with errors that name the
file and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mcrank._io import read_bounded
from mcrank._validation import MAX_EXPERIMENT_BYTES
from mcrank.study.config import StudyConfig, parse_values
from mcrank.study.kinds import DEFAULT_KIND, STUDY_KINDS

__all__ = ["FIGURE_SETTINGS", "Experiment", "load_experiment", "load_experiments", "read_toml"]

#: The file of ``experiments/`` that holds the figures' settings rather than a study.
FIGURE_SETTINGS = "figures.toml"

#: Largest experiment file read (:data:`mcrank._validation.MAX_EXPERIMENT_BYTES`):
#: ``--config /dev/zero`` is refused instead of filling the memory.
MAX_TOML_BYTES = MAX_EXPERIMENT_BYTES


def read_toml(path) -> dict:
    """The table of the TOML file ``path`` (UTF-8, a byte-order mark skipped).

    Raises
    ------
    ValueError
        Naming the file: larger than :data:`MAX_TOML_BYTES`, not UTF-8, not valid TOML, or a
        link to nothing.
    OSError
        If the file cannot be read.
    """
    import tomllib  # here: its parser's modules cost mcrank run --help, which reads no file

    path = Path(path)
    text = read_bounded(path, limit=MAX_TOML_BYTES, what="an experiment file (a few lines of TOML)")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:  # tomllib's parser recurses once per level of nesting
        raise ValueError(f"{path}: nested too deeply to read (no experiment file is more than 2 levels deep)") from None


@dataclass(frozen=True)
class Experiment:
    """One study as written in an experiment file."""

    name: str
    path: Path
    description: str
    config: StudyConfig
    metric_file: Path | None = None


def load_experiment(path, **overrides) -> Experiment:
    """Read an experiment TOML file; ``overrides`` (not None) replace its values.

    Raises
    ------
    ValueError
        Naming the file and the key, for malformed TOML, an unknown key or a bad value.
    OSError
        If the file cannot be read.
    """
    path = Path(path)
    values = read_toml(path)
    description = values.pop("description", "")
    if not isinstance(description, str):
        raise ValueError(f"{path}: key 'description' must be a string")
    metric_file = values.pop("metric_file", None)
    if metric_file is not None:
        if not isinstance(metric_file, str) or not metric_file:
            raise ValueError(f"{path}: key 'metric_file' must be the path of a Python file, relative to the experiment file")
        from mcrank.metrics import load_metric_file

        metric_file = path.parent / metric_file
        try:
            load_metric_file(metric_file)
        except ValueError as error:
            raise ValueError(f"{path}: key 'metric_file': {error}") from None
    # TOML has numbers: a string holds a grid, never a number written as text.
    for sd in values["sds"] if isinstance(values.get("sds"), list) else [values.get("sds")]:
        if isinstance(sd, str) and ":" not in sd:
            raise ValueError(f"{path}: key 'sds' must hold numbers or grids 'start:stop:step', got the string {sd!r}")
    try:
        config = StudyConfig.from_dict({**parse_values(values), **parse_values(overrides)}, source=str(path))
    except (ValueError, TypeError) as error:
        message = str(error.args[0] if error.args else error)
        raise ValueError(message if message.startswith(str(path)) else f"{path}: {message}") from None
    return Experiment(name=path.stem, path=path, description=description, config=config, metric_file=metric_file)


def load_experiments(directory, *, samples: int | None = None) -> list[Experiment]:
    """Every study file of ``directory`` (all but :data:`FIGURE_SETTINGS`), checked before anything runs.

    Each needs a seed, and two sweeps (two or more sds) of the same true-utility distribution
    and error model (and test-set size) are refused: the crossover tables and fig. 7 take one
    of each.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"{directory}: no such experiments directory")
    paths = sorted(p for p in directory.glob("*.toml") if p.name != FIGURE_SETTINGS)
    if not paths:
        raise ValueError(f"{directory}: no experiment files (*.toml)")
    experiments = [load_experiment(path, samples=samples) for path in paths]
    sweeps: dict = {}
    for experiment in experiments:
        config = experiment.config
        if config.seed is None:
            raise ValueError(f"{experiment.path}: key 'seed' is missing; a reproducible study needs one")
        # A kind's own parameters that tell its sweeps apart (the roc kind's prevalence).
        own = {name: getattr(config, name) for name in STUDY_KINDS[config.kind].sweep_key}
        key = (config.classes, config.true_um, config.error, config.test_size, config.kind, *own.values())
        if len(config.sds) >= 2 and sweeps.setdefault(key, experiment.name) != experiment.name:
            test_sets = "" if config.test_size is None else f" on test sets of {config.test_size:,} items"
            classes = "" if config.classes == 2 else f" of {config.classes} classes"
            values = "".join(f", {name} {value:g}" for name, value in own.items() if value is not None)
            kind = "" if config.kind == DEFAULT_KIND else f" ({config.kind} study{values})"
            raise ValueError(
                f"{sweeps[key]} and {experiment.name} are both sweeps of {config.true_um} true utility matrices{classes} "
                f"with {config.error} errors{test_sets}{kind}: keep one"
            )
    return experiments
