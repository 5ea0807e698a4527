"""The one way in for randomness.

Every stochastic function of mcrank takes ``rng: int | SeedSequence | Generator | None``
and resolves it with :func:`resolve_rng`. Parallel chunks get independent children of one
root :class:`numpy.random.SeedSequence` from :func:`spawn_generators`. Library code never
touches numpy's global random state.
"""

from __future__ import annotations

import numpy as np

__all__ = ["child_seed_sequence", "resolve_rng", "root_seed_sequence", "spawn_generators"]

RngLike = int | np.random.SeedSequence | np.random.Generator | None


def root_seed_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """Return the root :class:`~numpy.random.SeedSequence` for ``seed``.

    ``None`` draws fresh entropy; the caller should record ``.entropy`` so that the run can
    be repeated.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(None if seed is None else int(seed))


def resolve_rng(rng: RngLike = None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    Parameters
    ----------
    rng : int, SeedSequence, Generator or None
        A Generator is returned as is (so the caller's stream advances); anything else seeds
        a new PCG64 Generator.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(root_seed_sequence(rng))


def child_seed_sequence(root: np.random.SeedSequence, *key: int) -> np.random.SeedSequence:
    """The child of ``root`` at spawn key ``key`` (e.g. ``(chunk, stream)``).

    Built from the spawn key rather than ``root.spawn(n)``, which would advance the root's
    child counter and make a second call return different children: the same key always
    gives the same child.
    """
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, *key), pool_size=root.pool_size)


def spawn_generators(seed: int | np.random.SeedSequence | None, n: int) -> list[np.random.Generator]:
    """Return ``n`` independent Generators, children ``0..n-1`` of the root seed.

    Child ``k`` depends only on the root seed and ``k``, so work split into chunks gives the
    same numbers whatever the number of workers.
    """
    root = root_seed_sequence(seed)
    return [np.random.default_rng(child_seed_sequence(root, k)) for k in range(n)]
