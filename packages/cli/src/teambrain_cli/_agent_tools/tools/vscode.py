"""VS Code (Copilot agent mode): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://code.visualstudio.com/docs/agents/reference/mcp-configuration (.vscode/mcp.json:
  "servers", type stdio required)
https://code.visualstudio.com/docs/agent-customization/hooks (.github/hooks/*.json, flat
  event -> [{type: command, command, timeout}]; also reads the Claude settings files)
https://code.visualstudio.com/docs/agents/reference/hooks-reference (payloads: camelCase
  sessionId / hookEventName; Stop fires when the agent session ends)

Its hook payloads are read by ``teambrain_capture._hookmap.vscode`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

_VSCODE_DOCS = "https://code.visualstudio.com/docs"

ADAPTER = Adapter(
    name="vscode",
    title="VS Code (Copilot agent mode)",
    aliases=("copilot",),
    docs=(
        f"{_VSCODE_DOCS}/agents/reference/mcp-configuration",
        f"{_VSCODE_DOCS}/agent-customization/hooks",
        f"{_VSCODE_DOCS}/agents/reference/hooks-reference",
    ),
    mcp=McpTarget(".vscode/mcp.json", "jsonc", "servers", entry_type="stdio"),
    hooks=HookTarget(
        ".github/hooks/teambrain.json",
        "jsonc",
        ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"),
        shape="flat",
        handler={"type": "command", "timeout": 10},
    ),
    notes=(
        "Agent hooks are a VS Code preview feature and may be disabled by your organisation. "
        "Hook payloads carry no model name."
    ),
)
