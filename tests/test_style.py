"""The code is formatted and linted by ruff, as configured in pyproject.toml."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True)


def test_the_code_is_formatted_by_ruff():
    result = _ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_passes_ruffs_lint():
    result = _ruff("check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
