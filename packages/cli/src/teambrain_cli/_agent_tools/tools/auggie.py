"""Auggie (Augment Code CLI): where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Auggie 0.36.0 (@augmentcode/auggie), verified: `auggie mcp add --project` writes this entry,
`auggie mcp list` shows it (without starting it), and a headless run against a stub of
Augment's API called memory_context and fired these hooks.
https://docs.augmentcode.com/cli/integrations (.augment/settings.json, mcpServers; no trust step)
https://docs.augmentcode.com/cli/hooks (Claude Code's shape, but PromptSubmit; timeout in ms;
  payloads: conversation_id, workspace_roots, tool_name/tool_input/tool_output, is_mcp_tool)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import (
    END,
    IGNORE,
    PROMPT,
    START,
    Hook,
    first_root,
    payload_object,
    payload_text,
    tool_hook,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


# Auggie's built-in tools, by what they do (its names say too little for classify_tool).
_AUGGIE_TOOLS = {
    "launch-process": "Bash", "view": "Read", "view-range-untruncated": "Read",
    "save-file": "Write", "remove-files": "Delete", "str-replace-editor": "Edit",
    "apply_patch": "apply_patch", "codebase-retrieval": "Search",
}  # fmt: skip


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Auggie (Augment Code CLI) hooks (``hooks`` in ``.augment/settings.json``)."""
    event = payload_text(payload, "hook_event_name") or ""
    if event == "SessionStart":
        hook = Hook(START)
    elif event == "PromptSubmit":
        hook = Hook(PROMPT, prompt=payload_text(payload, "user_prompt") or "")
    elif event == "PostToolUse":
        if payload.get("is_mcp_tool") is True:
            return Hook(IGNORE, reason="an MCP tool")  # teambrain's own: recorded by its server
        name = payload_text(payload, "tool_name") or ""
        error = payload.get("tool_error")
        hook = tool_hook(
            _AUGGIE_TOOLS.get(name, name),
            payload_object(payload.get("tool_input")),
            error if error else payload.get("tool_output"),
            failed=bool(error),
        )
    elif event == "SessionEnd":
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "conversation_id") or env.get("AUGMENT_CONVERSATION_ID")
    hook.cwd = first_root(payload, "workspace_roots") or env.get("AUGMENT_PROJECT_DIR")
    return hook


# Observed with 0.36.0: MCP servers start with only HOME, LOGNAME, PATH, SHELL, TERM and USER from
# the session's environment, plus the entry's own `env` (not expanded). A TEAMBRAIN_HOME set for the
# session reaches the hooks but not `tb serve`, which would then record into ~/.teambrain.


def _auggie_steps(ctx: ToolContext) -> list[UserStep]:
    import json
    from pathlib import Path

    from ..readiness import UserStep, read_object, table
    from ..registry import MCP_SERVER_NAME

    wanted = ctx.env.get("TEAMBRAIN_HOME")
    if not wanted or Path(wanted).expanduser().resolve() == (ctx.home / ".teambrain").resolve():
        return []
    local = ctx.repo / ".augment" / "settings.local.json"
    sources = (local, ctx.home / ".augment" / "settings.json")
    for source in sources:
        entry = table(table(read_object(source, "jsonc").get("mcpServers")).get(MCP_SERVER_NAME))
        if table(entry.get("env")).get("TEAMBRAIN_HOME") == wanted:
            return [UserStep("server environment", True, f"tb serve gets TEAMBRAIN_HOME ({ctx.shown(source)})", "")]  # fmt: skip
    entry = {"type": "stdio", "command": "tb", "args": ["serve"], "env": {"TEAMBRAIN_HOME": wanted}}
    detail = "Auggie starts MCP servers without your TEAMBRAIN_HOME: tb serve would record into ~/.teambrain"  # fmt: skip
    fix = f'set "mcpServers": {{"teambrain": {json.dumps(entry)}}} in {ctx.shown(local)} (not committed)'  # fmt: skip
    return [UserStep("server environment", False, detail, fix)]


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
        name="auggie",
        title="Auggie (Augment Code CLI)",
        aliases=("augment",),
        docs=(
            "https://docs.augmentcode.com/cli/integrations",
            "https://docs.augmentcode.com/cli/hooks",
        ),
        mcp=McpTarget(".augment/settings.json", "jsonc", "mcpServers", entry_type="stdio"),
        hooks=HookTarget(
            ".augment/settings.json",
            "jsonc",
            ("SessionStart", "PromptSubmit", "PostToolUse", "SessionEnd"),
            matchers={"PostToolUse": ".*"},
            handler={"type": "command", "timeout": 10000},  # milliseconds
        ),
        summary="Its hooks run only when your Augment account enables them",
        notes=(
            "Auggie runs hooks only when your Augment account has them enabled (a flag its server "
            "sends); without it teambrain still serves memory, and sessions are not captured."
        ),
        user_steps=_auggie_steps,
        presence=Presence(("auggie",), ("~/.augment",)),
    )
