"""The one bounded reader of the files a user names.

Every such file (an experiment file, an input of ``evaluate``, a results file) is read by
:func:`read_bounded`: only a regular file, opened without blocking, so that a FIFO, a socket or
a device is refused at once instead of waiting for a writer that never comes (or reading
``/dev/zero`` until the memory runs out); no further than its limit plus one byte, so that a
mistaken multi-gigabyte file is refused too; with one-line errors that name the file. The limits
themselves live in :mod:`mcrank._validation` (``MAX_INPUT_BYTES``, ``MAX_EXPERIMENT_BYTES``).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["json_ready", "read_bounded", "read_regular", "resolved"]

#: What a file that is not a regular one is, for the message.
_FILE_TYPES = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
               (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a directory"))  # fmt: skip


def _refuse_unless_regular(path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _FILE_TYPES if test(mode)), "a special file")
        raise ValueError(f"{os.fspath(path)}: is {kind}, not a regular file")


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
        Naming the file: not a regular file (a FIFO, a socket, a device, a directory),
        larger than ``limit``, not UTF-8 (with ``text``), or a symbolic link to nothing.
    OSError
        If the file cannot be read (the error names it).
    """
    data = read_regular(path, limit + 1)
    if len(data) > limit:
        raise ValueError(f"{os.fspath(path)}: larger than {_size(limit)}, the limit of {what}")
    if not text:
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(f"{os.fspath(path)}: not a text file (not UTF-8)") from None


def read_regular(path, size: int) -> bytes:
    """At most ``size`` bytes of the regular file ``path``; a ValueError naming it for any
    other kind of file, or for a symbolic link to nothing; an OSError naming it if it cannot
    be read.

    The type is checked before the file is opened (a socket cannot be opened at all) and again
    on what was opened, without blocking: a FIFO put in the file's place in between is refused
    too, instead of waiting for a writer.
    """
    try:
        _refuse_unless_regular(path, os.stat(path).st_mode)
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError as error:
        if Path(path).is_symlink():  # "No such file" alone would name a file that is right there
            raise ValueError(f"{os.fspath(path)}: a link to {os.readlink(path)!r}, which does not exist") from None
        raise FileNotFoundError(error.errno, error.strerror, os.fspath(path)) from None
    except OSError as error:  # the error names the file, as open() does
        raise OSError(error.errno or errno.EIO, error.strerror, os.fspath(path)) from None
    with os.fdopen(handle, "rb") as file:
        _refuse_unless_regular(path, os.fstat(file.fileno()).st_mode)
        try:
            return file.read(size)
        except OSError as error:  # EIO (a failing disk, /proc/self/mem) names no file by itself
            raise OSError(error.errno, error.strerror, os.fspath(path)) from None


def resolved(path) -> Path:
    """``path`` made absolute with its links followed, as :meth:`pathlib.Path.resolve`; a loop of
    links is an OSError (ELOOP), as every other path that cannot be opened, not the RuntimeError
    that ``resolve`` raises for it before Python 3.13."""
    try:
        return Path(path).resolve()
    except RuntimeError:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path)) from None


def json_ready(value):
    """``value`` with every NaN or infinite float as None: strict JSON has no such numbers, and
    Python's ``json`` writes them as the tokens ``NaN`` and ``Infinity``, which other readers refuse."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    return value
