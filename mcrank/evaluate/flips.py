"""The flip probabilities under the utility's errors: how likely each pair's ranking is to flip
when the utility matrix is off by errors of sd ``sd`` (paper §4.2).

Exactly under gaussian errors (:func:`_conditional_flips`, the study's conditional estimator),
by Monte Carlo under any error model (:func:`_count_flips`: perturbed matrices drawn in chunks
of bounded size, every pair compared on the same draws by the kernel
:func:`_count_not_ahead`). The pipeline (:mod:`mcrank.evaluate.pipeline`) calls them with the
inputs its front door checked (:mod:`mcrank.evaluate.front_door`).
"""

from __future__ import annotations

import sys

import numpy as np

from mcrank._jit import jit
from mcrank._rng import UTILITY_ERRORS, root_of, stream_generator

# Work space of the flip counts, in float64 elements per array (16 MiB): a chunk of samples
# holds at most this many elements of perturbed matrices and of their yields. A few such
# arrays at once (30-50 MiB measured), whatever the numbers of classifiers, pairs and samples.
_CHUNK_ELEMENTS = 1 << 21
# Gaussian errors are drawn with at most this sd (see _count_flips): any finite sd is taken,
# as `mcrank run` takes it, but U + sd * Z overflows to inf near sd = 1e308.
_MAX_DRAWN_SD = 1e300


def _has_closed_form(error: str) -> bool:
    """Whether the error model's perturbed yield difference is normal (the conditional estimator
    applies), as its record in :data:`mcrank.error_models.ERROR_MODELS` says."""
    from mcrank.error_models import ERROR_MODELS as records

    return records[error].closed_form


def _check_truncated(normalised: np.ndarray, classes, where: str) -> None:
    """The truncated error model keeps correct classification best in each column: so must ``U``."""
    if len(bad := np.argwhere((normalised > np.diagonal(normalised)).T)):
        j, i = bad[0]
        raise ValueError(
            f"{where}: the truncated error model keeps correct classification best in each column, "
            f"but in column {j} (true {classes[j]!r}) row {i} has a higher utility than row {j}"
        )


def _conditional_flips(ranked_yields, ranked_confusions, sd) -> np.ndarray:
    """Exactly, for each pair ``(a, b)`` of classifiers in rank order, ``a < b``, in the order
    (0, 1), (0, 2), ..., (1, 2), ...: the probability that gaussian errors of sd ``sd`` on the
    normalised utility matrix do not put ``a`` strictly ahead. ``ranked_yields`` are the
    yields under the normalised matrix (or differ from them by a constant), and
    ``ranked_confusions`` the confusion matrices as fractions of the test set.

    The perturbed yield difference ``sum((U + sd Z) * (C_a - C_b))`` is normal, with mean
    the difference ``d`` under ``U`` and sd ``sd ||C_a - C_b||_F``: the flip probability is
    ``Phi(-d / (sd ||C_a - C_b||_F))``, the study's conditional estimator
    (:func:`mcrank.engine.conditional.incorrect_probability`). A pair with equal matrices
    (``d = 0``) gets 1, step 6's tie; the caller reports it as a tie.
    """
    # Imported here: mcrank.engine's package imports every kernel and the study layer, which a
    # ranking without an error sd does not need.
    from mcrank.engine.conditional import incorrect_probability

    flat = ranked_confusions.reshape(len(ranked_confusions), -1)
    probabilities = []
    for a in range(len(flat) - 1):
        difference = flat[a] - flat[a + 1 :]
        spread = np.sqrt(np.sum(difference * difference, axis=1))
        with np.errstate(over="ignore", invalid="ignore"):
            margin = ranked_yields[a] - ranked_yields[a + 1 :]
        probabilities.append(incorrect_probability(margin, spread, sd))
    return np.concatenate(probabilities) if probabilities else np.zeros(0)


