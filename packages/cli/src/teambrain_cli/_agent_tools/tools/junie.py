"""JetBrains Junie: where it registers MCP servers, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

JetBrains Junie (IDE plugin; the Junie CLI's binary comes from GitHub releases, not npm, so it
was not run here). https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html
(project .junie/mcp/mcp.json, mcpServers, stdio only). Junie CLI hooks exist for SessionStart
only and are read from ~/.junie/config.json, never the project's: MCP only, no capture.
JetBrains AI Assistant keeps MCP servers in IDE settings (no file to write): paste the entry
in Settings | Tools | AI Assistant | Model Context Protocol (MCP) "As JSON".

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
        name="junie",
        title="JetBrains Junie",
        aliases=("jetbrains",),
        docs=(
            "https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html",
            "https://www.jetbrains.com/help/ai-assistant/mcp.html",
        ),
        mcp=McpTarget(".junie/mcp/mcp.json", "json", "mcpServers"),
        summary="AI Assistant by hand, below. No repository hooks",
        not_driven="@jetbrains/junie downloads its binary from github.com when installed (offline here)",
        notes=(
            "MCP only: Junie has no session hooks a repository can set, so its sessions are not "
            "captured. JetBrains AI Assistant keeps MCP servers in the IDE's settings, not in a "
            'file: add {"mcpServers": {"teambrain": {"command": "tb", "args": '
            '["serve"]}}} in Settings | Tools | AI Assistant | Model Context Protocol (MCP), '
            '"As JSON", at Project level.'
        ),
    )
