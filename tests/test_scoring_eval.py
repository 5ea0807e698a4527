"""Scoring classifiers in evaluate (mcrank.evaluate.scoring): AUC against scikit-learn, the
best threshold against a brute force over every threshold, the threshold choices (test,
split, cross-fitted) against an independent recomputation, AUC's disagreements, bad input
and the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from mcrank.cli import main
from mcrank.evaluate import auc_score, load_scores, rank_scoring, scored_test_set

#: Treating a negative costs 4 times what treating a positive gains.
COSTLY = np.array([[1.0, -4.0], [0.0, 0.0]])
#: The class order of the matrices here: the positive class, 1, first (rows = decision, columns = true class).
POSITIVE_FIRST = (1, 0)


def _data(items=300, seed=0, rounding=2):
    rng = np.random.default_rng(seed)
    y = (rng.random(items) < 0.4).astype(int)
    x = rng.normal(size=items) + y
    return y, {
        "a": np.round(x + 0.3 * rng.normal(size=items), rounding),
        "b": np.round(0.5 * x + rng.normal(size=items), rounding),
        "c": np.round(rng.normal(size=items), rounding),  # no information
    }


def _yield(y, scores, utility, threshold):
    """Utility per item, item by item: output positive (row 0) when score >= threshold."""
    rows = np.where(scores >= threshold, 0, 1)
    columns = np.where(y == 1, 0, 1)  # class 0 = positive
    return float(np.mean(utility[rows, columns]))


def _midpoint_rule(y, scores, utility):
    """The documented rule, by brute force: the best of every distinct score and +inf (the
    highest among equals), applied halfway down to the next lower distinct score (-inf below
    the lowest)."""
    distinct = np.unique(scores)
    best = max([*distinct, math.inf], key=lambda t: (_yield(y, scores, utility, t), t))
    if best == math.inf:
        return best
    lower = distinct[distinct < best]
    return (best + lower.max()) / 2 if lower.size else -math.inf


def _dealt_folds(items, folds, seed):
    """The documented rule: the items shuffled by the seed's generator and dealt in turn,
    whatever their classes."""
    fold = np.empty(items, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(items)] = np.arange(items) % folds
    return fold


def _brute_best(y, scores, utility):
    candidates = [*np.unique(scores), math.inf]
    return max(_yield(y, scores, utility, t) for t in candidates)


# --- AUC ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rounding", [0, 1, 8])
def test_auc_is_sklearns_roc_auc_score_with_ties(seed, rounding):
    y, scores = _data(items=97, seed=seed, rounding=rounding)
    for s in scores.values():
        assert auc_score(y == 1, s) == pytest.approx(roc_auc_score(y, s), abs=1e-14)


def test_auc_by_hand_and_refused_for_one_class():
    # Pairs (positive, negative): (3, 1) 1, (3, 2) 1, (2, 1) 1, (2, 2) 1/2: 3.5 of 4.
    assert auc_score([True, True, False, False], [3, 2, 1, 2]) == 0.875
    # It returned NaN, silently.
    with pytest.raises(ValueError, match="^positive: every item is positive"):
        auc_score([True, True], [0.1, 0.2])
    with pytest.raises(ValueError, match="^positive: no item is positive"):
        auc_score([False, False], [0.1, 0.2])


@pytest.mark.parametrize(
    ("positive", "scores", "match"),
    [
        ([True, True, False, False], [math.nan, math.nan, 0.2, 0.3], r"^scores: item 0: score nan is not a finite number$"),
        ([True, False], [math.nan, math.nan], r"^scores: item 0: score nan is not a finite number$"),
        ([True, False], [0.1, math.inf], r"^scores: item 1: score inf is not a finite number$"),
        ([True, False], [0.5], r"^scores: expected 2 scores \(one per item of positive\), got shape \(1,\)$"),
        (["yes", "no"], [0.1, 0.2], r"^positive: expected a 1-d array of booleans"),
        ([2, 0], [0.1, 0.2], r"^positive: expected a 1-d array of booleans"),
    ],
)
def test_auc_score_checks_its_arrays_as_the_cli_does(positive, scores, match):
    # NaN scores gave 1.0 (all NaN 0.5), lengths that differ an IndexError.
    with pytest.raises(ValueError, match=match):
        auc_score(positive, scores)
    assert auc_score([1, 0, 1], [0.1, 0.2, 0.3]) == 0.5  # 0 and 1 are booleans too


# --- the best threshold ------------------------------------------------------------------------


@pytest.mark.parametrize("utility", [COSTLY, np.array([[15.0, -335.0], [-35.0, 165.0]]), np.array([[0.0, -1.0], [-1.0, 0.0]])])
def test_best_threshold_on_the_test_set_is_the_brute_force_maximum(utility):
    y, scores = _data(seed=1)
    result = rank_scoring(scored_test_set(y, scores, classes=POSITIVE_FIRST), utility, threshold_choice="test")
    assert result.optimistic and result.seed is None
    for m in result.models:
        best = _brute_best(y, scores[m.name], utility)
        assert m.utility_yield == pytest.approx(best, abs=1e-12)
        assert m.test_set_yield == pytest.approx(best, abs=1e-12)
        assert _yield(y, scores[m.name], utility, m.threshold) == pytest.approx(best, abs=1e-12)
        assert m.threshold == _midpoint_rule(y, scores[m.name], utility)


def test_the_corners_are_candidates():
    y = np.array([1, 0, 0, 0])
    s = np.array([0.1, 0.5, 0.6, 0.7])  # the positive scores lowest: best to treat nobody
    result = rank_scoring(scored_test_set(y, {"m": s}, classes=POSITIVE_FIRST), COSTLY, threshold_choice="test")
    assert result.models[0].threshold == math.inf and result.models[0].utility_yield == 0.0
    always = rank_scoring(
        scored_test_set(y, {"m": s}, classes=POSITIVE_FIRST), np.array([[1.0, 0.0], [-5.0, 0.0]]), threshold_choice="test"
    )
    assert always.models[0].threshold == -math.inf


def test_crossfit_is_each_fold_at_the_threshold_of_the_others():
    y, scores = _data(seed=2)
    result = rank_scoring(scored_test_set(y, scores, classes=POSITIVE_FIRST), COSTLY, threshold_choice="crossfit", folds=4, rng=5)
    assert result.seed == 5 and result.folds == 4 and result.evaluated_items == y.size
    fold = _dealt_folds(y.size, 4, 5)
    for m in result.models:
        s, total = scores[m.name], 0.0
        for f in range(4):
            train, held = fold != f, fold == f
            # The brute-force best on the other folds, applied to this fold.
            best = _midpoint_rule(y[train], s[train], COSTLY)
            total += _yield(y[held], s[held], COSTLY, best) * held.sum()
            assert best == m.fold_thresholds[f]
        assert m.utility_yield == pytest.approx(total / y.size, abs=1e-12)


def test_folds_are_balanced_and_blind_to_the_classes():
    # Stratified folds hand the held-out part the class balance its threshold was tuned on
    # (optimistic); the folds must not depend on the labels at all.
    y, scores = _data(items=103, seed=4)
    flipped = y.copy()
    flipped[:40] = 1 - flipped[:40]
    for choice, k in (("crossfit", 5), ("split", 2)):
        a = rank_scoring(scored_test_set(y, scores, classes=POSITIVE_FIRST), COSTLY, threshold_choice=choice, rng=1)
        b = rank_scoring(scored_test_set(flipped, scores, classes=POSITIVE_FIRST), COSTLY, threshold_choice=choice, rng=1)
        fold = _dealt_folds(y.size, k, 1)
        assert np.bincount(fold).max() - np.bincount(fold).min() <= 1
        for m in a.models:  # the thresholds of the flipped labels, on the same folds
            chosen = [_midpoint_rule(flipped[fold != f], scores[m.name][fold != f], COSTLY) for f in range(k)]
            assert next(n for n in b.models if n.name == m.name).fold_thresholds == tuple(chosen if choice == "crossfit" else chosen[1:])


def _binormal_optimism(choice, items, test_sets, seed):
    """Reported yield minus the population yield of the chosen thresholds, per test set, on a
    known population: prevalence 0.3, negatives' scores N(0, 1), positives' N(1.5, 1)."""
    from scipy.special import ndtr  # the normal cdf, which scipy.stats.norm.sf(t) takes at -t

    utility = np.array([[0.0, -1.0], [-4.0, 0.0]])

    def population_yield(t):
        tp, fp = ndtr(1.5 - t), ndtr(-t)
        return 0.3 * (utility[0, 0] * tp + utility[1, 0] * (1 - tp)) + 0.7 * (utility[0, 1] * fp + utility[1, 1] * (1 - fp))

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < test_sets:
        positive = rng.random(items) < 0.3
        if min(positive.sum(), (~positive).sum()) < 5:
            continue
        m = rank_scoring(scored_test_set(positive, {"m": rng.normal(1.5 * positive)}, classes=(True, False)), utility, threshold_choice=choice,
                         rng=int(rng.integers(2**32))).models[0]  # fmt: skip
        out.append(m.utility_yield - np.mean(population_yield(np.array(m.fold_thresholds))))
    return np.array(out)


@pytest.mark.slow
@pytest.mark.parametrize("choice", ["crossfit", "split"])
def test_crossfit_and_split_are_not_optimistic(choice):
    # With stratified folds: +0.0137 +- 0.0023 (crossfit) and +0.0204 +- 0.0030 (split) at 50
    # items (scripts/scoring_optimism.py): z = 6 and 7.
    optimism = _binormal_optimism(choice, 50, 4000, seed=11)
    se = optimism.std(ddof=1) / np.sqrt(optimism.size)
    assert abs(optimism.mean()) < 4 * se, (optimism.mean(), se)


def test_split_chooses_on_one_half_and_evaluates_the_other():
    y, scores = _data(seed=3)
    result = rank_scoring(scored_test_set(y, scores, classes=POSITIVE_FIRST), COSTLY, threshold_choice="split", rng=7)
    half = _dealt_folds(y.size, 2, 7)
    assert result.evaluated_items == int(np.sum(half == 1))
    for m in result.models:
        s, choose, held = scores[m.name], half == 0, half == 1
        best = _midpoint_rule(y[choose], s[choose], COSTLY)
        assert m.utility_yield == pytest.approx(_yield(y[held], s[held], COSTLY, best), abs=1e-12)
        assert m.fold_thresholds == (best,)
    assert "random half" in result.describe_choice() and "seed 7" in result.describe_choice()


def test_a_threshold_chosen_on_the_test_set_is_optimistic():
    # A model without information under a utility where treating nobody yields 0: its best
    # threshold on the test set always finds a lucky stretch (a yield >= 0), while a
    # threshold chosen elsewhere does not, on average.
    test_yields, crossfit_yields = [], []
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        y = (rng.random(200) < 0.2).astype(int)
        test_set = scored_test_set(y, {"noise": rng.random(200)}, classes=POSITIVE_FIRST)
        utility = np.array([[1.0, -0.25], [0.0, 0.0]])  # worth treating above p = 0.2: never on average
        test_yields.append(rank_scoring(test_set, utility, threshold_choice="test").models[0].utility_yield)
        crossfit_yields.append(rank_scoring(test_set, utility, rng=seed).models[0].utility_yield)
    difference = np.array(test_yields) - np.array(crossfit_yields)
    assert min(test_yields) >= 0
    assert difference.mean() > 4 * difference.std(ddof=1) / np.sqrt(difference.size)


def test_auc_disagreement_is_flagged():
    # "early": its top third are all positives, then no better than chance; "smooth": higher
    # AUC, but every threshold lets negatives in. When a false positive costs 4 times a true
    # positive, "early" wins at its best threshold while AUC prefers "smooth".
    rng = np.random.default_rng(4)
    y = np.array([1] * 150 + [0] * 150)
    early = np.where(np.arange(300) < 50, 10 + rng.random(300), rng.random(300))
    smooth = rng.normal(size=300) + 1.2 * y
    test_set = scored_test_set(y, {"early": early, "smooth": smooth}, classes=POSITIVE_FIRST)
    result = rank_scoring(test_set, COSTLY, threshold_choice="test")
    by_name = {m.name: m for m in result.models}
    assert roc_auc_score(y, smooth) > roc_auc_score(y, early)
    assert _brute_best(y, early, COSTLY) > _brute_best(y, smooth, COSTLY)
    assert [m.name for m in result.models] == ["early", "smooth"]
    assert by_name["smooth"].auc_rank == 1 and by_name["early"].auc_rank == 2
    assert result.auc_disagreements == (("early", "smooth"),)
    agreeing = rank_scoring(
        scored_test_set(y, {"smooth": smooth, "worse": smooth + 2 * rng.normal(size=300)}, classes=POSITIVE_FIRST),
        COSTLY,
        threshold_choice="test",
    )
    assert agreeing.auc_disagreements == ()


# --- input and bad input -------------------------------------------------------------------


def test_scores_file(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("true,m,n\nyes,0.9,3\nno,0.2,-1\n\nyes,0.7,2.5\n")
    test_set = load_scores(path, positive="yes")
    assert test_set.classes == ("yes", "no") and test_set.positive.tolist() == [True, False, True]
    assert test_set.scores["n"].tolist() == [3.0, -1.0, 2.5]
    assert load_scores(path, classes=("no", "yes")).positive.tolist() == [False, True, False]


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("true,m\nyes,0.9\nno,abc\n", {}, r"line 3, column 'm': score 'abc' is not a finite number"),
        ("true,m\nyes,0.9\nno,inf\n", {}, r"line 3, column 'm': score 'inf' is not a finite number"),
        ("true,m\nyes,0.9\nno\n", {}, r"line 3: expected 2 fields, got 1"),
        ("truth,m\nyes,0.9\n", {}, r"line 1: no column 'true'"),
        ("true,m\nyes,0.9\nyes,0.1\n", {}, r"only one class"),
        ("true,m\nyes,0.9\nno,0.1\nmaybe,0.3\n", {}, r"3 distinct labels"),
        ("true,m\nyes,0.9\nno,0.1\n", {"positive": "si"}, r"positive: 'si' is not one of the labels"),
        ("true,m\nyes,0.9\nno,0.1\n", {"positive": "yes", "classes": ("no", "si")}, r"label 'yes' is not one of the classes"),
        ("true,m\nyes,0.9\nno,0.1\n", {"positive": None}, r"positive: give the label of the positive class"),
    ],
)
def test_bad_scores_files(tmp_path, text, options, message):
    path = tmp_path / "s.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_scores(path, **({"positive": "yes"} | options))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(utility=np.eye(3)), r"utility: a scoring classifier's problem has 2 classes"),
        (dict(utility=[[1, np.nan], [0, 0]]), r"utility"),
        (dict(threshold_choice="half"), r"threshold_choice"),
        (dict(folds=1), r"folds"),
        (dict(folds=50), r"folds: 50 folds but the smaller class has"),
        (dict(rng=-1), r"seed"),
    ],
)
def test_bad_ranking_input_names_the_parameter(options, message):
    y, scores = _data(items=60)
    with pytest.raises(ValueError, match=message):
        rank_scoring(scored_test_set(y, scores, classes=POSITIVE_FIRST), **({"utility": COSTLY} | options))


# --- the CLI -------------------------------------------------------------------------------


def _file(tmp_path, items=120, seed=5):
    y, scores = _data(items=items, seed=seed)
    path = tmp_path / "scores.csv"
    lines = ["outcome," + ",".join(scores)] + [",".join(["sick" if v else "well", *(repr(float(s[i])) for s in scores.values())])
                                               for i, v in enumerate(y)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path, y, scores


def run(capsys, *argv):
    code = main(["evaluate", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


UTILITY = json.dumps({"utility": COSTLY.tolist(), "classes": ["sick", "well"]})


@pytest.mark.parametrize("choice", ["test", "split", "crossfit"])
def test_cli_ranks_as_the_api(tmp_path, capsys, choice):
    path, y, scores = _file(tmp_path)
    seed = [] if choice == "test" else ["--seed", 2]  # nothing is random in "test": a seed is refused
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--threshold-choice", choice, *seed,
                         "--format", "json")  # fmt: skip
    assert code == 0, err
    data = json.loads(out)["scoring"]
    api = rank_scoring(scored_test_set(np.where(y == 1, "sick", "well"), scores, classes=("sick", "well")), COSTLY,
                       threshold_choice=choice, rng=2)  # fmt: skip
    assert data["threshold_choice"] == choice and data["optimistic"] == (choice == "test")
    assert [m["name"] for m in data["models"]] == [m.name for m in api.models]
    assert [m["utility_yield"] for m in data["models"]] == pytest.approx([m.utility_yield for m in api.models], abs=1e-15)
    assert "decision_curves" not in json.loads(out)


def test_cli_table_says_which_choice_and_flags_auc(tmp_path, capsys):
    path, _, _ = _file(tmp_path)
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--threshold-choice", "test")
    assert code == 0, err
    assert "optimistic" in out and "AUC" in out and "best threshold" in out
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--seed", 1)
    assert code == 0, err
    assert "cross-fitted: 5 folds" in out and "seed 1" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--utility", "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]", "--positive", "sick"], "2x2"),
        (["--utility", UTILITY, "--threshold-choice", "test", "--folds", "3"], "--folds"),
        (["--utility", UTILITY, "--folds", "500"], "--folds: 500 folds"),
        (["--utility", json.dumps(COSTLY.tolist()), "--positive", "sick"], "no natural order"),
        (["--utility", UTILITY, "--classes", "well,sick"], "--classes: 'well', 'sick' but the utility names its classes"),
        ([], "--positive"),
        (["--positive", "sick", "--labels", "x.csv"], "--labels is not an option of --scores"),
    ],
)
def test_cli_bad_input_one_line_exit_2(tmp_path, capsys, argv, message):
    path, _, _ = _file(tmp_path)
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_cli_seed_where_nothing_is_random_is_noted(tmp_path, capsys):
    # A script that always passes a seed must not break where nothing is drawn (issue 25).
    path, _, _ = _file(tmp_path)
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--threshold-choice", "test", "--seed", "3")
    assert code == 0 and err.count("\n") == 1 and "note: --seed not used: nothing is drawn" in err, err
    assert out == run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--threshold-choice", "test")[1]


def test_cli_scores_out_file(tmp_path, capsys):
    path, _, _ = _file(tmp_path)
    out_file = tmp_path / "ranking.csv"
    code, out, err = run(capsys, "--scores", path, "--truth", "outcome", "--utility", UTILITY, "--seed", "3", "--out", out_file)
    assert code == 0 and out == "" and err == f"mcrank evaluate: wrote {out_file}\n"
    assert "rank,model,utility_yield" in out_file.read_text()
