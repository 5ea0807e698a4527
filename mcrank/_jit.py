"""The one jit decorator of mcrank, with its options set here and nowhere else.

``cache=True`` keeps compiled kernels on disk between runs; ``error_model="numpy"``
makes 0/0 a NaN instead of an exception (the metrics' documented undefined value);
``nogil=True`` lets joblib's threading backend run kernels on all cores at once.
"""

from __future__ import annotations

import numba

__all__ = ["jit"]

_OPTIONS = dict(cache=True, error_model="numpy", nogil=True)


def jit(func=None, **overrides):
    """Compile ``func`` with mcrank's jit options (usable with or without arguments)."""
    options = {**_OPTIONS, **overrides}
    if func is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(func)
