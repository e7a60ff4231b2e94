"""Cline: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Cline 3.0.65 (npm `cline`), verified headless against the stand-in (Chat Completions).
https://docs.cline.bot/mcp/configuring-mcp-servers (cline_mcp_settings.json, mcpServers; the
  CLI reads only ~/.cline/data/settings/: no repository can start an MCP server)
https://docs.cline.bot/customization/hooks (an executable per event, named after it, in
  .clinerules/hooks/; payloads: hookName (agent_start, tool_result...), taskId,
  sessionContext.rootSessionId, workspaceRoots, tool_result {name, input, output})

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit, the rest loads in :func:`adapter`.
"""

from __future__ import annotations

from teambrain_capture import (
    END,
    IGNORE,
    PROMPT,
    START,
    TOOL,
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


# Cline's hook files are named after the event (TaskStart, PostToolUse...); 3.0.65's payloads
# name it by its internal hook (agent_start, tool_result...). Either is read.
_CLINE_EVENTS = {
    "agent_start": START, "TaskStart": START, "agent_resume": START, "TaskResume": START,
    "prompt_submit": PROMPT, "UserPromptSubmit": PROMPT,
    "tool_result": TOOL, "PostToolUse": TOOL,
    "agent_end": END, "TaskComplete": END, "agent_abort": END, "TaskCancel": END,
}  # fmt: skip


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Cline hooks (executables in ``.clinerules/hooks/``)."""
    kind = _CLINE_EVENTS.get(payload_text(payload, "hookName") or "")
    if kind == START:
        hook = Hook(START)
    elif kind == PROMPT:
        asked = payload_object(payload.get("userPromptSubmit")) or payload_object(
            payload.get("prompt_submit")
        )
        hook = Hook(
            PROMPT, prompt=payload_text(asked, "prompt") or payload_text(payload, "prompt") or ""
        )
    elif kind == TOOL:
        call = payload_object(payload.get("tool_result"))
        legacy = payload_object(payload.get("postToolUse"))
        name = payload_text(call, "name") or payload_text(legacy, "toolName") or ""
        if "__" in name:  # MCP tools are <server>__<tool>: teambrain's are recorded by its server
            return Hook(IGNORE, reason="an MCP tool")
        tool_input = dict(
            payload_object(call.get("input")) or payload_object(legacy.get("parameters"))
        )
        files = tool_input.get("files")  # read_files: [{path, start_line, end_line}]
        if isinstance(files, list) and files and isinstance(files[0], dict):
            tool_input.setdefault("path", files[0].get("path"))
        commands = tool_input.get("commands")  # run_commands: [command, ...]
        if isinstance(commands, list) and commands and isinstance(commands[0], str):
            tool_input.setdefault("command", commands[0])
        failed = legacy.get("success") is False
        hook = tool_hook(
            name, tool_input, call.get("output") or legacy.get("result"), failed=failed
        )
    elif kind == END:
        hook = Hook(END, reason=payload_text(payload, "hookName"))
    else:
        return Hook(IGNORE)
    session = payload_object(payload.get("sessionContext"))
    hook.sid = payload_text(session, "rootSessionId") or payload_text(payload, "taskId")
    hook.cwd = first_root(payload, "workspaceRoots")
    return hook


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget

    return Adapter(
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
        summary="MCP servers only per user; one hook file per event",
        notes=(
            "Cline reads MCP servers only from your user settings, so the teambrain entry serves "
            "every repository you open once installed. Its hooks are one executable per event: an "
            "event that already has your own hook file keeps it (tb install says how to add "
            "ours). Cline CLI 3.0.65 runs no UserPromptSubmit hook in headless runs."
        ),
    )
