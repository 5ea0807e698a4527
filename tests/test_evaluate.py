"""The evaluate API: ranking by utility yield, metric disagreements, flip probabilities."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import confusion_matrix

from mcrank import evaluate as ev
from mcrank.evaluate import flips as flips_module
from mcrank.evaluate import result as result_module
from mcrank.metrics import score
from mcrank.samplers import perturb_um

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FACTORY = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}  # eqs. (1)-(2) on 100 items
EQ4 = [[15, -335], [-35, 165]]


def _by_name(result):
    return {c.name: c for c in result.classifiers}


# --- the paper's story and the examples ------------------------------------------------------


def test_factory_story_a_is_best_and_most_metrics_say_b():
    result = ev.evaluate(FACTORY, EQ4)
    assert [c.name for c in result.classifiers] == ["A", "B"]
    classifiers = _by_name(result)
    assert classifiers["A"].utility_yield == pytest.approx(3.5)  # eq. (3)
    assert classifiers["B"].utility_yield == pytest.approx(-3.5)
    flagged = {d.metric: d for d in result.disagreements}
    # Table 1: every metric but the true-negative rate favours B.
    for metric_id in ("accuracy", "balanced_accuracy", "precision", "f1", "mcc", "fowlkes_mallows", "tpr"):
        assert flagged[metric_id].flipped == (("A", "B"),)
        assert flagged[metric_id].best == ("B",)
    assert "tnr" not in flagged


def test_factory_and_medical_examples_give_the_papers_yields():
    factory = ev.evaluate_file(EXAMPLES / "factory.json")
    assert [(c.name, c.utility_yield) for c in factory.classifiers] == [("A", pytest.approx(3.5)), ("B", pytest.approx(-3.5))]
    medical = ev.evaluate_file(EXAMPLES / "medical.json")
    # Eq. (6) is eq. (4) shifted by 335 months: A gives 338.5 months, B 331.5.
    assert [(c.name, c.utility_yield) for c in medical.classifiers] == [
        ("A", pytest.approx(338.5)),
        ("B", pytest.approx(331.5)),
    ]
    assert [d.metric for d in medical.disagreements] == [d.metric for d in factory.disagreements]


def test_binary_scores_match_the_metric_library():
    result = ev.evaluate(FACTORY, EQ4)
    assert [mid for mid, _ in result.metrics] == [
        "accuracy", "tpr", "tnr", "precision", "npv", "balanced_accuracy", "f1", "mcc",
        "fowlkes_mallows", "gmean", "informedness", "markedness", "cohen_kappa",
    ]  # fmt: skip
    for c in result.classifiers:
        for metric_id, value in c.scores.items():
            assert value == score(metric_id, np.array(FACTORY[c.name])), (c.name, metric_id)


def test_three_class_example_accuracy_picks_the_wrong_classifier():
    data = json.loads((EXAMPLES / "triage_3class.json").read_text())
    counts = {name: np.array(m, dtype=float) for name, m in data["classifiers"].items()}
    utility = np.array(data["utility"], dtype=float)
    # Independent of the code under test: yield = grand sum of U * C / N, accuracy = trace / N.
    yields = {name: float((utility * c).sum() / c.sum()) for name, c in counts.items()}
    accuracies = {name: float(np.trace(c) / c.sum()) for name, c in counts.items()}
    best_by_utility = max(yields, key=yields.get)
    best_by_accuracy = max(accuracies, key=accuracies.get)
    assert best_by_accuracy != best_by_utility

    result = ev.evaluate_file(EXAMPLES / "triage_3class.json")
    assert result.classifiers[0].name == best_by_utility
    assert [c.name for c in result.classifiers] == sorted(yields, key=yields.get, reverse=True)
    for c in result.classifiers:
        assert c.utility_yield == pytest.approx(yields[c.name], rel=1e-12)
        assert c.scores["accuracy"] == pytest.approx(accuracies[c.name], rel=1e-12)
    flagged = {d.metric: d for d in result.disagreements}
    assert flagged["accuracy"].best == (best_by_accuracy,)
    assert (best_by_utility, best_by_accuracy) in flagged["accuracy"].flipped
    # As the example's description says, accuracy reverses the whole ranking (so micro F1,
    # equal to it, does too).
    assert sorted(accuracies, key=accuracies.get) == sorted(yields, key=yields.get, reverse=True)
    for metric_id in ("accuracy", "micro_f1", "mcc"):
        assert len(flagged[metric_id].flipped) == 3
    assert "balanced_accuracy" not in flagged
    assert set(result.classifiers[0].scores) == {
        "accuracy",
        "balanced_accuracy",
        "macro_f1",
        "micro_f1",
        "mcc",
        "cohen_kappa",
        "macro_precision",
    }


def test_uncertain_example_ranks_by_the_expected_matrix():
    result = ev.evaluate_file(EXAMPLES / "factory_uncertain.json", samples=2000, rng=3)
    # Halfway between eqs. (4) and (5).
    np.testing.assert_allclose(result.utility.matrix, [[30, -335], [-50, 165]])
    yields = {c.name: c.utility_yield for c in result.classifiers}
    assert yields == {"C": pytest.approx(21.5), "A": pytest.approx(4.1), "B": pytest.approx(1.9)}
    assert result.utility.sd == 0.1 and result.pairs is not None and len(result.pairs) == 3


def test_every_example_runs():
    names = sorted(p.name for p in EXAMPLES.glob("*.json"))
    assert len(names) >= 4
    for path in EXAMPLES.glob("*.json"):
        if "cells" in json.loads(path.read_text()):  # a per-item utility for a table of labels (fraud_per_item.json)
            from mcrank.evaluate.per_item import parse_affine

            utility = parse_affine(json.loads(path.read_text()), source=path.name)
            assert utility.classes and utility.decisions
            continue
        if "classifiers" not in json.loads(path.read_text()):  # a utility for a file of labels (wine_utility.json)
            assessment, classes = ev.read_utility(path)
            assert classes is not None and assessment.matrix.shape == (len(classes), len(classes))
            continue
        result = ev.evaluate_file(path, samples=1000, rng=0)
        json.dumps(result.to_dict(), allow_nan=False)


# --- ranking details -------------------------------------------------------------------------


def test_ties_share_a_rank_and_count_as_disagreement_when_a_metric_splits_them():
    # Same total utility under the identity, different TPR/TNR balance.
    confusions = {"P": [[40, 10], [10, 40]], "Q": [[45, 15], [5, 35]], "R": [[40, 10], [10, 40]]}
    result = ev.evaluate(confusions, [[1, 0], [0, 1]], sd=0.05, samples=1000, rng=1)
    assert {c.name: c.rank for c in result.classifiers} == {"P": 1, "Q": 1, "R": 1}
    flagged = {d.metric: d for d in result.disagreements}
    assert "accuracy" not in flagged
    assert ("P", "Q") in flagged["tpr"].tied and ("P", "R") not in flagged["tpr"].tied
    assert all(p.flip_probability is None for p in result.pairs)


def test_undefined_metric_is_reported_not_ranked():
    # "never" never outputs class 0: its precision is 0/0.
    confusions = {"never": [[0, 0], [30, 70]], "some": [[20, 10], [10, 60]]}
    result = ev.evaluate(confusions, [[1, 0], [0, 1]])
    never = _by_name(result)["never"]
    assert np.isnan(never.scores["precision"]) and never.ranks["precision"] is None
    flagged = {d.metric: d for d in result.disagreements}
    assert flagged["precision"].undefined == (("some", "never"),)
    assert result.to_dict()["classifiers"][1]["scores"]["precision"] is None


def test_one_classifier_is_fine():
    result = ev.evaluate({"only": [[5, 1], [2, 7]]}, [[1, 0], [0, 2]], sd=0.1, samples=100, rng=0)
    assert result.classifiers[0].rank == 1 and result.disagreements == () and result.pairs == ()


def test_metrics_can_be_chosen_by_id_or_alias():
    result = ev.evaluate(FACTORY, EQ4, metrics=["recall", "f1"])
    assert [mid for mid, _ in result.metrics] == ["tpr", "f1"]
    with pytest.raises(ValueError, match="^metrics: unknown metric 'auc'"):
        ev.evaluate(FACTORY, EQ4, metrics=["auc"])
    with pytest.raises(ValueError, match="^metrics: unknown metric 'f1' for 3 classes"):
        ev.evaluate({"A": np.eye(3) + 1}, np.eye(3), metrics=["f1"])
    with pytest.raises(ValueError, match="^metrics: unknown metric 'bogus' for 2 classes"):  # a KeyError before
        ev.evaluate_predictions([0, 1, 0, 1], {"A": [0, 1, 1, 1]}, EQ4, classes=[0, 1], metrics=["bogus"])


@pytest.mark.parametrize(
    ("confusions", "utility", "metrics", "match"),
    [
        (FACTORY, EQ4, ["accuracy", "accuracy"], "^metrics: metric 'accuracy' is listed twice$"),
        (FACTORY, EQ4, ["recall", "f1", "tpr"], r"metric 'tpr' is listed twice \(as 'recall' and 'tpr'\)"),
        ({"A": np.eye(3) + 1}, np.eye(3), ["mcc", "accuracy", "mcc"], "metric 'mcc' is listed twice"),
    ],
)
def test_a_metric_listed_twice_is_refused(confusions, utility, metrics, match):
    # As `mcrank run` refuses it (StudyConfig); it was silently dropped.
    with pytest.raises(ValueError, match=match):
        ev.evaluate(confusions, utility, metrics=metrics)


@pytest.mark.parametrize("metrics", ["accuracy", b"accuracy", 5])
def test_metrics_must_be_a_list_not_one_name(metrics):
    # A string was taken as its letters: KeyError: unknown metric 'a'.
    with pytest.raises(TypeError, match="metrics must be a list of metric ids, got "):
        ev.evaluate(FACTORY, EQ4, metrics=metrics)
    assert [mid for mid, _ in ev.evaluate(FACTORY, EQ4, metrics=("accuracy",)).metrics] == ["accuracy"]


def test_to_dict_shape():
    d = ev.evaluate(FACTORY, EQ4, classes=["long", "short"]).to_dict()
    assert [c["name"] for c in d["classifiers"]] == ["A", "B"]
    assert set(d["classifiers"][0]) >= {"name", "utility_yield", "scores"}
    assert d["disagreements"][0]["metric"] == "accuracy" and d["disagreements"][0]["flipped"] == [["A", "B"]]
    assert "pairs" not in d
    assert d["test_set"] == {"items": 100, "class_totals": {"long": 50, "short": 50}}


# --- label arrays ----------------------------------------------------------------------------


def test_confusions_from_labels_is_sklearn_transposed():
    rng = np.random.default_rng(5)
    labels = np.array(["cat", "dog", "emu"])
    y_true = labels[rng.integers(0, 3, 200)]
    predictions = {name: (y_true, labels[rng.integers(0, 3, 200)]) for name in ("X", "Y")}
    confusions, classes = ev.confusions_from_labels(predictions)
    assert classes == ("cat", "dog", "emu")
    for name, (t, p) in predictions.items():
        sk = confusion_matrix(t, p, labels=list(classes))  # true class in rows
        np.testing.assert_array_equal(confusions[name], sk.T)
    # Output rows: column "cat" holds the items whose true class is cat.
    np.testing.assert_array_equal(confusions["X"].sum(axis=0), [np.sum(y_true == c) for c in classes])
    result = ev.evaluate(confusions, np.eye(3), classes=classes)
    assert result.classes == classes


def test_confusions_from_labels_rejects_unknown_labels():
    with pytest.raises(ValueError, match="y_pred has label 'z'"):
        ev.confusions_from_labels({"A": (["a", "b"], ["a", "z"])}, classes=["a", "b"])


# --- CSV input -------------------------------------------------------------------------------


def test_csv_with_names_and_with_indices_equal_json(tmp_path):
    rows = ["classifier,output,true,count"]
    for name, matrix in FACTORY.items():
        for i, row in enumerate(matrix):
            for j, count in enumerate(row):
                rows.append(f"{name},{['long', 'short'][i]},{['long', 'short'][j]},{count}")
    named = tmp_path / "named.csv"
    named.write_text("\n".join(rows) + "\n")
    loaded = ev.load_input(named)
    assert loaded.classes == ("long", "short")
    for name, matrix in FACTORY.items():
        np.testing.assert_array_equal(loaded.confusions[name], matrix)
    indexed = tmp_path / "indexed.csv"
    indexed.write_text("true,output,classifier,count\n0,0,A,27\n1,0,A,15\n0,1,A,23\n1,1,A,35\n")
    loaded = ev.load_input(indexed)
    assert loaded.classes is None
    np.testing.assert_array_equal(loaded.confusions["A"], FACTORY["A"])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ev.evaluate_file(None), r"path must be the path of a file \(str or Path\), got None"),
        (lambda: ev.load_input(b"factory.json"), r"path must be the path of a file \(str or Path\), got b'factory.json'"),
        (lambda: ev.evaluate_file(EXAMPLES / "factory.json", utility=5), "utility must be JSON text or the path of a JSON file"),
    ],
)
def test_a_path_that_is_not_one_is_a_clear_type_error(call, match):
    # pathlib's "expected str, bytes or os.PathLike object, not NoneType" named no argument.
    with pytest.raises(TypeError, match=match):
        call()


def test_utility_file_as_a_path(tmp_path):
    path = tmp_path / "[eq6].json"  # a path, even one that starts like JSON, is read as a file
    path.write_text("[[350, 0], [300, 500]]")
    utility, _ = ev.read_utility(path)
    assert utility.source == str(path)
    result = ev.evaluate_file(EXAMPLES / "factory.json", utility=path)
    assert result.classifiers[0].utility_yield == pytest.approx(338.5)


def test_csv_class_order_from_the_utility(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("classifier,output,true,count\nA,short,short,35\nA,long,long,27\nA,long,short,15\nA,short,long,23\n")
    assert ev.load_input(path).classes == ("short", "long")  # order of first appearance
    loaded = ev.load_input(path, classes=("long", "short"))
    np.testing.assert_array_equal(loaded.confusions["A"], FACTORY["A"])


# --- the Monte Carlo flip probability --------------------------------------------------------


def _three_classifiers():
    rng = np.random.default_rng(2024)
    true_totals = np.array([300, 200, 100])
    confusions = {}
    for name in ("A", "B", "C"):
        confusions[name] = np.stack([rng.multinomial(t, rng.dirichlet([6, 2, 2])) for t in true_totals], axis=1)
    return confusions


def test_gaussian_flip_probability_matches_the_normal_cdf():
    confusions = _three_classifiers()
    utility = np.array([[4.0, -1.0, -3.0], [0.0, 3.0, -2.0], [-1.0, 1.0, 5.0]])
    sd, samples = 0.3, 100_000
    result = ev.evaluate(confusions, utility, sd=sd, error="gaussian", samples=samples, rng=12345, method="monte carlo")
    normalised = (utility - utility.min()) / (utility.max() - utility.min())
    assert len(result.pairs) == 3
    for pair in result.pairs:
        delta = (confusions[pair.better] - confusions[pair.worse]) / 600
        mean = np.sum(normalised * delta)
        assert mean > 0
        # d' = sum((U + E) * delta) is normal with sd sd * ||delta||_F; flip when d' <= 0.
        expected = norm.cdf(-mean / (sd * np.linalg.norm(delta)))
        se = np.sqrt(expected * (1 - expected) / samples)
        assert 0.01 < expected < 0.5  # a non-trivial check
        assert abs(pair.flip_probability - expected) < 4 * se, (pair, expected)
        assert pair.standard_error == pytest.approx(se, rel=0.05)
    # ... and the default, the closed form, is that probability exactly.
    exact = ev.evaluate(confusions, utility, sd=sd)
    assert exact.method == "closed form" and exact.samples is None and exact.seed is None
    for pair in exact.pairs:
        delta = (confusions[pair.better] - confusions[pair.worse]) / 600
        expected = norm.cdf(-np.sum(normalised * delta) / (sd * np.linalg.norm(delta)))
        assert pair.flip_probability == pytest.approx(expected, rel=1e-12, abs=1e-300)
        assert pair.standard_error is None and pair.flips is None


def test_truncated_flip_probability_matches_plain_rejection():
    confusions = _three_classifiers()
    utility = np.array([[1.0, 0.2, 0.0], [0.3, 0.9, 0.1], [0.1, 0.2, 0.8]])  # already normalised
    sd, samples = 0.2, 40_000
    result = ev.evaluate(confusions, utility, sd=sd, error="truncated", samples=samples, rng=7)
    # An independent sampler: gaussian draws, whole matrix rejected unless 0 <= U' <= 1 and
    # each diagonal element is the largest of its column.
    rng = np.random.default_rng(99)
    accepted = []
    while sum(len(a) for a in accepted) < samples:
        draws = utility + sd * rng.standard_normal((50_000, 3, 3))
        diagonal = np.diagonal(draws, axis1=1, axis2=2)[:, None, :]
        keep = np.all((draws >= 0) & (draws <= 1) & (draws <= diagonal), axis=(1, 2))
        accepted.append(draws[keep])
    reference_draws = np.concatenate(accepted)[:samples]
    for pair in result.pairs:
        delta = (confusions[pair.better] - confusions[pair.worse]) / 600
        reference = np.mean(np.sum(reference_draws * delta, axis=(1, 2)) <= 0)
        se = np.sqrt(2 * max(reference * (1 - reference), 1e-4) / samples)
        assert abs(pair.flip_probability - reference) < 4 * se, (pair, reference)


def test_monte_carlo_is_reproducible_and_records_its_seed():
    confusions = _three_classifiers()
    utility = np.eye(3)
    first = ev.evaluate(confusions, utility, sd=0.2, samples=5000, rng=42, method="monte carlo")
    again = ev.evaluate(confusions, utility, sd=0.2, samples=5000, rng=42, method="monte carlo")
    assert first.seed == 42 and [p.flips for p in first.pairs] == [p.flips for p in again.pairs]
    fresh = ev.evaluate(confusions, utility, sd=0.2, samples=5000, rng=None, method="monte carlo")
    replay = ev.evaluate(confusions, utility, sd=0.2, samples=5000, rng=fresh.seed, method="monte carlo")
    assert [p.flips for p in fresh.pairs] == [p.flips for p in replay.pairs]
    given = ev.evaluate(confusions, utility, sd=0.2, samples=5000, rng=np.random.default_rng(0), method="monte carlo")
    assert given.seed is None


@pytest.mark.parametrize("error", ["gaussian", "truncated"])
def test_chunks_give_the_same_numbers(monkeypatch, error):
    confusions = _three_classifiers()
    whole = ev.evaluate(confusions, np.eye(3), sd=0.3, error=error, samples=3001, rng=8, method="monte carlo")
    monkeypatch.setattr(flips_module, "_CHUNK_ELEMENTS", 9 * 250)  # 187 matrices (and 3 yields each) per chunk
    chunked = ev.evaluate(confusions, np.eye(3), sd=0.3, error=error, samples=3001, rng=8, method="monte carlo")
    assert [p.flips for p in whole.pairs] == [p.flips for p in chunked.pairs]


def _many_classifiers(count, seed=3):
    """Binary confusion matrices of ``count`` classifiers on one test set of 50 + 50 items."""
    rng = np.random.default_rng(seed)
    hits = rng.integers(0, 51, size=(count, 2))
    return {f"c{k}": [[a, 50 - b], [50 - a, b]] for k, (a, b) in enumerate(hits)}


def test_many_classifiers_match_all_pairs_compared_at_once(monkeypatch):
    confusions = _many_classifiers(40)
    monkeypatch.setattr(flips_module, "_CHUNK_ELEMENTS", 100)  # 2 samples per chunk
    result = ev.evaluate(confusions, EQ4, sd=0.3, samples=2001, rng=8, metrics=["accuracy"], method="monte carlo")
    # The same perturbed matrices (seed 8's stream of the utility's errors, the child (1, 0) of
    # its SeedSequence: mcrank._rng), every pair compared over every sample at once.
    stream = np.random.default_rng(np.random.SeedSequence(8, spawn_key=(1, 0)))
    perturbed = perturb_um(result.normalised_utility, 0.3, size=2001, rng=stream).reshape(2001, -1)
    yields = {name: perturbed @ (np.ravel(c) / 100) for name, c in confusions.items()}
    assert len(result.pairs) == 40 * 39 // 2
    compared = [p for p in result.pairs if p.flips is not None]  # not tied under EQ4
    assert len(compared) > 700
    for pair in compared:
        assert pair.flips == np.sum(yields[pair.better] <= yields[pair.worse]), pair


def _brute_force(confusions, utility, metric_id):
    """Ranks and disagreement lists of one metric, pair by pair in plain Python, from the
    definitions: yields compared exactly (integer utilities and counts), metric values with
    the documented tolerance of 1e-12 relative to max(1, |a|, |b|)."""
    names = list(confusions)
    totals = {n: sum(utility[i][j] * confusions[n][i][j] for i in range(2) for j in range(2)) for n in names}
    values = {n: float(score(metric_id, confusions[n])) for n in names}

    def sign(a, b):
        if abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b)):
            return 0
        return 1 if a > b else -1

    rank = {n: 1 + sum(totals[m] > totals[n] for m in names) for n in names}
    defined = [m for m in names if not np.isnan(values[m])]
    metric_rank = {n: None if np.isnan(values[n]) else 1 + sum(sign(values[m], values[n]) > 0 for m in defined) for n in names}
    order = sorted(names, key=lambda n: (rank[n], -totals[n], names.index(n)))
    flipped, tied, undefined = [], [], []
    for a, first in enumerate(order):
        for second in order[a + 1 :]:
            if np.isnan(values[first]) or np.isnan(values[second]):
                undefined.append((first, second))
                continue
            by_utility = (totals[first] > totals[second]) - (totals[first] < totals[second])
            by_metric = sign(values[first], values[second])
            if by_utility != by_metric:
                (flipped if by_utility * by_metric < 0 else tied).append((first, second))
    return rank, metric_rank, flipped, tied, undefined


@pytest.mark.parametrize("metric_id", ["accuracy", "precision", "mcc", "f1"])
def test_ranks_and_disagreements_match_every_pair_compared_one_by_one(monkeypatch, metric_id):
    # Few items, so that many yields and metric values tie; a classifier that never outputs
    # class 0, so that precision is undefined for it.
    rng = np.random.default_rng(11)
    confusions = {
        f"c{k}": [[int(a), 6 - int(b)], [4 - int(a), int(b)]]
        for k, (a, b) in enumerate(zip(rng.integers(0, 5, 70), rng.integers(0, 7, 70)))
    }
    confusions["never"] = [[0, 0], [4, 6]]
    utility = [[3, 1], [0, 2]]
    monkeypatch.setattr(result_module, "_RANK_BLOCK", 100)  # ranks computed a block of rows at a time
    result = ev.evaluate(confusions, utility, metrics=[metric_id])
    rank, metric_rank, flipped, tied, undefined = _brute_force(confusions, utility, metric_id)
    assert {c.name: c.rank for c in result.classifiers} == rank
    assert {c.name: c.ranks[metric_id] for c in result.classifiers} == metric_rank
    (found,) = [d for d in result.disagreements if d.metric == metric_id] or [None]
    assert found is not None and len(found.flipped) > 10 and len(found.tied) > 10
    assert (list(found.flipped), list(found.tied), list(found.undefined)) == (flipped, tied, undefined)


@pytest.mark.parametrize("classifiers, samples", [(1, 7), (2, 1), (7, 255), (9, 256), (12, 257), (30, 700)])
def test_flip_counting_kernel_counts_ties_as_flips_across_tiles(classifiers, samples):
    # Small integer yields: many exact ties, which count as "not strictly ahead".
    yields = np.random.default_rng(samples).integers(0, 4, size=(classifiers, samples)).astype(float)
    flips = np.zeros(classifiers * (classifiers - 1) // 2, dtype=np.int64)
    flips_module._count_not_ahead(yields, flips)
    expected = [np.sum(yields[b] >= yields[a]) for a in range(classifiers) for b in range(a + 1, classifiers)]
    assert flips.tolist() == expected


def test_flip_counts_work_in_bounded_memory():
    # 60 classifiers, 1770 pairs, 20000 samples: comparing every pair over a whole chunk at
    # once took 600 MB (8.5 GB for 100 classifiers and 100000 samples). The work space is now
    # a few arrays of _CHUNK_ELEMENTS, whatever the numbers of pairs and samples.
    confusions = _many_classifiers(60)
    tracemalloc.start()
    try:
        result = ev.evaluate(confusions, EQ4, sd=0.1, samples=20_000, rng=1, metrics=["accuracy"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.pairs) == 1770
    assert peak < 8 * 8 * flips_module._CHUNK_ELEMENTS, f"{peak / 2**20:.0f} MiB"


def test_huge_sd_gives_coin_flips_without_overflow():
    # sd = 1e308 overflowed U + sd * Z to inf, and the yields to NaN with a RuntimeWarning
    # (an error here); the ranking under such errors is that of the errors alone.
    confusions = _three_classifiers()
    flips = {}
    for sd in (1e20, 1e300, 1e308, np.finfo(float).max):
        result = ev.evaluate(confusions, np.eye(3), sd=sd, samples=20_000, rng=5, method="monte carlo")
        flips[sd] = [p.flips for p in result.pairs]
        assert result.utility.sd == sd
    assert len({tuple(f) for f in flips.values()}) == 1
    for pair in result.pairs:
        assert abs(pair.flip_probability - 0.5) < 4 * pair.standard_error


def test_sd_refers_to_the_normalised_matrix():
    confusions = _three_classifiers()
    small = ev.evaluate(confusions, np.eye(3), sd=0.2, samples=4000, rng=1, method="monte carlo")
    scaled = ev.evaluate(confusions, 1000 * np.eye(3) - 7, sd=0.2, samples=4000, rng=1, method="monte carlo")
    assert [p.flips for p in small.pairs] == [p.flips for p in scaled.pairs]
    exact, exact_scaled = (ev.evaluate(confusions, u, sd=0.2) for u in (np.eye(3), 1000 * np.eye(3) - 7))
    assert [p.flip_probability for p in exact.pairs] == pytest.approx([p.flip_probability for p in exact_scaled.pairs], rel=1e-12)


# --- bad input through the API (the CLI tests cover every case) ------------------------------


@pytest.mark.parametrize(
    ("confusions", "utility", "kwargs", "match"),
    [
        ({"A": [[1, 2, 3], [4, 5, 6]]}, np.eye(2), {}, "classifier 'A': not square: 2 rows but row 0 has 3 entries"),
        ({"A": [[1, 2], [3, 4]], "B": np.ones((3, 3))}, np.eye(2), {}, "'B'.* is 3x3 but that of classifier 'A' is 2x2"),
        ({"A": [[1, -2], [3, 4]]}, np.eye(2), {}, r"row 0 \(output '0'\), column 1 \(true '1'\): count -2 is negative"),
        ({"A": [[1, 2.5], [3, 4]]}, np.eye(2), {}, "not a whole number"),
        ({"A": [[1, np.nan], [3, 4]]}, np.eye(2), {}, "is NaN"),
        ({"A": [[1, 2], [np.inf, 4]]}, np.eye(2), {}, "is infinite"),
        ({"A": [[10**400, 2], [3, 4]]}, np.eye(2), {}, "classifier 'A', row 0, column 0: a number too large for a floating-point number"),
        ({"A": [[1, 2], [3, 2**53 + 1]]}, np.eye(2), {}, r"count 9.0072e\+15 is too large: counts above 2\*\*53 - 1"),
        ({"A": [[1, 2], [3, 4]]}, [[10**400, 0], [0, 1]], {}, "utility, row 0, column 0: a number too large for a floating-point number"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"sd": 10**400}, "sd must be finite, got a number too large"),
        ({"A": [[1, 2], [3, 4]], "B": [[2, 2], [3, 4]]}, np.eye(2), {}, "not tested on the same test set"),
        ({"A": [[0, 0], [0, 0]]}, np.eye(2), {}, "all zeros"),
        ({"x\ny": [[1, 2], [3, 4]]}, np.eye(2), {}, r"classifier name 'x\\ny' contains the control character '\\n'"),
        ({" ": [[1, 2], [3, 4]]}, np.eye(2), {}, r"a classifier name is empty \(' '\)"),
        ({1: [[1, 2], [3, 4]]}, np.eye(2), {}, "classifier name 1 is not a string"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"classes": ["a", "b\r"]}, r"class name 'b\\r' contains the control character"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(3), {}, "utility matrix is 3x3 but the confusion matrices are 2x2"),
        ({"A": [[1, 2], [3, 4]]}, np.ones((2, 2)), {}, "constant"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"classes": ["a", "b", "c"]}, "3 class names but"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"error": "truncated"}, "needs an error sd"),
        ({"A": [[1, 2], [3, 4]]}, [[0, 1], [1, 0]], {"sd": 0.1, "error": "truncated"}, "column 0 .* row 1"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"sd": -1}, "positive"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"sd": 0.1, "samples": 0}, "samples must be"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"sd": 0.1, "samples": 10**10}, "samples must be a whole number from 1 to 1,000,000,000"),
        ({"A": [[1, 2], [3, 4]]}, np.eye(2), {"rng": -3}, "seed must be a non-negative integer"),
    ],
)
def test_bad_input_raises_value_error_naming_the_place(confusions, utility, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ev.evaluate(confusions, utility, **kwargs)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ({"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [1.5, -0.5]}, r"probabilities\[1\] = -0.5"),
        ({"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [0.5, 0.4]}, "sum to 0.9, not 1"),
        ({"matrices": [[[1, 0], [0, 1]], [[0, 1], [1, 0]]], "probabilities": [0.5, 0.5]}, "expected utility matrix is constant"),
        ({"matrices": [[[1, 0], [0, 1]], np.eye(3).tolist()], "probabilities": [0.5, 0.5]}, r"matrices\[1\] is 3x3"),
        ({"matrix": [[1, 0], [0, 1]], "sd": 0.1, "eror": "gaussian"}, "unknown key 'eror'"),
        ({"matrix": [[1, 0], [0, 1]], "error": "uniform"}, "unknown error model 'uniform'"),
        ([[1, "x"], [0, 1]], r"row 0, column 1: 'x' is not a number"),
        ([[1, 0], [0]], "not square"),
    ],
)
def test_bad_utilities(value, match):
    with pytest.raises(ValueError, match=match):
        ev.parse_utility(value)


def test_deep_nesting_is_a_value_error_not_a_recursion_error():
    deep = [[1.0]]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValueError, match="utility, row 0, column 0: a list is not a number"):
        ev.parse_utility(deep)
    with pytest.raises(ValueError, match="--utility: nested too deeply to read"):
        ev.read_utility("[" * 100_000)


def test_expected_matrix_is_eq_17():
    assessment = ev.parse_utility({"matrices": [EQ4, [[45, -335], [-65, 165]]], "probabilities": [0.25, 0.75]})
    np.testing.assert_allclose(assessment.matrix, [[37.5, -335], [-57.5, 165]])


def test_rounding_does_not_break_a_tie():
    from fractions import Fraction

    utility = [[0.1, 0.2], [0.3, 0.7]]
    confusions = {"A": [[35, 5], [5, 35]], "B": [[20, 11], [20, 29]]}
    exact = {
        name: sum(Fraction(str(u)) * c for urow, crow in zip(utility, m) for u, c in zip(urow, crow)) for name, m in confusions.items()
    }
    assert exact["A"] == exact["B"]
    assert sum(u * c for urow, crow in zip(utility, confusions["B"]) for u, c in zip(urow, crow)) != float(exact["A"])
    result = ev.evaluate(confusions, utility)
    assert [c.rank for c in result.classifiers] == [1, 1]
    flagged = {d.metric: d for d in result.disagreements}
    assert flagged["accuracy"].tied == (("A", "B"),) and flagged["accuracy"].flipped == ()


def test_whole_utilities_compare_exactly_even_one_item_apart_in_2_to_the_40():
    # Two classifiers one item apart on 2**40 items were ranked equal by an undocumented
    # relative tolerance of 1e-12. Whole utilities give exact totals: compared exactly.
    half = 2**39
    confusions = {"A": [[half, 0], [0, half]], "B": [[half - 1, 0], [1, half]]}
    result = ev.evaluate(confusions, [[1, 0], [0, 1]], metrics=["tpr"])
    assert [(c.name, c.rank) for c in result.classifiers] == [("A", 1), ("B", 2)]
    # Fractional utilities: totals within TIE_TOLERANCE of max|U| N tie, as documented.
    assert 0.5 <= ev.TIE_TOLERANCE * 0.75 * 2**40
    result = ev.evaluate(confusions, [[0.75, 0.25], [0.25, 0.75]], metrics=["tpr"])
    assert [(c.name, c.rank) for c in result.classifiers] == [("A", 1), ("B", 1)]
    assert ev.TIE_TOLERANCE == 1e-12 and "TIE_TOLERANCE" in ev.evaluate.__doc__


def test_progress_bar_of_the_monte_carlo_samples(capsys):
    ev.evaluate(FACTORY, EQ4, sd=0.1, samples=3000, rng=1, progress=True, method="monte carlo")
    assert "/3.00k [" in capsys.readouterr().err
    ev.evaluate(FACTORY, EQ4, sd=0.1, samples=3000, rng=1, method="monte carlo")
    assert capsys.readouterr().err == ""


def test_truncated_errors_are_not_centred_as_documented():
    # Normalised eq. (17) matrix of the uncertain example is [[0.73, 0], [0.57, 1]]: the
    # truncated model can only raise U01 = 0 and lower U11 = 1, which favours B over A.
    result = ev.evaluate_file(EXAMPLES / "factory_uncertain.json", error="truncated", samples=20_000, rng=4)
    pair = next(p for p in result.pairs if (p.better, p.worse) == ("A", "B"))
    assert pair.flip_probability > 0.5 + 4 * pair.standard_error
    gaussian = ev.evaluate_file(EXAMPLES / "factory_uncertain.json", samples=20_000, rng=4)
    assert all(p.flip_probability < 0.5 for p in gaussian.pairs)


def test_the_module_example_runs():
    import doctest

    outcome = doctest.testmod(ev, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert outcome.attempted >= 5 and outcome.failed == 0


def test_yields_that_overflow_are_a_value_error_not_a_nan_ranking():
    counts = {"A": [[27, 15], [23, 35]], "B": [[43, 18], [7, 32]]}
    with pytest.raises(ValueError, match="utility yields overflow"):
        ev.evaluate(counts, [[1e308, -1e308], [-1e308, 1e308]])


def test_a_tie_tolerance_beyond_the_largest_float_warns_nothing():
    # max|U| * N overflows although every yield is finite (pytest turns warnings into errors).
    result = ev.evaluate({"A": [[27, 0], [23, 50]], "B": [[43, 0], [7, 50]]}, [[1.0, 1e307], [0.0, 0.0]])
    assert sorted(c.name for c in result.classifiers) == ["A", "B"] and all(c.rank in (1, 2) for c in result.classifiers)


@pytest.mark.parametrize("name", ["factory.json", "medical.json", "triage_3class.json", "factory_uncertain.json"])
def test_the_closed_form_agrees_with_a_numpy_monte_carlo_on_the_examples(name):
    # An independent plain-NumPy Monte Carlo of gaussian errors on the normalised matrix.
    result = ev.evaluate_file(EXAMPLES / name, sd=0.1)
    data = json.loads((EXAMPLES / name).read_text())
    u = result.utility.matrix  # the expected matrix of eq. (17) for the uncertain example
    normalised = (u - u.min()) / (u.max() - u.min())
    samples = 200_000
    perturbed = normalised + 0.1 * np.random.default_rng(2026).standard_normal((samples, *u.shape))
    fractions = {k: np.array(c, dtype=float) / np.sum(c) for k, c in data["classifiers"].items()}
    for pair in result.pairs:
        estimate = np.mean(np.sum(perturbed * (fractions[pair.better] - fractions[pair.worse]), axis=(1, 2)) <= 0)
        se = np.sqrt(max(pair.flip_probability * (1 - pair.flip_probability), 1 / samples) / samples)
        assert abs(estimate - pair.flip_probability) < 4 * se, (pair, estimate)


def test_the_factory_example_flips_with_the_probability_of_the_normal_cdf():
    # Computed here from the example's numbers: A - B = [[-16, -3], [16, 3]] / 100.
    u = np.array([[15, -335], [-35, 165]])
    normalised = (u + 335) / 500
    delta = np.array([[-16, -3], [16, 3]]) / 100
    expected = norm.cdf(-np.sum(normalised * delta) / (0.1 * np.sqrt(np.sum(delta**2))))
    pair = ev.evaluate_file(EXAMPLES / "factory.json", sd=0.1).pairs[0]
    assert (pair.better, pair.worse) == ("A", "B") and round(expected, 4) == 0.2716
    assert pair.flip_probability == pytest.approx(expected, rel=1e-12)


def test_the_method_is_checked():
    with pytest.raises(ValueError, match="the truncated error model has no closed form"):
        ev.evaluate(FACTORY, EQ4, sd=0.1, error="truncated", method="closed form")
    with pytest.raises(ValueError, match="method"):
        ev.evaluate(FACTORY, EQ4, sd=0.1, method="exact")
    assert ev.evaluate(FACTORY, EQ4, sd=0.1, error="truncated", samples=100, rng=1).method == "monte carlo"
