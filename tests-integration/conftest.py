"""Helpers for end-to-end tests: real git repositories in temp dirs, the installed ``tb``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # teamharness, gh_standin

from teamharness import BrainKind, Team, build_seed, make_team

BIN = Path(sys.executable).parent


def tb_path() -> str:
    """The installed ``tb`` console script of this environment."""
    found = shutil.which("tb", path=str(BIN)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found


def run_tb(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real ``tb`` as a user would, capturing output."""
    return subprocess.run(
        [tb_path(), *args], cwd=cwd, env={**os.environ, **(env or {})}, input=input,
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def git(*args: str, cwd: Path) -> str:
    """Run git and return stdout (fails the test on error)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty git repository with one commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git("init", "-q", "-b", "main", cwd=path)
    (path / "README.md").write_text("# demo\n")
    git("add", "README.md", cwd=path)
    git("commit", "-q", "-m", "initial", cwd=path)
    return path


@pytest.fixture
def tb() -> object:
    """``tb(*args, cwd=..., env=..., input=...)`` runs the installed console script."""
    return run_tb


@pytest.fixture
def git_run() -> object:
    """``git_run(*args, cwd=...)`` runs git and returns stdout."""
    return git


@pytest.fixture(scope="session")
def _team_seeds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Seed remotes built once per test process, by kind of brain (see teamharness)."""
    return {}


@pytest.fixture
def team_factory(
    tmp_path: Path, _team_seeds: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Team]:
    """``team_factory(names=("ada", "bob", "cyd"), brain="demo", gh=True)``: a team of
    developers sharing one bare remote, with a ``gh`` stand-in (see teamharness.py)."""
    made = 0

    def factory(
        names: Sequence[str] = ("ada", "bob", "cyd"), *, brain: BrainKind = "demo", gh: bool = True
    ) -> Team:
        nonlocal made
        if brain not in _team_seeds:
            _team_seeds[brain] = build_seed(tmp_path_factory.mktemp("team-seed"), brain)
        made += 1
        return make_team(tmp_path / f"team{made}", names, seed=_team_seeds[brain], gh=gh)

    return factory
