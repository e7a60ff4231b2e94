import io
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_capture import close_idle_sessions, find_active_session, read_jsonl, run_capture_hook
from teambrain_capture._hook import state_path, transcript_model
from teambrain_schema import ENVELOPE_ADAPTER
from teambrain_schema.paths import machine_layout


@pytest.fixture
def repo(repo: Path, git: Callable[..., str]) -> Path:
    """The shared repository, with an origin remote."""
    git("remote", "add", "origin", "git@github.com:acme/shop.git", cwd=repo)
    return repo


def hook(tool: str, payload: Any, *, env: dict[str, str] | None = None) -> str:
    stdout = io.StringIO()
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    assert run_capture_hook([tool], io.BytesIO(raw), stdout, env or {}) == 0
    return stdout.getvalue()


def claude(repo: Path, event: str, sid: str = "sess-1", **fields: object) -> dict[str, object]:
    return {
        "session_id": sid,
        "transcript_path": "/t.jsonl",
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def events(sid: str) -> list[dict[str, Any]]:
    read = read_jsonl(machine_layout().session_file(sid))
    assert read.torn == 0
    for record in read.records:
        ENVELOPE_ADAPTER.validate_python(record)
    return read.records


def test_a_claude_session_end_to_end(
    repo: Path, teambrain_home: Path, git: Callable[..., str]
) -> None:
    assert (
        hook(
            "demo-claude", claude(repo, "SessionStart", source="startup", model="claude-sonnet-4-5")
        )
        == ""
    )
    hook(
        "demo-claude",
        claude(
            repo,
            "UserPromptSubmit",
            prompt="Please fix the rounding bug in a.py; token ghp_"
            + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        ),
    )
    hook(
        "demo-claude",
        claude(
            repo,
            "PostToolUse",
            tool_name="Read",
            tool_input={"file_path": str(repo / "a.py")},
            tool_response={"file": {"content": "a = 1"}},
        ),
    )
    hook(
        "demo-claude",
        claude(
            repo,
            "PostToolUse",
            tool_name="Grep",
            tool_input={"pattern": "password=hunter2", "path": str(repo)},
            tool_response={},
        ),
    )
    hook(
        "demo-claude",
        claude(
            repo,
            "PostToolUse",
            tool_name="Edit",
            tool_input={"file_path": "a.py", "old_string": "a = 1", "new_string": "a = 2"},
            tool_response={},
        ),
    )
    hook(
        "demo-claude",
        claude(
            repo,
            "PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": "pytest -q"},
            error="Exit code 1\nFAILED",
        ),
    )
    hook(
        "demo-claude",
        claude(
            repo, "PostToolUse", tool_name="TodoWrite", tool_input={"todos": [{"content": "x"}]}
        ),
    )
    (repo / "a.py").write_text("a = 2\n")
    git("commit", "-qam", "fix rounding", cwd=repo)
    sha = git("rev-parse", "HEAD", cwd=repo)
    hook("demo-claude", claude(repo, "SessionEnd", reason="prompt_input_exit"))
    records = events("sess-1")
    assert [r["ev"] for r in records] == [
        "session_start",
        "intent",
        "tool_use",
        "tool_use",
        "tool_use",
        "tool_use",
        "plan_revision",
        "session_end",
    ]
    assert {(r["tool"], r["repo"], r["branch"], r["model"]) for r in records} == {
        ("demo-claude", "github.com/acme/shop", "main", "claude-sonnet-4-5")
    }
    assert [r["data"] for r in records[2:7]] == [
        {"kind": "explore", "path": "a.py"},
        {"kind": "explore", "path": "."},
        {"kind": "edit", "path": "a.py"},
        {"kind": "test", "exit_code": 1},
        {"items": 1},
    ]
    end = records[-1]["data"]
    assert (end["outcome"], end["turns"], end["commit_shas"]) == ("committed", 1, [sha])
    stored = machine_layout().session_file("sess-1").read_text()
    for private in ("ghp_", "hunter2", "rounding bug in a.py;", "a = 1"):
        assert private not in stored
    assert not Path(state_path(str(teambrain_home), "sess-1")).exists()


def test_the_mcp_server_can_find_the_session_the_hook_opened(repo: Path) -> None:
    hook("demo-claude", claude(repo, "SessionStart", model="m"))
    keys = find_active_session(machine_layout(), repo)
    assert keys is not None and (keys.sid, keys.repo, keys.branch) == (
        "sess-1",
        "github.com/acme/shop",
        "main",
    )
    hook("demo-claude", claude(repo, "SessionEnd", reason="other"))
    assert find_active_session(machine_layout(), repo) is None


