"""The posterior of scoring classifiers' yields (``rank_scoring(..., test_uncertainty=True)``,
``evaluate --scores --test-uncertainty``): its Bayesian bootstrap against a plain NumPy one,
crossfit's error bootstrap against a brute-force re-choice of every fold's threshold, its prior
against the Dirichlet's moments, ``test``'s cross-fitted estimate and its error against a brute-force
re-choice of every threshold, its calibration on binormal populations whose yields are a closed form, and the CLI."""

from __future__ import annotations

import csv
import io
import json
import math
import re

import numpy as np
import pytest
from scipy.stats import norm

from mcrank.cli import main
from mcrank.evaluate import rank_scoring, scored_test_set

U = np.array([[0.0, -1.0], [-4.0, 0.0]])  # rows = output, columns = true class, positive first
#: The posterior's weights, written out so that the oracle does not call the code under test:
#: child (6, 0) of the root seed (mcrank._rng.SCORING_POSTERIOR, its item weights).
STREAM = (6, 0)


def _weighted_total(positive, scores, weights, threshold):
    out = scores >= threshold
    rows, columns = np.where(out, 0, 1), np.where(positive, 0, 1)
    return float(np.sum(weights * U[rows, columns]))


def _brute_choice(positive, scores, weights):
    """The threshold of the largest weighted total among every distinct score and +inf, the
    highest among equals, placed halfway down to the next lower distinct score (-inf below the
    lowest): the documented rule of the point estimate."""
    candidates = [math.inf, *np.unique(scores)[::-1]]
    totals = [_weighted_total(positive, scores, weights, t) for t in candidates]
    best = candidates[int(np.argmax(totals))]
    lower = scores[scores < best]
    return best if best == math.inf else ((best + lower.max()) / 2 if lower.size else -math.inf)


def _folds(items, folds, seed):
    fold = np.empty(items, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(items)] = np.arange(items) % folds
    return fold


def _item_utilities(positive, scores, choice, folds, seed):
    """Per item and model, the utility at the threshold that decides it, and which items are
    evaluated: the estimate's own rule, by brute force."""
    items = positive.size
    fold, ones = _folds(items, folds, seed), np.ones(items)
    utilities = np.empty((items, len(scores)))
    for m, s in enumerate(scores.values()):
        for f in range(folds if choice == "crossfit" else 1):
            held = fold == f if choice == "crossfit" else np.ones(items, dtype=bool)
            chosen_on = ~held if choice == "crossfit" else (fold == 0 if choice == "split" else held)
            t = _brute_choice(positive[chosen_on], s[chosen_on], ones[chosen_on])
            utilities[held, m] = U[np.where(s[held] >= t, 0, 1), np.where(positive[held], 0, 1)]
    return utilities, (fold == 1 if choice == "split" else np.ones(items, dtype=bool))


def _data(items=90, seed=0):
    rng = np.random.default_rng(seed)
    positive = rng.random(items) < 0.35
    x = rng.normal(size=items) + 1.2 * positive
    return positive, {"a": np.round(x + 0.5 * rng.normal(size=items), 1), "b": np.round(x + rng.normal(size=items), 1),
                      "c": np.round(rng.normal(size=items) + 0.4 * positive, 1)}  # fmt: skip


def test_without_prior_split_is_the_bayesian_bootstrap_of_the_evaluated_items():
    # A prior of negligible count leaves the Bayesian bootstrap over the evaluated half, each
    # item at the threshold the choice half chose.
    from mcrank.evaluate.scoring import _posterior_draws

    positive, scores = _data()
    samples, seed = 40, 3
    utilities, evaluated = _item_utilities(positive, scores, "split", 2, seed)
    fold = _folds(positive.size, 2, seed)
    draws = _posterior_draws(positive, list(scores.values()), U, utilities, fold, "split", samples, 1e-300, np.random.SeedSequence(seed))
    weights = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=STREAM)).standard_exponential((samples, positive.size))
    weights = weights * evaluated
    expected = weights @ utilities / weights.sum(axis=1, keepdims=True)
    assert draws == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("choice", ["crossfit", "test"])
