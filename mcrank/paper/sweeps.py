"""Which results documents are which of the paper's studies: its sweeps, by setting.

A results document (:func:`mcrank.results.read_study`) says what it is only through its
config. The crossover tables (:mod:`mcrank.paper.crossover`) and the figures
(:mod:`mcrank.paper.figures`) pick their studies from them here, by the same rules.
"""

from __future__ import annotations

from mcrank.samplers import HEXAGON_DISTRIBUTIONS
from mcrank.study.kinds import DEFAULT_KIND

__all__ = ["HEXAGON", "all_sweeps", "hexagon_sweeps", "kind", "probabilities_sweeps", "roc_sweeps"]

#: The paper's distributions of two-class utility matrices, on the hexagon (fig. 7's panels).
HEXAGON = tuple(HEXAGON_DISTRIBUTIONS)


def kind(document: dict) -> str:
    """The study kind of a results document (records of the default kind, confusion, name none)."""
    return document["config"].get("kind", DEFAULT_KIND)


def all_sweeps(documents: dict) -> dict:
    """The population studies (no finite test set) with a grid of sds (two or more), as
    ``{(classes, true_um, error): (name, document)}``; one each, as
    :func:`mcrank.study.load_experiments` checked."""
    return {
        (document["config"].get("classes", 2), document["config"]["true_um"], document["config"]["error"]): (name, document)
        for name, document in documents.items()
        if len(document["config"]["sds"]) >= 2 and document["config"].get("test_size") is None and kind(document) == "confusion"
    }


def hexagon_sweeps(documents: dict) -> dict:
    """The paper's sweeps (two classes, the hexagon), as ``{(true_um, error): (name, document)}``."""
    return {
        (true_um, error): value for (classes, true_um, error), value in all_sweeps(documents).items() if classes == 2 and true_um in HEXAGON
    }


def roc_sweeps(documents: dict, of: str = "roc") -> dict:
    """The sweeps of the roc study (or of the kind ``of`` that shares its parameters, such as
    ``probabilities``) with B ~ Uniform(0, 1), ``{(true_um, error): (name, document)}``."""
    return {
        (document["config"]["true_um"], document["config"]["error"]): (name, document)
        for name, document in sorted(documents.items())
        if kind(document) == of and len(document["config"]["sds"]) >= 2 and document["config"]["prevalence"] is None
    }


def probabilities_sweeps(documents: dict) -> dict:
    """The sweeps of the probabilities study with B ~ Uniform(0, 1), ``{(true_um, error): (name, document)}``."""
    return roc_sweeps(documents, of="probabilities")
