"""mcrank.results on disk: reading inputs within a limit, atomic writes, the study files."""

import pytest

from mcrank.results import MAX_INPUT_BYTES, read_text


def test_read_text_skips_a_byte_order_mark(tmp_path):
    path = tmp_path / "a.toml"
    path.write_bytes(b"\xef\xbb\xbfsamples = 1\n")
    assert read_text(path) == "samples = 1\n"


def test_an_endless_file_is_refused_after_reading_just_past_the_limit():
    # `mcrank run --config /dev/zero` read until the memory ran out.
    with pytest.raises(ValueError, match=r"^/dev/zero: the experiment file is larger than the limit of 1,024 bytes$"):
        read_text("/dev/zero", limit=1024, what="experiment file")
    with pytest.raises(ValueError, match=f"^/dev/zero: the file is larger than the limit of {MAX_INPUT_BYTES:,} bytes$"):
        read_text("/dev/zero")


def test_a_file_at_the_limit_is_read(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("x" * 16)
    assert read_text(path, limit=16) == "x" * 16
    with pytest.raises(ValueError, match="larger than the limit of 15 bytes"):
        read_text(path, limit=15)


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=f"^{path}: not a text file \\(not UTF-8 at byte 3\\)$"):
        read_text(path)


def test_a_missing_file_is_an_os_error_naming_it(tmp_path):
    with pytest.raises(FileNotFoundError) as error:
        read_text(tmp_path / "missing.toml")
    assert error.value.filename == str(tmp_path / "missing.toml")
