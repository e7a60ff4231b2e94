"""Each built-in agent tool's hook reader (its module's ``read_hook``), found the way
``tb-capture <tool>`` finds it, on payloads as each tool's documentation and the observed tools
send them (tests/data/observed/)."""

import json
from pathlib import Path

from hypothesis import given, strategies as st
from teambrain_capture import END, IGNORE, PLAN, PROMPT, START, TOOL, hook_reader
from teambrain_cli._agent_tools.registry import ADAPTERS

NORMALISERS = {name: hook_reader(name) for name, adapter in ADAPTERS.items() if adapter.hooks}


def _claude(event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "abc-123",
        "transcript_path": "/t",
        "cwd": "/repo",
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def test_claude_code_payloads() -> None:
    normalise = NORMALISERS["claude-code"]
    start = normalise(_claude("SessionStart", source="startup", model="claude-sonnet-4-5"), {})
    assert (start.kind, start.sid, start.model, start.cwd) == (
        START,
        "abc-123",
        "claude-sonnet-4-5",
        "/repo",
    )
    assert normalise(_claude("UserPromptSubmit", prompt="fix it"), {}).prompt == "fix it"
    read = normalise(
        _claude(
            "PostToolUse",
            tool_name="Read",
            tool_input={"file_path": "/repo/a.py"},
            tool_response={"file": {"content": "SECRET"}},
        ),
        {},
    )
    assert (read.kind, read.data) == (TOOL, {"kind": "explore", "path": "/repo/a.py"})
    bash = normalise(
        _claude(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest"},
            tool_response={"stdout": "1 passed"},
        ),
        {},
    )
    assert bash.data == {"kind": "test", "exit_code": 0}
    failed = normalise(
        _claude(
            "PostToolUseFailure",
            tool_name="Bash",
            tool_input={"command": "make build"},
            error="Exit code 2\nmake: *** [all] Error 2",
        ),
        {},
    )
    assert failed.data == {"kind": "command", "exit_code": 2}
    todo = normalise(
        _claude(
            "PostToolUse",
            tool_name="TodoWrite",
            tool_input={"todos": [{"content": "a"}, {"content": "b"}]},
        ),
        {},
    )
    assert (todo.kind, todo.data) == (PLAN, {"items": 2})
    end = normalise(_claude("SessionEnd", reason="prompt_input_exit"), {})
    assert (end.kind, end.reason) == (END, "prompt_input_exit")
    assert normalise(_claude("Stop", stop_hook_active=False), {}).kind == IGNORE
    no_cwd = normalise(
        {"session_id": "s", "hook_event_name": "SessionStart"}, {"CLAUDE_PROJECT_DIR": "/p"}
    )
    assert no_cwd.cwd == "/p"


def test_claude_hook_drops_cursor_and_vscode_payloads() -> None:
    """Cursor and VS Code also run .claude/settings.json hooks, with their own payloads."""
    normalise = NORMALISERS["claude-code"]
    cursor_payload = {
        "conversation_id": "c",
        "cursor_version": "1.7.2",
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "x",
    }
    vscode_payload = {
        "sessionId": "v",
        "hookEventName": "UserPromptSubmit",
        "prompt": "x",
        "cwd": "/r",
    }
    assert normalise(cursor_payload, {}).kind == IGNORE
    assert normalise(vscode_payload, {}).kind == IGNORE


def test_cursor_payloads() -> None:
    normalise = NORMALISERS["cursor"]
    common = {
        "conversation_id": "conv-1",
        "generation_id": "g",
        "model": "claude-opus-4-7-thinking-max",
        "model_id": "claude-opus-4-7",
        "cursor_version": "2.1",
        "workspace_roots": ["/work/shop"],
        "user_email": "a@b.c",
        "transcript_path": None,
    }
    start = normalise(
        {
            **common,
            "hook_event_name": "sessionStart",
            "session_id": "conv-1",
            "is_background_agent": False,
        },
        {},
    )
    assert (start.kind, start.sid, start.cwd, start.model) == (
        START,
        "conv-1",
        "/work/shop",
        "claude-opus-4-7",
    )
    shell = normalise(
        {
            **common,
            "hook_event_name": "postToolUse",
            "tool_name": "Shell",
            "tool_input": {"command": "npm test"},
            "tool_output": '{"exitCode":1,"stdout":"FAIL"}',
            "cwd": "/work/shop",
        },
        {},
    )
    assert shell.data == {"kind": "test", "exit_code": 1}
    write = normalise(
        {
            **common,
            "hook_event_name": "postToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": "/work/shop/a.ts", "content": "x"},
        },
        {},
    )
    assert write.data == {"kind": "edit", "path": "/work/shop/a.ts"}
    prompt = normalise(
        {
            **common,
            "hook_event_name": "beforeSubmitPrompt",
            "prompt": "add a test",
            "attachments": [],
        },
        {},
    )
    assert (prompt.kind, prompt.prompt) == (PROMPT, "add a test")
    end = normalise(
        {
            **common,
            "hook_event_name": "sessionEnd",
            "session_id": "conv-1",
            "reason": "aborted",
            "duration_ms": 5,
        },
        {},
    )
    assert (end.kind, end.reason) == (END, "aborted")
    assert (
        normalise({**common, "hook_event_name": "afterAgentThought", "text": "hmm"}, {}).kind
        == IGNORE
    )


