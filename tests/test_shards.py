"""Studies in shards (``mcrank run --shard I/N``, ``mcrank merge``): the merge is bit-identical to one run."""

import hashlib
import json
import random
import subprocess
import sys
from dataclasses import replace

import pytest

from mcrank.cli import main
from mcrank.engine import merge_shards, run_shard, run_study
from mcrank.engine.runner import chunk_count, shard_chunks
from mcrank.results import shard_document
from mcrank.study import StudyConfig

SETTINGS = {
    "binary": dict(sds=(0.0, 0.1, 0.3)),
    "binary, conditional estimator": dict(sds=(0.1, 0.2), estimator="conditional"),
    "truncated errors": dict(sds=(0.1,), error="truncated"),
    "three classes": dict(sds=(0.1,), classes=3),
    "finite test sets": dict(sds=(0.1,), test_size=50),
    "roc": dict(sds=(0.1,), kind="roc"),
    "finite test sets, sample estimator": dict(sds=(0.1, 0.2), test_size=30, estimator="sample"),
    "probabilities": dict(sds=(0.1,), kind="probabilities"),
}


def _numbers(result) -> str:
    document = result.to_dict()
    document.pop("wall_time")
    return json.dumps(document, sort_keys=True)


@pytest.mark.parametrize("setting", SETTINGS)
def test_merged_shards_are_one_run_bit_for_bit(setting):
    config = StudyConfig(samples=20_011, seed=11, chunk_size=1_000, **SETTINGS[setting])
    one = run_study(config, jobs=2)
    shards = [run_shard(config, (index, 5), jobs=1 + index % 2) for index in range(1, 6)]
    random.Random(1).shuffle(shards)
    assert _numbers(merge_shards(shards)) == _numbers(one)


def test_more_shards_than_chunks_leave_some_empty():
    config = StudyConfig(samples=3_000, seed=2, chunk_size=1_000, sds=(0.1,))
    shards = [run_shard(config, (index, 7), jobs=1) for index in range(1, 8)]
    assert sum(1 for shard in shards if not shard.chunks) == 4
    assert _numbers(merge_shards(shards)) == _numbers(run_study(config, jobs=1))


@pytest.mark.parametrize(("samples", "count"), [(1, 1), (10, 3), (10_000, 7), (12_345, 12_345)])
def test_the_shards_cut_the_chunks_into_contiguous_runs(samples, count):
    chunks = chunk_count(samples, 100)
    runs = [shard_chunks(samples, 100, (index, count)) for index in range(1, count + 1)]
    assert [chunk for run in runs for chunk in run] == list(range(chunks))
    assert max(len(run) for run in runs) - min(len(run) for run in runs) <= 1


def _shards(**changes):
    config = StudyConfig(**{"samples": 4_000, "seed": 5, "chunk_size": 1_000, "sds": (0.1,), **changes})
    return [run_shard(config, (index, 2), jobs=1) for index in (1, 2)]


def test_a_merge_refuses_what_is_not_one_study():
    first, second = _shards()
    with pytest.raises(ValueError, match="shards: 1 of 2 missing: 2/2"):
        merge_shards([first])
    with pytest.raises(ValueError, match="shard 1/2 is given twice"):
        merge_shards([first, first, second])
    other = _shards(seed=6)[1]
    with pytest.raises(ValueError, match="different studies"):
        merge_shards([first, other])
    with pytest.raises(ValueError, match="cut the study differently"):
        merge_shards([first, run_shard(first.config, (2, 3), jobs=1)])
    with pytest.raises(ValueError, match="none given"):
        merge_shards([])


