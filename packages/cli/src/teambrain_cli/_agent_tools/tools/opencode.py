"""opencode: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

opencode (opencode-ai 1.18.33), verified: `opencode mcp list` starts the server and shows it
connected. https://opencode.ai/docs/mcp-servers (opencode.json or opencode.jsonc at the
repository root, key `mcp`: {type: local, command: [program, args...], enabled, timeout (ms,
5000 by default), environment}; no trust step). https://opencode.ai/docs/plugins (no command
hooks: .opencode/plugins/*.js are loaded at start; events session.created, chat.message,
tool.execute.before/after, verified headless with `opencode run`).

Its hook payloads (from the plugin) are read by :func:`read_hook`, which the hook process imports
this module for: its top level imports only teambrain_capture's hook kit, the rest loads in
:func:`adapter`. Kilo Code (its fork) shares it.
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

    from ..registry import Adapter, HookTarget, McpTarget

MCP_REQUEST_TIMEOUT_MS = 60000  # opencode, Kilo Code: 5 s by default


def opencode_like(config: str, plugin_folder: str) -> tuple[McpTarget, HookTarget]:
    """opencode's wiring, which its fork Kilo Code shares: `mcp` entries with one command list
    (`timeout` bounds each MCP request, 5 s by default, and the first may build the index), and,
    having no command hooks, a plugin (shipped in this package) that hands events to tb-capture."""
    from ..registry import HookTarget, McpTarget

    mcp = McpTarget(
        f"{config}.json",
        "jsonc",
        "mcp",
        entry_type="local",
        command_style="array",
        entry={"enabled": True, "timeout": MCP_REQUEST_TIMEOUT_MS},
        alternate_path=f"{config}.jsonc",
    )
    hooks = HookTarget(
        f"{plugin_folder}/plugins/teambrain.js",
        "script",
        ("session.created", "chat.message", "tool.execute.after", "session.deleted"),
        shape="plugin",
    )
    return mcp, hooks


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """opencode and Kilo Code, through the plugin ``tb install`` writes (.opencode/plugins/,
    .kilo/plugins/)."""
    event = payload_text(payload, "hook_event_name") or ""
    if event == "session.created":
        hook = Hook(START)
    elif event == "chat.message":
        hook = Hook(PROMPT, prompt=payload_text(payload, "prompt") or "")
    elif event == "tool.execute.after":
        name = payload_text(payload, "tool_name") or ""
        if "_" in name:  # MCP tools are <server>_<tool>; built-in tools are one word (read, bash)
            return Hook(IGNORE, reason="an MCP tool")
        hook = tool_hook(
            name, payload_object(payload.get("tool_input")), payload.get("tool_response")
        )
    elif event == "session.deleted":
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "session_id")
    hook.cwd = payload_text(payload, "cwd")
    hook.model = payload_text(payload, "model")
    return hook


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter

    mcp, hooks = opencode_like("opencode", ".opencode")
    return Adapter(
        name="opencode",
        title="opencode",
        docs=("https://opencode.ai/docs/mcp-servers", "https://opencode.ai/docs/plugins"),
        mcp=mcp,
        hooks=hooks,
        summary="No command hooks: a capture plugin",
        notes=(
            "opencode has no command hooks, only JavaScript plugins: tb install writes a small "
            "one, .opencode/plugins/teambrain.js, that hands session events to tb-capture "
            "opencode. A project that keeps its config in opencode.jsonc gets the MCP entry "
            "there."
        ),
    )
