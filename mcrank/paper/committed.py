"""The repository's committed results: what may write into ``results/`` and ``experiments/``.

One rule: nothing under the repository's ``results/`` or ``experiments/`` is replaced except
by a full-size reproduce of the repository's own ``experiments/`` into ``results/`` itself.
Its shared tables and figures (``crossover.md``, figs 7-11) combine every study, so they are
made only from complete inputs; a reproduce of another set of experiment files, or at
another size, goes to a directory of its own. And since every results file records the
commit that made it (:func:`mcrank.results.source_revision`), such a reproduce writes
nothing from a source tree with uncommitted changes (:func:`mcrank.results.uncommitted_changes`)
unless allowed; then it says so on stderr, and what it writes records ``"modified": true``.

The repository is the git checkout mcrank runs from (:func:`mcrank.results.repository_root`);
an installed copy has none, and nothing is protected.
"""

from __future__ import annotations

from pathlib import Path

from mcrank._io import resolved
from mcrank._signals import say
from mcrank.results import repository_root, uncommitted_changes

__all__ = ["CommittedResultsError", "DirtyTreeGate", "check_destination", "committed_directories"]


class CommittedResultsError(ValueError):
    """A write into the repository's committed results that the rule refuses.

    ``str()`` names the parameter of :func:`mcrank.reproduce.reproduce` that would allow or
    avoid it; :attr:`cli_message` names the command line's flag instead.
    """

    def __init__(self, reason: str, *, remedy: str, cli_remedy: str) -> None:
        super().__init__(f"{reason}; {remedy}")
        self.cli_message = f"{reason}; {cli_remedy}"


def committed_directories() -> tuple[Path, Path] | None:
    """The repository's ``results/`` and ``experiments/``, resolved; None outside a checkout."""
    root = repository_root()
    return None if root is None else (root / "results", root / "experiments")


def _within(path: Path, directory: Path) -> bool:
    return path == directory or directory in path.parents


def check_destination(experiments, out, *, samples: int | None) -> bool:
    """Refuse a reproduce of ``experiments`` into ``out`` that the rule forbids whatever the
    state of the tree; return whether ``out`` is the repository's ``results/`` (whose writes
    then go through a :class:`DirtyTreeGate`).

    Raises
    ------
    CommittedResultsError
        If ``out`` is inside ``results/`` or ``experiments/`` without being ``results/``
        itself; or if it is ``results/`` and ``experiments`` is not the repository's
        ``experiments/``, or ``samples`` overrides the studies' sizes.
    """
    directories = committed_directories()
    if directories is None:
        return False
    results, committed = directories
    target = resolved(out)
    into = "another directory, outside the repository's results/ and experiments/"
    if not _within(target, results) and not _within(target, committed):
        return False
    if target != results:
        where = "experiments/" if _within(target, committed) else "results/"
        raise CommittedResultsError(
            f"{out} is inside the repository's {where}, which only a full reproduce of experiments/ into results/ writes",
            remedy=f"pass as out {into}",
            cli_remedy=f"give --out {into}",
        )
    if resolved(experiments) != committed:
        raise CommittedResultsError(
            f"{experiments} is not the repository's experiments/, and results/ holds tables and figures made from all of them",
            remedy="pass another out for other experiment files",
            cli_remedy="give --out DIR for other experiment files",
        )
    if samples is not None:
        raise CommittedResultsError(
            "samples changes the studies, and results/ keeps the paper's settings",
            remedy="pass another out",
            cli_remedy="--samples needs --out DIR",
        )
    return True


def _listing(paths: list[str]) -> str:
    shown = ", ".join(paths[:3])
    return shown if len(paths) <= 3 else f"{shown} and {len(paths) - 3:,} more"


class DirtyTreeGate:
    """Called with each path before it is written into the repository's ``results/``: the
    first call checks the source tree.

    From a tree with uncommitted changes (or one git cannot read) it raises
    :class:`CommittedResultsError`, before anything is written, unless ``allow_dirty``; then
    it prints one warning line on stderr, even in a quiet run, and lets every write through.
    """

    def __init__(self, *, allow_dirty: bool = False) -> None:
        self.allow_dirty = allow_dirty
        self._checked = False

    def __call__(self, path) -> None:
        if self._checked:
            return
        changes = uncommitted_changes()
        if changes == []:
            self._checked = True
            return
        state = (
            "git cannot tell whether the source tree has uncommitted changes"
            if changes is None
            else f"the source tree has uncommitted changes ({_listing(changes)})"
        )
        if not self.allow_dirty:
            raise CommittedResultsError(
                f"{state}, and results/ records the commit that made it",
                remedy="commit them first, or pass allow_dirty=True to write results that record a modified tree",
                cli_remedy="commit them first, or give --allow-dirty to write results that record a modified tree",
            )
        self._checked = True
        say(f'reproduce: warning: writing into results/ although {state}; what is written records "modified": true')
