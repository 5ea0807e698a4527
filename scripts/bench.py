#!/usr/bin/env python
"""How fast is the Monte Carlo engine? Ratios taken in one run.

After JIT warm-up (numba's on-disk cache on, as mcrank configures it), this script measures:

(a) one setting: 10^6 pairs, the paper's seven metrics, one error sd (0.1), ``gaussian``
    errors, uniform true utility matrices;
(b) the paper's full sd sweep, 51 values from 0 to 0.5, for both true-UM distributions with
    10^6 pairs each, once with ``gaussian`` and once with ``truncated`` errors;
(c) the engine against the plain NumPy oracle of ``tests/numpy_oracle.py`` on the same work,
    for one setting (a fifth of the pairs) and for the 51-sd sweep of uniform true UMs (a
    fiftieth of the pairs): single-threaded on both sides, and per pair against the engine
    on all cores with the full number of pairs; beside it, the oracle against the
    random-number floor of (d) on the same work, the most that any engine drawing these
    variates could reach (times the number of cores, for the all-cores rows: perfect scaling);
(d) the engine against the random-number floor, for (a) with either error model and for (b):
    a numba loop that only draws as many uniforms and standard normals from the same kind of
    Generator (PCG64) as the engine does for that setting, single-threaded on both sides;

and then: finite test sets against the floor of their draws; (e) the conditional estimator
against the sample estimator; (f) the n-class study at n = 3, 5 and 10 against two floors,
the variates it draws (their number checked by the same count) and its own samplers, and
against the n-class NumPy oracle; (g) ``evaluate --test-uncertainty``, and its peak RSS (fresh process) at
10^6 and 10^8 draws; (h) the ROC study (scoring
classifiers at their best thresholds, 10^6 pairs, its four scores and one sd, 0.1, gaussian
errors, one core) against the random-number floor of the variates it draws (counted as in (d))
and against a plain NumPy vectorised implementation of the same steps, and its peak memory
(RSS, in a fresh process) at 10^6 and 10^8 pairs, and the ROC kernel on 10^5 pairs, at one sd
and on the 26-sd sweep of ``experiments/roc_*``, against 6483364's kernel (frozen in
``scripts/roc_main_kernel.py``) and against its call floor: a loop making exactly the erfc, log,
sqrt and exp calls the kernel makes, on the arguments ``scripts/roc_calls.py`` recorded, and
drawing its variates (also chained, each call waiting for the one before, and in the kernel's
order, each independent);
(o) the probabilities study (probabilistic classifiers deciding by maximal expected utility,
10^6 pairs, its three scores and one sd, 0.1, gaussian errors, one core) against the ROC study
of (h) on the same pairs and core, timed in turn in each round: their ratio;
(i) decision curves with their posterior (``mcrank.evaluate.decision_curves``); (j) the
comparison across cross-validation folds (``mcrank.evaluate.compare_folds``); (k) the command
line's start-up: the CPU time (user + system) of a fresh process running ``mcrank --help``,
every command's ``--help``, ``mcrank story`` and ``mcrank evaluate examples/factory.json``,
against ``python -c "import numpy"``, and against the same with OpenBLAS's idle threads asleep as
the command has them, in interleaved rounds (none of them draws, so none imports numba); (l) the posterior of scoring classifiers' yields (``rank_scoring(..., test_uncertainty=True)``,
each threshold choice), and its peak RSS; (n) the ``truncated`` sampler of the n-class study
against the former one (``tests/truncated_reference.py``, which drew every element of a column
before checking it) on the sds of ``experiments/nclass_truncated_*``, with the normals each draws.

How the variates of (d) are counted: a PCG64 Generator is a 128-bit linear congruential
generator, so the number of 64-bit outputs a kernel consumed is the LCG distance between the
states before and after (computed below in O(128) steps). One chunk of the engine kernel is
run on a fresh Generator with the study's sds and again with none; the difference is what the
error draws consumed, the rest what steps 1-3 consumed. ``random()`` takes one output; a
ziggurat standard normal takes slightly more than one, a rate measured here the same way. The
class proportion and the four rates of the paper's Beta(2, 1) take exactly 5 uniforms per pair;
what steps 1-3 consume beyond that is the hexagon's sampler (2 uniforms per pair for the
uniform distribution; normals, rejected proposals included, for the gaussian one).
``truncated`` errors draw only normals for sd <= 1, rejected proposals included, and the
engine's pool of normals drawn ahead is counted whole, used or not.

The floor loop stores each variate into a small ring buffer. It does not sum them: a running
sum makes every draw wait for the previous addition, which made the floor per uniform 2.8
times slower (5.8 against 2.1 ns) and the ratios below look better than they are.

The script never asserts: it prints what it measures beside the project's speed targets, with the
machine and its load average (the timings are noisy on a shared machine; each is the best of
``--repeat`` runs; an engine/floor ratio is the median of the ratios of rounds that time
both sides one after the other). For (a) the median of the runs is printed too: one setting
is a few chunks, and on all cores its time depends on when joblib, which polls every 10 ms,
looks at the results.

Usage::

    python scripts/bench.py                  # 10^6 pairs, every measurement below
    python scripts/bench.py --quick          # a smoke run with few pairs
    python scripts/bench.py --smoke          # every section once at tiny sizes (the tests' run)
    python scripts/bench.py --json bench.json
    python scripts/bench.py --roc-floor-only  # only the ROC kernel against its call floor
    python scripts/bench.py --truncated-only  # only the n-class truncated sampler against the former one
    python scripts/bench.py --probabilities-only  # only (o), the probabilities study against the ROC study
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np

from mcrank._jit import cache_directory, jit
from mcrank.cli import SUBCOMMANDS
from mcrank.engine import run_study
from mcrank.engine.binary import _count_chunk, study_arguments
from mcrank.engine.counts import new_counts
from mcrank.error_models import _perturb_truncated
from mcrank.metrics import PAPER_METRICS
from mcrank.samplers import (
    ERROR_MODELS,
    HEXAGON_DISTRIBUTIONS,
    _draw_columns,
    _draw_multinomial,
    _draw_proportions,
    _draw_utility,
    _on_hexagon,
)
from mcrank.study import StudyConfig

#: The repository: the start-up commands of (j) run there, to find examples/.
ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT / "tests"))
from numpy_oracle import run_oracle  # noqa: E402  (the oracle lives with the tests)
from truncated_reference import _perturb_every_element_first  # noqa: E402  (the former sampler, kept with the tests)

#: The paper's sweep of error standard deviations (fig. 7).
SWEEP_SDS = tuple(np.linspace(0.0, 0.5, 51))
#: The paper's settings: its true-utility distributions (on the hexagon) and error models.
TRUE_UMS = HEXAGON_DISTRIBUTIONS
ERRORS = tuple(ERROR_MODELS)

#: The project's speed targets, reported beside the measurements (never asserted).
TARGETS = {
    "single_setting_s": 0.1,
    "sweep_gaussian_s": 2.0,
    "sweep_truncated_s": 6.0,
    "oracle_ratio": 25.0,
    "floor_ratio": 2.0,
}

#: The pairs per study for which the targets are set. With fewer (``--quick``), fixed costs
#: weigh more and the targets are not shown.
TARGET_PAIRS = 10**6

PCG64_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
MASK_128 = (1 << 128) - 1


# --- the machine -------------------------------------------------------------------------------


def machine() -> dict:
    """Platform, CPU model, core count, versions and load average."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "nproc": usable_cores(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "numba_cache_dir": cache_directory(),
    }


def usable_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load_average() -> list[float]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return []


# --- counting and timing -----------------------------------------------------------------------


def best_time(function, repeat: int) -> float:
    """The smallest wall time of ``repeat`` calls: the least disturbed by other processes."""
    return best_times([function], repeat)[0]


def best_times(functions, repeat: int) -> list[float]:
    """The smallest wall time of each function over ``repeat`` rounds that call them in turn."""
    return [min(times) for times in round_times(functions, repeat)]


def round_times(functions, repeat: int) -> list[list[float]]:
    """Wall times of each function in ``repeat`` rounds that call them in turn.

    Alternating matters for ratios: on a shared virtual machine the speed of the same loop
    drifts by tens of percent within a minute, and timing the two sides of a ratio at
    different moments would measure the drift.
    """
    times = [[] for _ in functions]
    for _ in range(repeat):
        for k, function in enumerate(functions):
            start = time.perf_counter()
            function()
            times[k].append(time.perf_counter() - start)
    return times


def paired_ratio(numerator: list[float], denominator: list[float]) -> float:
    """The median over rounds of the ratio of two functions timed in the same round."""
    return float(np.median(np.asarray(numerator) / np.asarray(denominator)))


def _lcg_distance(state: int, target: int, multiplier: int, increment: int) -> int:
    """Steps from ``state`` to ``target`` of x -> multiplier * x + increment (mod 2^128).

    The jump-ahead inverse of O'Neill's PCG library (``pcg_extras::distance``): fix the bits of
    the distance from the lowest up, squaring the step as it doubles.
    """
    bit, distance = 1, 0
    while state != target:
        if (state & bit) != (target & bit):
            state = (state * multiplier + increment) & MASK_128
            distance |= bit
        bit <<= 1
        increment = ((multiplier + 1) * increment) & MASK_128
        multiplier = (multiplier * multiplier) & MASK_128
    return distance


def outputs_consumed(function, rng: np.random.Generator) -> int:
    """How many 64-bit outputs ``function(rng)`` took from a PCG64 Generator."""
    before = rng.bit_generator.state["state"]
    function(rng)
    after = rng.bit_generator.state["state"]
    return _lcg_distance(before["state"], after["state"], PCG64_MULTIPLIER, before["inc"])


@jit
def _draw_normals(rng, n):
    buffer = np.empty(256)
    for i in range(n):
        buffer[i & 255] = rng.standard_normal()
    return buffer[0]


@jit
def _random_number_floor(rng, uniforms, normals):
    """Only draw: ``uniforms`` uniforms and ``normals`` standard normals.

    Each variate is stored into a small ring buffer, so that the compiler cannot drop the
    draws (see the module docstring for why not a sum).
    """
    buffer = np.empty(256)
    for i in range(uniforms):
        buffer[i & 255] = rng.random()
    for i in range(normals):
        buffer[i & 255] = rng.standard_normal()
    return buffer[0]


