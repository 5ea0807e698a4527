"""Every entry of every registry through the same generic checks (docs/development.md, "Tests").

Metrics (:data:`mcrank.metrics.METRICS`), ROC scores (:data:`mcrank.roc.ROC_SCORES`), error
models (:data:`mcrank.error_models.ERROR_MODELS`), true-utility distributions
(:data:`mcrank.distributions.TRUE_UM_DISTRIBUTIONS`) and estimators
(:data:`mcrank.estimators.ESTIMATORS`): each test is parametrised by the registry itself, so a
new entry is checked the moment it is registered, and an entry without an independent form
below fails until its author writes one (or says why there is none, in ``NO_ORACLE``).

- finite (and in range) on a grid of ordinary arguments;
- orientation: a better classifier scores higher (a dominating pair of rates; mass moved onto
  the diagonal; a binormal classifier with a larger ``mu`` at equal ``sigma``), by the score
  and by the comparison the ROC study ranks pairs with;
- agreement with an independent NumPy/SciPy form written in tests/ (the oracles);
- error models: the sd of ``U' - U`` drawn by the record's own sampler against the nominal sd
  (with a closed form) and against the oracle's, and the realised sd that every kernel drawing
  the model reports against that of the record's own sampler (4 standard errors): a kernel that
  drew it with another model's sampler fails.

The checks are plain functions; ``test_the_checks_catch_*`` hand them a planted fault (a ROC
score with its sign reversed, a metric reversed, an error model drawn by another's sampler) and
assert that they fail.
"""

from __future__ import annotations

import numpy as np
import probabilities_oracle
import pytest
import roc_oracle
from nclass_oracle import _reject_columns, nclass_scores, sample_utility
from numpy_oracle import ORACLE_METRICS, metric_score, perturb_gaussian, perturb_truncated, sample_hexagon_gaussian, sample_hexagon_uniform

from mcrank.distributions import TRUE_UM_DISTRIBUTIONS
from mcrank.engine import run_study
from mcrank.error_models import ERROR_MODELS
from mcrank.estimators import ESTIMATORS
from mcrank.metrics import METRICS
from mcrank.probabilities import PROBABILITY_SCORES, _probability_compare
from mcrank.roc import ROC_SCORES, _roc_compare
from mcrank.samplers import perturb_um, sample_true_um_xy, sample_utility_elements
from mcrank.utility_space import um_from_xy

SEED = 20261126
#: Entries with no independent form here, and why (none today).
NO_ORACLE: dict[str, str] = {}