def test_without_prior_the_draws_are_the_estimate_less_the_error_of_the_re_run_choice(choice):
    # In each draw every fold's threshold is re-chosen on the other folds' weighted items; the
    # error, their weighted held-out yield less the plain yield on every item of what they
    # estimate, is centred (held-out items are independent of their threshold) and subtracted
    # from the cross-fitted estimate. What they estimate: crossfit, the yield of those
    # thresholds (each fold's by its share); test, of the threshold re-chosen on all the
    # weighted items.
    from mcrank.evaluate.scoring import _posterior_draws

    positive, scores = _data()
    samples, seed, folds = 30, 3, 4
    utilities, _ = _item_utilities(positive, scores, "crossfit", folds, seed)
    fold = _folds(positive.size, folds, seed)
    draws = _posterior_draws(positive, list(scores.values()), U, utilities, fold, choice, samples, 1e-300, np.random.SeedSequence(seed))
    weights = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=STREAM)).standard_exponential((samples, positive.size))
    ones = np.ones(positive.size)
    share = np.bincount(fold) / positive.size
    for m, s in enumerate(scores.values()):
        errors = []
        for w in weights:
            weighted, plain = 0.0, 0.0
            for f in range(folds):
                held = fold == f
                t = _brute_choice(positive[~held], s[~held], w[~held])
                weighted += _weighted_total(positive[held], s[held], w[held], t)
                plain += share[f] * _weighted_total(positive, s, ones, t) / positive.size
            if choice == "test":
                plain = _weighted_total(positive, s, ones, _brute_choice(positive, s, w)) / positive.size
            errors.append(weighted / w.sum() - plain)
        errors = np.array(errors)
        assert draws[:, m] == pytest.approx(utilities[:, m].mean() - (errors - errors.mean()), abs=1e-12)


def test_test_is_the_cross_fitted_estimate_on_folds_of_its_own():
    # The posterior of test is that of the cross-fitted estimate on the folds of stream (6, 2),
    # and each model's optimism its test-set yield less that estimate.
    positive, scores = _data(seed=4)
    test_set = scored_test_set(positive, scores, classes=(True, False))
    result = rank_scoring(test_set, U, threshold_choice="test", test_uncertainty=True, samples=30, rng=9)
    fold = np.empty(positive.size, dtype=np.int64)
    fold[np.random.default_rng(np.random.SeedSequence(9, spawn_key=(6, 2))).permutation(positive.size)] = np.arange(positive.size) % 5
    utilities = np.empty((positive.size, len(scores)))
    for m, s in enumerate(scores.values()):
        for f in range(5):
            held = fold == f
            t = _brute_choice(positive[~held], s[~held], np.ones(np.sum(~held)))
            utilities[held, m] = U[np.where(s[held] >= t, 0, 1), np.where(positive[held], 0, 1)]
    for m, model in enumerate(sorted(result.models, key=lambda r: list(scores).index(r.name))):
        assert result.posterior.optimism[model.name] == pytest.approx(model.test_set_yield - utilities[:, m].mean(), abs=1e-12)
        assert model.utility_yield == pytest.approx(utilities[:, m].mean(), abs=1e-12)  # the posterior's centre ranks


def _cross_fitted(positive, scores, seed, folds=5):
    """Each model's cross-fitted estimate on the folds of the posterior of ``test`` (stream (6, 2)),
    by brute force, and its yield at the threshold chosen on every item (the test-set yield)."""
    fold = np.empty(positive.size, dtype=np.int64)
    fold[np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(6, 2))).permutation(positive.size)] = (
        np.arange(positive.size) % folds
    )
    estimate, test_set_yield, ones = {}, {}, np.ones(positive.size)
    for name, s in scores.items():
        total = 0.0
        for f in range(folds):
            held = fold == f
            total += _weighted_total(positive[held], s[held], ones[held], _brute_choice(positive[~held], s[~held], ones[~held]))
        estimate[name] = total / positive.size
        test_set_yield[name] = _weighted_total(positive, s, ones, _brute_choice(positive, s, ones)) / positive.size
    return estimate, test_set_yield


