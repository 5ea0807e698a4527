"""Compile the kernels the tests call, one group per process: ``python tests/warm_kernels.py GROUP``.

conftest.py runs the groups side by side before pytest-xdist starts its workers, when numba's
cache for these sources does not hold them yet (a fresh clone, CI, any edit of mcrank/).
Otherwise every worker, and every command a test starts, that reaches a kernel first compiles
it at the same time as the others (the ROC kernel took 30 to 40 s each time), on the same two
cores.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

FACTORY = str(Path(__file__).resolve().parent.parent / "examples" / "factory.json")
RUN = ("run", "--samples", "100", "--seed", "1", "--quiet")


def _roc_scores() -> None:
    """Each ROC score's kernel and their comparison's switch, as tests/test_registries.py calls them."""
    from mcrank.roc import ROC_SCORES, _roc_compare

    for entry in ROC_SCORES.values():
        entry(0.5, 1.0, 1.0)
        _roc_compare(entry.code, 0.5, 1.0, 1.0, 2.0, 1.0)


def _probability_scores() -> None:
    """Each probability score's kernel and their comparison's switch, as tests/test_registries.py calls them."""
    from mcrank.probabilities import PROBABILITY_SCORES, _probability_compare

    for entry in PROBABILITY_SCORES.values():
        entry(0.5, 1.0, 1.0, 1.0, 0.0)
        _probability_compare(entry.code, 0.5, 1.0, 1.0, 1.0, 0.0, 2.0, 1.0, 1.0, 0.0)


def _recorded_pairs() -> None:
    """The recording kernel of both error models, as tests/test_engine.py calls it."""
    from mcrank.engine import sample_pairs

    for error in ("gaussian", "truncated"):
        sample_pairs(10, error=error, rng=1)


#: Two groups of about the same compile time (side by side on a fresh cache: 77 s and 86 s of CPU, 89 s of wall time).
GROUPS = {
    "roc-nclass": (
        (*RUN, "--study", "roc"),
        _roc_scores,
        (*RUN, "--classes", "3"),
        (*RUN, "--test-size", "100", "--error", "truncated"),
        (*RUN, "--rate-beta", "2", "3"),
        _recorded_pairs,
    ),
    # The two-class kernels are compiled per variant of a study (mcrank.engine.binary.Variant):
    # the variants the tests run, in both groups.
    "two-class": (
        RUN,
        (*RUN, "--error", "truncated"),
        (*RUN, "--test-size", "100"),
        (*RUN, "--study", "probabilities"),
        _probability_scores,
        ("evaluate", FACTORY, "--sd", "0.1", "--samples", "100", "--seed", "1"),
    ),
}


def main(group: str) -> int:
    from mcrank.cli import main as mcrank

    with contextlib.redirect_stdout(io.StringIO()):
        for step in GROUPS[group]:
            if callable(step):
                step()
            elif mcrank(list(step)) != 0:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
