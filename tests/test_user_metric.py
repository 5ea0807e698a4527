"""A researcher's own metric (``mcrank run --metric-file``), and compliance with eq. (16).

A metric file that loads registers its metrics for good, so every test that loads one runs it
in a process of its own (``mcrank run``, or a Python script); the refusals register nothing and
run here.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from mcrank.cli import main
from mcrank.metrics import METRICS, compliance, load_metric_file, metric

ROOT = Path(__file__).resolve().parents[1]

ACCURACY_FILE = """\
import numpy as np

import mcrank.metrics


@mcrank.metrics.metric("my_accuracy", "My accuracy")
def my_accuracy(p, tpr, tnr):
    return p * tpr + (1 - p) * tnr


@mcrank.metrics.metric("my_accuracy_n", "My accuracy, n classes", general=True)
def my_accuracy_n(c):
    return np.trace(c)
"""


def _mcrank(*arguments, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "mcrank", *map(str, arguments)], capture_output=True, text=True, cwd=cwd, timeout=600)


def _rows(document) -> dict:
    return {(row["name"], row["sd"]): (row["incorrect_pct"], row["se_pct"]) for row in document["rows"]}


@pytest.mark.slow
def test_a_users_copy_of_accuracy_gives_the_built_in_rows_counts_exactly(tmp_path):
    metric_file = tmp_path / "mine.py"
    metric_file.write_text(ACCURACY_FILE)
    common = ("--seed", 3, "--sd", 0.1, "--format", "json", "--jobs", 1)
    binary = _mcrank("run", "--metric-file", metric_file, "--metrics", "accuracy", "my_accuracy", "tpr", "--samples", "1e5", *common)
    assert binary.returncode == 0, binary.stderr
    document = json.loads(binary.stdout)
    rows = rows_binary = _rows(document)
    assert rows[("my_accuracy", None)] == rows[("accuracy", None)]
    assert rows[("tpr", None)] != rows[("accuracy", None)]  # the rows differ where the metrics do
    assert 5 < rows[("accuracy", None)][0] < 15
    # Provenance: the file, its digest, and its metrics' compliance with eq. (16).
    assert document["metric_files"] == [
        {
            "path": str(metric_file),
            "sha256": hashlib.sha256(metric_file.read_bytes()).hexdigest(),
            "metrics": {
                "my_accuracy": "compliant: yes, U = [[1, 0], [0, 1]]",
                "my_accuracy_n": "compliant: yes, U = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
            },
        }
    ]
    # Three classes, through the n-class form over the normalised matrix.
    three = _mcrank(
        "run", "--metric-file", metric_file, "--classes", 3, "--metrics", "accuracy", "my_accuracy_n", "--samples", "2e4", *common
    )
    assert three.returncode == 0, three.stderr
    rows = _rows(json.loads(three.stdout))
    assert rows[("my_accuracy_n", None)] == rows[("accuracy", None)] and 5 < rows[("accuracy", None)][0] < 25
    # ... and on a test set of 100 items, where ties are common: np.trace(c) of c = C / N rounds
    # where the built-in trace / N does not, yet ties where it does.
    finite = _mcrank(
        "run", "--metric-file", metric_file, "--classes", 3, "--metrics", "accuracy", "my_accuracy_n", "--samples", "2e4",
        "--test-size", 100, *common,
    )  # fmt: skip
    assert finite.returncode == 0, finite.stderr
    rows = {row["name"]: (row["incorrect"], row["tied_pct"]) for row in json.loads(finite.stdout)["rows"]}
    assert rows["my_accuracy_n"] == rows["accuracy"] and rows["accuracy"][1] > 1
    # An experiment file names the metric file relative to itself (run from elsewhere).
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "mine.py").write_text(ACCURACY_FILE)
    (tmp_path / "study" / "mine.toml").write_text(
        'metric_file = "mine.py"\nmetrics = ["accuracy", "my_accuracy"]\nsamples = 100000\nseed = 3\n'
    )
    experiment = _mcrank("run", "--config", tmp_path / "study" / "mine.toml", "--format", "json", "--jobs", 1)
    assert experiment.returncode == 0, experiment.stderr
    document = json.loads(experiment.stdout)
    assert _rows(document)[("my_accuracy", None)] == rows_binary[("accuracy", None)]
    assert document["metric_files"][0]["path"] == str(tmp_path / "study" / "mine.py")
    # The table says where the metric came from and whether it complies.
    table = _mcrank(
        "run", "--metric-file", "mine.py", "--metrics", "my_accuracy", "--samples", "1e5", "--seed", 3, "--jobs", 1, cwd=tmp_path
    )
    assert table.returncode == 0, table.stderr
    assert f"\nmine.py (sha256 {hashlib.sha256(metric_file.read_bytes()).hexdigest()[:16]}):" in table.stdout
    assert "my_accuracy: compliant: yes, U = [[1, 0], [0, 1]]" in table.stdout


#: Copies of three built-in metrics, written as a researcher would, from the rates.
COPIES_FILE = """\
import mcrank.metrics


