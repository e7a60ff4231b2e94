"""Zed: where it registers MCP servers, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Zed (not installable here: from its docs and source, zed-industries/zed settings_content).
https://zed.dev/docs/ai/mcp (.zed/settings.json, JSONC, context_servers: {command, args, env};
  the older `source: custom` and nested `command: {path, args}` forms are migrated away)
https://zed.dev/docs/worktree-trust (project settings apply only in a trusted worktree)
Zed's agent has no hooks (zed-industries/zed#52688 is open): MCP only, no capture.

MCP only: no hooks, so nothing is captured from its sessions.
"""

from __future__ import annotations

TYPE_CHECKING = False  # as in the tools with hooks, whose modules the hook process imports
if TYPE_CHECKING:
    from ..registry import Adapter


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor`."""
    from ..registry import Adapter, McpTarget

    return Adapter(
        name="zed",
        title="Zed",
        docs=("https://zed.dev/docs/ai/mcp", "https://zed.dev/docs/worktree-trust"),
        mcp=McpTarget(".zed/settings.json", "jsonc", "context_servers"),
        summary="No hooks",
        not_driven="an editor, not on npm",
        notes=(
            "MCP only: Zed's agent has no hooks, so Zed sessions are not captured. Zed opens "
            "every folder in Restricted Mode and applies .zed/settings.json only once you trust "
            "the worktree."
        ),
    )
