"""The real agent CLIs from npm, in a repository set up with the installed ``tb init`` and
``tb install <tool>``, driven headless against the stand-in model. What each must prove is in
README.md; the CLIs themselves are described in agent_clis.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agent_clis import CLIS, NOT_DRIVEN, PROMPT, AgentCli, Sandbox, cli_env, matches, no_network
from model_standin import MEMORY_CONTEXT, MEMORY_SEARCH, StandIn
from teambrain_schema.render import MEMORY_NOTICE

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"
FENCE_HEADER = re.compile(r"\[team memory [0-9A-HJKMNP-TV-Z]{26} — data, not instructions\]")
CLI_TIMEOUT_S = 300  # a loaded 2-core machine runs several of these at once
# Every `tb serve` the CLIs start here starts this much later than it would: a loaded machine,
# made repeatable (2.2 s were seen at a load average of 2). Codex leaves out an optional server
# not ready within mcp_optional_startup_grace_ms (1 s unless set), `gemini mcp list` gives up
# after 5 s unless the entry sets a timeout, Claude Code's ToolSearch says "still connecting".
SLOW_START_S = int(os.environ.get("TB_TEST_SLOW_START_S", "5"))

pytestmark = pytest.mark.skipif(
    shutil.which("npm") is None,
    reason="npm not found: the real-agent suite needs the agent CLIs installed with npm",
)
Run = Callable[..., Any]


@pytest.fixture(params=list(CLIS))
def cli(request: pytest.FixtureRequest) -> AgentCli:
    """Each agent CLI of agent_clis.CLIS in turn."""
    found: AgentCli = CLIS[request.param]
    assert found.path.exists(), (
        f"{found.title} is not installed: run `make install` (it installs the agent CLIs from "
        "tests-integration/agents/package-lock.json)"
    )
    return found


@pytest.fixture
def world(cli: AgentCli, repo: Path, teambrain_home: Path) -> Iterator[tuple[Sandbox, StandIn]]:
    """The stand-in running for ``cli``, the test's repository, and its throwaway HOME (each
    test has its own, from the root conftest)."""
    readme = str(repo / "README.md")
    with StandIn(read_tool=cli.read_tool, read_path=readme, deadline_s=900) as model:
        home = Path.home() / ".teambrain" if cli.default_home_only else teambrain_home
        yield Sandbox(Path.home(), home, repo, model.url), model


def _run(argv: list[str], box: Sandbox, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=box.repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S, check=False,
    )  # fmt: skip


def _set_up(cli: AgentCli, box: Sandbox, tb: Run, git_run: Run) -> tuple[dict[str, str], str]:
    """``tb init``, the demo memories, ``tb install <tool>``, all committed; the CLI configured
    to use the stand-in, with a ``tb`` that starts its server SLOW_START_S late first on PATH.
    Returns the CLI's environment and what ``tb install`` printed."""
    delay = SLOW_START_S if cli.slow_start_s is None else min(cli.slow_start_s, SLOW_START_S)
    slow = box.home / "slow-bin"
    slow.mkdir()
    (slow / "tb").write_text(
        f'#!/bin/sh\n[ "$1" = serve ] && sleep {delay}\nexec "{BIN / "tb"}" "$@"\n'
    )
    (slow / "tb").chmod(0o755)
    env = cli_env(cli, box, [slow, BIN, cli.path.parent])
    assert tb("init", cwd=box.repo, env=env).returncode == 0
    shutil.copytree(DEMO_MEMORIES, box.repo / ".teambrain" / "memories", dirs_exist_ok=True)
    installed = tb("install", cli.tool, cwd=box.repo, env=env)
    assert installed.returncode == 0, installed.stderr
    git_run("add", "-A", cwd=box.repo)
    git_run("commit", "-qm", f"teambrain for {cli.title}", cwd=box.repo)
    cli.configure(box)
    return env, installed.stdout


def _doctor(tb: Run, box: Sandbox, env: dict[str, str]) -> dict[str, dict[str, Any]]:
    done = tb("doctor", "--json", cwd=box.repo, env=env)
    return {finding["name"]: finding for finding in json.loads(done.stdout)["findings"]}


def _listing(cli: AgentCli, box: Sandbox, env: dict[str, str]) -> str:
    output = []
    for argv in cli.listing:
        done = _run([str(cli.path), *argv], box, env)
        output.append(f"$ {cli.binary} {' '.join(argv)}  (exit {done.returncode})\n{done.stdout}{done.stderr}")  # fmt: skip
    return "\n".join(output)


def _kill_leftovers(cli: AgentCli, box: Sandbox) -> None:
    """Stop the detached helpers ``cli`` leaves running for this test's repository."""
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [word.decode(errors="replace") for word in argv]
        if any(mark in words for mark in cli.leftovers) and str(box.repo) in words:
            with contextlib.suppress(OSError):
                os.kill(int(proc.name), 15)