def test_a_session_without_start_opens_on_its_first_event(repo: Path) -> None:
    hook(
        "codex",
        {
            "session_id": "cx",
            "turn_id": "t",
            "cwd": str(repo),
            "model": "gpt-5",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "add logging",
        },
    )
    records = events("cx")
    assert [r["ev"] for r in records] == ["session_start", "intent"]
    assert records[0]["model"] == "gpt-5"


def test_outcomes_without_commits(repo: Path) -> None:
    cursor = {
        "conversation_id": "cur",
        "cursor_version": "2",
        "workspace_roots": [str(repo)],
        "model": "m",
    }
    assert (
        hook("demo-cursor", {**cursor, "hook_event_name": "sessionStart", "session_id": "cur"})
        == "{}\n"
    )
    assert (
        hook("demo-cursor", {**cursor, "hook_event_name": "beforeSubmitPrompt", "prompt": "try"})
        == '{"continue":true}\n'
    )
    hook(
        "demo-cursor",
        {**cursor, "hook_event_name": "sessionEnd", "session_id": "cur", "reason": "aborted"},
    )
    assert events("cur")[-1]["data"] == {
        "outcome": "abandoned",
        "duration_s": events("cur")[-1]["data"]["duration_s"],
        "turns": 1,
        "commit_shas": [],
    }
    hook("demo-claude", claude(repo, "SessionStart", sid="plain"))
    hook("demo-claude", claude(repo, "SessionEnd", sid="plain", reason="clear"))
    assert events("plain")[-1]["data"]["outcome"] == "unknown"


def test_a_resumed_session_counts_its_own_turns(repo: Path) -> None:
    for _ in range(2):
        hook("demo-claude", claude(repo, "SessionStart", source="resume"))
        hook("demo-claude", claude(repo, "UserPromptSubmit", prompt="go on"))
        hook("demo-claude", claude(repo, "SessionEnd", reason="other"))
    ends = [r for r in events("sess-1") if r["ev"] == "session_end"]
    assert [end["data"]["turns"] for end in ends] == [1, 1]


def test_idle_sessions_are_closed_at_their_last_event(repo: Path, teambrain_home: Path) -> None:
    hook(
        "windsurf",
        {
            "agent_action_name": "pre_user_prompt",
            "trajectory_id": "ws-old",
            "tool_info": {"user_prompt": "hi there"},
        },
        env={},
    )
    old = time.time() - 13 * 3600
    os.utime(machine_layout().session_file("ws-old"), (old, old))
    assert close_idle_sessions(str(teambrain_home), time.time(), 12 * 3600) == 1
    end = events("ws-old")[-1]
    assert end["ev"] == "session_end" and end["data"]["outcome"] == "unknown"
    assert end["t"] < time.strftime("%Y-%m-%dT%H", time.gmtime(time.time() - 12 * 3600))
    assert close_idle_sessions(str(teambrain_home), time.time(), 12 * 3600) == 0


def test_opening_a_new_session_closes_idle_ones(repo: Path) -> None:
    hook("demo-claude", claude(repo, "SessionStart", sid="stale"))
    old = time.time() - 13 * 3600
    os.utime(machine_layout().session_file("stale"), (old, old))
    hook("demo-claude", claude(repo, "SessionStart", sid="fresh"))
    assert events("stale")[-1]["ev"] == "session_end"
    assert events("fresh")[-1]["ev"] == "session_start"


@pytest.mark.parametrize(
    ("payload", "logged"),
    [
        (b"not json at all", "malformed payload (15 bytes)"),
        (b"[1, 2]", "a JSON list, not an object"),
        (b"", "malformed payload (0 bytes)"),
        (
            json.dumps({"hook_event_name": "SessionStart", "cwd": "/"}).encode(),
            "payload has no session id",
        ),
    ],
)
def test_bad_payloads_are_logged_in_one_line_and_never_fail(
    payload: bytes, logged: str, teambrain_home: Path
) -> None:
    assert hook("demo-claude", payload) == ""
    log = (teambrain_home / "logs" / "capture.log").read_text()
    assert log.count("\n") == 1 and logged in log
    assert "not json at all" not in log  # the log never repeats payload content
    assert not (teambrain_home / "spool" / "sessions").exists() or not list(
        (teambrain_home / "spool" / "sessions").iterdir()
    )


def test_unknown_tools_and_help(teambrain_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert hook("no-such-tool", {"session_id": "x"}) == ""
    logged = (teambrain_home / "logs" / "capture.log").read_text()
    assert "tb-capture no-such-tool: unknown tool; no installed package declares it" in logged
    assert hook("demo-silent", {"session_id": "x"}) == ""
    logged = (teambrain_home / "logs" / "capture.log").read_text()
    assert "tb_capture_demo_silent defines no read_hook(): this tool records no sessions" in logged
    assert run_capture_hook([], io.BytesIO(b""), io.StringIO(), {}) == 0
    assert "usage: tb-capture <tool>" in capsys.readouterr().err


def test_cursor_gets_json_even_when_the_payload_is_broken(teambrain_home: Path) -> None:
    assert hook("demo-cursor", b"{broken") == "{}\n"


def test_an_unwritable_home_never_fails_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo: Path
) -> None:
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the home directory should be")
    monkeypatch.setenv("TEAMBRAIN_HOME", str(blocked))
    assert hook("demo-claude", claude(repo, "SessionStart")) == ""


