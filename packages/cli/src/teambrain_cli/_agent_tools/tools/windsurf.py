"""Windsurf (Cascade): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://docs.windsurf.com/windsurf/cascade/mcp (user-level ~/.codeium/windsurf/mcp_config.json
  only; no ${workspaceFolder})
https://docs.windsurf.com/windsurf/cascade/hooks (.windsurf/hooks.json, merged with the user
  and system files; payload: agent_action_name, trajectory_id, tool_info)

Its hook payloads are read by ``teambrain_capture._hookmap.windsurf`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

ADAPTER = Adapter(
    name="windsurf",
    title="Windsurf (Cascade)",
    docs=(
        "https://docs.windsurf.com/windsurf/cascade/mcp",
        "https://docs.windsurf.com/windsurf/cascade/hooks",
    ),
    mcp=McpTarget("~/.codeium/windsurf/mcp_config.json", "json", "mcpServers", scope="user"),
    hooks=HookTarget(
        ".windsurf/hooks.json",
        "json",
        ("pre_user_prompt", "post_read_code", "post_write_code", "post_run_command"),
        shape="flat",
        handler={"show_output": False},
    ),
    notes=(
        "Windsurf has no project MCP file: the teambrain server is registered for your user "
        "and serves the repository of the session your hooks opened. No session-end hook: "
        "sessions close when idle. Payloads carry no model name."
    ),
)
