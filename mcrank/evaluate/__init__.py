"""Rank real classifiers by utility yield, and show where popular metrics mislead (paper §3-4.1).

Give the confusion matrices (counts) of K >= 1 classifiers tested on the same test set, in
the paper's layout (rows = output, columns = true class), and the problem's utility matrix.
:func:`evaluate` ranks the classifiers by their utility yield per test item, eq. (9), scores
them with the popular metrics of :mod:`mcrank.metrics` (:func:`metrics_for`), and lists
every metric whose ranking disagrees with the utility yield, pair by pair. The procedure and
the equations are in ``docs/method.md``.

The utility matrix is given in one of three forms:

- one n x n matrix ``U``;
- a distribution over several matrices with their probabilities: classifiers are ranked
  under the expected utility matrix of eq. (17) (paper §4.1);
- a matrix with an error standard deviation ``sd``, to express how unsure one is of it. The
  ranking is the one under ``U``; in addition, for every pair of classifiers, the probability
  that the ranking flips when ``U`` is off by errors of that size: exact (in closed form)
  under gaussian errors, estimated by Monte Carlo under truncated ones. ``sd`` is in units
  of the *normalised* utility matrix, eq. (11) (minimum 0, maximum 1), as in the paper's §4.2: ``U`` is normalised before it is perturbed. The
  ``gaussian`` error model is centred on ``U``; the ``truncated`` one keeps every element in
  [0, 1] and correct classification best in each column, so it pushes elements at 0 or 1
  inwards and is *not* centred on ``U``: flip probabilities above 1/2 can occur.

**One front door.** :func:`evaluate` takes the confusion matrices, or by keyword ``y_true=``
with exactly one of ``predictions=``, ``scores=`` and ``probabilities=`` (a per-item utility
with ``columns=``, each item's fold with ``folds=``): :mod:`mcrank.evaluate.modes` picks the
mode (:data:`MODES`: confusions, per_item, folds, predictions, per_item_scores, curves,
scores, probabilities) and runs its computation, each also an entry function of its own
(:func:`evaluate_predictions`, :func:`rank_scoring`, :func:`compare_folds`,
:func:`~mcrank.evaluate.per_item.evaluate_per_item`, :func:`decision_curves`). Every mode
reads the utility in one class order (:mod:`mcrank.evaluate.targets`) and draws its test-set
uncertainty from one posterior (:mod:`mcrank.evaluate.posterior`).

The modules:

- :mod:`mcrank.evaluate.targets` is the front door of every input: the class order by which
  every door reads a utility matrix (rows = decision, columns = true class), the positive
  class of the scoring doors and the orientation of confusion matrices (:func:`~mcrank.evaluate.targets.class_order`,
  :func:`~mcrank.evaluate.targets.positive_class`, :func:`~mcrank.evaluate.targets.oriented`).
- :mod:`mcrank.evaluate.input` reads and checks the inputs: a JSON file, a long-form CSV
  file (:func:`load_input`), a CSV file of labels, one row per test item
  (:func:`load_labels`), the utility matrix (:func:`parse_utility`,
  :func:`read_utility`) or, in Python, label arrays as scikit-learn's ``confusion_matrix``
  takes them (:func:`confusions_from_labels`). Every bad input raises a ValueError (or
  OSError) whose one-line message says what is wrong and where.
- :mod:`mcrank.evaluate.options` declares the options of :func:`evaluate` once
  (:class:`EvaluateOptions`: each checked when built; ``mcrank evaluate``'s flags are
  generated from them); :mod:`mcrank.evaluate.front_door` checks the other arguments of :func:`evaluate` and reconciles
  an input file's classes with the utility's; :mod:`mcrank.evaluate.pipeline` ranks
  (:func:`evaluate`, :func:`evaluate_file`, :func:`evaluate_predictions`), with the flip
  probabilities of :mod:`mcrank.evaluate.flips` and the test-set posterior of
  :mod:`mcrank.evaluate.uncertainty`; :mod:`mcrank.evaluate.result` holds the result types
  (:class:`Evaluation`) and their vocabulary, and :mod:`mcrank.evaluate.report` every
  rendering of them (text, JSON, CSV, records).
- :mod:`mcrank.evaluate.modes`: the front door and its modes; :mod:`mcrank.evaluate.posterior`:
  the one test-set posterior (its prior, its draws, its guard against underflow).
- :mod:`mcrank.evaluate.scoring` reads labels and scores (:func:`scored_test_set`,
  :func:`load_scores`) and ranks scoring classifiers by the utility at each one's best
  threshold, beside AUC (:func:`rank_scoring`, :func:`auc_score`).
- :mod:`mcrank.evaluate.folds`: model selection across cross-validation folds, by the
  Bayesian correlated t-test on per-fold utility yields (:func:`compare_folds`,
  :func:`fold_yields`).
- :mod:`mcrank.evaluate.probabilities`: probabilistic classifiers ranked by the yield of their
  expected-utility decisions, beside the Brier score and the log loss, with the gain of
  recalibrating them (:func:`evaluate_probabilities`).
- :mod:`mcrank.evaluate.protocol`: the one protocol every result type answers (``str()``, the
  report opening with the decision; ``repr()``; ``to_dict()``; ``to_records()``; ``to_frame()``;
  ``_repr_html_()``), each call routed to what the type's report module registers;
  :mod:`mcrank.evaluate.html_report` the renderings they share, and the page of ``--format html``.
- :mod:`mcrank.evaluate.curves`: decision curves, net benefit against the threshold
  probability, with posterior bands and the probability that one model's exceeds another's
  (:func:`decision_curves`).

Examples
--------
The paper's story (§0) from label arrays:

>>> from mcrank.evaluate import confusions_from_labels, evaluate
>>> y_true = ["long"] * 50 + ["short"] * 50
>>> y_a = ["long"] * 27 + ["short"] * 23 + ["long"] * 15 + ["short"] * 35
>>> y_b = ["long"] * 43 + ["short"] * 7 + ["long"] * 18 + ["short"] * 32
>>> confusions, classes = confusions_from_labels({"A": (y_true, y_a), "B": (y_true, y_b)})
>>> confusions["A"].tolist()  # rows = output, columns = true class
[[27, 15], [23, 35]]
>>> result = evaluate(confusions, [[15, -335], [-35, 165]], classes=classes)
>>> [(c.name, c.utility_yield) for c in result.classifiers]
[('A', 3.5), ('B', -3.5)]
>>> [d.metric for d in result.disagreements][:3]
['accuracy', 'tpr', 'precision']
"""

