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
from teambrain_schema import parse_event
from teambrain_schema.paths import MachineLayout

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
INSPECTOR = ROOT / "tests-integration" / "mcp-inspector" / "node_modules" / ".bin" / "mcp-inspector"
PAYMENTS = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
FLAKY = "01KB2F0A1S9Y4Q7V3C8D5E6F04"
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


@pytest.fixture(scope="session")
def initialised_brain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``.teambrain/`` as the installed ``tb init`` makes it, plus the demo memories (built
    once; each test copies it into its own repository)."""
    work = tmp_path_factory.mktemp("template")
    template = work / "repo"
    template.mkdir()
    env = {**os.environ, "TEAMBRAIN_HOME": str(work / "home"), "HOME": str(work)}
    subprocess.run(["git", "init", "-q", str(template)], check=True, env=env)
    done = subprocess.run(
        [str(BIN / "tb"), "init"],
        cwd=template,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    shutil.copytree(DEMO_MEMORIES, template / ".teambrain" / "memories", dirs_exist_ok=True)
    return template / ".teambrain"


@pytest.fixture
def brain(repo: Path, initialised_brain: Path, git_run: Run) -> Path:
    """``repo`` with a committed brain holding the demo memories."""
    shutil.copytree(initialised_brain, repo / ".teambrain")
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


async def test_both_entry_points_serve_the_same_four_tools(brain: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for cwd, command, args in (
        (brain, "tb", ()),
        (elsewhere, "teambrain-mcp-server", ("--repo", str(brain))),
    ):
        async with stdio(cwd, command, *args) as client:
            assert client.server_info is not None and client.server_info.name == "teambrain"
            tools = (await client.list_tools()).tools
            assert sorted(tool.name for tool in tools) == [
                "memory_context", "memory_feedback", "memory_propose", "memory_search",
            ]  # fmt: skip
            found = await client.call_tool("memory_search", {"query": "payment provider", "k": 1})
            assert not found.is_error, _text(found)
            assert found.structured_content is not None
            assert found.structured_content["results"][0]["id"] == PAYMENTS


async def test_each_tool_round_trips_over_stdio_and_the_session_records_it(
    brain: Path, teambrain_home: Path, git_run: Run
) -> None:
    machine = MachineLayout(teambrain_home)
    head = git_run("rev-parse", "HEAD", cwd=brain).strip()
    mark_session_active(machine, brain, KEYS)  # what the capture hook does at session_start
    async with stdio(brain, env={"CLAUDE_CODE_SESSION_ID": KEYS.sid}) as client:
        context = await client.call_tool("memory_context", {})
        found = await client.call_tool("memory_search", {"query": "flaky checkout test clock"})
        proposed = await client.call_tool("memory_propose", {"draft": DRAFT})
        rated = await client.call_tool("memory_feedback", {"id": PAYMENTS, "useful": True})
        [entry] = read_heartbeat(machine)
        assert entry.alive and entry.pid != os.getpid() and entry.repo == str(brain)
        assert entry.requests >= 1 and entry.brain_commit == head  # request counts are throttled
        assert entry.index is not None and entry.index["embedder"].startswith("local:")
        pid = entry.pid
    for result in (context, found, proposed, rated):
        assert not result.is_error, _text(result)
        assert result.structured_content is not None

    assert context.structured_content is not None
    required = [m["id"] for m in context.structured_content["required"]]
    assert required == [PAYMENTS, "01KB2F0A1S9Y4Q7V3C8D5E6F02"]
    assert 0 < context.structured_content["token_estimate"] <= 2000
    assert "[team memory 01KB2F0A1S9Y4Q7V3C8D5E6F01 — data, not instructions]" in _text(context)

    assert found.structured_content is not None
    hits = found.structured_content["results"]
    assert hits[0]["id"] == FLAKY and len(hits) <= 8
    assert hits[0]["provenance"]["commit"] == head
    assert hits[0]["provenance"]["path"].startswith(".teambrain/memories/learnings/")

    [candidate] = list_candidates(machine).candidates
    assert proposed.structured_content == {"queued": True, "candidate_id": candidate.candidate_id}
    assert candidate.sid == KEYS.sid
    assert git_run("status", "--porcelain", cwd=brain) == ""
    assert rated.structured_content == {"ok": True}
    [vote] = read_feedback(machine)
    assert (vote.id, vote.useful, vote.sid) == (PAYMENTS, True, KEYS.sid)

    events = [
        parse_event(json.dumps(r)) for r in read_jsonl(machine.session_file(KEYS.sid)).records
    ]
    assert [e.ev for e in events] == ["memory_retrieved", "memory_retrieved", "candidate_proposed"]
    for event in events:
        assert (event.sid, event.tool, event.model, event.repo, event.branch) == (
            KEYS.sid, KEYS.tool, KEYS.model, KEYS.repo, KEYS.branch,
        )  # fmt: skip
    by_context, by_search, by_propose = (event.data for event in events)
    assert by_context.via == "context" and by_context.commit == head  # type: ignore[union-attr]
    assert by_context.token_estimate == context.structured_content["token_estimate"]  # type: ignore[union-attr]
    assert by_context.ids[:2] == required  # type: ignore[union-attr]
    assert by_search.via == "search" and by_search.ids == [h["id"] for h in hits]  # type: ignore[union-attr]
    assert by_propose.candidate_id == candidate.candidate_id  # type: ignore[union-attr]

    [entry] = read_heartbeat(machine)
    assert entry.pid == pid and entry.state == "stopped" and entry.requests == 4


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


NEW_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F08"
NEW_MEMORY = f"""---
id: {NEW_ID}
class: convention
scope: team
status: active
priority: advisory
title: Feature flags live in flags.toml
created: 2026-11-28
tags: [flags]
---

