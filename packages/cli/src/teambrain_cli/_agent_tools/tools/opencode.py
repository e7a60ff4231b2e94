"""opencode: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

opencode (opencode-ai 1.18.33), verified: `opencode mcp list` starts the server and shows it
connected. https://opencode.ai/docs/mcp-servers (opencode.json or opencode.jsonc at the
repository root, key `mcp`: {type: local, command: [program, args...], enabled, timeout (ms,
5000 by default), environment}; no trust step). https://opencode.ai/docs/plugins (no command
hooks: .opencode/plugins/*.js are loaded at start; events session.created, chat.message,
tool.execute.before/after, verified headless with `opencode run`).

Its hook payloads are read by ``teambrain_capture._hookmap.opencode`` (capture keeps
every normaliser in one module: the hook imports nothing else).
"""

from __future__ import annotations

from ..registry import Adapter, HookTarget, McpTarget

MCP_REQUEST_TIMEOUT_MS = 60000  # opencode, Kilo Code: 5 s by default


def opencode_like(config: str, plugin_folder: str) -> tuple[McpTarget, HookTarget]:
    """opencode's wiring, which its fork Kilo Code shares: `mcp` entries with one command list
    (`timeout` bounds each MCP request, 5 s by default, and the first may build the index), and,
    having no command hooks, a plugin (shipped in this package) that hands events to tb-capture."""
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


_OPENCODE_MCP, _OPENCODE_HOOKS = opencode_like("opencode", ".opencode")

ADAPTER = Adapter(
    name="opencode",
    title="opencode",
    docs=("https://opencode.ai/docs/mcp-servers", "https://opencode.ai/docs/plugins"),
    mcp=_OPENCODE_MCP,
    hooks=_OPENCODE_HOOKS,
    notes=(
        "opencode has no command hooks, only JavaScript plugins: tb install writes a small "
        "one, .opencode/plugins/teambrain.js, that hands session events to tb-capture "
        "opencode. A project that keeps its config in opencode.jsonc gets the MCP entry "
        "there."
    ),
)
