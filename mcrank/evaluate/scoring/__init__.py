"""Scoring classifiers: labels and scores in, a ranking by the utility at each one's best threshold out.

A scoring classifier gives each item a score (often a probability of the positive class);
a threshold turns it into a classifier: output positive when ``score >= threshold``. Each
threshold has its confusion matrix and so its utility yield, eq. (9); what a scoring
classifier is worth under a utility matrix is the yield at its best threshold (published
version, §5, eqs. 20-25). This module reads such a test set (:func:`scored_test_set`,
:func:`load_scores`), computes the area under the ROC curve (:func:`auc_score`) and ranks the
classifiers by their utility at the best threshold (:func:`rank_scoring`), flagging every
pair that AUC orders the other way.

A threshold chosen on the test set is the best *for that test set*: its yield is biased
upwards, more for classifiers with many distinct scores. :func:`rank_scoring` therefore
offers three choices (``threshold_choice``):

- ``"crossfit"`` (default): the items are dealt at random into K folds (not stratified by
  class: stratified folds are optimistic, ``docs/evaluate-scoring.md``); each
  fold's items are decided at the threshold chosen on the other folds; the yield is the mean
  over all items. Every item is used once for evaluation, never by its own choice.
- ``"split"``: the threshold is chosen on a random half (not stratified) and the yield is that
  of the other half.
- ``"test"``: chosen and evaluated on the whole test set: optimistic, and marked so; with
  ``test_uncertainty`` ranked instead by the cross-fitted estimate of those thresholds' yield,
  the centre of their posterior.

All classifiers share the same folds or halves, so their yields stay paired. The utility
matrix is read as at every door of the package (:mod:`mcrank.evaluate.targets`): rows =
decision, columns = true class, in the test set's class order (``classes=`` or the utility's
names: two classes have no natural order); the positive class, the one the scores are
for, picks its column, not which row comes first. ``docs/evaluate-scoring.md``, "Scoring
classifiers", has the CLI.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from mcrank._jit import jit
from mcrank._rng import SCORING_POSTERIOR, resolve_rng, root_of, root_seed_sequence, stream_generator
from mcrank._validation import (
    MAX_EVALUATE_SAMPLES,
    check_choice,
    check_count,
    check_kept_draws,
    check_name,
    check_square,
    columns_input,
    parse_float,
    parse_floats,
)
from mcrank.evaluate.curve_scores import CURVE_SCORES, _checked_scores, _score_array
from mcrank.evaluate.folds import SEPARATED
from mcrank.evaluate.input import label_array, read_csv_columns
from mcrank.evaluate.posterior import SCORING_PRIOR_COUNT, prior_part
from mcrank.evaluate.protocol import ResultProtocol
from mcrank.evaluate.result import DEFAULT_SCORING_SAMPLES, _compare, _competition_ranks, rendering
from mcrank.evaluate.targets import class_order, natural_classes, positive_class, reads_alike, unnamed_order

__all__ = ["THRESHOLD_CHOICES", "ScoredTestSet", "ScoringEvaluation", "ScoringPosterior", "ScoringResult", "auc_score", "folds_used", "inverted_scores_note",
           "load_scores", "rank_scoring", "scored_test_set"]  # fmt: skip

#: How the threshold of each scoring classifier is chosen: see the module docstring.
THRESHOLD_CHOICES = ("crossfit", "split", "test")
#: The measured optimism of ``"test"`` (``scripts/scoring_optimism.py``), said in its output.
TEST_OPTIMISM = ("on a binormal population, by +0.14 per item at 50 items, +0.09 at 100, +0.03 at 500 and +0.008 at 5000, "
                 "against crossfit's and split's 0 within 0.004")  # fmt: skip
#: Folds of ``"crossfit"`` by default.
DEFAULT_FOLDS = 5


@dataclass(frozen=True)
class ScoredTestSet:
    """A test set of a binary problem, item by item: the truth and each model's score.

    Attributes
    ----------
    positive : ndarray of shape (items,), bool
        Whether each item's true class is the positive one.
    scores : dict of str to ndarray of shape (items,), float
        Each model's score of the positive class, higher = more positive, finite.
    classes : tuple of (str, str)
        The labels of the positive and the negative class, in that order.
    source : str
        Where it came from, for messages.
    lines : ndarray of shape (items,), int, or None
        The line of each item in the file it came from, for messages.
    order : tuple of (str, str) or None
        The class order of a utility matrix's rows and columns
        (:func:`mcrank.evaluate.targets.class_order`), None when the labels give none; only a
        utility that reads alike in both is read in the labels' natural order (0/1, booleans).
    order_source : {"given", "utility", "natural"} or None
        Which rule gave ``order``.
    """

    positive: np.ndarray
    scores: dict[str, np.ndarray]
    classes: tuple[str, str]
    source: str = ""
    lines: np.ndarray | None = None
    order: tuple[str, str] | None = None
    order_source: str | None = None

    def where(self, model: str, item: int) -> str:
        """The place of one score, for messages: the file's line and column, or the array's item."""
        if self.lines is None:
            return f"scores[{model!r}]: item {item}"
        return f"{self.source}, line {int(self.lines[item])}, column {model!r}"

    @property
    def items(self) -> int:
        return int(self.positive.size)


def _binary_truth(labels: list, positive, classes, where: str, utility_classes=None):
    """Per item, whether it is positive; the (positive, negative) labels as text; and the class
    order with the rule that gave it (None, None when the labels give none)."""
    distinct = list(dict.fromkeys(labels))
    if len(distinct) > 2:
        raise ValueError(
            f"{where}: {len(distinct)} distinct labels ({', '.join(map(repr, distinct[:5]))}): a scoring classifier's problem has 2 classes"
        )
    if classes is not None or utility_classes is not None:
        if classes is not None and len(classes := tuple(classes)) != 2:
            raise ValueError(f"classes: a scoring classifier's problem has 2 classes, got {len(classes)}")
        order, source = class_order(distinct, 2, classes=classes, utility_classes=utility_classes, where=where)
    else:  # the labels' order, in which only a matrix that reads alike in both is read (_checked_utility)
        order, source = natural_classes(distinct, 2), "natural"
    named = None if source == "natural" else order
    positive = positive_class(distinct, positive=positive, classes=named, where=where)
    candidates = distinct if order is None else list(order)
    is_positive = np.array([v == positive or str(v) == str(positive) for v in candidates])
    if not is_positive.any():
        raise ValueError(f"positive: {positive!r} is not one of the labels of {where} ({', '.join(map(repr, candidates))})")
    present = np.array([any(v == label or str(v) == str(label) for label in distinct) for v in candidates])
    if not ((present & is_positive).any() and (present & ~is_positive).any()):
        raise ValueError(f"{where}: only one class ({distinct[0]!r}) in the test set: positives and negatives are both needed")
    positive, negative = (str(v) for v in (candidates[int(np.argmax(is_positive))], candidates[int(np.argmin(is_positive))]))
    lookup = {v: str(v) == positive for v in distinct}
    order = None if order is None else tuple(map(str, order))
    return np.array([lookup[v] for v in labels], dtype=bool), (positive, negative), order, None if order is None else source


def _check_scores(scores: dict, items: int, source: str = "") -> dict[str, np.ndarray]:
    scores = columns_input(scores, "scores")
    if not isinstance(scores, dict) or not scores:
        raise ValueError("scores: give a non-empty mapping of model names to arrays of scores")
    checked = {}
    for name, values in scores.items():
        check_name(name, "model", source)
        checked[name] = _score_array(values, items, f"scores[{name!r}]", "y_true")
    return checked


def scored_test_set(y_true, scores, *, positive=None, classes=None) -> ScoredTestSet:
    """A checked binary test set from label and score arrays.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels, two distinct values.
    scores : dict of str to array_like of shape (items,)
        Per model, its score of the positive class (e.g. ``predict_proba(X)[:, 1]``), higher
        = more positive; finite.
    positive : label, optional
        The positive class, the one the scores are for. By default the first of ``classes``
        when given, else 1 (or True) when the labels are 0/1, -1/1 or booleans, as
        scikit-learn's ``pos_label``; where both apply and differ, or neither, required
        (:func:`mcrank.evaluate.targets.positive_class`).
    classes : sequence of 2 labels, optional
        The class order of a utility matrix's rows and columns (rows = decision, columns =
        true class). Without it (or a utility with its classes), :func:`rank_scoring`
        refuses a matrix: two classes, even labels 0/1, have no natural order.

    Returns
    -------
    ScoredTestSet

    Raises
    ------
    ValueError
        Naming the parameter: not two classes, an unknown ``positive``, scores of the wrong
        length, NaN or infinite scores.
    """
    labels = label_array(y_true, "y_true").tolist()  # a text label with a NUL refused, not cut
    if not labels:
        raise ValueError("y_true: no items")
    truth, names, order, source = _binary_truth(labels, positive, classes, "y_true")
    return ScoredTestSet(truth, _check_scores(scores, len(labels)), names, "y_true", None, order, source)


def load_scores(path, *, truth: str = "true", positive=None, classes=None, utility_classes=None) -> ScoredTestSet:
    """Read a test set of scores: a CSV file, one row per item.

    The header names the columns: ``truth`` (the true class, a label) and one column per
    model, its score of the positive class (a number; higher = more positive)::

        true,logistic,forest
        malignant,0.93,0.80
        benign,0.12,0.05

    Parameters
    ----------
    path : str or Path
        A CSV file of at most :data:`mcrank.evaluate.MAX_INPUT_BYTES`.
    truth : str, default "true"
        The column of true classes.
    positive : str, optional
        The label of the positive class; by default the first of the named classes, or 1 for
        labels 0/1 (:func:`mcrank.evaluate.targets.positive_class`).
    classes : sequence of 2 str, optional
        The class order of a utility matrix (``--classes``), as named by the user.
    utility_classes : sequence of 2 str, optional
        The utility's own class names: the order when ``classes`` is not given, and equal to
        it when both are.

    Returns
    -------
    ScoredTestSet

    Raises
    ------
    ValueError
        Naming the line and column: no truth column, a column named twice, a row of the
        wrong length, an empty label, a score that is not a finite number, not two classes.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be the path of a file (str or Path), got {path!r}")
    source = os.fspath(path)
    header, table = read_csv_columns(source, truth, models="model columns: give one column of scores per model")
    rows, lines = [], []
    for line, row in table:
        rows.append(row)
        lines.append(line)
    if not rows:
        raise ValueError(f"{source}: no data rows below the header")
    columns = [list(column) for column in zip(*rows)]
    k = header.index(truth)
    if "" in columns[k]:
        raise ValueError(f"{source}, line {lines[columns[k].index('')]}, column {truth!r}: empty label")
    scores = {}
    for name, column in zip(header, columns):
        if name == truth:
            continue
        try:
            values = parse_floats(column)
        except ValueError:
            values = None
        bad = (
            [i for i, cell in enumerate(column) if not _is_number(cell)]
            if values is None
            else np.flatnonzero(~np.isfinite(values)).tolist()
        )
        if bad:
            raise ValueError(f"{source}, line {lines[bad[0]]}, column {name!r}: score {column[bad[0]]!r} is not a finite number")
        scores[name] = values
    positive_mask, names, order, order_source = _binary_truth(columns[k], positive, classes, f"{source}, column {truth!r}",
                                                              utility_classes)  # fmt: skip
    return ScoredTestSet(positive_mask, scores, names, source, np.array(lines), order, order_source)


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(parse_float(text))
    except ValueError:
        return False