@mcrank.metrics.metric("my_accuracy", "My accuracy")
def my_accuracy(p, tpr, tnr):
    return p * tpr + (1 - p) * tnr


@mcrank.metrics.metric("my_tpr", "My TPR")
def my_tpr(p, tpr, tnr):
    return tpr


@mcrank.metrics.metric("my_f1", "My F1")
def my_f1(p, tpr, tnr):
    return 2 * p * tpr / (p * tpr + p + (1 - p) * (1 - tnr))
"""


@pytest.mark.slow
@pytest.mark.parametrize("test_size", [100, 1000])
def test_copies_of_built_in_metrics_give_their_counts_and_ties_exactly_on_finite_test_sets(tmp_path, test_size):
    # On a test set, matrices of equal accuracy tie, and a copy computed from the rates must
    # tie them too though its roundings differ; where a class is absent from the test set, the
    # copy of accuracy is defined and the copy of TPR is not, as the built-in ones are.
    metric_file = tmp_path / "copies.py"
    metric_file.write_text(COPIES_FILE)
    metrics = ("accuracy", "my_accuracy", "tpr", "my_tpr", "f1", "my_f1")
    ran = _mcrank(
        "run", "--metric-file", metric_file, "--metrics", *metrics, "--samples", "1e5", "--test-size", test_size,
        "--seed", 3, "--sd", 0.1, "--format", "json", "--jobs", 1,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    rows = {row["name"]: (row["incorrect"], row["tied_pct"]) for row in json.loads(ran.stdout)["rows"]}
    for built_in in ("accuracy", "tpr", "f1"):
        assert rows[f"my_{built_in}"] == rows[built_in]
        assert rows[built_in][1] > 0.1  # ties there are, in every row, so the rule is exercised
    assert rows["accuracy"] != rows["tpr"]


_SCORE_SCRIPT = """\
import sys

import numpy as np

import mcrank.metrics
from mcrank import samplers
from mcrank.metrics import _score_into