def _se_agree(a: np.ndarray, b: np.ndarray, what: str) -> None:
    """Two samples (draws along axis 0) have the same mean, each column within 4 combined SE."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    se = np.sqrt(a.var(axis=0, ddof=1) / a.shape[0] + b.var(axis=0, ddof=1) / b.shape[0])
    gap = np.abs(a.mean(axis=0) - b.mean(axis=0))
    assert np.all(gap <= 4 * se + 1e-12), f"{what}: means {a.mean(axis=0)} and {b.mean(axis=0)}, 4 SE {4 * se}"


# --- metrics ------------------------------------------------------------------------------------

#: (p, TPR, TNR) on a grid of ordinary classifiers, and the same classifiers improved.
_P, _TPR, _TNR = (g.ravel() for g in np.meshgrid([0.2, 0.5, 0.8], [0.6, 0.75, 0.9], [0.6, 0.75, 0.9], indexing="ij"))


def _macro_f1_pab(p, a, b):
    f1_0 = 2 * p * a / (2 * p * a + (1 - p) * (1 - b) + p * (1 - a))
    f1_1 = 2 * (1 - p) * b / (2 * (1 - p) * b + p * (1 - a) + (1 - p) * (1 - b))
    return (f1_0 + f1_1) / 2


#: Each metric's two-class form from (p, TPR, TNR), and its n-class form, written again here.
TWO_CLASS_ORACLES = {
    **{m: (lambda p, a, b, m=m: metric_score(m, p, a, b)) for m in ORACLE_METRICS},
    "macro_f1": _macro_f1_pab,
    "micro_f1": lambda p, a, b: metric_score("accuracy", p, a, b),
}
NCLASS_ORACLES = {
    **{
        m: (lambda c, m=m: nclass_scores(m, c))
        for m in ("accuracy", "balanced_accuracy", "macro_precision", "macro_f1", "mcc", "cohen_kappa")
    },
    "micro_f1": lambda c: nclass_scores("accuracy", c),
}


def _matrices(rng, m: int, n: int) -> np.ndarray:
    """``m`` n x n confusion matrices of better-than-chance classifiers, every cell positive."""
    c = rng.uniform(0.2, 1.0, (m, n, n))
    c[:, np.arange(n), np.arange(n)] += n
    return c


def _improved(c: np.ndarray) -> np.ndarray:
    """``c`` with half of its cell (1, 0) moved onto the diagonal of column 0: more items right."""
    better = c.copy()
    better[:, 0, 0] += c[:, 1, 0] / 2
    better[:, 1, 0] /= 2
    return better


def check_metric(metric_id: str, score_pab, score_matrices) -> None:
    """The generic checks of a metric: ``score_pab(p, tpr, tnr)`` its two-class form (or None),
    ``score_matrices(c)`` its n-class form on (m, n, n) (or None)."""
    if score_pab is not None:
        values = score_pab(_P, _TPR, _TNR)
        assert np.all(np.isfinite(values)), f"{metric_id}: not finite on the grid"
        better = score_pab(_P, _TPR + 0.05, _TNR + 0.05)
        assert np.all(better > values), f"{metric_id}: a classifier better in both rates does not score higher"
        np.testing.assert_allclose(values, TWO_CLASS_ORACLES[metric_id](_P, _TPR, _TNR), rtol=1e-12, atol=1e-14, err_msg=metric_id)
    if score_matrices is not None:
        c = _matrices(np.random.default_rng(SEED), 40, 3)
        values = score_matrices(c)
        assert np.all(np.isfinite(values)), f"{metric_id}: not finite on the grid"
        assert np.all(score_matrices(_improved(c)) > values), f"{metric_id}: more items right does not score higher"
        np.testing.assert_allclose(values, NCLASS_ORACLES[metric_id](c), rtol=1e-12, atol=1e-14, err_msg=metric_id)


def _forms(metric):
    pab = (lambda p, a, b: metric.from_pab(p, a, b)) if metric.binary is not None else None
    matrices = (lambda c: metric(c)) if metric.general is not None else None
    return pab, matrices


@pytest.mark.parametrize("metric_id", list(METRICS))
def test_every_metric(metric_id):
    metric = METRICS[metric_id]
    assert metric_id in NO_ORACLE or metric.binary is None or metric_id in TWO_CLASS_ORACLES, f"write a NumPy form of {metric_id}"
    assert metric_id in NO_ORACLE or metric.general is None or metric_id in NCLASS_ORACLES, f"write a NumPy form of {metric_id}"
    check_metric(metric_id, *_forms(metric))


# --- ROC scores ---------------------------------------------------------------------------------

_PREVALENCES = (0.1, 0.3, 0.5, 0.8)
_SIGMAS = (0.5, 1.0, 2.0)
#: Pairs of mu, the second larger: the second classifier is better at equal sigma.
_MU_PAIRS = ((0.3, 0.8), (0.8, 1.5), (1.5, 2.5))


def _roc_oracle(score_id: str, prevalence: float, mu: float, sigma: float) -> tuple[float, float]:
    """The score by brute force, and how far from the exact value it may be."""
    if score_id == "hmeasure":
        return roc_oracle.h_measure_by_quadrature(prevalence, mu, sigma), 1e-9
    if score_id == "auprc":
        return roc_oracle.auprc_by_quadrature(prevalence, mu, sigma), 1e-9
    curves = roc_oracle.curves_on_grid([mu], [sigma])
    # The grid's maximum falls short of the supremum by less than 2e-5 (roc_oracle's docstring).
    return float(np.ravel(roc_oracle.best_score_pair(score_id, None, prevalence, curves))[0]), 2e-5


ROC_ORACLE_SCORES = ("auc", "best_accuracy", "best_youden", "best_f1", "hmeasure", "auprc")


def check_roc_score(score_id: str, score, compare) -> None:
    """The generic checks of a ROC score: ``score(prevalence, mu, sigma)`` and ``compare(prevalence,
    mu_1, sigma_1, mu_2, sigma_2)``, a number with the sign of the second's score minus the first's."""
    for prevalence in _PREVALENCES:
        for sigma in _SIGMAS:
            # Strictly better at even classes and equal spreads; elsewhere both classifiers' best
            # threshold may be the same corner (always output 1 at a low prevalence): a tie.
            strict = prevalence == 0.5 and sigma == 1.0
            for mu_1, mu_2 in _MU_PAIRS:
                low, high = score(prevalence, mu_1, sigma), score(prevalence, mu_2, sigma)
                where = f"(B {prevalence}, sigma {sigma})"
                assert np.isfinite(low) and np.isfinite(high), f"{score_id}: not finite at mu {mu_1} or {mu_2} {where}"
                assert high > low if strict else high >= low, f"{score_id}: mu {mu_2} scores {high}, below mu {mu_1}'s {low} {where}"
                up, down = compare(prevalence, mu_1, sigma, mu_2, sigma), compare(prevalence, mu_2, sigma, mu_1, sigma)
                assert (up > 0 < -down) if strict else (up >= 0 >= down), f"{score_id}: its comparison ranks mu {mu_1} above {mu_2} {where}"
    for prevalence, mu, sigma in ((0.3, 1.0, 1.0), (0.5, 2.0, 0.5), (0.8, 0.5, 2.0)):
        expected, tolerance = _roc_oracle(score_id, prevalence, mu, sigma)
        assert abs(score(prevalence, mu, sigma) - expected) <= tolerance, f"{score_id}: {score(prevalence, mu, sigma)} != {expected}"


@pytest.mark.parametrize("score_id", list(ROC_SCORES))
def test_every_roc_score(score_id):
    assert score_id in NO_ORACLE or score_id in ROC_ORACLE_SCORES, f"write a brute-force form of {score_id} in roc_oracle"
    entry = ROC_SCORES[score_id]
    check_roc_score(score_id, entry, lambda *arguments: _roc_compare(entry.code, *arguments))


# --- probability scores -------------------------------------------------------------------------

#: The probability scores with a NumPy form (tests/probabilities_oracle.py, ``scores``).
PROBABILITY_ORACLE_SCORES = ("brier", "log_loss", "accuracy")
#: Calibrations (slope, intercept): none, over-confident with a low base rate, under-confident.
_CALIBRATIONS = ((1.0, 0.0), (2.0, -1.0), (0.5, 1.0))


def check_probability_score(score_id: str, score, compare) -> None:
    """The generic checks of a probability score: ``score(prevalence, mu, sigma, slope,
    intercept)`` finite, and ``compare(prevalence, *first, *second)`` positive when the second
    classifier is better (a larger ``mu``, the same sigma and calibration, calibrated); equal
    to its NumPy form."""
    for prevalence in _PREVALENCES:
        for sigma in _SIGMAS:
            for slope, intercept in _CALIBRATIONS:
                for mu_1, mu_2 in _MU_PAIRS:
                    values = score(prevalence, mu_1, sigma, slope, intercept), score(prevalence, mu_2, sigma, slope, intercept)
                    where = f"(B {prevalence}, sigma {sigma}, a {slope}, c {intercept})"
                    assert np.all(np.isfinite(values)), f"{score_id}: not finite at mu {mu_1} or {mu_2} {where}"
                    if (slope, intercept) != (1.0, 0.0):
                        continue
                    # Calibrated, a larger mu at the same sigma is better by every proper score and
                    # by its accuracy (ties possible when both always output one class).
                    up = compare(prevalence, mu_1, sigma, slope, intercept, mu_2, sigma, slope, intercept)
                    down = compare(prevalence, mu_2, sigma, slope, intercept, mu_1, sigma, slope, intercept)
                    strict = prevalence == 0.5 and sigma == 1.0
                    assert (up > 0 < -down) if strict else (up >= 0 >= down), f"{score_id}: ranks mu {mu_1} above {mu_2} {where}"
    cases = ((0.3, 1.0, 1.0, 1.0, 0.0), (0.5, 2.0, 0.5, 2.0, -1.0), (0.8, 0.5, 2.0, 0.5, 1.0))
    expected = probabilities_oracle.scores(probabilities_oracle.Classifiers(*(np.array(v) for v in zip(*cases))))[score_id]
    for case, value in zip(cases, expected):
        assert abs(score(*case) - value) <= 1e-8, f"{score_id}: {score(*case)} != {value} at {case}"


@pytest.mark.parametrize("score_id", list(PROBABILITY_SCORES))
def test_every_probability_score(score_id):
    assert score_id in PROBABILITY_ORACLE_SCORES, f"write a NumPy form of {score_id} in probabilities_oracle"
    entry = PROBABILITY_SCORES[score_id]
    check_probability_score(score_id, entry, lambda *arguments: _probability_compare(entry.code, *arguments))


# --- error models -------------------------------------------------------------------------------

#: A two-class and a three-class utility matrix in standard form, each diagonal element the
#: largest of its column (every model can perturb them).
UTILITIES = (np.array([[1.0, 0.3], [0.0, 0.6]]), np.array([[1.0, 0.2, 0.1], [0.3, 0.7, 0.0], [0.5, 0.4, 0.9]]))
_SDS = (0.05, 0.2, 0.6)
_DRAWS = 4000


def _oracle_perturbation(name: str, utility: np.ndarray, sd: float, size: int, rng) -> np.ndarray:
    """``size`` perturbed copies of ``utility`` by the model's NumPy form."""
    n = utility.shape[0]
    if name == "gaussian":
        return perturb_gaussian(np.broadcast_to(utility.ravel(), (size, n * n)), sd, rng).reshape(size, n, n)
    if name == "truncated" and n == 2:  # whole matrices rejected (numpy_oracle)
        return perturb_truncated(np.broadcast_to(utility.ravel(), (size, 4)).copy(), sd, rng).reshape(size, 2, 2)
    if name == "truncated":  # columns rejected (nclass_oracle): the same law, as the constraints are per column
        return _reject_columns(np.broadcast_to(utility, (size, n, n)), sd, rng)
    raise KeyError(name)