def _count_flips(normalised, confusions, order, sd, error, samples, rng, progress=False):
    """Monte Carlo: for each pair ``(order[a], order[b])``, ``a < b``, in that order, how many
    of ``samples`` perturbed utility matrices fail to put ``order[a]`` strictly ahead.

    All pairs share the same perturbed matrices (common random numbers), drawn in chunks from
    one Generator, the stream ``UTILITY_ERRORS`` of the root ``rng``
    (:func:`mcrank._rng.stream_generator`; the test-set posterior draws its perturbed matrices
    from it too), so that the counts depend neither on the chunk size nor on the options that
    draw other quantities. A chunk holds at most
    :data:`_CHUNK_ELEMENTS` elements of perturbed matrices and of yields, and the pairs are
    compared by :func:`_count_not_ahead` in tiles of samples, so that the work space grows
    with neither the number of samples nor that of pairs (the square of the number of
    classifiers).

    Gaussian errors larger than :data:`_MAX_DRAWN_SD` are drawn with that sd. Above it, the
    perturbed matrix ``U + sd * Z`` (``U`` in [0, 1], ``|Z| < 14``) is ``sd * Z`` to double
    precision, and the rankings are those of ``Z`` whatever the sd (on the examples, the
    counts are identical for sds from 1e20 to 1e307); drawn with a larger sd, ``sd * Z``
    could overflow to inf, and the yields become NaN (inf - inf) with a RuntimeWarning.
    """
    if _has_closed_form(error):  # unbounded normal errors: see above
        sd = min(sd, _MAX_DRAWN_SD)
    generator = stream_generator(root_of(rng), UTILITY_ERRORS)
    n, classifiers = normalised.shape[0], len(confusions)
    chunk = max(1, _CHUNK_ELEMENTS // (n * n + classifiers))
    flips = np.zeros(classifiers * (classifiers - 1) // 2, dtype=np.int64)
    flat_confusions = confusions.reshape(classifiers, -1)
    from tqdm import tqdm  # only when drawing: the command line starts without it

    from mcrank.samplers import perturb_um  # only when drawing: its generated switches cost every start-up

    with tqdm(total=samples, unit="sample", unit_scale=True, disable=not progress, file=sys.stderr, leave=False) as bar:
        for done in range(0, samples, chunk):
            size = min(chunk, samples - done)
            perturbed = perturb_um(normalised, sd, error=error, size=size, rng=generator)
            # Eq. (9) as one matrix product, (size, n*n) @ (n*n, classifiers): utility_yield would
            # broadcast through a (size, classifiers, n, n) temporary, classifiers times the chunk.
            # Then one row per classifier, in rank order: the pairs of order[a] are rows a + 1 on.
            ranked_yields = (perturbed.reshape(size, -1) @ flat_confusions.T).T[order]
            _count_not_ahead(ranked_yields, flips)
            bar.update(size)
    return flips


#: Samples whose yields :func:`_count_not_ahead` compares together: the yields of every
#: classifier at this many samples stay in cache while every pair is compared.
_FLIP_TILE = 256


@jit
def _count_not_ahead(ranked_yields, flips):
    """For each pair ``a < b`` of rows of ``ranked_yields`` (classifiers in rank order, one
    column per perturbed matrix), in the order (0, 1), (0, 2), ..., (1, 2), ...: add to
    ``flips`` the number of columns in which row ``b`` is not strictly below row ``a``.

    The columns are taken :data:`_FLIP_TILE` at a time, all pairs for each tile, so that
    the work space stays in cache whatever the numbers of classifiers and samples. Each
    tile is copied into a buffer of its own: rows of a whole buffer, indexed from 0, are
    what the compiler vectorises (eight times faster than rows of a slice, measured).
    """
    classifiers, size = ranked_yields.shape
    tile = np.empty((classifiers, _FLIP_TILE))
    for first in range(0, size, _FLIP_TILE):
        m = min(_FLIP_TILE, size - first)
        for a in range(classifiers):
            for s in range(m):
                tile[a, s] = ranked_yields[a, first + s]
        pair = 0
        for a in range(classifiers - 1):
            ahead = tile[a]
            for b in range(a + 1, classifiers):
                other = tile[b]
                count = 0
                for s in range(m):
                    count += other[s] >= ahead[s]
                flips[pair] += count
                pair += 1
