"""Faults in the folders teambrain reads on this machine: FIFOs, sockets, directories and
deeply nested JSON where a spool or state file should be. Every verb finishes (no hang), says
which file it skipped, and never reports an internal error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

BIN = Path(sys.executable).parent
FIFO_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F99"
DEEP_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F98"
Run = Callable[..., Any]


@pytest.fixture
def brain(repo: Path, tb: Run, git_run: Run) -> Path:
    assert tb("init", cwd=repo).returncode == 0
    brain_yaml = repo / ".teambrain" / "brain.yaml"  # the fake driver: distill runs offline
    brain_yaml.write_text(
        brain_yaml.read_text().replace(
            "driver: none\n  model: none", "driver: fake\n  model: fake-distiller-1"
        )
    )
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teambrain: brain", cwd=repo)
    return repo


def _plant(home: Path, kind: str) -> list[Path]:
    """A hostile file in every spool and state folder teambrain reads."""
    spool = home / "spool"
    folders = {
        "candidates": spool / "candidates",
        "sessions": spool / "sessions",
        "active": spool / "active" / "x",
        "open": spool / "open",
        "logs": home / "logs",
        "distill": home / "state" / "distill",
    }
    names = {
        "candidates": f"{FIFO_ID}.json",
        "sessions": "sess-fifo.jsonl",
        "active": "sess-fifo.json",
        "open": "sess-fifo.json",
        "logs": "heartbeat.json",
        "distill": "watermark.json",
    }
    planted = []
    for key, folder in folders.items():
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        path = folder / names[key]
        if kind == "fifo":
            os.mkfifo(path, 0o600)
        elif kind == "directory":
            path.mkdir(mode=0o700)
        else:
            path.write_text("[" * 200_000 + "]" * 200_000)
            path.chmod(0o600)
        planted.append(path)
    if kind != "directory":
        deep = spool / "candidates" / f"{DEEP_ID}.json"
        deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
        deep.chmod(0o600)
    return planted


VERBS = [
    ("propose", "--all"),
    ("propose", FIFO_ID),
    ("verify",),
    ("distill",),
    ("audit",),
    ("metrics",),
    ("digest", "--format", "json"),
    ("doctor",),
    ("relevant", "--query", "deploy"),
    ("lint",),
]
# What each verb may answer with planted files: verify fails (it cannot vouch for a file it
# cannot read), doctor reports the unindexed brain; nothing is a usage error.
ALLOWED = {"verify": {3}, "doctor": {0, 2}, "relevant": {0}, "propose": {0, 1}}


@pytest.mark.parametrize("kind", ["fifo", "directory", "deep-json"])
def test_every_verb_finishes_and_names_what_it_skipped(
    brain: Path, teambrain_home: Path, tb: Run, kind: str
) -> None:
    _plant(teambrain_home, kind)
    for verb in VERBS:
        try:
            done = tb(*verb, cwd=brain)
        except subprocess.TimeoutExpired:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"tb {' '.join(verb)} hung on a {kind} in the spool")
        assert "internal error" not in done.stderr, (verb, done.stderr)
        assert "Traceback" not in done.stderr, (verb, done.stderr)
        allowed = ALLOWED.get(verb[0], {0})
        assert done.returncode in allowed, (verb, done.returncode, done.stderr)
    proposed = tb("propose", "--all", cwd=brain)
    assert proposed.returncode == 0, proposed.stderr
    if kind != "directory":
        assert f"{DEEP_ID}.json" in proposed.stderr  # one line per skipped candidate
        assert "nested too deeply" in proposed.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_memory_propose_over_mcp_skips_a_fifo_in_the_candidate_spool(
    brain: Path, teambrain_home: Path
) -> None:
    from mcp import Client, StdioServerParameters

    _plant(teambrain_home, "fifo")
    params = StdioServerParameters(
        command=str(BIN / "tb"), args=["serve"], cwd=brain, env=dict(os.environ)
    )
    draft = {"class": "learning", "title": "Run make test", "body": "Run `make test` first."}
    async with Client(params) as client:
        result = await client.call_tool("memory_propose", {"draft": draft})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    queued = [p for p in (teambrain_home / "spool" / "candidates").glob("*.json") if p.is_file()]
    assert any(json.loads(p.read_text())["draft"]["title"] == "Run make test" for p in queued
               if p.name != f"{DEEP_ID}.json")  # fmt: skip