def _headline(result):
    """The chosen model, the rival named and P(chosen above it) as the report's first line says them."""
    from mcrank.evaluate.scoring.report import decision_line

    line = decision_line(result, {m.name: m.name for m in result.models})
    match = re.fullmatch(r"choose (\w+): P\(best\) [0-9.]+ given the test set; over (\w+) ([0-9.]+)", line)
    assert match, line
    return match[1], match[2], float(match[3])


def _two_close_models(items, seed):
    rng = np.random.default_rng(seed)
    positive = rng.random(items) < 0.35
    x = rng.normal(size=items) + 1.2 * positive
    return positive, {"a": np.round(x + 0.5 * rng.normal(size=items), 2), "b": np.round(x + 0.5 * rng.normal(size=items), 1)}


def test_test_chooses_by_the_posterior_mean_not_by_the_optimistic_yield():
    # A planted case: a leads on the test set (-0.37 against -0.43 per item) but its threshold,
    # chosen among many distinct scores, is far more optimistic: cross-fitted, b leads (-0.48
    # against -0.78). Ranked by the test-set yield the first line read "choose a ...; over b 0.13".
    positive, scores = _two_close_models(60, 21)
    estimate, test_set_yield = _cross_fitted(positive, scores, 21)
    assert test_set_yield["a"] > test_set_yield["b"] and estimate["b"] > estimate["a"]
    result = rank_scoring(scored_test_set(positive, scores, classes=(True, False)), U, threshold_choice="test",
                          test_uncertainty=True, rng=21)  # fmt: skip
    chosen, rival, p = _headline(result)
    assert (chosen, rival) == ("b", "a") and p >= 0.5
    assert result.posterior.probability_above[("b", "a")][0] >= 0.5
    assert [m.name for m in result.models] == ["b", "a"] and not result.optimistic
    assert "ranked by the cross-fitted estimate" in result.describe_choice()


@pytest.mark.parametrize("choice", ["test", "crossfit", "split"])
def test_the_first_line_never_names_a_rival_the_choice_is_probably_below(choice):
    # Over a few seeds of three models, the first line names the model of the highest posterior
    # centre (for test, the brute-force cross-fitted estimate) and its P(above) the closest rival
    # is at least 0.5 (the draws' mean and the probability's 0.5 agree up to Monte Carlo error:
    # 2000 draws, SE 0.011).
    for seed in range(6):
        positive, scores = _data(items=60, seed=seed)
        result = rank_scoring(scored_test_set(positive, scores, classes=(True, False)), U, threshold_choice=choice,
                              test_uncertainty=True, rng=seed)  # fmt: skip
        chosen, rival, p = _headline(result)
        assert p >= 0.5 and result.posterior.probability_above[(chosen, rival)][0] >= 0.5, (seed, chosen, rival, p)
        if choice == "test":
            estimate, _ = _cross_fitted(positive, scores, seed)
            assert estimate[chosen] == max(estimate.values()), (seed, chosen, estimate)


