"""Cursor: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://cursor.com/docs/mcp (.cursor/mcp.json, mcpServers)
https://cursor.com/docs/hooks (.cursor/hooks.json: {version: 1, hooks: {event: [{command}]}};
  project hooks run from the project root; postToolUse tool_output is a JSON string)
https://cursor.com/docs/reference/third-party-hooks (Cursor also runs .claude/settings.json)

Its hook payloads are read by ``teambrain_capture._hookmap.cursor`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

ADAPTER = Adapter(
    name="cursor",
    title="Cursor",
    docs=(
        "https://cursor.com/docs/mcp",
        "https://cursor.com/docs/hooks",
        "https://cursor.com/docs/reference/third-party-hooks",
    ),
    mcp=McpTarget(".cursor/mcp.json", "json", "mcpServers", entry_type="stdio"),
    hooks=HookTarget(
        ".cursor/hooks.json",
        "json",
        ("sessionStart", "beforeSubmitPrompt", "postToolUse", "sessionEnd"),
        shape="flat",
        handler={"timeout": 10},
        file_defaults={"version": 1},
    ),
    notes=(
        "Cloud agents run neither sessionStart nor sessionEnd; their sessions open with the "
        "first event and close when idle."
    ),
)
