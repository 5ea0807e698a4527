"""A plain NumPy/SciPy form of the probabilistic-classifier study, written from its procedure
(``docs/method.md``, "The probabilistic-classifier study"), not from mcrank's kernel.

Each classifier's stated probability ``q(s)`` is evaluated on one dense grid of scores, with
scipy's normal log-densities and logistic. Its decisions are the inequality of eq. (20) itself,
``q U00 + (1 - q) U01 >= q U10 + (1 - q) U11``, evaluated on the grid; each change of decision
between two grid points is refined by bisection, and the rates are the normal probabilities of
the pieces (scipy's CDF). The Brier score and the log loss are Simpson's rule on a grid twice as
fine. No
root of a quadratic, no closed form of mcrank's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy_oracle import perturb_gaussian, perturb_truncated, sample_true_utility
from scipy import integrate, special, stats

#: The grid of scores: every class-0 density of the default prior is below 1e-12 beyond it.
GRID = np.linspace(-16.0, 20.0, 1801)
_BISECTIONS = 45
_CLASS_1_CDF = special.ndtr(GRID)
#: Twice as fine, for Simpson's rule of the Brier score and the log loss.
FINE_GRID = np.linspace(-16.0, 20.0, 3601)


def log_odds(s, prevalence, mu, sigma):
    """``l(s) = logit B + log N(s; mu, sigma^2) - log N(s; 0, 1)``, by scipy's normal log-densities."""
    return np.log(prevalence / (1.0 - prevalence)) + stats.norm.logpdf(s, mu, sigma) - stats.norm.logpdf(s)


@dataclass
class Classifiers:
    """Classifiers on :data:`GRID` (one row each): their parameters as columns, ``u = a l + c``
    (``q = logistic(u)``) and the class-0 CDF at the grid points."""

    prevalence: np.ndarray
    mu: np.ndarray
    sigma: np.ndarray
    slope: np.ndarray
    intercept: np.ndarray

    def __post_init__(self):
        for name in ("prevalence", "mu", "sigma", "slope", "intercept"):
            setattr(self, name, np.asarray(getattr(self, name), dtype=float).reshape(-1, 1))
        self.u = self.slope * log_odds(GRID, self.prevalence, self.mu, self.sigma) + self.intercept
        self.cdf_0 = special.ndtr((GRID - self.mu) / self.sigma)

    def stated(self, s, rows):
        """``a l + c`` at the points ``s`` of the classifiers ``rows``."""
        return self.slope[rows, 0] * log_odds(s, self.prevalence[rows, 0], self.mu[rows, 0], self.sigma[rows, 0]) + self.intercept[rows, 0]


