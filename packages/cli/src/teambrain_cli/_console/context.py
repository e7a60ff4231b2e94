"""Finding the repository, the brain and the machine-local home for a verb."""

from __future__ import annotations

from pathlib import Path

from teambrain_kit.paths import BrainLayout, MachineLayout, find_repo_root, machine_layout
from teambrain_schema import EnvironmentProblem


def require_repo(start: Path | None = None) -> Path:
    """The enclosing git work tree, or exit 2 with the reason."""
    repo = find_repo_root(start)
    if repo is None:
        where = (start or Path.cwd()).resolve()
        raise EnvironmentProblem(f"{where} is not inside a git repository (run `git init` first)")
    return repo


def require_brain(start: Path | None = None) -> BrainLayout:
    """The initialised brain of the enclosing repository, or exit 2 with the fix."""
    layout = BrainLayout(require_repo(start))
    if not layout.root.is_dir():
        raise EnvironmentProblem(f"no brain in {layout.repo_root} (run `tb init` first)")
    return layout


def machine() -> MachineLayout:
    """The machine-local layout under ``$TEAMBRAIN_HOME`` (default ``~/.teambrain``)."""
    return machine_layout()


def check_home() -> None:
    """Exit 2 with one line when ``$TEAMBRAIN_HOME`` (or a directory in it) exists but is not a
    directory, before any verb trips over it."""
    home = machine_layout()
    for path in (home.home, home.spool, home.sessions, home.candidates, home.logs):
        if path.exists() and not path.is_dir():
            raise EnvironmentProblem(f"{path} is not a directory (check TEAMBRAIN_HOME)")