def test_the_prior_is_the_dirichlet_spread_over_the_joint_table():
    # Its part of a draw, normalised, is one model's utility under Dirichlet(c/4, ..., c/4) over
    # its four cells (the even spread over 2^(models + 1) cells, merged): mean the mean of U,
    # variance var(U) / (c + 1); and its mass is Gamma(c).
    from mcrank.evaluate.posterior import SCORING_PRIOR_COUNT
    from mcrank.evaluate.posterior import prior_part as _prior_draws

    samples, c = 20000, SCORING_PRIOR_COUNT
    mass, utility = _prior_draws(samples, 3, U, c, np.random.default_rng(5))
    share = utility / mass[:, None]
    cells = U.ravel()
    for m in range(3):
        assert abs(share[:, m].mean() - cells.mean()) < 4 * math.sqrt(cells.var() / (c + 1) / samples)
        variance = cells.var() / (c + 1)
        assert abs(share[:, m].var() - variance) < 4 * variance * math.sqrt(2.5 / samples)  # about 2 for a Beta-like law; 2.5 kept
    assert abs(mass.mean() - c) < 4 * math.sqrt(c / samples)
    # Two models' outputs are independent under the prior: their cells' covariance given the class.
    a, b = share[:, 0] - cells.mean(), share[:, 1] - cells.mean()
    assert abs(np.mean(a * b) - np.var(U.mean(axis=0)) / (c + 1)) < 4 * math.sqrt(np.var(a * b) / samples)


def test_the_posterior_leaves_the_ranking_alone():
    # Its own stream: the folds, thresholds and yields are those of a run without it.
    positive, scores = _data(seed=1)
    test_set = scored_test_set(positive, scores, classes=(True, False))
    plain = rank_scoring(test_set, U, rng=5)
    with_posterior = rank_scoring(test_set, U, test_uncertainty=True, samples=50, rng=5)
    assert plain.posterior is None and plain.models == with_posterior.models
    again = rank_scoring(test_set, U, test_uncertainty=True, samples=50, rng=5)
    assert again.posterior == with_posterior.posterior


def test_pair_probabilities_and_best_come_from_the_draws():
    from mcrank.evaluate.scoring import ScoringPosterior

    draws = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [1.0, 1.0, 0.0], [2.0, 0.0, 0.0]])
    posterior = ScoringPosterior.from_draws(["a", "b", "c"], [0, 1, 2], draws, 1)
    assert posterior.probability_above[("a", "b")][0] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert posterior.probability_best["a"][0] == pytest.approx((1 + 0 + 0.5 + 1) / 4)
    assert posterior.probability_best["b"][0] == pytest.approx((0 + 1 + 0.5 + 0) / 4)
    assert posterior.optimism is None


def test_models_not_separated_from_the_choice_by_the_fold_comparisons_rule():
    # Separated when one order of the pair has probability at least 0.95 (the fold report's rule).
    from mcrank.evaluate.scoring import ScoringPosterior

    rng = np.random.default_rng(1)
    base = rng.normal(size=4000)
    # b just below a (P(a above b) near 0.6), c far below (1.0), d above a in almost every draw.
    draws = np.column_stack([base, base - 0.25 + rng.normal(size=4000), base - 10.0, base + 10.0])
    posterior = ScoringPosterior.from_draws(["a", "b", "c", "d"], [0, 1, 2, 3], draws, 1)
    assert posterior.chosen == "a"
    assert [name for name, _ in posterior.not_separated] == ["b"]
    assert posterior.not_separated[0][1] == posterior.probability_above[("a", "b")][0]
    assert 0.05 < posterior.not_separated[0][1] < 0.95
    data = posterior.to_dict()
    assert data["chosen"] == "a" and data["separated_at"] == 0.95
    assert data["not_separated"] == [{"model": "b", "probability_chosen_above": posterior.not_separated[0][1]}]


# --- calibration on populations of known truth (scripts/scoring_calibration.py, at scale) ----------

PREVALENCE, MU_RANGE = 0.3, (0.8, 2.0)


def _population_yield(threshold, mu):
    """The yield per item of ``score >= threshold`` when negatives score N(0, 1), positives N(mu, 1)."""
    tp, fp = norm.sf(threshold - mu), norm.sf(threshold)
    return PREVALENCE * (U[0, 0] * tp + U[1, 0] * (1 - tp)) + (1 - PREVALENCE) * (U[0, 1] * fp + U[1, 1] * (1 - fp))


