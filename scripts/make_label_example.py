"""Write ``examples/triage_labels.csv``: the test set of ``examples/triage_3class.json``, item by item.

Each classifier's outputs reproduce its confusion matrix exactly; which items it gets wrong
is a fixed random draw (the matrices do not say), so that the three classifiers disagree on
different items, as real ones do. Run from the repository's root::

    python scripts/make_label_example.py
"""

import csv
import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
data = json.loads((ROOT / "examples" / "triage_3class.json").read_text())
classes = data["classes"]
confusions = {name: np.array(c) for name, c in data["classifiers"].items()}
totals = next(iter(confusions.values())).sum(axis=0)  # items of each true class
truth = np.repeat(np.arange(len(classes)), totals)
rng = np.random.default_rng(20261124)
outputs = {}
for name, c in confusions.items():
    out = np.empty_like(truth)
    for j in range(len(classes)):  # column j: the outputs for the items of true class j, shuffled
        out[truth == j] = rng.permutation(np.repeat(np.arange(len(classes)), c[:, j]))
    outputs[name] = out
order = rng.permutation(len(truth))  # items in no particular order
with open(ROOT / "examples" / "triage_labels.csv", "w", newline="") as file:
    writer = csv.writer(file, lineterminator="\n")
    writer.writerow(["true", *outputs])
    for k in order:
        writer.writerow([classes[truth[k]], *(classes[out[k]] for out in outputs.values())])
