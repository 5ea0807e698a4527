"""The estimators of the perturbed utility matrix's misranking (``docs/method.md``, "The conditional estimator").

One :class:`Estimator` record per estimator, in :data:`ESTIMATORS`: its name, its code, its help
and the error models it admits. The study's options and checks, ``mcrank run --estimator`` and
``mcrank evaluate --estimator`` read their names and help from it. It is a closed vocabulary,
not an extension point: each kernel implements both estimators as a branch on its
``conditional`` flag (the record's :attr:`Estimator.needs_closed_form`), so the registry is
sealed as soon as they are registered.

- ``sample``: draws the errors and counts the pairs the perturbed matrix misranks (the paper's);
  any error model.
- ``conditional``: averages each pair's probability of being misranked, known in closed form
  when ``U' - U`` is N(0, s^2) element by element (:attr:`ErrorModel.closed_form
  <mcrank.error_models.ErrorModel.closed_form>`): the same percentage with about 4 times less
  variance.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcrank._axes import Registry
from mcrank.error_models import ERROR_MODELS, ErrorModel

__all__ = ["ESTIMATORS", "Estimator", "default_estimator"]


@dataclass(frozen=True)
class Estimator:
    """One estimator of the perturbed utility matrix's percentage of misranked pairs.

    Attributes
    ----------
    name : str
        Its name on the command line, in experiment files and in results.
    code : int
        Its position in :data:`ESTIMATORS`.
    help : str
        One line for the command line's help.
    needs_closed_form : bool
        Whether it needs an error model with a closed form (:attr:`ErrorModel.closed_form
        <mcrank.error_models.ErrorModel.closed_form>`).
    """

    name: str
    code: int
    help: str
    needs_closed_form: bool = False

    def check(self, error_model: ErrorModel) -> None:
        """A ValueError if this estimator cannot estimate under ``error_model``."""
        if self.needs_closed_form and not error_model.closed_form:
            admitted = " or ".join(e.name for e in ERROR_MODELS.values() if e.closed_form)
            raise ValueError(
                f"the {self.name} estimator needs {admitted} errors; with {error_model.name} errors the estimator is {default_estimator(False).name!r}"
            )


#: Every estimator by name, in the order registered (its code).
ESTIMATORS: Registry = Registry("estimator")
ESTIMATORS.add(Estimator("sample", 0, "draw the errors, as the paper (any error model)"))
ESTIMATORS.add(
    Estimator(
        "conditional", 1, "the closed-form probability of misranking each pair (gaussian errors; their default)", needs_closed_form=True
    )
)
ESTIMATORS.builtins_registered()
ESTIMATORS.seal(__name__, "an estimator is a branch of every kernel (their conditional flag), not a registration")


def default_estimator(closed_form: bool) -> Estimator:
    """The estimator taken when none is given: the first registered that needs a closed form
    where there is one (``closed_form``), else the first that does not."""
    return next(e for e in ESTIMATORS.values() if e.needs_closed_form == closed_form)