ERROR_ORACLES = ("gaussian", "truncated")


def check_error_model_draws(name: str, perturb) -> None:
    """The generic checks of an error model's sampler ``perturb(utility, sd, size, rng)``."""
    model = ERROR_MODELS[name]
    rng = np.random.default_rng(SEED)
    for utility in UTILITIES:
        n = utility.shape[0]
        for sd in _SDS:
            drawn = perturb(utility, sd, _DRAWS, rng)
            assert np.all(np.isfinite(drawn)), f"{name}: not finite at sd {sd}"
            deviations = (drawn - utility).reshape(_DRAWS, n * n)
            if model.closed_form:  # U' - U is N(0, sd^2) element by element: mean 0, mean square sd^2
                _se_agree(deviations, np.zeros((2, n * n)), f"{name} at sd {sd}: the mean of U' - U")
                squares = deviations**2
                se = squares.std(axis=0, ddof=1) / np.sqrt(_DRAWS)
                assert np.all(np.abs(squares.mean(axis=0) - sd**2) <= 4 * se), f"{name}: realised sd != nominal sd {sd}"
            if name in ERROR_ORACLES:
                oracle = (_oracle_perturbation(name, utility, sd, _DRAWS, rng) - utility).reshape(_DRAWS, n * n)
                _se_agree(deviations, oracle, f"{name} at sd {sd}: U' - U against its NumPy form")
                _se_agree(deviations**2, oracle**2, f"{name} at sd {sd}: (U' - U)^2 against its NumPy form")


