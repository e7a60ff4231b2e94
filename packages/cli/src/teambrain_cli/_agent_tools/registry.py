"""The adapter registry: every agent tool teambrain can be wired into, and how.

A plain dict filled by :func:`register_adapter`, one place to look. ``adapters.yaml`` (at the
repository top level, and shipped in this package) describes the same adapters for people to
review; :func:`check_adapters` proves the two say the same thing (``tb lint``, ``tb doctor`` and a
test run it), and that every adapter with hooks has a payload normaliser for ``tb-capture``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from teambrain_capture import NORMALISERS
from teambrain_schema import UserError

ConfigFormat = Literal["json", "jsonc", "toml", "yaml"]
HandlerValue = str | int | bool
EntryValue = str | int | bool | list[str]
MCP_SERVER_NAME = "teambrain"
MCP_COMMAND = "tb"
MCP_ARGS = ("serve",)
HOOK_COMMAND = "tb-capture"
ADAPTERS_FILE_NAME = "adapters.yaml"
CODEX_STARTUP_GRACE_MS = 10000  # Codex's own default startup_timeout_sec
GEMINI_MCP_TIMEOUT_MS = 60000
MCP_REQUEST_TIMEOUT_MS = 60000  # opencode, Kilo Code: 5 s by default


@dataclass(frozen=True)
class McpTarget:
    """Where and how a tool registers MCP servers."""

    path: str  # relative to the repository, or ~/… for user-level files
    format: ConfigFormat
    key: str  # dotted path of the table of servers
    scope: Literal["project", "user"] = "project"
    entry_type: str | None = None  # the entry's `type` field, where the tool wants one
    entry: dict[str, EntryValue] = field(default_factory=dict)  # more fields of our entry
    file_defaults: dict[str, HandlerValue] = field(default_factory=dict)  # top-level keys
    servers: Literal["map", "list"] = "map"  # list: entries with a `name` field (Continue)
    command_style: Literal["split", "array"] = "split"  # array: one `command` list (opencode)
    alternate_path: str | None = None  # used instead of `path` when it already exists


@dataclass(frozen=True)
class HookTarget:
    """Where and how a tool runs hook commands."""

    path: str  # the config file, or for the script shape the folder of hook scripts
    format: ConfigFormat | Literal["script"]
    events: tuple[str, ...]
    shape: Literal["grouped", "flat", "script", "plugin"] = "grouped"
    matchers: dict[str, str] = field(default_factory=dict)
    handler: dict[str, HandlerValue] = field(default_factory=dict)
    file_defaults: dict[str, HandlerValue] = field(default_factory=dict)
    alternate_path: str | None = None


@dataclass(frozen=True)
class Adapter:
    """One supported agent tool."""

    name: str
    title: str
    docs: tuple[str, ...]
    mcp: McpTarget
    hooks: HookTarget | None = None
    aliases: tuple[str, ...] = ()

    @property
    def hook_command(self) -> str:
        """The command ``tb install`` writes into the tool's hook config."""
        return f"{HOOK_COMMAND} {self.name}"

    def mcp_entry(self) -> dict[str, Any]:
        """The ``teambrain`` server entry for this tool's MCP config."""
        entry: dict[str, Any] = {"name": MCP_SERVER_NAME} if self.mcp.servers == "list" else {}
        if self.mcp.entry_type:
            entry["type"] = self.mcp.entry_type
        if self.mcp.command_style == "array":
            return {**entry, "command": [MCP_COMMAND, *MCP_ARGS], **self.mcp.entry}
        return {**entry, "command": MCP_COMMAND, "args": list(MCP_ARGS), **self.mcp.entry}

    def hook_handler(self) -> dict[str, Any]:
        """One hook handler for this tool (``command`` first, as people write it)."""
        assert self.hooks is not None
        handler = dict(self.hooks.handler)
        kind = handler.pop("type", None)
        return {
            **({"type": kind} if kind is not None else {}),
            "command": self.hook_command,
            **handler,
        }

    def as_spec(self) -> dict[str, Any]:
        """This adapter in the shape of ``adapters.yaml`` (``AdapterSpec`` fields, no notes)."""
        spec: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "aliases": list(self.aliases),
            "docs": list(self.docs),
            "mcp": {
                "path": self.mcp.path,
                "format": self.mcp.format,
                "key": self.mcp.key,
                "scope": self.mcp.scope,
                "entry_type": self.mcp.entry_type,
                "entry": dict(self.mcp.entry),
                "file_defaults": dict(self.mcp.file_defaults),
                "servers": self.mcp.servers,
                "command_style": self.mcp.command_style,
                "alternate_path": self.mcp.alternate_path,
            },
            "hooks": None,
        }
        if self.hooks is not None:
            spec["hooks"] = {
                "path": self.hooks.path,
                "format": self.hooks.format,
                "events": list(self.hooks.events),
                "shape": self.hooks.shape,
                "matchers": dict(self.hooks.matchers),
                "handler": dict(self.hooks.handler),
                "file_defaults": dict(self.hooks.file_defaults),
                "alternate_path": self.hooks.alternate_path,
            }
        return spec