def test_codex_gemini_vscode_and_windsurf_payloads() -> None:
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch"
    codex = NORMALISERS["codex"](
        {
            "session_id": "t1",
            "turn_id": "u",
            "cwd": "/r",
            "model": "gpt-5.1-codex",
            "hook_event_name": "PostToolUse",
            "tool_name": "apply_patch",
            "tool_use_id": "x",
            "tool_input": {"command": patch},
            "tool_response": "Success",
            "permission_mode": "default",
            "transcript_path": None,
        },
        {},
    )
    assert (codex.data, codex.model) == ({"kind": "edit", "path": "src/app.py"}, "gpt-5.1-codex")
    bash = NORMALISERS["codex"](
        {
            "session_id": "t1",
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cargo build"},
            "tool_response": {"output": "x"},
        },
        {},
    )
    assert bash.data == {"kind": "command"}  # Codex fires PostToolUse after failures too: no guess
    gemini = NORMALISERS["gemini-cli"](
        {
            "session_id": "g1",
            "cwd": "/r",
            "hook_event_name": "AfterTool",
            "timestamp": "2026",
            "tool_name": "read_file",
            "tool_input": {"file_path": "/r/x.md"},
            "tool_response": {"llmContent": "..."},
        },
        {},
    )
    assert gemini.data == {"kind": "explore", "path": "/r/x.md"}
    assert (
        NORMALISERS["gemini-cli"](
            {"hook_event_name": "BeforeAgent", "prompt": "p"}, {"GEMINI_SESSION_ID": "env-sid"}
        ).sid
        == "env-sid"
    )
    vscode = NORMALISERS["vscode"](
        {
            "timestamp": "t",
            "cwd": "/r",
            "sessionId": "v1",
            "hookEventName": "PostToolUse",
            "tool_name": "editFiles",
            "tool_input": {"files": ["src/main.ts"]},
            "tool_use_id": "t",
            "tool_response": "ok",
        },
        {},
    )
    assert (vscode.sid, vscode.data) == ("v1", {"kind": "edit", "path": "src/main.ts"})
    assert (
        NORMALISERS["vscode"](
            {"sessionId": "v1", "hookEventName": "Stop", "stop_hook_active": False}, {}
        ).kind
        == END
    )
    windsurf = NORMALISERS["windsurf"]
    run = windsurf(
        {
            "agent_action_name": "post_run_command",
            "trajectory_id": "w1",
            "execution_id": "e",
            "tool_info": {"command_line": "pytest", "cwd": "/r"},
        },
        {},
    )
    assert (run.sid, run.cwd, run.data) == ("w1", "/r", {"kind": "test"})
    read = windsurf(
        {
            "agent_action_name": "post_read_code",
            "trajectory_id": "w1",
            "tool_info": {"file_path": "/r/a.py"},
        },
        {},
    )
    assert read.data == {"kind": "explore", "path": "/r/a.py"}
    prompt = windsurf(
        {
            "agent_action_name": "pre_user_prompt",
            "trajectory_id": "w1",
            "tool_info": {"user_prompt": "hello"},
        },
        {},
    )
    assert (prompt.kind, prompt.prompt) == (PROMPT, "hello")