def test_a_shard_needs_a_fixed_seed_and_a_shard_number():
    with pytest.raises(ValueError, match="seed must be fixed"):
        run_shard(StudyConfig(samples=1_000, sds=(0.1,)), (1, 2))
    for shard in [(0, 2), (3, 2), (1, 0), (1,), "1/2", (1.0, 2), (True, 2)]:
        with pytest.raises(ValueError, match="shard must be"):
            run_shard(StudyConfig(samples=1_000, sds=(0.1,), seed=1), shard)


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture
def experiment(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('description = "a small study"\nsamples = 30000\nchunk_size = 4000\nseed = 9\nsds = [0.1, 0.2]\n')
    return path


def test_the_command_lines_merge_is_one_run(capsys, tmp_path, experiment):
    for index in (1, 2, 3):
        assert (
            main(["run", "--config", str(experiment), "--shard", f"{index}/3", "--jobs", "1", "--out", str(tmp_path / f"s{index}.json")])
            == 0
        )
    assert capsys.readouterr().err.splitlines() == [f"mcrank run: wrote shard {i}/3 to {tmp_path / f's{i}.json'}" for i in (1, 2, 3)]
    shards = [str(tmp_path / f"s{index}.json") for index in (3, 1, 2)]
    assert main(["merge", *shards, "--out", str(tmp_path / "merged.json")]) == 0
    assert capsys.readouterr().err == f"mcrank merge: wrote {tmp_path / 'merged.json'} from 3 shards\n"
    assert main(["run", "--config", str(experiment), "--quiet", "--format", "json"]) == 0
    one = json.loads(capsys.readouterr().out)
    merged = json.loads((tmp_path / "merged.json").read_text())
    for key in ("source", "config", "rows", "batches"):
        assert merged[key] == one[key]
    assert main(["merge", *shards, "--format", "csv"]) == 0
    assert "utility,0.2," in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--shard", "0/3"], "--shard: '0/3': I/N needs 1 <= I <= N"),
        (["--shard", "4/3"], "--shard: '4/3': I/N needs 1 <= I <= N"),
        (["--shard", "1_0/30"], "--shard: '1_0/30' is not I/N"),
        (["--shard", "１/3"], "is not I/N"),
        (["--shard", "1/3", "--format", "csv"], "--format csv is not that"),
        (["--shard", "1/3", "--seed", "none"], None),
    ],
)
def test_bad_shards_get_one_line(capsys, tmp_path, arguments, message):
    try:
        code = main(["run", "--samples", "1000", "--seed", "1", "--quiet", *arguments, "--out", str(tmp_path / "s.json")])
    except SystemExit as exit:  # argparse's refusal of the flag's value
        code = exit.code
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1 and not (tmp_path / "s.json").exists()
    if message is not None:
        assert message in err


def test_bad_merges_get_one_line(capsys, tmp_path, experiment):
    for index in (1, 2):
        main(["run", "--config", str(experiment), "--shard", f"{index}/2", "--quiet", "--out", str(tmp_path / f"s{index}.json")])
    study = tmp_path / "study.json"
    main(["run", "--config", str(experiment), "--quiet", "--out", str(study)])
    tampered = json.loads((tmp_path / "s2.json").read_text())
    tampered["chunks"] = tampered["chunks"][1:]
    (tmp_path / "t2.json").write_text(json.dumps(tampered))
    capsys.readouterr()
    for shards, message in [
        (["s1.json"], "shards: 1 of 2 missing: 2/2"),
        (["s1.json", "s1.json", "s2.json"], "is given twice"),
        (["s1.json", "study.json"], "not an mcrank shard file"),
        (["s1.json", "t2.json"], "does not hold its chunks 4-7"),
        (["s1.json", "nothing.json"], "nothing.json"),
    ]:
        code = main(["merge", *(str(tmp_path / name) for name in shards), "--out", str(tmp_path / "merged.json")])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and message in err, err
        assert not (tmp_path / "merged.json").exists()


#: Shards of studies whose chunks are laid out each their own way: a conditional estimator's
#: float counts and sums of probabilities, a finite test set's ties, and the pairs tied in
#: truth of the kinds of scoring classifiers, counted last.
CORRUPTED = {
    "conditional": dict(sds=(0.1,)),
    "ties": dict(sds=(0.1,), test_size=30, estimator="sample", error="truncated"),
    "probabilities": dict(sds=(0.1,), kind="probabilities"),
}


