"""Cline: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Cline 3.0.65 (npm `cline`), verified headless against the stand-in (Chat Completions).
https://docs.cline.bot/mcp/configuring-mcp-servers (cline_mcp_settings.json, mcpServers; the
  CLI reads only ~/.cline/data/settings/: no repository can start an MCP server)
https://docs.cline.bot/customization/hooks (an executable per event, named after it, in
  .clinerules/hooks/; payloads: hookName (agent_start, tool_result...), taskId,
  sessionContext.rootSessionId, workspaceRoots, tool_result {name, input, output})

Its hook payloads are read by ``teambrain_capture._hookmap.cline`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

ADAPTER = Adapter(
    name="cline",
    title="Cline",
    docs=(
        "https://docs.cline.bot/mcp/configuring-mcp-servers",
        "https://docs.cline.bot/customization/hooks",
    ),
    # Cline reads MCP servers only per user, so that opening a repository cannot start one.
    mcp=McpTarget(
        "~/.cline/data/settings/cline_mcp_settings.json", "json", "mcpServers", scope="user"
    ),
    hooks=HookTarget(
        ".clinerules/hooks",
        "script",
        ("TaskStart", "UserPromptSubmit", "PostToolUse", "TaskComplete", "TaskCancel"),
        shape="script",
    ),
    notes=(
        "Cline reads MCP servers only from your user settings, so the teambrain entry serves "
        "every repository you open once installed. Its hooks are one executable per event: an "
        "event that already has your own hook file keeps it (tb install says how to add "
        "ours). Cline CLI 3.0.65 runs no UserPromptSubmit hook in headless runs."
    ),
)