def _decides_zero(u, utility):
    """Eq. (20), output 0 where its expected utility is at least that of output 1, divided by
    ``1 - q > 0``: ``e^u U00 + U01 >= e^u U10 + U11`` with the odds ``e^u = q / (1 - q)``
    (``utility`` of shape (n, 2, 2), ``u = a l + c`` of shape (n, points)). The odds, unlike
    ``q`` rounded to 1, never make a threshold of 1 reachable."""
    odds = np.exp(np.clip(u, -700.0, 700.0))
    u00, u01, u10, u11 = (utility[:, i, j][:, None] for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    return odds * u00 + u01 >= odds * u10 + u11


def decision_rates(utility, classifiers: Classifiers):
    """``(t, f)``: the probabilities of output 0 under class 0 and class 1, one per row."""
    decision = _decides_zero(classifiers.u, utility)
    # The pieces between grid points (and the two tails) take the decision at their left end,
    # and where it changes within a piece, the left end's up to the crossing (by bisection)
    # and the right end's after.
    rows, left = np.nonzero(decision[:, 1:] != decision[:, :-1])
    low, high = GRID[left].copy(), GRID[left + 1].copy()
    at_low = decision[rows, left]
    for _ in range(_BISECTIONS):
        middle = 0.5 * (low + high)
        same = _decides_zero(classifiers.stated(middle, rows)[:, None], utility[rows])[:, 0] == at_low
        low, high = np.where(same, middle, low), np.where(same, high, middle)
    crossing = 0.5 * (low + high)
    rates = []
    for cdf, at_crossing in (
        (classifiers.cdf_0, special.ndtr((crossing - classifiers.mu[rows, 0]) / classifiers.sigma[rows, 0])),
        (np.broadcast_to(_CLASS_1_CDF, decision.shape), special.ndtr(crossing)),
    ):
        mass = np.diff(cdf, axis=1) * decision[:, :-1]
        mass[rows, left] = at_low * (at_crossing - cdf[rows, left]) + (~at_low) * (cdf[rows, left + 1] - at_crossing)
        rate = mass.sum(axis=1) + decision[:, 0] * cdf[:, 0] + decision[:, -1] * (1.0 - cdf[:, -1])
        # A decision that never changes is the rate 0 or 1 exactly, not a sum that rounds near it:
        # two such classifiers are tied in truth.
        constant = np.all(decision == decision[:, :1], axis=1)
        rates.append(np.where(constant, decision[:, 0].astype(float), rate))
    return rates[0], rates[1]


def yield_of(utility, prevalence, t, f):
    """The yield ``B [t U00 + (1 - t) U10] + (1 - B) [f U01 + (1 - f) U11]``."""
    return prevalence * (t * utility[:, 0, 0] + (1 - t) * utility[:, 1, 0]) + (1 - prevalence) * (
        f * utility[:, 0, 1] + (1 - f) * utility[:, 1, 1]
    )


def scores(classifiers: Classifiers) -> dict:
    """The Brier score and log loss (Simpson's rule on :data:`FINE_GRID`) and the accuracy of ``q >= 1/2``."""
    b = classifiers.prevalence
    u = classifiers.slope * log_odds(FINE_GRID, b, classifiers.mu, classifiers.sigma) + classifiers.intercept
    density_0 = b * stats.norm.pdf(FINE_GRID, classifiers.mu, classifiers.sigma)
    density_1 = (1.0 - b) * stats.norm.pdf(FINE_GRID)
    brier = density_0 * special.expit(-u) ** 2 + density_1 * special.expit(u) ** 2
    log_loss = density_0 * np.logaddexp(0.0, -u) + density_1 * np.logaddexp(0.0, u)
    t, f = decision_rates(np.broadcast_to(np.eye(2), (b.shape[0], 2, 2)), classifiers)
    return {
        "brier": integrate.simpson(brier, x=FINE_GRID, axis=1),
        "log_loss": integrate.simpson(log_loss, x=FINE_GRID, axis=1),
        "accuracy": b[:, 0] * t + (1 - b[:, 0]) * (1 - f),
    }


#: Lower is better for these scores.
LOSSES = ("brier", "log_loss")


@dataclass
class OracleCounts:
    """Counts of the oracle: incorrect per score id and per sd, the pairs tied in truth, all pairs."""

    incorrect: dict
    tied: int
    samples: int

    @property
    def untied(self) -> int:
        return self.samples - self.tied


def run_probabilities_oracle(pairs, *, sds, error, rng, block=500, slope_range=(0.5, 2.0), intercept_range=(-1.0, 1.0)):
    """The study on ``pairs`` pairs: B ~ U(0, 1), uniform hexagon, the default priors."""
    perturb = {"gaussian": perturb_gaussian, "truncated": perturb_truncated}[error]
    incorrect = {key: 0 for key in (*LOSSES, "accuracy", *sds)}
    tied = 0
    for start in range(0, pairs, block):
        n = min(block, pairs - start)
        prevalence = rng.random(n)
        utility = sample_true_utility(n, "uniform", 1 / 3, rng)
        mu = rng.uniform(0.0, 3.0, (2, n))
        sigma = np.exp(rng.uniform(np.log(0.5), np.log(2.0), (2, n)))
        slope = np.exp(rng.uniform(np.log(slope_range[0]), np.log(slope_range[1]), (2, n)))
        intercept = rng.uniform(*intercept_range, (2, n))
        each = [Classifiers(prevalence, mu[k], sigma[k], slope[k], intercept[k]) for k in range(2)]

        def difference(cells):
            matrix = cells.reshape(-1, 2, 2)  # the oracle's rows (U00, U01, U10, U11)
            first, second = (yield_of(matrix, prevalence, *decision_rates(matrix, c)) for c in each)
            return second - first

        d_true = difference(utility)
        untied = d_true != 0.0
        tied += int(np.sum(~untied))
        first, second = scores(each[0]), scores(each[1])
        for key in (*LOSSES, "accuracy"):
            d = (first[key] - second[key]) if key in LOSSES else (second[key] - first[key])
            incorrect[key] += int(np.sum(untied & ~(np.sign(d) == np.sign(d_true))))
        for sd in sds:
            d = difference(perturb(utility, sd, rng))
            incorrect[sd] += int(np.sum(untied & ~(np.sign(d) == np.sign(d_true))))
    return OracleCounts(incorrect, tied, pairs)
