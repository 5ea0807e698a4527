"""The threshold-free scores of ``mcrank evaluate --scores`` beside AUC (mcrank.evaluate.curve_scores):
the H-measure against the R package's published values and a straightforward implementation of
Hand's definition, the average precision against scikit-learn's, bit for bit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import beta
from sklearn.metrics import average_precision_score

from mcrank.evaluate import scored_test_set
from mcrank.evaluate.curve_scores import CURVE_SCORES, average_precision, h_measure
from mcrank.evaluate.scoring import rank_scoring

R_VALUES = json.loads((Path(__file__).parent / "hmeasure_r_pima.json").read_text())


@pytest.mark.parametrize("severity", sorted(R_VALUES["H_by_severity_ratio"]))
def test_h_measure_is_the_r_packages(severity):
    """hmeasure::HMeasure's H on the Pima LDA scores, each severity ratio (15 digits recorded)."""
    positive, scores = np.array(R_VALUES["positive"]), np.array(R_VALUES["scores"])
    # "NA" is the R package's default, severity.ratio = pi1 / pi0: h_measure's default too.
    given = {} if severity == "NA" else {"severity_ratio": float(severity)}
    assert h_measure(positive, scores, **given) == pytest.approx(R_VALUES["H_by_severity_ratio"][severity], abs=2e-15)


def test_h_measures_default_is_the_ratio_of_the_classes():
    positive, scores = np.array(R_VALUES["positive"]), np.array(R_VALUES["scores"])
    assert (positive.sum(), (~positive).sum()) == (109, 223)  # Pima.te: 109 "Yes", 223 "No"
    assert h_measure(positive, scores) == h_measure(positive, scores, severity_ratio=109 / 223)
    assert h_measure(positive, scores) != pytest.approx(h_measure(positive, scores, severity_ratio=1.0), abs=1e-3)


def hand_h_measure(positive, scores, a=2, b=2):
    """Hand (2009) read literally: Q(c) the least loss over every threshold (each distinct score,
    and never positive), ``c`` the cost of a false positive ~ Beta(a, b). No convex hull: Q is
    the lower envelope of one line per threshold, linear between any two costs where two lines
    cross, so it is integrated exactly between all those crossings by a Gauss-Legendre rule (the
    Beta densities of integer a, b are polynomials)."""
    positive = np.asarray(positive, bool)
    thresholds = np.r_[np.unique(scores), np.inf]
    fp = np.array([np.sum((scores >= t) & ~positive) for t in thresholds]) / np.sum(~positive)
    fn = np.array([np.sum((scores < t) & positive) for t in thresholds]) / np.sum(positive)
    pi_p = positive.mean()
    slope, constant = (1 - pi_p) * fp - pi_p * fn, pi_p * fn  # loss = slope c + constant
    with np.errstate(divide="ignore", invalid="ignore"):
        crossings = (constant[None, :] - constant[:, None]) / (slope[:, None] - slope[None, :])
    cuts = np.unique(np.r_[0.0, 1.0, pi_p, crossings[np.isfinite(crossings) & (crossings > 0) & (crossings < 1)]])
    nodes, weights = np.polynomial.legendre.leggauss(a + b + 2)
    low, high = cuts[:-1, None], cuts[1:, None]
    c = (low + (high - low) * (nodes + 1) / 2).ravel()
    w = ((high - low) * weights / 2).ravel() * beta(a, b).pdf(c)
    loss = w @ np.min(slope[None, :] * c[:, None] + constant[None, :], axis=1)
    trivial = w @ np.minimum(c * (1 - pi_p), (1 - c) * pi_p)
    return 1 - loss / trivial


def test_h_measure_against_hands_definition():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(4, 60))
        positive = rng.random(n) < rng.uniform(0.2, 0.8)
        positive[:2] = True, False
        scores = np.round(rng.normal(size=n) + rng.uniform(-1, 2) * positive, int(rng.integers(0, 3)))
        assert h_measure(positive, scores, severity_ratio=1) == pytest.approx(hand_h_measure(positive, scores), abs=1e-9)
        assert h_measure(positive, scores, severity_ratio=0.25) == pytest.approx(hand_h_measure(positive, scores, 2, 5), abs=1e-9)


def test_h_measure_edges():
    assert h_measure([True, False, True], [3, 1, 2]) == pytest.approx(1.0, abs=1e-15)  # separated
    assert h_measure([True, False], [1.0, 1.0]) == pytest.approx(0.0, abs=1e-15)  # one tie: the diagonal
    for one_class in ([True, True], [False, False]):  # as auc_score
        with pytest.raises(ValueError, match="positive: .* item is positive; the H-measure needs items of both classes"):
            h_measure(one_class, [1.0, 2.0])
    for bad in (0, -1, math.nan, math.inf):
        with pytest.raises(ValueError, match="severity_ratio"):
            h_measure([True, False], [1.0, 0.0], severity_ratio=bad)
    with pytest.raises(ValueError, match="scores"):
        h_measure([True, False], [1.0, math.nan])


def test_average_precision_is_scikit_learns_bit_for_bit():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 300))
        positive = rng.random(n) < rng.random()
        positive[0], positive[-1] = True, False
        scores = np.round(rng.normal(size=n) + rng.random() * positive, int(rng.integers(0, 3)))
        assert average_precision(positive, scores) == average_precision_score(positive, scores)
    for one_class in ([True, True], [False, False]):
        with pytest.raises(ValueError, match="positive: .* item is positive; average precision needs items of both classes"):
            average_precision(one_class, [1.0, 2.0])


def test_rank_scoring_reports_them_for_every_model():
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.3
    scores = {"a": rng.normal(size=200) + y, "b": rng.normal(size=200) + 2 * y}
    test_set = scored_test_set(y.astype(int), scores, classes=[1, 0])
    ranking = rank_scoring(test_set, [[1, 0], [0, 1]], rng=1)
    models = ranking.to_dict()["models"]
    for m in ranking.models:
        positive = test_set.positive
        assert set(m.curve_scores) == set(CURVE_SCORES)
        assert m.curve_scores["average_precision"] == average_precision_score(positive, scores[m.name])
        assert m.curve_scores["hmeasure"] == h_measure(positive, scores[m.name])
    assert all(set(CURVE_SCORES) <= set(m) for m in models)