# --- AUC --------------------------------------------------------------------------------------


def auc_score(positive, scores) -> float:
    """The area under the empirical ROC curve, by the Mann-Whitney statistic.

    .. math:: \\mathrm{AUC} = \\frac{1}{P N} \\sum_{i \\in +} \\sum_{j \\in -}
              \\left( [s_i > s_j] + \\tfrac12 [s_i = s_j] \\right)

    computed from the average ranks of the scores in O(n log n).

    Parameters
    ----------
    positive : array_like of bool, shape (items,)
        Whether each item is of the positive class.
    scores : array_like of shape (items,)
        Finite scores, higher = more positive.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming the argument: ``positive`` not a 1-d array of booleans (or of 0 and 1), or
        without items of both classes,
        ``scores`` of another length, NaN or infinite scores (the checks of
        :func:`scored_test_set`).
    """
    positive, scores = _checked_scores(positive, scores, "AUC")
    p, n = int(positive.sum()), int((~positive).sum())
    _, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    # The average rank of each distinct value: a tie shares the mean of the ranks it spans.
    average = np.cumsum(counts) - (counts - 1) / 2.0
    rank_sum = float(average[inverse.ravel()][positive].sum())
    return (rank_sum - p * (p + 1) / 2.0) / (p * n)


#: How far below 1/2, in standard errors of AUC when the scores know nothing, every model's AUC
#: must lie for the scores to look inverted (:func:`inverted_scores_note`).
INVERTED_AUC_SE = 4.0


