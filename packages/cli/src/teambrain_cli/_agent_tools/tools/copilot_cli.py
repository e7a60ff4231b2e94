"""GitHub Copilot CLI: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

GitHub Copilot CLI 1.0.102, verified headless against the stand-in (BYOK, COPILOT_OFFLINE):
https://docs.github.com/en/copilot/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli
  (workspace MCP servers: .mcp.json or .github/mcp.json, `type: local`)
https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
  (.github/hooks/*.json, {version: 1, hooks: {Event: [{type: command, command, timeoutSec}]}};
  PascalCase events get snake_case payloads; it also runs VS Code's hook files, and VS Code
  runs its: each tb-capture drops the other's payloads)

Its hook payloads are read by ``teambrain_capture._hookmap.copilot_cli`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from pathlib import Path

from ..readiness import ToolContext, UserStep, names, read_object
from ..registry import Adapter, HookTarget, McpTarget, Presence

_COPILOT_CLI_DOCS = "https://docs.github.com/en/copilot"


# Observed with 1.0.102: the repository's MCP servers (.mcp.json, .github/mcp.json) and hooks
# (.github/hooks/*.json) load only in a trusted folder: its path, or a parent's, in the
# `trustedFolders` list (older: `trusted_folders`) of ~/.copilot/config.json ($COPILOT_HOME), a
# JSONC file the CLI manages. COPILOT_ALLOW_ALL=true trusts the working folder.


def _copilot_cli_steps(ctx: ToolContext) -> list[UserStep]:
    config = Path(ctx.env.get("COPILOT_HOME") or ctx.home / ".copilot") / "config.json"
    fix = f"run `copilot` in {ctx.repo} once and choose to trust the folder"
    if ctx.env.get("COPILOT_ALLOW_ALL") == "true":
        return [UserStep("folder trust", True, "trusted by COPILOT_ALLOW_ALL=true", fix)]
    data = read_object(config, "jsonc")
    folders = [*names(data, "trustedFolders"), *names(data, "trusted_folders")]
    real = ctx.repo.resolve()
    bases = [Path(folder).expanduser().resolve() for folder in folders if folder]
    trusted = any(real == base or real.is_relative_to(base) for base in bases)
    detail = (
        f"folder trusted ({ctx.shown(config)})"
        if trusted
        else "Copilot CLI loads this folder's MCP servers and hooks only once you trust it"
    )
    return [UserStep("folder trust", trusted, detail, fix)]


ADAPTER = Adapter(
    name="copilot-cli",
    title="GitHub Copilot CLI",
    aliases=("github-copilot-cli",),
    docs=(
        f"{_COPILOT_CLI_DOCS}/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli",
        f"{_COPILOT_CLI_DOCS}/reference/copilot-cli-reference/cli-hooks-reference",
    ),
    mcp=McpTarget(
        ".github/mcp.json", "json", "mcpServers", entry_type="local", entry={"tools": ["*"]}
    ),
    # Copilot CLI runs every .github/hooks/*.json (VS Code's file too, and VS Code this one):
    # each `tb-capture` drops the other tool's payloads. PascalCase event names get
    # Claude-compatible payloads (hook_event_name, session_id).
    hooks=HookTarget(
        ".github/hooks/teambrain-copilot-cli.json",
        "json",
        ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"),
        shape="flat",
        handler={"type": "command", "timeoutSec": 10},
        file_defaults={"version": 1},
    ),
    notes=(
        "Copilot CLI loads a repository's MCP servers and hooks only in a folder you trusted "
        "(its first-run prompt; recorded in ~/.copilot/config.json). `copilot mcp list` lists "
        "servers without starting them."
    ),
    user_steps=_copilot_cli_steps,
    presence=Presence(("copilot",), ("$COPILOT_HOME", "~/.copilot")),
)
