"""The paper's prologue (§0, §1): two classifiers, three utility matrices, one lesson.

Classifiers A and B are evaluated on one balanced test set, eqs. (1)-(2). Most metrics of
Table 1 favour B; yet under the factory's utilities, eq. (4), A earns +3.5 €/component and
B loses 3.5. Under eq. (5) B is better; under the medical utilities, eq. (6), which are
eq. (4) shifted by 335 months, A is again better. Every number here is computed from these
matrices by the metric library and :func:`mcrank.utility_space.utility_yield`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mcrank.metrics import get_metric
from mcrank.utility_space import utility_yield

__all__ = ["CONFUSION", "TABLE1_METRICS", "UTILITIES", "StoryUtility", "story"]

#: Normalised confusion matrices of classifiers A and B, eqs. (1) and (2).
CONFUSION: dict[str, np.ndarray] = {
    "A": np.array([[0.27, 0.15], [0.23, 0.35]]),
    "B": np.array([[0.43, 0.18], [0.07, 0.32]]),
}

#: The metrics of Table 1, in its order (balanced accuracy is given with accuracy there).
TABLE1_METRICS: tuple[str, ...] = (
    "accuracy",
    "balanced_accuracy",
    "precision",
    "f1",
    "mcc",
    "fowlkes_mallows",
    "tpr",
    "tnr",
)


@dataclass(frozen=True)
class StoryUtility:
    """One utility matrix of the story, with its equation number and unit."""

    id: str
    description: str
    unit: str
    matrix: np.ndarray


#: The utility matrices of the story: factory (4), modified factory (5) and medical (6).
UTILITIES: tuple[StoryUtility, ...] = (
    StoryUtility("eq4", "factory, eq. (4)", "EUR/component", np.array([[15.0, -335.0], [-35.0, 165.0]])),
    StoryUtility("eq5", "factory with other gains, eq. (5)", "EUR/component", np.array([[45.0, -335.0], [-65.0, 165.0]])),
    StoryUtility("eq6", "medical, eq. (6)", "months", np.array([[350.0, 0.0], [300.0, 500.0]])),
)


def _favoured(values: dict[str, float]) -> str:
    (name_a, a), (name_b, b) = values.items()
    return name_a if a > b else name_b if b > a else "tie"


def story() -> dict:
    """Compute the story's Table 1 and the utility yields of A and B.

    Returns
    -------
    dict
        ``metrics``: list of ``{"id", "name", "A", "B", "favours"}``, Table 1's order;
        ``utilities``: list of ``{"id", "description", "unit", "matrix", "A", "B", "best",
        "metrics_against"}``, where ``metrics_against`` lists the ids of the metrics that
        favour the other classifier than the utility yield does.
    """
    metrics = []
    for metric_id in TABLE1_METRICS:
        metric = get_metric(metric_id)
        values = {name: float(metric(c)) for name, c in CONFUSION.items()}
        metrics.append({"id": metric.id, "name": metric.name, **values, "favours": _favoured(values)})
    utilities = []
    for u in UTILITIES:
        values = {name: utility_yield(u.matrix, c) for name, c in CONFUSION.items()}
        best = _favoured(values)
        against = [m["id"] for m in metrics if m["favours"] not in (best, "tie")]
        utilities.append(
            {
                "id": u.id,
                "description": u.description,
                "unit": u.unit,
                "matrix": u.matrix.tolist(),
                **values,
                "best": best,
                "metrics_against": against,
            }
        )
    return {"classifiers": {name: c.tolist() for name, c in CONFUSION.items()}, "metrics": metrics, "utilities": utilities}
