"""The samplers of the Monte Carlo study (paper §4.2) against scipy and plain NumPy.

Statistical tests with fixed seeds: Kolmogorov-Smirnov tests (one-sample against an exact
CDF derived here, or two-sample against a reference drawn here with NumPy) must give a
p-value above ``P_MIN``; moments and area fractions must lie within 4 standard errors. The
seeds make every outcome deterministic; the sample sizes make the tests sharp (a KS test on
2 * 10^5 draws detects a CDF error of about 0.005).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from scipy import integrate, stats

from mcrank.samplers import (
    _draw_truncated_normal_01,
    _fill_truncated_columns,
    perturb_um,
    sample_class_proportion,
    sample_rates,
    sample_true_um_xy,
)
from mcrank.utility_space import um_from_xy

N = 200_000
P_MIN = 1e-3


def _inside_hexagon(x, y):
    return (np.abs(x) <= 1) & (np.abs(y) <= 1) & (np.abs(y - x) <= 1)


def _assert_fraction(observed: np.ndarray, expected: float, what: str):
    """A fraction of Bernoulli outcomes within 4 standard errors of its exact value."""
    se = math.sqrt(expected * (1 - expected) / observed.size)
    assert abs(observed.mean() - expected) <= 4 * se, f"{what}: {observed.mean():.5f} vs {expected:.5f}"


# --- TPR and TNR -------------------------------------------------------------------------------


def test_rates_follow_the_papers_linear_density():
    rates = sample_rates(N, rng=1)
    result = stats.kstest(rates, stats.beta(2, 1, loc=0.5, scale=0.5).cdf)
    assert result.pvalue > P_MIN, result


def test_rates_median_and_quartiles_are_the_papers():
    """Paper §4.2: median 0.854 (docs/method.md), quartiles 0.75 and 0.933, given to 3 decimals."""
    rates = sample_rates(N, rng=2)
    for q, paper_value in ((0.25, 0.75), (0.5, 0.854), (0.75, 0.933)):
        # SE of a sample quantile: sqrt(q (1 - q) / n) / density there; the density of
        # 0.5 + 0.5 * Beta(2, 1) at r is 4 (2 r - 1).
        se = math.sqrt(q * (1 - q) / N) / (4 * (2 * paper_value - 1))
        assert abs(np.quantile(rates, q) - paper_value) <= 0.0005 + 4 * se, q


@pytest.mark.parametrize(
    ("alpha", "beta", "low", "high"),
    [
        (3.0, 2.0, 0.2, 0.9),  # the general path, through Generator.beta
        (3.0, 1.0, 0.0, 1.0),  # Beta(alpha, 1) by inversion, u ** (1 / alpha)
        (0.5, 1.0, 0.1, 0.6),
        (0.7, 0.7, 0.0, 1.0),  # U-shaped
    ],
)
def test_rates_with_other_beta_parameters(alpha, beta, low, high):
    rates = sample_rates(N, alpha=alpha, beta=beta, low=low, high=high, rng=3)
    assert rates.min() >= low and rates.max() <= high
    result = stats.kstest(rates, stats.beta(alpha, beta, loc=low, scale=high - low).cdf)
    assert result.pvalue > P_MIN, result


def test_rate_arguments_are_checked():
    with pytest.raises(ValueError, match="Beta"):
        sample_rates(10, alpha=0.0)
    with pytest.raises(ValueError, match="range"):
        sample_rates(10, low=0.9, high=0.5)
    with pytest.raises(ValueError, match="size"):
        sample_rates(-1)


@pytest.mark.parametrize(("alpha", "beta"), [(1e-20, 1e-20), (1e-10, 1e-10), (1e-6, 1e-6), (9e-4, 9e-5)])
def test_beta_parameters_the_sampler_cannot_finish_are_refused(monkeypatch, alpha, beta):
    """numba's Beta sampler (Johnk's algorithm, both parameters <= 1) rejects every round whose
    two powers underflow to 0: for tiny parameters it never returns, and Ctrl-C cannot stop it."""
    import mcrank.samplers

    def never(*args):
        raise AssertionError("the sampler ran")

    monkeypatch.setattr(mcrank.samplers, "_fill_rates", never)
    with pytest.raises(ValueError, match="must sum to at least 0.001"):
        sample_rates(10, alpha=alpha, beta=beta)


@pytest.mark.parametrize(("alpha", "beta"), [(5e-4, 5e-4), (1e-20, 1.0), (1e-20, 2.0), (2.0, 1e-20)])
def test_beta_parameters_at_the_bound_or_off_johnks_path_draw(alpha, beta):
    rates = sample_rates(1000, alpha=alpha, beta=beta, rng=4)
    assert np.all((0.5 <= rates) & (rates <= 1.0))


def test_class_proportion_is_uniform_on_its_range():
    p = sample_class_proportion(N, low=0.1, high=0.7, rng=4)
    assert stats.kstest(p, stats.uniform(loc=0.1, scale=0.6).cdf).pvalue > P_MIN


# --- true utility matrices: the uniform hexagon ------------------------------------------------


def _hexagon_marginal_cdf(t):
    """CDF of x (and, by the symmetry x <-> y of the hexagon, of y) for (x, y) uniform on
    |x| <= 1, |y| <= 1, |y - x| <= 1. The hexagon has area 3 and the chord at x has length
    2 - |x|, so x has density (2 - |x|) / 3 on [-1, 1]."""
    t = np.clip(t, -1.0, 1.0)
    return np.where(t <= 0, (2 * t + t * t / 2 + 1.5) / 3, 0.5 + (2 * t - t * t / 2) / 3)


def test_hexagon_marginal_cdf_is_a_cdf():
    assert _hexagon_marginal_cdf(-1.0) == 0.0
    assert _hexagon_marginal_cdf(0.0) == 0.5
    assert _hexagon_marginal_cdf(1.0) == 1.0
    for t in (np.linspace(-1, 0, 1001), np.linspace(0, 1, 1001)):  # the density has a kink at 0
        density = np.gradient(_hexagon_marginal_cdf(t), t)
        np.testing.assert_allclose(density[1:-1], (2 - np.abs(t[1:-1])) / 3, atol=1e-9)


def test_uniform_true_um_marginals_are_exact():
    x, y = sample_true_um_xy(N, rng=5)
    assert np.all(_inside_hexagon(x, y))
    for coordinate in (x, y):
        result = stats.kstest(coordinate, _hexagon_marginal_cdf)
        assert result.pvalue > P_MIN, result
    # y - x has the law of x too: (x, y) -> (y - x, y) has determinant -1 and maps the hexagon
    # onto itself, so (y - x, y) is uniform on it as well.
    result = stats.kstest(y - x, _hexagon_marginal_cdf)
    assert result.pvalue > P_MIN, result


@pytest.mark.parametrize(
    ("region", "fraction"),
    [
        (lambda x, y: x > 0, 1 / 2),
        (lambda x, y: y > x, 1 / 2),
        (lambda x, y: (x > 0) & (y > 0), 1 / 3),  # the unit square, whole
        (lambda x, y: (x < 0) & (y > 0), 1 / 6),  # half of it, cut by y - x <= 1
        (lambda x, y: (x < 0) & (y < 0), 1 / 3),
        (lambda x, y: (np.abs(x) <= 0.5) & (np.abs(y) <= 0.5), 1 / 3),  # central square
        (lambda x, y: x * x + y * y <= 0.25, math.pi / 4 / 3),  # central disc of radius 1/2
    ],
)
def test_uniform_true_um_area_fractions(region, fraction):
    x, y = sample_true_um_xy(N, rng=6)
    _assert_fraction(region(x, y), fraction, "area fraction")


# --- true utility matrices: the truncated gaussian ---------------------------------------------


def _truncated_gaussian_reference(n, sd, rng):
    """(x, y) ~ N(0, sd^2 I) conditioned on the hexagon, by plain rejection in NumPy."""
    points = np.empty((0, 2))
    while len(points) < n:
        proposal = rng.normal(0.0, sd, (2 * n, 2))
        points = np.concatenate([points, proposal[_inside_hexagon(proposal[:, 0], proposal[:, 1])]])
    return points[:n, 0], points[:n, 1]


@pytest.mark.parametrize("sd", [1 / 3, 1.0])
def test_gaussian_true_um_is_the_truncated_bivariate_normal(sd):
    x, y = sample_true_um_xy(N, distribution="gaussian", sd=sd, rng=7)
    assert np.all(_inside_hexagon(x, y))
    ref_x, ref_y = _truncated_gaussian_reference(N, sd, np.random.default_rng(8))
    for name, sample, reference in (("x", x, ref_x), ("y", y, ref_y), ("y - x", y - x, ref_y - ref_x)):
        result = stats.ks_2samp(sample, reference)
        assert result.pvalue > P_MIN, (name, result)
    # Before truncation the coordinates are independent N(0, sd^2): inside the central square,
    # which the hexagon contains whole, each coordinate is a normal truncated to [-1/2, 1/2].
    central = (np.abs(x) <= 0.5) & (np.abs(y) <= 0.5)
    truncated = stats.truncnorm(-0.5 / sd, 0.5 / sd, scale=sd)
    assert stats.kstest(x[central], truncated.cdf).pvalue > P_MIN


def test_gaussian_true_um_mass_inside_the_hexagon():
    """The share of the central square among accepted points is P(square) / P(hexagon) of the
    untruncated normal; both are computed here from scipy's normal CDF."""
    sd = 1 / 3
    x, y = sample_true_um_xy(N, distribution="gaussian", sd=sd, rng=9)
    normal = stats.norm(scale=sd)
    square = (normal.cdf(0.5) - normal.cdf(-0.5)) ** 2
    # P(hexagon) = P(|x| <= 1, |y| <= 1) - 2 P(y - x > 1 within the square), by symmetry;
    # the corner y > x + 1 of the square needs x < 0.
    corner, _ = integrate.quad(lambda t: normal.pdf(t) * (normal.cdf(1.0) - normal.cdf(t + 1.0)), -1.0, 0.0)
    hexagon = (normal.cdf(1) - normal.cdf(-1)) ** 2 - 2 * corner
    _assert_fraction((np.abs(x) <= 0.5) & (np.abs(y) <= 0.5), square / hexagon, "central square")


