"""Auggie (Augment Code CLI): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Auggie 0.36.0 (@augmentcode/auggie), verified: `auggie mcp add --project` writes this entry,
`auggie mcp list` shows it (without starting it), and a headless run against a stub of
Augment's API called memory_context and fired these hooks.
https://docs.augmentcode.com/cli/integrations (.augment/settings.json, mcpServers; no trust step)
https://docs.augmentcode.com/cli/hooks (Claude Code's shape, but PromptSubmit; timeout in ms;
  payloads: conversation_id, workspace_roots, tool_name/tool_input/tool_output, is_mcp_tool)

Its hook payloads are read by ``teambrain_capture._hookmap.auggie`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..readiness import ToolContext, UserStep, read_object, table
from ..registry import MCP_SERVER_NAME, Adapter, HookTarget, McpTarget, Presence

# Observed with 0.36.0: MCP servers start with only HOME, LOGNAME, PATH, SHELL, TERM and USER from
# the session's environment, plus the entry's own `env` (not expanded). A TEAMBRAIN_HOME set for the
# session reaches the hooks but not `tb serve`, which would then record into ~/.teambrain.


def _auggie_steps(ctx: ToolContext) -> list[UserStep]:
    wanted = ctx.env.get("TEAMBRAIN_HOME")
    if not wanted or Path(wanted).expanduser().resolve() == (ctx.home / ".teambrain").resolve():
        return []
    local = ctx.repo / ".augment" / "settings.local.json"
    sources = (local, ctx.home / ".augment" / "settings.json")
    for source in sources:
        entry = table(table(read_object(source, "jsonc").get("mcpServers")).get(MCP_SERVER_NAME))
        if table(entry.get("env")).get("TEAMBRAIN_HOME") == wanted:
            return [UserStep("server environment", True, f"tb serve gets TEAMBRAIN_HOME ({ctx.shown(source)})", "")]  # fmt: skip
    entry = {"type": "stdio", "command": "tb", "args": ["serve"], "env": {"TEAMBRAIN_HOME": wanted}}
    detail = "Auggie starts MCP servers without your TEAMBRAIN_HOME: tb serve would record into ~/.teambrain"  # fmt: skip
    fix = f'set "mcpServers": {{"teambrain": {json.dumps(entry)}}} in {ctx.shown(local)} (not committed)'  # fmt: skip
    return [UserStep("server environment", False, detail, fix)]


ADAPTER = Adapter(
    name="auggie",
    title="Auggie (Augment Code CLI)",
    aliases=("augment",),
    docs=(
        "https://docs.augmentcode.com/cli/integrations",
        "https://docs.augmentcode.com/cli/hooks",
    ),
    mcp=McpTarget(".augment/settings.json", "jsonc", "mcpServers", entry_type="stdio"),
    hooks=HookTarget(
        ".augment/settings.json",
        "jsonc",
        ("SessionStart", "PromptSubmit", "PostToolUse", "SessionEnd"),
        matchers={"PostToolUse": ".*"},
        handler={"type": "command", "timeout": 10000},  # milliseconds
    ),
    notes=(
        "Auggie runs hooks only when your Augment account has them enabled (a flag its server "
        "sends); without it teambrain still serves memory, and sessions are not captured."
    ),
    user_steps=_auggie_steps,
    presence=Presence(("auggie",), ("~/.augment",)),
)
