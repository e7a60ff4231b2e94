"""Continue: where it registers MCP servers, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Continue (@continuedev/cli 1.5.47 `cn`, verified headless against the stand-in; and the IDE
extension, from its docs). https://docs.continue.dev/customize/deep-dives/mcp (project blocks
in .continue/mcpServers/*.yaml: name, version, schema v1, mcpServers as a list of named
entries). The CLI reads no project MCP file by itself: `cn --mcp <block>` adds one. Its hook
loader exists in the source but nothing fires it in 1.5.47: MCP only, no capture.

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
        name="continue",
        title="Continue",
        aliases=("cn", "continue-cli"),
        docs=(
            "https://docs.continue.dev/customize/deep-dives/mcp",
            "https://docs.continue.dev/cli/configuration",
        ),
        # A config block of its own: the IDE extension loads .continue/mcpServers/*.yaml; the CLI
        # takes it with `cn --mcp` (1.5.47 reads no project MCP files by itself).
        mcp=McpTarget(
            ".continue/mcpServers/teambrain.yaml",
            "yaml",
            "mcpServers",
            servers="list",
            file_defaults={"name": "teambrain", "version": "0.0.1", "schema": "v1"},
        ),
        summary="The IDE extension and `cn`. No hooks fire in cn 1.5.47",
        notes=(
            "The Continue IDE extension loads .continue/mcpServers/teambrain.yaml by itself. The "
            "Continue CLI (cn 1.5.47) reads MCP servers only from ~/.continue/config.yaml or "
            "--mcp: run `cn --mcp .continue/mcpServers/teambrain.yaml`, or add the same entry to "
            "your config.yaml. MCP only: no hooks fire in 1.5.47, so Continue sessions are not "
            "captured."
        ),
    )