def test_true_um_arguments_are_checked():
    with pytest.raises(ValueError, match="true-utility distribution"):
        sample_true_um_xy(10, distribution="cauchy")
    with pytest.raises(ValueError, match="sd"):
        sample_true_um_xy(10, distribution="gaussian", sd=0.0)
    with pytest.raises(ValueError, match="sd"):
        sample_true_um_xy(10, distribution="gaussian", sd=-1.0)


@pytest.mark.parametrize("sd", [1e6, 1e4, 10.01])
def test_gaussian_true_um_sds_rejection_cannot_finish_are_refused(monkeypatch, sd):
    """The rejection sampler needs about 2 pi sd^2 / 3 proposals per point: at sd 1e4 it never
    returns, in a numba loop that Ctrl-C cannot stop."""
    import mcrank.samplers

    def never(*args):
        raise AssertionError("the sampler ran")

    monkeypatch.setattr(mcrank.samplers, "_fill_hexagon", never)
    with pytest.raises(ValueError, match='sd must be at most 10 .* uniform within 1 %.*distribution="uniform"'):
        sample_true_um_xy(10, distribution="gaussian", sd=sd)


def test_gaussian_true_um_at_the_largest_sd_is_uniform_within_1_percent():
    # What the bound's message claims: |r|^2 <= 2 in the hexagon, so the density is at least
    # exp(-1 / sd^2) of its value at the centre; at sd 10 the sampler still finishes.
    assert math.exp(-1 / 10**2) >= 0.99
    x, y = sample_true_um_xy(2000, distribution="gaussian", sd=10.0, rng=10)
    assert np.all(_inside_hexagon(x, y)) and np.all(x * x + y * y <= 2)
    assert sample_true_um_xy(5, sd=1e6, rng=11)[0].size == 5  # the uniform distribution ignores sd


