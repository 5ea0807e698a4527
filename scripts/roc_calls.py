"""Record the library calls of a ROC kernel, for the call floor of scripts/bench.py (h).

Run in a fresh process with ``NUMBA_DISABLE_JIT=1``: the kernel then runs as Python, and
every ``math.erfc``, ``math.log``, ``math.sqrt`` and ``math.exp`` it makes (mcrank's samplers
included) goes through a module standing in for ``math`` that keeps the argument; every
uniform and standard normal drawn from its generators is counted. The arguments of each
function in the order of its calls, the order of all calls (``order``: each call's function, its
position in :data:`COUNTED`) and the counts go to an ``.npz`` file::

    NUMBA_DISABLE_JIT=1 python scripts/roc_calls.py current 0.1 20000 calls.npz
    NUMBA_DISABLE_JIT=1 python scripts/roc_calls.py main 0:0.5:0.02 20000 calls.npz

``current`` is mcrank's kernel, ``main`` the frozen copy in ``roc_main_kernel.py``; the
study is scripts/bench.py's ``roc_study_config`` with the sds given.
"""

from __future__ import annotations

import math
import sys
import types

#: The library functions counted, by name.
COUNTED = ("erfc", "log", "sqrt", "exp")

_calls: dict[str, list[float]] = {name: [] for name in COUNTED}
#: The position in :data:`COUNTED` of each call, in the order of the calls.
_order: list[int] = []


class _CountingMath(types.ModuleType):
    """``math``, with the functions of :data:`COUNTED` recording their argument."""

    def __getattr__(self, name):
        return getattr(math, name)


def _recording(name):
    function, record, code = getattr(math, name), _calls[name].append, COUNTED.index(name)

    def call(x):
        record(x)
        _order.append(code)
        return function(x)

    return call


_proxy = _CountingMath("math")
for _name in COUNTED:
    setattr(_proxy, _name, _recording(_name))
sys.modules["math"] = _proxy  # before anything imports mcrank


class CountingGenerator:
    """A numpy Generator's ``random`` and ``standard_normal``, counted."""

    def __init__(self, rng):
        self.rng, self.uniforms, self.normals = rng, 0, 0

    def random(self):
        self.uniforms += 1
        return self.rng.random()

    def standard_normal(self):
        self.normals += 1
        return self.rng.standard_normal()


def main(argv) -> int:
    import numpy as np

    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import bench
    import roc_main_kernel

    from mcrank.engine import roc

    kernel, sds, pairs, out = argv
    pairs = int(float(pairs))
    if ":" in sds:
        start, stop, step = (float(v) for v in sds.split(":"))
        sds = tuple(np.round(np.arange(start, stop + step / 2, step), 10))
    else:
        sds = tuple(float(v) for v in sds.split(","))
    config = bench.roc_study_config(pairs)
    study = roc.study_arguments(bench.replace(config, sds=sds))
    count_chunk = roc._count_chunk if kernel == "current" else roc_main_kernel._count_chunk
    rng, rng_error = CountingGenerator(np.random.default_rng(5)), CountingGenerator(np.random.default_rng(6))
    incorrect = np.zeros(study.score_codes.size + study.sds.size + 1, dtype=np.int64)
    sums = np.zeros(study.sds.size), np.zeros(study.sds.size)
    for name in COUNTED:
        _calls[name].clear()  # calls made while importing
    _order.clear()
    count_chunk(rng, rng_error, pairs, study, incorrect, *sums)
    np.savez(
        out,
        pairs=pairs,
        sds=np.array(sds, dtype=float),
        uniforms=rng.uniforms + rng_error.uniforms,
        normals=rng.normals + rng_error.normals,
        order=np.array(_order, dtype=np.int8),
        **{name: np.array(values, dtype=float) for name, values in _calls.items()},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