ADAPTERS: dict[str, Adapter] = {}


def register_adapter(adapter: Adapter) -> Adapter:
    """Add ``adapter`` to the registry (its name and aliases must be new)."""
    taken = {name for known in ADAPTERS.values() for name in (known.name, *known.aliases)}
    clashes = sorted(taken & {adapter.name, *adapter.aliases})
    if clashes:
        raise ValueError(f"adapter name already registered: {', '.join(clashes)}")
    ADAPTERS[adapter.name] = adapter
    return adapter


def supported_tools() -> list[str]:
    """The names ``tb install`` accepts (aliases not included), sorted: the built-in tools and
    those installed packages add."""
    return sorted({*ADAPTERS, *plugin_adapters()})


def plugin_adapters() -> dict[str, Adapter]:
    """Adapters other installed packages provide (entry point group ``teambrain.adapters``:
    an :class:`Adapter`, or a callable returning one). Kept apart from :data:`ADAPTERS`, which
    adapters.yaml describes; a plugin that fails to load (raises, exits, does not finish within
    the load bound), is not an adapter or takes a built-in's name is left out, and
    :func:`plugin_adapter_problems` says why."""
    return _load_plugin_adapters()[0]


def plugin_adapter_problems() -> list[tuple[str, str]]:
    """(entry point name, one line) for each adapter plugin left out, sorted by name."""
    return _load_plugin_adapters()[1]


def plugin_adapters_loaded() -> bool:
    """Whether this process has looked at the adapter plugins yet."""
    return _load_plugin_adapters.cache_info().currsize > 0


@functools.cache
def _load_plugin_adapters() -> tuple[dict[str, Adapter], list[tuple[str, str]]]:
    # Once per process: a plugin that hangs costs its load bound once, not per lookup.
    from teambrain_schema.plugins import (
        ADAPTERS_GROUP,
        PluginProblem,
        load_plugin,
        plugin_call,
        plugin_names,
    )

    found: dict[str, Adapter] = {}
    problems: list[tuple[str, str]] = []
    taken = {name for known in ADAPTERS.values() for name in (known.name, *known.aliases)}
    for name in plugin_names(ADAPTERS_GROUP):
        label = f"{ADAPTERS_GROUP} plugin {name!r}"
        try:
            loaded = load_plugin(ADAPTERS_GROUP, name)
            adapter = (
                plugin_call(label, loaded, bounded=True)
                if callable(loaded) and not isinstance(loaded, Adapter)
                else loaded
            )
        except PluginProblem as exc:
            problems.append((name, exc.message))
            continue
        if not isinstance(adapter, Adapter):
            problems.append((name, f"{label} gave {type(adapter).__name__}, not an Adapter"))
        elif adapter.name in taken or adapter.name in found:
            problems.append((name, f"{label} takes the name {adapter.name!r}, already in use"))
        else:
            found[adapter.name] = adapter
    return found, problems


