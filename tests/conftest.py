"""Shared by every test: the width the tables and help texts are written for.

``mcrank evaluate`` fits its report to the terminal (``shutil.get_terminal_size``, which reads
``COLUMNS`` first), and argparse wraps help texts to it: the outputs that the docs show and the
tests compare are those of an 80-column terminal, whatever the terminal running the tests.
"""

import pytest


@pytest.fixture(autouse=True)
def _eighty_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
