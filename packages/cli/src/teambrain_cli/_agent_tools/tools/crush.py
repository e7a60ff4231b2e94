"""Crush: where it registers MCP servers, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Crush (@charmland/crush 0.96.1: its npm package downloads the binary from GitHub when
installed, which this offline machine cannot, so from its docs and source of 2026-08).
https://github.com/charmbracelet/crush#configuration (.crush.json or crush.json, strict JSON,
  looked up from the working folder to the git root; `mcp` entries {type: stdio, command,
  args}; hooks: PreToolUse only, so nothing to capture a session from)

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
        name="crush",
        title="Crush",
        docs=("https://github.com/charmbracelet/crush#configuration",),
        mcp=McpTarget(".crush.json", "json", "mcp", entry_type="stdio"),
        summary="Its only hook, PreToolUse, says too little to capture",
        not_driven="@charmland/crush 0.96.1 downloads its binary from github.com when installed (offline here)",
        notes=(
            "MCP only: Crush's one hook event (PreToolUse) carries no session start, prompt or "
            "result, so Crush sessions are not captured. Crush reads .crush.json as trusted code, "
            "with no prompt."
        ),
    )