def _draw(items, mus, rng):
    positive = rng.random(items) < PREVALENCE
    shared = rng.normal(size=items) * math.sqrt(0.5)
    return positive, [mu * positive + shared + rng.normal(size=items) * math.sqrt(0.5) for mu in mus]


def _estimand(model, mu, items, choice):
    """The population yield of the thresholds chosen on this test set, as evaluated: each
    crossfit fold's (fold f holds items // 5 items, one more for f < items % 5), the choice
    half's, or the whole set's."""
    if choice == "test":
        return _population_yield(model.threshold, mu)
    if choice == "split":
        return _population_yield(model.fold_thresholds[0], mu)
    sizes = items // 5 + (np.arange(5) < items % 5)
    return float(np.sum(sizes * _population_yield(np.array(model.fold_thresholds), mu)) / items)


def _calibration(seed: int, populations: int, items: int, choice: str, samples: int):
    """On ``populations`` binormal populations (three models each, ``items`` items): whether each
    95 % interval covers the estimand, and each pair's P(above) with whether it is right."""
    rng = np.random.default_rng(seed)
    covered, pairs = [], []
    for _ in range(populations):
        mus = rng.uniform(*MU_RANGE, size=3)
        positive, scores = _draw(items, mus, rng)
        result = rank_scoring(scored_test_set(positive, {f"m{k}": s for k, s in enumerate(scores)}, classes=(True, False)), U,
                              threshold_choice=choice, test_uncertainty=True, samples=samples, rng=int(rng.integers(2**32)))  # fmt: skip
        truth = {m.name: _estimand(m, mus[int(m.name[1])], items, choice) for m in result.models}
        covered += [low <= truth[name] <= high for name, (low, high) in result.posterior.intervals.items()]
        pairs += [(p, truth[a] > truth[b]) for (a, b), (p, _) in result.posterior.probability_above.items()]
    probability, right = np.array(pairs, dtype=float).T
    return np.array(covered), probability, right


def _check_calibrated(covered, probability, right):
    """95 % coverage within 4 binomial SE; the pairs in the reported order right as often as the
    sum of their probabilities says, within 4 SE."""
    coverage = np.mean(covered)
    assert abs(coverage - 0.95) < 4 * math.sqrt(0.95 * 0.05 / len(covered)), coverage
    assert abs(right.sum() - probability.sum()) < 4 * math.sqrt(np.sum(probability * (1 - probability))), (right.sum(), probability.sum())


@pytest.mark.parametrize("choice", ["test", "split"])
@pytest.mark.slow
def test_intervals_cover_95_percent_and_pair_probabilities_are_calibrated(choice):
    # 450 intervals: 95 % within 4 binomial SE (4.1 %); for test, of the yield of the threshold
    # to deploy. The bootstrap that re-chose every threshold in each draw, without a correction
    # of the optimism, covered about 65 % for test at N = 300. (crossfit: its own test below.)
    _check_calibrated(*_calibration(2027, 150, 300, choice, 400))


@pytest.mark.slow
def test_crossfit_intervals_cover_95_percent_at_100_items():
    # 300 populations of 100 items, 900 intervals: 95 % within 4 binomial SE (2.9 %). The
    # Bayesian bootstrap at the fixed thresholds covered 90 % here (too narrow: it does not see
    # the thresholds' own choice); its pairs at 0.95 were right 85-90 % of the time.
    _check_calibrated(*_calibration(2028, 300, 100, "crossfit", 200))


# --- the CLI ---------------------------------------------------------------------------------------


def _file(tmp_path):
    positive, scores = _data(items=150, seed=2)
    path = tmp_path / "scores.csv"
    rows = ["true," + ",".join(scores)]
    rows += [",".join(["event" if p else "none", *(repr(float(s[i])) for s in scores.values())]) for i, p in enumerate(positive)]
    path.write_text("\n".join(rows) + "\n")
    return path, positive, scores


