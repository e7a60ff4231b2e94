"""VS Code (Copilot agent mode): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://code.visualstudio.com/docs/agents/reference/mcp-configuration (.vscode/mcp.json:
  "servers", type stdio required)
https://code.visualstudio.com/docs/agent-customization/hooks (.github/hooks/*.json, flat
  event -> [{type: command, command, timeout}]; also reads the Claude settings files)
https://code.visualstudio.com/docs/agents/reference/hooks-reference (payloads: camelCase
  sessionId / hookEventName; Stop fires when the agent session ends)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit, the rest loads in :func:`adapter`.
"""

from __future__ import annotations

from teambrain_capture import (
    END,
    IGNORE,
    PROMPT,
    START,
    Hook,
    payload_object,
    payload_text,
    tool_hook,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """VS Code (Copilot agent mode) hooks (``.github/hooks/*.json``)."""
    # Copilot CLI runs every file in .github/hooks/ too, with snake_case payloads (VS Code's are
    # camelCase); `tb-capture copilot-cli` records those sessions.
    if "session_id" in payload and "sessionId" not in payload:
        return Hook(IGNORE, reason="copilot-cli payload in the vscode hook")
    event = payload_text(payload, "hookEventName", "hook_event_name") or ""
    if event == "SessionStart":
        hook = Hook(START, source=payload_text(payload, "source"))
    elif event == "UserPromptSubmit":
        hook = Hook(PROMPT, prompt=payload_text(payload, "prompt") or "")
    elif event == "PostToolUse":
        hook = tool_hook(
            payload_text(payload, "tool_name") or "",
            payload_object(payload.get("tool_input")),
            payload.get("tool_response"),
        )
    elif event == "Stop":  # VS Code documents Stop as "the agent session ends"
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "sessionId", "session_id")
    hook.cwd = payload_text(payload, "cwd")
    return hook


_VSCODE_DOCS = "https://code.visualstudio.com/docs"


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget

    return Adapter(
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
        not_driven="an editor, not on npm",
        notes=(
            "Agent hooks are a VS Code preview feature and may be disabled by your organisation. "
            "Hook payloads carry no model name."
        ),
    )
