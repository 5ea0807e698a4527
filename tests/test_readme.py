"""The README and docs/: their numbers are the committed results', their outputs real, their
links alive, and the README short."""

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.cli.run import render_table

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


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
    from mcrank.results import is_complete
    from mcrank.study import load_experiment

    for path in sorted(p for p in (ROOT / "experiments").glob("*.toml") if p.name != "figures.toml"):
        assert is_complete(ROOT / "results", path.stem, load_experiment(path).config), path.stem


def test_the_constraints_pin_the_versions_that_made_the_results():
    pins = dict(
        line.split("==") for line in (ROOT / "constraints.txt").read_text().splitlines() if line.strip() and not line.startswith("#")
    )
    for path in sorted((ROOT / "results").glob("*.json")):
        versions = json.loads(path.read_text())["versions"]
        assert {k: v for k, v in versions.items() if k != "mcrank"} == {k: pins[k] for k in versions if k != "mcrank"}, path.name


def test_the_readme_is_at_most_10_kb():
    size = len((ROOT / "README.md").read_bytes())
    assert size <= 10_000, f"README.md is {size} bytes: move detail into docs/"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page: lower case, punctuation dropped,
    spaces to hyphens (code blocks skipped, so a shell comment is no heading)."""
    anchors, fenced = set(), False
    for line in page.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#+ (.*)", line)):
            anchors.add(re.sub(r"[^\w\- ]", "", match.group(1).strip().lower()).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_file(), f"{page.name}: link to {target}: no such file"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name}: link to {target}: no such heading"


def _first_text_block(page: Path, after: str) -> str:
    text = page.read_text()
    text = text[text.index(after) :]
    text = text[text.index("```text\n") + len("```text\n") :]
    return text[: text.index("```")]


def test_the_cli_page_shows_the_real_story(capsys):
    assert main(["story"]) == 0
    assert capsys.readouterr().out == _first_text_block(ROOT / "docs" / "cli.md", "## mcrank story")


def test_the_evaluate_guide_shows_the_real_output(capsys):
    assert main(["evaluate", str(ROOT / "examples" / "factory.json")]) == 0
    assert capsys.readouterr().out == _first_text_block(ROOT / "docs" / "evaluate-output.md", "## Output")


def test_the_evaluate_guides_quick_start_shows_the_real_output(capsys, monkeypatch):
    guide = (ROOT / "docs" / "evaluate.md").read_text()
    block = guide[guide.index("## Quick start") :]
    block = block[block.index("```console\n$ mcrank ") + len("```console\n$ mcrank ") :]
    command, shown = block[: block.index("```")].split("\n", 1)
    monkeypatch.chdir(ROOT)  # the command names its files from the repository's root
    assert main(shlex.split(command)) == 0
    assert capsys.readouterr().out == shown


#: The evaluate guide: its index, docs/evaluate.md, and its pages.
GUIDE = [ROOT / "docs" / "evaluate.md", *sorted((ROOT / "docs").glob("evaluate-*.md"))]


def _contents(page: Path) -> str:
    text = page.read_text()
    return text[text.index("## Contents\n") : text.index("\n## ", text.index("## Contents\n") + 1)]


def _sections(page: Path) -> list[tuple[int, str, str]]:
    """The page's sections below its title: (depth, title, anchor), ``## Contents`` left out."""
    headings = [line for line in re.sub(r"```.*?```", "", page.read_text(), flags=re.S).splitlines() if re.match(r"##+ ", line)]
    headings = [(len(line.split(" ")[0]) - 2, line.split(" ", 1)[1].strip()) for line in headings if line != "## Contents"]
    return [(depth, title, re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")) for depth, title in headings]


@pytest.mark.parametrize("page", GUIDE, ids=lambda page: page.name)
def test_each_page_of_the_evaluate_guide_lists_its_sections_and_is_at_most_40_kb(page):
    assert len(GUIDE) >= 6 and len(page.read_bytes()) <= 40_000, f"{page.name}: split it into pages of at most 40 KB"
    listed = re.findall(r"\]\(#([^)]+)\)", _contents(page))
    sections = _sections(page)
    # Every section and subsection, in the page's order, and nothing else; the message is the list to paste.
    expected = "\n".join(f"{'  ' * depth}- [{title}](#{anchor})" for depth, title, anchor in sections)
    assert listed == [anchor for _, _, anchor in sections], f"docs/{page.name}'s contents should begin:\n{expected}"


def test_the_evaluate_guides_index_lists_every_page_and_its_sections():
    index, pages = GUIDE[0], GUIDE[1:]
    listed = re.findall(r"\]\((evaluate-[a-z-]+\.md)(?:#([^)]+))?\)", _contents(index))
    expected = []
    for page in pages:
        title = page.read_text().splitlines()[0].removeprefix("# ")
        expected.append(f"- [{title}]({page.name})")
        expected += [f"{'  ' * (depth + 1)}- [{name}]({page.name}#{anchor})" for depth, name, anchor in _sections(page)]
    wanted = [(page.name, anchor) for page in pages for anchor in ("", *(a for _, _, a in _sections(page)))]
    # Each page, then each of its sections; the order of the pages is the index's.
    order = list(dict.fromkeys(name for name, _ in listed))
    assert sorted(order) == [p.name for p in pages] and listed == sorted(wanted, key=lambda w: order.index(w[0])), (
        "docs/evaluate.md's contents should list, after its own sections:\n" + "\n".join(expected)
    )


def test_the_published_versions_4_percent_is_the_committed_truncated_result():
    # The published paper's 4 % at nominal sd 0.11 (truncated errors), as the README and
    # docs/method.md quote mcrank's measurement of it.
    rows = json.loads((ROOT / "results" / "fig7_uniform_truncated.json").read_text())["rows"]
    row = next(r for r in rows if r["name"] == "utility" and r["sd"] == 0.11)
    measured = f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %"
    method = (ROOT / "docs" / "method.md").read_text()
    assert f"{measured} incorrect, realised sd {row['realised_sd']:.3f}" in method
    readme = (ROOT / "README.md").read_text().replace("\n", " ")
    assert f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %" in readme


def test_the_readme_test_set_numbers_are_the_committed_ones():
    readme = (ROOT / "README.md").read_text()
    rows = {}
    for size in (100, 200):
        document = json.loads((ROOT / "results" / f"testset_2class_{size:05d}.json").read_text())
        rows[size] = {(row["name"], row["sd"]): row for row in document["rows"]}
    shown = lambda row: f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %"  # noqa: E731
    for size, name, sd in ((100, "utility", 0.0), (200, "utility", 0.0), (100, "utility", 0.1), (100, "accuracy", None),
                           (100, "utility", 0.2), (100, "f1", None)):  # fmt: skip
        assert shown(rows[size][name, sd]) in readme, (size, name, sd)
    # The claims around them: accuracy is the best metric at N = 100, and the order at sd 0.2.
    metrics = {name: row["incorrect_pct"] for (name, sd), row in rows[100].items() if sd is None}
    assert min(metrics, key=metrics.get) == "accuracy"
    assert metrics["accuracy"] < metrics["f1"] < rows[100]["utility", 0.2]["incorrect_pct"] < sorted(metrics.values())[2]
    population = json.loads((ROOT / "results" / "fig7_uniform_gaussian.json").read_text())["rows"]
    accuracy = next(row for row in population if row["name"] == "accuracy")["incorrect_pct"]
    assert f"against {accuracy:.2f} % for accuracy" in readme
    assert rows[200]["utility", 0.0]["incorrect_pct"] < accuracy < rows[100]["utility", 0.0]["incorrect_pct"]


def test_the_readme_sentence_on_fig6_is_the_committed_result():
    readme = (ROOT / "README.md").read_text()
    rows = {row["name"]: row for row in json.loads((ROOT / "results" / "fig6_uniform.json").read_text())["rows"]}
    accuracy, utility = rows["accuracy"], rows["utility"]
    assert (f"mcrank gets {accuracy['incorrect_pct']:.2f} ± {accuracy['se_pct']:.2f} and "
            f"{utility['incorrect_pct']:.2f} ± {utility['se_pct']:.2f}") in " ".join(readme.split())  # fmt: skip


def test_the_readme_n_class_numbers_are_the_committed_ones():
    readme = " ".join((ROOT / "README.md").read_text().split())
    shown = lambda row: f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %"  # noqa: E731

    def rows(name):
        return {(r["name"], r["sd"]): r for r in json.loads((ROOT / "results" / f"{name}.json").read_text())["rows"]}

    three = rows("nclass_gaussian_n03")
    for key in (("utility", 0.1), ("accuracy", None), ("balanced_accuracy", None)):
        assert shown(three[key]) in readme, key
    metrics = {name: row["incorrect_pct"] for (name, sd), row in three.items() if sd is None}
    assert min(metrics, key=metrics.get) == "accuracy" and max(metrics, key=metrics.get) == "balanced_accuracy"
    # "Up to n = 10 it stays between 6.32 and 6.80 %, while the best metric is at 9.97 %
    # (accuracy, n = 10) and balanced accuracy rises to 24.18 %."
    sweeps = {n: rows(f"nclass_gaussian_n{n:02d}") for n in range(3, 11)}
    utility = [by_n["utility", 0.1]["incorrect_pct"] for by_n in sweeps.values()]
    assert f"between {min(utility):.2f} and {max(utility):.2f} %" in readme
    best = min((row["incorrect_pct"], name, n) for n, by_n in sweeps.items() for (name, sd), row in by_n.items() if sd is None)
    assert best[1:] == ("accuracy", 10) and f"best metric is at {best[0]:.2f} % (accuracy, n = 10)" in readme
    balanced = [by_n["balanced_accuracy", None]["incorrect_pct"] for by_n in sweeps.values()]
    assert balanced == sorted(balanced) and f"balanced accuracy rises to {balanced[-1]:.2f} %" in readme
    finite = rows("testset_3class_00100")
    for key in (("utility", 0.0), ("utility", 0.1), ("cohen_kappa", None)):
        assert shown(finite[key]) in readme, key
    metrics = {name: row["incorrect_pct"] for (name, sd), row in finite.items() if sd is None}
    assert min(metrics, key=metrics.get) == "cohen_kappa"


def test_the_readme_roc_numbers_are_the_committed_ones():
    readme = " ".join((ROOT / "README.md").read_text().split())
    shown = lambda row: f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %"  # noqa: E731

    def rows(name):
        return {(r["name"], r["sd"]): r for r in json.loads((ROOT / "results" / f"{name}.json").read_text())["rows"]}

    gaussian, truncated, rare = rows("roc_uniform_gaussian"), rows("roc_uniform_truncated"), rows("roc_b001_gaussian")
    for key in (("auc", None), ("best_youden", None), ("best_f1", None), ("best_accuracy", None), ("utility", 0.1)):
        assert shown(gaussian[key]) in readme, key
    assert shown(truncated["utility", 0.1]) in readme and shown(rare["auc", None]) in readme
    for key in (("hmeasure", None), ("auprc", None)):
        assert shown(gaussian[key]) in readme and shown(rare[key]) in readme, key
    assert f"({gaussian['auc', None]['tied_pct']:.2f} % are)" in readme
    # The order the sentence states: AUC worst of the scores, accuracy at its best threshold best;
    # the perturbed matrix best of all with truncated errors, worse than AUC with gaussian ones.
    scores = {name: row["incorrect_pct"] for (name, sd), row in gaussian.items() if sd is None}
    assert max(scores, key=scores.get) == "auc" and min(scores, key=scores.get) == "best_accuracy"
    assert truncated["utility", 0.1]["incorrect_pct"] < min(scores.values()) and gaussian["utility", 0.1]["incorrect_pct"] > scores["auc"]


#: Names the docs give that are not mcrank's own: a dask worker's option, and a script in the
#: authors' repository that docs/method.md cites.
_NOT_OURS = {"--nthreads", "--array", "scripts/calculations_paper2.R"}


def _named_in_docs(pattern: str) -> set[tuple[str, str]]:
    return {(page.name, match.group(1)) for page in PAGES for match in re.finditer(pattern, page.read_text())}


def test_every_option_the_docs_name_exists():
    from mcrank.cli import build_parser

    parser = build_parser()
    options = {o for a in parser._actions for o in a.option_strings}
    for sub in parser._subparsers._group_actions[0].choices.values():
        sub.format_help()  # mcrank run adds its study's flags when first used
        options |= {o for a in sub._actions for o in a.option_strings}
    bench = (ROOT / "scripts" / "bench.py").read_text()
    options |= set(re.findall(r'add_argument\("(--[a-z-]+)"', bench))
    missing = {(page, name) for page, name in _named_in_docs(r"(?<![\w-])(--[a-z][a-z0-9-]+)") if name not in options | _NOT_OURS}
    assert not missing, sorted(missing)


def test_every_file_and_figure_the_docs_name_exists():
    named = _named_in_docs(r"`((?:examples|experiments|results|scripts|mcrank|tests|docs)/[^`\s<>]*)`")
    missing = {(page, path) for page, path in named if path not in _NOT_OURS and not list(ROOT.glob(path.rstrip("/")))}
    assert not missing, sorted(missing)
    figures = {name for _, name in _named_in_docs(r"\b(fig\d+_[a-z0-9_]+)\b")}
    # A name such as fig7_uniform_truncated is a study's (results/*.json), not a figure's.
    drawn = {p.stem for p in (ROOT / "results" / "figures").glob("*.png")} | {p.stem for p in (ROOT / "results").glob("*.json")}
    assert figures and not figures - drawn, sorted(figures - drawn)


#: Words the docs quote beside "JSON" or "CSV" that are not field names: Python names, the
#: maths' variables, subcommands, a format and JSON's null.
_NOT_FIELDS = {"confusion_matrix", "cross_val_predict", "roc_auc_score", "repr", "evaluate", "run", "d", "k", "data", "table", "null"}


def _field_pattern(name: str) -> re.Pattern | None:
    """A field name as the docs write it, as a pattern over the real names; None for a word
    that cannot be one (a Python class, a constant). ``<metric>``, ``MODEL`` and a lone ``A``
    or ``B`` stand for any metric, model or classifier, and ``_high`` after ``utility_yield_low``
    for the name it ends."""
    pattern = name.replace("<metric>", "\0")
    pattern = re.sub(r"^MODEL(?=_)|(?<=_)[AB](?=_|$)", "\1", pattern)
    if re.search(r"[A-Z]", pattern):
        return None
    pattern = re.escape(pattern).replace("\0", "[a-z0-9_]+").replace("\1", ".+")
    return re.compile(f".+{pattern}" if name.startswith("_") else pattern)


def _output_names(capsys, tmp_path) -> set[str]:
    """Every key, column, comment key and string value of the JSON and CSV outputs, and of the
    example inputs, and the long-form CSV's header (run here)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 80)
    scores = tmp_path / "scores.csv"
    scores.write_text(
        "".join(["true,a,b\n", *(f"{('none', 'event')[t]},{float(rng.random() / 2 + t / 2)!r},{float(rng.random())!r}\n" for t in truth)])
    )
    # The long-form CSV as docs/evaluate-inputs.md gives its header.
    header = re.search(r"CSV\*\*, long form, with the header `([a-z,]+)`", (ROOT / "docs" / "evaluate-inputs.md").read_text()).group(1)
    long_form = tmp_path / "long.csv"
    long_form.write_text(f"{header}\nA,0,0,3\nA,1,1,4\nA,0,1,2\nB,0,0,2\nB,1,0,1\nB,1,1,5\nB,0,1,1\n")
    # Probabilities with infinite log losses: "zero" gives class b probability 0 where it occurs;
    # "odd" one item of class a below every other, which isotonic recalibration maps to P(a) = 0.
    certain = tmp_path / "certain.csv"
    odd = [0.9] * 5 + [0.05] + [0.1] * 6
    certain.write_text("true,odd,zero\n" + "".join(f"{t},{p},{z}\n" for t, p, z in zip("aaaaaabbbbbb", odd, [0.6] * 6 + [1.0] * 6)))
    factory, few = str(ROOT / "examples" / "factory.json"), ("--samples", "1000", "--seed", "1")
    commands = [
        ["run", "--sd", "0.1", "--quiet", *few],
        ["run", "--study", "roc", "--sd", "0.1", "--quiet", *few],
        ["evaluate", factory, "--sd", "0.1"],
        ["evaluate", factory, "--sd", "0.1", "--error", "truncated", "--test-uncertainty", "--prior-count", "100", *few],
        ["evaluate", str(ROOT / "examples" / "lottery.json"), "--class-counts", "10,990", "--test-uncertainty", *few],
        ["evaluate", "--labels", str(ROOT / "examples" / "triage_labels.csv"), "--utility", str(ROOT / "examples" / "triage_3class.json")],
        [
            "evaluate",
            "--labels",
            str(ROOT / "examples" / "fraud_labels.csv"),
            "--utility",
            str(ROOT / "examples" / "fraud_per_item.json"),
            "--test-uncertainty",
            *few,
        ],
        ["evaluate", "--scores", str(scores), "--utility", '{"utility": [[1, -3], [0, 0]], "classes": ["event", "none"]}', *few[2:]],
        ["evaluate", "--scores", str(scores), "--positive", "event", "--thresholds", "0.1,0.5", "--test-uncertainty", *few],
        [
            "evaluate",
            "--scores",
            str(scores),
            "--utility",
            '{"utility": [[1, -3], [0, 0]], "classes": ["event", "none"]}',
            "--test-uncertainty",
            "--samples",
            "100",
            "--seed",
            "1",
        ],
        ["evaluate", str(long_form), "--utility", "[[1, 0], [0, 1]]"],
        [
            "evaluate",
            "--probabilities",
            str(certain),
            "--utility",
            '{"utility": [[1, 0], [0, 1]], "classes": ["a", "b"]}',
            "--positive",
            "a",
            "--recalibration",
            "isotonic",
            "--folds",
            "2",
            "--seed",
            "1",
        ],
        [
            "evaluate",
            "--probabilities",
            str(ROOT / "examples" / "probabilities.csv"),
            "--utility",
            str(ROOT / "examples" / "triage_3class.json"),
            "--test-uncertainty",
            *few,
        ],
        [
            "evaluate",
            "--labels",
            str(ROOT / "examples" / "wine_folds.csv"),
            "--utility",
            str(ROOT / "examples" / "wine_utility.json"),
            "--folds-column",
            "fold",
            "--repeats",
            "4",
            "--rope",
            "0.1",
            *few,
        ],
    ]
    names: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            names.update(value)
            value = list(value.values())
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, str):
            names.add(value)

    for command in [*commands, ["story"]]:
        for form in ("json", "csv") if command[0] != "story" else ("json",):
            assert main([*command, "--format", form]) == 0, command
            out = capsys.readouterr().out
            if form == "json":
                walk(json.loads(out))
                continue
            lines = out.splitlines()
            names |= {line[2:].split(":")[0] for line in lines if line.startswith("# ")}
            names |= set(next(line for line in lines if not line.startswith("#")).split(","))
    for example in (ROOT / "examples").glob("*.json"):
        walk(json.loads(example.read_text()))
    names |= {name for example in (ROOT / "examples").glob("*.csv") for name in example.read_text().splitlines()[0].split(",")}
    return names | set(header.split(","))


def test_every_field_the_docs_name_exists(capsys, tmp_path):
    names = _output_names(capsys, tmp_path)
    named = set()
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
        # The paragraphs (and table rows) that speak of JSON or CSV, and the words they quote.
        for part in re.split(r"\n\s*\n|\n(?=\|)", text):
            if re.search(r"\b(json|csv)\b", part, re.I):
                named |= {(page.name, word) for word in re.findall(r"`([A-Za-z_<][A-Za-z0-9_<>]*)`", part)}
    checked = {(page, word) for page, word in named if word not in _NOT_FIELDS and _field_pattern(word)}
    missing = {(page, word) for page, word in checked if not any(_field_pattern(word).fullmatch(name) for name in names)}
    assert len(checked) > 100 and not missing, sorted(missing)


def test_the_readme_shows_the_real_evaluate_output(capsys):
    # The README's block: its command, then lines of the real output in order ("..." skips).
    readme = (ROOT / "README.md").read_text()
    block = readme[readme.index("## Evaluate your own classifiers") :]
    block = block[block.index("```text\n") + len("```text\n") :]
    lines = block[: block.index("```")].splitlines()
    assert lines[0] == "$ mcrank evaluate examples/factory.json --test-uncertainty --seed 1"
    assert main(["evaluate", str(ROOT / "examples" / "factory.json"), "--test-uncertainty", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    position = 0
    for line in lines[1:]:
        if line == "...":
            continue
        assert line in out[position:], line
        position = out.index(line, position) + 1


def test_the_readme_probabilities_numbers_are_the_committed_ones():
    readme = " ".join((ROOT / "README.md").read_text().split())
    shown = lambda row: f"{row['incorrect_pct']:.2f} ± {row['se_pct']:.2f} %"  # noqa: E731

    def rows(name):
        return {(r["name"], r["sd"]): r for r in json.loads((ROOT / "results" / f"{name}.json").read_text())["rows"]}

    truncated, gaussian = rows("probabilities_uniform_truncated"), rows("probabilities_uniform_gaussian")
    for key in (("brier", None), ("log_loss", None), ("accuracy", None), ("utility", 0.1)):
        assert shown(truncated[key]) in readme, key
    assert shown(gaussian["utility", 0.1]) in readme
    assert f"({truncated['brier', None]['tied_pct']:.2f} % are)" in readme
