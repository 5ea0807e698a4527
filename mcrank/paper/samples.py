"""The illustrative samples of figs 2-6: drawn here, once, and written into ``results/samples/``.

Figs 2-6 show a few hundred or thousand points each: rates of classifiers (figs 2 and 3),
true utility matrices (fig. 4), perturbed utility matrices (fig. 5) and pairs of classifiers
of a study (fig. 6). They are drawn here, from the samplers and the engine, and written to
disk; the figures (:mod:`mcrank.figures`) read them and only draw. Their sizes and seed are
in ``experiments/figures.toml`` (:func:`load_figure_settings`); the percentages of figs 6
and 7 come from the studies' results files, not from these. ``docs/method.md``, "Figures",
says what each figure shows.

Each sample is drawn from a Generator of its own, child ``stream`` of the root seed
(:func:`mcrank._rng.spawn_generators`): children 0-4 for figs 2-6, the streams the figures
have always used, so that they look the same. A sample therefore depends only on the seed,
its own settings and, for fig. 6, its study's config; each single-sd study gets a fresh
Generator of stream 4, so adding a study changes no other study's pairs.

A sample is two files in the samples directory: ``<name>.npz``, its arrays, and
``<name>.json``, what was drawn (``seed``, ``stream``, ``settings``), the SHA-256 of the
``.npz`` and the provenance of the run. A sample whose JSON records the same seed, stream and
settings, next to an ``.npz`` of the recorded digest, is up to date and is not drawn again.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from mcrank.paper.sweeps import kind
from mcrank.results import atomic_write_bytes, atomic_write_text, provenance
from mcrank.samplers import ERROR_MODELS, TRUE_UM_DISTRIBUTIONS, perturb_um, sample_rates, sample_true_um_xy
from mcrank.study.config import StudyConfig
from mcrank.study.experiments import FIGURE_SETTINGS, read_toml

__all__ = [
    "FIGURE_SETTINGS",
    "MAX_FIGURE_SAMPLES",
    "Sample",
    "is_up_to_date",
    "load_figure_settings",
    "plan_samples",
    "read_pairs",
    "read_record",
    "read_sample",
    "write_sample",
]

#: The most points a figure setting may ask for: the figures plot every point they draw.
MAX_FIGURE_SAMPLES = 10**6

_DEFAULTS = {"seed": 20220519, "yield_vs_metric_matrices": 300, "true_um_samples": 3000, "perturbation_samples": 2000, "pairs": 3000}

#: The smallest value of each figure setting: figs 2 and 3 compare pairs of matrices.
_MINIMA = {"seed": 0, "yield_vs_metric_matrices": 2, "true_um_samples": 1, "perturbation_samples": 1, "pairs": 1}

#: Class-0 fraction of the test set of figs 2 and 3, by figure.
YIELD_VS_METRIC_P = {"fig2_yield_vs_metric_p50": 0.5, "fig3_yield_vs_metric_p90": 0.9}
#: The paper's fig. 4: truncated gaussian true utility matrices, sd 1/3 in x and y.
TRUE_UM_SD = 1 / 3
#: The paper's fig. 5 (first panel) and its neighbours: the matrix perturbed, the sds (columns)
#: and the error models (rows).
PERTURBATION = {"centre": [[0.5, 0.5], [0.0, 1.0]], "sds": [0.1, 0.2], "errors": list(ERROR_MODELS)}

#: Stream (child of the root seed) of each kind of sample; see the module docstring.
_STREAMS = {
    "fig2_yield_vs_metric_p50": 0,
    "fig3_yield_vs_metric_p90": 1,
    "fig4_true_um_gaussian": 2,
    "fig5_perturbation_cloud": 3,
    "pairs": 4,
}
_STREAM_COUNT = 5

#: Fields of a study's config that its pairs of fig. 6 do not depend on
#: (:func:`mcrank.engine.sample_pairs` draws ``size`` pairs from its own Generator).
_NOT_IN_PAIRS = ("version", "samples", "seed", "chunk_size")

#: Largest sample file read (the samples are a few hundred KB).
_MAX_SAMPLE_BYTES = 64 << 20


def load_figure_settings(directory) -> dict:
    """The figures' sample sizes and seed from ``figures.toml`` (defaults where absent).

    Every value is checked here, before any study runs, against what the figures need:
    ``seed`` a non-negative whole number, ``yield_vs_metric_matrices`` from 2 (figs 2 and 3
    rank pairs of matrices), the other sizes from 1; sizes at most
    :data:`MAX_FIGURE_SAMPLES`.

    Raises
    ------
    ValueError
        Naming the file and the key, for a file that is not UTF-8 TOML, an unknown key or a
        bad value.
    """
    path = Path(directory) / FIGURE_SETTINGS
    settings = dict(_DEFAULTS)
    if path.exists() or path.is_symlink():  # a directory or a dangling link is an error, not "absent"
        values = read_toml(path)
        unknown = sorted(set(values) - set(settings))
        if unknown:
            raise ValueError(f"{path}: unknown key {unknown[0]!r}; known keys: {', '.join(sorted(settings))}")
        for key, value in values.items():
            lowest = _MINIMA[key]
            highest = None if key == "seed" else MAX_FIGURE_SAMPLES
            if isinstance(value, bool) or not isinstance(value, int) or value < lowest or (highest is not None and value > highest):
                allowed = "a non-negative whole number" if highest is None else f"a whole number from {lowest:,} to {highest:,}"
                raise ValueError(f"{path}: key {key!r} must be {allowed}, got {value!r}")
        settings.update(values)
    return settings


# --- what each sample is ---------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """One sample to draw: its file stem, its Generator and what it holds.

    Attributes
    ----------
    name : str
        File stem in the samples directory, the name of the figure that draws it.
    seed : int
        Root seed (``figures.toml``).
    stream : int
        Child of the root seed whose Generator draws it.
    settings : dict
        Everything else it depends on, as JSON values: its kind and sizes and, for pairs,
        the study's config.
    """

    name: str
    seed: int
    stream: int
    settings: dict

    def draw(self) -> dict[str, np.ndarray]:
        """The sample's arrays, drawn from a fresh Generator of its stream."""
        from mcrank._rng import spawn_generators

        rng = spawn_generators(self.seed, _STREAM_COUNT)[self.stream]
        return _DRAW[self.settings["kind"]](rng, self.settings)

    def record(self) -> dict:
        """What is drawn, as the JSON file records it (and compares it)."""
        return json.loads(json.dumps({"sample": self.name, "seed": self.seed, "stream": self.stream, "settings": self.settings}))