mcrank.metrics.load_metric_file(sys.argv[1])
c = np.random.default_rng(5).uniform(1, 10, size=(100, 2, 2))  # more than are scored as Python
print(mcrank.metrics.score("mine", c).tolist())
print(_score_into.dispatcher.py_func._mcrank_cache[0], samplers._fill_hexagon.dispatcher.py_func._mcrank_cache[0])
"""


@pytest.mark.slow
def test_an_edited_metric_file_compiles_anew_and_the_samplers_do_not(tmp_path):
    script = tmp_path / "score.py"
    script.write_text(_SCORE_SCRIPT)
    metric_file = tmp_path / "mine.py"

    def scored(body: str):
        metric_file.write_text(
            f"import mcrank.metrics\n\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef mine(p, tpr, tnr):\n    return {body}\n"
        )
        run = subprocess.run([sys.executable, str(script), str(metric_file)], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr
        values, directories = run.stdout.splitlines()
        return np.array(json.loads(values)), directories.split()

    c = np.random.default_rng(5).uniform(1, 10, size=(100, 2, 2))
    accuracy, first = scored("p * tpr + (1 - p) * tnr")
    tpr, edited = scored("tpr")
    again, same = scored("p * tpr + (1 - p) * tnr")
    np.testing.assert_allclose(accuracy, (c[:, 0, 0] + c[:, 1, 1]) / c.sum(axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(tpr, c[:, 0, 0] / (c[:, 0, 0] + c[:, 1, 0]), rtol=1e-12)
    assert np.array_equal(again, accuracy)
    # The metrics' switch: a directory per file's text; the samplers: the package's, shared.
    assert first[0] != edited[0] and first == same
    assert first[1] == edited[1] != first[0]


RAISING_FILE = """\
import numba

import mcrank.metrics


@mcrank.metrics.metric("too_high", "Raises on a high TPR")
def too_high(p, tpr, tnr):
    if tpr > 0.98:
        raise ValueError("tpr too high")
    return tpr


@mcrank.metrics.metric("divides", "Raises ZeroDivisionError")
def divides(p, tpr, tnr):
    if tnr > 0.98:
        raise ZeroDivisionError("tnr too high")
    return tnr


@numba.njit
def helper(x):
    if x > 0.98:
        raise KeyError("deep")
    return x


@mcrank.metrics.metric("through_a_helper", "Raises in a helper")
def through_a_helper(p, tpr, tnr):
    return helper(tpr)


@mcrank.metrics.metric("high_tpr", "TPR above 0.8, a bool")
def high_tpr(p, tpr, tnr):
    return tpr > 0.8


@mcrank.metrics.metric("high_tpr_float", "TPR above 0.8, 1 or 0")
def high_tpr_float(p, tpr, tnr):
    return 1.0 if tpr > 0.8 else 0.0


@mcrank.metrics.metric("high_cell", "C00 above 0.3, a bool", general=True)
def high_cell(c):
    return c[0, 0] > 0.3


@mcrank.metrics.metric("high_cell_float", "C00 above 0.3, 1 or 0", general=True)
def high_cell_float(c):
    return 1.0 if c[0, 0] > 0.3 else 0.0
