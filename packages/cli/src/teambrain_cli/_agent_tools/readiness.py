"""What an agent tool needs from its user before it loads teambrain, read from the tool's own files.

Claude Code, Codex CLI and Gemini CLI load nothing a repository configures — MCP servers, hooks —
until the user trusts the folder (and, for Claude Code's project MCP servers and Codex's hooks,
approves them too). ``tb install`` prints the steps still to take and ``tb doctor`` reports each
one; both read the same files the tool writes when the user answers its dialogs, following the
tool's own rules (cited per tool, as observed with the versions in docs/agents.md). Nothing here
writes to those files: trusting is the user's decision.

One function per tool in :data:`USER_STEPS`, keyed by adapter name; a tool without one needs no
user action (or none we can see).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .jsonc import JsoncError, loads as jsonc_loads
from .registry import HOOK_COMMAND, MCP_SERVER_NAME, resolve_adapter


@dataclass(frozen=True)
class UserStep:
    """One thing the user does once so the tool loads teambrain here."""

    name: str  # "folder trust", "server approval", ...
    done: bool
    detail: str  # what was found, or what the tool does until the step is taken
    fix: str  # the step itself, on one line


@dataclass(frozen=True)
class ToolContext:
    """Where a tool's files are: the repository, the user's home, the environment."""

    repo: Path
    home: Path
    env: Mapping[str, str]

    def path_keys(self, path: Path | None = None) -> list[str]:
        """``path`` (default: the repository) as given and resolved: tools key by either."""
        target = path or self.repo
        keys = [str(target)]
        resolved = str(target.resolve())
        return keys if resolved in keys else [*keys, resolved]

    def shown(self, path: Path) -> str:
        """``path`` for a message: ``~/…`` under the home, relative inside the repository."""
        if path.is_relative_to(self.repo):
            return path.relative_to(self.repo).as_posix()
        if path.is_relative_to(self.home):
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)


# ~/.claude.json keeps every project's history and grows to megabytes; no tool file is larger.
MAX_TOOL_FILE_BYTES = 64 * 1024 * 1024


def _read_object(path: Path, fmt: str = "json") -> dict[str, Any]:
    """A JSON, JSONC or TOML file's top-level object; empty when missing or unreadable (the tool
    itself reports a file it cannot parse)."""
    from teambrain_schema.local_files import read_local_bytes

    try:
        # Through links (dotfiles), but never a device or FIFO a committed link leads to
        # (/dev/zero would never end, a FIFO never answer), and bounded.
        text = read_local_bytes(os.path.realpath(path), max_bytes=MAX_TOOL_FILE_BYTES).decode()
        data = (
            tomllib.loads(text)
            if fmt == "toml"
            else jsonc_loads(text)
            if fmt == "jsonc"
            else json.loads(text)
        )
    except (OSError, ValueError, RecursionError, JsoncError, tomllib.TOMLDecodeError):
        return {}  # (UnicodeDecodeError is a ValueError; RecursionError: nested too deep)
    return data if isinstance(data, dict) else {}


def _table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


# Claude Code ------------------------------------------------------------------------------------
# Observed with 2.1.332 in a terminal: "Yes, I trust this folder" sets
# projects[<folder>].hasTrustDialogAccepted in ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json);
# until then `claude mcp list` shows the project's servers "Pending approval" whatever the
# settings say. "Use this MCP server" adds the name to enabledMcpjsonServers in
# .claude/settings.local.json ("Continue without", the default, to disabledMcpjsonServers). The
# binary also honours enableAllProjectMcpServers and these lists in the user and project
# settings, and the project's entry in ~/.claude.json.


def _claude_steps(ctx: ToolContext) -> list[UserStep]:
    config_dir = ctx.env.get("CLAUDE_CONFIG_DIR")
    state_file = Path(config_dir) / ".claude.json" if config_dir else ctx.home / ".claude.json"
    user_dir = Path(config_dir) if config_dir else ctx.home / ".claude"
    projects = _table(_read_object(state_file).get("projects"))
    entries = [_table(projects.get(key)) for key in ctx.path_keys()]
    trusted = any(entry.get("hasTrustDialogAccepted") is True for entry in entries)
    where = ctx.shown(state_file)
    steps = [
        UserStep(
            "folder trust",
            trusted,
            f"folder trusted ({where})"
            if trusted
            else "Claude Code loads this folder's .mcp.json and hooks only once you trust it",
            f"run `claude` in {ctx.repo} once and answer “Yes, I trust this folder”",
        )
    ]
    sources = [
        (ctx.shown(path), _read_object(path))
        for path in (
            user_dir / "settings.json",
            ctx.repo / ".claude" / "settings.json",
            ctx.repo / ".claude" / "settings.local.json",
        )
    ] + [(where, entry) for entry in entries]
    declined = [name for name, data in sources if MCP_SERVER_NAME in _names(data, "disabledMcpjsonServers")]  # fmt: skip
    approved = [
        name
        for name, data in sources
        if data.get("enableAllProjectMcpServers") is True
        or MCP_SERVER_NAME in _names(data, "enabledMcpjsonServers")
    ]
    fix = "run `claude` here and choose “Use this MCP server” for teambrain (its default is “Continue without”)"  # fmt: skip
    if declined:
        detail = f"you declined the project's teambrain MCP server (disabledMcpjsonServers in {declined[0]})"  # fmt: skip
        fix = f"remove teambrain from disabledMcpjsonServers in {declined[0]}, then choose “Use this MCP server” when `claude` asks"  # fmt: skip
    elif approved:
        detail = f"MCP server approved ({approved[0]})"
    else:
        detail = "the project's teambrain MCP server waits for your approval (“Pending approval”)"
    steps.append(UserStep("server approval", bool(approved) and not declined, detail, fix))
    return steps


def _names(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


# Codex CLI --------------------------------------------------------------------------------------
# codex-rs config loader (0.171.0): a project's .codex/ layer loads only when
# projects."<dir>".trust_level = "trusted" in $CODEX_HOME/config.toml, looked up for the folder,
# the project root and the repository root (the main checkout of a worktree). Hooks
# (codex-rs/hooks discovery): each handler is keyed "<source file>:<event_snake>:<group>:<index>"
# under [hooks.state] in the user config and runs only when its trusted_hash equals the sha256 of
# its normalised definition — Codex's version_for_toml: canonical JSON (sorted keys, compact) of
# {event_name, matcher?, hooks: [{type, command, timeout, async, statusMessage?}]}, None fields
# dropped, timeout defaulting to 600 s.
_CODEX_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})


def _snake(event: str) -> str:
    return "".join("_" + char.lower() if char.isupper() else char for char in event).lstrip("_")


def codex_hook_hash(event: str, matcher: str | None, handler: Mapping[str, Any]) -> str:
    """The trust hash Codex computes for one command hook of ``event``."""
    normalised: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, int(handler.get("timeout") or handler.get("timeoutSec") or 600)),
        "async": bool(handler.get("async", False)),
    }
    if isinstance(handler.get("statusMessage"), str):
        normalised["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [normalised]}
    if matcher is not None and event not in _CODEX_NO_MATCHER:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _codex_hook_source(repo: Path) -> tuple[Path, dict[str, Any]]:
    """The file holding the project's Codex hooks and its ``hooks`` table."""
    hooks_json = repo / ".codex" / "hooks.json"
    if hooks_json.is_file():
        return hooks_json, _table(_read_object(hooks_json).get("hooks"))
    config = repo / ".codex" / "config.toml"
    return config, _table(_read_object(config, "toml").get("hooks"))