def resolve_adapter(name: str) -> Adapter:
    """The adapter called ``name`` (or one of its aliases); :class:`UserError` (exit 1) listing
    the supported tools otherwise."""
    wanted = name.strip().lower()
    for adapter in ADAPTERS.values():
        if wanted == adapter.name or wanted in adapter.aliases:
            return adapter
    for adapter in plugin_adapters().values():  # read installed packages only when needed
        if wanted == adapter.name or wanted in adapter.aliases:
            return adapter
    import difflib

    names = supported_tools()
    aliases = [alias for adapter in ADAPTERS.values() for alias in adapter.aliases]
    close = difflib.get_close_matches(wanted, [*names, *aliases], n=1, cutoff=0.6)
    hint = f" (did you mean {resolve_adapter(close[0]).name!r}?)" if close else ""
    raise UserError(f"unknown tool {name!r}{hint}; supported: {', '.join(names)}")


_CLAUDE_DOCS = "https://code.claude.com/docs/en"
register_adapter(
    Adapter(
        name="claude-code",
        title="Claude Code",
        aliases=("claude",),
        docs=(f"{_CLAUDE_DOCS}/mcp", f"{_CLAUDE_DOCS}/hooks", f"{_CLAUDE_DOCS}/settings"),
        mcp=McpTarget(".mcp.json", "json", "mcpServers", entry_type="stdio"),
        hooks=HookTarget(
            ".claude/settings.json",
            "json",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "SessionEnd"),
            matchers={"PostToolUse": "*", "PostToolUseFailure": "*"},
            handler={"type": "command", "timeout": 10},
        ),
    )
)
register_adapter(
    Adapter(
        name="cursor",
        title="Cursor",
        docs=(
            "https://cursor.com/docs/mcp",
            "https://cursor.com/docs/hooks",
            "https://cursor.com/docs/reference/third-party-hooks",
        ),
        mcp=McpTarget(".cursor/mcp.json", "json", "mcpServers", entry_type="stdio"),
        hooks=HookTarget(
            ".cursor/hooks.json",
            "json",
            ("sessionStart", "beforeSubmitPrompt", "postToolUse", "sessionEnd"),
            shape="flat",
            handler={"timeout": 10},
            file_defaults={"version": 1},
        ),
    )
)
_CODEX_DOCS = "https://developers.openai.com/codex"
register_adapter(
    Adapter(
        name="codex",
        title="Codex CLI",
        docs=(f"{_CODEX_DOCS}/mcp", f"{_CODEX_DOCS}/hooks", f"{_CODEX_DOCS}/config-reference"),
        mcp=McpTarget(
            ".codex/config.toml",
            "toml",
            "mcp_servers",
            # Codex starts MCP servers with a scrubbed environment: without this the server
            # would write to ~/.teambrain while the hooks write to $TEAMBRAIN_HOME.
            entry={"env_vars": ["TEAMBRAIN_HOME"]},
            # Optional servers still starting after this grace are left out of the session's
            # first turn (default 1000 ms); see docs/cli/install.md for why not `required`.
            file_defaults={"mcp_optional_startup_grace_ms": CODEX_STARTUP_GRACE_MS},
        ),
        hooks=HookTarget(
            ".codex/config.toml",
            "toml",
            ("SessionStart", "UserPromptSubmit", "PostToolUse"),
            handler={"type": "command", "timeout": 10},
            alternate_path=".codex/hooks.json",
        ),
    )
)
_GEMINI_DOCS = "https://github.com/google-gemini/gemini-cli/blob/main/docs"
register_adapter(
    Adapter(
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
    )
)
_VSCODE_DOCS = "https://code.visualstudio.com/docs"
register_adapter(
    Adapter(
        name="vscode",
        title="VS Code (Copilot agent mode)",
        aliases=("copilot",),
        docs=(
            f"{_VSCODE_DOCS}/agents/reference/mcp-configuration",
            f"{_VSCODE_DOCS}/agent-customization/hooks",
            f"{_VSCODE_DOCS}/agents/reference/hooks-reference",
        ),
        mcp=McpTarget(".vscode/mcp.json", "jsonc", "servers", entry_type="stdio"),
        hooks=HookTarget(
            ".github/hooks/teambrain.json",
            "jsonc",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"),
            shape="flat",
            handler={"type": "command", "timeout": 10},
        ),
    )
)
register_adapter(
    Adapter(
        name="windsurf",
        title="Windsurf (Cascade)",
        docs=(
            "https://docs.windsurf.com/windsurf/cascade/mcp",
            "https://docs.windsurf.com/windsurf/cascade/hooks",
        ),
        mcp=McpTarget("~/.codeium/windsurf/mcp_config.json", "json", "mcpServers", scope="user"),
        hooks=HookTarget(
            ".windsurf/hooks.json",
            "json",
            ("pre_user_prompt", "post_read_code", "post_write_code", "post_run_command"),
            shape="flat",
            handler={"show_output": False},
        ),
    )
)
register_adapter(
    Adapter(
        name="kiro",
        title="Kiro",
        docs=("https://kiro.dev/docs/mcp/configuration",),
        mcp=McpTarget(".kiro/settings/mcp.json", "json", "mcpServers"),
    )
)

