"""The one bounded reader of the files a user names.

Every such file (an experiment file, an input of ``evaluate``) is read by :func:`read_bounded`:
no further than its limit plus one byte, so that ``/dev/zero`` or a mistaken multi-gigabyte
file is refused instead of filling the memory, with one-line errors that name the file. The
limits themselves live in :mod:`mcrank._validation` (``MAX_INPUT_BYTES``,
``MAX_EXPERIMENT_BYTES``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["read_bounded"]


def _size(limit: int) -> str:
    """A limit as people write it: whole mebibytes from 4 MiB on, else bytes."""
    if limit >= 4 << 20 and limit % (1 << 20) == 0:
        return f"{limit >> 20} MiB"
    return f"{limit:,} bytes"


def read_bounded(path, *, limit: int, what: str, text: bool = True) -> str | bytes:
    """The content of the file ``path``, read no further than ``limit + 1`` bytes.

    Parameters
    ----------
    path : str or path-like
    limit : int
        The largest size allowed, in bytes.
    what : str
        What the file is, for the message: "an input file" gives
        "<path>: larger than 64 MiB, the limit of an input file".
    text : bool, default True
        Decode as UTF-8 (a byte-order mark skipped) and return a str; else return the bytes.

    Raises
    ------
    ValueError
        Naming the file: larger than ``limit``, not UTF-8 (with ``text``), or a symbolic link
        to nothing.
    OSError
        If the file cannot be read (the error names it).
    """
    try:
        with open(path, "rb") as file:  # an OSError names the file
            data = file.read(limit + 1)
    except FileNotFoundError:
        if Path(path).is_symlink():  # "No such file" alone would name a file that is right there
            raise ValueError(f"{os.fspath(path)}: a link to {os.readlink(path)!r}, which does not exist") from None
        raise
    if len(data) > limit:
        raise ValueError(f"{os.fspath(path)}: larger than {_size(limit)}, the limit of {what}")
    if not text:
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{os.fspath(path)}: not a text file (not UTF-8)") from None