def codex_hook_states(repo: Path) -> list[tuple[str, str]]:
    """``(key, trusted_hash)`` of every teambrain hook in ``repo``'s Codex config: what Codex's
    /hooks writes under ``[hooks.state."<key>"]`` when you trust them."""
    source, hooks = _codex_hook_source(repo)
    ours = f"{HOOK_COMMAND} codex"
    found = []
    for event, groups in hooks.items():
        if event == "state" or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = _table(group).get("hooks")
            for index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and handler.get("command") == ours:
                    matcher = _table(group).get("matcher")
                    key = f"{source}:{_snake(event)}:{group_index}:{index}"
                    found.append((key, codex_hook_hash(event, matcher if isinstance(matcher, str) else None, handler)))  # fmt: skip
    return found


def _main_checkout(repo: Path) -> Path | None:
    """For a linked worktree, the main checkout (where Codex also looks for trust)."""
    dot_git = repo / ".git"
    if not dot_git.is_file():
        return None
    try:
        line = dot_git.read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    git_dir = Path(line.removeprefix("gitdir:").strip())
    common = (repo / git_dir).resolve().parent.parent  # <main>/.git/worktrees/<name>
    return common.parent if common.name == ".git" else None


def _codex_steps(ctx: ToolContext) -> list[UserStep]:
    codex_home = Path(ctx.env["CODEX_HOME"]) if ctx.env.get("CODEX_HOME") else ctx.home / ".codex"
    user_config = codex_home / "config.toml"
    config = _read_object(user_config, "toml")
    projects = _table(config.get("projects"))
    main = _main_checkout(ctx.repo)
    keys = ctx.path_keys() + (ctx.path_keys(main) if main else [])
    level = next((_table(projects[k]).get("trust_level") for k in keys if k in projects), None)
    where = ctx.shown(user_config)
    if level == "trusted":
        detail = f"project trusted ({where})"
    elif level == "untrusted":
        detail = f"this project is marked untrusted in {where}: Codex ignores its .codex/ config"
    else:
        detail = "Codex loads this project's .codex/config.toml (the teambrain server and hooks) only in trusted projects"  # fmt: skip
    steps = [
        UserStep(
            "project trust",
            level == "trusted",
            detail,
            f'run `codex` in {ctx.repo} and trust the project, or set [projects."{ctx.repo}"] trust_level = "trusted" in {where}',
        )
    ]
    all_states = _table(_table(config.get("hooks")).get("state"))

    def state(key: str) -> dict[str, Any]:
        # Codex keys hooks by the path it read them from: this checkout, spelt as the user
        # started it or resolved, or for a linked worktree the main checkout's .codex/.
        spellings = [key.replace(str(ctx.repo), other, 1) for other in keys]
        return next((_table(all_states[k]) for k in spellings if k in all_states), {})

    expected = codex_hook_states(ctx.repo)
    untrusted = [k for k, h in expected if state(k).get("trusted_hash") != h]
    changed = [k for k in untrusted if state(k).get("trusted_hash")]
    disabled = [k for k, _ in expected if state(k).get("enabled") is False]
    if not expected:
        detail = "no teambrain hooks in .codex/ (run `tb install codex`)"
    elif disabled:
        detail = f"{len(disabled)} of the {len(expected)} teambrain hooks are turned off in /hooks"
    elif changed:
        detail = (
            f"{len(changed)} teambrain hook(s) changed since you trusted them: Codex skips them"
        )
    elif untrusted:
        detail = f"Codex runs new hooks only once you trust them: {len(untrusted)} of {len(expected)} teambrain hooks are not trusted, so nothing is recorded"  # fmt: skip
    else:
        detail = f"{len(expected)} teambrain hooks trusted ({where})"
    steps.append(
        UserStep(
            "hook trust",
            bool(expected) and not untrusted and not disabled,
            detail,
            f"in `codex`, open /hooks and trust (and enable) the {len(expected) or 3} `{HOOK_COMMAND} codex` hooks",
        )
    )
    return steps