def plan_samples(settings: dict, documents: dict) -> list[Sample]:
    """The samples of figs 2-6 for ``settings`` (:func:`load_figure_settings`) and the studies
    ``documents`` (``{name: results document}``): one fig. 6 sample per single-sd study."""
    seed = settings["seed"]
    samples = [
        Sample(name, seed, _STREAMS[name], {"kind": "rates", "n": settings["yield_vs_metric_matrices"], "p": p})
        for name, p in YIELD_VS_METRIC_P.items()
    ]
    samples.append(
        Sample(
            "fig4_true_um_gaussian",
            seed,
            _STREAMS["fig4_true_um_gaussian"],
            {"kind": "true_um", "n": settings["true_um_samples"], "sd": TRUE_UM_SD},
        )
    )
    samples.append(
        Sample(
            "fig5_perturbation_cloud",
            seed,
            _STREAMS["fig5_perturbation_cloud"],
            {"kind": "perturbations", "n": settings["perturbation_samples"], **PERTURBATION},
        )
    )
    for name, document in documents.items():
        # Only what the pairs depend on: a study's size, seed and chunks do not change them.
        config = {k: v for k, v in document["config"].items() if k not in _NOT_IN_PAIRS}
        if len(config["sds"]) == 1 and kind(document) == "confusion":  # fig. 6 draws confusion pairs
            samples.append(Sample(name, seed, _STREAMS["pairs"], {"kind": "pairs", "size": settings["pairs"], "config": config}))
    return samples


def _draw_rates(rng, settings) -> dict:
    """Figs 2 and 3: TPR then TNR of ``n`` classifiers (the paper's rising density on [0.5, 1])."""
    return {"tpr": sample_rates(settings["n"], rng=rng), "tnr": sample_rates(settings["n"], rng=rng)}


def _draw_true_um(rng, settings) -> dict:
    """Fig. 4: ``n`` truncated gaussian true utility matrices, as points (x, y) of eq. (12)."""
    # The paper's fig. 4 draws its gaussian distribution: the one on the hexagon with an sd.
    gaussian = next(name for name, d in TRUE_UM_DISTRIBUTIONS.items() if d.hexagon and d.reads_sd)
    x, y = sample_true_um_xy(settings["n"], distribution=gaussian, sd=settings["sd"], rng=rng)
    return {"x": x, "y": y}


def _draw_perturbations(rng, settings) -> dict:
    """Fig. 5: ``n`` perturbed matrices per error model and sd, drawn row by row."""
    centre = np.asarray(settings["centre"], dtype=float)
    clouds = [[perturb_um(centre, sd, error=error, size=settings["n"], rng=rng) for sd in settings["sds"]] for error in settings["errors"]]
    return {"perturbed": np.asarray(clouds, dtype=float)}


def _draw_pairs(rng, settings) -> dict:
    """Fig. 6: ``size`` pairs by the study's procedure (:func:`mcrank.engine.sample_pairs`),
    every difference kept: metric rows in the config's order, sds likewise."""
    from mcrank.engine import sample_pairs  # here: a run with every sample up to date needs no engine

    study = StudyConfig.from_dict(settings["config"])
    size = settings["size"]
    pairs = sample_pairs(size, replace(study, samples=1), rng=rng)
    return {
        "d_true": pairs.d_true,
        "d_metric": np.asarray([pairs.d_metric[m] for m in study.metrics], dtype=float).reshape(len(study.metrics), size),
        "d_utility": np.asarray([pairs.d_utility[sd] for sd in study.sds], dtype=float).reshape(len(study.sds), size),
    }


