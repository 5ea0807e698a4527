"""Experiment files and the parsing of study parameters (sd grids, sample counts).

An experiment is a TOML file in ``experiments/`` holding every parameter of one study (the
fields of :class:`mcrank.engine.StudyConfig`, top level) and an optional ``description``.
``sds`` is a list of numbers or a grid ``"start:stop:step"`` (stop included).
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mcrank._validation import as_float, check_count, check_sd
from mcrank.engine import MAX_SAMPLES, MAX_SDS, StudyConfig

__all__ = ["Experiment", "load_experiment", "parse_samples", "parse_sds", "read_toml"]


def read_toml(path) -> dict:
    """The table of the TOML file ``path``.

    A UTF-8 byte-order mark, which some editors write, is skipped, as ``mcrank evaluate``
    does for JSON.

    Raises
    ------
    ValueError
        Naming the file, if it is not UTF-8 text or not valid TOML.
    OSError
        If the file cannot be read.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (not UTF-8)") from None
    except FileNotFoundError:
        if path.is_symlink():  # "No such file" alone would name a file that is right there
            raise ValueError(f"{path}: a link to {os.readlink(path)!r}, which does not exist") from None
        raise
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{path}: not valid TOML: {error}") from None


def parse_samples(text) -> int:
    """A sample count from ``"1000000"``, ``"1e6"`` or ``10**6``; ValueError unless a whole number >= 1."""
    return check_count(text, "samples", maximum=MAX_SAMPLES)


def parse_sds(values) -> tuple[float, ...]:
    """Error sds from numbers, strings, or grids ``"start:stop:step"`` (stop included).

    Examples
    --------
    >>> parse_sds(["0.1", "0.2"])
    (0.1, 0.2)
    >>> len(parse_sds("0:0.5:0.01"))
    51
    """
    if isinstance(values, (str, int, float, np.integer, np.floating)):
        values = [values]
    if isinstance(values, (Mapping, set, frozenset)) or not isinstance(values, Iterable):
        raise ValueError(f"sds must be a number, a grid 'start:stop:step' or a list of them, got {values!r}")
    sds: list[float] = []
    for value in values:
        if isinstance(value, str) and ":" in value:
            parts = value.split(":")
            if len(parts) != 3:
                raise ValueError(f"an sd grid is start:stop:step, got {value!r}")
            start, stop, step = (as_float(part, f"the {name} of the sd grid {value!r}") for part, name in zip(parts, ("start", "stop", "step")))
            if start < 0:
                raise ValueError(f"the start of the sd grid {value!r} must be non-negative, got {parts[0]!r}")
            if step <= 0:
                raise ValueError(f"the step of the sd grid {value!r} must be positive, got {parts[2]!r}")
            if stop < start:
                raise ValueError(f"the stop of the sd grid {value!r} must be at least its start, got {parts[1]!r}")
            count = math.floor((stop - start) / step + 1e-9) + 1
            if len(sds) + count > MAX_SDS:
                raise ValueError(f"the sd grid {value!r} has {count:,} values; at most {MAX_SDS:,} are allowed")
            grid = np.round(start + step * np.arange(count), 12)
            if count > 1 and np.any(np.diff(grid) == 0):
                raise ValueError(f"the sd grid {value!r} has steps below 1e-12, to which sds are rounded: equal sds")
            sds.extend(float(v) for v in grid)
        else:
            sds.append(check_sd(value, "error sd"))
    return tuple(sds)


@dataclass(frozen=True)
class Experiment:
    """One study as written in an experiment file."""

    name: str
    path: Path
    description: str
    config: StudyConfig


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
    # The file's sds: numbers, or grid strings; "0.1" is a string where a number belongs.
    for sd in values["sds"] if isinstance(values.get("sds"), list) else [values.get("sds")]:
        if isinstance(sd, str) and ":" not in sd:
            raise ValueError(f"{path}: key 'sds' must hold numbers or grids 'start:stop:step', got the string {sd!r}")
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        if "sds" in values:
            values["sds"] = parse_sds(values["sds"])
        if "samples" in values:
            values["samples"] = parse_samples(values["samples"])
        config = StudyConfig.from_dict(values, source=str(path))
    except (ValueError, TypeError, KeyError) as error:
        message = error.args[0] if error.args else str(error)
        message = message if str(message).startswith(str(path)) else f"{path}: {message}"
        raise ValueError(message) from None
    return Experiment(name=path.stem, path=path, description=description, config=config)
