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


DEMO_CLAUDE = """
from teambrain_capture import claude_shaped, payload_text


def read_hook(payload, env):
    hook = claude_shaped(payload, success_means_zero=True)
    hook.transcript = payload_text(payload, "transcript_path")
    return hook
"""
DEMO_CURSOR = """
from teambrain_capture import END, IGNORE, PROMPT, START, Hook, first_root, payload_text


def read_hook(payload, env):
    event = payload_text(payload, "hook_event_name")
    if event == "sessionStart":
        hook = Hook(START)
    elif event == "beforeSubmitPrompt":
        hook = Hook(PROMPT, prompt=payload_text(payload, "prompt") or "")
    elif event == "sessionEnd":
        hook = Hook(END, reason=payload_text(payload, "reason"))
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "session_id", "conversation_id")
    hook.cwd = first_root(payload, "workspace_roots")
    hook.model = payload_text(payload, "model")
    return hook


def hook_reply(payload):
    event = payload.get("hook_event_name") if payload else None
    return '{\\"continue\\":true}' if event == "beforeSubmitPrompt" else "{}"
"""


@pytest.fixture(autouse=True)
def demo_tools(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Agent tools for the hook, declared by a package installed the way pip installs one (its
    modules and a .dist-info with entry_points.txt on the path): capture's tests need no agent
    tool of teambrain-cli's. ``demo-claude`` reads Claude Code's payload shape, ``demo-cursor``
    also answers on stdout, ``demo-silent`` has no reader."""
    site = tmp_path_factory.getbasetemp() / "demo-tools-site"
    if not site.exists():
        info = site / "tb_capture_demo-0.1.dist-info"
        info.mkdir(parents=True)
        (site / "tb_capture_demo_claude.py").write_text(DEMO_CLAUDE)
        (site / "tb_capture_demo_cursor.py").write_text(DEMO_CURSOR)
        (site / "tb_capture_demo_silent.py").write_text("def adapter():\n    return None\n")
        (info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: tb-capture-demo\nVersion: 0.1\n"
        )
        (info / "entry_points.txt").write_text(
            "[teambrain.adapters]\n"
            "demo-claude = tb_capture_demo_claude:adapter\n"
            "demo-cursor = tb_capture_demo_cursor:adapter\n"
            "demo-silent = tb_capture_demo_silent:adapter\n"
        )
    monkeypatch.syspath_prepend(str(site))
    return site
