"""Running the installed ``tb`` and git as a user would: the helpers behind the ``tb`` and
``git_run`` fixtures, importable by a test module (``from tbrun import git, run_tb``) — a
module named ``conftest`` is not, once several test folders run in one session."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import forkserver

BIN = Path(sys.executable).parent


def tb_path() -> str:
    """The installed ``tb`` console script of this environment."""
    found = shutil.which("tb", path=str(BIN)) or shutil.which("tb")
    assert found, "tb is not installed in this environment (run `make install`)"
    return found


def run_tb(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the real ``tb`` as a user would, capturing output (through the fork server: see
    forkserver.py)."""
    return forkserver.run(
        [tb_path(), *args], cwd=cwd, env={**os.environ, **(env or {})}, input=input, timeout=120
    )


def git(*args: str, cwd: Path) -> str:
    """Run git and return stdout (fails the test on error)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout
