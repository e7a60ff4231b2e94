"""Windsurf (Cascade): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://docs.windsurf.com/windsurf/cascade/mcp (user-level ~/.codeium/windsurf/mcp_config.json
  only; no ${workspaceFolder})
https://docs.windsurf.com/windsurf/cascade/hooks (.windsurf/hooks.json, merged with the user
  and system files; payload: agent_action_name, trajectory_id, tool_info)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit, the rest loads in :func:`adapter`.
"""

from __future__ import annotations

from teambrain_capture import (
    IGNORE,
    PROMPT,
    TOOL,
    Hook,
    exit_code_of,
    is_test_command,
    payload_object,
    payload_text,
    tool_path,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Windsurf Cascade hooks (``.windsurf/hooks.json``)."""
    event = payload_text(payload, "agent_action_name") or ""
    info = payload_object(payload.get("tool_info"))
    if event == "pre_user_prompt":
        hook = Hook(PROMPT, prompt=payload_text(info, "user_prompt") or "")
    elif event == "post_read_code":
        hook = Hook(TOOL, data={"kind": "explore"})
    elif event == "post_write_code":
        hook = Hook(TOOL, data={"kind": "edit"})
    elif event == "post_run_command":
        command = payload_text(info, "command_line") or ""
        data: dict[str, object] = {"kind": "test" if is_test_command(command) else "command"}
        code = exit_code_of(info)
        if code is not None:
            data["exit_code"] = code
        hook = Hook(TOOL, data=data)
    else:
        return Hook(IGNORE)
    if event in ("post_read_code", "post_write_code"):
        path = tool_path(info)
        if path:
            hook.data["path"] = path
    hook.sid = payload_text(payload, "trajectory_id")
    hook.cwd = payload_text(info, "cwd")
    return hook


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget

    return Adapter(
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
        not_driven="an editor, not on npm",
        notes=(
            "Windsurf has no project MCP file: the teambrain server is registered for your user "
            "and serves the repository of the session your hooks opened. No session-end hook: "
            "sessions close when idle. Payloads carry no model name."
        ),
    )
