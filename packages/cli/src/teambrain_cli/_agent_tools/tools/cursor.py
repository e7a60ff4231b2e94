"""Cursor: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://cursor.com/docs/mcp (.cursor/mcp.json, mcpServers)
https://cursor.com/docs/hooks (.cursor/hooks.json: {version: 1, hooks: {event: [{command}]}};
  project hooks run from the project root; postToolUse tool_output is a JSON string)
https://cursor.com/docs/reference/third-party-hooks (Cursor also runs .claude/settings.json)

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
    first_root,
    payload_object,
    payload_text,
    tool_hook,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Cursor hooks (``.cursor/hooks.json``)."""
    event = payload_text(payload, "hook_event_name") or ""
    if event == "sessionStart":
        hook = Hook(START)
    elif event == "beforeSubmitPrompt":
        hook = Hook(PROMPT, prompt=payload_text(payload, "prompt") or "")
    elif event in ("postToolUse", "postToolUseFailure"):
        failed = event == "postToolUseFailure"
        hook = tool_hook(
            payload_text(payload, "tool_name") or "",
            payload_object(payload.get("tool_input")),
            payload.get("error_message") if failed else payload.get("tool_output"),
            failed=failed,
        )
    elif event == "sessionEnd":
        hook = Hook(END, reason=payload_text(payload, "reason"))
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "session_id", "conversation_id")
    hook.cwd = (
        payload_text(payload, "cwd")
        or first_root(payload, "workspace_roots")
        or env.get("CURSOR_PROJECT_DIR")
    )
    hook.model = payload_text(payload, "model_id", "model")
    return hook


def hook_reply(payload: Mapping[str, object] | None) -> str:
    """What the hook prints: Cursor parses its output as JSON (``beforeSubmitPrompt`` wants to be
    told to go on), even when the payload could not be read."""
    event = payload.get("hook_event_name") if payload else None
    return '{"continue":true}' if event == "beforeSubmitPrompt" else "{}"


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget

    return Adapter(
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
        not_driven="an editor, not on npm",
        notes=(
            "Cloud agents run neither sessionStart nor sessionEnd; their sessions open with the "
            "first event and close when idle."
        ),
    )
