"""Real git repositories for the capture tests."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def git() -> Callable[..., str]:
    """``git(*args, cwd=...)``: run git, fail the test on error, return stripped stdout."""
    return _git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository ``shop`` on branch main with one commit (``a.py``)."""
    path = tmp_path / "shop"
    path.mkdir()
    _git("init", "-q", "-b", "main", cwd=path)
    (path / "a.py").write_text("a = 1\n")
    _git("add", "a.py", cwd=path)
    _git("commit", "-qm", "one", cwd=path)
    return path