_DRAW = {"rates": _draw_rates, "true_um": _draw_true_um, "perturbations": _draw_perturbations, "pairs": _draw_pairs}


# --- on disk ---------------------------------------------------------------------------------


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """``arrays`` as the bytes of an ``.npz`` archive that :func:`numpy.load` reads.

    Written by hand rather than by :func:`numpy.savez`, which stamps each member with the
    current time: the same arrays give the same bytes, so the committed samples change only
    when they do.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            member = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            member.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(member, "w") as stream:
                np.lib.format.write_array(stream, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _read_bytes(path: Path) -> bytes:
    with open(path, "rb") as file:
        data = file.read(_MAX_SAMPLE_BYTES + 1)
    if len(data) > _MAX_SAMPLE_BYTES:
        raise ValueError(f"{path}: larger than {_MAX_SAMPLE_BYTES:,} bytes; a sample is a few hundred KB")
    return data


def _paths(directory, name: str) -> tuple[Path, Path]:
    directory = Path(directory)
    return directory / f"{name}.npz", directory / f"{name}.json"


def read_record(directory, name: str) -> dict | None:
    """What sample ``name`` in ``directory`` is, as its JSON records it: ``sample``, ``seed``,
    ``stream``, ``settings`` and the ``sha256`` of its arrays (not the date and versions of
    the run). None if either file is missing or unreadable, or if the ``.npz`` does not have
    the recorded digest."""
    npz, sidecar = _paths(directory, name)
    try:
        recorded = json.loads(_read_bytes(sidecar))
        if not isinstance(recorded, dict) or hashlib.sha256(_read_bytes(npz)).hexdigest() != recorded.get("sha256"):
            return None
    except (OSError, ValueError):
        return None
    return {key: recorded.get(key) for key in ("sample", "seed", "stream", "settings", "sha256")}


def is_up_to_date(directory, sample: Sample) -> bool:
    """Whether ``sample`` is in ``directory`` as it would be drawn now: the same seed, stream
    and settings, next to arrays of the recorded digest (:func:`read_record`)."""
    record = read_record(directory, sample.name)
    return record is not None and {key: record[key] for key in sample.record()} == sample.record()


def write_sample(directory, sample: Sample, *, before_write=None) -> list[Path]:
    """Draw ``sample`` and write ``<name>.npz`` then ``<name>.json`` into ``directory``, each
    atomically. The JSON goes last and holds the digest of the ``.npz``: a run stopped
    between the two leaves a sample that is not up to date, and is drawn again.

    A sample drawn again (``reproduce(force=True)``) that is what ``directory`` already holds,
    arrays and record, is not written: its files keep the date and versions of the run that
    first drew them. ``before_write(path)``, if given, is called before a file is written, and
    may refuse by raising.

    Returns
    -------
    list of Path
        The files written.
    """
    arrays = sample.draw()
    data = _npz_bytes(arrays)
    digest = hashlib.sha256(data).hexdigest()
    recorded = read_record(directory, sample.name)
    if recorded is not None and recorded == {**sample.record(), "sha256": digest}:
        return []
    made = provenance()
    record = {
        **sample.record(),
        "arrays": {key: list(np.shape(array)) for key, array in arrays.items()},
        "sha256": digest,
        "date": made["date"],
        "versions": made["versions"],
    }
    npz, sidecar = _paths(directory, sample.name)
    if before_write is not None:
        before_write(npz)
    return [atomic_write_bytes(npz, data), atomic_write_text(sidecar, json.dumps(record, indent=1) + "\n")]


def read_sample(directory, name: str) -> tuple[dict[str, np.ndarray], dict]:
    """The arrays of sample ``name`` and its JSON record (``seed``, ``stream``, ``settings``,
    ``sha256``...), read from ``directory``.

    Raises
    ------
    ValueError
        If the ``.npz`` does not have the digest its JSON records, or either is unreadable.
    OSError
        If a file cannot be read.
    """
    npz, sidecar = _paths(directory, name)
    try:
        record = json.loads(_read_bytes(sidecar))
    except json.JSONDecodeError as error:
        raise ValueError(f"{sidecar}: not valid JSON: {error}") from None
    data = _read_bytes(npz)
    if not isinstance(record, dict) or hashlib.sha256(data).hexdigest() != record.get("sha256"):
        raise ValueError(f"{npz}: not the sample {sidecar.name} records (its SHA-256 differs)")
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}, record


def read_pairs(directory, name: str):
    """The pairs of a fig. 6 sample as a :class:`mcrank.engine.PairSample`: ``d_metric`` by
    metric id and ``d_utility`` by sd, in the study's order."""
    from mcrank.engine import PairSample

    arrays, record = read_sample(directory, name)
    config = record["settings"]["config"]
    return PairSample(
        d_true=arrays["d_true"],
        d_metric=dict(zip(config["metrics"], arrays["d_metric"])),
        d_utility={float(sd): d for sd, d in zip(config["sds"], arrays["d_utility"])},
    )
