"""Gemini CLI: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md (mcpServers;
  avoid underscores in server names)
https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/index.md (hooks in
  settings.json, timeouts in milliseconds, dedup by name + command across layers)
https://github.com/google-gemini/gemini-cli/blob/main/docs/reference/configuration.md
  (settings.json is read with comments stripped: JSONC)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import Hook, claude_shaped, payload_text

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Gemini CLI hooks (``hooks`` in ``.gemini/settings.json``)."""
    hook = claude_shaped(payload, success_means_zero=False)
    hook.sid = hook.sid or env.get("GEMINI_SESSION_ID")
    hook.cwd = hook.cwd or env.get("GEMINI_PROJECT_DIR")
    request = payload.get("llm_request")
    if hook.model is None and isinstance(request, dict):
        hook.model = payload_text(request, "model")
    return hook


GEMINI_MCP_TIMEOUT_MS = 60000

_GEMINI_DOCS = "https://github.com/google-gemini/gemini-cli/blob/main/docs"


# packages/core/src/utils/trust.ts (0.61.0): GEMINI_RESTRICTED_MODE=true or
# GEMINI_CLI_TRUST_WORKSPACE=false → untrusted; GEMINI_CLI_TRUST_WORKSPACE=true → trusted;
# security.folderTrust.enabled false → the feature is off; else the longest rule in
# trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, or ~/.gemini/, with GEMINI_CLI_HOME in
# place of ~) containing the folder decides: TRUST_FOLDER, TRUST_PARENT (its parent) or
# DO_NOT_TRUST. Untrusted: project MCP servers and hooks are disabled.


def _gemini_steps(ctx: ToolContext) -> list[UserStep]:
    from pathlib import Path

    from ..readiness import UserStep, folder_rule, read_object, table

    fix_env = "unset GEMINI_CLI_TRUST_WORKSPACE and GEMINI_RESTRICTED_MODE"
    gemini_dir = Path(ctx.env.get("GEMINI_CLI_HOME") or ctx.home) / ".gemini"
    folders = Path(ctx.env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_dir / "trustedFolders.json")  # fmt: skip
    fix = f'run `gemini` in {ctx.repo} and choose “Trust folder”, or add "{ctx.repo}": "TRUST_FOLDER" to {ctx.shown(folders)}'  # fmt: skip
    if ctx.env.get("GEMINI_RESTRICTED_MODE") == "true" or ctx.env.get("GEMINI_CLI_TRUST_WORKSPACE") == "false":  # fmt: skip
        return [UserStep("folder trust", False, "your environment tells Gemini CLI to trust no folder", fix_env)]  # fmt: skip
    if ctx.env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true":
        return [UserStep("folder trust", True, "trusted by GEMINI_CLI_TRUST_WORKSPACE=true", fix)]
    enabled: object = None
    for settings in _gemini_settings_files(ctx, gemini_dir):  # lowest precedence first
        value = table(table(read_object(settings, "jsonc").get("security")).get("folderTrust")).get("enabled")  # fmt: skip
        enabled = value if isinstance(value, bool) else enabled
    if enabled is False:
        return [UserStep("folder trust", True, "folder trust is off (security.folderTrust.enabled: false)", fix)]  # fmt: skip
    level = folder_rule(read_object(folders, "jsonc"), ctx.repo)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return [UserStep("folder trust", True, f"folder trusted ({ctx.shown(folders)})", fix)]
    detail = (
        f"this folder is marked DO_NOT_TRUST in {ctx.shown(folders)}"
        if level == "DO_NOT_TRUST"
        else "Gemini CLI does not trust this folder"
    ) + ": it disables the project's MCP servers and hooks (`gemini mcp list`: teambrain Disabled)"
    return [UserStep("folder trust", False, detail, fix)]


def _gemini_settings_files(ctx: ToolContext, gemini_dir: Path) -> Iterator[Path]:
    import sys
    from pathlib import Path

    system = ctx.env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or {
        "darwin": "/Library/Application Support/GeminiCli/settings.json",
        "win32": "C:\\ProgramData\\gemini-cli\\settings.json",
    }.get(sys.platform, "/etc/gemini-cli/settings.json")
    yield Path(ctx.env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or Path(system).parent / "system-defaults.json")  # fmt: skip
    yield gemini_dir / "settings.json"
    yield Path(system)


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
        name="gemini-cli",
        title="Gemini CLI",
        aliases=("gemini",),
        docs=(
            f"{_GEMINI_DOCS}/tools/mcp-server.md",
            f"{_GEMINI_DOCS}/hooks/index.md",
            f"{_GEMINI_DOCS}/reference/configuration.md",
        ),
        # `timeout` bounds `gemini mcp list`'s connection test (5 s by default: a loaded machine
        # reported teambrain Disconnected) and each tool call (10 minutes by default).
        mcp=McpTarget(
            ".gemini/settings.json", "jsonc", "mcpServers", entry={"timeout": GEMINI_MCP_TIMEOUT_MS}
        ),
        hooks=HookTarget(
            ".gemini/settings.json",
            "jsonc",
            ("SessionStart", "BeforeAgent", "AfterTool", "SessionEnd"),
            matchers={"AfterTool": "*"},
            handler={"type": "command", "name": "teambrain-capture", "timeout": 10000},
        ),
        notes=(
            "Gemini CLI disables the project's MCP servers and hooks in a folder you have not "
            "trusted. It fingerprints project hooks and warns when they are new or changed. Hook "
            'payloads carry no model name, so events record model "unknown".'
        ),
        user_steps=_gemini_steps,
        presence=Presence(("gemini",), ("$GEMINI_CLI_HOME/.gemini", "~/.gemini")),
    )
