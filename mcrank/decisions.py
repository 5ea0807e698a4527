r"""Decide by maximal expected utility: the other half of the paper's practical advice.

A classifier that gives class probabilities :math:`p(c \mid x)` for an item should output the
decision of maximal expected utility, eq. (20) of the draft's §8.2 ("optimality vs truth"; the
rule is eq. 9 of the published version, ``docs/method.md``):

.. math:: d^* = \arg\max_d \sum_c U_{dc}\, p(c \mid x)

not the most probable class, eq. (21), which is what the identity utility matrix chooses. The
decisions are only as good as the probabilities: optimal for the odds stated, they can do worse
than the most probable class where those odds are wrong (``docs/decisions.md``, "Calibration").

Conventions (``docs/method.md``, "Conventions"): ``utility[d, c]`` is the utility of decision
(output) ``d`` when class ``c`` is true, the layout of :mod:`mcrank.utility_space`. The matrix may
be rectangular, ``(d, n)`` with ``d != n``: a decision need not be a class ("order another
test", "refer to a specialist", "abstain").

When the probabilities were learned under class frequencies other than those met in use, they
are first corrected by Bayes's theorem, eq. (31) of the draft's appendix:
:math:`p'(c \mid x) \propto p(c \mid x)\, \pi_c / \pi^{\text{train}}_c`. Using the training
frequencies as they are is the base-rate fallacy the paper warns of.

This module needs NumPy only; :mod:`mcrank.sklearn` builds scikit-learn tools on it.
"""

from __future__ import annotations

import numbers

import numpy as np

from mcrank._validation import array_input

__all__ = ["base_rate_corrected", "expected_utilities", "optimal_decisions"]

#: How far a row of probabilities (or a prior vector) may sum from 1.
SUM_TOLERANCE = 1e-6

#: The smallest positive normal float (about 2.2e-308). Below it a float keeps fewer than 53
#: significant bits, and its reciprocal overflows.
SMALLEST_NORMAL = float(np.finfo(float).tiny)


def _real_array(values, what: str, expected: str) -> np.ndarray:
    """``values`` as an array of floats, or a one-line ValueError naming ``what``.

    ``np.asarray(values, dtype=float)`` alone would drop the imaginary part of complex numbers
    (with only a warning) and parse strings of digits as numbers; ragged rows and other
    strings would fail with NumPy's message, which names no parameter.
    """
    if isinstance(values, (str, bytes)):
        # ValueError, as for every other bad value: the API documents one exception for bad input.
        raise ValueError(f"{what} must be {expected} of numbers, got the string {values!r}")  # noqa: TRY004
    values = array_input(values, what)
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):  # ragged rows: NumPy cannot make them one array
        raise ValueError(f"{what} must be {expected} of numbers, with rows of equal length") from None
    kind = array.dtype.kind
    if kind == "O":  # such as Fractions, or None mixed with numbers
        if not all(isinstance(item, numbers.Real) for item in array.flat):
            bad = next(item for item in array.flat if not isinstance(item, numbers.Real))
            raise ValueError(f"{what} must be {expected} of real numbers, but holds {bad!r}")
        return array.astype(float)
    if kind == "c":
        raise ValueError(f"{what} must be {expected} of real numbers, got complex values")
    if kind in "US":
        raise ValueError(f"{what} must be {expected} of numbers, got strings such as {str(array.flat[0])!r}")
    if kind not in "biuf":
        raise ValueError(f"{what} must be {expected} of numbers, got values of type {array.dtype}")
    return array.astype(float, copy=False)


def _scale_of(values: np.ndarray) -> float:
    """A power of two that brings ``values`` well below the float limit, else 1.

    Sums of values near 1.8e308 overflow to infinity (and then to NaN). Dividing by a power of
    two changes no bit of a value unless it falls below 1e-308 of the largest, where its share
    of any sum is below rounding anyway; ordinary values are left alone (scale 1).
    """
    largest = float(np.max(np.abs(values), initial=0.0))
    if largest <= np.finfo(float).max / 16:
        return 1.0
    # largest / scale lies in [8, 16): room for sums of 10^306 such values, and 2^e itself
    # would overflow for e = 1024.
    return 2.0 ** (int(np.frexp(largest)[1]) - 4)


