"""The real example of docs/evaluate-uncertainty.md: six scikit-learn models on its bundled wine data,
cross-validated, ranked by utility as deployed (``examples/wine_models.py``)."""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import pytest

from mcrank.cli import main

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("sklearn")


def _example():
    spec = importlib.util.spec_from_file_location("wine_models", ROOT / "examples" / "wine_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_committed_labels_are_the_scripts_cross_validated_predictions():
    with open(ROOT / "examples" / "wine_labels.csv", newline="") as file:
        committed = list(csv.reader(file))
    rows = _example().cross_validated_labels()
    assert rows[0] == ["true", "logistic", "forest", "knn", "naive_bayes", "svm", "tree"]
    assert len(rows) == 179 and rows == committed


@pytest.mark.slow
def test_the_guide_shows_the_examples_real_output(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # the command names its files from the repository's root
    command = _example().COMMAND
    assert main(command) == 0
    out = capsys.readouterr().out
    guide = (ROOT / "docs" / "evaluate-uncertainty.md").read_text()
    shown = guide[guide.index(f"$ mcrank {' '.join(command)}\n") :].split("\n", 1)[1].split("```")[0]
    assert shown == out
    assert "Deployment class frequencies (given): class_0 0.1, class_1 0.6, class_2 0.3" in out
