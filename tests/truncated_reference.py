"""The ``truncated`` error model's former sampler, jitted: a reference for the tests and the bench.

Every element of a column drawn from its normal truncated to [0, 1]
(:func:`mcrank.error_models._draw_truncated_normal_01`), in row order, then the whole column
redrawn unless its diagonal element is the largest. Same law as the package's sampler, which
gives a column up at its first element above the diagonal; the same draws at n = 2, where
there is nothing to give up early. ``tests/test_samplers.py`` checks both, and
``scripts/bench.py`` times the package's sampler against this one.
"""

from __future__ import annotations

import numpy as np

from mcrank._jit import jit
from mcrank.error_models import _draw_truncated_normal_01

__all__ = ["perturb_every_element_first"]


@jit
def _perturb_every_element_first(rng, utility, sd, out):
    n = utility.shape[0]
    for j in range(n):
        ordered = False
        while not ordered:
            for i in range(n):
                out[i, j] = _draw_truncated_normal_01(rng, utility[i, j], sd)
            ordered = True
            for i in range(n):
                if i != j and out[i, j] > out[j, j]:
                    ordered = False


@jit
def _fill(rng, utilities, sds, out):
    for k in range(utilities.shape[0]):
        for s in range(sds.size):
            _perturb_every_element_first(rng, utilities[k], sds[s], out[k, s])


def perturb_every_element_first(utilities: np.ndarray, sds, rng: np.random.Generator) -> np.ndarray:
    """One perturbed copy of each of ``utilities`` (m, n, n) at each of ``sds``: (m, len(sds), n, n)."""
    utilities = np.ascontiguousarray(utilities, dtype=float)
    sds = np.asarray(sds, dtype=float).reshape(-1)
    out = np.empty((utilities.shape[0], sds.size, *utilities.shape[1:]))
    _fill(rng, utilities, sds, out)
    return out
