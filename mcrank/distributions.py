"""The distributions of true utility matrices (step 1; ``docs/method.md``, "The Monte Carlo study").

One :class:`TrueUmDistribution` record per distribution, in :data:`TRUE_UM_DISTRIBUTIONS`: its
name, its code for the kernels, its help, whether it lives on the hexagon, its check of its sd
and its jitted sampler. The kernels' switches over the codes,
:func:`mcrank.samplers._fill_hexagon` and :func:`mcrank.samplers._draw_utility`, are generated
from this registry; adding a distribution is one :func:`register_true_um_distribution` call
(``docs/development.md``, "Adding a true-utility distribution").

- On the hexagon of two-class matrices (eq. 12), the paper's (fig. 4): ``uniform``, and
  ``gaussian`` with mean (0, 0) (the identity, i.e. accuracy), truncated to the hexagon.
- Element by element, for any number of classes (``docs/method.md``, "The n-class study"):
  ``uniform-elements`` (in each column n uniforms, the largest moved to the diagonal) and
  ``gaussian-elements`` (each column N(I_.j, sd^2) conditioned on [0, 1] and its diagonal
  element the largest), each matrix then brought to the standard form of eq. (11).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from mcrank._axes import Registry
from mcrank._jit import jit
from mcrank.error_models import _perturb_truncated
from mcrank.utility_space import _in_hexagon

__all__ = ["MAX_TRUE_UM_SD", "TRUE_UM_DISTRIBUTIONS", "TrueUmDistribution", "default_true_um", "register_true_um_distribution"]


@dataclass(frozen=True)
class TrueUmDistribution:
    """One distribution of true utility matrices (step 1).

    Attributes
    ----------
    name : str
        Its name on the command line, in experiment files and in results.
    code : int
        Its position in :data:`TRUE_UM_DISTRIBUTIONS`: how the kernels name it.
    help : str
        One line for the command line's help.
    hexagon : bool
        On the hexagon of two-class matrices (eq. 12): two classes only, the class-0 fraction
        ``p`` uniform (step 2), the paper's two-class kernels. Otherwise element by element,
        for any number of classes, with Dirichlet class proportions.
    draw : numba function
        On the hexagon, ``draw(rng, sd, n, x, y)`` fills ``x[:n]``, ``y[:n]`` with points of
        the hexagon. Element by element, ``draw(rng, sd, identity, u, normalise)`` fills the
        n x n ``u`` (``identity`` is ``np.eye(n)``) with one matrix, brought to eq. (11)'s
        standard form by :func:`_standard_form` if ``normalise``. ``sd`` is the study's
        ``true_um_sd``; ``rng`` a numpy Generator. Jitted (``mcrank._jit.jit``), ideally with
        ``inline="always"``.
    title : str
        What a figure calls matrices of this distribution (fig. 7's panels).
    reads_sd : bool
        Whether ``draw`` reads ``sd`` (the study's ``true_um_sd``): a study refuses a
        ``true_um_sd`` other than the default with a distribution that ignores it.
    check : callable or None
        ``check(sd, what, ask)`` raises ValueError for an ``sd`` the distribution cannot take:
        ``what`` names the parameter, and ``ask.format(name)`` says how the caller asks for
        the distribution ``name`` instead.
    """

    name: str
    code: int
    help: str
    hexagon: bool
    draw: Callable = field(repr=False, compare=False)
    title: str = ""
    check: Callable | None = field(default=None, repr=False, compare=False)
    reads_sd: bool = False


#: Every distribution of true utility matrices by name, in the order registered (its code).
TRUE_UM_DISTRIBUTIONS: Registry = Registry("true-utility distribution")


def register_true_um_distribution(
    name: str, draw, *, help: str, hexagon: bool, title: str = "", check=None, reads_sd: bool = False
) -> TrueUmDistribution:
    """Add a distribution of true utility matrices; its code is its position. See
    :class:`TrueUmDistribution` for the arguments.

    Call it before :mod:`mcrank.samplers` (so before :mod:`mcrank.study` or
    :mod:`mcrank.engine`) is imported, in every process that runs kernels: the kernels' switches
    are generated then, and a RuntimeError says so afterwards.
    """
    record = TrueUmDistribution(
        name, len(TRUE_UM_DISTRIBUTIONS), help, hexagon, draw, title or f"{name} true utility matrices", check, reads_sd
    )
    return TRUE_UM_DISTRIBUTIONS.add(record)


def default_true_um(classes: int) -> str:
    """The default distribution for ``classes`` classes: the first registered on the hexagon
    for two, the first drawn element by element for more."""
    return next(d.name for d in TRUE_UM_DISTRIBUTIONS.values() if d.hexagon == (classes == 2))


# --- on the hexagon ----------------------------------------------------------------------------


@jit(inline="always")
def _hexagon_uniform(rng, sd, n, x, y):
    """Points uniform on the hexagon, without rejection.

    The hexagon is three rhombi of area 1 meeting at the origin, spanned by pairs of the
    vectors (1, 0), (0, 1) and (-1, -1) (it is a cube seen along its diagonal). One uniform
    ``u`` picks the rhombus, ``floor(3 u)``, and gives the first coordinate in it,
    ``3 u - floor(3 u)``; a second uniform gives the other. Two uniforms per point, no branch.
    """
    for i in range(n):
        x[i] = rng.random()
        y[i] = rng.random()
    for i in range(n):
        scaled = 3.0 * x[i]
        rhombus = math.floor(scaled)
        s, t = scaled - rhombus, y[i]
        # Rhombus 0: s (1, 0) + t (0, 1); 1: s (0, 1) + t (-1, -1); 2: s (-1, -1) + t (1, 0).
        x[i] = s if rhombus == 0.0 else (-t if rhombus == 1.0 else t - s)
        y[i] = t if rhombus == 0.0 else (s - t if rhombus == 1.0 else -s)


@jit(inline="always")
def _hexagon_gaussian(rng, sd, n, x, y):
    """Points of N((0, 0), sd^2 I) truncated to the hexagon, by rejection in rounds.

    Each round proposes a point for every slot still empty, then keeps those inside, moving
    them to the front of the empty slots without a branch. The points kept are independent
    draws of the truncated distribution, in the order drawn; rounds avoid the mispredicted
    branch per point of a one-point-at-a-time rejection loop.
    """
    filled = 0
    while filled < n:
        # Views of the empty slots, indexed from 0: no negative-index check in the loops.
        xs, ys = x[filled:n], y[filled:n]
        for i in range(xs.size):
            xs[i] = sd * rng.standard_normal()
            ys[i] = sd * rng.standard_normal()
        kept = 0
        for i in range(xs.size):
            xi, yi = xs[i], ys[i]
            xs[kept], ys[kept] = xi, yi
            kept += _in_hexagon(xi, yi)
        filled += kept


#: Largest sd of the gaussian true-utility distribution: see :func:`_check_true_um_sd`.
MAX_TRUE_UM_SD = 10.0


def _check_true_um_sd(sd: float, what: str, ask: str) -> None:
    """``sd`` of the gaussian true-utility distribution: in ``(0, MAX_TRUE_UM_SD]``.

    The gaussian is truncated to the hexagon by rejection, which needs about
    ``2 pi sd^2 / 3`` proposals per point (the hexagon has area 3): 210 at sd 10, 2 million
    at sd 1000, and a numba loop that Ctrl-C cannot stop beyond. Above 10 the distribution
    is uniform within 1 % anyway: ``|r|^2 <= 2`` in the hexagon, so the density anywhere is
    at least ``exp(-1 / sd^2)`` (0.990) of its value at the centre.

    Parameters
    ----------
    sd : float
        A non-negative number, already checked by :func:`~mcrank._validation.check_sd`.
    what : str
        The parameter's name, for the message.
    ask : str
        How the caller asks for a distribution by name (``ask.format(name)``), for the message.
    """
    if sd == 0:
        raise ValueError(f"{what} must be positive for the gaussian true-utility distribution")
    if sd > MAX_TRUE_UM_SD:
        raise ValueError(
            f"{what} must be at most {MAX_TRUE_UM_SD:g} for the gaussian true-utility distribution, got {sd:g}: "
            f"above that the gaussian truncated to the hexagon is uniform within 1 %, so use the uniform distribution "
            f"({ask.format('uniform')}), drawn directly, rather than rejection at about 2 pi sd^2 / 3 proposals per point ({2 * math.pi * sd * sd / 3:.2g} here)"
        )


register_true_um_distribution(
    "uniform",
    _hexagon_uniform,
    help="uniform on the paper's hexagon (2 classes; their default)",
    hexagon=True,
    title="Uniform true utility matrices",
)
register_true_um_distribution(
    "gaussian",
    _hexagon_gaussian,
    help="gaussian around the identity (accuracy), the true-utility sd per coordinate, truncated to the hexagon (2 classes)",
    hexagon=True,
    title="Truncated gaussian true utility matrices",
    check=_check_true_um_sd,
    reads_sd=True,
)


# --- element by element ------------------------------------------------------------------------


@jit(inline="always")
def _standard_form(u, low, high):
    """``u`` brought to the standard form of eq. (11), given its smallest and largest element."""
    width = high - low
    n = u.shape[0]
    for i in range(n):
        for j in range(n):
            u[i, j] = (u[i, j] - low) / width


@jit(inline="always")
def _uniform_elements(rng, sd, identity, u, normalise):
    """In each column n iid Uniform(0, 1), the largest moved to the diagonal.

    Normalised here rather than by returning the extremes to the caller: an inlined function
    that returns a tuple cost the n-class kernel 2 % of its time (measured)."""
    n = u.shape[0]
    low, high = 1.0, 0.0
    for j in range(n):
        # Selects, not branches: which draw is the largest is a coin toss, and the
        # mispredicted branches of an if made this sampler 1.5-1.8x slower.
        best, top, bottom = 0, -1.0, 2.0
        for i in range(n):
            x = rng.random()
            u[i, j] = x
            bottom = x if x < bottom else bottom
            larger = x > top
            best = i if larger else best
            top = x if larger else top
        u[j, j], u[best, j] = top, u[j, j]
        # Tracked as drawn: numba's min() and max() of a small matrix cost more than the draws.
        low = bottom if bottom < low else low
        high = top if top > high else high
    if normalise:
        _standard_form(u, low, high)


@jit(inline="always")
def _gaussian_elements(rng, sd, identity, u, normalise):
    """The identity perturbed by the ``truncated`` error model: each column N(I_.j, sd^2)
    conditioned on [0, 1] and its diagonal element the largest."""
    _perturb_truncated(rng, identity, sd, u)
    if normalise:
        _standard_form(u, u.min(), u.max())


def _check_positive_sd(sd: float, what: str, ask: str) -> None:
    if sd == 0:
        raise ValueError(f"{what} must be positive for the gaussian-elements true-utility distribution")


register_true_um_distribution(
    "uniform-elements",
    _uniform_elements,
    help="each column n uniforms, the largest on the diagonal (any number of classes; their default from 3)",
    hexagon=False,
    title="Uniform-elements true utility matrices",
)
register_true_um_distribution(
    "gaussian-elements",
    _gaussian_elements,
    help="each column N(identity, sd^2) on [0, 1] with the true-utility sd, its diagonal the largest (any number of classes)",
    hexagon=False,
    title="Gaussian-elements true utility matrices",
    check=_check_positive_sd,
    reads_sd=True,
)
TRUE_UM_DISTRIBUTIONS.builtins_registered()