def inverted_scores_note(test_set: ScoredTestSet) -> str | None:
    """A one-line note when every model's AUC lies well below 1/2, or None.

    Scores higher for the negative class (``predict_proba(X)[:, 0]`` given as the scores of
    class 1, or the positive class named wrongly) rank items backwards. "Well below" is more
    than :data:`INVERTED_AUC_SE` standard errors of the AUC of uninformative scores,
    ``sqrt((P + N + 1) / (12 P N))`` (Mann-Whitney, no ties), below 1/2.
    """
    p, n = int(test_set.positive.sum()), int((~test_set.positive).sum())
    limit = 0.5 - INVERTED_AUC_SE * math.sqrt((p + n + 1) / (12.0 * p * n))
    aucs = [auc_score(test_set.positive, scores) for scores in test_set.scores.values()]
    if not all(auc < limit for auc in aucs):
        return None
    shown = ", ".join(f"{auc:.3f}" for auc in aucs[:5]) + (", ..." if len(aucs) > 5 else "")
    return (f"every model's AUC is well below 0.5 ({shown}): are the scores those of the other class? The positive class, "
            f"the one the scores are for, is {test_set.classes[0]!r}")  # fmt: skip


# --- the best threshold -----------------------------------------------------------------------


def _best_threshold(positive: np.ndarray, scores: np.ndarray, utility: np.ndarray) -> tuple[float, float]:
    """The threshold of the largest total utility on these items, and that total.

    Candidates are every distinct score (output positive when ``score >= it``) and +inf
    (never positive): the empirical ROC curve with its two corners. Among equal totals the
    highest threshold wins (fewest positives). The threshold returned lies halfway between
    the chosen score and the next lower one (-inf below the lowest), so that it decides
    these items alike and new items in between by the nearer side.
    """
    order = np.argsort(-scores, kind="stable")
    ranked, is_positive = scores[order], positive[order]
    last = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True))  # last item of each distinct score
    true_positives = np.concatenate(([0], np.cumsum(is_positive)[last]))
    false_positives = np.concatenate(([0], (last + 1) - true_positives[1:]))
    p, n = int(is_positive.sum()), int(is_positive.size - is_positive.sum())
    totals = (utility[0, 0] * true_positives + utility[0, 1] * false_positives
              + utility[1, 0] * (p - true_positives) + utility[1, 1] * (n - false_positives))  # fmt: skip
    k = int(np.argmax(totals))  # the first maximum: the highest threshold
    distinct = ranked[last]
    if k == 0:
        return math.inf, float(totals[0])
    if k == distinct.size:  # positive below the lowest score too
        return -math.inf, float(totals[k])
    return float(_between(distinct[k - 1], distinct[k])), float(totals[k])


def _between(higher, lower):
    """The threshold between adjacent distinct scores ``higher > lower`` (arrays or numbers):
    halfway, so that it decides new items in between by the nearer side; ``higher`` itself where
    adjacent floating-point numbers have no number between them; -inf below the lowest score
    (``lower`` -inf)."""
    middle = (higher + lower) / 2
    return np.where(np.isinf(lower), -np.inf, np.where(middle > lower, middle, higher))


def _total_at(positive, scores, utility, threshold) -> float:
    out = scores >= threshold
    return float(utility[0, 0] * np.sum(out & positive) + utility[0, 1] * np.sum(out & ~positive)
                 + utility[1, 0] * np.sum(~out & positive) + utility[1, 1] * np.sum(~out & ~positive))  # fmt: skip


def _random_folds(items: int, folds: int, rng: np.random.Generator) -> np.ndarray:
    """Each item's fold, 0..folds-1: the items shuffled and dealt in turn (sizes differ by at
    most 1), *not* stratified by class. Stratified folds give the held-out part the class
    balance the threshold was tuned on, so its yield is optimistic; folds of random items are
    independent samples of the population (``docs/evaluate-scoring.md``, "How optimistic is each
    threshold choice?")."""
    fold = np.empty(items, dtype=np.int64)
    fold[rng.permutation(items)] = np.arange(items) % folds
    return fold


# --- the posterior: the Bayesian bootstrap of the evaluated items, with a prior -------------

#: Draws whose item weights are made at once: the weights take ``_DRAW_BLOCK * items`` floats.
_DRAW_BLOCK = 64