def _check_utility(utility, *, per_item: bool = False) -> np.ndarray:
    """A finite utility matrix (decisions, classes); with ``per_item``, also a per-item array
    (items, decisions, classes)."""
    u = _real_array(utility, "utility", "a matrix of shape (decisions, classes)")
    if per_item and u.ndim == 3 and u.shape[1] > 0 and u.shape[2] > 0:
        pass
    elif u.ndim != 2 or u.shape[0] == 0 or u.shape[1] == 0:
        also = " or a per-item array (items, decisions, classes)" if per_item else ""
        raise ValueError(f"utility must be a matrix of shape (decisions, classes){also}, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        raise ValueError("utility contains NaN or infinite values")
    return u


def _check_probabilities(probabilities, n_classes: int | None = None) -> np.ndarray:
    p = _real_array(probabilities, "probabilities", "an array of shape (items, classes)")
    if p.ndim != 2:
        raise ValueError(f"probabilities must have shape (items, classes), got shape {p.shape}")
    if n_classes is not None and p.shape[1] != n_classes:
        raise ValueError(f"probabilities have {p.shape[1]} classes (columns) but utility has {n_classes} (one column per true class)")
    if not np.all(np.isfinite(p)):
        raise ValueError("probabilities contain NaN or infinite values")
    outside = np.flatnonzero(np.any((p < 0) | (p > 1), axis=1))
    if outside.size:
        raise ValueError(f"probabilities must lie in [0, 1]; item {outside[0]} has {p[outside[0]].tolist()}")
    off = np.flatnonzero(np.abs(p.sum(axis=1) - 1.0) > SUM_TOLERANCE)
    if off.size:
        raise ValueError(f"each item's probabilities must sum to 1 (within {SUM_TOLERANCE:g}); item {off[0]} sums to {p[off[0]].sum():.9g}")
    return p


def _check_prior(values, n_classes: int, what: str, *, positive: bool) -> np.ndarray:
    prior = _real_array(values, what, f"an array of {n_classes} class frequencies")
    if prior.shape != (n_classes,):
        raise ValueError(f"{what} must have one entry per class ({n_classes}), got shape {prior.shape}")
    if not np.all(np.isfinite(prior)):
        raise ValueError(f"{what} contains NaN or infinite values")
    if np.any(prior < 0):
        raise ValueError(f"{what} must be non-negative, got {prior.tolist()}")
    if positive and np.any(prior < SMALLEST_NORMAL):
        # It divides. A class never met in training (prior 0) has no learned probability to
        # correct; one below the smallest normal float has fewer than 53 significant bits, so
        # the correction would not be the one typed, and no training set is that lopsided.
        small = prior[np.argmax(prior < SMALLEST_NORMAL)]
        raise ValueError(
            f"{what} must be at least {SMALLEST_NORMAL:.3g} (the smallest normal float; it divides the probabilities), got {float(small)!r}"
        )
    if abs(prior.sum() - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{what} must sum to 1 (within {SUM_TOLERANCE:g}), got a sum of {prior.sum():.9g}")
    return prior


def _corrected(p: np.ndarray, priors, training_priors) -> np.ndarray:
    """Eq. (31) on checked probabilities; ``p`` itself when neither prior is given."""
    if priors is None and training_priors is None:
        return p
    if priors is None or training_priors is None:
        raise ValueError("give both priors and training_priors (the class frequencies in use and in training), or neither")
    n_classes = p.shape[1]
    prior = _check_prior(priors, n_classes, "priors", positive=False)
    training = _check_prior(training_priors, n_classes, "training_priors", positive=True)
    # In logarithms: p * priors / training_priors overflows to infinity (and the normalisation
    # to NaN) when a training prior is tiny. Subtracting each item's largest log weight scales
    # its weights so that the largest is exactly 1: nothing overflows, and only weights below
    # 1e-308 of the largest underflow, which changes no probability by more than that.
    with np.errstate(divide="ignore"):  # log 0 = -inf: probability or prior 0 stays weight 0
        log_weight = np.log(p) + (np.log(prior) - np.log(training))
    largest = log_weight.max(axis=1, keepdims=True)
    empty = np.flatnonzero(np.isneginf(largest[:, 0]))
    if empty.size:
        raise ValueError(
            f"item {empty[0]} has probability only on classes whose prior is 0: no probability is left after the correction (eq. 31)"
        )
    weighted = np.exp(log_weight - largest)
    return weighted / weighted.sum(axis=1, keepdims=True)


def base_rate_corrected(probabilities, *, priors, training_priors) -> np.ndarray:
    r"""Class probabilities corrected from the training class frequencies to those in use, eq. (31).

    .. math::
        p'(c \mid x) = \frac{p(c \mid x)\, \pi_c / \pi^{\text{train}}_c}
                            {\sum_k p(k \mid x)\, \pi_k / \pi^{\text{train}}_k}

    A classifier trained on a sample whose class frequencies :math:`\pi^{\text{train}}` differ
    from the base rates :math:`\pi` of the population it serves learns
    :math:`p(x \mid c)` well but :math:`p(c \mid x)` under the wrong base rates; Bayes's theorem
    exchanges them. Eq. (31), in the draft's appendix ("broader overview of binary
    classification"), where using the training frequencies as they are is called the
    base-rate fallacy.

    Parameters
    ----------
    probabilities : array_like of shape (items, n)
        :math:`p(c \mid x)` per item, each row in [0, 1] and summing to 1 (within 1e-6).
    priors : array_like of shape (n,)
        :math:`\pi`, the class frequencies in use: non-negative, summing to 1.
    training_priors : array_like of shape (n,)
        :math:`\pi^{\text{train}}`, those the probabilities were learned under, summing to 1.
        Each must be at least the smallest normal float (about 2.2e-308): a class absent from
        training (0) has no learned probability to correct, and a subnormal frequency has too
        few significant bits to divide by.

    Notes
    -----
    The correction is computed in logarithms, with each item's weights scaled so that the
    largest is 1. Tiny but normal training priors (1e-300, say) therefore give the right
    probabilities, where multiplying by :math:`\pi_c / \pi^{\text{train}}_c` directly would
    overflow to infinity and NaN. The price is a relative rounding error of about
    :math:`10^{-16}\,|\log w|` for a weight :math:`w` relative to the item's largest.

    Returns
    -------
    ndarray of shape (items, n)

    Raises
    ------
    ValueError
        On a bad shape, a probability outside [0, 1], a row or prior not summing to 1, a
        training prior of 0 or below the smallest normal float, or an item whose probability
        lies wholly on classes of prior 0. Each message names the parameter.
    """
    return _corrected(_check_probabilities(probabilities), priors, training_priors)


def _expected(p: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, float]:
    """Expected utilities divided by a scale (a power of two, 1 unless utilities near 1e308), and the scale."""
    scale = _scale_of(u)
    if scale != 1.0:
        u = u / scale
    # One class at a time, in the same order for every decision: two decisions with equal rows
    # of utility get bit-identical expected utilities, so that a tie is a tie (a BLAS matrix
    # product may round different output cells differently).
    out = np.zeros((p.shape[0], u.shape[-2]))
    for c in range(u.shape[-1]):
        out += p[:, c : c + 1] * u[..., c]  # u[:, c] of a matrix; u[:, :, c] of a per-item array
    return out, scale


def expected_utilities(probabilities, utility) -> np.ndarray:
    r"""Expected utility of every decision for every item, eq. (8) of §2.3.

    .. math:: \bar U_{xd} = \sum_c U_{dc}\, p(c \mid x)

    Parameters
    ----------
    probabilities : array_like of shape (items, n)
        :math:`p(c \mid x)`: one row per item, one column per class, each row in [0, 1] and
        summing to 1 (within 1e-6).
    utility : array_like of shape (d, n) or (items, d, n)
        ``utility[i, c]`` = utility of decision ``i`` when class ``c`` is true; ``d`` may differ
        from ``n``. A per-item array gives each item its own matrix.

    Returns
    -------
    ndarray of shape (items, d)

    Raises
    ------
    ValueError
        On a bad shape or ragged rows, widths that do not match, complex, non-numeric or
        non-finite utilities, or probabilities outside [0, 1] or not summing to 1.
    """
    u = _check_utility(utility, per_item=True)
    p = _check_probabilities(probabilities, u.shape[-1])
    if u.ndim == 3 and u.shape[0] != p.shape[0]:
        raise ValueError(f"utility has {u.shape[0]} items (its first axis) but probabilities have {p.shape[0]}")
    scaled, scale = _expected(p, u)
    return scaled * scale


def optimal_decisions(probabilities, utility, *, priors=None, training_priors=None) -> np.ndarray:
    r"""The decision of maximal expected utility for every item, eq. (20) of §8.2.

    .. math:: d^*(x) = \arg\max_d \sum_c U_{dc}\, p(c \mid x)

    With ``priors`` and ``training_priors``, the probabilities are first corrected by Bayes's
    theorem, eq. (31) (see :func:`base_rate_corrected`): give both or neither.

    Parameters
    ----------
    probabilities : array_like of shape (items, n)
        :math:`p(c \mid x)`, as from a scikit-learn ``predict_proba``: each row in [0, 1] and
        summing to 1 (within 1e-6).
    utility : array_like of shape (d, n) or (items, d, n)
        ``utility[i, c]`` = utility of decision ``i`` when class ``c`` is true. Rectangular
        matrices are allowed: a decision may belong to no class ("abstain", "refer"). A
        per-item array ``utility[k, i, c]`` gives each item its own matrix (an amount at
        stake): item ``k``'s decision is ``argmax_i sum_c utility[k, i, c] p(c | x_k)``.
    priors : array_like of shape (n,), optional
        Class frequencies in use (base rates): non-negative, summing to 1.
    training_priors : array_like of shape (n,), optional
        Class frequencies the probabilities were learned under: each at least the smallest
        normal float (about 2.2e-308), summing to 1.

    Returns
    -------
    ndarray of int of shape (items,)
        Row indices into ``utility``. A tie (expected utilities exactly equal) goes to the
        lowest decision index, as :func:`numpy.argmax` does. Expected utilities are summed
        class by class in one order, so decisions with identical rows of utility always tie.

    Raises
    ------
    ValueError
        On a bad shape or ragged rows, widths that do not match, complex, non-numeric or
        non-finite utilities, probabilities outside [0, 1] or not summing to 1, or priors
        given alone or malformed (see :func:`base_rate_corrected`).

    Notes
    -----
    The decisions are optimal for the probabilities given, and only as good as they are: an
    overconfident or underconfident classifier makes eq. (20) weigh the utilities with the
    wrong odds, and its decisions can then be worse than the most probable class. Check the
    calibration of the probabilities (a reliability diagram, the log loss on held-out data)
    before trusting the decisions; ``docs/decisions.md`` measures the effect.

    Examples
    --------
    Treating costs little, missing the disease much; a third decision, "test again", has no
    class of its own:

    >>> utility = [[0.9, 0.7],   # treat:      ill, healthy
    ...            [0.0, 1.0],   # dismiss
    ...            [0.8, 0.8]]   # test again
    >>> optimal_decisions([[0.1, 0.9], [0.3, 0.7], [0.9, 0.1]], utility).tolist()
    [1, 2, 0]
    """
    u = _check_utility(utility, per_item=True)
    p = _corrected(_check_probabilities(probabilities, u.shape[-1]), priors, training_priors)
    if u.ndim == 3 and u.shape[0] != p.shape[0]:
        raise ValueError(f"utility has {u.shape[0]} items (its first axis) but probabilities have {p.shape[0]}")
    if p.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    scaled, _ = _expected(p, u)  # the scale, a positive constant, changes no argmax
    return np.argmax(scaled, axis=1)