# --- perturbed utility matrices ----------------------------------------------------------------

PERTURBED_UMS = {
    "identity": np.array([[1.0, 0.0], [0.0, 1.0]]),
    "fig5": np.array([[0.5, 0.5], [0.0, 1.0]]),
    "near TPR corner": um_from_xy(-0.9, 0.05),
    "TPR corner": np.array([[1.0, 0.0], [0.0, 0.0]]),
}


def _plain_rejection(utility, sd, n, rng):
    """N(U, sd^2) on the four elements, all redrawn together until 0 <= U' <= 1 and
    U'00 >= U'10, U'11 >= U'01: the definition of the truncated error model (docs/method.md, step 4)."""
    accepted = np.empty((0, 2, 2))
    batch = 4096
    while len(accepted) < n:
        proposal = utility + rng.normal(0.0, sd, (batch, 2, 2))
        admissible = (
            np.all((proposal >= 0) & (proposal <= 1), axis=(1, 2))
            & (proposal[:, 0, 0] >= proposal[:, 1, 0])
            & (proposal[:, 1, 1] >= proposal[:, 0, 1])
        )
        accepted = np.concatenate([accepted, proposal[admissible]])
        # Grow the batch to the observed acceptance, so that large sd stays a few batches.
        rate = max(admissible.mean(), 1e-4)
        batch = min(int(1.2 * (n - len(accepted)) / rate) + 1024, 2_000_000)
    return accepted[:n]