"""


@pytest.mark.slow
def test_a_metric_that_raises_in_a_study_is_one_line_naming_the_file_and_the_metric(tmp_path):
    # They gave tracebacks (exit 1), or, for a ValueError, its bare message; a bool return
    # failed to compile in the kernels (numba has no float(bool)).
    metric_file = tmp_path / "mine.py"
    metric_file.write_text(RAISING_FILE)
    common = ("--metric-file", metric_file, "--samples", "2000", "--seed", 1, "--quiet", "--format", "json")
    for chosen, backend, said in [
        ("too_high", "threading", "metric 'too_high' raised ValueError: tpr too high (in too_high, line 9, while a study scored it)"),
        ("too_high", "loky", "metric 'too_high' raised ValueError: tpr too high (in too_high, line 9, while a study scored it)"),
        ("divides", "threading", "metric 'divides' raised ZeroDivisionError: tnr too high (in divides, line 16, "),
        ("through_a_helper", "threading", "one of its metrics ('too_high', 'divides', 'through_a_helper', "),
    ]:
        run = _mcrank("run", *common, "--metrics", "accuracy", chosen, "--backend", backend, "--jobs", 1 if backend == "threading" else 2)
        assert run.returncode == 2 and run.stdout == "", run.stderr
        assert run.stderr.startswith(f"mcrank run: error: {metric_file}: {said}") and run.stderr.count("\n") == 1, run.stderr
    assert "'high_cell_float') raised KeyError: 'deep' (in helper, line 23, while a study scored it)\n" in run.stderr
    # A bool is a number, 1 for True and 0 for False: its rows are those of the same metric
    # written with 1.0 and 0.0.
    for classes, pair in [(2, ("high_tpr", "high_tpr_float")), (3, ("high_cell", "high_cell_float"))]:
        run = _mcrank("run", *common, "--metrics", *pair, "--classes", classes, "--jobs", 1)
        assert run.returncode == 0 and run.stderr == "", run.stderr
        document = json.loads(run.stdout)
        rows = {row["name"]: row["incorrect"] for row in document["rows"]}
        assert rows[pair[0]] == rows[pair[1]] and 0 < rows[pair[0]] < 2000
        compliance = document["metric_files"][0]["metrics"]
        assert compliance[pair[0]] == compliance[pair[1]]


# --- refusals: one line, exit code 2 ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('accuracy', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n",
            "metric id 'accuracy' is taken: it is a built-in metric (or its alias); choose another",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('recall', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n",
            "metric id 'recall' is taken",
        ),
        ("def f(p, tpr, tnr)\n    return tpr\n", "line 1: syntax error: expected ':'"),
        ("def f(p, tpr, tnr):\n    return tpr\n", "no metric in it: decorate a function with @mcrank.metrics.metric(id, name)"),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef f(p, tpr, tnr):\n    return p.numerator\n",
            "metric 'mine' cannot be compiled by numba: Unknown attribute 'numerator' of type float64",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef f(p, tpr, tnr):\n    return (p, tpr)\n",
            "metric 'mine' must return a number, but returns UniTuple(float64 x 2)",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('my-metric', 'Mine')\ndef f(p, tpr, tnr):\n    return p\n",
            "metric id 'my-metric' must be",
        ),
        ("raise RuntimeError('not today')\n", "running it raised RuntimeError: not today"),
        ("import sys\n\nsys.exit(3)\n", "running it raised SystemExit: 3"),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n\n"
            "@mcrank.metrics.metric('mine_too', 'Mine too')\ndef g(p, tpr, tnr):\n    if p > 0.5:\n        raise ValueError('p too high')\n"
            "    return tpr\n",
            "metric 'mine_too' raised ValueError: p too high (at p = 0.55, tpr = 0.05, tnr = 0.05, testing its compliance)",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('utility', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n",
            "metric id 'utility' is taken: it is the name of the rows of the perturbed utility matrix; choose another",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('brier', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n",
            "metric id 'brier' is taken: it is a probability score, the rows of another kind of study; choose another",
        ),
        (
            "import mcrank.metrics\n\n@mcrank.metrics.metric('auc', 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n",
            "metric id 'auc' is taken: it is a ROC score, the rows of another kind of study; choose another",
        ),
    ],
    ids=[
        "built-in id",
        "alias",
        "syntax error",
        "no metric",
        "uncompilable",
        "not a number",
        "malformed id",
        "raises",
        "exits",
        "raises on a test of compliance",
        "utility rows",
        "probability score",
        "roc score",
    ],
)
def test_a_bad_metric_file_is_one_line_and_exit_code_2(tmp_path, capsys, text, message):
    metric_file = tmp_path / "bad.py"
    metric_file.write_text(text)
    registered = tuple(METRICS)
    assert main(["run", "--metric-file", str(metric_file), "--samples", "1000"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mcrank run: error: {metric_file}: ")
    assert message in err and "Traceback" not in err
    assert tuple(METRICS) == registered  # nothing registered


def _row_names_of_every_kind() -> set[str]:
    """Every name a row of a study of any kind may have, found from the kinds themselves: each
    id of every registry of ids in the package that the kind takes for a score, and the names
    of the rows of a result of it with all those scores."""
    from mcrank._axes import Registry
    from mcrank.study import StudyConfig, StudyResult
    from mcrank.study.kinds import STUDY_KINDS

    for kind in STUDY_KINDS.values():
        kind.scores(None, 2)  # imports the registry of its scores
    registries = [
        value
        for name, module in list(sys.modules.items())
        if name.startswith("mcrank")
        for value in vars(module).values()
        if isinstance(value, Registry) and value.key == "id"
    ]
    names = set()
    for kind in STUDY_KINDS.values():
        ids = set()
        for registry in registries:
            for id in registry:
                try:
                    ids.update(kind.scores([id], 2))
                except ValueError:  # not one of this kind's scores
                    pass
        config = StudyConfig(kind=kind.name, metrics=tuple(sorted(ids)), sds=(0.1,), seed=1, samples=10)
        rows = len(ids) + 1
        result = StudyResult(config, dict.fromkeys(config.metrics, 0), np.zeros(1), np.zeros(1), np.ones(1), np.zeros((1, rows)))
        names.update(row["name"] for row in result.rows())
    return names


def test_a_metric_may_take_no_name_of_a_studys_rows(tmp_path):
    # A user's metric named utility, brier or auc gave rows of two things one name.
    names = _row_names_of_every_kind()
    assert {"utility", "accuracy", "tpr", "macro_f1", "auc", "hmeasure", "brier", "log_loss"} <= names
    registered = tuple(METRICS)
    for name in sorted(names):
        metric_file = tmp_path / f"{name}.py"
        metric_file.write_text(
            f"import mcrank.metrics\n\n\n@mcrank.metrics.metric({name!r}, 'Mine')\ndef f(p, tpr, tnr):\n    return tpr\n"
        )
        with pytest.raises(ValueError, match=f"^{metric_file}: metric id '{name}' is taken: it is "):
            load_metric_file(metric_file)
    assert tuple(METRICS) == registered


def test_an_experiments_metric_file_is_relative_to_the_experiment_file(tmp_path, capsys, monkeypatch):
    (tmp_path / "study").mkdir()
    (tmp_path / "study" / "bad.py").write_text("def f(p, tpr, tnr)\n")
    experiment = tmp_path / "study" / "mine.toml"
    experiment.write_text('metric_file = "bad.py"\nseed = 1\nsamples = 1000\n')
    monkeypatch.chdir(ROOT)
    assert main(["run", "--config", str(experiment)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"mcrank run: error: {experiment}: key 'metric_file': {tmp_path / 'study' / 'bad.py'}: line 1: syntax error: expected ':'\n"
    )
    experiment.write_text("metric_file = 3\n")
    assert main(["run", "--config", str(experiment)]) == 2
    assert "key 'metric_file' must be the path of a Python file" in capsys.readouterr().err


def test_a_missing_metric_file_is_one_line(tmp_path, capsys):
    assert main(["run", "--metric-file", str(tmp_path / "none.py")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.py" in err


# --- compliance, eq. (16) -------------------------------------------------------------------------

#: The paper's §3.3, with micro F1 (accuracy for any number of classes).
COMPLIANT_UM = {
    "accuracy": [[1, 0], [0, 1]],
    "tpr": [[1, 0], [0, 0]],
    "tnr": [[0, 0], [0, 1]],
    "micro_f1": np.eye(3).tolist(),
}


@pytest.mark.parametrize("name", list(METRICS))
def test_compliance_of_every_built_in_metric_is_the_papers(name):
    found = compliance(name)
    assert found.compliant == (name in COMPLIANT_UM) == METRICS[name].compliant
    if found.compliant:
        assert found.utility.tolist() == COMPLIANT_UM[name] and found.deviation < 1e-12
        assert str(found) == f"compliant: yes, U = {json.dumps(COMPLIANT_UM[name]).replace('.0', '')}"
    else:
        assert found.deviation > 1e-3 and str(found).startswith("compliant: no, ")


def test_balanced_accuracy_is_linear_for_each_p_but_not_across_p():
    found = compliance("balanced_accuracy")
    assert not found.compliant
    assert "linear in the cells on each test set, but its utility matrix changes with the class proportions" in found.reason
    assert "not linear in the cells" in compliance("f1").reason


def test_any_utility_yield_under_a_scale_and_shift_of_the_class_proportions_complies():
    # Eq. (16): a(p) (yield of U) + b(p), a > 0. The fitted U is U with each column's least
    # entry 0, scaled to a largest entry 1 (a column's constant goes into b).
    u = np.array([[0.7, -0.4], [0.1, 0.9]])

    def yield_of_u(p, tpr, tnr):
        c = np.array([[p * tpr, (1 - p) * (1 - tnr)], [p * (1 - tpr), (1 - p) * tnr]])
        return (2 + np.sin(7 * p)) * np.sum(u * c) + np.cos(5 * p)

    found = compliance(yield_of_u)
    expected = u - u.min(axis=0)
    assert found.compliant and np.allclose(found.utility, expected / expected.max(), atol=1e-9)
    assert not compliance(lambda p, tpr, tnr: -yield_of_u(p, tpr, tnr)).compliant  # lower is better
    assert "ranks nothing" in compliance(lambda p, tpr, tnr: 0.5).reason


def test_compliance_of_a_decorated_function_before_its_file_is_loaded():
    @metric("not_registered", "Not registered", general=True)
    def trace(c):
        return np.trace(c)

    assert str(compliance(trace)) == "compliant: yes, U = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
    assert "not_registered" not in METRICS  # the decorator registers only while a file loads
    found = compliance(metric("recall_0", "Recall of class 0", general=True)(lambda c: c[0, 0] / c[:, 0].sum()), classes=4)
    assert found.compliant and found.utility.shape == (4, 4)


def test_the_docs_example_file_runs_as_a_script():
    # docs/method.md's metric file, run as Python, registers nothing.
    text = (ROOT / "docs" / "method.md").read_text()
    block = text[text.index("## Test your own metric") :]
    source = textwrap.dedent(block[block.index("```python\n") + 10 : block.index("```", block.index("```python\n") + 10)])
    namespace: dict = {}
    exec(compile(source, "docs/method.md", "exec"), namespace)  # noqa: S102 - the docs' own code
    assert "my_accuracy" not in METRICS


def test_every_kernel_that_reaches_a_users_entry_is_keyed_on_it_whatever_the_order_of_the_walk():
    # d calls c and e, both call b, which calls a, a piece of a registry entry from outside the
    # package: each of them inlines a's code, so each is keyed on its source, whichever of c and
    # e the walk meets first (it once left the second one out).
    from mcrank._jit import _sources_reached, extend_cache_key, jit

    namespace: dict = {}
    source = "def a(x):\n    return x\ndef b(x):\n    return a(x)\ndef c(x):\n    return b(x)\ndef e(x):\n    return b(x)\n"
    exec(compile(source + "def d(x):\n    return c(x) + e(x)\n", "<toy kernels>", "exec"), namespace)  # noqa: S102
    for name in "abcde":
        namespace[name] = jit(namespace[name])
    extend_cache_key("the toy entry's source", [namespace["a"]])
    assert _sources_reached(namespace["d"]) == {"the toy entry's source"}
    assert all(_sources_reached(namespace[name]) == {"the toy entry's source"} for name in "abce")


def test_values_that_differ_by_rounding_only_tie_and_a_test_sets_smallest_difference_does_not():
    from mcrank.ranking import _beyond_rounding

    beyond = _beyond_rounding.py_func
    assert beyond(0.1 + 0.2, 0.3) == 0.0 and beyond(1e-300, 0.0) == 0.0  # rounding; below 1 the scale is 1
    assert beyond(3e5 * (0.1 + 0.2), 9e4) == 0.0  # relative to the larger magnitude
    assert beyond(0.5 + 1e-12, 0.5) == pytest.approx(1e-12, rel=1e-3)  # 1 / N at N = 10^12 is a difference
    assert beyond(1.0, 0.5) == 0.5 and np.isnan(beyond(np.nan, 0.5))
