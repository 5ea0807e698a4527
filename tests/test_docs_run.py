"""Every ```python block of the README and docs/ runs: one test per block, named by its page and
line.

The blocks of one page run in order in one namespace, as a reader pastes them into one
session: a later block may use what an earlier one defined. Each page runs in a fresh
temporary directory in which ``examples/`` and ``experiments/`` are the repository's (links),
so that a block names them as from a checkout and whatever it writes stays out of the
repository. Figures are drawn by matplotlib's Agg backend, and closed after each block. A block
whose first line is a comment saying "not run" (one that needs a SLURM cluster) is skipped, with
that comment as the reason. Python in the docs is written only as such blocks: a ``>>>`` example
or a block under another tag would go untested, and is refused.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
#: What a page's fenced blocks may be tagged: Python is ``python`` and nothing else.
_TAGS = {"python", "console", "bash", "text", "json", "toml", "csv", ""}
#: The directories of the repository a block may read by a relative path.
_LINKED = ("examples", "experiments")


def _fences(page: Path):
    """Each fenced block of ``page``: (its tag, the line of its opening fence, its lines)."""
    lines = page.read_text().splitlines()
    opened = None
    for number, line in enumerate(lines, 1):
        if not line.lstrip().startswith("```"):
            continue
        if opened is None:
            opened = (line.lstrip()[3:].strip(), number)
        else:
            tag, start = opened
            yield tag, start, lines[start : number - 1]
            opened = None


def _blocks(page: Path) -> list[tuple[int, str]]:
    """The Python blocks of ``page``: (line of the opening fence, source)."""
    return [(line, "\n".join(body) + "\n") for tag, line, body in _fences(page) if tag == "python"]


BLOCKS = [(page, line) for page in PAGES for line, _ in _blocks(page)]


def _skip_reason(source: str) -> str | None:
    first = source.lstrip("\n").split("\n", 1)[0].strip()
    return first.lstrip("# ").strip() if first.startswith("#") and "not run" in first.lower() else None


class _Page:
    """One page's namespace, its temporary directory, and how far its blocks have run."""

    def __init__(self, page: Path, directory: Path):
        self.blocks, self.directory = _blocks(page), directory
        self.namespace: dict = {"__name__": "__main__"}
        self.done = 0  # blocks run (or skipped) so far, in order
        self.failed: int | None = None  # the line of the block that failed
        for name in _LINKED:
            (directory / name).symlink_to(ROOT / name, target_is_directory=True)


_RUN: dict[Path, _Page] = {}


def _run_block(page: _Page, index: int, name: str) -> None:
    line, source = page.blocks[index]
    code = compile(source, f"{name}:{line}", "exec")
    exec(code, page.namespace)  # noqa: S102 - the docs' own examples


@pytest.fixture
def docs_environment(monkeypatch, tmp_path_factory):
    # matplotlib reads MPLBACKEND when first imported; one imported already is switched.
    monkeypatch.setenv("MPLBACKEND", "Agg")
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].use("Agg")
    monkeypatch.setattr(sys, "argv", ["docs"])
    yield tmp_path_factory
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def _advance(state: _Page, index: int, name: str) -> int | None:
    """Run the page's blocks up to ``index``, in order, each once: an error of block ``index``
    is raised; the line of an earlier block that failed is returned (None if none did)."""
    while state.done <= index and state.failed is None:
        k = state.done
        state.done += 1
        if _skip_reason(state.blocks[k][1]) is not None:
            continue
        try:
            _run_block(state, k, name)
        except BaseException:
            state.failed = state.blocks[k][0]
            if k == index:
                raise
    return None if state.failed is None or state.failed == state.blocks[index][0] else state.failed


@pytest.mark.parametrize(("page", "line"), BLOCKS, ids=[f"{p.relative_to(ROOT).as_posix()}:{line}" for p, line in BLOCKS])
def test_the_python_block_runs(page, line, docs_environment, monkeypatch):
    name = page.relative_to(ROOT).as_posix()
    if page not in _RUN:
        _RUN[page] = _Page(page, docs_environment.mktemp(re.sub(r"\W", "_", name)))
    state = _RUN[page]
    index = next(k for k, (at, _) in enumerate(state.blocks) if at == line)
    if (reason := _skip_reason(state.blocks[index][1])) is not None:
        pytest.skip(reason)
    monkeypatch.chdir(state.directory)
    # The earlier blocks of the page first (once), as a reader would have run them.
    if (earlier := _advance(state, index, name)) is not None:
        pytest.fail(f"{name}:{earlier}, an earlier block of the page, failed")


def test_the_blocks_of_a_page_share_a_namespace_in_order_and_a_failure_is_seen(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n```python\nx = 1\n```\n\n```console\n$ mcrank story\n```\n\n  ```python\n  # not run: needs a cluster\n"
        "  raise SystemExit\n  ```\n\n```python\nassert x == 1\ny = x + 1\n```\n\n```python\nraise ValueError('planted')\n```\n\n"
        "```python\nz = y\n```\n"
    )
    (tmp_path / "run").mkdir()
    state = _Page(page, tmp_path / "run")
    assert [line for line, _ in state.blocks] == [3, 11, 16, 21, 25]
    assert (tmp_path / "run" / "examples" / "factory.json").is_file()
    assert _skip_reason(state.blocks[1][1]) == "not run: needs a cluster" and _skip_reason(state.blocks[0][1]) is None
    assert _advance(state, 2, "page.md") is None and state.namespace["y"] == 2  # the skipped block is passed over
    with pytest.raises(ValueError, match="planted"):
        _advance(state, 3, "page.md")
    assert _advance(state, 4, "page.md") == 21 and "z" not in state.namespace


def test_the_docs_have_python_blocks():
    # The test above cannot pass by finding nothing.
    assert len(BLOCKS) >= 8 and any(page.parent.name == "docs" for page, _ in BLOCKS)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_python_in_the_docs_is_only_blocks_that_run(page):
    tags = {(tag, line) for tag, line, _ in _fences(page)}
    assert not {t for t in tags if t[0] not in _TAGS}, f"{page.name}: blocks under tags other than {sorted(_TAGS)}"
    prompts = [number for number, text in enumerate(page.read_text().splitlines(), 1) if text.lstrip().startswith(">>>")]
    assert not prompts, f"{page.name}: line {prompts[0]}: a >>> example is not run: write it as a ```python block"
