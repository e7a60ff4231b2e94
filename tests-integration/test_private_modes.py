"""Machine-local files are private whichever process creates them first: directories 0700 and
files 0600 under a umask of 022 — `tb serve` in a tool without hooks, `tb relevant`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent


def _modes(home: Path) -> dict[str, int]:
    found = {str(home): stat.S_IMODE(home.stat().st_mode)}
    for path in home.rglob("*"):
        found[str(path)] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _loose(home: Path) -> list[str]:
    return [
        f"{oct(mode)} {path}" for path, mode in _modes(home).items()
        if mode & 0o077  # anything for group or others
    ]  # fmt: skip


@pytest.fixture
def brain(repo: Path, tb: Callable[..., subprocess.CompletedProcess[str]]) -> Path:
    assert tb("init", cwd=repo).returncode == 0
    return repo


def _umask_022() -> None:
    os.umask(0o022)


def test_tb_serve_first_creates_a_private_home(brain: Path, tmp_path: Path) -> None:
    home = tmp_path / "fresh" / "teambrain"
    env = {**os.environ, "TEAMBRAIN_HOME": str(home)}
    server = subprocess.Popen(
        [str(BIN / "tb"), "serve"], cwd=brain, env=env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=_umask_022,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "deploy"}}},
    ]  # fmt: skip
    try:
        for message in messages:
            server.stdin.write((json.dumps(message) + "\n").encode())
            server.stdin.flush()
        answers = 0
        deadline = time.monotonic() + 60
        while answers < 2 and time.monotonic() < deadline:
            if b'"id"' in server.stdout.readline():
                answers += 1
        assert (home / "index.db").exists()
        loose = _loose(home)  # while it runs: the -wal and -shm files exist too
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
    assert loose == []
    assert stat.S_IMODE((tmp_path / "fresh").stat().st_mode) == 0o700


def test_tb_relevant_first_creates_a_private_home(brain: Path, tmp_path: Path) -> None:
    home = tmp_path / "other" / "teambrain"
    env = {**os.environ, "TEAMBRAIN_HOME": str(home)}
    done = subprocess.run(
        [str(BIN / "tb"), "relevant", "--query", "deploy"], cwd=brain, env=env,
        capture_output=True, text=True, preexec_fn=_umask_022, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (home / "index.db").exists()
    assert _loose(home) == []