@jit
def _weighted_choice_yields(orders, gain, fold, candidate, may_win, cut, last_in_fold, share, whole, weights,
                            base, weight_total, plain_cumulative, plain_base, out_weighted, out_plain, out_whole):  # pragma: no cover - compiled  # fmt: skip
    """The threshold choice re-run on each draw of item weights: its weighted yield as the choice
    evaluates it, and its plain yield on every item.

    For model ``m`` the items are taken in ``orders[m]`` (scores descending), ``gain`` and
    ``fold`` given in that order (``gain = U[0, y] - U[1, y]``, read in sequence, not
    gathered). Each choice ``c``, fold ``c``'s threshold, sums the weighted gain of the items
    that choose it: every item less fold ``c``'s. ``candidate[m, c, j]`` marks the last
    choosing item of a distinct score, a candidate threshold, and ``cut[m, c, j]`` how many
    items that threshold (halfway down to the next choosing score, :func:`_between`)
    puts positive; only where ``may_win[m, j]`` (a positive gain, or a tied score) can a total
    rise above those before it. The largest weighted total wins, the first maximum (the highest threshold);
    never positive (total 0) is the first candidate. Output positive on the first ``k`` items
    adds their gain to the total of output negative everywhere: ``out_weighted`` is the sum over
    choices of the weighted gain of the items of fold ``c`` positive at its cut
    (``last_in_fold[m, f, k]``: the last item of fold ``f`` among the first ``k + 1``, -1 for
    none), plus ``base[d]`` (the weighted base utility of the evaluated items), over
    ``weight_total[d]`` (their weights' sum); ``out_plain`` is the sum over choices of
    ``share[c]`` times the yield of its cut with every weight 1 (``plain_cumulative[m, k]``: the
    plain gain of the first ``k + 1`` items per item; ``plain_base``: the plain base utility per
    item). With ``whole[m]`` (the last item of each distinct score; models x 0 for none) the same
    pass also re-chooses the threshold on every weighted item: ``out_whole`` is its plain yield.
    """
    draws, items = weights.shape
    models, choices = orders.shape[0], candidate.shape[1]
    folds = last_in_fold.shape[1]
    running = np.empty(folds)
    own = np.empty(items)  # the weighted gain of the item's fold up to and with it
    best = np.empty(choices)
    best_cut = np.empty(choices, dtype=np.int64)
    rechoose_whole = whole.shape[1] > 0
    for d in range(draws):
        for m in range(models):
            running[:] = 0.0
            best[:] = 0.0
            best_cut[:] = 0
            total, best_whole, whole_cut = 0.0, 0.0, 0
            for j in range(items):
                g = weights[d, orders[m, j]] * gain[m, j]
                f = fold[m, j]
                total += g
                running[f] += g
                own[j] = running[f]
                if not may_win[m, j]:
                    continue
                if rechoose_whole and whole[m, j] and total > best_whole:
                    best_whole, whole_cut = total, j + 1
                for c in range(choices):
                    if candidate[m, c, j]:
                        chooser = total - running[c]
                        if chooser > best[c]:
                            best[c], best_cut[c] = chooser, cut[m, c, j]
            weighted, plain = base[d], plain_base
            for c in range(choices):
                k = best_cut[c]
                if k > 0:
                    at = last_in_fold[m, c, k - 1]
                    if at >= 0:
                        weighted += own[at]
                    plain += share[c] * plain_cumulative[m, k - 1]
            out_weighted[d, m] = weighted / weight_total[d]
            out_plain[d, m] = plain
            if rechoose_whole:
                out_whole[d, m] = plain_base + (plain_cumulative[m, whole_cut - 1] if whole_cut > 0 else 0.0)


def _choice_layout(scores, order, fold, choices):
    """For one model, its items in ``order`` (scores descending): per fold, the candidate
    thresholds of the items that choose its threshold (the other folds') and how many items each
    puts positive, and the last of the fold's items among the first ``k + 1`` (the arguments of
    :func:`_weighted_choice_yields`)."""
    items, ranked, ranked_fold = scores.size, scores[order], fold[order]
    ascending = ranked[::-1]
    candidate = np.zeros((choices, items), dtype=np.bool_)
    cut = np.zeros((choices, items), dtype=np.int64)
    for c in range(choices):
        chooses = ranked_fold != c
        at = np.flatnonzero(chooses)
        values = ranked[at]
        ends = np.append(values[1:] != values[:-1], True)
        candidate[c, at[ends]] = True
        distinct = values[ends]  # descending
        threshold = _between(distinct, np.append(distinct[1:], -np.inf))
        cut[c, at[ends]] = items - np.searchsorted(ascending, threshold, side="left")
    folds = int(fold.max()) + 1
    position = np.arange(items)
    last_in_fold = np.empty((folds, items), dtype=np.int64)
    for f in range(folds):
        last_in_fold[f] = np.maximum.accumulate(np.where(ranked_fold == f, position, -1))
    return candidate, cut, last_in_fold


def _item_utilities(positive, scores, utility, thresholds, fold) -> np.ndarray:
    """Each item's utility at the threshold that decides it: ``thresholds[fold[i]]`` (one
    threshold: every item's)."""
    truth = (~positive).astype(np.int64)  # class 0 = positive
    threshold = thresholds[0] if fold is None else np.asarray(thresholds)[fold]
    return utility[np.where(scores >= threshold, 0, 1), truth]


