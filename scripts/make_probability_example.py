"""Write the example files of ``mcrank evaluate --probabilities`` (``docs/probabilities.md``).

- ``examples/probabilities.csv``: the three-class triage of ``examples/triage_3class.json``
  (healthy, benign, malignant), 400 patients, one column per model and class (``MODEL:CLASS``).
  Each item's features give its exact log posterior ``l`` under a known model; the models
  state ``softmax(l / T + b)``: ``calibrated`` (T = 1, b = 0), ``overconfident``
  (T = 0.4) and ``cautious`` (T = 1.6, a bias towards malignant).
- ``examples/probabilities_binary.csv``: two classes (malignant, benign), 300 patients, one
  column per model holding the probability of malignant: the binormal scores of the ROC study,
  each model's probability ``logistic(a l + c)`` of the exact log odds ``l`` of its score:
  ``calibrated`` (a = 1, c = 0) and ``overconfident`` (a = 2.5, c = 0) of a score with
  mu = 1.4, and ``sharp``, of a better score (mu = 2.2) whose probabilities are too low
  (a = 1, c = -1.5).

Probabilities are written to 4 decimals, in ten-thousandths that sum to exactly 1 per model
and item. Run from the repository's root::

    python scripts/make_probability_example.py
"""

import csv
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DIGITS = 10_000


def _ten_thousandths(p: np.ndarray) -> np.ndarray:
    """Rows of probabilities as whole ten-thousandths summing to 10000: floors, the remainder to the largest."""
    whole = np.floor(p * DIGITS).astype(np.int64)
    whole[np.arange(len(p)), np.argmax(p, axis=1)] += DIGITS - whole.sum(axis=1)
    return whole


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def three_classes(rng: np.random.Generator) -> None:
    classes = json.loads((ROOT / "examples" / "triage_3class.json").read_text())["classes"]
    items = 400
    prior, gap = np.array([0.55, 0.3, 0.15]), 1.6
    truth = rng.choice(3, size=items, p=prior)
    # Features: the true class's raised by a gap, plus unit normal noise. By Bayes's theorem the
    # exact log posterior is log(prior) + gap z, up to a constant per item.
    z = rng.normal(0.0, 1.0, size=(items, 3)) + gap * np.eye(3)[truth]
    exact = np.log(prior) + gap * z
    models = {
        "calibrated": _softmax(exact),
        "overconfident": _softmax(exact / 0.4),
        "cautious": _softmax(exact / 1.6 + np.array([0.0, 0.0, 0.8])),
    }
    header = ["true"] + [f"{name}:{c}" for name in models for c in classes]
    columns = [_ten_thousandths(p) for p in models.values()]
    with open(ROOT / "examples" / "probabilities.csv", "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header)
        for k in range(items):
            writer.writerow([classes[truth[k]]] + [f"{v / DIGITS:.4f}" for whole in columns for v in whole[k]])


def two_classes(rng: np.random.Generator) -> None:
    items, prevalence = 300, 0.35
    malignant = rng.random(items) < prevalence

    def exact_log_odds(mu):  # of a score N(mu, 1) for malignant against N(0, 1) for benign
        scores = rng.normal(size=items) + mu * malignant
        return np.log(prevalence / (1 - prevalence)) + mu * scores - mu * mu / 2

    plain, sharper = exact_log_odds(1.4), exact_log_odds(2.2)
    models = {"calibrated": (plain, 1.0, 0.0), "overconfident": (plain, 2.5, 0.0), "sharp": (sharper, 1.0, -1.5)}
    columns = {}
    for name, (log_odds, a, c) in models.items():
        q = 1.0 / (1.0 + np.exp(-(a * log_odds + c)))
        columns[name] = _ten_thousandths(np.column_stack([q, 1 - q]))[:, 0]
    with open(ROOT / "examples" / "probabilities_binary.csv", "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(["true", *models])
        for k in range(items):
            writer.writerow(["malignant" if malignant[k] else "benign"] + [f"{columns[name][k] / DIGITS:.4f}" for name in models])


if __name__ == "__main__":
    rng = np.random.default_rng(20261207)
    three_classes(rng)
    two_classes(rng)
