"""The front door of :func:`mcrank.evaluate.evaluate`: every input checked once, in the order
its faults are reported, before any work.

:func:`_read` checks the arguments of :func:`~mcrank.evaluate.evaluate` (the confusion
matrices, the utility matrix and its error model, the estimator, the samples and seed, the
prior, the metrics: :func:`metrics_for`) into a :class:`_Given`; :func:`_read_file` reads an
input file (:func:`~mcrank.evaluate.input.load_input`, or labels,
:func:`~mcrank.evaluate.input.load_labels`) and reconciles its classes with those of the
utility and of ``classes`` (:func:`mcrank.evaluate.targets.class_order`);
:func:`_deployment_frequencies` checks the deployment's class frequencies or counts, and
:func:`_check_labels` the labels item by item. Reading the files themselves is
:mod:`mcrank.evaluate.input`'s; the class order, the positive class and the orientation are
:mod:`mcrank.evaluate.targets`'.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

import numpy as np

from mcrank._rng import plain_seed, root_of
from mcrank._validation import check_model_count
from mcrank.estimators import ESTIMATORS, default_estimator
from mcrank.evaluate.flips import _has_closed_form
from mcrank.evaluate.input import (
    ItemLabels,
    UtilityAssessment,
    _check_confusions,
    load_input,
    load_labels,
    parse_utility,
    read_utility,
)
from mcrank.evaluate.options import EvaluateOptions
from mcrank.evaluate.posterior import prior_per_cell
from mcrank.evaluate.result import (
    FREQUENCY_TOLERANCE,
    SAMPLE,
)
from mcrank.evaluate.targets import DEFAULT_ORIENTATION, check_orientation, reads_alike
from mcrank.metrics import METRICS, get_metric

__all__ = ["metrics_for"]

#: The deployment's class counts sum to at most this, as a confusion matrix's counts.
_MAX_CLASS_COUNTS = 2**53 - 1
#: Binary metrics left out by default: F-beta with beta = 1 is F1.
_BINARY_SKIPPED = ("fbeta",)


# --- the popular metrics --------------------------------------------------------------------


def metrics_for(n_classes: int, names=None) -> list:
    """The popular metrics that :func:`evaluate` reports for ``n_classes`` classes.

    Parameters
    ----------
    n_classes : int
    names : sequence of str, optional
        Metric ids (binary aliases such as ``"recall"`` accepted): any metric defined for
        ``n_classes`` (``macro_f1`` at two classes too, as ``mcrank run`` counts it). By
        default every metric with a two-class form but ``fbeta`` (with beta = 1 it is ``f1``)
        for two classes, every metric with an n-class form for more. A list even for one metric,
        ``["accuracy"]``, as :class:`mcrank.study.StudyConfig` takes them.

    Returns
    -------
    list of Metric

    Raises
    ------
    TypeError
        If ``names`` is a string (or bytes) or not a sequence.
    ValueError
        For an unknown metric name, with the list of known ones; for a metric listed twice,
        by its id or an alias (``"recall"`` and ``"tpr"``), as :class:`mcrank.study.StudyConfig`
        refuses it.
    """
    binary = n_classes == 2
    # Two classes: every metric with a two-class form (the scikit-learn-exact arithmetic);
    # more: every metric with an n-class form.
    offered = [m for m in METRICS.values() if (m.binary if binary else m.general) is not None and m.id not in _BINARY_SKIPPED]
    if names is None:
        return offered
    # A string is a sequence too, of one-letter names: "accuracy" would be 'a', 'c', ...
    if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise TypeError(f"metrics must be a list of metric ids, got {names!r}")
    chosen, given = [], {}
    for name in names:
        try:
            metric = get_metric(name)
        except KeyError:
            metric = None
        if binary and metric is not None and metric.id in _BINARY_SKIPPED:
            raise ValueError(f"metrics: metric {name!r} is not offered: with beta = 1 it is 'f1'")
        if metric is None or not metric.defined_for(n_classes):  # macro_f1 too, asked for, at n = 2
            known = ", ".join(m.id for m in METRICS.values() if m.defined_for(n_classes) and m.id not in _BINARY_SKIPPED)
            raise ValueError(f"metrics: unknown metric {name!r} for {n_classes} classes; known: {known}") from None
        if metric.id in given:
            how = "" if given[metric.id] == name else f" (as {given[metric.id]!r} and {name!r})"
            raise ValueError(f"metrics: metric {metric.id!r} is listed twice{how}")
        given[metric.id] = name
        chosen.append(metric)
    if not chosen:
        raise ValueError("metrics: none chosen; give at least one metric id")
    return chosen


# --- the arguments of evaluate --------------------------------------------------------------


@dataclass(frozen=True)
class _Given:
    """The inputs of :func:`evaluate`, checked (:func:`_read`)."""

    names: list[str]
    counts: np.ndarray  # (k, n, n) counts, in the input order of the classifiers
    classes: tuple[str, ...]
    class_totals: np.ndarray  # (n,) test items of each true class
    utility: UtilityAssessment  # with the sd and error model that apply
    estimator: str  # one of ESTIMATORS
    samples: int
    root: np.random.SeedSequence | None  # the root of every stream (mcrank._rng), or None: made from seed
    seed: int | None  # without a root, the seed it is made of; with one, the root seed to record or None
    prior_count: float
    metrics: list

    @cached_property
    def rng(self) -> np.random.SeedSequence:
        """The root of every stream: made from the seed (fresh entropy for None) when first drawn
        from, since numpy.random, which makes it, costs a ranking that draws nothing a sixth of
        ``mcrank evaluate``'s start-up."""
        return self.root if self.root is not None else root_of(self.seed)

    @property
    def root_seed(self) -> int | None:
        """The root seed, to record, or None for a Generator's root."""
        return int(self.rng.entropy) if self.root is None else self.seed


