"""A plain NumPy implementation of the n-class study: the oracle of the n-class engine's tests.

Written from ``docs/method.md`` ("The n-class study", "Finite test sets") without importing anything
from mcrank. Where the engine takes a shortcut, this module does not:

- ``gaussian-elements`` utility matrices and ``truncated`` errors are drawn by plain rejection
  of whole columns (the engine draws each element from its truncated normal, and gives a
  column up at its first element above its diagonal);
- ``gaussian`` errors add an independent normal to each of the n^2 elements (the engine draws
  one normal for the yield difference, or none with the conditional estimator);
- the metrics are written from their textbook definitions, vectorised over pairs;
- the counts of a finite test set come from numpy's multinomial sampler.

Vectorised over pairs, in chunks of bounded memory: it is also the NumPy baseline of
``scripts/bench.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["NClassOracleResult", "nclass_scores", "run_nclass_oracle", "sample_columns", "sample_utility"]

METRICS = ("accuracy", "balanced_accuracy", "macro_precision", "macro_f1", "mcc", "cohen_kappa")


def _reject_columns(mean: np.ndarray, sd: float, rng: np.random.Generator) -> np.ndarray:
    """``mean + N(0, sd^2)`` on every element of (m, n, n), each column redrawn whole until all
    its elements are in [0, 1] and its diagonal element is the largest."""
    m, n, _ = mean.shape
    out = np.empty_like(mean)
    for j in range(n):
        pending = np.arange(m)
        while pending.size:
            column = mean[pending, :, j] + sd * rng.standard_normal((pending.size, n))
            ok = np.all((column >= 0) & (column <= 1), axis=1) & np.all(column <= column[:, j : j + 1], axis=1)
            out[pending[ok], :, j] = column[ok]
            pending = pending[~ok]
    return out


def sample_utility(m: int, n: int, distribution: str, rng: np.random.Generator, *, sd: float = 1 / 3, normalise: bool = True) -> np.ndarray:
    """True utility matrices (m, n, n), rows = output, columns = true class."""
    if distribution == "uniform-elements":
        u = rng.random((m, n, n))
        best = np.argmax(u, axis=1)  # (m, n): the row of each column's largest
        rows = np.arange(m)[:, None]
        columns = np.arange(n)[None, :]
        diagonal = u[rows, columns, columns].copy()
        u[rows, columns, columns] = u[rows, best, columns]
        u[rows, best, columns] = diagonal
    elif distribution == "gaussian-elements":
        u = _reject_columns(np.broadcast_to(np.eye(n), (m, n, n)), sd, rng)
    else:
        raise ValueError(distribution)
    if normalise:
        low, high = u.min(axis=(1, 2), keepdims=True), u.max(axis=(1, 2), keepdims=True)
        u = (u - low) / (high - low)
    return u


def sample_columns(m: int, n: int, rng: np.random.Generator, *, low: float | None = None, high: float = 1.0) -> np.ndarray:
    """P(i | j) of m classifiers, (m, n, n) with column j summing to 1: recall
    ``low + (high - low) Beta(2, 1)`` on the diagonal, the rest split by Dirichlet(1, ..., 1)."""
    low = 1.0 / n if low is None else low
    recall = low + (high - low) * rng.beta(2.0, 1.0, (m, n))
    given = np.empty((m, n, n))
    for j in range(n):
        others = [i for i in range(n) if i != j]
        split = rng.dirichlet(np.ones(n - 1), m) if n > 2 else np.ones((m, 1))
        given[:, others, j] = (1 - recall[:, j : j + 1]) * split
        given[:, j, j] = recall[:, j]
    return given


def nclass_scores(name: str, c: np.ndarray) -> np.ndarray:
    """A metric of matrices (m, n, n), textbook definitions; undefined per-class ratios are left
    out of macro means, and any other 0/0 is NaN."""
    diagonal = np.diagonal(c, axis1=1, axis2=2)
    r, t, total = c.sum(axis=2), c.sum(axis=1), c.sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "accuracy":
            return diagonal.sum(axis=1) / total
        if name in ("balanced_accuracy", "macro_precision", "macro_f1"):
            denominator = {"balanced_accuracy": t, "macro_precision": r, "macro_f1": (r + t) / 2}[name]
            return _nanmean(np.where(denominator > 0, diagonal / denominator, np.nan))
        observed = diagonal.sum(axis=1)
        products = (r * t).sum(axis=1)
        if name == "mcc":
            return (total * observed - products) / np.sqrt((total**2 - (r * r).sum(axis=1)) * (total**2 - (t * t).sum(axis=1)))
        if name == "cohen_kappa":
            p_o, p_e = observed / total, products / total**2
            return (p_o - p_e) / (1 - p_e)
    raise ValueError(name)


def _nanmean(values: np.ndarray) -> np.ndarray:
    defined = ~np.isnan(values)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(defined, values, 0.0).sum(axis=1) / defined.sum(axis=1)


@dataclass(frozen=True)
class NClassOracleResult:
    """Per metric and per sd: incorrectly ranked pairs (counts, or with ``conditional``
    expected counts) and tied ones; the conditional estimate's standard errors in %."""

    samples: int
    metric_incorrect: dict
    metric_tied: dict
    utility_incorrect: np.ndarray
    utility_tied: np.ndarray
    utility_se_pct: np.ndarray | None


