"""The one way in for randomness.

Every stochastic function of mcrank takes ``rng: int | SeedSequence | Generator | None``
and resolves it with :func:`resolve_rng`. Parallel chunks get independent children of one
root :class:`numpy.random.SeedSequence` from :func:`spawn_generators`. Library code never
touches numpy's global random state.

**One seed, one stream per quantity.** A computation that draws several random quantities
(``mcrank evaluate``: the test set's posterior, the utility's errors, the deployment's class
frequencies; the decision curves' bands) draws each from a child of the root of its own,
:func:`stream_generator`, keyed by the quantity (:data:`TEST_SET`, :data:`UTILITY_ERRORS`,
:data:`DEPLOYMENT_FREQUENCIES`, :data:`DECISION_CURVE_BANDS`, :data:`DECISION_CURVE_PAIRS`,
:data:`FOLD_POSTERIOR`, :data:`SCORING_POSTERIOR`, :data:`PER_ITEM_POSTERIOR`, :data:`PROBABILITY_RECALIBRATION`) and a position within it: adding an option that draws one quantity
changes no number of another.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DECISION_CURVE_BANDS",
    "DECISION_CURVE_PAIRS",
    "DEPLOYMENT_FREQUENCIES",
    "FOLD_POSTERIOR",
    "PER_ITEM_POSTERIOR",
    "PROBABILITY_RECALIBRATION",
    "SCORING_POSTERIOR",
    "TEST_SET",
    "UTILITY_ERRORS",
    "child_seed_sequence",
    "plain_seed",
    "resolve_rng",
    "root_of",
    "root_seed_sequence",
    "spawn_generators",
    "stream_generator",
]

#: What an ``rng`` argument takes. A string, for annotations only: spelt out, it would import
#: NumPy's random module (and with it ``secrets``, ``hashlib``) in commands that draw nothing.
RngLike = "int | np.random.SeedSequence | np.random.Generator | None"

#: The random quantities, each the first element of its streams' spawn keys (see
#: :func:`stream_generator`): the test set's posterior (Dirichlet draws of class proportions,
#: columns and pairs' joint tables), the errors of the utility matrix (perturbed matrices),
#: the deployment's class frequencies drawn from registry counts, the decision curves' bands,
#: and the decision curves' pair probabilities drawn where their integral does not converge.
TEST_SET, UTILITY_ERRORS, DEPLOYMENT_FREQUENCIES, DECISION_CURVE_BANDS, DECISION_CURVE_PAIRS = 0, 1, 2, 3, 4
#: The joint posterior of the mean yields across cross-validation folds (:mod:`mcrank.evaluate.folds`).
FOLD_POSTERIOR = 5
#: The Bayesian bootstrap of scoring classifiers' yields (:func:`mcrank.evaluate.rank_scoring`).
SCORING_POSTERIOR = 6
#: The Bayesian bootstrap of per-item yields (:mod:`mcrank.evaluate.per_item`).
PER_ITEM_POSTERIOR = 7
#: The folds of the cross-fitted recalibration of class probabilities (:mod:`mcrank.evaluate.probabilities`).
PROBABILITY_RECALIBRATION = 8


def plain_seed(seed) -> bool:
    """Whether ``seed`` is None or a non-negative integer, the seeds :func:`root_seed_sequence`
    takes besides a SeedSequence: a root made of one can wait until something is drawn, since
    telling them apart imports nothing of NumPy's random module."""
    return seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0)


def root_seed_sequence(seed: int | np.random.SeedSequence | None) -> np.random.SeedSequence:
    """Return the root :class:`~numpy.random.SeedSequence` for ``seed``.

    ``None`` draws fresh entropy; the caller should record ``.entropy`` so that the run can
    be repeated.
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if not plain_seed(seed):
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


def root_of(rng: RngLike) -> np.random.SeedSequence:
    """The root :class:`~numpy.random.SeedSequence` whose children a computation draws from.

    A SeedSequence is its own root, an int or None gives :func:`root_seed_sequence`; a
    Generator gives a root seeded by 128 bits drawn from it, once (so the caller's stream
    advances, as with :func:`resolve_rng`, and two calls give two independent roots).
    """
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence([int(word) for word in rng.integers(0, 2**32, size=4, dtype=np.uint64)])
    return root_seed_sequence(rng)


def stream_generator(root: np.random.SeedSequence, quantity: int, index: int = 0) -> np.random.Generator:
    """The Generator of one random quantity: the child ``(quantity, index)`` of ``root``.

    ``quantity`` is one of :data:`TEST_SET`, :data:`UTILITY_ERRORS`,
    :data:`DEPLOYMENT_FREQUENCIES`, :data:`DECISION_CURVE_BANDS`, :data:`DECISION_CURVE_PAIRS`,
    :data:`FOLD_POSTERIOR`, :data:`SCORING_POSTERIOR`, :data:`PER_ITEM_POSTERIOR`, :data:`PROBABILITY_RECALIBRATION`; ``index`` numbers the parts of a quantity that are drawn apart (a
    pair, a model), so that drawing one part or not leaves the others' numbers alone. Spawn keys of one length
    only: numpy pads entropy with zeros, so a key ``(0,)`` could stand for ``(0, 0)``.
    """
    return np.random.default_rng(child_seed_sequence(root, quantity, index))


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
