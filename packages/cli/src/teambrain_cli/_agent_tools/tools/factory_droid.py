"""Factory Droid: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Factory Droid (@factory/cli 0.225.1 with its linux-x64 build 0.225.2), verified headless
against the stand-in (its "bring your own model" settings; no Factory sign-in).
https://docs.factory.ai/cli/configuration/mcp (.factory/mcp.json, mcpServers, type stdio;
  `droid mcp list` starts each server and says connected or failed)
https://docs.factory.ai/reference/hooks-reference (Claude Code's shape in .factory/settings.json;
  timeouts in seconds; MCP tools are <server>___<tool>)

Its hook payloads are read by ``teambrain_capture._hookmap.factory_droid`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

_FACTORY_DOCS = "https://docs.factory.ai"

ADAPTER = Adapter(
    name="factory-droid",
    title="Factory Droid",
    aliases=("droid", "factory"),
    docs=(
        f"{_FACTORY_DOCS}/cli/configuration/mcp",
        f"{_FACTORY_DOCS}/reference/hooks-reference",
    ),
    mcp=McpTarget(".factory/mcp.json", "json", "mcpServers", entry_type="stdio"),
    hooks=HookTarget(
        ".factory/settings.json",
        "json",
        ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"),
        matchers={"PostToolUse": "*"},
        handler={"type": "command", "timeout": 10},  # seconds
    ),
    notes=(
        "Droid offers MCP tools through its ToolSearch tool. `droid exec` fires "
        "UserPromptSubmit only with `-o stream-jsonrpc` (0.225.2), so other headless runs "
        "record no intent."
    ),
)