def _own_sampler(name: str):
    return lambda utility, sd, size, rng: perturb_um(utility, sd, error=name, size=size, rng=rng)


@pytest.mark.parametrize("name", list(ERROR_MODELS))
def test_every_error_model_draws_its_own_law(name):
    assert name in NO_ORACLE or name in ERROR_ORACLES, f"write a NumPy form of the error model {name}"
    check_error_model_draws(name, _own_sampler(name))


#: The kernels' realised sd: studies of this many pairs, at these sds.
_PAIRS, _KERNEL_SDS = 20_000, (0.1, 0.4)
#: Settings of a study on each kernel that draws an error model: the paper's two-class kernel
#: (for the models it draws), the n-class kernel at two classes and at three.
KERNELS = {
    "two-class": dict(classes=2, true_um="uniform"),
    "n-class at 2": dict(classes=2, true_um="uniform", metrics=("macro_precision",)),
    "n-class at 3": dict(classes=3, true_um="uniform-elements"),
}


def _kernel_draws(kernel: str, error: str) -> bool:
    return kernel != "two-class" or ERROR_MODELS[error].two_class_kernel


def _true_utilities(settings: dict, size: int, rng) -> np.ndarray:
    if settings["classes"] == 2:
        x, y = sample_true_um_xy(size, distribution=settings["true_um"], rng=rng)
        return um_from_xy(x, y)
    return sample_utility_elements(size, classes=settings["classes"], distribution=settings["true_um"], rng=rng)