def outputs_per_normal(n: int) -> float:
    """64-bit outputs per ziggurat standard normal in a numba kernel (slightly above 1)."""
    return outputs_consumed(lambda rng: _draw_normals(rng, n), np.random.default_rng(1)) / n


def variates_per_pair(config: StudyConfig, pairs: int, per_normal: float) -> tuple[float, float]:
    """(uniforms, normals) the engine draws per pair for ``config``, counted on one chunk."""

    def consumed(sds):
        study = study_arguments(config)._replace(sds=np.array(sds, dtype=float))
        counts = new_counts(study)
        return outputs_consumed(
            lambda rng: _count_chunk(rng, rng, rng, pairs, study, counts),
            np.random.default_rng(2),
        )

    steps_1_to_3 = consumed(()) / pairs
    error_normals = (consumed(config.sds) / pairs - steps_1_to_3) / per_normal
    if config.rate_beta != (2.0, 1.0):
        raise ValueError("the count assumes the paper's Beta(2, 1) rates (one uniform each)")
    class_proportion_and_rates = 5.0
    hexagon = steps_1_to_3 - class_proportion_and_rates
    if config.true_um == "uniform":
        return class_proportion_and_rates + hexagon, error_normals
    return class_proportion_and_rates, hexagon / per_normal + error_normals


def draw_floor(counts: list[tuple[int, float, float]]) -> None:
    """The floor loop for [(pairs, uniforms per pair, normals per pair), ...]."""
    for pairs, uniforms, normals in counts:
        _random_number_floor(np.random.default_rng(3), round(pairs * uniforms), round(pairs * normals))


@jit
def _test_set_floor(rng, pairs, size, sds):
    """Only draw what the two-class study on test sets of ``size`` items draws per pair: the
    hexagon point (2 uniforms), p and four Beta(2, 1) rates (5 uniforms), the five binomial
    counts with the engine's parameters, and one normal per sd above 0."""
    buffer = np.empty(256)
    for i in range(pairs):
        x, y, p = rng.random(), rng.random(), rng.random()
        positives = rng.binomial(size, p)
        total = x + y + positives
        for _ in range(2):
            a, b = 0.5 + 0.5 * math.sqrt(rng.random()), 0.5 + 0.5 * math.sqrt(rng.random())
            total += rng.binomial(positives, a) + rng.binomial(size - positives, b)
        for s in sds:
            if s > 0.0:
                total += rng.standard_normal()
        buffer[i & 255] = total
    return buffer[0]


#: The sds at which the variance of the two estimators is compared (issue #15).
ESTIMATOR_SDS = (0.05, 0.1, 0.2, 0.3)


def measure_estimators(samples: int, jobs: int, repeat: int) -> dict:
    """(e) The conditional estimator against the sample one on the paper's gaussian sweep
    (51 sds, uniform true utility matrices, all cores): the time of each, the ratio of their
    variances (squared standard errors) at :data:`ESTIMATOR_SDS`, and the product, how much
    less time the conditional estimator takes to the same standard error."""
    configs = {e: StudyConfig(samples=samples, seed=12345, sds=SWEEP_SDS, estimator=e) for e in ("sample", "conditional")}
    for config in configs.values():
        run_study(replace(config, samples=2000), jobs=1)  # warm-up
    times = round_times([lambda c=c: run_study(c, jobs=jobs) for c in configs.values()], repeat)
    rows = {e: run_study(c, jobs=jobs).rows() for e, c in configs.items()}
    se = {e: {r["sd"]: r["se_pct"] for r in rows[e] if r["name"] == "utility"} for e in rows}
    time_ratio = paired_ratio(times[0], times[1])  # sample / conditional
    variance = {}
    for sd in ESTIMATOR_SDS:
        key = min(se["sample"], key=lambda s: abs(s - sd))
        variance[sd] = (se["sample"][key] / se["conditional"][key]) ** 2
    return {
        "time": {"sample": min(times[0]), "conditional": min(times[1])},
        "time_ratio": time_ratio,
        "variance_ratio": variance,
        "time_to_se_gain": {sd: ratio * time_ratio for sd, ratio in variance.items()},
    }


def print_estimators(results: dict, samples: int, out=sys.stdout) -> None:
    print("", file=out)
    target = " (target: >= 2x less time to the same SE, 4x the goal)" if samples == TARGET_PAIRS else ""
    print(f"(e) conditional against sample estimator, gaussian sweep of 51 sds, {samples:.0e} pairs, all cores{target}:", file=out)
    t = results["time"]
    print(
        f"  time: sample {t['sample']:.3f} s, conditional {t['conditional']:.3f} s; sample / conditional "
        f"{results['time_ratio']:.2f}x (median of paired rounds)",
        file=out,
    )
    for sd, ratio in results["variance_ratio"].items():
        print(
            f"  sd {sd:<4g}  variance sample / conditional {ratio:5.2f}x   time to the same SE: "
            f"{results['time_to_se_gain'][sd]:5.2f}x less",
            file=out,
        )


@jit
def _class_floor(rng, pairs, n):
    """Only draw what the n-class study (uniform-elements, Dirichlet(1), Beta(2, 1) recalls)
    draws per pair with the conditional estimator: n^2 uniforms for U, n exponentials for p,
    and per classifier n uniforms (recalls) and n (n - 1) exponentials (the splits; none for
    n = 2). Each variate is stored into a ring buffer, as in :func:`_random_number_floor`:
    a running sum made this floor 1.2x (n = 5) and 1.3x (n = 10) slower."""
    buffer = np.empty(256)
    slot = 0
    for i in range(pairs):
        for _ in range(n * n):
            buffer[slot & 255] = rng.random()
            slot += 1
        for _ in range(n):
            buffer[slot & 255] = rng.standard_exponential()
            slot += 1
        for _ in range(2):
            for _ in range(n):
                buffer[slot & 255] = rng.random()
                slot += 1
                if n > 2:
                    for _ in range(n - 1):
                        buffer[slot & 255] = rng.standard_exponential()
                        slot += 1
    return buffer[0]


@jit
def _class_sampler_floor(rng, pairs, study):
    """The engine's own samplers of steps 1-3 (:mod:`mcrank.samplers`), called as the kernel
    calls them, with ``study``'s parameters (an :class:`~mcrank.engine.nclass.NClassStudy`),
    and the two confusion matrices built: the floor of any kernel that keeps them, as
    bit-identical counts require (the recalls' square roots, the divisions of eq. 11 and of
    the Dirichlet splits). Nothing is scored."""
    n = study.classes
    u, p, given = np.empty((n, n)), np.empty(n), np.empty((n, n))
    identity, xy, matrix, buffer = np.eye(n), np.empty((2, 1)), np.empty((n, n)), np.empty(256)
    for q in range(pairs):
        _draw_utility(rng, study.true_um, study.true_um_sd, identity, xy, u)
        _draw_proportions(rng, _on_hexagon(study.true_um), study.p_low, study.p_high, study.concentration, p)
        for _ in range(2):
            _draw_columns(rng, study.rate_alpha, study.rate_beta, study.rate_low, study.rate_high, given)
            for i in range(n):
                for j in range(n):
                    matrix[i, j] = p[j] * given[j, i]
            buffer[q & 255] = matrix[n - 1, 0] + u[0, n - 1]
    return buffer[0]


#: The numbers of classes the n-class benchmark measures (the floor target is for 3 and 5).
CLASSES = (3, 5, 10)