class _Rechoice(NamedTuple):
    """The cross-fitted threshold choice laid out for :func:`_weighted_choice_yields`, re-run in
    each draw."""

    #: Its arguments before ``weights``, in order.
    layout: tuple
    #: Each item's utility when output negative, and its mean (the plain base utility per item).
    base: np.ndarray
    plain_base: float
    #: The plain gain of the first ``k + 1`` items of each model's order, per item.
    plain_cumulative: np.ndarray

    def run(self, weights, masses) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each row of ``weights``, per model: the folds' thresholds' weighted held-out yield of
        every item (``masses``: the weights' sum), their plain yield on every item,
        each fold's by its share, and that of the threshold re-chosen on every weighted item
        (where laid out, else not written)."""
        shape = (weights.shape[0], self.layout[0].shape[0])
        weighted, plain, whole = np.empty(shape), np.empty(shape), np.empty(shape)
        _weighted_choice_yields(*self.layout, weights, weights @ self.base, masses, self.plain_cumulative, self.plain_base,
                                weighted, plain, whole)  # fmt: skip
        return weighted, plain, whole


def _rechoice(positive, scores, utility, fold, whole: bool) -> _Rechoice:
    """Every model's cross-fitted threshold choice, each fold's on the other folds' items, laid out
    to be re-run on weighted items; with ``whole`` also the choice on every item."""
    items, models = positive.size, len(scores)
    folds = int(fold.max()) + 1
    truth = (~positive).astype(np.int64)
    gain, base = utility[0, truth] - utility[1, truth], utility[1, truth]
    orders = np.empty((models, items), dtype=np.int64)
    candidate = np.empty((models, folds, items), dtype=np.bool_)
    cut = np.empty((models, folds, items), dtype=np.int64)
    last_in_fold = np.empty((models, folds, items), dtype=np.int64)
    tied = np.empty((models, items), dtype=np.bool_)
    ends = np.zeros((models, items if whole else 0), dtype=np.bool_)
    for m, s in enumerate(scores):
        orders[m] = np.argsort(-s, kind="stable")
        candidate[m], cut[m], last_in_fold[m] = _choice_layout(s, orders[m], fold, folds)
        same = s[orders[m]][1:] == s[orders[m]][:-1]
        tied[m] = np.append(same, False) | np.append(False, same)
        if whole:
            ends[m] = np.append(~same, True)  # the last item of each distinct score
    ordered_gain, ordered_fold = gain[orders], fold[orders]
    may_win = (ordered_gain > 0) | tied
    layout = (orders, ordered_gain, ordered_fold, candidate, may_win, cut, last_in_fold, np.bincount(fold) / items, ends)
    return _Rechoice(layout, base, float(base.mean()), np.cumsum(ordered_gain, axis=1) / items)


def _posterior_draws(positive, scores, utility, item_utilities, fold, choice, samples, prior_count, rng) -> np.ndarray:
    """Draws of each model's population yield at the thresholds chosen, ``samples`` x models.

    ``item_utilities`` (items x models) is each item's utility at the threshold that decides it,
    ``fold`` each item's fold (``"split"``: 0 chooses, 1 evaluates; ``"test"``: the posterior's
    own folds, ``item_utilities`` their cross-fitted decisions). Each draw weighs the items by the
    Bayesian bootstrap (unit exponential weights, the same for every model, so that their draws
    stay paired) and adds the prior's part (:func:`mcrank.evaluate.posterior.prior_part`), the two mixed by their masses,
    the Dirichlet's:

    - ``"split"``: the weighted yield of the evaluated items at the fixed threshold: they took
      no part in choosing it, a sample of the population it will meet.
    - ``"crossfit"``: the items' part is ``estimate - (e* - mean e*)``, ``e*`` the error of the
      whole choice re-run on the weighted items (:func:`_weighted_choice_yields`): its weighted
      held-out yield less its plain yield on every item, the bootstrap's population. Only its
      spread is kept: a held-out item is independent of its fold's threshold, so the error's mean
      is 0, and the bootstrap's mean error is its population's (whose items chose the thresholds).
    - ``"test"``: the same about the cross-fitted estimate, ``e*`` now its error as an estimate of
      the yield of the threshold chosen on every item: the weighted held-out yield less the plain
      yield of the threshold re-chosen on all the weighted items.

    Memory: the draws kept and one block of weights and of the prior's atoms, never items times
    draws.
    """
    items, models = item_utilities.shape
    check_kept_draws(samples, 3 * models)  # fixed, errors and prior below
    counted = (fold == 1 if choice == "split" else np.ones(items, dtype=bool)).astype(float)
    prior_stream = stream_generator(rng, SCORING_POSTERIOR, 1)
    weights_stream = stream_generator(rng, SCORING_POSTERIOR, 0)
    held_out = None if choice == "split" else _rechoice(positive, scores, utility, fold, choice == "test")
    fixed, errors, prior = np.empty((samples, models)), np.zeros((samples, models)), np.empty((samples, models))
    masses, prior_masses = np.empty(samples), np.empty(samples)
    for start in range(0, samples, _DRAW_BLOCK):
        weights = weights_stream.standard_exponential((min(_DRAW_BLOCK, samples - start), items))
        block = slice(start, start + weights.shape[0])
        prior_masses[block], prior[block] = prior_part(weights.shape[0], models, utility, prior_count, prior_stream)
        masses[block] = weights @ counted
        fixed[block] = weights @ (item_utilities * counted[:, None])
        if held_out is not None:
            weighted, plain, whole = held_out.run(weights, masses[block])
            errors[block] = weighted - (whole if choice == "test" else plain)
    if held_out is not None:
        estimate = item_utilities.mean(axis=0)
        fixed = masses[:, None] * (estimate - (errors - errors.mean(axis=0)))
    return (fixed + prior) / (masses + prior_masses)[:, None]


@dataclass(frozen=True)
class ScoringPosterior:
    """How sure the ranking of :func:`rank_scoring` is: its posterior draws, summarised.

    Attributes
    ----------
    samples : int
        Posterior draws (Bayesian bootstrap over the evaluated items with the prior's part).
    seed : int or None
        The root seed (None when a Generator was given).
    intervals : dict of str to (float, float)
        Each model's central 95 % interval of its yield per item.
    probability_above : dict of (str, str) to (float, float)
        For each pair ``(a, b)``, ``a`` ranked above ``b``: the posterior probability that
        ``a``'s yield exceeds ``b``'s (a draw that ties them counts 1/2), and its Monte Carlo SE.
    probability_best : dict of str to (float, float)
        Each model's probability of the highest yield (a tie shares the draw), and its SE.
    optimism : dict of str to float or None
        With thresholds chosen on the items they are scored on (``"test"``): each model's
        optimism, its yield on the test set less the cross-fitted estimate of its threshold's
        yield, of which the draws, and so the intervals and probabilities, are. None otherwise.
    prior_count : float
        The prior's total count (:data:`SCORING_PRIOR_COUNT`).
    chosen : str
        The model ranked first: the choice.
    not_separated : tuple of (str, float)
        The models not separated from ``chosen``, in rank order, each with P(chosen above it):
        by the rule of the fold comparison (:data:`mcrank.evaluate.folds.SEPARATED`), a pair
        is separated when one of its two orders has a probability of at least 0.95.
    """

    samples: int
    seed: int | None
    intervals: dict
    probability_above: dict
    probability_best: dict
    optimism: dict | None = None
    prior_count: float = SCORING_PRIOR_COUNT
    chosen: str = ""
    not_separated: tuple = ()

    @staticmethod
    def from_draws(names: list, order: list, draws: np.ndarray, seed, optimism=None) -> ScoringPosterior:
        samples = draws.shape[0]
        low, high = np.quantile(draws, [0.025, 0.975], axis=0)
        intervals = {names[k]: (float(low[k]), float(high[k])) for k in range(len(names))}
        above = {}
        for i, a in enumerate(order):
            for b in order[i + 1 :]:
                wins = (draws[:, a] > draws[:, b]) + 0.5 * (draws[:, a] == draws[:, b])
                p = float(wins.mean())
                above[(names[a], names[b])] = (p, float(wins.std() / math.sqrt(samples)))
        top = draws == draws.max(axis=1, keepdims=True)
        share = top / top.sum(axis=1, keepdims=True)
        best = {names[k]: (float(share[:, k].mean()), float(share[:, k].std() / math.sqrt(samples))) for k in order}
        optimism = None if optimism is None else {names[k]: float(optimism[k]) for k in order}
        chosen = names[order[0]]
        over = [(names[k], above[(chosen, names[k])][0]) for k in order[1:]]
        unseparated = tuple((name, p) for name, p in over if max(p, 1.0 - p) < SEPARATED)
        return ScoringPosterior(samples, seed, intervals, above, best, optimism, SCORING_PRIOR_COUNT, chosen, unseparated)

    def to_dict(self) -> dict:
        """JSON-ready (:func:`mcrank.evaluate.scoring.report.posterior_dict`)."""
        return rendering(self, "dict")(self)


@dataclass(frozen=True)
class ScoringResult:
    """One scoring classifier under :func:`rank_scoring`.

    Attributes
    ----------
    name : str
    rank : int
        By ``utility_yield`` (1 = best; ties share the best rank).
    utility_yield : float
        Utility per item at the chosen thresholds, evaluated as ``threshold_choice`` says; for
        ``"test"`` with a posterior, the cross-fitted estimate of the yield of ``threshold``, the
        posterior's centre.
    threshold : float
        The best threshold on the whole test set (output positive when ``score >= it``;
        +inf: never, -inf: always), the one to deploy.
    test_set_yield : float
        Its utility per item on the whole test set: optimistic.
    fold_thresholds : tuple of float
        The thresholds chosen per fold (``crossfit``) or on the choice half (``split``).
    auc : float
        Area under the ROC curve (Mann-Whitney).
    auc_rank : int
    curve_scores : dict
        The other threshold-free scores on the whole test set, by id
        (:data:`mcrank.evaluate.curve_scores.CURVE_SCORES`: the H-measure, the average precision).
    """

    name: str
    rank: int
    utility_yield: float
    threshold: float
    test_set_yield: float
    fold_thresholds: tuple
    auc: float
    auc_rank: int
    curve_scores: dict = field(default_factory=dict)


@dataclass(frozen=True, repr=False)
class ScoringEvaluation(ResultProtocol):
    """What :func:`rank_scoring` returns.

    Attributes
    ----------
    models : tuple of ScoringResult
        In rank order.
    auc_disagreements : tuple of (str, str)
        Pairs ``(better, worse)`` by utility yield that AUC orders the other way or ties, or
        that the yield ties and AUC does not.
    threshold_choice : {"crossfit", "split", "test"}
    folds : int or None
        For ``crossfit``, and for ``test`` with a posterior (the folds of its cross-fitted estimate).
    seed : int or None
        Root seed of the split or folds and of the posterior (None for ``test`` without a
        posterior, or when a Generator was given).
    evaluated_items : int
        Items whose utility makes ``utility_yield``: all, or the evaluation half.
    utility : ndarray of shape (2, 2)
        As given: rows = decision, columns = true class, in the order of ``classes``.
    classes : tuple of (str, str)
        The class order of ``utility``.
    items : int
    positive : str
        The positive class: the one the scores are for.
    order_source : {"given", "utility", "natural"}
        Which rule gave the class order (:func:`mcrank.evaluate.targets.class_order`).
    posterior : ScoringPosterior or None
        With ``test_uncertainty=True``: intervals, P(a above b), P(best).
    """

    models: tuple
    auc_disagreements: tuple
    threshold_choice: str
    folds: int | None
    seed: int | None
    evaluated_items: int
    utility: np.ndarray
    classes: tuple
    items: int
    positive: str = ""
    order_source: str = "given"
    posterior: ScoringPosterior | None = None

    @property
    def optimistic(self) -> bool:
        """Whether the yields that rank were evaluated on the items that chose the thresholds
        (``"test"`` without a posterior)."""
        return self.threshold_choice == "test" and self.posterior is None

    def describe_choice(self) -> str:
        """One line: how the thresholds were chosen, for the report."""
        seed = "" if self.seed is None else f", seed {self.seed}"
        if self.threshold_choice == "test" and self.posterior is not None:
            return (f"thresholds chosen on the whole test set; ranked by the cross-fitted estimate of their yield, the posterior's "
                    f"centre ({self.folds} folds of its own, unstratified{seed}): their yield on the test set is optimistic "
                    f"({TEST_OPTIMISM})")  # fmt: skip
        if self.threshold_choice == "test":
            return f"thresholds chosen on the whole test set and evaluated on it: optimistic (biased upwards; {TEST_OPTIMISM})"
        if self.threshold_choice == "split":
            return (
                f"thresholds chosen on a random half of the test set (unstratified{seed}) and evaluated on the other "
                f"{self.evaluated_items} items"
            )
        return f"cross-fitted: {self.folds} folds (unstratified{seed}), each fold's items decided at the thresholds chosen on the others"

    def to_dict(self) -> dict:
        """JSON-ready (:func:`mcrank.evaluate.scoring.report.to_dict`)."""
        return rendering(self, "dict")(self)


def rank_scoring(test_set: ScoredTestSet, utility, *, threshold_choice: str = "crossfit", folds: int = DEFAULT_FOLDS,
                 test_uncertainty: bool = False, samples: int = DEFAULT_SCORING_SAMPLES, rng=None) -> ScoringEvaluation:  # fmt: skip
    """Rank scoring classifiers by their utility yield at the best threshold, beside AUC.

    Parameters
    ----------
    test_set : ScoredTestSet
        From :func:`scored_test_set` or :func:`load_scores`.
    utility : array_like of shape (2, 2)
        Rows = decision, columns = true class, in the test set's class order
        (``test_set.order``); refused when it has none: when the order was not named
        (:func:`mcrank.evaluate.targets.unnamed_order`).
    threshold_choice : {"crossfit", "split", "test"}, default "crossfit"
        Where each classifier's threshold is chosen and its yield evaluated (module
        docstring); ``"test"`` is optimistic.
    folds : int, default 5
        Folds of ``"crossfit"``, and of ``"test"``'s cross-fitted estimate with
        ``test_uncertainty``; at least 2 and at most the size of the smaller class.
    test_uncertainty : bool, default False
        Also the posterior of the yields (:class:`ScoringPosterior`) of the thresholds chosen
        here, on the population: Dirichlet over the evaluated items' joint table (true class,
        every model's output at its threshold) with :data:`SCORING_PRIOR_COUNT`, drawn as the
        Bayesian bootstrap over those items; for ``"crossfit"`` the spread of the error of the
        choice re-run in each draw; for ``"test"`` of the cross-fitted estimate (folds of its own)
        with the spread of its error as an estimate of the yield of the threshold chosen on every
        item, which then ranks the models in place of the optimistic test-set yield: the
        posterior's centre, so that the choice is the one of the highest posterior mean
        (:func:`_posterior_draws`; ``docs/evaluate-scoring.md``, "How sure is the choice of a
        scoring classifier?").
    samples : int, default 2000
        Posterior draws.
    rng : int, SeedSequence, Generator or None
        The split or the folds, and the posterior's stream of its own
        (:data:`mcrank._rng.SCORING_POSTERIOR`); None draws a fresh seed, recorded in the
        result.

    Returns
    -------
    ScoringEvaluation

    Raises
    ------
    ValueError
        Naming the parameter: a utility matrix that is not 2 x 2 or not finite, an unknown
        ``threshold_choice``, ``folds`` out of range, a bad seed.
    """
    given, u = _checked_utility(test_set, utility)
    check_choice(threshold_choice, THRESHOLD_CHOICES, "threshold_choice")
    positive, names = test_set.positive, list(test_set.scores)
    folds, samples = _checked_counts(positive, threshold_choice, folds, test_uncertainty, samples)
    seed, root = None, None
    if threshold_choice != "test" or test_uncertainty:
        if not isinstance(rng, np.random.Generator):
            root = root_seed_sequence(rng)
            seed = int(root.entropy) if root.spawn_key == () else None
            rng = np.random.default_rng(root)
        else:
            rng = resolve_rng(rng)
    fold = None
    if threshold_choice == "crossfit":
        fold = _random_folds(positive.size, folds, rng)
    elif threshold_choice == "split":
        fold = _random_folds(positive.size, 2, rng)  # fold 0 chooses, fold 1 evaluates
    choices = [_chosen_thresholds(positive, test_set.scores[name], u, threshold_choice, fold, folds) for name in names]
    evaluated = int(positive.size if threshold_choice != "split" else np.sum(fold == 1))
    root = root if root is not None or not test_uncertainty else root_of(rng)
    drawn = _posterior_choices(positive, test_set, names, u, threshold_choice, fold, folds, choices, root) if test_uncertainty else None
    # With a posterior, "test" ranks by its centre, the cross-fitted estimate: the test-set yield is optimistic.
    totals = np.array([choice.total for choice in (choices if drawn is None else drawn[1])])
    aucs = np.array([auc_score(positive, test_set.scores[name]) for name in names])
    ranks, auc_ranks, order, disagreements = _ranked(names, totals, aucs, u, evaluated)
    posterior = None
    if test_uncertainty:
        posterior = _posterior(positive, test_set, names, order, u, threshold_choice, drawn, samples, root, seed)
    curve = [{key: float(score(positive, test_set.scores[name])) for key, (_, score) in CURVE_SCORES.items()} for name in names]
    models = tuple(
        ScoringResult(
            names[k],
            ranks[k],
            float(totals[k] / evaluated),
            choices[k].threshold,
            choices[k].test_yield,
            choices[k].chosen,
            float(aucs[k]),
            auc_ranks[k],
            curve[k],
        )
        for k in order
    )
    used_folds = folds if folds_used(threshold_choice, test_uncertainty) else None
    return ScoringEvaluation(models, tuple(disagreements), threshold_choice, used_folds, seed, evaluated, given, test_set.order,
                             test_set.items, test_set.classes[0], test_set.order_source, posterior)  # fmt: skip


def _posterior_choices(positive, test_set, names, u, threshold_choice, fold, folds, choices, root):
    """The folds and the choices the posterior of :func:`rank_scoring` is of, and its optimism per
    model (None but for ``"test"``). For ``"test"`` they are those of the cross-fitted estimate,
    on folds of the posterior's own (stream ``(6, 2)``), so that the folds' numbers of the other
    choices stay those of a run without it: the yield on the test set is optimistic, and the
    bootstrap's correction of it falls short (``docs/evaluate-scoring.md``); its optimism is the
    test-set yield less that estimate."""
    if threshold_choice != "test":
        return fold, choices, None
    fold = _random_folds(positive.size, folds, stream_generator(root, SCORING_POSTERIOR, 2))
    crossfit = [_chosen_thresholds(positive, test_set.scores[name], u, "crossfit", fold, folds) for name in names]
    optimism = np.array([choice.total - held.total for choice, held in zip(choices, crossfit)]) / positive.size
    return fold, crossfit, optimism


def _posterior(positive, test_set, names, order, u, threshold_choice, drawn, samples, root, seed) -> ScoringPosterior:
    """The posterior of :func:`rank_scoring` of the choices ``drawn`` (:func:`_posterior_choices`),
    from streams of its own."""
    fold, choices, optimism = drawn
    scores = [test_set.scores[name] for name in names]
    item_utilities = np.column_stack([_item_utilities(positive, s, u, choice.deciding, fold) for s, choice in zip(scores, choices)])
    draws = _posterior_draws(positive, scores, u, item_utilities, fold, threshold_choice, samples, SCORING_PRIOR_COUNT, root)
    return ScoringPosterior.from_draws(names, order, draws, seed, optimism)


def _checked_utility(test_set: ScoredTestSet, utility) -> tuple[np.ndarray, np.ndarray]:
    """The utility matrix as given, checked, and the same with the positive class first (as the
    kernels of :func:`rank_scoring` take it): its rows and columns permuted."""
    u = check_square(utility, "utility")
    if u.shape != (2, 2):
        raise ValueError(f"utility: a scoring classifier's problem has 2 classes, got a {u.shape[0]}x{u.shape[0]} matrix")
    if not np.all(np.isfinite(u)):
        raise ValueError("utility: every entry must be a finite number")
    if test_set.order is None or (test_set.order_source == "natural" and not reads_alike(u)):
        raise ValueError(unnamed_order(test_set.classes, 2, test_set.source or "y_true"))
    first = test_set.order.index(test_set.classes[0])
    return u, u[np.ix_([first, 1 - first], [first, 1 - first])]


def folds_used(threshold_choice: str, test_uncertainty: bool) -> bool:
    """Whether :func:`rank_scoring` deals folds: those of ``"crossfit"``, and those of ``"test"``'s
    cross-fitted estimate when it has a posterior."""
    return threshold_choice == "crossfit" or (threshold_choice == "test" and test_uncertainty)


def _checked_counts(positive: np.ndarray, threshold_choice: str, folds, test_uncertainty: bool, samples):
    """``folds`` and ``samples`` of :func:`rank_scoring`, each checked where it acts."""
    smaller = int(min(positive.sum(), (~positive).sum()))
    if folds_used(threshold_choice, test_uncertainty):
        folds = check_count(folds, "folds", minimum=2)
        if folds > smaller:
            raise ValueError(f"folds: {folds} folds but the smaller class has {smaller} items: each fold should hold some of both")
    elif threshold_choice == "split" and smaller < 2:
        raise ValueError("threshold_choice: 'split' needs at least 2 items of each class (one per half)")
    if test_uncertainty:
        samples = check_count(samples, "samples", maximum=MAX_EVALUATE_SAMPLES)
    return folds, samples


class _Choice(NamedTuple):
    """One scoring classifier's thresholds in :func:`rank_scoring`."""

    #: Total utility of the evaluated items, each decided at the threshold chosen without it
    #: (``"test"``: with it).
    total: float
    #: The best threshold on the whole test set, and its yield there.
    threshold: float
    test_yield: float
    #: The thresholds chosen on the choice half or the other folds (none for ``"test"``).
    chosen: tuple
    #: The threshold that decides each fold's items (one for ``"test"``).
    deciding: tuple


def _chosen_thresholds(positive, scores, u, threshold_choice: str, fold, folds) -> _Choice:
    """One classifier's thresholds and total utility under ``threshold_choice``."""
    threshold, total = _best_threshold(positive, scores, u)
    test_yield = total / positive.size
    if threshold_choice == "test":
        return _Choice(total, threshold, test_yield, (), (threshold,))
    if threshold_choice == "split":
        t, _ = _best_threshold(positive[fold == 0], scores[fold == 0], u)
        held = fold == 1
        # The choice half's items are not evaluated: any threshold decides them.
        return _Choice(_total_at(positive[held], scores[held], u, t), threshold, test_yield, (t,), (t, t))
    per_fold, total = [], 0.0
    for f in range(folds):
        held = fold == f
        t, _ = _best_threshold(positive[~held], scores[~held], u)
        per_fold.append(t)
        total += _total_at(positive[held], scores[held], u, t)
    return _Choice(total, threshold, test_yield, tuple(per_fold), tuple(per_fold))


def _ranked(names: list, totals: np.ndarray, aucs: np.ndarray, u: np.ndarray, evaluated: int):
    """Ranks by total utility and by AUC, the order of the first, and the pairs the two order
    differently (:attr:`ScoringEvaluation.auc_disagreements`)."""
    # Totals of the same items are compared, as evaluate compares them (exact for whole numbers).
    scale = float(np.max(np.abs(u))) * evaluated
    exact = np.all(u == np.round(u)) and scale <= 2.0**53
    ranks = _competition_ranks(totals, 0.0 if exact else scale)
    auc_ranks = _competition_ranks(aucs)
    order = sorted(range(len(names)), key=lambda k: (ranks[k], k))
    disagreements = []
    for a_pos, a in enumerate(order):
        for b in order[a_pos + 1 :]:
            by_yield = int(_compare(totals[a], totals[b], 0.0 if exact else scale))
            by_auc = int(_compare(aucs[a], aucs[b]))
            if by_yield != by_auc:
                disagreements.append((names[a], names[b]))
    return ranks, auc_ranks, order, disagreements
