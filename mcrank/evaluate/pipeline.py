"""The pipeline of :func:`evaluate`: ranking by utility yield, the popular metrics'
disagreements, and how sure the ranking is.

:func:`evaluate` ranks classifiers by their utility yield per test item, eq. (9) of
``docs/method.md``, scores them with the popular metrics
(:func:`~mcrank.evaluate.front_door.metrics_for`), and lists every metric whose ranking
disagrees; with an error sd on the utility matrix, it gives how likely each pair's ranking is
to flip (paper §4.2, :mod:`mcrank.evaluate.flips`), and with the test-set uncertainty the
posterior of :mod:`mcrank.evaluate.uncertainty`. Its steps, one function each: the front door
(:mod:`mcrank.evaluate.front_door`), :func:`_reweight`, :func:`_rank`, :func:`_score`,
:func:`_disagreements`, :func:`_flips_under_utility_error`, :func:`_flips_under_test_set` and
:func:`_pairs`; the result is an :class:`~mcrank.evaluate.result.Evaluation`.
:func:`evaluate_file` does the same for an input file, :func:`evaluate_predictions` for
label arrays.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from mcrank.evaluate.flips import _MAX_DRAWN_SD, _check_truncated, _conditional_flips, _count_flips, _has_closed_form
from mcrank.evaluate.front_door import _check_labels, _deployment_frequencies, _Given, _read, _read_file
from mcrank.evaluate.input import predictions_in_class_order
from mcrank.evaluate.options import EvaluateOptions
from mcrank.evaluate.result import (
    _DEPRECATED_METHOD_NAMES,
    CONDITIONAL,
    FREQUENCY_TOLERANCE,
    SAMPLE,
    ClassifierResult,
    Disagreement,
    Evaluation,
    PairFlip,
    _compare,
    _competition_ranks,
)
from mcrank.evaluate.targets import DEFAULT_ORIENTATION
from mcrank.evaluate.uncertainty import PRIOR_NOTE_SHARE, posterior_uncertainty
from mcrank.utility_space import normalise_um, utility_yield

__all__ = ["evaluate", "evaluate_file", "evaluate_predictions"]


def evaluate(
    confusions,
    utility,
    options: EvaluateOptions | None = None,
    *,
    classes=None,
    orientation: str = DEFAULT_ORIENTATION,
    labels=None,
    source: str = "",
    **option_values,
) -> Evaluation:
    """Rank classifiers by utility yield, and compare with the popular metrics.

    Parameters
    ----------
    confusions : dict of str to array_like of shape (n, n)
        Counts per classifier, all on the same test set, in ``orientation``.
    utility : array_like of shape (n, n), dict or UtilityAssessment
        The utility matrix, in any form of :func:`parse_utility`: rows = decision, columns =
        true class, in the class order of the confusion matrices.
    classes : sequence of str, optional
        Class names, in order; ``"0"``, ``"1"``, ... by default.
    orientation : {"decision-by-class", "sklearn"}, default "decision-by-class"
        How ``confusions`` are laid out: rows = decision (output), columns = true class,
        mcrank's layout; or ``"sklearn"``, rows = true class, as scikit-learn's
        ``confusion_matrix`` returns them (:mod:`mcrank.evaluate.targets`).
    options : EvaluateOptions, optional
        How to rank (:class:`~mcrank.evaluate.options.EvaluateOptions`): the fields below, checked
        once when it is built. Its fields may also be given as keywords (``sd=0.1``), alone or
        in place of those of ``options``.
    labels : ItemLabels, optional
        The test set item by item (:func:`load_labels`), the classifiers named as in
        ``confusions``: the pairs' joint tables then keep the pairing of the items.
        Without them the posterior treats the classifiers' columns as independent
        (conservative).
    source : str, optional
        Where the confusion matrices come from (a file name), to prefix messages.

    Other Parameters
    ----------------
    sd : float, optional
        Error standard deviation on the utility matrix *normalised by eq. (11)*; overrides
        one in ``utility``. With it, the flip probability of every pair is estimated.
    error : str, optional
        Error model for ``sd``, a name in :data:`mcrank.error_models.ERROR_MODELS` (see :func:`mcrank.samplers.perturb_um`); overrides one in
        ``utility``; ``"gaussian"`` by default.
    samples : int, default 100000
        Monte Carlo samples of perturbed utility matrices, at most :data:`MAX_SAMPLES`.
    rng : int, SeedSequence, Generator or None
        Randomness of the Monte Carlo estimate.
    estimator : str, optional
        How the flip probabilities under the utility's errors are obtained, in the study's
        words (:data:`ESTIMATORS`; ``docs/method.md``, "The conditional estimator"). By
        default ``"conditional"`` under gaussian errors: the perturbed yield difference of a
        pair is normal, and ``P(flip) = Phi(-d / (sd ||C_A - C_B||_F))`` exactly
        (:data:`FLIP_FORMULA`, :func:`mcrank.engine.conditional.incorrect_probability`), with
        no ``samples`` and no ``rng``. The truncated model has no closed form: ``"sample"``
        draws the perturbed matrices (Monte Carlo); under gaussian errors it gives the
        estimate, as a check.
    method : {"closed form", "monte carlo"}, optional
        Deprecated name of ``estimator``, with its deprecated values (``"closed form"`` is
        ``"conditional"``, ``"monte carlo"`` is ``"sample"``; the new values are taken too).
    test_uncertainty : bool, default False
        Also say how sure the ranking is, given that the test set is finite
        (:mod:`mcrank.evaluate.uncertainty`): a 95 % posterior interval of each yield, and
        for each pair the probability that its population order differs from the observed
        one, alone and, with an error sd, together with the utility errors. ``samples``
        posterior draws from ``rng``.
    prior_count : float, default 1
        The Dirichlet prior's total count, > 0, spread evenly over the cells of the test
        set's joint table (:func:`mcrank.evaluate.uncertainty.prior_per_cell`): the weight
        of ``prior_count`` test items, whatever the number of classes. Also the prior of
        ``class_counts``, spread over the classes.
    class_frequencies : array_like of shape (n,), optional
        The class frequencies ``pi`` of the deployment, if they differ from the test set's
        (paper §6): every confusion matrix is re-weighted column by column,
        ``C'_ij = C_ij / sum_i C_ij * pi_j``, before the ranking, the metrics, the flip
        probabilities and the test-set uncertainty. Non-negative, summing to 1 within
        :data:`FREQUENCY_TOLERANCE`; a class without test items must have frequency 0 (its
        column is unknown).
    class_counts : array_like of shape (n,), optional
        Instead of ``class_frequencies``, counts of the classes in deployment (a registry of
        cases), whole non-negative numbers, not all 0: the frequencies are uncertain, with posterior
        Dirichlet(class_counts + prior_count / n). The point ranking uses their posterior
        mean; the test-set uncertainty draws them.
    metrics : sequence of str, optional
        Metric ids to report (see :func:`metrics_for`): a list, even of one id.
    progress : bool, default False
        Show a progress bar of the Monte Carlo samples on stderr, and of the test-set
        posterior's draws.

    Returns
    -------
    Evaluation

    Raises
    ------
    ValueError
        For bad input, naming the fault and where it is (an unknown metric too).
    TypeError
        If ``metrics`` is a string rather than a list of them.

    Notes
    -----
    The steps, each a function of this module: :func:`_read` (check the inputs),
    :func:`_reweight` (to the deployment's class frequencies), :func:`_rank` (by utility
    yield), :func:`_score` and :func:`_disagreements` (the popular metrics),
    :func:`_flips_under_utility_error`, :func:`_flips_under_test_set`, and :func:`_pairs`.

    Ties. With whole-number utilities whose largest magnitude times the number of test
    items ``N`` is at most 2**53, every total utility is an exact integer: yields are
    compared exactly, and one item apart is never a tie. With fractional utilities (an
    expected matrix, eq. 17, often has them), rounding can split yields that are equal in
    exact arithmetic (``0.1 + 0.2 != 0.3``): total utilities within :data:`TIE_TOLERANCE`
    (1e-12) of ``max|U| N`` tie. Metric values tie within 1e-12 of ``max(1, |a|, |b|)``.
    Tied classifiers share a rank. A pair that a perturbed matrix (or a posterior draw)
    ties counts as flipped, as in the study's step 6 (``docs/method.md``).
    """
    options = EvaluateOptions.of(options, **option_values)
    given = _read(confusions, utility, options, classes=classes, orientation=orientation, source=source)
    weighted = _reweight(given, options.class_frequencies, options.class_counts)
    test_uncertainty = options.test_uncertainty
    ranking = _rank(given, weighted)
    scores, metric_ranks = _score(given, weighted)
    results = _classifier_results(given, weighted, ranking, scores, metric_ranks)
    disagreements = _disagreements(given, ranking, scores, metric_ranks)
    normalised = normalise_um(given.utility.matrix)
    posterior = None
    if test_uncertainty:
        posterior = _flips_under_test_set(given, weighted, ranking, normalised, labels, options.progress)
        results = tuple(replace(c, utility_yield_interval=posterior.intervals[c.name]) for c in results)
    pairs = None
    if given.utility.sd is not None or test_uncertainty:
        if not _has_closed_form(given.utility.error):
            _check_truncated(normalised, given.classes, given.utility.source)
        under_error = _flips_under_utility_error(given, weighted, ranking, normalised, options.progress)
        pairs = _pairs(given, weighted, ranking, under_error, posterior)
    sampled = given.utility.sd is not None and given.estimator == SAMPLE
    seed = given.root_seed if sampled or test_uncertainty else None
    with_sd = given.utility.sd is not None
    return Evaluation(
        classifiers=results,
        disagreements=disagreements,
        pairs=pairs,
        classes=given.classes,
        class_totals=given.class_totals,
        utility=given.utility,
        normalised_utility=normalised,
        metrics=tuple((m.id, m.name) for m in given.metrics),
        samples=given.samples if sampled or test_uncertainty else None,
        seed=seed,
        method=_DEPRECATED_METHOD_NAMES[given.estimator] if with_sd else None,
        test_uncertainty=None
        if posterior is None
        else _test_uncertainty_settings(posterior, given.samples, seed, float(given.class_totals.sum())),
        class_frequencies=None
        if weighted.deployment is None
        else _frequency_report(weighted.deployment, given.class_totals, given.classes),
        estimator=given.estimator if with_sd else None,
    )


# --- the steps of evaluate ------------------------------------------------------------------


@dataclass(frozen=True)
class _Weighted:
    """The confusion matrices that rank and score (:func:`_reweight`)."""

    fractions: np.ndarray  # (k, n, n) as frequencies: of the test set, or re-weighted to the deployment
    scored: np.ndarray  # what the metrics score: the counts, or the re-weighted frequencies
    items: float  # what a total utility is divided by to give the yield per item: N, or 1 re-weighted
    deployment: dict | None  # from _deployment_frequencies


@dataclass(frozen=True)
class _Ranking:
    """The ranking by utility yield (:func:`_rank`)."""

    totals: np.ndarray  # (k,) eq. (9) on the counts (or re-weighted frequencies), compared
    yields: np.ndarray  # (k,) per item
    scale: float  # of a tie of two totals: 0 when they are exact (see _compare)
    ranks: list  # competition ranks, 1 = best
    order: list  # classifier indices, best first (ties in input order)
    rows: list  # per a: (order[a], order[a + 1:]), the pairs in rank order, a row at a time
    signs: list  # per row: the sign of each pair's total-utility difference (0: tied)


def _reweight(given: _Given, class_frequencies, class_counts) -> _Weighted:
    """Step 2: the confusion matrices as frequencies, re-weighted to the deployment's class
    frequencies when they are given (paper §6)."""
    counts, class_totals = given.counts, given.class_totals
    deployment = _deployment_frequencies(class_frequencies, class_counts, class_totals, given.classes, given.prior_count)
    if deployment is None:
        return _Weighted(counts / class_totals.sum(), counts, class_totals.sum(), None)
    # Each column j scaled from the test set's class total to the deployment's pi_j (§6).
    # (C_ij / sum_i C_ij) * pi_j in that order: a full column is then exactly pi_j.
    fractions = np.divide(counts, class_totals, out=np.zeros(counts.shape), where=class_totals > 0) * deployment["pi"]
    return _Weighted(fractions, fractions, 1.0, deployment)


def _rank(given: _Given, weighted: _Weighted) -> _Ranking:
    """Step 3: the ranking by utility yield, eq. (9), with its ties (see :func:`evaluate`'s Notes)."""
    u = given.utility
    # Total utilities (eq. 9 on counts) are compared, then divided by N once; re-weighted,
    # the matrices are frequencies already, and their yields per item are compared.
    with np.errstate(over="ignore", invalid="ignore"):
        totals = utility_yield(u.matrix, given.counts if weighted.deployment is None else weighted.fractions)
    if not np.all(np.isfinite(totals)):
        raise ValueError(
            f"{u.source}: the utility yields overflow (utilities times counts beyond the largest float): "
            "rescale the utility matrix, which changes no ranking (eq. 10)"
        )
    with np.errstate(over="ignore"):  # the scale of a tie, at most the largest float
        largest = float(np.max(np.abs(u.matrix)) * weighted.items)
    # Whole utilities and counts below 2**53: exact totals, compared exactly (see Notes).
    exact = weighted.deployment is None and largest <= 2**53 and np.all(u.matrix == np.round(u.matrix))
    scale = 0.0 if exact else min(largest, sys.float_info.max)
    ranks = _competition_ranks(totals, scale)
    order = sorted(range(len(given.names)), key=lambda k: (ranks[k], -totals[k], k))
    # Pairs (order[a], order[b]) with a < b, a row of them per a: each row is compared at
    # once, so that the Python work grows with the number of classifiers, not of pairs.
    ranked = np.array(order, dtype=np.int64)
    rows = [(ranked[a], ranked[a + 1 :]) for a in range(len(order) - 1)]
    signs = [_compare(totals[first], totals[seconds], scale) for first, seconds in rows]
    return _Ranking(totals, totals / weighted.items, scale, ranks, order, rows, signs)


def _score(given: _Given, weighted: _Weighted) -> tuple[dict, dict]:
    """Step 4: each metric's score of every classifier (input order), and its ranks."""
    k = len(given.names)
    scores = {metric.id: np.asarray(metric(weighted.scored), dtype=float).reshape(k) for metric in given.metrics}
    return scores, {mid: _competition_ranks(values) for mid, values in scores.items()}


def _classifier_results(given: _Given, weighted: _Weighted, ranking: _Ranking, scores, metric_ranks) -> tuple:
    """The classifiers in rank order, with their yields, scores and ranks."""
    return tuple(
        ClassifierResult(
            name=given.names[k],
            rank=ranking.ranks[k],
            utility_yield=float(ranking.yields[k]),
            scores={mid: float(values[k]) for mid, values in scores.items()},
            ranks={mid: ranks[k] for mid, ranks in metric_ranks.items()},
            confusion=given.counts[k],
            deployment_confusion=None if weighted.deployment is None else weighted.fractions[k],
        )
        for k in ranking.order
    )


def _disagreements(given: _Given, ranking: _Ranking, scores, metric_ranks) -> tuple[Disagreement, ...]:
    """Step 4, continued: every metric whose ranking of a pair differs from the utility yield's."""
    names, disagreements = given.names, []
    for metric in given.metrics:
        values = scores[metric.id]
        flipped, tied, undefined = [], [], []
        for (first, seconds), by_utility in zip(ranking.rows, ranking.signs):
            nan = np.isnan(values[first]) | np.isnan(values[seconds])
            by_metric = _compare(values[first], values[seconds])
            disagree = ~nan & (by_utility != by_metric)
            flip = disagree & (by_utility * by_metric < 0)
            for kind, mask in ((undefined, nan), (flipped, flip), (tied, disagree & ~flip)):
                kind.extend((names[first], names[second]) for second in seconds[mask])
        if flipped or tied or undefined:
            best = tuple(names[k] for k in ranking.order if metric_ranks[metric.id][k] == 1)
            disagreements.append(Disagreement(metric.id, metric.name, tuple(flipped), tuple(tied), tuple(undefined), best))
    return tuple(disagreements)


def _flips_under_utility_error(given: _Given, weighted: _Weighted, ranking: _Ranking, normalised, progress) -> tuple:
    """Step 5: per pair in rank order, the probability that the utility's errors flip it, and
    the number of perturbed matrices that did (``sample`` estimator) or None; both None
    without an error sd."""
    u, pairs = given.utility, len(given.names) * (len(given.names) - 1) // 2
    if u.sd is None:
        return [None] * pairs, None
    if given.estimator == CONDITIONAL:
        # The yield differences from the totals that ranked, so that their signs agree;
        # under eq. (11) they are divided by the range of U.
        scale = float(np.max(u.matrix)) - float(np.min(u.matrix))
        with np.errstate(over="ignore"):
            ranked = ranking.yields[ranking.order] / scale
        return _conditional_flips(ranked, weighted.fractions[ranking.order], u.sd).tolist(), None
    counts = _count_flips(normalised, weighted.fractions, ranking.order, u.sd, u.error, given.samples, given.rng, progress)
    return (counts / given.samples).tolist(), counts.tolist()


def _flips_under_test_set(given: _Given, weighted: _Weighted, ranking: _Ranking, normalised, labels, progress: bool = False):
    """Step 6: the test set's posterior (:func:`posterior_uncertainty`): the yields'
    intervals, and per pair the flip probabilities under it, alone and with the utility's errors."""
    u, deployment = given.utility, weighted.deployment
    if labels is not None:
        _check_labels(labels, given.names, given.counts)
    perturbed = None
    if u.sd is not None:
        from mcrank.samplers import perturb_um  # only with an error sd: its generated switches cost every start-up

        if not _has_closed_form(u.error):
            _check_truncated(normalised, given.classes, u.source)
        perturbed = partial(perturb_um, normalised, min(u.sd, _MAX_DRAWN_SD), error=u.error)
    frequencies = {} if deployment is None else ({"frequency_counts": deployment["counts"]} if deployment["source"] == "counts"
                                                 else {"frequencies": deployment["pi"]})  # fmt: skip
    signs = np.concatenate(ranking.signs) if ranking.rows else np.zeros(0)
    return posterior_uncertainty(u.matrix, given.counts, given.names, ranking.order, signs, labels=labels, samples=given.samples,
                                 prior_count=given.prior_count, perturbed=perturbed, rng=given.rng, progress=progress, **frequencies)  # fmt: skip


def _pairs(given: _Given, weighted: _Weighted, ranking: _Ranking, under_error, posterior) -> tuple[PairFlip, ...]:
    """Step 7: every pair in rank order, with its flip probabilities."""
    names, totals, sampled = given.names, ranking.totals, given.estimator == SAMPLE
    probabilities, counts = under_error
    pairs, index = [], 0
    for (a, seconds), by_utility in zip(ranking.rows, ranking.signs):
        for b, sign in zip(seconds.tolist(), by_utility.tolist()):
            difference = float((totals[a] - totals[b]) / weighted.items)
            f = probabilities[index]
            if sign == 0 or f is None:
                pair = PairFlip(names[a], names[b], difference, None, None, None)
            elif not sampled:
                pair = PairFlip(names[a], names[b], difference, f, None, None)
            else:
                pair = PairFlip(names[a], names[b], difference, f, math.sqrt(f * (1 - f) / given.samples), int(counts[index]))
            if posterior is not None and sign != 0:
                both = (
                    (None, None)
                    if posterior.flip_both is None
                    else (float(posterior.flip_both[index]), float(posterior.flip_both_se[index]))
                )
                pair = replace(pair, flip_probability_test=float(posterior.flip_test[index]),
                               flip_probability_test_se=None if posterior.flip_test_exact[index] else float(posterior.flip_test_se[index]),
                               flip_probability_both=both[0], flip_probability_both_se=both[1])  # fmt: skip
            index += 1
            pairs.append(pair)
    return tuple(pairs)


def _test_uncertainty_settings(posterior, samples: int, seed, items: float) -> dict:
    """The settings of the test-set posterior, as :attr:`Evaluation.test_uncertainty` holds them."""
    share = posterior.prior_count / items
    settings = {"model": posterior.model, "prior_mass": posterior.prior_count, "prior_share": share,
                "prior_count": posterior.prior_count,  # deprecated name of prior_mass (was the count on every cell)
                "samples": samples, "seed": seed, "interval": 0.95, "exact_pairs": int(posterior.flip_test_exact.sum())}  # fmt: skip
    if share > PRIOR_NOTE_SHARE:
        settings["note"] = (f"the prior weighs as {posterior.prior_count:g} of the {items:g} test items ({100 * share:.0f} %): "
                            "the intervals and probabilities lean on it as well as on the test set")  # fmt: skip
    return settings


def _frequency_report(deployment: dict, class_totals, classes) -> dict:
    """What :attr:`Evaluation.class_frequencies` holds: the frequencies used, and the test set's own."""
    report = {
        "source": deployment["source"],
        "deployment": {name: float(p) for name, p in zip(classes, deployment["pi"])},
        "test_set": {name: float(t / class_totals.sum()) for name, t in zip(classes, class_totals)},
        "tolerance": FREQUENCY_TOLERANCE,
    }
    if deployment["counts"] is not None:
        report["counts"] = {name: float(k) for name, k in zip(classes, deployment["counts"])}
        report["prior_per_class"] = deployment["prior_per_class"]
    return report


def evaluate_file(
    path,
    options: EvaluateOptions | None = None,
    *,
    utility=None,
    labels: bool = False,
    truth: str = "true",
    classes=None,
    orientation: str | None = None,
    **option_values,
) -> Evaluation:
    """Evaluate the classifiers of an input file: :func:`load_input` (or :func:`load_labels`),
    then :func:`evaluate`.

    Parameters
    ----------
    path : str or Path
        A JSON or CSV file of confusion matrices (see :func:`load_input`), or with
        ``labels=True`` a CSV file of labels, one row per test item (see :func:`load_labels`).
    utility : str or Path, optional
        JSON text or a JSON file with the utility matrix (see :func:`read_utility`); it
        overrides the file's. Its class names, if any, give the class order of a CSV file
        and must match those of a JSON file. A CSV file that names its classes (rather than
        numbering them 0..n-1) needs them (or ``classes``): ValueError otherwise, since the
        order in which the names first appear is no order the user chose. A file of labels
        needs a utility; its class order is :func:`mcrank.evaluate.targets.class_order`'s,
        and the result's ``class_order`` says which rule gave it.
    labels : bool, default False
        Read ``path`` as labels, one row per test item.
    truth : str, default "true"
        With ``labels``, the column of true classes.
    classes : sequence of str, optional
        The class order of the utility matrix's rows and columns, as the user names it
        (``--classes``): as the utility's ``classes`` do, and equal to them when both are
        given (:func:`mcrank.evaluate.targets.class_order`).
    orientation : {"decision-by-class", "sklearn"}, optional
        The orientation of a JSON file's confusion matrices (:func:`load_input`).
    options : EvaluateOptions, optional
        As for :func:`evaluate`, and its fields as keywords (``sd``, ``error``, ``samples``,
        ``rng``, ``test_uncertainty``, ...); ``sd`` and ``error`` override those of the
        utility. With ``labels``, the test-set uncertainty keeps the pairing of the items.

    Returns
    -------
    Evaluation

    Raises
    ------
    TypeError
        If ``path`` is not a path (``None``), or ``utility`` neither JSON text nor a path.
    """
    options = EvaluateOptions.of(options, **option_values)  # checked before the file is read
    given = _read_file(path, utility=utility, labels=labels, truth=truth, classes=classes, orientation=orientation)
    result = evaluate(given.confusions, given.utility, options, classes=given.classes, labels=given.labels, source=given.source)
    return replace(result, description=given.description, class_order=given.class_order)


def evaluate_predictions(y_true, predictions, utility, *, classes=None, **evaluate_options) -> Evaluation:
    """Rank classifiers from their predictions on one labelled test set, in one call.

    The labels stay paired item by item (:func:`mcrank.evaluate.input.labels_from_predictions`),
    so that with ``test_uncertainty=True`` each pair's test-set flip probability is the exact
    one of its joint table (true class, one's output, the other's), as ``mcrank evaluate``
    gives it for a file of labels.

    Parameters
    ----------
    y_true : array_like of shape (items,)
        The true labels.
    predictions : dict of str to array_like of shape (items,)
        Per classifier, its outputs (``predict(X)``) for the same items, in the same order.
    utility : array_like of shape (n, n), dict or UtilityAssessment
        The utility matrix (rows = decision, columns = true class), in any form of
        :func:`parse_utility`, or ``{"utility": ..., "classes": [...]}`` with its class names.
    classes : sequence, optional
        The labels in the utility matrix's order. Without it, the utility's class names give
        the order, else labels that are the integers ``0..n-1`` or booleans their natural
        one; other labels (text) are refused: the order is not guessed
        (:func:`mcrank.evaluate.targets.class_order`). Their ``str`` names the classes.
    **evaluate_options
        Any keyword of :func:`evaluate` but ``classes`` and ``labels`` (``sd``,
        ``test_uncertainty``, ``rng``, ``class_frequencies``, ``metrics``, ...).

    Returns
    -------
    Evaluation
        ``str()`` of it is the report, ``to_records()`` and ``to_frame()`` the table.

    Examples
    --------
    >>> from mcrank.evaluate import evaluate_predictions
    >>> y_true = ["long"] * 50 + ["short"] * 50
    >>> y_a = ["long"] * 27 + ["short"] * 23 + ["long"] * 15 + ["short"] * 35
    >>> y_b = ["long"] * 43 + ["short"] * 7 + ["long"] * 18 + ["short"] * 32
    >>> result = evaluate_predictions(y_true, {"A": y_a, "B": y_b}, [[15, -335], [-35, 165]], classes=["long", "short"])
    >>> [(row["classifier"], row["utility_yield"], row["accuracy"]) for row in result.to_records()]
    [('A', 3.5, 0.62), ('B', -3.5, 0.75)]
    """
    for taken in ("labels", "source"):
        if taken in evaluate_options:
            raise TypeError(f"evaluate_predictions() takes no {taken!r}: the labels are y_true and predictions")
    assessment, confusions, order, labels, source = predictions_in_class_order(y_true, predictions, utility, classes)
    result = evaluate(confusions, assessment, classes=[str(c) for c in order], labels=labels, **evaluate_options)
    return replace(result, class_order=source)