UTILITY = json.dumps({"utility": U.tolist(), "classes": ["event", "none"]})


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("choice", ["crossfit", "split", "test"])
def test_cli_scores_with_test_uncertainty(tmp_path, capsys, choice):
    path, positive, scores = _file(tmp_path)
    argv = ["--scores", path, "--utility", UTILITY, "--test-uncertainty", "--threshold-choice", choice, "--samples", 300, "--seed", 4]
    api = rank_scoring(scored_test_set(np.where(positive, "event", "none"), scores, classes=("event", "none")), U,
                       threshold_choice=choice, test_uncertainty=True, samples=300, rng=4).posterior  # fmt: skip
    code, text, err = run(capsys, *argv)
    assert code == 0, err
    first, second = next(iter(api.probability_above))
    assert text.startswith(f"choose {first}: P(best)") and "95% interval" in text and "P(best)" in text
    second_line = text.splitlines()[1]
    assert second_line.startswith(f"not separated from {first}" if api.not_separated else f"separated from every other model: P({first}")
    code, text, err = run(capsys, *argv, "--details")  # the pairs and how they were drawn
    assert code == 0, err
    assert "Bayesian bootstrap" in text and "300 draws, seed 4" in text and f"{first} above {second}" in text
    code, out, err = run(capsys, *argv, "--format", "json")
    data = json.loads(out)["scoring"]["posterior"]
    assert data["samples"] == 300 and data["seed"] == 4
    assert data["intervals"] == {name: list(bounds) for name, bounds in api.intervals.items()}
    assert {(d["better"], d["worse"]): (d["probability"], d["se"]) for d in data["probability_above"]} == api.probability_above
    code, out, err = run(capsys, *argv, "--format", "csv")
    rows = list(csv.DictReader(line for line in io.StringIO(out) if not line.startswith("#")))
    for row in rows:
        assert (float(row["interval_low"]), float(row["interval_high"])) == api.intervals[row["model"]]
        assert float(row["probability_best"]) == api.probability_best[row["model"]][0]
        assert row[f"probability_above_{row['model']}"] == ""
    a, b = first, second
    row_b = next(row for row in rows if row["model"] == b)
    assert float(row_b[f"probability_above_{a}"]) == pytest.approx(1 - api.probability_above[(a, b)][0])


def test_cli_folds_of_test_s_cross_fitted_estimate(tmp_path, capsys):
    # test's posterior is of a cross-fitted estimate on folds of its own: --folds sets them, as
    # folds= does in Python, and is the option its refusal of too many folds names.
    path, positive, scores = _file(tmp_path)
    argv = ["--scores", path, "--utility", UTILITY, "--threshold-choice", "test", "--test-uncertainty", "--samples", 50, "--seed", 4]
    api = rank_scoring(scored_test_set(np.where(positive, "event", "none"), scores, classes=("event", "none")), U,
                       threshold_choice="test", test_uncertainty=True, folds=3, samples=50, rng=4)  # fmt: skip
    code, out, err = run(capsys, *argv, "--folds", 3, "--format", "json")
    assert code == 0, err
    data = json.loads(out)["scoring"]
    assert data["folds"] == 3 and data["posterior"]["optimism"] == api.posterior.optimism
    assert [m["utility_yield"] for m in data["models"]] == [m.utility_yield for m in api.models]
    code, out, err = run(capsys, *argv, "--folds", 10**4)
    assert code == 2 and out == "" and err.count("\n") == 1 and "--folds: 10000 folds" in err, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--test-uncertainty", "--prior-count", "2"], "--prior-count is the prior of the decision curves' bands"),
        (["--test-uncertainty", "--samples", "0"], "--samples"),
    ],
)
def test_cli_scores_uncertainty_bad_input(tmp_path, capsys, argv, message):
    path, _, _ = _file(tmp_path)
    code, out, err = run(capsys, "--scores", path, "--utility", UTILITY, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err, err
