"""Kiro: where it registers MCP servers, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://kiro.dev/docs/mcp/configuration (.kiro/settings/mcp.json, mcpServers; workspace
  config wins over ~/.kiro/settings/mcp.json). Kiro's hooks are agent-scoped files with their
  own trigger model and are not wired yet: MCP only, no capture.

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
        name="kiro",
        title="Kiro",
        docs=("https://kiro.dev/docs/mcp/configuration",),
        mcp=McpTarget(".kiro/settings/mcp.json", "json", "mcpServers"),
        not_driven="an editor, not on npm",
        notes=("MCP only: agents read the brain, but Kiro sessions are not captured."),
    )