_QWEN_DOCS = "https://qwenlm.github.io/qwen-code-docs/en/users"
register_adapter(
    Adapter(
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
    )
)
_COPILOT_CLI_DOCS = "https://docs.github.com/en/copilot"
register_adapter(
    Adapter(
        name="copilot-cli",
        title="GitHub Copilot CLI",
        aliases=("github-copilot-cli",),
        docs=(
            f"{_COPILOT_CLI_DOCS}/how-tos/copilot-cli/set-up-copilot-cli/configure-copilot-cli",
            f"{_COPILOT_CLI_DOCS}/reference/copilot-cli-reference/cli-hooks-reference",
        ),
        mcp=McpTarget(
            ".github/mcp.json", "json", "mcpServers", entry_type="local", entry={"tools": ["*"]}
        ),
        # Copilot CLI runs every .github/hooks/*.json (VS Code's file too, and VS Code this one):
        # each `tb-capture` drops the other tool's payloads. PascalCase event names get
        # Claude-compatible payloads (hook_event_name, session_id).
        hooks=HookTarget(
            ".github/hooks/teambrain-copilot-cli.json",
            "json",
            ("SessionStart", "UserPromptSubmit", "PostToolUse", "SessionEnd"),
            shape="flat",
            handler={"type": "command", "timeoutSec": 10},
            file_defaults={"version": 1},
        ),
    )
)

register_adapter(
    Adapter(
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
    )
)
register_adapter(
    Adapter(
        name="cline",
        title="Cline",
        docs=(
            "https://docs.cline.bot/mcp/configuring-mcp-servers",
            "https://docs.cline.bot/customization/hooks",
        ),
        # Cline reads MCP servers only per user, so that opening a repository cannot start one.
        mcp=McpTarget(
            "~/.cline/data/settings/cline_mcp_settings.json", "json", "mcpServers", scope="user"
        ),
        hooks=HookTarget(
            ".clinerules/hooks",
            "script",
            ("TaskStart", "UserPromptSubmit", "PostToolUse", "TaskComplete", "TaskCancel"),
            shape="script",
        ),
    )
)
_FACTORY_DOCS = "https://docs.factory.ai"
register_adapter(
    Adapter(
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
    )
)
register_adapter(
    Adapter(
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
    )
)
register_adapter(
    Adapter(
        name="crush",
        title="Crush",
        docs=("https://github.com/charmbracelet/crush#configuration",),
        mcp=McpTarget(".crush.json", "json", "mcp", entry_type="stdio"),
    )
)


def _opencode_like(config: str, plugin_folder: str) -> tuple[McpTarget, HookTarget]:
    """opencode's wiring, which its fork Kilo Code shares: `mcp` entries with one command list
    (`timeout` bounds each MCP request, 5 s by default, and the first may build the index), and,
    having no command hooks, a plugin (shipped in this package) that hands events to tb-capture."""
    mcp = McpTarget(
        f"{config}.json",
        "jsonc",
        "mcp",
        entry_type="local",
        command_style="array",
        entry={"enabled": True, "timeout": MCP_REQUEST_TIMEOUT_MS},
        alternate_path=f"{config}.jsonc",
    )
    hooks = HookTarget(
        f"{plugin_folder}/plugins/teambrain.js",
        "script",
        ("session.created", "chat.message", "tool.execute.after", "session.deleted"),
        shape="plugin",
    )
    return mcp, hooks