def _assert_admissible(perturbed):
    assert np.all((perturbed >= 0) & (perturbed <= 1))
    assert np.all(perturbed[:, 0, 0] >= perturbed[:, 1, 0])
    assert np.all(perturbed[:, 1, 1] >= perturbed[:, 0, 1])


def _assert_same_distribution(sample, reference, what):
    """Every element, and the gap within each column, by two-sample KS tests."""
    for i in range(2):
        for j in range(2):
            result = stats.ks_2samp(sample[:, i, j], reference[:, i, j])
            assert result.pvalue > P_MIN, (what, (i, j), result)
    for j in range(2):
        gap_sample = sample[:, j, j] - sample[:, 1 - j, j]
        gap_reference = reference[:, j, j] - reference[:, 1 - j, j]
        assert stats.ks_2samp(gap_sample, gap_reference).pvalue > P_MIN, (what, j)


@pytest.mark.parametrize("sd", [0.05, 0.2, 0.5, 1.5])
@pytest.mark.parametrize("um_name", list(PERTURBED_UMS))
@pytest.mark.slow
def test_truncated_perturbation_is_plain_rejection(um_name, sd):
    """``perturb_um``'s exact sampler, one matrix at a time (element-wise truncated normals,
    column rejection; a uniform proposal for sd > 1, as the engine also uses there) against
    the definition, by two-sample KS tests."""
    # Plain rejection accepts about one proposal in 1000 at sd = 1.5: fewer draws there.
    n = 20_000 if sd < 1 else 8_000
    utility = PERTURBED_UMS[um_name]
    perturbed = perturb_um(utility, sd, error="truncated", size=n, rng=10)
    _assert_admissible(perturbed)
    reference = _plain_rejection(utility, sd, n, np.random.default_rng(11))
    # Every element, and the dependence within a column (the ordering constraint).
    _assert_same_distribution(perturbed, reference, sd)


