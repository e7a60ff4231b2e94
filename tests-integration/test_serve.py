"""``tb serve`` and ``teambrain-mcp-server`` over real stdio, driven by real MCP clients."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from teambrain_capture import (
    JoinKeys,
    list_candidates,
    mark_session_active,
    read_feedback,
    read_jsonl,
)
from teambrain_mcp_server import read_heartbeat
from teambrain_schema import MachineLayout, parse_event

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
INSPECTOR = ROOT / "tests-integration" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"
PAYMENTS = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
DRAFT = {
    "class": "map",
    "title": "The cart lives in checkout",
    "body": "See `src/shop/checkout/cart.py`.",
}
KEYS = JoinKeys(sid="sess-42", tool="claude-code", model="claude-x", repo="shop", branch="main")

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


Run = Callable[..., Any]


@pytest.fixture
def brain(repo: Path, tb: Run, git_run: Run) -> Path:
    """``repo`` with ``tb init`` run and the demo memories committed."""
    assert tb("init", cwd=repo).returncode == 0
    shutil.copytree(DEMO_MEMORIES, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    assert tb("reindex", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teambrain: brain", cwd=repo)
    return repo


def _server(
    command: str, cwd: Path, *args: str, env: dict[str, str] | None = None
) -> StdioServerParameters:
    # The SDK's stdio client passes only a minimal environment unless told otherwise.
    return StdioServerParameters(
        command=str(BIN / command) if command != "tb" else str(BIN / "tb"),
        args=[*(["serve"] if command == "tb" else []), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


@asynccontextmanager
async def stdio(
    cwd: Path, command: str = "tb", *args: str, env: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    async with Client(_server(command, cwd, *args, env=env)) as client:
        yield client


def _text(result: Any) -> str:
    return str(result.content[0].text)


@pytest.mark.parametrize("command", ["tb", "teambrain-mcp-server"])
async def test_both_entry_points_serve_the_same_four_tools(brain: Path, command: str) -> None:
    async with stdio(brain, command) as client:
        assert client.server_info is not None and client.server_info.name == "teambrain"
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
    assert names == ["memory_context", "memory_feedback", "memory_propose", "memory_search"]


async def test_memory_propose_round_trip(brain: Path, teambrain_home: Path, git_run: Run) -> None:
    async with stdio(brain) as client:
        result = await client.call_tool("memory_propose", {"draft": DRAFT})
    assert not result.is_error, _text(result)
    assert result.structured_content is not None
    [candidate] = list_candidates(MachineLayout(teambrain_home)).candidates
    assert result.structured_content == {"queued": True, "candidate_id": candidate.candidate_id}
    assert git_run("status", "--porcelain", cwd=brain) == ""


async def test_memory_feedback_round_trip(brain: Path, teambrain_home: Path) -> None:
    async with stdio(brain) as client:
        result = await client.call_tool("memory_feedback", {"id": PAYMENTS, "useful": True})
        unknown = await client.call_tool(
            "memory_feedback", {"id": "01KB2F0A1S9Y4Q7V3C8D5E6F00", "useful": False}
        )
    assert not result.is_error and result.structured_content == {"ok": True}
    assert unknown.is_error and "unknown memory id 01KB2F0A1S9Y4Q7V3C8D5E6F00" in _text(unknown)
    [vote] = read_feedback(MachineLayout(teambrain_home))
    assert (vote.id, vote.useful) == (PAYMENTS, True)


async def test_bad_calls_never_kill_the_server(brain: Path) -> None:
    bad: list[tuple[str, dict[str, Any]]] = [
        ("memory_search", {"query": ""}),
        ("memory_search", {"query": "x", "k": 0}),
        ("memory_search", {"query": "x", "k": 10**9}),
        ("memory_search", {"query": ["a"]}),
        ("memory_feedback", {"id": "01KB2F0A1S9Y4Q7V3C8D5E6F00", "useful": True}),
        ("memory_feedback", {"id": PAYMENTS, "useful": "sometimes"}),
        ("memory_propose", {"draft": {"class": "rumour"}}),
        ("memory_context", {"budget": 10}),
        ("memory_forget", {}),
    ]
    async with stdio(brain) as client:
        for name, arguments in bad:
            result = await client.call_tool(name, arguments)
            assert result.is_error, name
            assert _text(result).startswith(f"{name}: "), _text(result)
        ok = await client.call_tool("memory_feedback", {"id": PAYMENTS, "useful": False})
        assert not ok.is_error


async def test_without_a_brain_the_server_starts_and_says_to_run_tb_init(repo: Path) -> None:
    async with stdio(repo) as client:
        assert len((await client.list_tools()).tools) == 4
        result = await client.call_tool("memory_context", {})
    assert result.is_error and "run `tb init`" in _text(result)


async def test_repo_option_serves_another_repository(brain: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    async with stdio(elsewhere, "tb", "--repo", str(brain)) as client:
        result = await client.call_tool("memory_feedback", {"id": PAYMENTS, "useful": True})
    assert not result.is_error, _text(result)


async def test_session_events_carry_the_join_keys(brain: Path, teambrain_home: Path) -> None:
    machine = MachineLayout(teambrain_home)
    mark_session_active(machine, brain, KEYS)  # what the capture hook does at session_start
    async with stdio(brain, env={"CLAUDE_CODE_SESSION_ID": KEYS.sid}) as client:
        proposed = await client.call_tool("memory_propose", {"draft": DRAFT})
    assert proposed.structured_content is not None
    [record] = read_jsonl(machine.session_file(KEYS.sid)).records
    event = parse_event(json.dumps(record))
    assert event.ev == "candidate_proposed" and event.sid == KEYS.sid and event.tool == KEYS.tool
    assert event.data.candidate_id == proposed.structured_content["candidate_id"]  # type: ignore[union-attr]


async def test_the_heartbeat_follows_the_server_process(brain: Path, teambrain_home: Path) -> None:
    machine = MachineLayout(teambrain_home)
    async with stdio(brain) as client:
        [entry] = read_heartbeat(machine)
        assert entry.alive and entry.pid != os.getpid() and entry.repo == str(brain)
        await client.call_tool("memory_feedback", {"id": PAYMENTS, "useful": True})
        [entry] = read_heartbeat(machine)
        assert entry.requests == 1 and entry.last_request is not None
        pid = entry.pid
    [entry] = read_heartbeat(machine)
    assert entry.pid == pid and entry.state == "stopped"


def test_sigterm_stops_the_server_cleanly_even_with_stdin_open(
    brain: Path, teambrain_home: Path
) -> None:
    with subprocess.Popen(
        [str(BIN / "tb"), "serve"], cwd=brain, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    ) as process:  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        initialize = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}},
        }  # fmt: skip
        process.stdin.write(json.dumps(initialize).encode() + b"\n")
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        assert answer["result"]["serverInfo"]["name"] == "teambrain"
        process.send_signal(signal.SIGTERM)
        try:
            assert process.wait(timeout=20) == 0
        finally:
            if process.poll() is None:
                process.kill()
    [entry] = read_heartbeat(MachineLayout(teambrain_home))
    assert entry.pid == process.pid and entry.state == "stopped"


def _inspector(brain: Path, teambrain_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("node") is None or shutil.which("npx") is None:
        pytest.skip("node/npx not installed: the MCP Inspector cannot run")
    assert INSPECTOR.exists(), (
        "the MCP Inspector is not installed: run `make install` (it installs it with npm from "
        "tests-integration/mcp-inspector/package-lock.json)"
    )
    command = [
        "node", str(INSPECTOR), "--cli",
        # The inspector hands its server only a minimal environment; pass what tb needs.
        "-e", f"TEAMBRAIN_HOME={teambrain_home}", "-e", f"PATH={os.environ['PATH']}",
        str(BIN / "tb"), "serve", *args,
    ]  # fmt: skip
    env = {**os.environ, "NO_UPDATE_NOTIFIER": "1", "npm_config_update_notifier": "false"}
    return subprocess.run(
        command, cwd=brain, env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_the_mcp_inspector_lists_and_calls_the_tools(brain: Path, teambrain_home: Path) -> None:
    listed = _inspector(brain, teambrain_home, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)["tools"]}
    assert sorted(tools) == ["memory_context", "memory_feedback", "memory_propose", "memory_search"]
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True
    assert tools["memory_context"]["annotations"]["readOnlyHint"] is True
    assert tools["memory_search"]["outputSchema"]["properties"]["results"]["type"] == "array"

    called = _inspector(
        brain, teambrain_home, "--method", "tools/call", "--tool-name", "memory_propose",
        "--tool-arg", "draft=" + json.dumps(DRAFT),
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    answer = json.loads(called.stdout)
    assert answer["isError"] is False and answer["structuredContent"]["queued"] is True
    [candidate] = list_candidates(MachineLayout(teambrain_home)).candidates
    assert answer["structuredContent"]["candidate_id"] == candidate.candidate_id

    refused = _inspector(
        brain, teambrain_home, "--method", "tools/call", "--tool-name", "memory_feedback",
        "--tool-arg", "id=01KB2F0A1S9Y4Q7V3C8D5E6F00", "useful=true",
    )  # fmt: skip
    assert refused.returncode != 0
    assert "unknown memory id" in refused.stdout
