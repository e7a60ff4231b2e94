"""One install command gives every command a user needs: pip, ``uv tool install`` and pipx each
install the built wheels into a scratch prefix (offline), and the hooks ``tb install`` writes
find ``tb-capture`` on a PATH that holds only what that installer put there."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

COMMANDS = {"tb", "tb-capture", "teambrain-mcp-server"}


def _run(
    bin_dir: Path, *args: str, cwd: Path, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """A command as the user's shell runs it: PATH is the installer's bin/ and the system's."""
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin"}
    return subprocess.run(list(args), cwd=cwd, env=env, input=input, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip


@pytest.mark.parametrize("installer", ["pip", "uv-tool", "pipx"])
def test_one_install_puts_every_command_on_path_and_the_hooks_run(
    installer: str, installed: Callable[[str], Path], repo: Path
) -> None:
    bin_dir = installed(installer)
    assert {p.name for p in bin_dir.iterdir()} >= COMMANDS, sorted(
        p.name for p in bin_dir.iterdir()
    )
    version = _run(bin_dir, "tb", "--version", cwd=repo)
    assert version.returncode == 0, version.stderr
    for package in (
        "cli",
        "mcp-server",
        "sync",
        "distill",
        "retrieval",
        "capture",
        "schema",
        "kit",
    ):
        assert f"teambrain-{package} " in version.stdout  # all eight, each released on its own

    assert _run(bin_dir, "tb", "init", cwd=repo).returncode == 0
    wired = _run(bin_dir, "tb", "install", "claude-code", cwd=repo)
    assert wired.returncode == 0, wired.stderr
    settings = json.loads((repo / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    payload = json.dumps({"session_id": "s-install-1", "hook_event_name": "SessionStart",
                          "cwd": str(repo), "source": "startup"})  # fmt: skip
    hook = _run(bin_dir, "sh", "-c", command, cwd=repo, input=payload)  # as Claude Code runs it
    assert hook.returncode == 0, hook.stderr
    assert "not found" not in hook.stderr
    sessions = Path(os.environ["TEAMBRAIN_HOME"]) / "spool" / "sessions"
    assert [p.name for p in sessions.iterdir()] == ["s-install-1.jsonl"]

    server = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["teambrain"]
    assert _run(bin_dir, "sh", "-c", f"command -v {server['command']}", cwd=repo).returncode == 0
    doctor = _run(bin_dir, "tb", "doctor", "--json", cwd=repo)
    tool = next(f for f in json.loads(doctor.stdout)["findings"] if f["name"] == "tool claude-code")
    assert "not on PATH" not in tool["detail"], tool
