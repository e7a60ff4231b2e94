"""GitHub Copilot CLI: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

GitHub Copilot CLI 1.0.102, verified headless against the stand-in (BYOK, COPILOT_OFFLINE):
https://docs.github.com/en/copilot/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli
  (workspace MCP servers: .mcp.json or .github/mcp.json, `type: local`)
https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference
  (.github/hooks/*.json, {version: 1, hooks: {Event: [{type: command, command, timeoutSec}]}};
  PascalCase events get snake_case payloads; it also runs VS Code's hook files, and VS Code
  runs its: each tb-capture drops the other's payloads)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import IGNORE, Hook, claude_shaped, payload_object, payload_text, tool_hook

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """GitHub Copilot CLI hooks (``.github/hooks/*.json``, Claude-compatible event names)."""
    # VS Code runs the files in .github/hooks/ too, with camelCase payloads: its own adapter
    # records those sessions.
    if "sessionId" in payload or "hookEventName" in payload:
        return Hook(IGNORE, reason="vscode payload in the copilot-cli hook")
    event = payload_text(payload, "hook_event_name") or ""
    if event in ("PostToolUse", "PostToolUseFailure"):
        if "-" in (payload_text(payload, "tool_name") or ""):
            # MCP tools are `<server>-<tool>` (built-in ones never have a hyphen); teambrain's
            # own calls are recorded by its server.
            return Hook(IGNORE, reason="an MCP tool")
        result = payload_object(payload.get("tool_result"))
        failed = event == "PostToolUseFailure" or result.get("result_type") in ("failure", "error")
        hook = tool_hook(
            payload_text(payload, "tool_name") or "",
            payload_object(payload.get("tool_input")),
            payload.get("error")
            if event == "PostToolUseFailure"
            else result or payload.get("tool_response"),
            failed=failed,
        )
        hook.sid = payload_text(payload, "session_id")
        hook.cwd = payload_text(payload, "cwd")
        return hook
    return claude_shaped(payload, success_means_zero=False)


_COPILOT_CLI_DOCS = "https://docs.github.com/en/copilot"


# Observed with 1.0.102: the repository's MCP servers (.mcp.json, .github/mcp.json) and hooks
# (.github/hooks/*.json) load only in a trusted folder: its path, or a parent's, in the
# `trustedFolders` list (older: `trusted_folders`) of ~/.copilot/config.json ($COPILOT_HOME), a
# JSONC file the CLI manages. COPILOT_ALLOW_ALL=true trusts the working folder.


def _copilot_cli_steps(ctx: ToolContext) -> list[UserStep]:
    from pathlib import Path

    from ..readiness import UserStep, names, read_object

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


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
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
