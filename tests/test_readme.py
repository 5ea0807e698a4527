"""The README's numbers are the committed results', not typed by hand."""

import json
from pathlib import Path

from mcrank.cli.run import render_table

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_table_is_the_committed_fig6_result():
    readme = (ROOT / "README.md").read_text()
    table = render_table(json.loads((ROOT / "results" / "fig6_uniform.json").read_text()))
    assert table.rstrip() in readme


def test_the_readme_crossover_rows_are_the_committed_ones():
    readme = (ROOT / "README.md").read_text()
    crossover = (ROOT / "results" / "crossover.md").read_text()
    section = crossover[crossover.index("### uniform true utility matrices, gaussian errors") :].splitlines()
    header = next(k for k, line in enumerate(section) if line.startswith("| metric"))
    table = section[header : header + 9]  # header, separator and seven metrics
    assert table[1].startswith("|---") and all(line.startswith("| ") for line in table[2:])
    # The whole table, as one block: a row lost or reordered in the README fails.
    assert "\n".join(table) + "\n\n" in readme


def test_the_committed_results_were_made_with_the_experiment_files():
    from mcrank.study import load_experiment
    from mcrank.results import is_complete

    for path in sorted(p for p in (ROOT / "experiments").glob("*.toml") if p.name != "figures.toml"):
        assert is_complete(ROOT / "results", path.stem, load_experiment(path).config), path.stem


def test_the_constraints_pin_the_versions_that_made_the_results():
    pins = dict(
        line.split("==")
        for line in (ROOT / "constraints.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    )
    for path in sorted((ROOT / "results").glob("*.json")):
        versions = json.loads(path.read_text())["versions"]
        assert {k: v for k, v in versions.items() if k != "mcrank"} == {k: pins[k] for k in versions if k != "mcrank"}, path.name