def _read(confusions, utility, options: EvaluateOptions, *, classes=None, orientation: str = DEFAULT_ORIENTATION,
          source: str = "") -> _Given:  # fmt: skip
    """Step 1: the inputs checked, in the order their faults are reported, and the options (checked
    when built) applied to them: the sd and error model over the utility's own, the estimator
    for that error model, the root of the random streams, the metrics for the number of classes."""
    check_model_count(confusions, "confusions")
    checked, classes = _check_confusions(confusions, classes, source, check_orientation(orientation))
    if not isinstance(utility, UtilityAssessment):
        utility = parse_utility(utility)
    n = len(classes)
    if utility.matrix.shape != (n, n):
        m = utility.matrix.shape[0]
        raise ValueError(f"{utility.source}: the utility matrix is {m}x{m} but the confusion matrices are {n}x{n}")
    if options.sd is not None:
        utility = replace(utility, sd=options.sd)
    if options.error is not None:
        utility = replace(utility, error=options.error)
        if utility.sd is None:
            raise ValueError(f"an error model ({options.error!r}) needs an error sd")
    estimator = _check_estimator(options.chosen_estimator, utility.error)
    # One root for every stream (mcrank._rng): a bad seed fails here, sd or not; a Generator
    # gives a root drawn from it, once, here; a seed's is made when first drawn from.
    seed = options.rng
    if plain_seed(seed):
        root, seed = None, None if seed is None else int(seed)
    else:
        root = root_of(seed)
        seed = int(root.entropy) if not isinstance(options.rng, np.random.Generator) and root.spawn_key == () else None
    chosen = metrics_for(n, options.metrics)
    names = list(checked)
    counts = np.array([checked[name] for name in names])
    return _Given(names, counts, classes, counts[0].sum(axis=0), utility, estimator, options.samples, root, seed,
                  options.prior_count, chosen)  # fmt: skip


def _check_estimator(estimator: str | None, error: str) -> str:
    """The estimator of the flips under the utility's errors (:data:`ESTIMATORS`): the one
    given, or the error model's default; the conditional one needs a closed form."""
    if estimator is None:
        return default_estimator(_has_closed_form(error)).name
    if ESTIMATORS[estimator].needs_closed_form and not _has_closed_form(error):
        raise ValueError(f"the {error} error model has no closed form: its flip probabilities take the estimator {SAMPLE!r} "
                         "(the conditional estimator needs gaussian errors)")  # fmt: skip
    return estimator