# Gemini CLI -------------------------------------------------------------------------------------
# packages/core/src/utils/trust.ts (0.61.0): GEMINI_RESTRICTED_MODE=true or
# GEMINI_CLI_TRUST_WORKSPACE=false → untrusted; GEMINI_CLI_TRUST_WORKSPACE=true → trusted;
# security.folderTrust.enabled false → the feature is off; else the longest rule in
# trustedFolders.json ($GEMINI_CLI_TRUSTED_FOLDERS_PATH, or ~/.gemini/, with GEMINI_CLI_HOME in
# place of ~) containing the folder decides: TRUST_FOLDER, TRUST_PARENT (its parent) or
# DO_NOT_TRUST. Untrusted: project MCP servers and hooks are disabled.


def _gemini_folder_rule(rules: Mapping[str, Any], folder: Path) -> str | None:
    real = folder.resolve()
    best: tuple[int, str] | None = None
    for rule, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        base = Path(rule).expanduser()
        base = (base.parent if level == "TRUST_PARENT" else base).resolve()
        if (real == base or real.is_relative_to(base)) and (best is None or len(rule) > best[0]):
            best = (len(rule), level)
    return best[1] if best else None


def _gemini_steps(ctx: ToolContext) -> list[UserStep]:
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
        value = _table(_table(_read_object(settings, "jsonc").get("security")).get("folderTrust")).get("enabled")  # fmt: skip
        enabled = value if isinstance(value, bool) else enabled
    if enabled is False:
        return [UserStep("folder trust", True, "folder trust is off (security.folderTrust.enabled: false)", fix)]  # fmt: skip
    level = _gemini_folder_rule(_read_object(folders, "jsonc"), ctx.repo)
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return [UserStep("folder trust", True, f"folder trusted ({ctx.shown(folders)})", fix)]
    detail = (
        f"this folder is marked DO_NOT_TRUST in {ctx.shown(folders)}"
        if level == "DO_NOT_TRUST"
        else "Gemini CLI does not trust this folder"
    ) + ": it disables the project's MCP servers and hooks (`gemini mcp list`: teambrain Disabled)"
    return [UserStep("folder trust", False, detail, fix)]