def own_realised_sd(error: str, settings: dict, sd: float, size: int = 4000) -> tuple[float, float]:
    """The sd of ``U' - U`` over the study's true utility matrices, each perturbed once by the
    record's own sampler (:func:`mcrank.samplers.perturb_um`), and the standard error of its
    square per pair (the unit of both estimates' error)."""
    rng = np.random.default_rng(SEED)
    utilities = _true_utilities(settings, size, rng)
    deviations = np.array([perturb_um(u, sd, error=error, rng=rng)[0] - u for u in utilities]).reshape(size, -1)
    mean = deviations.mean()
    per_pair = ((deviations - mean) ** 2).mean(axis=1)
    return float(np.sqrt(per_pair.mean())), float(per_pair.std(ddof=1))


def check_kernel_realised_sd(error: str, kernel: str, realised: dict, own) -> None:
    """The realised sds a kernel reports (``realised``: sd -> value) against ``own(sd)``, the
    model's own sampler's ``(sd, spread of the per-pair squares)``: 4 SE of both estimates."""
    for sd, value in realised.items():
        expected, spread = own(sd)
        se_variance = spread * np.sqrt(1 / 4000 + 1 / _PAIRS)
        assert abs(value**2 - expected**2) <= 4 * se_variance, (
            f"{error} on the {kernel} kernel: realised sd {value}, its own sampler's {expected}"
        )


@pytest.fixture(scope="module")
def kernel_realised_sds():
    """For every error model and every kernel that draws it, the realised sd per sd."""
    out = {}
    for error in ERROR_MODELS:
        for kernel, settings in KERNELS.items():
            if _kernel_draws(kernel, error):
                config = dict(settings, error=error, sds=_KERNEL_SDS, samples=_PAIRS, seed=SEED, estimator="sample")
                result = run_study(**config, jobs=1)
                assert result.config.binary == (kernel == "two-class"), kernel
                out[error, kernel] = {row["sd"]: row["realised_sd"] for row in result.rows() if row["name"] == "utility"}
    return out


@pytest.mark.parametrize("error", list(ERROR_MODELS))
@pytest.mark.parametrize("kernel", list(KERNELS))
@pytest.mark.slow
def test_every_kernel_draws_an_error_model_by_its_own_sampler(kernel_realised_sds, error, kernel):
    if not _kernel_draws(kernel, error):
        pytest.skip(f"the two-class kernels do not draw {error}")
    check_kernel_realised_sd(error, kernel, kernel_realised_sds[error, kernel], lambda sd: own_realised_sd(error, KERNELS[kernel], sd))


# --- true-utility distributions -----------------------------------------------------------------

_UM_DRAWS = 20_000


def _oracle_true_utilities(name: str, classes: int, sd: float, rng) -> np.ndarray:
    if name == "uniform":
        x, y = sample_hexagon_uniform(_UM_DRAWS, rng)
    elif name == "gaussian":
        x, y = sample_hexagon_gaussian(_UM_DRAWS, sd, rng)
    else:
        return sample_utility(_UM_DRAWS, classes, name, rng, sd=sd)
    return um_from_xy(x, y)


DISTRIBUTION_ORACLES = ("uniform", "gaussian", "uniform-elements", "gaussian-elements")


@pytest.mark.parametrize("name", list(TRUE_UM_DISTRIBUTIONS))
@pytest.mark.slow
def test_every_true_utility_distribution(name):
    assert name in NO_ORACLE or name in DISTRIBUTION_ORACLES, f"write a NumPy form of the distribution {name}"
    distribution = TRUE_UM_DISTRIBUTIONS[name]
    rng = np.random.default_rng(SEED)
    for sd in (0.2, 1 / 3, 1.0) if distribution.reads_sd else (1 / 3,):
        for classes in (2,) if distribution.hexagon else (2, 3, 4):
            settings = dict(classes=classes, true_um=name)
            if distribution.hexagon:
                x, y = sample_true_um_xy(_UM_DRAWS, distribution=name, sd=sd, rng=rng)
                drawn = um_from_xy(x, y)
            else:
                drawn = sample_utility_elements(_UM_DRAWS, classes=classes, distribution=name, sd=sd, rng=rng)
            assert np.all(np.isfinite(drawn)), f"{settings}: not finite"
            # Standard form (eq. 11), and correct classification at least as good as any error.
            assert np.allclose(drawn.min(axis=(1, 2)), 0) and np.allclose(drawn.max(axis=(1, 2)), 1), settings
            diagonal = np.diagonal(drawn, axis1=1, axis2=2)
            assert np.all(drawn <= diagonal[:, None, :] + 1e-15), f"{settings}: a diagonal element below its column"
            flat, oracle = drawn.reshape(_UM_DRAWS, -1), _oracle_true_utilities(name, classes, sd, rng).reshape(_UM_DRAWS, -1)
            _se_agree(flat, oracle, f"{settings} at sd {sd}")
            _se_agree(flat**2, oracle**2, f"{settings} at sd {sd}, squares")


