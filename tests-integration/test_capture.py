"""`tb install`, the real `tb-capture` hook and `tb audit`, end to end on real git repositories."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from teambrain_cli._agent_tools.jsonc import loads as jsonc_loads
from teambrain_schema import ENVELOPE_ADAPTER

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MCP_ENTRY = {"command": "tb", "args": ["serve"]}

Tb = Callable[..., subprocess.CompletedProcess[str]]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# What each tool's documentation says its files look like, with someone else's server and hook
# already configured. The checks below read the result as the tool would.
EXISTING: dict[str, dict[str, str]] = {
    "claude-code": {
        ".mcp.json": '{\n  "mcpServers": {\n    "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}\n  }\n}\n',
        ".claude/settings.json": '{\n  "permissions": {"allow": ["Bash(npm test)"]},\n  "hooks": {\n    "PostToolUse": [\n      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "npx prettier --write ."}]}\n    ]\n  }\n}\n',
    },
    "cursor": {
        ".cursor/mcp.json": '{"mcpServers": {"linear": {"url": "https://mcp.linear.app/sse"}}}\n',
        ".cursor/hooks.json": '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [{"command": ".cursor/hooks/format.sh"}],\n    "postToolUse": [{"command": ".cursor/hooks/audit.sh", "matcher": "Shell"}]\n  }\n}\n',
    },
    "codex": {
        ".codex/config.toml": '# project Codex settings\nmodel = "gpt-5.1-codex"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]  # team docs\n\n[[hooks.PreToolUse]]\nmatcher = "^Bash$"\n\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "python3 .codex/hooks/policy.py"\n',
    },
    "gemini-cli": {
        ".gemini/settings.json": '{\n  // team settings\n  "theme": "GitHub",\n  "mcpServers": {\n    "jira": {"command": "jira-mcp", "timeout": 30000}, // ours\n  },\n  "hooks": {\n    "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "name": "guard", "command": "./guard.sh"}]}],\n  },\n}\n',
    },
    "vscode": {
        ".vscode/mcp.json": '{\n  // shared with the team\n  "inputs": [],\n  "servers": {\n    "playwright": {"type": "stdio", "command": "npx", "args": ["@playwright/mcp"]}\n  }\n}\n',
        ".github/hooks/format.json": '{"hooks": {"PostToolUse": [{"type": "command", "command": "npx prettier --write ."}]}}\n',
    },
    "windsurf": {
        "~/.codeium/windsurf/mcp_config.json": '{"mcpServers": {"figma": {"serverUrl": "https://figma.example/mcp"}}}\n',
        ".windsurf/hooks.json": '{"hooks": {"post_write_code": [{"command": "./format.sh", "show_output": true}]}}\n',
    },
    "kiro": {
        ".kiro/settings/mcp.json": '{"mcpServers": {"aws-docs": {"command": "uvx", "args": ["awslabs.aws-documentation-mcp-server"], "disabled": false}}}\n',
    },
}


def _path(repo: Path, relpath: str) -> Path:
    return Path(os.environ["HOME"]) / relpath[2:] if relpath.startswith("~/") else repo / relpath


def _ours(handler: dict[str, Any], tool: str) -> bool:
    return handler.get("command") == f"tb-capture {tool}"


def _grouped(
    hooks: dict[str, Any],
    tool: str,
    events: list[str],
    matcher: dict[str, str],
    extra: dict[str, Any],
) -> None:
    for event in events:
        ours = [group for group in hooks[event] if any(_ours(h, tool) for h in group["hooks"])]
        assert len(ours) == 1, event
        assert ours[0].get("matcher") == matcher.get(event)
        assert ours[0]["hooks"] == [{"type": "command", "command": f"tb-capture {tool}", **extra}]


def check_claude_code(repo: Path) -> None:
    servers = json.loads((repo / ".mcp.json").read_text())["mcpServers"]  # strict JSON
    assert servers["github"]["command"] == "npx"
    assert servers["teambrain"] == {"type": "stdio", **MCP_ENTRY}
    settings = json.loads((repo / ".claude/settings.json").read_text())
    assert settings["permissions"] == {"allow": ["Bash(npm test)"]}
    assert settings["hooks"]["PostToolUse"][0]["hooks"][0]["command"] == "npx prettier --write ."
    events = ["SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"]
    _grouped(
        settings["hooks"],
        "claude-code",
        events,
        {"PostToolUse": "*", "PostToolUseFailure": "*"},
        {"timeout": 10},
    )


def check_cursor(repo: Path) -> None:
    servers = json.loads((repo / ".cursor/mcp.json").read_text())["mcpServers"]
    assert servers["linear"] == {"url": "https://mcp.linear.app/sse"}
    assert servers["teambrain"] == {"type": "stdio", **MCP_ENTRY}
    config = json.loads((repo / ".cursor/hooks.json").read_text())
    assert config["version"] == 1
    assert config["hooks"]["afterFileEdit"] == [{"command": ".cursor/hooks/format.sh"}]
    assert config["hooks"]["postToolUse"][0] == {
        "command": ".cursor/hooks/audit.sh",
        "matcher": "Shell",
    }
    for event in ("sessionStart", "beforeSubmitPrompt", "postToolUse", "sessionEnd"):
        assert [h for h in config["hooks"][event] if _ours(h, "cursor")] == [
            {"command": "tb-capture cursor", "timeout": 10}
        ]


def check_codex(repo: Path) -> None:
    text = (repo / ".codex/config.toml").read_text()
    # Comments and layout kept; the new server table joins its siblings under [mcp_servers].
    original = EXISTING["codex"][".codex/config.toml"]
    # ... and the one top-level key we add goes before the first table, as TOML requires.
    server = '[mcp_servers.teambrain]\ncommand = "tb"\nargs = ["serve"]\nenv_vars = ["TEAMBRAIN_HOME"]\n\n'
    expected = original.replace("[[hooks.PreToolUse]]", server + "[[hooks.PreToolUse]]")
    expected = expected.replace("\n\n", "\nmcp_optional_startup_grace_ms = 10000\n\n", 1)
    assert text.startswith(expected)
    config = tomllib.loads(text)
    assert config["mcp_servers"]["docs"]["args"] == ["-y", "docs-mcp"]
    assert config["mcp_servers"]["teambrain"] == {**MCP_ENTRY, "env_vars": ["TEAMBRAIN_HOME"]}
    assert (
        config["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "python3 .codex/hooks/policy.py"
    )
    _grouped(
        config["hooks"],
        "codex",
        ["SessionStart", "UserPromptSubmit", "PostToolUse"],
        {},
        {"timeout": 10},
    )


def check_gemini_cli(repo: Path) -> None:
    text = (repo / ".gemini/settings.json").read_text()
    assert "// team settings" in text and "// ours" in text
    settings = jsonc_loads(text)
    assert settings["theme"] == "GitHub"
    assert settings["mcpServers"]["jira"] == {"command": "jira-mcp", "timeout": 30000}
    assert settings["mcpServers"]["teambrain"] == {**MCP_ENTRY, "timeout": 60000}
    assert settings["hooks"]["BeforeTool"][0]["hooks"][0]["name"] == "guard"
    _grouped(
        settings["hooks"],
        "gemini-cli",
        ["SessionStart", "BeforeAgent", "AfterTool", "SessionEnd"],
        {"AfterTool": "*"},
        {"name": "teambrain-capture", "timeout": 10000},
    )


def check_vscode(repo: Path) -> None:
    text = (repo / ".vscode/mcp.json").read_text()
    assert "// shared with the team" in text
    config = jsonc_loads(text)
    assert config["inputs"] == [] and config["servers"]["playwright"]["command"] == "npx"
    assert config["servers"]["teambrain"] == {"type": "stdio", **MCP_ENTRY}
    assert (repo / ".github/hooks/format.json").read_text() == EXISTING["vscode"][
        ".github/hooks/format.json"
    ]
    hooks = jsonc_loads((repo / ".github/hooks/teambrain.json").read_text())["hooks"]
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"):
        assert hooks[event] == [{"type": "command", "command": "tb-capture vscode", "timeout": 10}]


def check_windsurf(repo: Path) -> None:
    servers = json.loads(_path(repo, "~/.codeium/windsurf/mcp_config.json").read_text())[
        "mcpServers"
    ]
    assert servers == {"figma": {"serverUrl": "https://figma.example/mcp"}, "teambrain": MCP_ENTRY}
    hooks = json.loads((repo / ".windsurf/hooks.json").read_text())["hooks"]
    assert hooks["post_write_code"][0] == {"command": "./format.sh", "show_output": True}
    for event in ("pre_user_prompt", "post_read_code", "post_write_code", "post_run_command"):
        assert [h for h in hooks[event] if _ours(h, "windsurf")] == [
            {"command": "tb-capture windsurf", "show_output": False}
        ]


def check_kiro(repo: Path) -> None:
    servers = json.loads((repo / ".kiro/settings/mcp.json").read_text())["mcpServers"]
    assert servers["aws-docs"]["disabled"] is False
    assert servers["teambrain"] == MCP_ENTRY


CHECKS = {
    "claude-code": check_claude_code, "cursor": check_cursor, "codex": check_codex,
    "gemini-cli": check_gemini_cli, "vscode": check_vscode, "windsurf": check_windsurf, "kiro": check_kiro,
}  # fmt: skip


def _snapshot(repo: Path) -> dict[Path, bytes]:
    home = Path(os.environ["HOME"])
    files = [*repo.rglob("*"), *home.rglob("*")]
    return {
        p: p.read_bytes()
        for p in files
        if p.is_file() and ".git" not in p.relative_to(p.anchor).parts
    }


@pytest.mark.parametrize("tool", sorted(CHECKS))
def test_install_merges_into_existing_config_and_is_idempotent(
    tool: str, repo: Path, tb: Tb
) -> None:
    for relpath, text in EXISTING[tool].items():
        _write(_path(repo, relpath), text)
    before = _snapshot(repo)
    dry = tb("install", tool, "--dry-run", cwd=repo)
    assert dry.returncode == 0, dry.stderr
    assert "Dry run: nothing was written." in dry.stdout and "+++ b/" in dry.stdout
    assert _snapshot(repo) == before
    done = tb("install", tool, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "updated" in done.stdout
    CHECKS[tool](repo)
    after = _snapshot(repo)
    again = tb("install", tool, cwd=repo)
    assert again.returncode == 0, again.stderr
    assert "Nothing to change" in again.stdout
    assert _snapshot(repo) == after


def test_install_into_a_fresh_repository_creates_valid_files(repo: Path, tb: Tb) -> None:
    for tool in ("claude-code", "cursor", "vscode"):
        assert tb("install", tool, cwd=repo).returncode == 0
    assert json.loads((repo / ".mcp.json").read_text()) == {
        "mcpServers": {"teambrain": {"type": "stdio", **MCP_ENTRY}}
    }
    assert json.loads((repo / ".cursor/hooks.json").read_text())["version"] == 1
    assert json.loads((repo / ".vscode/mcp.json").read_text()) == {
        "servers": {"teambrain": {"type": "stdio", **MCP_ENTRY}}
    }


def test_install_errors(repo: Path, tmp_path: Path, tb: Tb) -> None:
    unknown = tb("install", "emacs", cwd=repo)
    assert unknown.returncode == 1
    from teambrain_cli import supported_tools

    # Every tool, wired with or without hooks, is named.
    assert (
        unknown.stderr == f"tb: unknown tool 'emacs'; supported: {', '.join(supported_tools())}\n"
    )
    assert {"opencode", "qwen-code", "zed", "junie", "cline", "continue"} <= set(supported_tools())
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    assert tb("install", "cursor", cwd=outside).returncode == 2
    _write(
        repo / ".claude/settings.json",
        '{\n  // Claude Code settings are strict JSON\n  "hooks": {}\n}\n',
    )
    broken = tb("install", "claude-code", cwd=repo)
    assert broken.returncode == 2
    assert broken.stderr.startswith(
        "tb: .claude/settings.json: not valid JSON (comments are not allowed in this JSON file at line 2, column 3)"
    )
    assert broken.stderr.count("\n") == 1
    assert not (repo / ".mcp.json").exists()


def _tb_capture() -> str:
    found = shutil.which("tb-capture", path=str(BIN))
    assert found, "tb-capture is not installed (run `make install`)"
    return found


def _pipe(tool: str, payload: dict[str, Any], cwd: Path) -> str:
    done = subprocess.run(
        [_tb_capture(), tool],
        input=json.dumps(payload),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def _session(sid: str) -> list[dict[str, Any]]:
    path = Path(os.environ["TEAMBRAIN_HOME"]) / "spool" / "sessions" / f"{sid}.jsonl"
    lines = path.read_text().splitlines()
    return [ENVELOPE_ADAPTER.validate_json(line).model_dump(mode="json") for line in lines]


SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_a_claude_code_session_through_the_real_hook(
    repo: Path, tb: Tb, git_run: Callable[..., str]
) -> None:
    git_run("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    base = {
        "session_id": "0b7c1e2a-5d9f-4c1b-8e3a-2f6d7c8b9a01",
        "transcript_path": str(repo / "t.jsonl"),
        "cwd": str(repo),
        "permission_mode": "default",
    }
    prompt = f"Add a CHANGELOG entry; use token {SECRET}\n```py\nprint('secret code')\n```"
    sequence = [
        {"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-5"},
        {"hook_event_name": "UserPromptSubmit", "prompt": prompt},
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": str(repo / "README.md")},
            "tool_response": {"file": {"content": "# demo"}},
        },
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": str(repo / "CHANGELOG.md"), "content": "## 1.0"},
            "tool_response": {},
        },
        {
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git add -A && git commit -m changelog"},
            "tool_response": {"stdout": ""},
        },
    ]
    for payload in sequence:
        assert _pipe("claude-code", {**base, **payload}, repo) == ""
    (repo / "CHANGELOG.md").write_text("## 1.0\n")
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "changelog", cwd=repo)
    _pipe(
        "claude-code",
        {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
        repo,
    )
    events = _session(base["session_id"])
    assert [e["ev"] for e in events] == [
        "session_start",
        "intent",
        "tool_use",
        "tool_use",
        "tool_use",
        "session_end",
    ]
    assert {(e["repo"], e["branch"], e["tool"], e["model"]) for e in events} == {
        ("github.com/acme/shop", "main", "claude-code", "claude-sonnet-4-5")
    }
    assert (
        events[-1]["data"]["outcome"] == "committed" and len(events[-1]["data"]["commit_shas"]) == 1
    )
    audit = tb("audit", "--last-session", "--json", cwd=repo)
    assert audit.returncode == 0, audit.stderr
    report = json.loads(audit.stdout)
    session = report["session"]
    assert (
        session["sid"] == base["session_id"]
        and session["status"] == "ended"
        and session["outcome"] == "committed"
    )
    assert (session["invalid_events"], session["secrets_found"], session["torn_lines"]) == (0, 0, 0)
    assert len(session["records"]) == 6
    text = tb("audit", "--last-session", cwd=repo)
    assert text.returncode == 0
    assert "claude-code  github.com/acme/shop @ main" in text.stdout
    assert (
        "ghp_" not in text.stdout and "secret code" not in text.stdout and "[secret]" in text.stdout
    )


def test_a_cursor_session_through_the_real_hook(repo: Path, tb: Tb) -> None:
    common = {
        "conversation_id": "c0ffee00-1111-2222-3333-444455556666",
        "generation_id": "g1",
        "model": "gpt-5",
        "model_id": "gpt-5",
        "cursor_version": "2.1.0",
        "workspace_roots": [str(repo)],
        "user_email": None,
        "transcript_path": None,
    }
    replies = [
        _pipe(
            "cursor",
            {
                **common,
                "hook_event_name": "sessionStart",
                "session_id": common["conversation_id"],
                "is_background_agent": False,
                "composer_mode": "agent",
            },
            repo,
        ),
        _pipe(
            "cursor",
            {
                **common,
                "hook_event_name": "beforeSubmitPrompt",
                "prompt": "Run the tests and fix what fails",
                "attachments": [],
            },
            repo,
        ),
        _pipe(
            "cursor",
            {
                **common,
                "hook_event_name": "postToolUse",
                "tool_name": "Grep",
                "tool_input": {"pattern": "def test", "path": str(repo)},
                "tool_output": "{}",
                "cwd": str(repo),
                "duration": 5,
            },
            repo,
        ),
        _pipe(
            "cursor",
            {
                **common,
                "hook_event_name": "postToolUse",
                "tool_name": "Shell",
                "tool_input": {"command": "npm test"},
                "tool_output": '{"exitCode":1,"stdout":"1 failing"}',
                "cwd": str(repo),
                "duration": 800,
            },
            repo,
        ),
        _pipe(
            "cursor",
            {
                **common,
                "hook_event_name": "sessionEnd",
                "session_id": common["conversation_id"],
                "reason": "completed",
                "duration_ms": 1200,
                "is_background_agent": False,
                "final_status": "completed",
            },
            repo,
        ),
    ]
    assert replies == [
        "{}\n",
        '{"continue":true}\n',
        "{}\n",
        "{}\n",
        "{}\n",
    ]  # Cursor parses hook output as JSON
    events = _session(common["conversation_id"])
    assert [e["ev"] for e in events] == [
        "session_start",
        "intent",
        "tool_use",
        "tool_use",
        "session_end",
    ]
    assert events[3]["data"] == {"kind": "test", "path": None, "exit_code": 1}
    assert events[-1]["data"]["outcome"] == "unknown"
    audit = tb("audit", cwd=repo)
    assert audit.returncode == 0 and "cursor  repo @ main  model gpt-5" in audit.stdout


def test_concurrent_hooks_of_one_session_lose_and_tear_nothing(repo: Path) -> None:
    hook, sid = _tb_capture(), "concurrent-session"

    def one(index: int) -> int:
        payload = {
            "session_id": sid,
            "cwd": str(repo),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": f"src/file{index:03d}.py"},
        }
        return subprocess.run(
            [hook, "claude-code"],
            input=json.dumps(payload),
            text=True,
            capture_output=True,
            check=False,
        ).returncode

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(one, range(160))) == {0}
    events = _session(sid)
    assert [e["ev"] for e in events].count("session_start") == 1  # a new session opens once
    assert sorted(e["data"]["path"] for e in events if e["ev"] == "tool_use") == [
        f"src/file{i:03d}.py" for i in range(160)
    ]


def test_lint_checks_adapters_yaml_against_the_registry(repo: Path, tb: Tb) -> None:
    assert tb("init", cwd=repo).returncode == 0
    shutil.copy(ROOT / "adapters.yaml", repo / "adapters.yaml")
    clean = tb("lint", cwd=repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    text = (
        (repo / "adapters.yaml")
        .read_text()
        .replace("      key: servers\n", "      key: mcpServers\n")
    )
    (repo / "adapters.yaml").write_text(text)
    drift = tb("lint", cwd=repo)
    assert drift.returncode == 3
    assert "adapters.yaml:" in drift.stdout and "adapters-registry: vscode.mcp.key" in drift.stdout


def _machine_files_text() -> str:
    home = Path(os.environ["TEAMBRAIN_HOME"])
    return "\n".join(
        p.read_text(errors="replace") for p in sorted((home / "spool").rglob("*")) if p.is_file()
    )


def test_every_payload_field_that_reaches_the_disk_is_scrubbed(repo: Path, tb: Tb) -> None:
    """A token or a <private> span in the model name or in a relative file path used to be
    stored verbatim in spool/sessions, spool/open and spool/active, and `tb verify` failed."""
    sid = "6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
    hidden = "<private>the acquisition of Initech</private>"
    base = {"session_id": sid, "cwd": str(repo), "transcript_path": str(repo / "t.jsonl")}
    sequence = [
        {"hook_event_name": "SessionStart", "source": "startup",
         "model": f"claude-sonnet-4-5 {SECRET} {hidden}"},
        {"hook_event_name": "PostToolUse", "tool_name": "Read",
         "tool_input": {"file_path": f"notes/{SECRET}.md"}, "tool_response": {}},
        {"hook_event_name": "PostToolUse", "tool_name": "Edit",
         "tool_input": {"file_path": f"docs/{hidden}.md"}, "tool_response": {}},
    ]  # fmt: skip
    for payload in sequence:
        assert _pipe("claude-code", {**base, **payload}, repo) == ""
    stored = _machine_files_text()
    assert "Initech" not in stored and SECRET not in stored
    assert "[REDACTED:github-token]" in stored and "[private]" in stored
    events = _session(sid)
    assert [e["ev"] for e in events] == ["session_start", "tool_use", "tool_use"]
    assert events[0]["model"].startswith("claude-sonnet-4-5")
    done = tb("verify", "--json", cwd=repo)
    checks = {c["id"]: c["status"] for c in json.loads(done.stdout)["checks"]}
    assert checks["spool-privacy"] == "PASS", done.stdout


def test_a_10_mb_prompt_is_summarised_inside_the_hook_timeout(repo: Path) -> None:
    """The summary reads the start of the prompt only: a 10 MB prompt kept the hook busy ~12 s,
    past the 10 s `tb install` gives it, and the intent was lost. Counted in CPU seconds, which
    a loaded machine does not stretch (the wall-clock limit here only catches a hang)."""
    import resource

    from untrusted import cpu_seconds_since

    sid = "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d"
    base = {"session_id": sid, "cwd": str(repo), "transcript_path": str(repo / "t.jsonl")}
    prompt = "Refactor the checkout flow. " + ("lorem ipsum dolor sit amet " * 400_000)
    start = {"hook_event_name": "SessionStart", "source": "startup", "model": "m"}
    assert _pipe("claude-code", {**base, **start}, repo) == ""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [_tb_capture(), "claude-code"],
        input=json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}),
        cwd=repo, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert cpu_seconds_since(before) < 10
    [intent] = [e for e in _session(sid) if e["ev"] == "intent"]
    assert "refactor" in str(intent["data"]).lower()


def test_a_payload_cut_off_inside_a_string_is_logged_as_malformed(repo: Path) -> None:
    cut = '{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "deploy th'
    done = subprocess.run(
        [_tb_capture(), "claude-code"], input=cut, cwd=repo, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    log = (Path(os.environ["TEAMBRAIN_HOME"]) / "logs" / "capture.log").read_text()
    assert "malformed payload" in log and "cut off inside a string" in log
    assert "SystemError" not in log and "deploy th" not in log


def test_install_into_a_closed_pipe_still_installs(repo: Path) -> None:
    """`tb install opencode | head`, when the reader is gone before tb prints (a pager quit at
    once): every file is still written, since the install happens before the report."""
    import shlex

    tb = shutil.which("tb", path=str(Path(sys.executable).parent))
    assert tb is not None
    gone = f"{shlex.quote(sys.executable)} -c 'import sys; sys.stdin.close()'"
    subprocess.run(
        f"{shlex.quote(tb)} install opencode | {gone}", shell=True, cwd=repo,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, timeout=120, check=False,
    )  # fmt: skip
    assert (repo / "opencode.json").is_file()
    assert (repo / ".opencode" / "plugins" / "teambrain.js").is_file()