def _check_frequency_vector(values, n: int, classes, what: str) -> np.ndarray:
    """``values`` as n finite, non-negative floats, with the first fault named by its class."""
    if isinstance(values, (str, bytes, dict)):
        raise ValueError(f"{what} must be a sequence of {n} numbers, one per class, got {values!r}")
    try:
        array = np.array([float(v) for v in values], dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{what} must be a sequence of {n} numbers, one per class ({', '.join(classes)})") from None
    if array.size != n:
        raise ValueError(f"{what} has {array.size} values but there are {n} classes ({', '.join(classes)})")
    for test, problem in ((np.isnan(array), "is NaN"), (np.isinf(array), "is infinite"), (array < 0, "is negative")):
        if len(bad := np.flatnonzero(test)):
            raise ValueError(f"{what}: the value of class {classes[bad[0]]!r}, {array[bad[0]]:g}, {problem}")
    return array


def _deployment_frequencies(class_frequencies, class_counts, class_totals, classes, prior_count) -> dict | None:
    """The deployment's class frequencies ``pi`` (paper §6), checked: given, or the posterior
    mean from registry counts; None when neither is given (the test set's own are used)."""
    if class_frequencies is None and class_counts is None:
        return None
    n = len(classes)
    if class_frequencies is not None:
        what = "class_frequencies"
        pi = _check_frequency_vector(class_frequencies, n, classes, what)
        if abs(pi.sum() - 1.0) > FREQUENCY_TOLERANCE:
            raise ValueError(f"{what} sum to {pi.sum():.10g}, not 1 (within {FREQUENCY_TOLERANCE:g})")
        pi, source, counts = pi / pi.sum(), "given", None
    else:
        what = "class_counts"
        counts = _check_frequency_vector(class_counts, n, classes, what)
        if len(bad := np.flatnonzero(counts != np.floor(counts))):
            raise ValueError(f"{what}: the value of class {classes[bad[0]]!r}, {counts[bad[0]]:g}, is not a whole number (they are counts)")
        if (total := sum(counts.tolist())) > _MAX_CLASS_COUNTS:  # inf when the sum overflows
            raise ValueError(f"{what} sum to {total:g}: at most 2**53 - 1 = {_MAX_CLASS_COUNTS}, as counts, above which they are "
                             "not exact in floating point")  # fmt: skip
        if not counts.any():
            raise ValueError(f"{what} are all 0: no cases to learn the deployment's class frequencies from")
        alpha = counts + prior_per_cell(prior_count, n)
        pi, source = alpha / alpha.sum(), "counts"
    if len(bad := np.flatnonzero((pi > 0) & (class_totals == 0))):
        j = bad[0]
        raise ValueError(f"{what}: class {classes[j]!r} has no test items but a deployment frequency of {pi[j]:.4g}: its "
                         "column of the confusion matrices is unknown; test on items of it"
                         + (" or give it frequency 0" if source == "given" else ""))  # fmt: skip
    return {"pi": pi, "source": source, "counts": counts, "prior_per_class": None if counts is None else prior_per_cell(prior_count, n)}


def _check_labels(labels, names, counts) -> None:
    """Labels that are the test set of ``counts``: every classifier's, as many as the truths,
    and tabulating to its confusion matrix."""
    n = counts.shape[1]
    for name, confusion in zip(names, counts):
        if name not in labels.outputs:
            raise ValueError(f"labels: no outputs of classifier {name!r}")
        outputs = np.asarray(labels.outputs[name])
        if outputs.shape != np.shape(labels.truth):
            raise ValueError(f"labels: classifier {name!r} has {outputs.size} labels but the truth has {np.size(labels.truth)}")
        for what, codes in (("the truth", np.asarray(labels.truth)), (f"classifier {name!r}", outputs)):
            if bad := [k for k in np.unique(codes).tolist() if not 0 <= k < n]:  # else a bincount of the wrong size
                raise ValueError(f"labels: {what} has class index {bad[0]!r}, not one of 0..{n - 1}")
        table = np.bincount(outputs * n + labels.truth, minlength=n * n).reshape(n, n)
        if not np.array_equal(table, confusion):
            raise ValueError(f"labels: the labels of classifier {name!r} do not tabulate to its confusion matrix")


# --- an input file --------------------------------------------------------------------------


@dataclass(frozen=True)
class _FileGiven:
    """An input file read, its classes reconciled with the utility's (:func:`_read_file`)."""

    confusions: dict  # per classifier, its counts
    utility: UtilityAssessment
    classes: tuple[str, ...] | None
    labels: ItemLabels | None  # a file of labels, item by item
    source: str
    description: str | None  # a JSON file's
    class_order: str | None  # a file of labels': which rule gave it (mcrank.evaluate.targets.class_order)


def _read_file(
    path, *, utility=None, labels: bool = False, truth: str = "true", classes=None, orientation: str | None = None
) -> _FileGiven:
    """An input file (:func:`mcrank.evaluate.evaluate_file`'s ``path``), read and reconciled: a
    file of labels with the utility it needs, or confusion matrices with the utility given or
    the file's own; the class order from ``classes``, the utility's names or the file's, which
    must agree."""
    utility_classes, classes_source = None, "classes"
    assessment = None
    if utility is not None:
        assessment, utility_classes = read_utility(utility)
        # The file (or option) the class names came from, for a message about them.
        classes_source = assessment.source.removesuffix(": utility")
    if classes is not None:
        classes = tuple(map(str, classes))
        if utility_classes is not None and classes != utility_classes:
            raise ValueError(f"classes: {', '.join(map(repr, classes))} but the utility names its classes "
                             f"{', '.join(map(repr, utility_classes))}: give one order")  # fmt: skip
    if labels and orientation is not None:
        raise ValueError(f"orientation: {os.fspath(path)} holds labels, which name each item's output and true class; the "
                         "orientation is that of confusion matrices given as arrays (JSON)")  # fmt: skip
    if labels:
        if assessment is None:
            raise ValueError(
                f"{os.fspath(path)}: labels need a utility matrix: give one with the parameter utility (and its 'classes' to fix their order)"
            )
        # The utility's size checked before the n^2 cells of each classifier are tabulated.
        data = load_labels(path, classes=classes, utility_classes=utility_classes, classes_source=classes_source, truth=truth,
                           order_free=reads_alike(assessment.matrix),
                           n_classes=len(assessment.matrix))  # fmt: skip
        return _FileGiven(data.confusions, assessment, data.classes, data.labels, data.source, None, data.class_order)
    utility_classes = classes if classes is not None else utility_classes
    data = load_input(
        path, classes=utility_classes, orientation=orientation, classes_source="classes" if classes is not None else classes_source
    )
    csv_input = Path(data.source).suffix.lower() == ".csv"  # a CSV holds no utility matrix
    if assessment is None:
        assessment = data.utility
    # A CSV that names its classes needs their order from the utility; else it would be that
    # in which the names first appear, and reordering the rows of the file would swap the
    # utility matrix's rows and columns, silently.
    named_csv = csv_input and data.classes is not None and utility_classes is None
    with_classes = ('as {"utility": ..., "classes": [...]}, the matrix (or distribution) with the classes in its order, '
                    "or name the order with the parameter classes")  # fmt: skip
    if assessment is None:
        where = "add a 'utility' to the file or give one with the parameter utility"
        if csv_input:
            where = f"give one with the parameter utility{', ' + with_classes if named_csv else ''}"
        raise ValueError(f"{data.source}: no utility matrix: the ranking needs the problem's utilities; {where}")
    if named_csv:
        names = ", ".join(map(repr, data.classes))
        raise ValueError(
            f"{data.source}: the file names its classes ({names}), so the utility matrix must say their order: "
            f"give it {with_classes} (or number the classes 0..n-1 in the file)"
        )
    if data.classes is not None and utility_classes is not None and tuple(data.classes) != tuple(utility_classes):
        named_by = "the parameter classes names" if classes is not None else f"{assessment.source} has"
        raise ValueError(
            f"class names do not match: {data.source} has {', '.join(data.classes)} but {named_by} {', '.join(utility_classes)}"
        )
    classes = data.classes if data.classes is not None else utility_classes
    return _FileGiven(data.confusions, assessment, classes, None, data.source, data.description, None)
