"""The error models of perturbed utility matrices (step 4; ``docs/method.md``, "The Monte Carlo study").

One :class:`ErrorModel` record per model, in :data:`ERROR_MODELS`: its name, its code for the
kernels, its help, what the engine may assume of it and its jitted perturbation of one matrix.
The kernels' switch over the codes, :func:`mcrank.samplers._perturb_into`, is generated from
this registry; adding a model is one :func:`register_error_model` call (``docs/development.md``,
"Adding an error model").

- ``gaussian``: independent N(0, s^2) added to every element, nothing else (the paper's §4.2).
- ``truncated``: the same, conditioned on ``0 <= U'_ij <= 1`` and on every diagonal element
  being at least the other elements of its column (correct classification stays better).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry
from mcrank._jit import jit

__all__ = ["ERROR_MODELS", "ErrorModel", "register_error_model"]


@dataclass(frozen=True)
class ErrorModel:
    """One error model of perturbed utility matrices ``U'`` (step 4).

    Attributes
    ----------
    name : str
        Its name on the command line, in experiment files and in results.
    code : int
        Its position in :data:`ERROR_MODELS`: how the kernels name it.
    help : str
        One line for the command line's help.
    perturb : numba function
        ``perturb(rng, utility, sd, out)``: one perturbed copy of the square matrix ``utility``
        (standard form, eq. 11) at error sd ``sd`` into ``out``, drawn from the numpy Generator
        ``rng``. Jitted (``mcrank._jit.jit``), ideally with ``inline="always"``.
    closed_form : bool
        ``U' - U`` is N(0, s^2), independently on every element: the perturbed difference of a
        pair is then ``d + s ||C2 - C1||_F Z`` with one standard normal ``Z``, which the
        ``conditional`` estimator averages in closed form and the ``sample`` one draws at the
        cost of one normal, and the realised sd is ``s`` by construction. Otherwise the kernels
        perturb the elements with ``perturb`` and measure the realised sd.
    two_class_kernel : bool
        Whether the paper's two-class kernels (:mod:`mcrank.engine.binary`) draw it: by the
        closed form, or ``truncated`` by its exact sampler of many columns at once
        (:func:`mcrank.samplers._fill_truncated_columns`). A study under any other model runs
        on the n-class kernel, which perturbs with ``perturb`` at every n. Those kernels have
        no sampler of another model's own, so a model registered after the built-in ones may
        set it only with ``closed_form`` (:func:`register_error_model` refuses it otherwise).
    check : callable or None
        ``check(utility)`` raises ValueError, naming ``utility``, for a matrix (standard form)
        that the model cannot perturb.
    """

    name: str
    code: int
    help: str
    perturb: Callable = field(repr=False, compare=False)
    closed_form: bool = False
    two_class_kernel: bool = False
    check: Callable | None = field(default=None, repr=False, compare=False)


#: Every error model by name, in the order registered (its code).
ERROR_MODELS: Registry = Registry("error model")


def register_error_model(
    name: str, perturb, *, help: str, closed_form: bool = False, two_class_kernel: bool = False, check=None
) -> ErrorModel:
    """Add an error model; its code is its position. See :class:`ErrorModel` for the arguments.

    Call it before :mod:`mcrank.samplers` (so before :mod:`mcrank.study` or
    :mod:`mcrank.engine`) is imported, in every process that runs kernels: the kernels' switch is
    generated then, and a RuntimeError says so afterwards.

    Raises
    ------
    ValueError
        For ``two_class_kernel`` without ``closed_form`` on a model that is not built in: the
        two-class kernels would draw it with the ``truncated`` model's sampler, not its own.
    """
    if two_class_kernel and not closed_form and not ERROR_MODELS.builtin:
        raise ValueError(
            f"two_class_kernel: the error model {name!r} has no closed form, and the two-class kernels draw no other "
            "model without one than truncated, by a sampler of its own; leave two_class_kernel False (the n-class kernel "
            "draws it with its perturb at every number of classes)"
        )
    return ERROR_MODELS.add(ErrorModel(name, len(ERROR_MODELS), help, perturb, closed_form, two_class_kernel, check))


# --- gaussian ----------------------------------------------------------------------------------


@jit(inline="always")
def _perturb_gaussian(rng, utility, sd, out):
    """``out = utility + N(0, sd^2)`` element by element."""
    n = utility.shape[0]
    for i in range(n):
        for j in range(n):
            out[i, j] = utility[i, j] + sd * rng.standard_normal()


register_error_model(
    "gaussian",
    _perturb_gaussian,
    help="N(0, sd^2) added to every element (the paper's; default)",
    closed_form=True,
    two_class_kernel=True,
)


# --- truncated ---------------------------------------------------------------------------------


@jit(inline="always")
def _proposal(mean, step):
    """``mean + step``, or ``|step|`` for a mean of 0, or ``1 - |step|`` for a mean of 1
    (the half-normal proposal on a bound). Written as selects, not branches: which case an
    element is in is data-dependent."""
    folded = 1.0 - abs(step) if mean == 1.0 else abs(step)
    return folded if (mean == 0.0) | (mean == 1.0) else mean + step


@jit(inline="always")
def _draw_truncated_normal_01(rng, mean, sd):
    """One draw of N(mean, sd^2) truncated to [0, 1], exactly, for a mean in [0, 1].

    Two exact rejection samplers. For sd <= 1, the proposals of :func:`_proposal`, accepted
    when they land in [0, 1]: normal (acceptance = mass of [0, 1] under N(mean, sd^2), at
    least 1/3), or half-normal for a mean on a bound (common: a normalised matrix has a 0
    and a 1), exact by symmetry and accepted almost always when sd is small. For sd > 1,
    uniform proposals on [0, 1] accepted with probability exp(-(x - mean)^2 / (2 sd^2))
    (acceptance above exp(-1/2)). A normal variate costs about a quarter of a uniform pair
    and an exponential here, hence the switch at sd = 1 rather than at the equal-acceptance
    point 1/sqrt(2 pi).
    """
    if sd == 0.0:
        return mean
    if sd <= 1.0:
        while True:
            value = _proposal(mean, sd * rng.standard_normal())
            if 0.0 <= value <= 1.0:
                return value
    while True:
        value = rng.random()
        z = (value - mean) / sd
        if rng.random() <= math.exp(-0.5 * z * z):
            return value


@jit(inline="always")
def _perturb_truncated(rng, utility, sd, out):
    """The ``truncated`` perturbation of ``utility`` into ``out``.

    The elements are independent and each constraint involves one column only, so the
    conditional distribution factorises over columns, and a column is drawn by rejection: each
    element from its normal truncated to [0, 1] (:func:`_draw_truncated_normal_01`), the
    column redrawn unless its diagonal element is at least every other element of it. That is
    exactly the independent gaussian perturbation conditioned on all constraints, as plain
    rejection of the whole matrix would give, without discarding draws that fall outside
    [0, 1] or columns that were fine.

    A column is given up at its first element above the diagonal one: the elements not yet
    drawn cannot save it, and each attempt draws afresh, so the accepted columns keep their
    law. The diagonal element and the likeliest to exceed it (the largest other element of
    ``utility``'s column) come first, in row order, then the others in row order. At n = 2
    that is every column's two elements in row order, whatever the means, so the two-class
    draws are those of drawing every element before checking.
    """
    n = utility.shape[0]
    for j in range(n):
        rival = 1 if j == 0 else 0
        for i in range(n):
            rival = i if (i != j) & (utility[i, j] > utility[rival, j]) else rival
        first, second = min(j, rival), max(j, rival)
        while True:
            a = _draw_truncated_normal_01(rng, utility[first, j], sd)
            b = _draw_truncated_normal_01(rng, utility[second, j], sd)
            top, other = (a, b) if first == j else (b, a)
            if other > top:
                continue
            ordered = True
            for i in range(n):
                if i != j and i != rival:
                    value = _draw_truncated_normal_01(rng, utility[i, j], sd)
                    if value > top:
                        ordered = False
                        break
                    out[i, j] = value
            if ordered:
                out[j, j], out[rival, j] = top, other
                break


def _check_truncated(utility: np.ndarray) -> None:
    if any(utility[i, i] < utility[j, i] for i in range(len(utility)) for j in range(len(utility))):
        raise ValueError("the truncated error model needs each diagonal utility to be the largest of its column")


register_error_model(
    "truncated",
    _perturb_truncated,
    help="the gaussian conditioned on 0 <= U' <= 1 and each diagonal element the largest of its column",
    two_class_kernel=True,
    check=_check_truncated,
)
ERROR_MODELS.builtins_registered()
