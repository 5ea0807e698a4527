"""mcrank.results on disk: reading inputs within a limit, atomic writes, the study files."""

import json
import os
import stat

import pytest

from mcrank.results import atomic_write_bytes, check_out_file, read_study, read_text


def test_read_text_skips_a_byte_order_mark(tmp_path):
    path = tmp_path / "a.toml"
    path.write_bytes(b"\xef\xbb\xbfsamples = 1\n")
    assert read_text(path) == "samples = 1\n"


def test_an_endless_device_is_refused_unread(tmp_path):
    # `mcrank run --config /dev/zero` read until the memory ran out; a large regular file is
    # refused after reading just past the limit.
    with pytest.raises(ValueError, match=r"^/dev/zero: is a device, not a regular file$"):
        read_text("/dev/zero", limit=1024, what="experiment file")
    path = tmp_path / "large.json"
    path.write_bytes(b"x" * 1025)
    with pytest.raises(ValueError, match=f"^{path}: the experiment file is larger than the limit of 1,024 bytes$"):
        read_text(path, limit=1024, what="experiment file")


def test_a_file_at_the_limit_is_read(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("x" * 16)
    assert read_text(path, limit=16) == "x" * 16
    with pytest.raises(ValueError, match="larger than the limit of 15 bytes"):
        read_text(path, limit=15)


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=f"^{path}: not a text file \\(not UTF-8\\)$"):
        read_text(path)


def test_a_missing_file_is_an_os_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        read_text(tmp_path / "missing.toml")
    assert error.value.filename == str(tmp_path / "missing.toml")


def test_a_read_only_file_is_neither_replaced_nor_accepted_before_a_run(tmp_path):
    # A rename ignores the file's mode: `--out` onto a 0444 file replaced it with a writable one.
    path = tmp_path / "r.json"
    path.write_text("kept\n")
    path.chmod(0o444)
    for call in (lambda: check_out_file(path), lambda: atomic_write_bytes(path, b"new\n")):
        with pytest.raises(PermissionError) as error:
            call()
        assert error.value.filename == str(path) and "read-only" in error.value.strerror
    assert path.read_text() == "kept\n" and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert os.listdir(tmp_path) == ["r.json"]


def test_a_write_replaces_the_file_whole_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "deep" / "r.csv"
    atomic_write_bytes(path, b"old\n")
    atomic_write_bytes(path, b"new\n")
    assert path.read_bytes() == b"new\n" and os.listdir(path.parent) == ["r.csv"]
    directory = tmp_path / "deep" / "d"
    (directory / "x").mkdir(parents=True)
    with pytest.raises(OSError) as error:  # a rename cannot replace a directory
        atomic_write_bytes(directory, b"x")
    assert error.value.filename == str(directory) and sorted(os.listdir(path.parent)) == ["d", "r.csv"]


def test_a_new_file_has_the_umasks_mode_and_an_overwrite_keeps_the_old_files(tmp_path):
    # mkstemp makes its file 0600; a new file gets what open() would give under the umask, and
    # a file replaced by its new contents keeps the mode its owner gave it (also through a link).
    old = os.umask(0o027)
    try:
        new = atomic_write_bytes(tmp_path / "new.csv", b"x\n")
        assert stat.S_IMODE(new.stat().st_mode) == 0o640
        for mode in (0o600, 0o604, 0o755):
            path = tmp_path / f"kept_{mode:o}.csv"
            path.write_bytes(b"old\n")
            path.chmod(mode)
            atomic_write_bytes(path, b"new\n")
            assert path.read_bytes() == b"new\n" and stat.S_IMODE(path.stat().st_mode) == mode, oct(mode)
        link = tmp_path / "link.csv"
        link.symlink_to(tmp_path / "kept_604.csv")
        atomic_write_bytes(link, b"through the link\n")
        assert link.is_symlink() and stat.S_IMODE((tmp_path / "kept_604.csv").stat().st_mode) == 0o604
    finally:
        os.umask(old)


def test_a_device_is_written_to_not_replaced():
    assert atomic_write_bytes("/dev/null", b"x") is not None and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_results_file_that_is_not_one_is_named(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("{")
    with pytest.raises(ValueError, match=f"^{path}: not valid JSON"):
        read_study(path)
    path.write_text(json.dumps({"rows": []}))
    with pytest.raises(ValueError, match=f"^{path}: not an mcrank results file"):
        read_study(path)