def _incorrect(d_true, d):
    return ~(((d_true > 0) & (d > 0)) | ((d_true < 0) & (d < 0)))


def run_nclass_oracle(
    samples: int,
    classes: int,
    *,
    rng: np.random.Generator,
    true_um: str = "uniform-elements",
    error: str = "gaussian",
    sds=(0.1,),
    metrics=METRICS,
    concentration: float = 1.0,
    test_size: int | None = None,
    conditional: bool = False,
    chunk: int = 20_000,
) -> NClassOracleResult:
    """Count incorrectly ranked pairs by the n-class procedure of ``docs/method.md``."""
    n, sds = classes, np.asarray(sds, dtype=float)
    metric_incorrect, metric_tied = dict.fromkeys(metrics, 0), dict.fromkeys(metrics, 0)
    utility_incorrect, utility_tied = np.zeros(sds.size), np.zeros(sds.size, dtype=np.int64)
    squares = np.zeros(sds.size)
    done = 0
    while done < samples:
        m = min(chunk, samples - done)
        done += m
        u = sample_utility(m, n, true_um, rng)
        p = rng.dirichlet(np.full(n, concentration), m)
        given = [sample_columns(m, n, rng) for _ in range(2)]
        population = [g * p[:, None, :] for g in given]
        d_true = np.sum(u * (population[1] - population[0]), axis=(1, 2))
        scored = population
        if test_size is not None:
            class_counts = rng.multinomial(test_size, p)
            scored = []
            for g in given:
                counts = np.empty((m, n, n))
                for j in range(n):
                    counts[:, :, j] = rng.multinomial(class_counts[:, j], g[:, :, j])
                scored.append(counts)
        scale = 1.0 if test_size is None else float(test_size)
        delta = (scored[1] - scored[0]) / scale
        for name in metrics:
            d = nclass_scores(name, scored[1]) - nclass_scores(name, scored[0])
            metric_incorrect[name] += int(np.count_nonzero(_incorrect(d_true, d)))
            metric_tied[name] += int(np.count_nonzero(~((d > 0) | (d < 0))))
        d_scored = np.sum(u * delta, axis=(1, 2))
        norm = np.sqrt(np.sum(delta**2, axis=(1, 2)))
        for k, s in enumerate(sds):
            if conditional:
                with np.errstate(divide="ignore", invalid="ignore"):
                    z = np.sign(d_true) * d_scored / (s * norm)
                probability = np.where((s * norm > 0) & (d_true != 0), stats.norm.sf(z), _incorrect(d_true, d_scored).astype(float))
                utility_incorrect[k] += probability.sum()
                squares[k] += (probability**2).sum()
                utility_tied[k] += np.count_nonzero((norm == 0) & (d_scored == 0))
                continue
            if error == "gaussian":
                v = u + s * rng.standard_normal(u.shape)
            else:
                v = _reject_columns(u, s, rng) if s > 0 else u
            d = np.sum(v * delta, axis=(1, 2))
            utility_incorrect[k] += np.count_nonzero(_incorrect(d_true, d))
            utility_tied[k] += np.count_nonzero(~((d > 0) | (d < 0)))
    se = None
    if conditional:
        mean = utility_incorrect / samples
        se = 100 * np.sqrt(np.maximum(squares / samples - mean**2, 0) * samples / (samples - 1) / samples)
    return NClassOracleResult(samples, metric_incorrect, metric_tied, utility_incorrect, utility_tied, se)