def _corrupt(document, change):
    chunk = document["chunks"][0]
    incorrect, sums = chunk[2], chunk[3]
    sds = len(document["config"]["sds"])
    if change == "negative":
        incorrect[0] = -5
    elif change == "string":
        incorrect[0] = str(incorrect[0])
    elif change == "bool":
        incorrect[1] = True
    elif change == "fraction":
        incorrect[0] = 5.5
    elif change == "huge":
        incorrect[0] = 10**17
    elif change == "beyond int64":
        incorrect[0] = 10**30
    elif change == "above the pairs":
        incorrect[0] = chunk[1] + 1
    elif change == "tied above the pairs":
        if document["config"].get("kind") == "probabilities":
            incorrect[-1] = chunk[1] + 1
        else:
            sums[2 * sds] = chunk[1] + 1
    elif change == "tied above the incorrect":
        sums[2 * sds] = incorrect[0] + 1
    elif change == "sum not finite":
        sums[0] = float("nan")
    elif change == "squares negative":
        sums[sds] = -1.0
    elif change == "dtype":
        document["dtype"] = "float64" if document["dtype"] == "int64" else "int64"
    elif change == "one count short":
        for each in document["chunks"]:
            each[2].pop()
    elif change == "size a string":
        chunk[1] = str(chunk[1])
    elif change == "wall time":
        document["wall_time"] = "soon"


