"""Factory Droid: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Factory Droid (@factory/cli 0.225.1 with its linux-x64 build 0.225.2), verified headless
against the stand-in (its "bring your own model" settings; no Factory sign-in).
https://docs.factory.ai/cli/configuration/mcp (.factory/mcp.json, mcpServers, type stdio;
  `droid mcp list` starts each server and says connected or failed)
https://docs.factory.ai/reference/hooks-reference (Claude Code's shape in .factory/settings.json;
  timeouts in seconds; MCP tools are <server>___<tool>)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit, the rest loads in :func:`adapter`.
"""

from __future__ import annotations

from teambrain_capture import IGNORE, Hook, claude_shaped, payload_text

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Factory Droid hooks (``hooks`` in ``.factory/settings.json``): Claude Code's shape."""
    if "___" in (payload_text(payload, "tool_name") or ""):
        # MCP tools are <server>___<tool>: teambrain's own calls are recorded by its server.
        return Hook(IGNORE, reason="an MCP tool")
    # 0.225.2 fires no PostToolUse for a tool call that returned an error; a command's exit
    # status is in its text, so none is assumed.
    hook = claude_shaped(payload, success_means_zero=False)
    hook.cwd = hook.cwd or env.get("FACTORY_PROJECT_DIR")
    return hook


_FACTORY_DOCS = "https://docs.factory.ai"


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget

    return Adapter(
        name="factory-droid",
        title="Factory Droid",
        aliases=("droid", "factory"),
        docs=(
            f"{_FACTORY_DOCS}/cli/configuration/mcp",
            f"{_FACTORY_DOCS}/reference/hooks-reference",
        ),
        mcp=McpTarget(".factory/mcp.json", "json", "mcpServers", entry_type="stdio"),
        hooks=HookTarget(
            ".factory/settings.json",
            "json",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"),
            matchers={"PostToolUse": "*"},
            handler={"type": "command", "timeout": 10},  # seconds
        ),
        notes=(
            "Droid offers MCP tools through its ToolSearch tool. `droid exec` fires "
            "UserPromptSubmit only with `-o stream-jsonrpc` (0.225.2), so other headless runs "
            "record no intent."
        ),
    )
