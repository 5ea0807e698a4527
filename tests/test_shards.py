"""Studies in shards (``mcrank run --shard I/N``, ``mcrank merge``): the merge is bit-identical to one run."""

import hashlib
import json
import random
import subprocess
import sys

import pytest

from mcrank.cli import main
from mcrank.engine import merge_shards, run_shard, run_study
from mcrank.engine.runner import chunk_count, shard_chunks
from mcrank.study import StudyConfig

SETTINGS = {
    "binary": dict(sds=(0.0, 0.1, 0.3)),
    "binary, conditional estimator": dict(sds=(0.1, 0.2), estimator="conditional"),
    "truncated errors": dict(sds=(0.1,), error="truncated"),
    "three classes": dict(sds=(0.1,), classes=3),
    "finite test sets": dict(sds=(0.1,), test_size=50),
    "roc": dict(sds=(0.1,), kind="roc"),
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
