"""The one front door of :func:`mcrank.evaluate.evaluate`, and its modes: one record each.

:func:`evaluate` takes the confusion matrices of classifiers (the first argument), or by
keyword the true labels ``y_true=`` with exactly one of the models' outputs: ``predictions=``
(their decisions, ``predict(X)``), ``scores=`` (their scores of the positive class, two
classes) or ``probabilities=`` (their class probabilities, ``predict_proba(X)``). The utility
is a matrix (rows = decision, columns = true class, in the one class order of
:mod:`mcrank.evaluate.targets`), or per item: an array of shape (items, decisions, classes),
or the affine form with its item ``columns=``. ``folds=`` gives each item's fold. Which of
these are given picks the **mode** (:data:`MODES`), and the mode its computation and result:

==================  ============================================  =================================
mode                given                                         computation, result
==================  ============================================  =================================
``confusions``      ``confusions`` (first argument)               :func:`mcrank.evaluate.pipeline.evaluate`, Evaluation
``per_item``        ``predictions``, a per-item utility           :func:`~mcrank.evaluate.per_item.evaluate_per_item`
``folds``           ``predictions``, ``folds``                    :func:`~mcrank.evaluate.folds.fold_yields`, then
                                                                  :func:`~mcrank.evaluate.folds.compare_folds`
``predictions``     ``predictions``                               :func:`~mcrank.evaluate.pipeline.evaluate_predictions`
``per_item_scores`` ``scores``, a per-item utility                :func:`~mcrank.evaluate.per_item.evaluate_per_item_scores`
``curves``          ``scores``, no utility                        :func:`~mcrank.evaluate.curves.decision_curves`
``scores``          ``scores``                                    :func:`~mcrank.evaluate.scoring.scored_test_set`, then
                                                                  :func:`~mcrank.evaluate.scoring.rank_scoring`
``probabilities``   ``probabilities``                             ``mcrank.evaluate.probabilities.evaluate_probabilities``
==================  ============================================  =================================

Each mode is one :class:`Mode` record (its name, the keyword of the models' outputs it reads,
when it applies, its help and the function that runs it), registered by :func:`register_mode`;
the first record of the given keyword that applies runs, so a new mode is one record here and
its own folder of computation and report. Every other keyword goes to the mode's function as it
is (``classes=``, ``positive=``, ``test_uncertainty=``, ``rng=``, ...): each function checks
its own, and the old entry functions (:func:`~mcrank.evaluate.pipeline.evaluate_predictions`,
:func:`~mcrank.evaluate.scoring.rank_scoring`, ...) are the modes' computations, called
alike. Before any mode runs, the number of models is checked against
:data:`mcrank._validation.MAX_EVALUATE_MODELS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from mcrank._axes import Registry
from mcrank._validation import check_model_count

__all__ = ["MODES", "OUTPUTS", "Mode", "evaluate", "mode_of", "register_mode"]

#: The keywords that hold the models' outputs, one per call (``confusions`` is the first argument).
OUTPUTS = ("confusions", "predictions", "scores", "probabilities")


@dataclass(frozen=True)
class Call:
    """One call of :func:`evaluate`, as its modes read it."""

    y_true: object
    outputs: object  # the models' outputs: confusion matrices, predictions, scores or probabilities
    utility: object
    columns: Mapping | None
    folds: object
    options: object  # an EvaluateOptions, or None
    keywords: dict = field(default_factory=dict)

    @property
    def per_item(self) -> bool:
        """Whether the utility is per item: the affine form (with or without ``columns``), or an
        array of shape (items, decisions, classes)."""
        if self.columns is not None:
            return True
        from mcrank.evaluate.per_item import AffineUtility, is_affine

        if isinstance(self.utility, AffineUtility) or is_affine(self.utility):
            return True
        if isinstance(self.utility, (Mapping, str, bytes)) or self.utility is None:
            return False
        try:
            return np.ndim(self.utility) == 3
        except ValueError:  # ragged: the matrix's own check says so
            return False


@dataclass(frozen=True)
class Mode:
    """One mode of :func:`evaluate`.

    Attributes
    ----------
    name : str
    code : int
        Its position in :data:`MODES`.
    given : str
        The keyword of the models' outputs it reads, one of :data:`OUTPUTS`.
    applies : callable
        ``applies(call) -> bool``: whether it takes this call (the first registered mode of
        ``given`` that does runs).
    run : callable
        ``run(call) -> result``.
    help : str
    takes_folds, takes_columns, takes_options : bool
        Whether it reads ``folds=``, ``columns=`` and an :class:`EvaluateOptions`; given to
        another mode they are refused.
    """

    name: str
    code: int
    given: str
    applies: Callable
    run: Callable
    help: str
    takes_folds: bool = False
    takes_columns: bool = False
    takes_options: bool = False


#: The modes by name, in the order they are tried (:func:`mode_of`).
MODES: Registry = Registry("evaluate mode")


def register_mode(name: str, given: str, run: Callable, *, help: str, applies: Callable = lambda call: True, **flags) -> Mode:
    """Register a mode of :func:`evaluate` (:class:`Mode`): one record, tried after those before it."""
    if given not in OUTPUTS:
        raise ValueError(f"a mode reads one of {', '.join(OUTPUTS)}, got {given!r}")
    return MODES.add(Mode(name, len(MODES), given, applies, run, help, **flags))


# --- the modes' computations, each that of an entry function --------------------------------


def _confusions(call: Call):
    from mcrank.evaluate.pipeline import evaluate as rank_confusions

    return rank_confusions(call.outputs, call.utility, call.options, **call.keywords)


def _predictions(call: Call):
    from mcrank.evaluate.pipeline import evaluate_predictions

    options = {} if call.options is None else {"options": call.options}
    return evaluate_predictions(call.y_true, call.outputs, call.utility, **options, **call.keywords)


def _per_item(call: Call):
    from mcrank.evaluate.per_item import evaluate_per_item

    return evaluate_per_item(call.y_true, call.outputs, call.utility, columns=call.columns, **call.keywords)


def _per_item_scores(call: Call):
    from mcrank.evaluate.per_item import evaluate_per_item_scores

    return evaluate_per_item_scores(call.y_true, call.outputs, call.utility, columns=call.columns, **call.keywords)


def _folds(call: Call):
    from mcrank.evaluate.folds import compare_folds, fold_yields

    keywords = dict(call.keywords)
    classes = keywords.pop("classes", None)
    return compare_folds(fold_yields(call.y_true, call.outputs, call.folds, utility=call.utility, classes=classes), **keywords)


def _scores(call: Call):
    from mcrank.evaluate.scoring import rank_scoring, scored_test_set

    keywords = dict(call.keywords)
    test_set = scored_test_set(call.y_true, call.outputs, positive=keywords.pop("positive", None), classes=keywords.pop("classes", None))
    if call.folds is not None:  # the folds of the threshold's cross-fitting, a number
        keywords["folds"] = call.folds
    return rank_scoring(test_set, call.utility, **keywords)


def _curves(call: Call):
    from mcrank.evaluate.curves import decision_curves

    return decision_curves(call.y_true, call.outputs, **call.keywords)


def _probabilities(call: Call):
    keywords = dict(call.keywords)
    if call.folds is not None:  # the folds of the recalibration's cross-fitting, a number, as --folds
        keywords["folds"] = call.folds
    try:
        module = importlib.import_module("mcrank.evaluate.probabilities")
    except ModuleNotFoundError as error:
        if error.name != "mcrank.evaluate.probabilities":
            raise
        raise ValueError("probabilities: this mcrank has no mode for class probabilities yet; give the decisions as "
                         "predictions= or, for two classes, the positive class's scores as scores=") from None  # fmt: skip
    return module.evaluate_probabilities(call.y_true, call.outputs, call.utility, **keywords)


register_mode("confusions", "confusions", _confusions, takes_options=True,
              help="confusion matrices (counts) of classifiers on one test set: their ranking by utility yield, eq. (9)")  # fmt: skip
register_mode("per_item", "predictions", _per_item, applies=lambda call: call.per_item, takes_columns=True,
              help="decisions under a utility of each item's own (an array (items, decisions, classes), or affine in columns=)")  # fmt: skip
register_mode("folds", "predictions", _folds, applies=lambda call: call.folds is not None, takes_folds=True,
              help="decisions of cross-validation, each item's fold in folds=: the Bayesian correlated t-test of the per-fold yields")  # fmt: skip
register_mode("predictions", "predictions", _predictions, takes_options=True,
              help="decisions (predict(X)) of classifiers on one labelled test set, paired item by item")  # fmt: skip
register_mode("per_item_scores", "scores", _per_item_scores, applies=lambda call: call.utility is not None and call.per_item,
              takes_columns=True,
              help="scores of the positive class, decided item by item under a per-item utility")  # fmt: skip
register_mode("curves", "scores", _curves, applies=lambda call: call.utility is None,
              help="scores as probabilities of the event, no utility: decision curves, net benefit against the threshold")  # fmt: skip
register_mode("scores", "scores", _scores, takes_folds=True,
              help="scores of the positive class: each model at its best threshold, beside AUC (folds=: of the cross-fitting)")  # fmt: skip
register_mode("probabilities", "probabilities", _probabilities, takes_folds=True,
              help="class probabilities (predict_proba(X)): the decisions of maximal expected utility, eq. (20) (folds=: of "
                   "the recalibration)")  # fmt: skip


# --- the front door ----------------------------------------------------------------------------


def mode_of(call: Call, given: str) -> Mode:
    """The mode that takes ``call`` whose models' outputs are the keyword ``given``: the first
    registered of that keyword that applies."""
    for mode in MODES.values():
        if mode.given == given and mode.applies(call):
            return mode
    raise ValueError(f"{given}: no mode of evaluate takes these arguments ({', '.join(m.name for m in MODES.values() if m.given == given)} "
                     "read it)")  # fmt: skip


def evaluate(confusions=None, utility=None, options=None, *, y_true=None, predictions=None, scores=None, probabilities=None,
             columns=None, folds=None, **keywords):  # fmt: skip
    """Rank models by utility yield: the one front door of every mode (module docstring).

    Parameters
    ----------
    confusions : dict of str to array_like of shape (n, n), optional
        Counts per classifier, all on the same test set (the ``confusions`` mode, as
        :func:`mcrank.evaluate.pipeline.evaluate` takes them, with its ``classes``,
        ``orientation``, ``labels``, ``source`` and options). Not with ``y_true``.
    utility : array_like, dict, AffineUtility or UtilityAssessment
        The utility matrix, rows = decision, columns = true class, in the named class order
        (:mod:`mcrank.evaluate.targets`: ``classes=``, or a utility with its classes; two
        classes are never read in an order not named); per item, an array of shape (items,
        decisions, classes) or the affine form. None only for decision curves.
    options : EvaluateOptions, optional
        The options of the ``confusions`` and ``predictions`` modes (their fields may be given
        as keywords too).
    y_true : array_like of shape (items,), optional
        The true labels, with exactly one of ``predictions``, ``scores`` and ``probabilities``.
    predictions, scores, probabilities : dict of str to array_like, optional
        Per model, its decisions (items,), its score of the positive class (items,), or its
        class probabilities (items, classes), for the items of ``y_true``.
    columns : mapping of str to array_like of shape (items,), optional
        The item columns an affine per-item utility reads.
    folds : array_like of shape (items,), or int, optional
        With ``predictions``, each item's fold of cross-validation (the ``folds`` mode); with
        ``scores``, the number of folds of the threshold's cross-fitting; with ``probabilities``,
        that of the recalibration's (as ``--folds`` on the command line).
    **keywords
        Those of the mode's computation (module docstring's table): ``classes``, ``positive``,
        ``test_uncertainty``, ``samples``, ``rng``, ``metrics``, ``threshold_choice``,
        ``thresholds``, ``rope``, ...

    Returns
    -------
    Evaluation, PerItemEvaluation, FoldComparison, ScoringEvaluation or DecisionCurves
        That of the mode.

    Raises
    ------
    ValueError
        Naming the parameter: confusion matrices and ``y_true`` both, or neither; not exactly
        one of the models' outputs; a keyword the mode does not read (``folds``, ``columns``,
        ``options``); more models than :data:`mcrank._validation.MAX_EVALUATE_MODELS`; and
        every refusal of the mode's computation.

    Notes
    -----
    Ties, in every mode that ranks by yield: whole-number utilities on counts give exact totals,
    compared exactly; fractional ones tie within :data:`~mcrank.evaluate.result.TIE_TOLERANCE`
    of ``max|U| N`` (:func:`mcrank.evaluate.pipeline.evaluate`'s Notes), and tied models share a
    rank.

    Examples
    --------
    >>> from mcrank.evaluate import evaluate
    >>> y_true = [0, 0, 1, 1, 1]
    >>> result = evaluate(y_true=y_true, predictions={"A": [0, 1, 1, 1, 1], "B": [0, 0, 0, 1, 1]},
    ...                   utility=[[1, -4], [0, 2]], classes=[0, 1])
    >>> [(c.name, c.utility_yield) for c in result.classifiers]
    [('A', 1.2), ('B', 0.0)]
    """
    given = {"predictions": predictions, "scores": scores, "probabilities": probabilities}
    named = [name for name, value in given.items() if value is not None]
    if confusions is not None:
        if extra := [name for name, value in {"y_true": y_true, **given, "columns": columns, "folds": folds}.items() if value is not None]:
            raise ValueError(f"{extra[0]}: confusion matrices are ranked alone; give y_true with one of predictions, scores and "
                             "probabilities instead of them")  # fmt: skip
        call, outputs = Call(None, confusions, utility, None, None, options, keywords), "confusions"
    else:
        if y_true is None:
            raise ValueError("y_true: give the confusion matrices, or y_true with one of predictions, scores and probabilities")
        if len(named) != 1:
            raise ValueError(f"{'predictions' if not named else named[1]}: give exactly one of predictions, scores and "
                             f"probabilities with y_true{'' if not named else f', not {named[0]} and {named[1]}'}")  # fmt: skip
        outputs = named[0]
        call = Call(y_true, given[outputs], utility, columns, folds, options, keywords)
    check_model_count(call.outputs, outputs)
    mode = mode_of(call, outputs)
    if call.folds is not None and not mode.takes_folds:
        raise ValueError(f"folds: the {mode.name} mode reads no folds")
    if call.columns is not None and not mode.takes_columns:
        raise ValueError(f"columns: item columns are read by a per-item utility only (the {mode.name} mode reads none)")
    if options is not None and not mode.takes_options:
        raise ValueError(f"options: the {mode.name} mode takes its options as keywords")
    return mode.run(call)