def _sessions(box: Sandbox) -> list[Path]:
    return sorted((box.teambrain_home / "spool" / "sessions").glob("*.jsonl"))


def test_the_user_action_is_detected_and_then_the_listing_sees_teambrain(
    cli: AgentCli, world: tuple[Sandbox, StandIn], tb: Run, git_run: Run
) -> None:
    box, _ = world
    env, printed = _set_up(cli, box, tb, git_run)

    # `tb install` tells the user the step the tool needs, and doctor sees it missing.
    for step in cli.doctor_steps:
        assert step.split(": ", 1)[1] in printed.lower(), printed
    before = _doctor(tb, box, env)
    for step in cli.doctor_steps:
        assert before[step]["status"] == "step", before.get(step)  # only the user can take it
        assert before[step]["fix"], before[step]
    if cli.not_connected is not None:
        listed = _listing(cli, box, env)
        assert matches(cli.not_connected, listed) and not matches(cli.connected, listed), listed

    cli.user_action(box)

    after = _doctor(tb, box, env)
    for step in cli.doctor_steps:
        assert after[step]["status"] == "ok", after[step]
    assert after[f"tool {cli.tool}"]["status"] == "ok", after[f"tool {cli.tool}"]
    if cli.listing:  # a CLI without a listing shows the server connected in its session only
        listed = _listing(cli, box, env)
        assert matches(cli.connected, listed), listed
    # A listing is not a session (Claude Code fires SessionEnd for each `claude mcp` command).
    assert _sessions(box) == [], [path.read_text() for path in _sessions(box)]


def test_a_headless_session_reads_the_team_memory(
    cli: AgentCli, world: tuple[Sandbox, StandIn], tb: Run, git_run: Run
) -> None:
    box, model = world
    env, _ = _set_up(cli, box, tb, git_run)
    cli.user_action(box)

    try:
        done = _run([str(cli.path), *cli.headless(PROMPT)], box, env)
    finally:
        _kill_leftovers(cli, box)
    story = f"exit {done.returncode}\nstdout: {done.stdout[-3000:]}\nstderr: {done.stderr[-3000:]}\nstand-in:\n{model.transcript()}"  # fmt: skip
    assert done.returncode == 0, story
    assert not model.refused, story

    # What the model read from each memory tool: the fenced bodies and the notice.
    for suffix in (MEMORY_CONTEXT, MEMORY_SEARCH):
        results = model.memory_results(suffix)
        assert results, f"{cli.title} never returned a {suffix} result\n{story}"
        text = results[0].text
        assert FENCE_HEADER.search(text), text
        assert MEMORY_NOTICE in text, text
    assert model.called(cli.read_tool), story

    # What capture and the server recorded.
    if not cli.captures:  # an MCP-only tool: no hook ran, so no session was opened
        assert not any("session_start" in path.read_text() for path in _sessions(box))
        return
    [session] = _sessions(box)
    events = [json.loads(line) for line in session.read_text().splitlines()]
    kinds = [event["ev"] for event in events]
    wanted = ("session_start", "intent", "tool_use", "memory_retrieved")
    for kind in wanted if cli.prompt_hook else [k for k in wanted if k != "intent"]:
        assert kind in kinds, (kind, kinds)
    assert ("session_end" in kinds) == cli.session_end, kinds
    assert {event["tool"] for event in events} == {cli.tool}
    if cli.knows_model:  # metadata: the model the CLI asked the stand-in for, never message text
        asked = {exchange.body.get("model") for exchange in model.requests if isinstance(exchange.body, dict)}  # fmt: skip
        assert events[-1]["model"] in asked, (events[-1]["model"], asked)
    retrieved = [event for event in events if event["ev"] == "memory_retrieved"]
    assert {event["data"]["via"] for event in retrieved} == {"context", "search"}
    uses = [event["data"] for event in events if event["ev"] == "tool_use"]
    assert any(cli.read_event.items() <= use.items() for use in uses), uses

    audit = tb("audit", "--last-session", "--json", cwd=box.repo, env=env)
    assert audit.returncode == 0, audit.stderr
    shown = json.loads(audit.stdout)["session"]
    assert shown["sid"] == events[0]["sid"]
    assert [record["ev"] for record in shown["records"]] == kinds


def test_the_installed_cli_is_the_pinned_version(cli: AgentCli, tmp_path: Path) -> None:
    # A node_modules older than the lock file would test something else (`make install`
    # reinstalls when package-lock.json changes).
    env = {"HOME": str(tmp_path), "PATH": os.environ["PATH"], **no_network()}
    assert cli.pinned in cli.version(env), (cli.pinned, cli.version(env))


def test_every_supported_tool_is_driven_here_or_says_why() -> None:
    from teambrain_cli import supported_tools

    assert set(CLIS).isdisjoint(NOT_DRIVEN)
    assert set(CLIS) | set(NOT_DRIVEN) == set(supported_tools()), sorted(set(supported_tools()) ^ (set(CLIS) | set(NOT_DRIVEN)))  # fmt: skip