_OPENCODE_MCP, _OPENCODE_HOOKS = _opencode_like("opencode", ".opencode")
register_adapter(
    Adapter(
        name="opencode",
        title="opencode",
        docs=("https://opencode.ai/docs/mcp-servers", "https://opencode.ai/docs/plugins"),
        mcp=_OPENCODE_MCP,
        hooks=_OPENCODE_HOOKS,
    )
)
_KILO_MCP, _KILO_HOOKS = _opencode_like("kilo", ".kilo")  # it reads opencode.json too
register_adapter(
    Adapter(
        name="kilocode",
        title="Kilo Code CLI",
        aliases=("kilo",),
        docs=(
            "https://kilo.ai/docs/cli",
            "https://kilo.ai/docs/features/mcp/using-mcp-in-kilo-code",
        ),
        mcp=_KILO_MCP,
        hooks=_KILO_HOOKS,
    )
)
register_adapter(
    Adapter(
        name="zed",
        title="Zed",
        docs=("https://zed.dev/docs/ai/mcp", "https://zed.dev/docs/worktree-trust"),
        mcp=McpTarget(".zed/settings.json", "jsonc", "context_servers"),
    )
)
register_adapter(
    Adapter(
        name="junie",
        title="JetBrains Junie",
        aliases=("jetbrains",),
        docs=(
            "https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html",
            "https://www.jetbrains.com/help/ai-assistant/mcp.html",
        ),
        mcp=McpTarget(".junie/mcp/mcp.json", "json", "mcpServers"),
    )
)


@dataclass(frozen=True)
class AdapterProblem:
    """One way ``adapters.yaml`` and the code registry disagree (``line`` 1-based in the file)."""

    message: str
    line: int = 1
    adapter: str | None = None


def bundled_adapters_file() -> Path:
    """The copy of ``adapters.yaml`` installed with this package."""
    return Path(str(resources.files("teambrain_cli") / ADAPTERS_FILE_NAME))


def _line_of(text: str, name: str) -> int:
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip().removeprefix("- ").strip()
        if stripped in (f"name: {name}", f'name: "{name}"', f"name: '{name}'"):
            return number
    return 1


def _differences(prefix: str, ours: Any, theirs: Any) -> list[str]:
    if isinstance(ours, dict) and isinstance(theirs, dict) and prefix.count(".") < 2:
        found = []
        for key in sorted(set(ours) | set(theirs)):
            found += _differences(f"{prefix}.{key}", ours.get(key), theirs.get(key))
        return found
    return (
        []
        if ours == theirs
        else [f"{prefix}: adapters.yaml has {theirs!r}, the code registry {ours!r}"]
    )


def check_adapters(path: Path | None = None) -> list[AdapterProblem]:
    """Every disagreement between ``adapters.yaml`` at ``path`` (default: the bundled copy) and
    the code registry, plus adapters whose hooks ``tb-capture`` cannot read. Empty when all is
    well. A file that does not validate is one problem naming its line."""
    from teambrain_schema import AdaptersFile
    from teambrain_schema.brain import ConfigProblem, load_config_file

    target = path or bundled_adapters_file()
    problems: list[AdapterProblem] = []
    try:
        text = target.read_text("utf-8")
        loaded = load_config_file(AdaptersFile, target, target.parent)
    except OSError as exc:
        return [AdapterProblem(f"cannot read {target}: {exc.strerror or exc}")]
    except ConfigProblem as exc:
        return [AdapterProblem(exc.detail, exc.line)]
    described = {spec.name: spec for spec in loaded.adapters}
    for name in sorted(set(ADAPTERS) - set(described)):
        problems.append(
            AdapterProblem(f"adapter {name!r} is registered in code but missing here", 1, name)
        )
    for name in sorted(set(described) - set(ADAPTERS)):
        problems.append(
            AdapterProblem(
                f"adapter {name!r} is not in the code registry", _line_of(text, name), name
            )
        )
    for name in sorted(set(described) & set(ADAPTERS)):
        theirs = described[name].model_dump(exclude={"notes"})
        for difference in _differences(name, ADAPTERS[name].as_spec(), theirs):
            problems.append(AdapterProblem(difference, _line_of(text, name), name))
    for name, adapter in sorted(ADAPTERS.items()):
        if adapter.hooks is not None and name not in NORMALISERS:
            problems.append(
                AdapterProblem(
                    f"adapter {name!r} has hooks but tb-capture cannot read them", 1, name
                )
            )
    return problems