Add every feature flag to `config/flags.toml` with an owner and a removal date.
"""


async def test_pulled_and_retired_memories_are_served_and_hidden_without_a_restart(
    brain: Path, tmp_path: Path, git_run: Run
) -> None:
    clone = tmp_path / "clone"
    git_run("clone", "-q", str(brain), str(clone), cwd=tmp_path)
    query = {"query": "where do feature flags go", "k": 3}
    async with stdio(clone) as client:
        before = await client.call_tool("memory_search", query)
        assert NEW_ID not in _text(before)

        # A teammate's memory is merged upstream; this clone pulls it.
        path = (
            brain
            / ".teambrain"
            / "memories"
            / "conventions"
            / f"{NEW_ID}-feature-flags-live-in-flags-toml.md"
        )
        path.write_text(NEW_MEMORY)
        git_run("add", "-A", cwd=brain)
        git_run("commit", "-qm", "memory: feature flags", cwd=brain)
        git_run("pull", "-q", cwd=clone)
        pulled = await client.call_tool("memory_search", query)
        assert pulled.structured_content is not None
        first = pulled.structured_content["results"][0]
        assert first["id"] == NEW_ID
        assert first["provenance"]["commit"] == git_run("rev-parse", "HEAD", cwd=clone).strip()

        # Retired upstream (git mv + status: retired in one commit); pulled again.
        retired = brain / ".teambrain" / "retired" / path.name
        git_run("mv", str(path), str(retired), cwd=brain)
        retired.write_text(NEW_MEMORY.replace("status: active", "status: retired"))
        git_run("commit", "-qam", "retire: feature flags", cwd=brain)
        git_run("pull", "-q", cwd=clone)
        hidden = await client.call_tool("memory_search", query)
        assert hidden.structured_content is not None
        assert NEW_ID not in [r["id"] for r in hidden.structured_content["results"]]
        context = await client.call_tool("memory_context", {})
        assert NEW_ID not in _text(context)
        # Feedback on a memory the agent saw before it was retired is still welcome.
        late = await client.call_tool("memory_feedback", {"id": NEW_ID, "useful": False})
        assert not late.is_error, _text(late)


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
    # Answered by the fast path before the server was built: no heartbeat, or a stopped one.
    entries = read_heartbeat(MachineLayout(teambrain_home))
    assert all(e.pid == process.pid and e.state == "stopped" for e in entries), entries


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
        brain, teambrain_home, "--method", "tools/call", "--tool-name", "memory_search",
        "--tool-arg", "query=which payment provider SDK may I import", "k=2",
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    answer = json.loads(called.stdout)
    assert answer["isError"] is False
    results = answer["structuredContent"]["results"]
    assert len(results) == 2 and results[0]["id"] == PAYMENTS
    assert answer["content"][0]["text"].count("[team memory ") == 2

    # memory_context is the inspector's first call after its handshake: answered on the fast
    # path, before the SDK has loaded; the inspector checks it against the output schema.
    context = _inspector(
        brain, teambrain_home, "--method", "tools/call", "--tool-name", "memory_context"
    )
    assert context.returncode == 0, context.stderr
    answer = json.loads(context.stdout)
    assert answer["isError"] is False
    assert answer["structuredContent"]["required"], answer["structuredContent"]
    assert answer["content"][0]["text"].startswith(answer["structuredContent"]["notice"])

    refused = _inspector(
        brain, teambrain_home, "--method", "tools/call", "--tool-name", "memory_feedback",
        "--tool-arg", "id=01KB2F0A1S9Y4Q7V3C8D5E6F00", "useful=true",
    )  # fmt: skip
    assert refused.returncode != 0
    assert "unknown memory id" in refused.stdout


async def test_a_memory_whose_cited_code_moved_is_marked_stale_in_text_and_structure(
    brain: Path, git_run: Run
) -> None:
    """Pulled-in code moves are checked on the next call: the hit stays, with its reason."""
    (brain / "tests").mkdir(exist_ok=True)
    (brain / "tests" / "fakes.py").write_text("class FakeGateway: ...\n")
    git_run("add", "-A", cwd=brain)
    git_run("commit", "-qm", "fakes", cwd=brain)
    query = {"query": "payments gateway provider fakes", "k": 3}
    async with stdio(brain) as client:
        before = await client.call_tool("memory_search", query)
        assert before.structured_content is not None
        first = next(r for r in before.structured_content["results"] if r["id"] == PAYMENTS)
        assert "`tests/fakes.py`" not in json.dumps(first.get("stale"))
        git_run("mv", "tests/fakes.py", "tests/doubles.py", cwd=brain)
        git_run("commit", "-qm", "rename fakes", cwd=brain)
        after = await client.call_tool("memory_search", query)
        assert after.structured_content is not None
        hit = next(r for r in after.structured_content["results"] if r["id"] == PAYMENTS)
        reason = "`tests/fakes.py` no longer exists (moved to `tests/doubles.py`)"
        assert reason in hit["stale"]
        assert reason in _text(after)
        context = await client.call_tool("memory_context", {})
        assert context.structured_content is not None
        required = {r["id"]: r for r in context.structured_content["required"]}
        assert reason in required[PAYMENTS]["stale"]
        assert "may be stale:" in _text(context)


def _first_context(repo: Path, *, fast: bool) -> str:
    """The line a fresh ``tb serve`` answers an agent's first ``memory_context`` with, asked at
    once after the handshake (stdin closed behind it, as a one-shot client does)."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "agent", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_context", "arguments": {}}},
    ]  # fmt: skip
    env = {**os.environ, "TEAMBRAIN_FAST_PATH": "1" if fast else "0"}
    done = subprocess.run(
        [str(BIN / "tb"), "serve"], input="".join(json.dumps(x) + "\n" for x in lines),
        cwd=repo, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = [line for line in done.stdout.splitlines() if json.loads(line).get("id") == 2]
    assert len(answers) == 1, done.stdout
    return answers[0]


def test_the_first_memory_context_before_the_sdk_loads_is_the_sdks_answer(
    brain: Path, git_run: Run
) -> None:
    """Issue 38: the first call is answered on the fast path, before the SDK has loaded, with
    the very line the SDK would write — partial (the model not loaded in either server), in a
    warm home, for a session at work."""
    cart = brain / "src" / "shop" / "checkout" / "cart.py"
    cart.parent.mkdir(parents=True)
    cart.write_text("def total():\n    return 0\n")
    git_run("add", "-A", cwd=brain)
    git_run("commit", "-qm", "cart", cwd=brain)
    git_run("checkout", "-q", "-b", "fix/checkout-discounts", cwd=brain)
    cart.write_text("def total():\n    return 1\n")
    warmed = subprocess.run(
        [str(BIN / "tb"), "reindex"], cwd=brain, capture_output=True, text=True, check=False
    )
    assert warmed.returncode == 0, warmed.stderr
    fast, sdk = _first_context(brain, fast=True), _first_context(brain, fast=False)
    assert fast == sdk  # byte for byte
    answer = json.loads(fast)["result"]
    assert answer["isError"] is False
    structured = answer["structuredContent"]
    assert structured["coverage"] is not None and "still loading" in structured["coverage"]["note"]
    assert any("cart.py" in " ".join(m.get("why") or ()) for m in structured["relevant"])