def _gemini_settings_files(ctx: ToolContext, gemini_dir: Path) -> Iterator[Path]:
    system = ctx.env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or {
        "darwin": "/Library/Application Support/GeminiCli/settings.json",
        "win32": "C:\\ProgramData\\gemini-cli\\settings.json",
    }.get(sys.platform, "/etc/gemini-cli/settings.json")
    yield Path(ctx.env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or Path(system).parent / "system-defaults.json")  # fmt: skip
    yield gemini_dir / "settings.json"
    yield Path(system)


# Qwen Code --------------------------------------------------------------------------------------
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
    kept = {key: value for key, value in entry.items() if key not in ("scope", "extensionName", "description")}  # fmt: skip
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _qwen_steps(ctx: ToolContext) -> list[UserStep]:
    qwen_dir = ctx.home / ".qwen"
    steps = []
    settings = _read_object(qwen_dir / "settings.json", "jsonc")
    if _table(_table(settings.get("security")).get("folderTrust")).get("enabled") is True:
        folders = Path(ctx.env.get("QWEN_CODE_TRUSTED_FOLDERS_PATH") or qwen_dir / "trustedFolders.json")  # fmt: skip
        level = _gemini_folder_rule(_read_object(folders, "jsonc"), ctx.repo)
        trusted = level in ("TRUST_FOLDER", "TRUST_PARENT")
        ignored = "folder trust is on and this folder is not trusted: Qwen Code ignores .qwen/settings.json here"  # fmt: skip
        detail = f"folder trusted ({ctx.shown(folders)})" if trusted else ignored
        fix = f'run `qwen` in {ctx.repo} and trust the folder, or add "{ctx.repo}": "TRUST_FOLDER" to {ctx.shown(folders)}'  # fmt: skip
        steps.append(UserStep("folder trust", trusted, detail, fix))
    approvals = Path(ctx.env.get("QWEN_CODE_MCP_APPROVALS_PATH") or qwen_dir / "mcpApprovals.json")  # fmt: skip
    entry = _table(_table(_read_object(ctx.repo / ".qwen" / "settings.json", "jsonc").get("mcpServers")).get(MCP_SERVER_NAME))  # fmt: skip
    recorded = _read_object(approvals)
    records = [_table(_table(recorded.get(key)).get(MCP_SERVER_NAME)) for key in ctx.path_keys()]
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


