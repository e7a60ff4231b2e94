"""Qwen Code: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Qwen Code 0.24.4, verified headless against the stand-in (docs bundled in the package):
https://qwenlm.github.io/qwen-code-docs/en/users/features/mcp (.qwen/settings.json mcpServers;
  project servers wait for `qwen mcp approve`, bound to a hash of the entry)
https://qwenlm.github.io/qwen-code-docs/en/users/features/hooks (Claude Code's shape; command
  timeout in seconds; PostToolUse fires for failed tools too)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import IGNORE, Hook, claude_shaped, payload_text

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Qwen Code hooks (``hooks`` in ``.qwen/settings.json``): Claude Code's shape."""
    # Qwen Code fires UserPromptSubmit again, with an empty prompt, before each continuation
    # after a tool result (0.24.4): not something the user asked.
    if payload.get("hook_event_name") == "UserPromptSubmit" and not payload_text(payload, "prompt"):
        return Hook(IGNORE, reason="qwen-code continuation, not a prompt")
    # Its PostToolUse fires for failed tools too (PostToolUseFailure exists as well).
    hook = claude_shaped(payload, success_means_zero=False)
    hook.cwd = hook.cwd or env.get("QWEN_PROJECT_DIR")
    return hook


_QWEN_DOCS = "https://qwenlm.github.io/qwen-code-docs/en/users"


# Observed with 0.24.4 (its bundled docs and chunks: config/mcpApprovals.ts, commands/mcp/approve.ts):
# a project's MCP servers (.qwen/settings.json, .mcp.json) stay "Pending approval" until
# `qwen mcp approve <name>` (or the interactive prompt) records {"hash", "status": "approved"}
# under the folder's absolute path in ~/.qwen/mcpApprovals.json ($QWEN_CODE_MCP_APPROVALS_PATH).
# The hash is sha256 of the entry as JSON, keys sorted, without scope/extensionName/description:
# any change to the entry makes it pending again. Headless `--yolo` runs skip the gate. Folder
# trust is off unless security.folderTrust.enabled; then ~/.qwen/trustedFolders.json decides, as
# Gemini CLI's does ($QWEN_CODE_TRUSTED_FOLDERS_PATH).


def qwen_entry_hash(entry: Mapping[str, Any]) -> str:
    """The hash Qwen Code binds an MCP server approval to."""
    import hashlib
    import json

    kept = {key: value for key, value in entry.items() if key not in ("scope", "extensionName", "description")}  # fmt: skip
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _qwen_steps(ctx: ToolContext) -> list[UserStep]:
    from pathlib import Path

    from ..readiness import UserStep, folder_rule, read_object, table
    from ..registry import MCP_SERVER_NAME

    qwen_dir = ctx.home / ".qwen"
    steps = []
    settings = read_object(qwen_dir / "settings.json", "jsonc")
    if table(table(settings.get("security")).get("folderTrust")).get("enabled") is True:
        folders = Path(ctx.env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or qwen_dir / "trustedFolders.json")  # fmt: skip
        level = folder_rule(read_object(folders, "jsonc"), ctx.repo)
        trusted = level in ("TRUST_FOLDER", "TRUST_PARENT")
        ignored = "folder trust is on and this folder is not trusted: Qwen Code ignores .qwen/settings.json here"  # fmt: skip
        detail = f"folder trusted ({ctx.shown(folders)})" if trusted else ignored
        fix = f'run `qwen` in {ctx.repo} and trust the folder, or add "{ctx.repo}": "TRUST_FOLDER" to {ctx.shown(folders)}'  # fmt: skip
        steps.append(UserStep("folder trust", trusted, detail, fix))
    approvals = Path(ctx.env.get("QWEN_CODE_MCP_APPROVALS_PATH") or qwen_dir / "mcpApprovals.json")  # fmt: skip
    entry = table(table(read_object(ctx.repo / ".qwen" / "settings.json", "jsonc").get("mcpServers")).get(MCP_SERVER_NAME))  # fmt: skip
    recorded = read_object(approvals)
    records = [table(table(recorded.get(key)).get(MCP_SERVER_NAME)) for key in ctx.path_keys()]
    fix = f"run `qwen mcp approve {MCP_SERVER_NAME}` in {ctx.repo} (or approve it when `qwen` asks)"
    if any(record.get("status") == "rejected" for record in records):
        detail = f"you rejected the project's teambrain MCP server ({ctx.shown(approvals)})"
        steps.append(UserStep("server approval", False, detail, fix))
    elif any(record.get("status") == "approved" and record.get("hash") == qwen_entry_hash(entry) for record in records):  # fmt: skip
        steps.append(UserStep("server approval", True, f"MCP server approved ({ctx.shown(approvals)})", fix))  # fmt: skip
    else:
        stale = any(record.get("status") == "approved" for record in records)
        detail = (
            "the teambrain entry changed since you approved it: Qwen Code asks again"
            if stale
            else "the project's teambrain MCP server waits for your approval (“Pending approval”)"
        )
        steps.append(UserStep("server approval", False, detail, fix))
    return steps


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
        name="qwen-code",
        title="Qwen Code",
        aliases=("qwen",),
        docs=(
            f"{_QWEN_DOCS}/features/mcp",
            f"{_QWEN_DOCS}/features/hooks",
            f"{_QWEN_DOCS}/configuration/trusted-folders",
        ),
        # No extra fields: Qwen Code binds a server approval to a hash of the whole entry.
        mcp=McpTarget(".qwen/settings.json", "jsonc", "mcpServers"),
        hooks=HookTarget(
            ".qwen/settings.json",
            "jsonc",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"),
            matchers={"PostToolUse": "*", "PostToolUseFailure": "*"},
            handler={"type": "command", "timeout": 10},  # seconds (values >= 1000 read as ms)
        ),
        notes=(
            'Qwen Code keeps a project\'s MCP servers "Pending approval" until you run `qwen mcp '
            "approve teambrain` in the repository (once per machine; again if the entry changes). "
            "If you turned on its folder trust, trust the folder too. It hides MCP tools behind "
            "tool_search by default; models find memory_context through it. Headless `qwen -p` "
            "sessions fire no SessionEnd."
        ),
        user_steps=_qwen_steps,
        presence=Presence(("qwen",), ("~/.qwen",)),
    )
