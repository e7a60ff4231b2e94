"""Issue 37 point 9: what is accepted can always be read back. ``memory_propose`` answered
"Queued" to a draft listing 5,000 sessions and wrote a 1.8 MB candidate that ``tb candidates``
then skipped as unreadable. The same limits apply at every door (``memory_propose``,
``tb propose --draft``) as at every reader (the spool, the memory file a proposal writes)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

TB = str(Path(sys.executable).parent / "tb")
pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def brain(repo: Path, tb: Any, git_run: Any) -> Path:
    assert tb("init", cwd=repo).returncode == 0
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(brain_yaml.read_text().replace("provider: local", "provider: none"))
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    return repo


DRAFT = {
    "class": "learning",
    "title": "Capture retries are capped",
    "body": "Payment capture retries at most three times, then gives up.",
}


async def test_memory_propose_refuses_what_no_reader_would_open(brain: Path, tb: Any) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=TB, args=["serve"], cwd=brain, env=dict(os.environ))
    too_many = {**DRAFT, "evidence": {"sessions": [f"s-{i}" for i in range(5000)], "commits": []}}
    too_big = {**DRAFT, "body": "w" + "\x01" * 200_000}
    async with Client(params) as client:
        said = []
        for draft in (too_many, too_big):
            result = await client.call_tool("memory_propose", {"draft": draft})
            assert result.is_error
            said.append(result.content[0].text)
        fine = await client.call_tool("memory_propose", {"draft": DRAFT})
        assert not fine.is_error
    assert "draft: evidence.sessions: lists 5000 sessions; at most 64" in said[0]
    assert "too large to queue" in said[1]
    listed = json.loads(tb("candidates", "--json", cwd=brain).stdout)
    assert len(listed["candidates"]) == 1 and listed["unreadable"] == []


async def test_a_draft_at_every_limit_is_proposed_and_reads_back(
    brain: Path, tb: Any, git_run: Any, tmp_path: Path
) -> None:
    """64 sessions of 128 characters, 64 full commit ids: queued, proposed, and the memory
    file on the proposal branch is read by lint and show."""
    draft = {**DRAFT, "evidence": {
        "sessions": [f"{i:03d}" + "s" * 125 for i in range(64)],
        "commits": [f"{i:040x}" for i in range(1, 65)],
    }}  # fmt: skip
    path = tmp_path / "draft.json"
    path.write_text(json.dumps(draft))
    done = tb("propose", "--draft", str(path), "--json", cwd=brain)
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)
    [result] = run["results"]
    assert result["result"] == "proposed", result
    git_run("checkout", "-q", run["branch"], cwd=brain)
    lint = tb("lint", "--json", cwd=brain)
    assert not [v for v in json.loads(lint.stdout)["violations"] if v["rule"] != "evidence"]
    shown = tb("show", result["memory_id"], "--json", cwd=brain)
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)["provenance"]["evidence"]["sessions"]) == 64
