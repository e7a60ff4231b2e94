"""The one-time user actions each agent tool waits for, read from the tool's own files. The file
contents here are what the tools' own dialogs wrote when driven for real (versions in
docs/agents.md); tests-integration/agents proves the same against the CLIs themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from teambrain_cli._agent_tools.here import user_steps
from teambrain_cli._agent_tools.install import apply_install, plan_install
from teambrain_cli._agent_tools.registry import resolve_adapter
from teambrain_cli._agent_tools.tools.codex import codex_hook_hash, codex_hook_states


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "shop"
    (path / ".git").mkdir(parents=True)
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def steps(tool: str, repo: Path, home: Path, **env: str) -> dict[str, tuple[bool, str, str]]:
    apply_install(plan_install(resolve_adapter(tool), repo, home=home))
    return {s.name: (s.done, s.detail, s.fix) for s in user_steps(tool, repo, home=home, env=env)}


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_tools_without_user_actions_have_no_steps(repo: Path, home: Path) -> None:
    assert steps("cursor", repo, home) == {}
    assert steps("copilot", repo, home) == {}  # an alias resolves


# Claude Code ------------------------------------------------------------------------------------


def test_claude_needs_folder_trust_then_server_approval(repo: Path, home: Path) -> None:
    found = steps("claude-code", repo, home)
    assert [done for done, _, _ in found.values()] == [False, False]
    assert "Yes, I trust this folder" in found["folder trust"][2]
    assert "Use this MCP server" in found["server approval"][2]
    write(home / ".claude.json", {"projects": {str(repo): {"hasTrustDialogAccepted": True}}})
    write(repo / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["teambrain"]})
    found = steps("claude-code", repo, home)
    assert found["folder trust"][:2] == (True, "folder trusted (~/.claude.json)")
    assert found["server approval"][:2] == (True, "MCP server approved (.claude/settings.local.json)")  # fmt: skip


def test_a_declined_server_says_where_it_was_declined(repo: Path, home: Path) -> None:
    write(home / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    write(repo / ".claude" / "settings.local.json", {"disabledMcpjsonServers": ["teambrain"]})
    done, detail, fix = steps("claude-code", repo, home)["server approval"]
    assert not done and "disabledMcpjsonServers in .claude/settings.local.json" in detail
    assert fix.startswith("remove teambrain from disabledMcpjsonServers")


def test_claude_config_dir_moves_its_files(repo: Path, home: Path, tmp_path: Path) -> None:
    config = tmp_path / "claude-config"
    write(config / ".claude.json", {"projects": {str(repo): {"hasTrustDialogAccepted": True}}})
    write(config / "settings.json", {"enableAllProjectMcpServers": True})
    found = steps("claude-code", repo, home, CLAUDE_CONFIG_DIR=str(config))
    assert found["folder trust"][0] and found["server approval"][0]
    assert not steps("claude-code", repo, home)["folder trust"][0]


# Codex CLI --------------------------------------------------------------------------------------


def test_codex_hook_hashes_are_the_ones_codex_accepts(repo: Path, home: Path) -> None:
    # Accepted by Codex CLI 0.171.0: with these under [hooks.state] the hooks ran.
    handler = {"type": "command", "command": "tb-capture codex", "timeout": 10}
    assert codex_hook_hash("SessionStart", None, handler) == (
        "sha256:756b0c04d94b0b4be53153a59834342b5e238dc0ed2e72143a9d11abd59b5c1a"
    )
    assert codex_hook_hash("UserPromptSubmit", ".*", handler) == (
        "sha256:52cc73b21c2324f78fa73077b8f5b35a3d51b4c475baa35c991f86c36be982e9"
    )  # the matcher does not apply to this event
    assert codex_hook_hash("PostToolUse", None, handler) == (
        "sha256:a37725eee5dfe3b89bd63da28048af0d06b47372004f61e5b869d62aab3314ff"
    )
    assert codex_hook_hash("PostToolUse", "Bash", handler) != codex_hook_hash("PostToolUse", None, handler)  # fmt: skip


def _trust(home: Path, repo: Path, level: str = "trusted", **states: dict[str, object]) -> None:
    lines = [f'[projects."{repo}"]', f'trust_level = "{level}"', ""]
    for key, state in states.items():
        lines += [f"[hooks.state.{json.dumps(key)}]"]
        lines += [f"{name} = {json.dumps(value)}" for name, value in state.items()] + [""]
    write(home / ".codex" / "config.toml", "\n".join(lines))


def test_codex_needs_project_and_hook_trust(repo: Path, home: Path) -> None:
    found = steps("codex", repo, home)
    assert not found["project trust"][0] and not found["hook trust"][0]
    assert "3 of 3 teambrain hooks are not trusted" in found["hook trust"][1]
    states = dict(codex_hook_states(repo))
    assert sorted(key.rsplit(":", 3)[1] for key in states) == ["post_tool_use", "session_start", "user_prompt_submit"]  # fmt: skip
    assert all(key.startswith(f"{repo}/.codex/config.toml:") for key in states)
    _trust(home, repo, **{key: {"trusted_hash": value} for key, value in states.items()})
    found = steps("codex", repo, home)
    assert found["project trust"][:2] == (True, "project trusted (~/.codex/config.toml)")
    assert found["hook trust"][:2] == (True, "3 teambrain hooks trusted (~/.codex/config.toml)")


def test_codex_sees_untrusted_changed_and_disabled_hooks(repo: Path, home: Path) -> None:
    states = dict(codex_hook_states(plan_and_apply(repo, home)))
    first, second, third = states
    _trust(home, repo, "untrusted", **{
        first: {"trusted_hash": "sha256:old"}, second: {"trusted_hash": states[second]},
        third: {"trusted_hash": states[third]},
    })  # fmt: skip
    found = steps("codex", repo, home)
    assert not found["project trust"][0] and "marked untrusted" in found["project trust"][1]
    assert "1 teambrain hook(s) changed since you trusted them" in found["hook trust"][1]
    _trust(home, repo, **{key: {"trusted_hash": h, "enabled": False} for key, h in states.items()})
    assert "turned off in /hooks" in steps("codex", repo, home)["hook trust"][1]


def plan_and_apply(repo: Path, home: Path) -> Path:
    apply_install(plan_install(resolve_adapter("codex"), repo, home=home))
    return repo


def test_codex_home_and_hooks_json_are_followed(repo: Path, home: Path, tmp_path: Path) -> None:
    write(repo / ".codex" / "hooks.json", {"hooks": {}})
    plan_and_apply(repo, home)
    states = codex_hook_states(repo)
    assert states and all(key.startswith(f"{repo}/.codex/hooks.json:") for key, _ in states)
    codex_home = tmp_path / "codex-home"
    lines = [f'[projects."{repo}"]', 'trust_level = "trusted"']
    for key, value in states:
        lines += [f"[hooks.state.{json.dumps(key)}]", f'trusted_hash = "{value}"']
    write(codex_home / "config.toml", "\n".join(lines) + "\n")
    found = steps("codex", repo, home, CODEX_HOME=str(codex_home))
    assert found["project trust"][0] and found["hook trust"][0]


# Gemini CLI -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "trusted"),
    [
        ({}, False),
        ({"{repo}": "TRUST_FOLDER"}, True),
        ({"{parent}": "TRUST_FOLDER"}, True),  # a rule covers the folders inside it
        ({"{repo}": "TRUST_PARENT"}, True),  # ... and TRUST_PARENT means its parent
        ({"{parent}/other": "TRUST_PARENT"}, True),
        ({"{parent}": "TRUST_FOLDER", "{repo}": "DO_NOT_TRUST"}, False),  # the longest rule wins
        ({"{parent}": "DO_NOT_TRUST", "{repo}": "TRUST_FOLDER"}, True),
        ({"{repo}-other": "TRUST_FOLDER"}, False),  # a prefix of the name is not a parent
        ({"{repo}": "MAYBE"}, False),
    ],
)
def test_gemini_folder_rules(repo: Path, home: Path, rules: dict[str, str], trusted: bool) -> None:
    text = {k.format(repo=repo, parent=repo.parent): v for k, v in rules.items()}
    write(home / ".gemini" / "trustedFolders.json", "// written by /permissions\n" + json.dumps(text))  # fmt: skip
    done, detail, fix = steps("gemini-cli", repo, home)["folder trust"]
    assert done is trusted, detail
    assert f'"{repo}": "TRUST_FOLDER"' in fix and "Trust folder" in fix


def test_gemini_environment_and_settings_decide_first(repo: Path, home: Path) -> None:
    write(home / ".gemini" / "trustedFolders.json", {str(repo): "TRUST_FOLDER"})
    assert not steps("gemini-cli", repo, home, GEMINI_CLI_TRUST_WORKSPACE="false")["folder trust"][0]  # fmt: skip
    assert not steps("gemini-cli", repo, home, GEMINI_RESTRICTED_MODE="true")["folder trust"][0]
    (home / ".gemini" / "trustedFolders.json").unlink()
    assert steps("gemini-cli", repo, home, GEMINI_CLI_TRUST_WORKSPACE="true")["folder trust"][0]
    write(home / ".gemini" / "settings.json", '{"security": {"folderTrust": {"enabled": false}}, // off\n}')  # fmt: skip
    assert steps("gemini-cli", repo, home)["folder trust"][:2] == (
        True, "folder trust is off (security.folderTrust.enabled: false)",
    )  # fmt: skip


def test_gemini_cli_home_moves_its_files(repo: Path, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "gemini-home"
    write(other / ".gemini" / "trustedFolders.json", {str(repo): "TRUST_FOLDER"})
    assert steps("gemini-cli", repo, home, GEMINI_CLI_HOME=str(other))["folder trust"][0]
    assert not steps("gemini-cli", repo, home)["folder trust"][0]


def test_a_tool_is_installed_here_by_its_command_or_its_files_in_home(tmp_path: Path) -> None:
    """Issue 42 point 8: tb doctor tells a tool installed on this machine (its steps keep it
    not ready) from one that is not (its steps are for later, inside the tool)."""
    from teambrain_cli._agent_tools.here import tool_here

    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    bin_dir.mkdir()
    env = {"PATH": str(bin_dir)}
    absent = tool_here("claude-code", home=home, env=env)
    assert not absent.installed
    assert absent.evidence == (
        "Claude Code is not installed on this machine (no `claude` on PATH, no ~/.claude.json "
        "or ~/.claude)"
    )
    (bin_dir / "claude").write_text("#!/bin/sh\n")
    (bin_dir / "claude").chmod(0o755)
    assert tool_here("claude-code", home=home, env=env).installed
    (bin_dir / "claude").unlink()
    config = tmp_path / "claude-config"
    config.mkdir()
    found = tool_here("claude-code", home=home, env={**env, "CLAUDE_CONFIG_DIR": str(config)})
    assert found.installed and found.evidence == "$CLAUDE_CONFIG_DIR exists"
    (home / ".gemini").mkdir()
    assert tool_here("gemini-cli", home=home, env=env).installed
    assert not tool_here("codex", home=home, env=env).installed
    assert tool_here("cursor", home=home, env=env).installed  # it cannot be looked for: assumed