import importlib

from mcrank.evaluate import result as _result

# The names are loaded from their submodules when first asked for (PEP 562), and a result's
# report module when the result is first rendered, so that importing one submodule or one name
# loads only the modules it reads, not the whole package: the decision curves, folds and
# scoring cost ``mcrank evaluate FILE`` more than half its start-up beyond numpy's import.
_SUBMODULE_OF = {
    **dict.fromkeys(("DecisionCurves", "decision_curves", "net_benefit_utility"), "curves"),
    **dict.fromkeys(("FoldComparison", "FoldModel", "FoldPair", "compare_folds", "fold_yields"), "folds"),
    "metrics_for": "front_door",
    **dict.fromkeys(
        (
            "ERROR_MODELS",
            "MAX_INPUT_BYTES",
            "EvaluationInput",
            "ItemLabels",
            "UtilityAssessment",
            "confusions_from_labels",
            "labels_from_predictions",
            "load_input",
            "load_labels",
            "parse_utility",
            "read_utility",
        ),
        "input",
    ),
    "EvaluateOptions": "options",
    **dict.fromkeys(("ProbabilityEvaluation", "evaluate_probabilities", "load_probabilities", "rank_probabilities"), "probabilities"),
    "ResultProtocol": "protocol",
    **dict.fromkeys(("MODES", "evaluate"), "modes"),
    **dict.fromkeys(("evaluate_file", "evaluate_predictions"), "pipeline"),
    **dict.fromkeys(
        ("DEFAULT_SAMPLES", "MAX_SAMPLES", "TIE_TOLERANCE", "ClassifierResult", "Disagreement", "Evaluation", "PairFlip"), "result"
    ),
    **dict.fromkeys(
        (
            "THRESHOLD_CHOICES",
            "ScoredTestSet",
            "ScoringEvaluation",
            "ScoringResult",
            "auc_score",
            "load_scores",
            "rank_scoring",
            "scored_test_set",
        ),
        "scoring",
    ),
}

#: The public names are those of the table above, each defined once, in its submodule.
__all__ = sorted(_SUBMODULE_OF)

#: The report module that registers the renderings (``str()``, ``to_dict()``, ...) of each
#: submodule's result types (:func:`mcrank.evaluate.result.renders`).
_REPORT_OF = {
    "curves": "curves.report",
    "folds": "folds.report",
    "per_item": "per_item.report",
    "probabilities": "probabilities_report",
    # The renderings every result type shares unless its own report registers them.
    "protocol": "html_report",
    "result": "report",
    "scoring": "scoring.report",
}


def _import_report(module: str) -> None:
    """Import the report module of the result types of ``module`` (a module's name), if any."""
    package, _, submodule = module.rpartition(".")
    if package == __name__ and submodule in _REPORT_OF:
        importlib.import_module(f"{__name__}.{_REPORT_OF[submodule]}")


_result.load_renderings_with(_import_report)


def __getattr__(name: str):
    submodule = _SUBMODULE_OF.get(name)
    if submodule is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{submodule}"), name)
    globals()[name] = value  # asked for once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