@given(
    st.dictionaries(
        st.text(max_size=10),
        st.one_of(
            st.none(),
            st.text(max_size=10),
            st.integers(),
            st.lists(st.text(max_size=5)),
            st.dictionaries(st.text(max_size=5), st.text(max_size=5)),
        ),
        max_size=8,
    )
)
def test_normalisers_never_raise_on_odd_payloads(payload: dict[str, object]) -> None:
    for event_key in ("hook_event_name", "hookEventName", "agent_action_name"):
        for event in (
            "SessionStart",
            "PostToolUse",
            "postToolUse",
            "post_write_code",
            "UserPromptSubmit",
            "sessionEnd",
        ):
            for normalise in NORMALISERS.values():
                hook = normalise({**payload, event_key: event}, {})
                assert hook.kind in (START, PROMPT, TOOL, PLAN, END, IGNORE)


OBSERVED = Path(__file__).parent / "data" / "observed"


def _observed(name: str) -> list[dict[str, object]]:
    lines = (OBSERVED / name).read_text("utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_qwen_code_payloads_as_observed() -> None:
    """Payloads Qwen Code 0.24.4 sent its hooks in a headless session (data/observed)."""
    hooks = [(p["hook_event_name"], NORMALISERS["qwen-code"](p, {})) for p in _observed("qwen-code-0.24.4.jsonl")]  # fmt: skip
    kinds = {event: [hook.kind for e, hook in hooks if e == event] for event, _ in hooks}
    assert kinds["SessionStart"] == [START]
    # One real prompt; its empty-prompt continuations after each tool result are not prompts.
    assert kinds["UserPromptSubmit"].count(PROMPT) == 1
    assert set(kinds["UserPromptSubmit"]) == {PROMPT, IGNORE}
    assert kinds["Stop"] == [IGNORE]
    tools = [hook for event, hook in hooks if event == "PostToolUse" and hook.kind == TOOL]
    assert [hook.data["kind"] for hook in tools] == ["explore"]  # read_file; MCP calls ignored
    assert str(tools[0].data["path"]).endswith("README.md")
    start = hooks[0][1]
    assert start.sid and start.cwd and start.model == "standin-model"


def test_copilot_cli_payloads_as_observed() -> None:
    """Payloads Copilot CLI 1.0.102 sent (PascalCase events: snake_case payloads); its camelCase
    dialect, which tb install does not subscribe to, carries no event name and is ignored."""
    payloads = _observed("copilot-cli-1.0.102.jsonl")
    hooks = [NORMALISERS["copilot-cli"](p, {}) for p in payloads]
    by_event: dict[str, list[str]] = {}
    for payload, hook in zip(payloads, hooks, strict=True):
        by_event.setdefault(str(payload.get("hook_event_name", "camelCase")), []).append(hook.kind)
    assert by_event["SessionStart"] == [START]
    assert by_event["UserPromptSubmit"] == [PROMPT]
    assert by_event["SessionEnd"] == [END]
    assert set(by_event["camelCase"]) == {IGNORE}
    tools = [hook for hook in hooks if hook.kind == TOOL]
    assert [hook.data["kind"] for hook in tools] == ["explore"]  # Read; teambrain-* ignored
    assert all(hook.sid for hook in hooks if hook.kind != IGNORE)
    # VS Code's hook files run in Copilot CLI too: tb-capture vscode leaves these to copilot-cli.
    assert {NORMALISERS["vscode"](p, {}).kind for p in payloads} == {IGNORE}
    # And the other way round: a VS Code payload in Copilot CLI's hook file.
    vscode = {"hookEventName": "SessionStart", "sessionId": "s1", "cwd": "/r"}
    assert NORMALISERS["copilot-cli"](vscode, {}).kind == IGNORE
    assert NORMALISERS["vscode"](vscode, {}).kind == START


def test_auggie_payloads_as_observed() -> None:
    """Payloads Auggie 0.36.0 sent its hooks (pretty-printed JSON; data/observed, one per line)."""
    payloads = _observed("auggie-0.36.0.jsonl")
    kinds = {str(p["hook_event_name"]): NORMALISERS["auggie"](p, {}).kind for p in payloads}
    assert kinds == {
        "SessionStart": START, "PromptSubmit": PROMPT, "PreToolUse": IGNORE,
        "PostToolUse": IGNORE,  # memory_context_teambrain: an MCP tool
        "Stop": IGNORE, "SessionEnd": END,
    }  # fmt: skip
    start = NORMALISERS["auggie"](payloads[0], {})
    assert start.sid == "fba27f13-abc0-404f-8eef-dc9db3c24bf5"
    assert start.cwd == "/tmp/research/auggie/sb/repo"
    base = {k: v for k, v in payloads[0].items() if k != "hook_event_name"}
    view = {**base, "hook_event_name": "PostToolUse", "tool_name": "view",
            "tool_input": {"path": "README.md", "type": "file"}, "tool_output": "x",
            "tool_error": None, "is_mcp_tool": False}  # fmt: skip
    hook = NORMALISERS["auggie"](view, {})
    assert (hook.kind, hook.data) == (TOOL, {"kind": "explore", "path": "README.md"})
    run = {**view, "tool_name": "launch-process", "tool_input": {"command": "pytest -q"}}
    assert NORMALISERS["auggie"](run, {}).data["kind"] == "test"


def test_cline_payloads_as_observed() -> None:
    """Payloads Cline 3.0.65 sent its hook files in a headless session (data/observed)."""
    payloads = _observed("cline-3.0.65.jsonl")
    kinds = [(p["hookName"], NORMALISERS["cline"](p, {}).kind) for p in payloads]
    assert ("agent_start", START) in kinds and ("agent_end", END) in kinds
    assert all(kind == IGNORE for name, kind in kinds if name in ("tool_call", "agent_error"))
    hook = NORMALISERS["cline"](payloads[0], {})
    assert hook.sid == payloads[0]["sessionContext"]["rootSessionId"]  # type: ignore[index]
    assert hook.cwd == payloads[0]["workspaceRoots"][0]  # type: ignore[index]
    # teambrain__memory_* calls are the server's to record; a read_files call is a look.
    read = {**payloads[0], "hookName": "tool_result",
            "tool_result": {"name": "read_files", "input": {"files": [{"path": "/r/README.md"}]}}}  # fmt: skip
    assert NORMALISERS["cline"](read, {}).data == {"kind": "explore", "path": "/r/README.md"}
    run = {**read, "tool_result": {"name": "run_commands", "input": {"commands": ["pytest -q"]}}}
    assert NORMALISERS["cline"](run, {}).data["kind"] == "test"
    assert {kind for name, kind in kinds if name == "tool_result"} == {IGNORE}


def test_factory_droid_payloads_as_observed() -> None:
    """Payloads Factory Droid 0.225.2 sent its hooks (`droid exec -o stream-jsonrpc`)."""
    payloads = _observed("factory-droid-0.225.2.jsonl")
    hooks = [(p["hook_event_name"], p.get("tool_name"), NORMALISERS["factory-droid"](p, {})) for p in payloads]  # fmt: skip
    kinds = {(event, tool): hook.kind for event, tool, hook in hooks}
    assert kinds[("SessionStart", None)] == START
    assert kinds[("UserPromptSubmit", None)] == PROMPT
    assert kinds[("SessionEnd", None)] == END
    assert kinds[("PostToolUse", "teambrain___memory_search")] == IGNORE
    assert kinds[("PostToolUse", "ToolSearch")] == IGNORE
    [read] = [hook for event, tool, hook in hooks if (event, tool) == ("PostToolUse", "Read")]
    assert read.data["kind"] == "explore" and str(read.data["path"]).endswith("README.md")
    assert all(hook.sid == payloads[0]["session_id"] for _, _, hook in hooks if hook.kind != IGNORE)


def test_opencode_plugin_payloads_as_observed() -> None:
    """What the plugin `tb install opencode` writes sent from opencode 1.18.33 (data/observed)."""
    payloads = _observed("opencode-1.18.33.jsonl")
    hooks = [(p["hook_event_name"], NORMALISERS["opencode"](p, {})) for p in payloads]
    assert [hook.kind for _, hook in hooks] == [START, PROMPT, IGNORE, IGNORE, TOOL]
    assert hooks[1][1].model == "standin-model"
    assert hooks[4][1].data == {"kind": "explore", "path": "/tmp/ocp/sb/repo/README.md"}
    run = {**payloads[4], "tool_name": "bash", "tool_input": {"command": "pytest -q"}, "tool_response": {"exit_code": 1}}  # fmt: skip
    assert NORMALISERS["opencode"](run, {}).data == {"kind": "test", "exit_code": 1}