def _engine_truncated_sweep(utilities, sds, pairs, calls, seed):
    """The engine's sampler of ``truncated`` perturbations (many pairs x many sds per call,
    the workspace laid out as in ``mcrank.engine.binary._truncated_workspace``), pair ``q`` with
    true matrix ``utilities[q % len(utilities)]``: for each true matrix, its perturbed
    matrices, shape (calls * pairs / len(utilities), len(sds), 2, 2)."""
    a, kinds = len(sds), len(utilities)
    shift = max(a - 1, 0).bit_length()
    size = (4 * pairs) << shift
    # Columns (U00, U10) and (U11, U01), diagonal element first, for every pair.
    means = np.concatenate([[u[0, 0], u[1, 0], u[1, 1], u[0, 1]] for u in (utilities[q % kinds] for q in range(pairs))])
    v = np.empty(size)
    pool, cursor = np.empty(2 * size), np.array([2 * size])
    todo, columns = np.empty(size + 2, dtype=np.uint64), np.empty(size // 2, dtype=np.uint64)
    rng = np.random.default_rng(seed)
    sweep = np.asarray(sds, dtype=float)
    out = np.empty((calls, pairs, a, 2, 2))
    for call in range(calls):
        _fill_truncated_columns(rng, means, sweep, shift, v, pool, cursor, todo, columns)
        elements = v.reshape(pairs, 4, 1 << shift)[:, :, :a]
        out[call, :, :, 0, 0], out[call, :, :, 1, 0] = elements[:, 0], elements[:, 1]
        out[call, :, :, 1, 1], out[call, :, :, 0, 1] = elements[:, 2], elements[:, 3]
    return [out[:, kind::kinds].reshape(-1, a, 2, 2) for kind in range(kinds)]


@pytest.fixture(scope="module")
def engine_truncated_sweep():
    """One run of the engine's sampler over pairs of all four test matrices, interleaved (so
    that a pair reading another pair's means would show), at an sd grid whose width (5) is
    not a power of two: {name: sample}."""
    names = list(PERTURBED_UMS)
    utilities = [PERTURBED_UMS[name] for name in names]
    sds = (0.05, 0.2, 0.5, 1.0, 0.2)
    samples = _engine_truncated_sweep(utilities, sds, pairs=44, calls=450, seed=21)
    return sds, dict(zip(names, samples))


@pytest.mark.parametrize("um_name", list(PERTURBED_UMS))
def test_engine_truncated_sweep_is_plain_rejection(um_name, engine_truncated_sweep):
    """The sampler the engine runs over an sd grid, in rounds over many pairs and sds, against
    the definition of the model, at each sd. Each sd's perturbations are also independent of
    the other sds' (pairs reuse no variate): their correlation across sds is zero within 4
    standard errors."""
    sds, samples = engine_truncated_sweep
    utility, sample = PERTURBED_UMS[um_name], samples[um_name]
    n = sample.shape[0]
    _assert_admissible(sample.reshape(-1, 2, 2))
    for k, sd in enumerate(sds[:4]):
        reference = _plain_rejection(utility, sd, n, np.random.default_rng(22 + k))
        _assert_same_distribution(sample[:, k], reference, sd)
    # Same sd twice in the grid: two independent draws of the same distribution.
    _assert_same_distribution(sample[:, 1], sample[:, 4], "sd 0.2 twice")
    for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)):
        first, second = sample[:, 1, i, j], sample[:, 4, i, j]
        if np.std(first) > 0:
            assert abs(np.corrcoef(first, second)[0, 1]) < 4 / math.sqrt(n), (i, j)


@pytest.mark.parametrize("sd, pairs, calls", [(0.3, 3, 6000), (0.05, 255, 80), (1.0, 64, 300)])
def test_engine_truncated_sweep_with_one_sd(sd, pairs, calls):
    """The narrowest layout (one sd: no padding bits, its own first round), with an odd
    number of pairs, with a full block of many pairs (the pool refilled mid-call), and at
    sd 1, the largest drawn with normal proposals."""
    utilities = [PERTURBED_UMS["fig5"], PERTURBED_UMS["near TPR corner"], PERTURBED_UMS["identity"]]
    samples = _engine_truncated_sweep(utilities, (sd,), pairs=pairs, calls=calls, seed=31)
    for k, (utility, sample) in enumerate(zip(utilities, samples)):
        reference = _plain_rejection(utility, sd, sample.shape[0], np.random.default_rng(32 + k))
        _assert_same_distribution(sample[:, 0], reference, k)


@numba.njit
def _fill_truncated_normal_01(rng, mean, sd, out):
    for k in range(out.size):
        out[k] = _draw_truncated_normal_01(rng, mean, sd)


@pytest.mark.parametrize("sd", [0.05, 0.3, 1.0, 1.5, 4.0])
@pytest.mark.parametrize("mean", [0.0, 1.0, 0.3])
@pytest.mark.slow
def test_truncated_normal_kernel_against_scipy(mean, sd):
    """The one-element kernel behind ``truncated``, on each of its branches (half-normal on a
    bound, normal proposals, uniform proposals for sd > 1), against scipy's truncnorm."""
    draws = np.empty(N)
    _fill_truncated_normal_01(np.random.default_rng(16), mean, sd, draws)
    reference = stats.truncnorm((0.0 - mean) / sd, (1.0 - mean) / sd, loc=mean, scale=sd)
    result = stats.kstest(draws, reference.cdf)
    assert result.pvalue > P_MIN, result


def test_truncated_perturbation_keeps_every_constraint_on_many_matrices():
    rng = np.random.default_rng(12)
    x, y = sample_true_um_xy(200, rng=rng)
    for utility in um_from_xy(x, y):
        for sd in (0.01, 0.3, 3.0):
            _assert_admissible(perturb_um(utility, sd, error="truncated", size=50, rng=rng))