# --- estimators ---------------------------------------------------------------------------------


@pytest.mark.parametrize("classes", [2, 3])
def test_every_estimator_estimates_the_same_percentage(classes):
    """Each estimator of the perturbed matrix's misranking, under the errors it admits, against
    the sample estimator's count (the paper's, which every error model admits)."""
    common = dict(classes=classes, error="gaussian", sds=(0.1, 0.3), samples=_PAIRS, seed=SEED, metrics=("accuracy",))
    runs = {name: run_study(**common, estimator=name, jobs=1).rows() for name in ESTIMATORS}
    reference = [r for r in runs["sample"] if r["name"] == "utility"]
    for name, rows in runs.items():
        for row, other in zip((r for r in rows if r["name"] == "utility"), reference, strict=True):
            assert np.isfinite(row["incorrect_pct"]) and 0 < row["incorrect_pct"] < 50, (name, row)
            if name != "sample":
                combined = np.hypot(row["se_pct"], other["se_pct"])
                assert abs(row["incorrect_pct"] - other["incorrect_pct"]) <= 4 * combined, (name, row, other)


# --- the checks catch what they are for --------------------------------------------------------


def test_the_checks_catch_a_roc_score_with_its_sign_reversed():
    entry = ROC_SCORES["auc"]
    with pytest.raises(AssertionError, match="below"):
        check_roc_score("auc", lambda *a: -entry(*a), lambda p, m1, s1, m2, s2: _roc_compare(entry.code, p, m1, s1, m2, s2))
    # Reversed in its comparison alone, the way the study ranks pairs.
    with pytest.raises(AssertionError, match="comparison"):
        check_roc_score("auc", entry, lambda p, m1, s1, m2, s2: -_roc_compare(entry.code, p, m1, s1, m2, s2))


def test_the_checks_catch_a_probability_score_with_its_sign_reversed():
    entry = PROBABILITY_SCORES["brier"]
    with pytest.raises(AssertionError, match="ranks"):
        check_probability_score("brier", entry, lambda *a: -_probability_compare(entry.code, *a))
    with pytest.raises(AssertionError, match="!="):
        check_probability_score("brier", lambda *a: entry(*a) + 1e-6, lambda *a: _probability_compare(entry.code, *a))


def test_the_checks_catch_a_metric_reversed():
    metric = METRICS["mcc"]
    pab, matrices = _forms(metric)
    with pytest.raises(AssertionError, match="does not score higher"):
        check_metric("mcc", lambda p, a, b: -pab(p, a, b), None)
    with pytest.raises(AssertionError, match="does not score higher"):
        check_metric("mcc", None, lambda c: -matrices(c))


def test_the_checks_catch_an_error_model_drawn_by_anothers_sampler():
    # The sampler: gaussian drawn as truncated, and truncated as gaussian.
    for name, other in (("gaussian", "truncated"), ("truncated", "gaussian")):
        with pytest.raises(AssertionError, match=name):
            check_error_model_draws(name, _own_sampler(other))


@pytest.mark.slow
def test_the_checks_catch_a_kernel_that_draws_an_error_model_by_anothers_sampler(kernel_realised_sds):
    # The truncated model's realised sds, as if a kernel had drawn the gaussian's (and back).
    for name, other in (("truncated", "gaussian"), ("gaussian", "truncated")):
        for kernel in ("two-class", "n-class at 3"):
            with pytest.raises(AssertionError, match="realised sd"):
                check_kernel_realised_sd(
                    name, kernel, kernel_realised_sds[other, kernel], lambda sd: own_realised_sd(name, KERNELS[kernel], sd)
                )