def test_outside_a_repository_the_folder_names_the_repo(tmp_path: Path) -> None:
    folder = tmp_path / "scratch"
    folder.mkdir()
    hook(
        "gemini-cli",
        {
            "session_id": "g",
            "cwd": str(folder),
            "hook_event_name": "SessionStart",
            "source": "startup",
        },
    )
    hook(
        "gemini-cli",
        {
            "session_id": "g",
            "cwd": str(folder),
            "hook_event_name": "AfterTool",
            "tool_name": "read_file",
            "tool_input": {"file_path": str(folder / "x.md")},
        },
    )
    records = events("g")
    assert records[0]["branch"] == "none" and records[0]["repo"] == "scratch"
    assert records[1]["data"] == {"kind": "explore", "path": "x.md"}


def test_one_session_start_closes_a_bounded_number_of_idle_sessions(repo: Path) -> None:
    old = time.time() - 13 * 3600
    for index in range(12):
        hook("demo-claude", claude(repo, "SessionStart", sid=f"idle-{index:02d}"))
    for index in range(12):
        os.utime(machine_layout().session_file(f"idle-{index:02d}"), (old, old))
    hook("demo-claude", claude(repo, "SessionStart", sid="new"))
    ended = [i for i in range(12) if events(f"idle-{i:02d}")[-1]["ev"] == "session_end"]
    assert len(ended) == 10


def test_a_session_end_without_its_start_records_nothing(repo: Path, teambrain_home: Path) -> None:
    # `claude mcp list` / `claude mcp get` (2.1.332) fire SessionEnd, reason "other", alone.
    for sid in ("list-1", "get-1"):
        hook("demo-claude", claude(repo, "SessionEnd", sid=sid, reason="other"))
    assert not machine_layout().sessions.exists() or list(machine_layout().sessions.iterdir()) == []
    assert find_active_session(machine_layout(), repo) is None


def _transcript(path: Path, *entries: dict[str, Any]) -> str:
    path.write_text("".join(json.dumps(entry, separators=(",", ":")) + "\n" for entry in entries))
    return str(path)


def _assistant(model: str) -> dict[str, Any]:
    return {"type": "assistant", "message": {"role": "assistant", "model": model, "content": []}}


def test_a_headless_claude_session_learns_its_model_from_the_transcript(
    repo: Path, tmp_path: Path
) -> None:
    # `claude -p` sends no model at SessionStart; its transcript has one per reply.
    transcript = tmp_path / "t.jsonl"
    user = {"type": "user", "message": {"role": "user", "content": 'say "model":"evil"'}}
    path = _transcript(transcript, user)
    hook("demo-claude", claude(repo, "SessionStart", source="startup", transcript_path=path))
    hook("demo-claude", claude(repo, "UserPromptSubmit", prompt="go", transcript_path=path))
    _transcript(transcript, user, _assistant("<synthetic>"), _assistant("claude-opus-5-5"))
    read = {"tool_name": "Read", "tool_input": {"file_path": "a.py"}, "transcript_path": path}
    hook("demo-claude", claude(repo, "PostToolUse", **read))
    transcript.unlink()  # learnt once: later hooks do not need the file
    hook("demo-claude", claude(repo, "PostToolUse", **read))
    hook("demo-claude", claude(repo, "SessionEnd", reason="other", transcript_path=path))
    assert [(r["ev"], r["model"]) for r in events("sess-1")] == [
        ("session_start", "unknown"), ("intent", "unknown"), ("tool_use", "claude-opus-5-5"),
        ("tool_use", "claude-opus-5-5"), ("session_end", "claude-opus-5-5"),
    ]  # fmt: skip


@given(st.binary(max_size=2000), st.lists(st.sampled_from(["m-1", "<synthetic>", ""]), max_size=3))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
def test_transcript_model_reads_only_assistant_metadata(
    tmp_path: Path, noise: bytes, models: list[str]
) -> None:
    path = tmp_path / "noise.jsonl"
    lines = [noise] + [json.dumps(_assistant(m), separators=(",", ":")).encode() for m in models]
    path.write_bytes(b"\n".join(lines))
    expected = next((m for m in reversed(models) if m and not m.startswith("<")), None)
    found = transcript_model(str(path))
    assert found == expected or (expected is None and found is not None and b'"assistant"' in noise)