@pytest.mark.parametrize("um_name", ["identity", "fig5"])
def test_gaussian_perturbation_has_mean_u_and_sd_s(um_name):
    sd = 0.2
    utility = PERTURBED_UMS[um_name]
    perturbed = perturb_um(utility, sd, size=N, rng=13)
    errors = (perturbed - utility).reshape(N, 4)
    assert np.all(np.abs(errors.mean(axis=0)) <= 4 * sd / math.sqrt(N))
    # SE of a sample sd of normals: sd / sqrt(2 n).
    assert np.all(np.abs(errors.std(axis=0) - sd) <= 4 * sd / math.sqrt(2 * N))
    for k in range(4):
        assert stats.kstest(errors[:, k], stats.norm(scale=sd).cdf).pvalue > P_MIN
    # Independent elements: every correlation within 4 / sqrt(n) of zero.
    correlations = np.corrcoef(errors.T)[np.triu_indices(4, 1)]
    assert np.all(np.abs(correlations) <= 4 / math.sqrt(N))
    # Nothing else: no clipping, no reordering.
    assert perturbed.min() < 0 and perturbed.max() > 1


@pytest.mark.parametrize("error", ["gaussian", "truncated"])
def test_zero_sd_returns_u_exactly(error):
    utility = PERTURBED_UMS["fig5"]
    perturbed = perturb_um(utility, 0.0, error=error, size=5, rng=14)
    np.testing.assert_array_equal(perturbed, np.broadcast_to(utility, (5, 2, 2)))


def test_perturbation_is_reproducible_from_the_seed():
    utility = PERTURBED_UMS["fig5"]
    for error in ("gaussian", "truncated"):
        first = perturb_um(utility, 0.3, error=error, size=100, rng=15)
        np.testing.assert_array_equal(first, perturb_um(utility, 0.3, error=error, size=100, rng=15))


def test_perturbation_arguments_are_checked():
    with pytest.raises(ValueError, match="standard form"):
        perturb_um([[2.0, 0.0], [0.0, 1.0]], 0.1)
    with pytest.raises(ValueError, match="standard form"):
        perturb_um([[0.9, 0.1], [0.1, 0.9]], 0.1)
    with pytest.raises(ValueError, match="error model"):
        perturb_um(PERTURBED_UMS["identity"], 0.1, error="laplace")
    with pytest.raises(ValueError, match="sd"):
        perturb_um(PERTURBED_UMS["identity"], -0.1)
    with pytest.raises(ValueError, match="sd"):
        perturb_um(PERTURBED_UMS["identity"], float("nan"))
    with pytest.raises(ValueError, match="shape"):
        perturb_um(np.eye(3)[:2], 0.1)
    with pytest.raises(ValueError, match="diagonal"):
        perturb_um([[0.0, 1.0], [1.0, 0.0]], 0.1, error="truncated")


# --- the counts of a finite test set ---------------------------------------------------------------


def test_multinomial_counts_match_scipy_exactly_on_every_outcome():
    # Few trials: every outcome has a probability; a chi-square test over all of them.
    from itertools import product

    from scipy import stats

    from mcrank.samplers import sample_multinomial

    p, trials = np.array([0.5, 0.3, 0.15, 0.05]), 4
    draws = sample_multinomial(trials, p, size=100_000, rng=21)
    assert draws.dtype == np.int64 and np.all(draws.sum(axis=1) == trials)
    outcomes = [c for c in product(range(trials + 1), repeat=p.size) if sum(c) == trials]
    index = {c: k for k, c in enumerate(outcomes)}
    observed = np.bincount([index[tuple(d)] for d in draws.tolist()], minlength=len(outcomes))
    expected = stats.multinomial(trials, p).pmf(np.array(outcomes)) * draws.shape[0]
    assert stats.chisquare(observed, expected).pvalue > 1e-4


@pytest.mark.parametrize("trials", [1000, 10**9])
def test_multinomial_marginals_are_scipys_binomials(trials):
    from scipy import stats

    from mcrank.samplers import sample_multinomial

    p = np.array([0.2, 0.05, 0.6, 0.15])
    draws = sample_multinomial(trials, p, size=50_000, rng=22)
    for k in range(p.size):  # each count is Binomial(trials, p_k): chi-square on 10 equiprobable bins
        distribution = stats.binom(trials, p[k])
        edges = np.unique(distribution.ppf(np.linspace(0, 1, 11)[1:-1]))
        observed = np.bincount(np.searchsorted(edges, draws[:, k], side="left"), minlength=edges.size + 1)
        expected = np.diff(np.concatenate(([0.0], distribution.cdf(edges), [1.0]))) * draws.shape[0]
        assert stats.chisquare(observed, expected).pvalue > 1e-4, k