# GitHub Copilot CLI ------------------------------------------------------------------------------
# Observed with 1.0.102: the repository's MCP servers (.mcp.json, .github/mcp.json) and hooks
# (.github/hooks/*.json) load only in a trusted folder: its path, or a parent's, in the
# `trustedFolders` list (older: `trusted_folders`) of ~/.copilot/config.json ($COPILOT_HOME), a
# JSONC file the CLI manages. COPILOT_ALLOW_ALL=true trusts the working folder.


def _copilot_cli_steps(ctx: ToolContext) -> list[UserStep]:
    config = Path(ctx.env.get("COPILOT_HOME") or ctx.home / ".copilot") / "config.json"
    fix = f"run `copilot` in {ctx.repo} once and choose to trust the folder"
    if ctx.env.get("COPILOT_ALLOW_ALL") == "true":
        return [UserStep("folder trust", True, "trusted by COPILOT_ALLOW_ALL=true", fix)]
    data = _read_object(config, "jsonc")
    folders = [*_names(data, "trustedFolders"), *_names(data, "trusted_folders")]
    real = ctx.repo.resolve()
    bases = [Path(folder).expanduser().resolve() for folder in folders if folder]
    trusted = any(real == base or real.is_relative_to(base) for base in bases)
    detail = (
        f"folder trusted ({ctx.shown(config)})"
        if trusted
        else "Copilot CLI loads this folder's MCP servers and hooks only once you trust it"
    )
    return [UserStep("folder trust", trusted, detail, fix)]


# Auggie -----------------------------------------------------------------------------------------
# Observed with 0.36.0: MCP servers start with only HOME, LOGNAME, PATH, SHELL, TERM and USER from
# the session's environment, plus the entry's own `env` (not expanded). A TEAMBRAIN_HOME set for the
# session reaches the hooks but not `tb serve`, which would then record into ~/.teambrain.


def _auggie_steps(ctx: ToolContext) -> list[UserStep]:
    wanted = ctx.env.get("TEAMBRAIN_HOME")
    if not wanted or Path(wanted).expanduser().resolve() == (ctx.home / ".teambrain").resolve():
        return []
    local = ctx.repo / ".augment" / "settings.local.json"
    sources = (local, ctx.home / ".augment" / "settings.json")
    for source in sources:
        entry = _table(_table(_read_object(source, "jsonc").get("mcpServers")).get(MCP_SERVER_NAME))
        if _table(entry.get("env")).get("TEAMBRAIN_HOME") == wanted:
            return [UserStep("server environment", True, f"tb serve gets TEAMBRAIN_HOME ({ctx.shown(source)})", "")]  # fmt: skip
    entry = {"type": "stdio", "command": "tb", "args": ["serve"], "env": {"TEAMBRAIN_HOME": wanted}}
    detail = "Auggie starts MCP servers without your TEAMBRAIN_HOME: tb serve would record into ~/.teambrain"  # fmt: skip
    fix = f'set "mcpServers": {{"teambrain": {json.dumps(entry)}}} in {ctx.shown(local)} (not committed)'  # fmt: skip
    return [UserStep("server environment", False, detail, fix)]


USER_STEPS: dict[str, Callable[[ToolContext], list[UserStep]]] = {
    "claude-code": _claude_steps,
    "codex": _codex_steps,
    "gemini-cli": _gemini_steps,
    "qwen-code": _qwen_steps,
    "copilot-cli": _copilot_cli_steps,
    "auggie": _auggie_steps,
}


def user_steps(
    tool: str, repo: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[UserStep]:
    """The one-time user actions ``tool`` needs before it loads teambrain in ``repo``, each
    marked done or not by reading the tool's own files. Empty for tools that need none."""
    check = USER_STEPS.get(resolve_adapter(tool).name)
    if check is None:
        return []
    context = ToolContext(repo, home or Path.home(), os.environ if env is None else env)
    return check(context)