@pytest.mark.parametrize(
    ("setting", "change", "message"),
    [
        (
            "conditional",
            "negative",
            "chunk 0: the count of incorrectly ranked pairs of 'accuracy' is -5.0, not a whole number from 0 to 1,000",
        ),
        ("conditional", "string", "not an mcrank shard file (written by mcrank run --shard): chunk 0 holds '"),
        ("conditional", "bool", "chunk 0 holds True, not a number"),
        (
            "conditional",
            "fraction",
            "chunk 0: the count of incorrectly ranked pairs of 'accuracy' is 5.5, not a whole number from 0 to 1,000",
        ),
        ("conditional", "above the pairs", "of 'accuracy' is 1001.0, not a whole number from 0 to 1,000"),
        ("conditional", "huge", "of 'accuracy' is 1e+17, not a whole number from 0 to 1,000"),
        (
            "conditional",
            "sum not finite",
            "chunk 0: the sum of the deviations of the utility at sd 0.1 is nan, not 0, as this study's kernel leaves it",
        ),
        (
            "conditional",
            "tied above the pairs",
            "chunk 0: the count of tied pairs of 'accuracy' is 1001.0, not 0, as this study's kernel leaves it",
        ),
        ("conditional", "dtype", "not an mcrank shard file (written by mcrank run --shard): chunk 0 holds "),
        ("ties", "negative", "chunk 0: the count of incorrectly ranked pairs of 'accuracy' is -5, not a whole number from 0 to 1,000"),
        ("ties", "fraction", "chunk 0 holds 5.5, not a whole number"),
        ("ties", "string", "chunk 0 holds '"),
        ("ties", "huge", "of 'accuracy' is 100000000000000000, not a whole number from 0 to 1,000"),
        ("ties", "beyond int64", "its counts are malformed"),
        ("ties", "tied above the pairs", "chunk 0: the count of tied pairs of 'accuracy' is 1001.0, not a whole number from 0 to 1,000"),
        ("ties", "tied above the incorrect", "chunk 0: the count of tied pairs (each counted incorrect too) of 'accuracy' is "),
        ("ties", "sum not finite", "chunk 0: the sum of the deviations of the utility at sd 0.1 is nan, not a finite number"),
        ("ties", "squares negative", "chunk 0: the sum of the squared deviations of the utility at sd 0.1 is -1.0, not a number from 0"),
        ("ties", "one count short", "its chunks hold 7 counts and 11 sums, but this study's hold 8 and 11"),
        (
            "probabilities",
            "negative",
            "chunk 0: the count of incorrectly ranked pairs (of those untied in truth) of 'brier' is -5, not a whole number from 0 to ",
        ),
        ("probabilities", "tied above the pairs", "chunk 0: the count of pairs tied in truth is 1001, not a whole number from 0 to 1,000"),
        ("probabilities", "above the pairs", "of 'brier' is 1001, not a whole number from 0 to "),
        ("probabilities", "dtype", "its counts are float64, but this study's are int64"),
        ("probabilities", "size a string", "its counts are malformed"),
        ("probabilities", "wall time", "its wall_time is 'soon', not a number of seconds"),
    ],
)
def test_a_merge_refuses_counts_no_run_could_have_made(capsys, tmp_path, setting, change, message):
    # Negative, string and fractional counts, ties beyond the chunk's pairs, and a float dtype
    # in a probabilities study's shard were merged into wrong rows (exit 0), a huge count
    # stopped the merge with "math domain error", naming no file.
    config = StudyConfig(samples=4_000, seed=5, chunk_size=1_000, **CORRUPTED[setting])
    names = []
    for index in (1, 2):
        document = json.loads(json.dumps(shard_document(run_shard(config, (index, 2), jobs=1))))
        if index == 1:
            _corrupt(document, change)
        names.append(tmp_path / f"s{index}.json")
        names[-1].write_text(json.dumps(document))
    code = main(["merge", *map(str, names), "--out", str(tmp_path / "merged.json")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith(f"mcrank merge: error: {names[0]}: ") and message in err, err
    assert not (tmp_path / "merged.json").exists()


def test_the_engine_checks_the_counts_of_shards_given_to_it():
    first, second = _shards()
    chunk, size, incorrect, sums = first.chunks[0]
    bad = replace(first, chunks=[(chunk, size, incorrect * 0 - 1, sums), *first.chunks[1:]])
    with pytest.raises(
        ValueError, match="^shards: shard 1/2: chunk 0: the count of incorrectly ranked pairs of 'accuracy' is -1.0, not a whole number"
    ):
        merge_shards([bad, second])


# --- a user's metrics ----------------------------------------------------------------------------

_METRIC_FILE = "import mcrank.metrics\n\n\n@mcrank.metrics.metric('mine', 'Mine')\ndef mine(p, tpr, tnr):\n    return {body}\n"


def _mcrank(*arguments, cwd):
    return subprocess.run([sys.executable, "-m", "mcrank", *map(str, arguments)], capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.mark.slow
def test_a_merge_refuses_a_metric_file_other_than_the_shards(tmp_path):
    # The shards recorded no digest of the metric file: merged with an edited one, the result
    # named the new file's sha256 and compliance beside the old file's counts. Loading a metric
    # file registers its metrics for good, so each command runs in a process of its own.
    metric_file = tmp_path / "mine.py"
    metric_file.write_text(_METRIC_FILE.format(body="tpr"))
    digest = hashlib.sha256(metric_file.read_bytes()).hexdigest()
    study = ("--metric-file", "mine.py", "--metrics", "accuracy", "mine", "--samples", 4000, "--seed", 3, "--jobs", 1, "--quiet")
    for index in (1, 2):
        done = _mcrank("run", *study, "--shard", f"{index}/2", "--out", f"s{index}.json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    shard = json.loads((tmp_path / "s1.json").read_text())
    assert [(f["path"], f["sha256"]) for f in shard["metric_files"]] == [("mine.py", digest)]
    merged = _mcrank("merge", "s1.json", "s2.json", "--metric-file", "mine.py", "--out", "merged.json", cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    assert json.loads((tmp_path / "merged.json").read_text())["metric_files"][0]["sha256"] == digest
    metric_file.write_text(_METRIC_FILE.format(body="tnr"))
    edited = hashlib.sha256(metric_file.read_bytes()).hexdigest()
    refused = _mcrank("merge", "s1.json", "s2.json", "--metric-file", "mine.py", "--out", "again.json", cwd=tmp_path)
    assert refused.returncode == 2 and not (tmp_path / "again.json").exists()
    assert refused.stderr == (
        f"mcrank merge: error: mine.py: not the metric file shard 1/2 was run with: its sha256 is {edited[:16]}..., "
        f"the shard's file was mine.py (sha256 {digest[:16]}); merge with that file\n"
    )
    # A shard of an older mcrank, which recorded no digest, cannot be checked: it is refused.
    del shard["metric_files"]
    (tmp_path / "old.json").write_text(json.dumps(shard))
    metric_file.write_text(_METRIC_FILE.format(body="tpr"))
    refused = _mcrank("merge", "old.json", "s2.json", "--metric-file", "mine.py", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("mcrank merge: error: old.json: records no SHA-256 of the metric file mine.py whose metrics it counts")