def test_multinomial_edge_cases_and_bad_input():
    from mcrank.samplers import sample_multinomial

    assert sample_multinomial(0, [0.5, 0.5], size=3).tolist() == [[0, 0]] * 3
    assert sample_multinomial(7, [0.0, 1.0, 0.0], size=2).tolist() == [[0, 7, 0]] * 2
    for bad in ([0.5, 0.6], [-0.1, 1.1], [np.nan, 1.0], []):
        with pytest.raises(ValueError, match="probabilities"):
            sample_multinomial(5, bad)
    with pytest.raises(ValueError, match="trials"):
        sample_multinomial(-1, [1.0])


# --- the n-class truncated sampler against the whole-column rejection it replaces ----------------

#: A 5 x 5 utility matrix in standard form, each column's diagonal its largest, with 0s and 1s
#: and each column's largest other element before or after the diagonal, alone or tied.
COLUMNS_UM = np.array(
    [
        [1.0, 0.2, 0.5, 0.0, 0.3],
        [0.4, 0.7, 0.5, 0.2, 0.3],
        [0.4, 0.6, 0.8, 0.1, 0.0],
        [0.0, 0.3, 0.2, 0.5, 0.3],
        [0.9, 0.0, 0.1, 0.45, 0.6],
    ]
)


def _column_statistics(draws: np.ndarray) -> dict:
    """Joint statistics of perturbed matrices (m, n, n): per column, the diagonal's lead over
    the column's largest other element, and each element's product with its diagonal."""
    n = draws.shape[1]
    diagonal = draws[:, np.arange(n), np.arange(n)]
    others = np.where(np.eye(n, dtype=bool), -np.inf, draws)
    return {"lead": diagonal - others.max(axis=1), "product": draws * diagonal[:, None, :]}


@pytest.mark.parametrize("sd", [0.1, 0.5])
def test_the_truncated_sampler_draws_the_law_of_whole_column_rejection(sd):
    """``truncated`` on n = 5 against an independent NumPy form of plain rejection (every
    element of a column proposed from its normal, the column kept when all are in [0, 1] and
    its diagonal the largest): KS of every element's marginal and of each column's lead, and
    the mean products with the diagonal within 4 SE. The sds of the studies: above 1 plain
    rejection keeps too few columns to be a quick reference (the sampler's uniform proposals
    there are tested element by element against scipy above)."""
    from nclass_oracle import _reject_columns

    size = 20_000
    ours = perturb_um(COLUMNS_UM, sd, error="truncated", size=size, rng=41)
    reference = _reject_columns(np.broadcast_to(COLUMNS_UM, (size, 5, 5)), sd, np.random.default_rng(42))
    for i in range(5):
        for j in range(5):
            assert stats.ks_2samp(ours[:, i, j], reference[:, i, j]).pvalue > 1e-4, ("element", i, j)
    ours_joint, reference_joint = _column_statistics(ours), _column_statistics(reference)
    for j in range(5):
        assert stats.ks_2samp(ours_joint["lead"][:, j], reference_joint["lead"][:, j]).pvalue > 1e-4, ("lead", j)
    a, b = ours_joint["product"], reference_joint["product"]
    se = np.sqrt(a.var(axis=0, ddof=1) / size + b.var(axis=0, ddof=1) / size)
    assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) <= 4 * se + 1e-15), "products with the diagonal"


@pytest.mark.parametrize("sd", [0.0, 0.05, 0.5, 1.5])
def test_the_truncated_sampler_at_two_classes_draws_what_every_element_first_drew(sd):
    """At n = 2 a column has one element besides its diagonal, nothing to give up early: the
    same variates, in the same order, as drawing every element before checking the column
    (tests/truncated_reference.py), so the two-class studies keep their numbers."""
    from truncated_reference import perturb_every_element_first

    for utility in (PERTURBED_UMS["fig5"], PERTURBED_UMS["identity"], np.array([[1.0, 0.0], [0.0, 0.3]])):
        ours = perturb_um(utility, sd, error="truncated", size=2000, rng=43)
        reference = perturb_every_element_first(utility[None], [sd] * 2000, np.random.default_rng(43))
        assert np.array_equal(ours, reference[0]), utility