def measure_classes(samples: int, jobs: int, repeat: int) -> dict:
    """The n-class study (its defaults, conditional estimator), one core: one setting (sd 0.1)
    and the 51-sd sweep, timed in rounds with two floors, the variates the engine draws
    (:func:`_class_floor`, their number checked against the engine's by PCG64 state
    distance) and the engine's own samplers (:func:`_class_sampler_floor`); the NumPy oracle
    per pair (on a fiftieth of the pairs) against the engine on one core and on all cores;
    10^6 pairs (or ``samples``) on all cores."""
    from nclass_oracle import run_nclass_oracle

    from mcrank.engine.nclass import _count_chunk as _class_chunk
    from mcrank.engine.nclass import study_arguments as class_arguments

    results = {}
    for n in CLASSES:
        single, sweep = (StudyConfig(classes=n, samples=samples, seed=12345, sds=sds) for sds in ((0.1,), SWEEP_SDS))
        run_study(replace(single, samples=1000), jobs=1)  # warm-up
        study, pairs = class_arguments(single), 10_000
        _class_sampler_floor(np.random.default_rng(3), 10, study)
        consumed = {
            "engine": outputs_consumed(lambda rng: _class_chunk(rng, rng, rng, pairs, study, new_counts(study)), np.random.default_rng(2))
            / pairs,
            "floor": outputs_consumed(lambda rng: _class_floor(rng, pairs, n), np.random.default_rng(2)) / pairs,
        }
        times = round_times(
            [
                lambda: run_study(single, jobs=1),
                lambda: run_study(sweep, jobs=1),
                lambda: _class_floor(np.random.default_rng(3), samples, n),
                lambda: _class_sampler_floor(np.random.default_rng(3), samples, study),
            ],
            repeat,
        )
        one, many, floor, samplers = times
        entry = {"outputs_per_pair": consumed, "floor": min(floor), "samplers": min(samplers)}
        for name, engine in (("single", one), ("sweep", many)):
            entry[name] = {"engine": min(engine), "ratio": paired_ratio(engine, floor), "samplers_ratio": paired_ratio(engine, samplers)}
        oracle_pairs = max(samples // 50, 1000)
        oracle = best_time(lambda: run_nclass_oracle(oracle_pairs, n, rng=np.random.default_rng(4), sds=(0.1,), conditional=True), repeat)
        entry["oracle_per_pair"] = oracle / oracle_pairs
        entry["engine_per_pair"] = entry["single"]["engine"] / samples
        entry["all_cores"] = best_time(lambda: run_study(single, jobs=jobs), repeat)
        results[n] = entry
    return results


def print_classes(results: dict, samples: int, cores: int, out=sys.stdout) -> None:
    print("", file=out)
    target = " (targets: engine / floor <= 2x for n = 3 and 5; oracle / engine >= 20x)" if samples == TARGET_PAIRS else ""
    print(f"(f) the n-class study, {samples:.0e} pairs, defaults (conditional estimator){target}:", file=out)
    for n, e in results.items():
        per_pair = e["oracle_per_pair"] * samples
        used = e["outputs_per_pair"]
        print(f"  n = {n:2d}  64-bit outputs per pair: engine {used['engine']:.3f}, floor loop {used['floor']:.3f}", file=out)
        print(
            f"          floor: the same variates {e['floor']:.3f} s; the engine's samplers and matrices {e['samplers']:.3f} s "
            f"({e['samplers'] / e['floor']:.2f}x the variates)",
            file=out,
        )
        for name, label in (("single", "one setting (sd 0.1)"), ("sweep", "sweep of 51 sds")):
            r = e[name]
            print(
                f"          {label:21s} 1 job {r['engine']:.3f} s: {r['ratio']:.2f}x the variates, {r['samplers_ratio']:.2f}x the samplers",
                file=out,
            )
        all_cores = e["all_cores"] / samples
        print(
            f"          oracle / engine per pair: 1 job {e['oracle_per_pair'] / e['engine_per_pair']:.1f}x (ceiling "
            f"oracle / floor {per_pair / e['floor']:.1f}x); all cores {e['oracle_per_pair'] / all_cores:.1f}x (ceiling "
            f"x {cores} cores {cores * per_pair / e['floor']:.1f}x); 1e6 pairs on all cores {e['all_cores']:.3f} s",
            file=out,
        )


def evaluate_rss_mib(samples: int) -> float:
    """Peak resident memory (MiB) of a fresh process that runs ``mcrank evaluate
    examples/factory.json --test-uncertainty --seed 1 --samples <samples>`` (two classifiers)."""
    import subprocess

    factory = Path(__file__).resolve().parent.parent / "examples" / "factory.json"
    code = (
        "import contextlib, io, resource, sys; from mcrank.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['evaluate', {str(factory)!r}, '--test-uncertainty', '--seed', '1', '--quiet', '--samples', '{samples}'])\n"
        "print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, kib = completed.stdout.split()[-2:]
    if status != "0":
        raise RuntimeError(f"mcrank evaluate --samples {samples} exited {status}: {completed.stderr}")
    return int(kib) / 1024  # ru_maxrss is in KiB on Linux


def measure_test_uncertainty(repeat: int, rss_samples=(10**6, 10**8), items: int = 10_000, draws: int = 10_000) -> dict:
    """(g) ``mcrank evaluate --test-uncertainty``: ``draws`` (10^4) posterior draws for 10
    classifiers (45 pairs) on ``items`` (10^4) labelled items of three classes, from the labels
    (joint tables) and from the confusion matrices alone, without and with an error sd (target:
    a few seconds); and the peak RSS of ``mcrank evaluate examples/factory.json
    --test-uncertainty`` in a fresh process at each of ``rss_samples`` draws (flat: the draws
    are reduced block by block)."""
    from mcrank.evaluate import ItemLabels, evaluate

    rng = np.random.default_rng(1)
    n = 3
    truth = rng.integers(0, n, items)
    outputs = {f"c{k}": np.where(rng.random(items) < 0.7 + 0.02 * k, truth, rng.integers(0, n, items)) for k in range(10)}
    confusions = {name: np.bincount(o * n + truth, minlength=n * n).reshape(n, n) for name, o in outputs.items()}
    utility = rng.random((n, n)) + 2 * np.eye(n)
    results = {}
    for labels in (ItemLabels(truth, outputs), None):
        for sd in (None, 0.1):

            def run(labels=labels, sd=sd, samples=draws):
                evaluate(confusions, utility, sd=sd, test_uncertainty=True, samples=samples, rng=1, labels=labels)

            run(samples=100)  # warm-up
            results[f"{'labels' if labels is not None else 'matrices'}/{'sd' if sd else 'no sd'}"] = best_time(run, repeat)
    results["rss_mib"] = {samples: evaluate_rss_mib(samples) for samples in rss_samples}
    results["items"], results["draws"] = items, draws
    return results


def print_test_uncertainty(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print(f"(g) evaluate --test-uncertainty, {results['draws']:.0e} draws, 10 classifiers, {results['items']:.0e} items, 3 classes, 1 process:",
          file=out)  # fmt: skip
    for key, seconds in results.items():
        if key not in ("rss_mib", "items", "draws"):
            print(f"  {key:18s} {seconds:.3f} s", file=out)
    if "rss_mib" in results:
        rss = ", ".join(f"{n:.0e} draws {mib:.0f} MiB" for n, mib in results["rss_mib"].items())
        print(f"  peak RSS of `mcrank evaluate examples/factory.json --test-uncertainty` (fresh process): {rss}", file=out)


# --- (i) decision curves ------------------------------------------------------------------------


def measure_decision_curves(repeat: int, items: int = 100_000, draws: int | None = None) -> dict:
    """(i) Decision curves for ``items`` (10^5) items, 3 models and 99 thresholds (1 %, ...,
    99 %): the net benefit alone, and with the posterior (the 95 % bands from ``draws`` (the
    default, 10^4) draws, and the exact probability per threshold and pair, 297 Gil-Pelaez
    integrals); one process (target: about a second)."""
    from mcrank.evaluate import decision_curves

    rng = np.random.default_rng(1)
    y = (rng.random(items) < 0.3).astype(int)
    x = rng.normal(size=items) + y
    scores = {f"m{k}": 1 / (1 + np.exp(-(x * (1 - 0.2 * k) - 1 + 0.3 * k * rng.normal(size=items)))) for k in range(3)}
    results = {}
    for key, uncertain in (("curves", False), ("with posterior", True)):

        def run(uncertain=uncertain):
            decision_curves(y, scores, test_uncertainty=uncertain, rng=1, **({} if draws is None else {"samples": draws}))

        run()  # warm-up
        results[key] = best_time(run, repeat)
    return {"items": items, **results}


def print_decision_curves(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print(f"(i) decision curves, {results['items']:.0e} items, 3 models, 99 thresholds, 1 process (target: about 1 s with the posterior):",
          file=out)  # fmt: skip
    for key, seconds in results.items():
        if key != "items":
            print(f"  {key:18s} {seconds:.3f} s", file=out)


# --- (j) model selection across cross-validation folds -------------------------------------------


def measure_folds(repeat: int) -> dict:
    """(j) The comparison of 20 models across 100 folds (10-fold repeated 10 times): 190 pair
    tests and P(best) from 10^4 and 10^5 posterior draws; one process (target: instant)."""
    from mcrank.evaluate import compare_folds

    rng = np.random.default_rng(1)
    shared = rng.normal(0, 0.02, 100)
    yields = {f"m{k}": 0.8 + 0.001 * k + shared + rng.normal(0, 0.01, 100) for k in range(20)}
    results = {}
    for samples in (10_000, 100_000):

        def run(samples=samples):
            compare_folds(yields, repeats=10, samples=samples, rng=1)

        run()  # warm-up
        results[f"{samples} draws"] = best_time(run, repeat)
    return results


def print_folds(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print("(j) model selection across folds, 20 models, 100 folds, 1 process (target: instant):", file=out)
    for key, seconds in results.items():
        print(f"  {key:18s} {seconds:.3f} s", file=out)


# --- (l) the posterior of scoring classifiers --------------------------------------------------


def _scoring_inputs(items: int = 10_000, models: int = 6):
    rng = np.random.default_rng(1)
    positive = rng.random(items) < 0.3
    scores = {f"m{k}": rng.normal(positive * (0.8 + 0.2 * k), 1.0) for k in range(models)}
    return positive, scores


def scoring_rss_mib(samples: int, choice: str = "crossfit", items: int = 10_000) -> float:
    """Peak resident memory (MiB) of a fresh process that ranks 6 scoring classifiers on
    ``items`` (10^4) items with the posterior of ``samples`` draws."""
    import subprocess

    code = (
        "import resource, sys; sys.path.insert(0, 'scripts'); from bench import _scoring_inputs\n"
        "from mcrank.evaluate import rank_scoring, scored_test_set\n"
        "import numpy as np\n"
        f"positive, scores = _scoring_inputs({items})\n"
        f"rank_scoring(scored_test_set(positive, scores, classes=(True, False)), np.array([[0.0, -1.0], [-4.0, 0.0]]), threshold_choice={choice!r}, "
        f"test_uncertainty=True, samples={samples}, rng=1)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    root = Path(__file__).resolve().parent.parent
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    return int(completed.stdout.split()[-1]) / 1024


def measure_scoring_posterior(repeat: int, draws: int = 2000, rss_samples=(10, 2000, 20_000), items: int = 10_000) -> dict:
    """(l) ``rank_scoring(..., test_uncertainty=True)``: ``items`` (10^4) items, 6 models,
    ``draws`` draws, each threshold choice, one core (target: a few seconds at 2,000); the peak
    RSS of a fresh process at each of ``rss_samples`` draws (bounded by the draws kept, not
    items x draws)."""
    import time

    from mcrank.evaluate import rank_scoring, scored_test_set

    positive, scores = _scoring_inputs(items)
    test_set = scored_test_set(positive, scores, classes=(True, False))
    utility = np.array([[0.0, -1.0], [-4.0, 0.0]])
    results = {}
    for choice in ("test", "crossfit", "split"):

        def run(choice=choice, samples=draws):
            rank_scoring(test_set, utility, threshold_choice=choice, test_uncertainty=True, samples=samples, rng=1)

        run(samples=10)  # warm-up
        point = best_time(lambda choice=choice: rank_scoring(test_set, utility, threshold_choice=choice, rng=1), repeat)
        cpu = []
        for _ in range(repeat):
            start = time.process_time()
            run()
            cpu.append(time.process_time() - start)
        results[choice] = {"wall": best_time(run, repeat), "cpu": min(cpu), "without posterior": point}
    results["rss_mib"] = {samples: scoring_rss_mib(samples, items=items) for samples in rss_samples}
    results["draws"], results["items"] = draws, items
    return results


def print_scoring_posterior(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print(f"(l) scoring classifiers' posterior, {results['items']:.0e} items, 6 models, {results['draws']} draws, 1 process "
          "(target: a few seconds at 2000):", file=out)  # fmt: skip
    for key, value in results.items():
        if key not in ("rss_mib", "draws", "items"):
            print(f"  {key:10s} {value['wall']:.2f} s ({value['cpu']:.2f} s of CPU; {value['without posterior']:.3f} s without it)",
                  file=out)  # fmt: skip
    if "rss_mib" in results:
        rss = ", ".join(f"{n} draws {mib:.0f} MiB" for n, mib in results["rss_mib"].items())
        print(f"  peak RSS of a fresh process (crossfit): {rss}", file=out)


# --- (k) the command line's start-up ----------------------------------------------------------


#: The commands of (k), after ``mcrank``: every command's ``--help``, and two that run; they
#: draw nothing, so they start without numba.
STARTUP_COMMANDS = (
    ["--help"],
    *([name, "--help"] for name in SUBCOMMANDS),
    ["story"],
    ["evaluate", "examples/factory.json"],
)


def child_cpu_time(command: list[str], variables: dict | None = None) -> float:
    """The CPU time, user + system, of running ``command`` to its end (its output discarded),
    with the environment's ``variables`` in addition.

    With Python's bytecode cache written and read, as in any installation, even where the
    environment turns it off (``PYTHONDONTWRITEBYTECODE``): compiling mcrank's sources again
    in every process would be measured otherwise."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | (variables or {})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=environment)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure_startup(rounds: int, warm_up: bool = True) -> dict:
    """(k): each command's CPU time over ``rounds`` rounds, and its ratio to NumPy's import
    taken round by round: to ``import numpy`` as it is, and to the same import with OpenBLAS's
    idle threads asleep, as the command has them (:data:`mcrank.__main__.BLAS_THREAD_TIMEOUT`),
    which leaves mcrank's own cost. The command runs through its entry point
    (:mod:`mcrank.__main__`), as the ``mcrank`` script runs it, from this checkout. Without
    ``warm_up`` (a smoke run), the first round may write Python's bytecode cache."""
    from mcrank.__main__ import BLAS_THREAD_TIMEOUT

    entry = [sys.executable, "-m", "mcrank"]
    numpy = [sys.executable, "-c", "import numpy"]
    commands = {"import numpy": (numpy, None), "import numpy, BLAS threads asleep": (numpy, dict([BLAS_THREAD_TIMEOUT]))}
    commands |= {"mcrank " + " ".join(arguments): (entry + arguments, None) for arguments in STARTUP_COMMANDS}
    for command in commands.values() if warm_up else ():  # warm-up: the bytecode cache written
        child_cpu_time(*command)
    times = [[] for _ in commands]
    for _ in range(rounds):
        for k, command in enumerate(commands.values()):
            times[k].append(child_cpu_time(*command))
    return {
        name: {"cpu_s": min(seconds), "over_numpy": paired_ratio(seconds, times[0]), "over_numpy_asleep": paired_ratio(seconds, times[1])}
        for name, seconds in zip(commands, times, strict=True)
    }


def print_startup(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print("(k) start-up: CPU time (user + system) of a fresh process, best of the rounds (target: within 1.5x numpy's import):", file=out)
    for name, entry in results.items():
        print(f"  {name:38s} {entry['cpu_s']:.3f} s  {entry['over_numpy']:.2f}x numpy's import, "
              f"{entry['over_numpy_asleep']:.2f}x with its BLAS threads asleep", file=out)  # fmt: skip


# --- (m) per-item utilities ------------------------------------------------------------------------


def measure_per_item(repeat: int, items: int, samples: int) -> dict:
    """(m) Five models ranked with a per-item affine utility (the gallery's fraud metric), and
    the Bayesian bootstrap of their yields: time, and the peak memory the posterior allocates
    (tracemalloc), which an items x draws array would make items * samples * 8 bytes."""
    import tracemalloc

    from mcrank.evaluate.per_item import bayesian_bootstrap, evaluate_per_item, parse_affine

    rng = np.random.default_rng(0)
    amount = rng.lognormal(3.5, 1.2, items)
    y_true = np.where(rng.random(items) < 0.02, "fraud", "legitimate")
    predictions = {f"m{k}": np.where(rng.random(items) < 0.03 + 0.01 * k, "refuse", "accept") for k in range(5)}
    utility = parse_affine({"classes": ["fraud", "legitimate"], "decisions": ["refuse", "accept"],
                            "cells": {"refuse": {"fraud": 50, "legitimate": -5},
                                      "accept": {"fraud": {"amount": -1}, "legitimate": {"amount": 0.02}}}})  # fmt: skip
    evaluate_per_item(y_true[:100], {k: v[:100] for k, v in predictions.items()}, utility, columns={"amount": amount[:100]})  # warm-up
    seconds = best_time(lambda: evaluate_per_item(y_true, predictions, utility, columns={"amount": amount}), repeat)
    u = utility.array({"amount": amount})
    truth = (y_true == "legitimate").astype(np.intp)
    decisions = {name: (values == "accept").astype(np.intp) for name, values in predictions.items()}
    tracemalloc.start()
    start = time.perf_counter()
    bayesian_bootstrap(u, truth, decisions, samples=samples, rng=1)
    posterior_seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"items": items, "samples": samples, "evaluate": seconds, "posterior": posterior_seconds, "posterior_peak_mib": peak / 2**20}


def print_per_item(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print(f"(m) per-item utilities, {results['items']:,} items, 5 models, affine utility, 1 process (target: a few seconds):", file=out)
    print(f"  evaluate           {results['evaluate']:.3f} s", file=out)
    print(f"  posterior          {results['posterior']:.3f} s for {results['samples']} draws, peak {results['posterior_peak_mib']:.1f} MiB "
          f"(items x draws: {results['items'] * results['samples'] * 8 / 2**20:,.0f} MiB)", file=out)  # fmt: skip


#: Test-set sizes whose cost per pair the benchmark reports (issue: N = 100 and 10,000).
TEST_SIZES = (100, 10_000)


@jit
def _class_test_set_floor(rng, pairs, n, size):
    """Only draw what the n-class study on test sets of ``size`` items draws per pair: the
    draws of :func:`_class_floor`, then the class counts and each classifier's columns,
    multinomials by conditional binomials with the engine's sampler and parameters."""
    buffer, p, given = np.empty(256), np.empty(n), np.empty((n, n))
    class_counts, column_counts = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    for i in range(pairs):
        total = 0.0
        for k in range(n * n):
            buffer[k & 255] = rng.random()  # stored, not summed (see _class_floor)
        mass = 0.0
        for j in range(n):
            p[j] = rng.standard_exponential()
            mass += p[j]
        p /= mass
        _draw_multinomial(rng, size, p, class_counts)
        for _ in range(2):
            for j in range(n):
                recall = 1.0 / n + (1.0 - 1.0 / n) * math.sqrt(rng.random())
                rest = 0.0
                for k in range(n):
                    given[j, k] = rng.standard_exponential() if k != j else 0.0
                    rest += given[j, k]
                for k in range(n):
                    given[j, k] = recall if k == j else (1.0 - recall) * given[j, k] / rest
                _draw_multinomial(rng, class_counts[j], given[j], column_counts)
                total += column_counts[0]
        buffer[i & 255] = total
    return buffer[0]


def measure_test_sets(samples: int, repeat: int) -> dict:
    """Finite test sets with one sd (0.1), two classes (the paper's setting) and three (the
    n-class study's): seconds on one core, against the random-number floor of the same draws
    (median of paired rounds)."""
    sds = np.array([0.1])
    results = {}
    for classes in (2, 3):
        for size in TEST_SIZES:
            config = StudyConfig(classes=classes, samples=samples, seed=12345, sds=(0.1,), test_size=size)
            run_study(replace(config, samples=1000), jobs=1)  # warm-up
            if classes == 2:
                floor = lambda size=size: _test_set_floor(np.random.default_rng(3), samples, size, sds)  # noqa: E731
            else:
                floor = lambda size=size: _class_test_set_floor(np.random.default_rng(3), samples, 3, size)  # noqa: E731
            engine, floor_times = round_times([lambda c=config: run_study(c, jobs=1), floor], repeat)
            results[f"{classes}/{size}"] = {"classes": classes, "size": size, "engine": min(engine), "floor": min(floor_times),
                                            "ratio": paired_ratio(engine, floor_times)}  # fmt: skip
    return results


def print_test_sets(results: dict, samples: int, out=sys.stdout) -> None:
    print("", file=out)
    target = f"; target engine/floor <= {TARGETS['floor_ratio']:.0f}x" if samples == TARGET_PAIRS else ""
    print(f"finite test sets (one sd, {samples:.0e} pairs, 1 job{target}):", file=out)
    for entry in results.values():
        per_pair = 1e9 * entry["engine"] / samples
        print(
            f"  n = {entry['classes']}  N = {entry['size']:>6,}  engine {entry['engine']:.3f} s ({per_pair:.0f} ns a pair)  "
            f"floor {entry['floor']:.3f} s  engine / floor {entry['ratio']:.2f}x",
            file=out,
        )


# --- (n) the truncated errors of the n-class study -----------------------------------------------


@jit
def _perturb_sweep(rng, utilities, sds, out):
    """Every matrix of ``utilities`` perturbed at every sd by the ``truncated`` model's sampler,
    as the n-class kernel calls it (one matrix at a time, the sds in turn)."""
    for k in range(utilities.shape[0]):
        for s in range(sds.size):
            _perturb_truncated(rng, utilities[k], sds[s], out)
    return out[0, 0]


@jit
def _perturb_sweep_every_element_first(rng, utilities, sds, out):
    """The same with the former sampler (``tests/truncated_reference.py``), which drew every
    element of a column before checking it."""
    for k in range(utilities.shape[0]):
        for s in range(sds.size):
            _perturb_every_element_first(rng, utilities[k], sds[s], out)
    return out[0, 0]


#: Matrices per n of (n): at n = 10, 11 sds, about a second with the former sampler.
TRUNCATED_MATRICES = 10_000

#: The sds of the experiments' n-class truncated studies (``experiments/nclass_truncated_*``).
CLASS_SWEEP_SDS = np.round(np.arange(11) * 0.05, 2)


def measure_truncated(matrices: int, repeat: int) -> dict:
    """The ``truncated`` sampler of the n-class study against the former one, at n = 3, 5 and
    10, on ``matrices`` uniform-elements true utility matrices each perturbed at the 11 sds of
    ``experiments/nclass_truncated_*``, one core, timed in alternating rounds; with the normals
    each draws per element (64-bit outputs counted from the PCG64 state, over the outputs of a
    ziggurat normal)."""
    from mcrank.samplers import sample_utility_elements

    per_normal = outputs_per_normal(10**6)
    sds = np.ascontiguousarray(CLASS_SWEEP_SDS, dtype=float)
    results = {}
    for n in CLASSES:
        utilities = sample_utility_elements(matrices, classes=n, rng=7)
        out = np.empty((n, n))
        new = lambda rng: _perturb_sweep(rng, utilities, sds, out)  # noqa: E731
        old = lambda rng: _perturb_sweep_every_element_first(rng, utilities, sds, out)  # noqa: E731
        new(np.random.default_rng(1)), old(np.random.default_rng(1))  # compiled before timing
        elements = matrices * sds.size * n * n
        normals = {name: outputs_consumed(f, np.random.default_rng(2)) / per_normal / elements for name, f in (("new", new), ("old", old))}
        times = round_times([lambda: new(np.random.default_rng(3)), lambda: old(np.random.default_rng(3))], repeat)
        results[n] = {
            "matrices": matrices,
            "new": min(times[0]),
            "old": min(times[1]),
            "ratio": paired_ratio(times[1], times[0]),
            "normals_per_element": normals,
        }
    return results


def print_truncated(results: dict, out=sys.stdout) -> None:
    print("", file=out)
    print("(n) truncated errors of the n-class study: the sampler against the former one (every element drawn first), 1 core,", file=out)
    print("    uniform-elements matrices, each perturbed at the 11 sds 0 to 0.5:", file=out)
    for n, e in results.items():
        per = e["matrices"] * len(CLASS_SWEEP_SDS)
        normals = e["normals_per_element"]
        print(
            f"  n = {n:2d}  {e['new']:.3f} s ({e['new'] / per * 1e9:,.0f} ns a matrix and sd) against {e['old']:.3f} s "
            f"({e['old'] / per * 1e9:,.0f} ns): former / now {e['ratio']:.2f}x (median of rounds); normals per element "
            f"{normals['new']:.2f} against {normals['old']:.2f}",
            file=out,
        )


# --- (h) the ROC study ---------------------------------------------------------------------------


def roc_study_config(samples: int) -> StudyConfig:
    """(h): the ROC study's defaults (four scores, B ~ U(0, 1), uniform true UMs), one sd."""
    return StudyConfig(kind="roc", samples=samples, seed=12345, sds=(0.1,), error="gaussian")


def _numpy_stationary(a, d, mu, sigma):
    """The interior maximum's x of ``a t - d f`` (mcrank.roc._stationary_point), vectorised."""
    quadratic = (sigma - 1.0) * (sigma + 1.0)
    constant = 2.0 * sigma * sigma * np.log(a / (sigma * d)) - mu * mu
    root = np.sqrt(mu * mu - quadratic * constant)
    signed = np.where(a > 0, root, -root)
    same = ((mu > 0) & (a > 0)) | ((mu < 0) & (a < 0))
    x = np.where(same, constant / (mu + signed), (mu - signed) / quadratic)
    return np.where(a * d > 0, x, np.nan)


def _numpy_linear_best(a, d, mu, sigma, low, high):
    from scipy.special import ndtr

    x = _numpy_stationary(a, d, mu, sigma)
    z = (mu + x) / sigma
    value = np.where(x <= 0, low + (a * ndtr(z) - d * ndtr(x)), high - (a * ndtr(-z) - d * ndtr(-x)))
    best = np.maximum(low, high)
    return np.where(np.isfinite(x) & (value > best), value, best)


def _numpy_best_yield(u, prevalence, mu, sigma):
    low = prevalence * u[:, 2] + (1 - prevalence) * u[:, 3]
    high = prevalence * u[:, 0] + (1 - prevalence) * u[:, 1]
    return _numpy_linear_best((u[:, 0] - u[:, 2]) * prevalence, (u[:, 3] - u[:, 1]) * (1 - prevalence), mu, sigma, low, high)


def _numpy_best_f1(prevalence, mu, sigma):
    from scipy.special import ndtr

    best = 2 * prevalence / (1 + prevalence)
    todo = np.arange(best.size)
    for _ in range(50):  # Dinkelbach, on the pairs not converged yet
        b, m, s, f1 = prevalence[todo], mu[todo], sigma[todo], best[todo]
        x = _numpy_stationary((2 - f1) * b, f1 * (1 - b), m, s)
        t, f = ndtr((m + x) / s), ndtr(x)
        value = 2 * b * t / (b + b * t + (1 - b) * f)
        higher = np.isfinite(x) & (value > f1)
        best[todo[higher]] = value[higher]
        todo = todo[higher & (value > f1 * (1 + 1e-15))]
        if todo.size == 0:
            break
    return best


def numpy_roc_study(pairs: int, rng: np.random.Generator, sd: float = 0.1) -> np.ndarray:
    """The ROC study's steps in plain vectorised NumPy (closed-form best thresholds, scipy's
    ndtr), gaussian errors: counts of incorrect rankings (four scores, the sd) and of pairs
    tied in truth, as the engine's chunk returns them."""
    from scipy.special import ndtr

    prevalence = rng.random(pairs)
    scaled, y = 3 * rng.random(pairs), rng.random(pairs)  # the hexagon, three rhombi
    rhombus = np.floor(scaled)
    s = scaled - rhombus
    hx = np.where(rhombus == 0, s, np.where(rhombus == 1, -y, y - s))
    hy = np.where(rhombus == 0, y, np.where(rhombus == 1, s - y, -s))
    u00, u11 = np.where(hx > 0, 1 - hx, 1.0), np.where(hx < 0, 1 + hx, 1.0)
    u = np.stack([u00, np.where(hy > 0, np.minimum(hy, u11), 0.0), np.where(hy < 0, np.minimum(-hy, u00), 0.0), u11], axis=1)
    mu = 3 * rng.random((2, pairs))
    sigma = np.exp(np.log(0.5) + np.log(4.0) * rng.random((2, pairs)))
    with np.errstate(all="ignore"):
        d_true = _numpy_best_yield(u, prevalence, mu[1], sigma[1]) - _numpy_best_yield(u, prevalence, mu[0], sigma[0])
        tied = d_true == 0
        direction = np.sign(d_true)
        identity = np.array([1.0, 0.0, 0.0, 1.0]) + np.zeros((pairs, 4))
        scores = [
            lambda k: ndtr(mu[k] / np.sqrt(1 + sigma[k] ** 2)),
            lambda k: _numpy_best_yield(identity, prevalence, mu[k], sigma[k]),
            lambda k: _numpy_linear_best(1.0, 1.0, mu[k], sigma[k], 0.0, 0.0),
            lambda k: _numpy_best_f1(prevalence, mu[k], sigma[k]),
        ]
        counts = [int(np.sum(~tied & ~(direction * (score(1) - score(0)) > 0))) for score in scores]
        perturbed = u + sd * rng.standard_normal((pairs, 4))
        d = _numpy_best_yield(perturbed, prevalence, mu[1], sigma[1]) - _numpy_best_yield(perturbed, prevalence, mu[0], sigma[0])
        counts.append(int(np.sum(~tied & ~(direction * d > 0))))
    return np.array([*counts, int(np.sum(tied))])


def roc_rss_mib(samples: int, jobs: int) -> float:
    """Peak resident memory (MiB) of a fresh process that runs the ROC study of (h)."""
    import subprocess

    code = (
        "import resource, sys; sys.path.insert(0, sys.argv[1]); import bench; from mcrank.engine import run_study; "
        f"run_study(bench.roc_study_config({samples}), jobs={jobs}); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).resolve().parent)], capture_output=True, text=True, check=True
    )
    return int(completed.stdout.split()[-1]) / 1024  # ru_maxrss is in KiB on Linux


def measure_roc(samples: int, jobs: int, repeat: int, rss_factors=(1, 100)) -> dict:
    """(h) The ROC study on one core against the floor of its variates (their number counted
    from PCG64 state distances, as in (d)) and the NumPy implementation on a tenth of the pairs
    (per pair); RSS at each of ``rss_factors`` x ``samples`` pairs on ``jobs`` jobs."""
    from mcrank.engine.roc import _count_chunk as roc_chunk
    from mcrank.engine.roc import study_arguments as roc_arguments

    config = roc_study_config(samples)
    run_study(replace(config, samples=1000), jobs=1)  # warm-up
    _random_number_floor(np.random.default_rng(0), 10, 10)
    study, pairs = roc_arguments(config), min(samples, 200_000)

    def consumed(sds):
        s = study._replace(sds=np.array(sds, dtype=float))
        buffers = np.zeros(s.score_codes.size + s.sds.size + 1, dtype=np.int64), np.zeros(s.sds.size), np.zeros(s.sds.size)
        return outputs_consumed(lambda rng: roc_chunk(rng, rng, pairs, s, *buffers), np.random.default_rng(2)) / pairs

    uniforms = consumed(())
    normals = (consumed(config.sds) - uniforms) / outputs_per_normal(10**5)
    numpy_pairs = max(samples // 10, 1000)
    numpy_roc_study(1000, np.random.default_rng(0))  # imports scipy
    engine, floor, numpy_times = round_times(
        [
            lambda: run_study(config, jobs=1),
            lambda: draw_floor([(samples, uniforms, normals)]),
            lambda: numpy_roc_study(numpy_pairs, np.random.default_rng(4)),
        ],
        repeat,
    )
    rss = {factor * samples: roc_rss_mib(factor * samples, jobs) for factor in rss_factors}
    return {
        "uniforms_per_pair": uniforms,
        "normals_per_pair": normals,
        "engine": min(engine),
        "floor": min(floor),
        "ratio": paired_ratio(engine, floor),
        "numpy_pairs": numpy_pairs,
        "numpy": min(numpy_times),
        "numpy_ratio": (min(numpy_times) / numpy_pairs) / (min(engine) / samples),
        "rss_mib": rss,
    }


def print_roc(results: dict, samples: int, out=sys.stdout) -> None:
    print("", file=out)
    target = " (targets: engine / floor <= 2x; numpy / engine >= 20x)" if samples == TARGET_PAIRS else ""
    print(f"(h) the ROC study, {samples:.0e} pairs, 4 scores, sd 0.1, gaussian errors, 1 job{target}:", file=out)
    r = results
    print(f"  variates per pair: uniforms {r['uniforms_per_pair']:.3f}, normals {r['normals_per_pair']:.3f}", file=out)
    print(
        f"  engine {r['engine']:.3f} s ({1e9 * r['engine'] / samples:,.0f} ns a pair); floor {r['floor']:.3f} s; "
        f"engine / floor {r['ratio']:.2f}x (median of rounds)",
        file=out,
    )
    print(
        f"  NumPy, {r['numpy_pairs']:.0e} pairs: {r['numpy']:.3f} s ({1e9 * r['numpy'] / r['numpy_pairs']:,.0f} ns a pair); "
        f"numpy / engine per pair {r['numpy_ratio']:.1f}x",
        file=out,
    )
    print("  peak RSS: " + ", ".join(f"{n:.0e} pairs {mib:.0f} MiB" for n, mib in r["rss_mib"].items()), file=out)


# --- (o) the probabilities study against the ROC study ---------------------------------------------


def probabilities_study_config(samples: int) -> StudyConfig:
    """(o)'s study: (h)'s setting for probabilistic classifiers, with their default scores."""
    return StudyConfig(kind="probabilities", samples=samples, seed=12345, sds=(0.1,), error="gaussian")


def measure_probabilities(samples: int, repeat: int) -> dict:
    """(o) The probabilities study and the ROC study of (h), one job each, timed in turn in each
    of ``repeat`` rounds; the ratio is the median over rounds of the ratio within a round."""
    roc_config, config = roc_study_config(samples), probabilities_study_config(samples)
    for warm in (roc_config, config):
        run_study(replace(warm, samples=1000), jobs=1)  # compiled, or loaded from numba's cache
    probabilities, roc = round_times([lambda: run_study(config, jobs=1), lambda: run_study(roc_config, jobs=1)], repeat)
    ratios = [p / r for p, r in zip(probabilities, roc)]
    return {
        "probabilities": min(probabilities),
        "roc": min(roc),
        "ratio": paired_ratio(probabilities, roc),
        "ratio_range": [min(ratios), max(ratios)],
    }


def print_probabilities(results: dict, samples: int, out=sys.stdout) -> None:
    print("", file=out)
    print(
        f"(o) the probabilities study, {samples:.0e} pairs, 3 scores, sd 0.1, gaussian errors, 1 job (target: within 3x the ROC study):",
        file=out,
    )
    r = results
    low, high = r["ratio_range"]
    print(
        f"  probabilities {r['probabilities']:.3f} s ({1e9 * r['probabilities'] / samples:,.0f} ns a pair); ROC study (h) {r['roc']:.3f} s; "
        f"probabilities / ROC {r['ratio']:.2f}x (median of rounds; {low:.2f}-{high:.2f})",
        file=out,
    )


# --- (h) the ROC kernel against its call floor and against 6483364's -----------------------------

#: The settings of the ROC kernel's floor rows: one sd, and the 26-sd sweep of experiments/roc_*.
ROC_FLOOR_SETTINGS = {"one sd": "0.1", "26-sd sweep": "0:0.5:0.02"}
#: Pairs of the ROC kernel's floor rows.
ROC_FLOOR_PAIRS = 10**5


def record_roc_calls(kernel: str, sds: str, pairs: int) -> dict:
    """The library calls of a ROC kernel (``current`` or ``main``) on ``pairs`` pairs of (h)'s
    study with ``sds``: scripts/roc_calls.py in a fresh process, the kernel run as Python."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "calls.npz"
        script = Path(__file__).resolve().parent / "roc_calls.py"
        environment = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
        subprocess.run([sys.executable, str(script), kernel, sds, str(pairs), str(path)], env=environment, check=True)
        with np.load(path) as calls:
            return {name: calls[name] for name in calls.files}


@jit
def _call_floor(erfc, log, sqrt, exp, repeats):
    """Only the library calls: each function on its recorded arguments, ``repeats`` times over."""
    ring = np.empty(8)
    for _ in range(repeats):
        for i in range(erfc.size):
            ring[i & 7] = math.erfc(erfc[i])
        for i in range(log.size):
            ring[i & 7] = math.log(log[i])
        for i in range(sqrt.size):
            ring[i & 7] = math.sqrt(sqrt[i])
        for i in range(exp.size):
            ring[i & 7] = math.exp(exp[i])
    return ring[0]


@jit
def _chained_call_floor(erfc, log, sqrt, exp, repeats):
    """:func:`_call_floor` with each call waiting for the previous one's result (``+ 0.0 *``
    it: no compiler may drop that), as a kernel's dependent calls wait: latency, not throughput."""
    last = 0.0
    for _ in range(repeats):
        for i in range(erfc.size):
            last = math.erfc(erfc[i] + 0.0 * last)
        for i in range(log.size):
            last = math.log(log[i] + 0.0 * last)
        for i in range(sqrt.size):
            last = math.sqrt(sqrt[i] + 0.0 * last)
        for i in range(exp.size):
            last = math.exp(exp[i] + 0.0 * last)
    return last


@jit
def _ordered_call_floor(order, erfc, log, sqrt, exp, repeats):
    """:func:`_call_floor` with the calls in the kernel's order (``order``: each call's function,
    its position in erfc, log, sqrt, exp), each still independent of the others: what the
    processor can overlap when the functions come interleaved as the kernel makes them."""
    ring = np.empty(8)
    for _ in range(repeats):
        e = g = r = x = 0
        for i in range(order.size):
            function = order[i]
            if function == 0:
                ring[i & 7] = math.erfc(erfc[e])
                e += 1
            elif function == 1:
                ring[i & 7] = math.log(log[g])
                g += 1
            elif function == 2:
                ring[i & 7] = math.sqrt(sqrt[r])
                r += 1
            else:
                ring[i & 7] = math.exp(exp[x])
                x += 1
    return ring[0]


def measure_roc_floor(pairs: int, repeat: int, recorded: int = 20_000) -> dict:
    """(h) The ROC kernel on one core, ``pairs`` pairs, against its call floor (the erfc, log,
    sqrt and exp it calls, on the arguments recorded from ``recorded`` pairs and repeated to
    ``pairs``, and the uniforms and normals it draws) and against 6483364's kernel, frozen in
    scripts/roc_main_kernel.py; all three timed in turn in each of ``repeat`` rounds."""
    from roc_main_kernel import _count_chunk as main_chunk

    from mcrank.engine.roc import _count_chunk as current_chunk
    from mcrank.engine.roc import study_arguments as roc_arguments

    recorded = min(recorded, pairs)
    repeats = max(pairs // recorded, 1)
    results = {}
    for label, sds in ROC_FLOOR_SETTINGS.items():
        calls = {kernel: record_roc_calls(kernel, sds, recorded) for kernel in ("current", "main")}
        study = roc_arguments(replace(roc_study_config(pairs), sds=tuple(calls["current"]["sds"].tolist())))

        def run(chunk):
            buffers = (
                np.zeros(study.score_codes.size + study.sds.size + 1, dtype=np.int64),
                np.zeros(study.sds.size),
                np.zeros(study.sds.size),
            )
            chunk(np.random.default_rng(5), np.random.default_rng(6), pairs, study, *buffers)

        def floor_of(kernel):
            c = calls[kernel]
            uniforms, normals = c["uniforms"] / recorded, c["normals"] / recorded
            return lambda: (_call_floor(c["erfc"], c["log"], c["sqrt"], c["exp"], repeats), draw_floor([(pairs, uniforms, normals)]))

        def chained_floor():
            c = calls["current"]
            _chained_call_floor(c["erfc"], c["log"], c["sqrt"], c["exp"], repeats)
            draw_floor([(pairs, c["uniforms"] / recorded, c["normals"] / recorded)])

        def ordered_floor():
            c = calls["current"]
            _ordered_call_floor(c["order"], c["erfc"], c["log"], c["sqrt"], c["exp"], repeats)
            draw_floor([(pairs, c["uniforms"] / recorded, c["normals"] / recorded)])

        functions = [
            lambda: run(current_chunk),
            lambda: run(main_chunk),
            floor_of("current"),
            floor_of("main"),
            chained_floor,
            ordered_floor,
        ]
        for function in functions:
            function()  # compile or load
        kernel, main, floor_times, main_floor, chained, ordered = round_times(functions, repeat)
        per_pair = {
            kernel_name: {name: float(np.size(c[name]) / recorded) for name in ("erfc", "log", "sqrt", "exp")}
            | {"uniforms": float(c["uniforms"] / recorded), "normals": float(c["normals"] / recorded)}
            for kernel_name, c in calls.items()
        }
        results[label] = {
            "sds": calls["current"]["sds"].tolist(),
            "calls_per_pair": per_pair,
            "kernel": kernel,
            "main": main,
            "floor": floor_times,
            "main_ratio": paired_ratio(main, kernel),
            "main_ratios": (np.asarray(main) / np.asarray(kernel)).tolist(),
            "floor_ratio": paired_ratio(kernel, floor_times),
            "floor_ratios": (np.asarray(kernel) / np.asarray(floor_times)).tolist(),
            "main_floor": main_floor,
            "main_own_floor_ratio": paired_ratio(main, main_floor),
            "main_floor_ratio": paired_ratio(kernel, main_floor),
            "main_floor_ratios": (np.asarray(kernel) / np.asarray(main_floor)).tolist(),
            "chained_floor": chained,
            "chained_floor_ratio": paired_ratio(kernel, chained),
            "chained_floor_ratios": (np.asarray(kernel) / np.asarray(chained)).tolist(),
            "ordered_floor": ordered,
            "ordered_floor_ratio": paired_ratio(kernel, ordered),
            "ordered_floor_ratios": (np.asarray(kernel) / np.asarray(ordered)).tolist(),
        }
    return {"pairs": pairs, "recorded": recorded, "repeat": repeat, "settings": results}


def print_roc_floor(results: dict, out=sys.stdout) -> None:
    pairs, repeat = results["pairs"], results["repeat"]
    print("", file=out)
    print(
        f"(h) the ROC kernel against its call floor and against 6483364's kernel (scripts/roc_main_kernel.py), "
        f"{pairs:.0e} pairs, 4 scores, gaussian errors, 1 core, {repeat} rounds "
        "(targets: kernel / floor <= 1.5x at one sd, <= 1.7x on the sweep; main / kernel >= 1.6x at one sd, >= 1.3x on the sweep):",
        file=out,
    )
    for label, r in results["settings"].items():
        calls = r["calls_per_pair"]
        print(f"  {label}: library calls a pair (recorded on {results['recorded']:.0e} pairs):", file=out)
        for kernel in ("current", "main"):
            print("    " + f"{kernel:8s}" + ", ".join(f"{name} {calls[kernel][name]:.2f}" for name in calls[kernel]), file=out)
        spans = {key: f"{min(r[key]):.3f}-{max(r[key]):.3f} s" for key in ("kernel", "main", "floor", "main_floor")}
        print(
            f"    kernel {spans['kernel']}, 6483364's {spans['main']}; floor of the kernel's calls {spans['floor']}, "
            f"of 6483364's {spans['main_floor']} (range over rounds)",
            file=out,
        )
        print(
            f"    main / kernel {r['main_ratio']:.2f}x ({min(r['main_ratios']):.2f}-{max(r['main_ratios']):.2f}); "
            f"kernel / its floor {r['floor_ratio']:.2f}x ({min(r['floor_ratios']):.2f}-{max(r['floor_ratios']):.2f}); "
            f"kernel / 6483364's floor {r['main_floor_ratio']:.2f}x ({min(r['main_floor_ratios']):.2f}-{max(r['main_floor_ratios']):.2f}); "
            f"6483364 / its floor {r['main_own_floor_ratio']:.2f}x (medians of paired rounds, and ranges)",
            file=out,
        )
        print(
            f"    the kernel's calls chained, each waiting for the one before: {min(r['chained_floor']):.3f}-{max(r['chained_floor']):.3f} s; "
            f"kernel / that {r['chained_floor_ratio']:.2f}x ({min(r['chained_floor_ratios']):.2f}-{max(r['chained_floor_ratios']):.2f})",
            file=out,
        )
        print(
            f"    the kernel's calls in its order, each independent: {min(r['ordered_floor']):.3f}-{max(r['ordered_floor']):.3f} s; "
            f"kernel / that {r['ordered_floor_ratio']:.2f}x ({min(r['ordered_floor_ratios']):.2f}-{max(r['ordered_floor_ratios']):.2f})",
            file=out,
        )


# --- the measurements --------------------------------------------------------------------------


def study(samples: int, *, jobs: int, **settings) -> None:
    """A study of the paper's procedure taken literally (the ``sample`` estimator, which draws
    the errors), unless ``settings`` say otherwise: what (a)-(d) measure."""
    run_study(StudyConfig(samples=samples, seed=12345, **{"estimator": "sample", **settings}), jobs=jobs)


def measure(samples: int, jobs: int, repeat: int, oracle_samples: int, count_samples: int) -> dict:
    results: dict = {
        "samples": samples,
        "jobs": jobs,
        # Cores the all-cores rows run on (joblib's n_jobs: -1 is all of them).
        "cores": min(jobs, usable_cores()) if jobs > 0 else max(1, usable_cores() + 1 + jobs),
        "repeat": repeat,
        "oracle_samples": oracle_samples,
        "oracle_sweep_samples": max(samples // 50, 1000),
    }

    start = time.perf_counter()
    for true_um in TRUE_UMS:
        for error in ERRORS:
            study(2000, jobs=1, true_um=true_um, error=error, sds=SWEEP_SDS)
    _random_number_floor(np.random.default_rng(0), 10, 10)
    _draw_normals(np.random.default_rng(0), 10)
    run_oracle(1000, rng=np.random.default_rng(0), error="truncated")
    results["warm_up_s"] = time.perf_counter() - start

    # The variates each setting draws, for the floor.
    per_normal = outputs_per_normal(max(count_samples, 10**5))
    results["outputs_per_normal"] = per_normal
    counts = {}
    for true_um in TRUE_UMS:
        for error in ERRORS:
            for name, sds in (("single", (0.1,)), ("sweep", SWEEP_SDS)):
                config = StudyConfig(true_um=true_um, error=error, sds=sds, estimator="sample")
                counts[f"{name}/{true_um}/{error}"] = variates_per_pair(config, count_samples, per_normal)
    results["variates_per_pair"] = {key: {"uniforms": u, "normals": z} for key, (u, z) in counts.items()}

    def against_floor(run_engine, floor_counts) -> dict:
        """The single-threaded engine and its random-number floor, timed in alternation."""
        engine, floor = round_times([run_engine, lambda: draw_floor(floor_counts)], repeat)
        return {"floor": min(floor), "engine": min(engine), "engine_median": float(np.median(engine)), "ratio": paired_ratio(engine, floor)}

    # Single-threaded engine and its floor in alternation; then the engine on all cores. With
    # truncated errors one setting is not a target of its own, but the floor applies.
    single = dict(true_um="uniform", error="gaussian", sds=(0.1,), metrics=PAPER_METRICS)
    results["floor"] = {}
    for key, error in (("single", "gaussian"), ("single_truncated", "truncated")):
        results["floor"][key] = against_floor(
            lambda error=error: study(samples, jobs=1, **{**single, "error": error}), [(samples, *counts[f"single/uniform/{error}"])]
        )
    results["single"] = {1: results["floor"]["single"]["engine"]}
    # One setting is a few chunks: on all cores its time depends on when joblib, which polls
    # every 10 ms, looks at the results. The median says what a user typically sees.
    results["single_median"] = {1: results["floor"]["single"]["engine_median"]}
    results["sweep"] = {}
    for error in ERRORS:

        def sweep(j, error=error):
            for t in TRUE_UMS:
                study(samples, jobs=j, true_um=t, error=error, sds=SWEEP_SDS)

        results["floor"][f"sweep_{error}"] = against_floor(lambda: sweep(1), [(samples, *counts[f"sweep/{t}/{error}"]) for t in TRUE_UMS])
        results["sweep"][error] = {1: results["floor"][f"sweep_{error}"]["engine"]}
    if jobs != 1:
        (times,) = round_times([lambda: study(samples, jobs=jobs, **single)], repeat)
        results["single"][jobs], results["single_median"][jobs] = min(times), float(np.median(times))
        for error in ERRORS:
            results["sweep"][error][jobs] = best_time(
                lambda error=error: [study(samples, jobs=jobs, true_um=t, error=error, sds=SWEEP_SDS) for t in TRUE_UMS],
                repeat,
            )

    def against_oracle(setting, pairs, seed, count):
        """Oracle, engine and the random-number floor on ``pairs`` pairs, one core each; and,
        on all cores, the engine per pair over ``samples`` pairs: a run of a few chunks
        mostly measures joblib's dispatch (its result loop polls every 10 ms).

        oracle / floor is the ceiling of oracle / engine: no engine that draws these
        variates from this Generator can take less time than drawing them.
        """
        sides = [
            lambda: run_oracle(pairs, rng=np.random.default_rng(seed), **setting),
            lambda: study(pairs, jobs=1, **setting),
            lambda: draw_floor([(pairs, *count)]),
        ]
        if jobs != 1:
            sides.append(lambda: study(samples, jobs=jobs, **setting))
        oracle, engine, floor, *all_cores = best_times(sides, repeat)
        entry = {"oracle": oracle, "engine": {1: engine}, "floor": floor}
        if all_cores:
            entry["engine_all_cores"] = all_cores[0]
        return entry

    results["oracle"] = {
        error: against_oracle({**single, "error": error}, oracle_samples, 4, counts[f"single/uniform/{error}"]) for error in ERRORS
    }
    # The sweep on the same work too, for uniform true UMs, with fewer pairs: the oracle's
    # plain rejection is slow at large sd.
    for error in ERRORS:
        setting = dict(true_um="uniform", error=error, sds=SWEEP_SDS, metrics=PAPER_METRICS)
        results["oracle"][f"sweep_{error}"] = against_oracle(setting, results["oracle_sweep_samples"], 5, counts[f"sweep/uniform/{error}"])

    return results


# --- the report --------------------------------------------------------------------------------


def _jobs_label(j: int) -> str:
    return "all" if j == -1 else str(j)


def table(results: dict) -> list[tuple[str, str, str, str, str, str]]:
    """Rows (what, pairs, jobs, measured, per pair, target); the targets only for studies of
    :data:`TARGET_PAIRS` pairs."""
    rows = _table(results)
    return rows if results["samples"] == TARGET_PAIRS else [(*row[:-1], "") for row in rows]


def _table(results: dict) -> list[tuple[str, str, str, str, str, str]]:
    n = results["samples"]
    rows = []

    def ns(seconds, pairs):
        return f"{1e9 * seconds / pairs:,.0f} ns"

    for j, t in results["single"].items():
        rows.append(
            (
                "(a) one setting: 7 metrics, sd 0.1, gaussian errors",
                f"{n:.0e}",
                _jobs_label(j),
                f"{t:.3f} s",
                ns(t, n),
                f"<= {TARGETS['single_setting_s']} s",
            )
        )
    for j, t in results["single_median"].items():
        rows.append((f"    median of the {results['repeat']} runs", f"{n:.0e}", _jobs_label(j), f"{t:.3f} s", ns(t, n), ""))
    for error in ERRORS:
        target = TARGETS[f"sweep_{error}_s"]
        for j, t in results["sweep"][error].items():
            rows.append(
                (
                    f"(b) sweep: 51 sds x 2 true-UM dists, {error}",
                    f"2 x {n:.0e}",
                    _jobs_label(j),
                    f"{t:.3f} s",
                    ns(t, 2 * n),
                    f"<= {target} s",
                )
            )
    m = results["oracle_samples"]
    m_sweep = results["oracle_sweep_samples"]
    for key, label, m in [(e, f"one setting, {e} errors", m) for e in ERRORS] + [
        (f"sweep_{e}", f"51-sd sweep, uniform, {e}", m_sweep) for e in ERRORS
    ]:
        entry = results["oracle"][key]
        engine = entry["engine"][1]
        rows.append((f"(c) NumPy oracle, {label}", f"{m:.0e}", "1", f"{entry['oracle']:.3f} s", ns(entry["oracle"], m), ""))
        rows.append(("    engine, same work", f"{m:.0e}", "1", f"{engine:.4f} s", ns(engine, m), ""))
        rows.append(("    oracle / engine", "", "1", f"{entry['oracle'] / engine:.1f}x", "", f">= {TARGETS['oracle_ratio']:.0f}x"))
        rows.append(
            (
                "    oracle / floor: the most an engine drawing these could reach",
                "",
                "1",
                f"{entry['oracle'] / entry['floor']:.1f}x",
                "",
                "",
            )
        )
        if "engine_all_cores" in entry:
            n, t = results["samples"], entry["engine_all_cores"]
            rows.append(("    engine, same setting, more pairs", f"{n:.0e}", "all", f"{t:.3f} s", ns(t, n), ""))
            ratio = (entry["oracle"] / m) / (t / n)
            rows.append(("    oracle / engine, per pair", "", "all", f"{ratio:.1f}x", "", f">= {TARGETS['oracle_ratio']:.0f}x"))
            cores = results["cores"]
            ceiling = cores * entry["oracle"] / entry["floor"]
            rows.append(
                (f"    oracle / floor x {cores} cores: the most an engine drawing these could reach", "", "all", f"{ceiling:.1f}x", "", "")
            )
    floors = (
        ("single", "(a)"),
        ("single_truncated", "(a), truncated errors"),
        ("sweep_gaussian", "(b) gaussian"),
        ("sweep_truncated", "(b) truncated"),
    )
    for key, label in floors:
        entry = results["floor"][key]
        rows.append((f"(d) random-number floor for {label}", "", "1", f"{entry['floor']:.3f} s", "", ""))
        rows.append(("    engine, same work", "", "1", f"{entry['engine']:.3f} s", "", ""))
        rows.append(("    engine / floor (median of rounds)", "", "1", f"{entry['ratio']:.2f}x", "", f"<= {TARGETS['floor_ratio']:.0f}x"))
    return rows


def print_report(info: dict, results: dict, load_before, load_after, out=sys.stdout) -> None:
    print("mcrank engine benchmark", file=out)
    print(f"  machine   {info['platform']}", file=out)
    print(f"  cpu       {info['cpu']} ({info['nproc']} usable cores)", file=out)
    print(f"  versions  python {info['python']}, numpy {info['numpy']}, numba {info['numba']}", file=out)
    print(f"  load avg  before {load_before}, after {load_after} (1, 5, 15 min)", file=out)
    print(
        f"  method    best of {results['repeat']} (and the median, for one setting); engine/floor: median of "
        f"{results['repeat']} paired rounds; JIT warm-up (compile or cache load) took "
        f"{results['warm_up_s']:.1f} s before any timing",
        file=out,
    )
    header = ("what", "pairs", "jobs", "measured", "per pair", "target")
    rows = table(results)
    if results["samples"] != TARGET_PAIRS:
        print(f"  targets   set for {TARGET_PAIRS:.0e} pairs a study, so not shown for {results['samples']:.0e}", file=out)
    print("", file=out)
    rows = [header, *rows]
    widths = [max(len(row[k]) for row in rows) for k in range(len(header))]
    for i, row in enumerate(rows):
        print("  ".join(cell.ljust(w) if k == 0 else cell.rjust(w) for k, (cell, w) in enumerate(zip(row, widths))), file=out)
        if i == 0:
            print("  ".join("-" * w for w in widths), file=out)
    print("", file=out)
    print(
        f"variates per pair drawn by the engine (counted from PCG64 state distances; "
        f"{results['outputs_per_normal']:.4f} outputs per normal):",
        file=out,
    )
    for key, entry in results["variates_per_pair"].items():
        # Per sd that draws: sd 0 needs no variate.
        sds = 1 if key.startswith("single") else sum(sd > 0 for sd in SWEEP_SDS)
        per_element = entry["normals"] / (4 * sds) if key.endswith("truncated") else None
        extra = f"  ({per_element:.3f} normals per element per sd)" if per_element is not None else ""
        print(f"  {key:28s} uniforms {entry['uniforms']:7.3f}  normals {entry['normals']:8.3f}{extra}", file=out)


def _one_section(args, title: str, key: str, measure, report) -> int:
    """A ``--*-only`` run: the machine, the load average around ``measure()``, its table by
    ``report(result)``, and the JSON file of ``--json`` under ``key``."""
    info, load_before = machine(), load_average()
    result = measure()
    print(f"mcrank {title} benchmark: {info['cpu']} ({info['nproc']} usable cores), numba {info['numba']}", file=sys.stdout)
    print(f"  load avg  before {load_before}, after {load_average()} (1, 5, 15 min)", file=sys.stdout)
    report(result)
    if args.json is not None:
        args.json.write_text(json.dumps({"machine": info, key: result}, indent=2, default=str) + "\n")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=lambda s: int(float(s)), default=None, help="pairs per study (default 1e6; 2e4 with --quick)")
    parser.add_argument("--jobs", type=int, default=-1, help="parallel jobs for the all-cores rows (default -1: all cores)")
    parser.add_argument("--repeat", type=int, default=None, help="timings per measurement, best kept (default 3; 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="a smoke run with few pairs")
    parser.add_argument(
        "--smoke", action="store_true", help="--quick, and every section once at tiny sizes: that each runs and prints, no timing to read"
    )
    parser.add_argument("--json", type=Path, default=None, metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument("--roc-floor-only", action="store_true", help="only the ROC kernel against its call floor and 6483364's (h)")
    parser.add_argument("--truncated-only", action="store_true", help="only the n-class truncated sampler against the former one (n)")
    parser.add_argument("--probabilities-only", action="store_true", help="only the probabilities study against the ROC study (o)")
    args = parser.parse_args(argv)
    args.quick = args.quick or args.smoke
    if args.probabilities_only:
        samples, repeat = args.samples or (20_000 if args.quick else 10**6), args.repeat or (1 if args.quick else 5)
        return _one_section(args, "probabilities", "probabilities", lambda: measure_probabilities(samples, repeat),
                            lambda r: print_probabilities(r, samples))  # fmt: skip
    if args.roc_floor_only:
        pairs, repeat = args.samples or (10**4 if args.quick else ROC_FLOOR_PAIRS), args.repeat or (1 if args.quick else 7)
        return _one_section(args, "ROC kernel", "roc_floor", lambda: measure_roc_floor(pairs, repeat), print_roc_floor)
    if args.truncated_only:
        matrices, repeat = args.samples or (200 if args.quick else TRUNCATED_MATRICES), args.repeat or (1 if args.quick else 5)
        return _one_section(args, "truncated sampler", "truncated", lambda: measure_truncated(matrices, repeat), print_truncated)

    samples = args.samples or (20_000 if args.quick else 10**6)
    repeat = args.repeat or (1 if args.quick else 3)
    oracle_samples = max(samples // 5, 1000)
    count_samples = min(samples, 200_000)

    info = machine()
    load_before = load_average()
    results = measure(samples, args.jobs, repeat, oracle_samples, count_samples)
    results["test_sets"] = measure_test_sets(samples, repeat)
    results["estimators"] = measure_estimators(samples, args.jobs, repeat)
    results["classes"] = measure_classes(samples, args.jobs, repeat)
    if args.smoke:
        results["test_uncertainty"] = measure_test_uncertainty(repeat, (10**3,), items=1000, draws=1000)
    else:
        results["test_uncertainty"] = measure_test_uncertainty(repeat, (10**4, 10**6) if args.quick else (10**6, 10**8))
    results["roc"] = measure_roc(samples, args.jobs, repeat, rss_factors=(1,) if args.smoke else (1, 100))
    results["probabilities"] = measure_probabilities(samples, repeat)
    # A quick run records the kernel's calls (the kernel run as Python) on fewer pairs.
    recorded = 100 if args.smoke else 1000 if args.quick else 20_000
    results["roc_floor"] = measure_roc_floor(min(samples, ROC_FLOOR_PAIRS), repeat if args.smoke else max(repeat, 5), recorded=recorded)
    results["decision_curves"] = measure_decision_curves(repeat, *((10**4, 100) if args.smoke else ()))
    results["folds"] = measure_folds(repeat)
    # A fraction of a second each: five rounds at least, but one for a smoke run (20 processes fewer).
    results["startup"] = measure_startup(repeat if args.quick else max(repeat, 5), warm_up=not args.smoke)
    if args.smoke:
        results["scoring_posterior"] = measure_scoring_posterior(repeat, 20, (20,), items=1000)
    else:
        results["scoring_posterior"] = measure_scoring_posterior(repeat, *((200, (10, 200)) if args.quick else ()))
    results["per_item"] = measure_per_item(repeat, 10**4 if args.quick else 10**6, 200 if args.quick else 2000)
    results["truncated"] = measure_truncated(200 if args.quick else TRUNCATED_MATRICES, repeat)
    load_after = load_average()
    print_report(info, results, load_before, load_after)
    print_test_sets(results["test_sets"], samples)
    print_estimators(results["estimators"], samples)
    print_classes(results["classes"], samples, results["cores"])
    print_test_uncertainty(results["test_uncertainty"])
    print_roc(results["roc"], samples)
    print_roc_floor(results["roc_floor"])
    print_probabilities(results["probabilities"], samples)
    print_decision_curves(results["decision_curves"])
    print_folds(results["folds"])
    print_startup(results["startup"])
    print_scoring_posterior(results["scoring_posterior"])
    print_per_item(results["per_item"])
    print_truncated(results["truncated"])
    if args.json is not None:
        payload = {
            "machine": info,
            "load_average_before": load_before,
            "load_average_after": load_after,
            "targets": TARGETS if results["samples"] == TARGET_PAIRS else None,
            "results": results,
            "table": [dict(zip(("what", "pairs", "jobs", "measured", "per_pair", "target"), row)) for row in table(results)],
        }
        args.json.write_text(json.dumps(payload, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
