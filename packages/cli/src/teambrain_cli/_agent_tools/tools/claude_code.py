"""Claude Code: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://code.claude.com/docs/en/mcp (project scope: .mcp.json, `type: stdio`)
https://code.claude.com/docs/en/hooks (event -> [{matcher, hooks: [{type: command, ...}]}];
  PostToolUse fires only after a tool call succeeds, PostToolUseFailure after it fails)
https://code.claude.com/docs/en/settings (strict JSON; settings.local.json is not committed)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import IGNORE, Hook, claude_shaped, payload_text

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Claude Code hooks (``.claude/settings.json``)."""
    # Cursor and VS Code also run the hooks in .claude/settings.json, with their own payloads;
    # their own adapters capture those sessions, so here they would be counted twice.
    if "cursor_version" in payload or "conversation_id" in payload:
        return Hook(IGNORE, reason="cursor payload in the claude-code hook")
    if "hookEventName" in payload or "sessionId" in payload:
        return Hook(IGNORE, reason="vscode payload in the claude-code hook")
    # A failed Bash call fires PostToolUseFailure ("Exit code N"), so PostToolUse means exit 0.
    hook = claude_shaped(payload, success_means_zero=True)
    hook.cwd = hook.cwd or env.get("CLAUDE_PROJECT_DIR")
    # Only interactive sessions put the model in SessionStart; `claude -p` never does. The
    # transcript's assistant entries carry it (message.model) from the first reply on.
    hook.transcript = payload_text(payload, "transcript_path")
    return hook


_CLAUDE_DOCS = "https://code.claude.com/docs/en"


# Observed with 2.1.332 in a terminal: "Yes, I trust this folder" sets
# projects[<folder>].hasTrustDialogAccepted in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json);
# until then `claude mcp list` shows the project's servers "Pending approval" whatever the
# settings say. "Use this MCP server" adds the name to enabledMcpjsonServers in
# .claude/settings.local.json ("Continue without", the default, to disabledMcpjsonServers). The
# binary also honours enableAllProjectMcpServers and these lists in the user and project
# settings, and the project's entry in ~/.claude.json.


def _claude_steps(ctx: ToolContext) -> list[UserStep]:
    from pathlib import Path

    from ..readiness import UserStep, names, read_object, table
    from ..registry import MCP_SERVER_NAME

    config_dir = ctx.env.get("CLAUDE_CONFIG_DIR")
    state_file = Path(config_dir) / ".claude.json" if config_dir else ctx.home / ".claude.json"
    user_dir = Path(config_dir) if config_dir else ctx.home / ".claude"
    projects = table(read_object(state_file).get("projects"))
    entries = [table(projects.get(key)) for key in ctx.path_keys()]
    trusted = any(entry.get("hasTrustDialogAccepted") is True for entry in entries)
    where = ctx.shown(state_file)
    steps = [
        UserStep(
            "folder trust",
            trusted,
            f"folder trusted ({where})"
            if trusted
            else "Claude Code loads this folder's .mcp.json and hooks only once you trust it",
            f"run `claude` in {ctx.repo} once and answer “Yes, I trust this folder”",
        )
    ]
    sources = [
        (ctx.shown(path), read_object(path))
        for path in (
            user_dir / "settings.json",
            ctx.repo / ".claude" / "settings.json",
            ctx.repo / ".claude" / "settings.local.json",
        )
    ] + [(where, entry) for entry in entries]
    declined = [name for name, data in sources if MCP_SERVER_NAME in names(data, "disabledMcpjsonServers")]  # fmt: skip
    approved = [
        name
        for name, data in sources
        if data.get("enableAllProjectMcpServers") is True
        or MCP_SERVER_NAME in names(data, "enabledMcpjsonServers")
    ]
    fix = "run `claude` here and choose “Use this MCP server” for teambrain (its default is “Continue without”)"  # fmt: skip
    if declined:
        detail = f"you declined the project's teambrain MCP server (disabledMcpjsonServers in {declined[0]})"  # fmt: skip
        fix = f"remove teambrain from disabledMcpjsonServers in {declined[0]}, then choose “Use this MCP server” when `claude` asks"  # fmt: skip
    elif approved:
        detail = f"MCP server approved ({approved[0]})"
    else:
        detail = "the project's teambrain MCP server waits for your approval (“Pending approval”)"
    steps.append(UserStep("server approval", bool(approved) and not declined, detail, fix))
    return steps


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
        name="claude-code",
        title="Claude Code",
        aliases=("claude",),
        docs=(f"{_CLAUDE_DOCS}/mcp", f"{_CLAUDE_DOCS}/hooks", f"{_CLAUDE_DOCS}/settings"),
        mcp=McpTarget(".mcp.json", "json", "mcpServers", entry_type="stdio"),
        hooks=HookTarget(
            ".claude/settings.json",
            "json",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"),
            matchers={"PostToolUse": "*", "PostToolUseFailure": "*"},
            handler={"type": "command", "timeout": 10},
        ),
        notes=(
            "Claude Code loads .mcp.json and the hooks only in a folder you trusted, and asks "
            "each user to approve the project's MCP servers once (its dialog defaults to "
            '"Continue without"). Headless sessions (claude -p) learn their model from the '
            "session transcript."
        ),
        user_steps=_claude_steps,
        presence=Presence(("claude",), ("$CLAUDE_CONFIG_DIR", "~/.claude.json", "~/.claude")),
    )
