"""The adapter registry: every agent tool teambrain can be wired into, and how.

Each built-in tool is one module of :mod:`.tools`: ``adapter()`` builds its :class:`Adapter`
(where it registers MCP servers, how it runs hooks, its notes, and the one-time steps it waits
for from its user) and, for a tool with hooks, ``read_hook`` reads its hook payloads in
``tb-capture``. The module is declared as a ``teambrain.adapters`` entry point in this package's
pyproject.toml — the same mechanism another package uses to add a tool (:func:`plugin_adapters`),
and the one ``tb-capture`` finds the reader by (``teambrain_capture.hook_module``). :data:`ADAPTERS` holds the
built-in ones, by name. ``adapters.yaml`` (shipped in this package; the repository's top-level
file links to it) is generated from them for people to review (:mod:`.adapters_yaml`,
``make adapters``); :func:`check_adapters` proves the file and the registry say the same thing
(``tb lint``, ``tb doctor`` and a test run it), and that every adapter with hooks has a payload
reader ``tb-capture`` finds, the way it finds it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from teambrain_schema import UserError

if TYPE_CHECKING:
    from .readiness import ToolContext, UserStep  # types only; readiness imports no registry

ConfigFormat = Literal["json", "jsonc", "toml", "yaml"]
HandlerValue = str | int | bool
EntryValue = str | int | bool | list[str]
MCP_SERVER_NAME = "teambrain"
MCP_COMMAND = "tb"
MCP_ARGS = ("serve",)
HOOK_COMMAND = "tb-capture"
ADAPTERS_FILE_NAME = "adapters.yaml"
DISTRIBUTION = "teambrain-cli"  # whose teambrain.adapters entry points are the built-in tools


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
class Presence:
    """How to tell a tool is installed on this machine: its commands on PATH, or the files it
    keeps in the user's home (``~/…``; ``$VAR`` or ``$VAR/…`` under a folder the environment
    names, skipped when unset). Only the one-time steps of a tool found here keep ``tb doctor``
    from saying ready: the others are to take inside the tool, once it is used here."""

    commands: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Adapter:
    """One supported agent tool."""

    name: str
    title: str
    docs: tuple[str, ...]
    mcp: McpTarget
    hooks: HookTarget | None = None
    aliases: tuple[str, ...] = ()
    notes: str = ""  # what a user should know (adapters.yaml's `notes`)
    # The one-time steps the tool waits for from its user before it loads the wiring (trust,
    # approval), read from the tool's own files; None when there are none.
    user_steps: Callable[[ToolContext], list[UserStep]] | None = field(default=None, compare=False)
    # How tb doctor tells the tool is installed here (None: it cannot, and assumes it is).
    presence: Presence | None = field(default=None, compare=False)
    # For the docs' generated tables (`make adapters`), not adapters.yaml: one more sentence for
    # the row of docs/cli/install.md, and why the real-agent suite (tests-integration/agents/)
    # does not drive the tool ("" when it does: then the suite has a CLI entry for it).
    summary: str = field(default="", compare=False)
    not_driven: str = field(default="", compare=False)

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
        """This adapter in the shape of ``adapters.yaml`` (``AdapterSpec`` fields)."""
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
            "notes": self.notes or None,
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


def plugin_distribution(name: str) -> str | None:
    """The installed package (distribution name) whose ``teambrain.adapters`` entry point
    ``name`` (or the one that gave adapter ``name``) is the plugin in use (the first found, as :func:`plugin_adapters` takes it), or
    None. Read only when something about the plugin must be reported."""
    from importlib.metadata import entry_points

    from teambrain_kit.plugins import ADAPTERS_GROUP, OWN_DISTRIBUTIONS

    name = PLUGIN_ENTRY_POINTS.get(name, name)
    for entry in entry_points(group=ADAPTERS_GROUP):
        distribution = getattr(entry.dist, "name", None)
        own = (distribution or "").replace("_", "-").lower() in OWN_DISTRIBUTIONS
        if entry.name == name and distribution and not own:
            return str(distribution)
    return None


def plugin_adapters_loaded() -> bool:
    """Whether this process has looked at the adapter plugins yet."""
    return _load_plugin_adapters.cache_info().currsize > 0


@functools.cache
def _load_plugin_adapters() -> tuple[dict[str, Adapter], list[tuple[str, str]]]:
    # Once per process: a plugin that hangs costs its load bound once, not per lookup.
    from teambrain_kit.plugins import (
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
            PLUGIN_ENTRY_POINTS[adapter.name] = name
    return found, problems


# A plugin adapter's name -> the entry point that gave it (tb-capture finds a tool's hook reader
# by an entry point of the tool's own name, so the two should agree).
PLUGIN_ENTRY_POINTS: dict[str, str] = {}


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
        theirs = described[name].model_dump()
        for difference in _differences(name, ADAPTERS[name].as_spec(), theirs):
            problems.append(AdapterProblem(difference, _line_of(text, name), name))
    problems += [
        AdapterProblem(problem, 1, name)
        for name, adapter in sorted(ADAPTERS.items())
        if (problem := hook_reader_problem(adapter))
    ]
    return problems


def hook_reader_problem(adapter: Adapter) -> str | None:
    """Why ``tb-capture <tool>`` would not read this adapter's hooks as it should (found the way
    the hook finds it: the tool's entry point, its module's ``read_hook``), or None."""
    from teambrain_capture import hook_module

    try:
        module_name: str | None = hook_module(adapter.name).__name__
    except LookupError as exc:
        if adapter.hooks is None:
            return None
        return f"adapter {adapter.name!r} has hooks but tb-capture cannot read them: {exc}"
    except Exception as exc:  # importing someone's module
        return f"adapter {adapter.name!r}: tb-capture cannot import its module: {exc}"
    if adapter.hooks is None:
        return (
            f"adapter {adapter.name!r} has no hooks, but its module {module_name} reads hook "
            "payloads (read_hook): wire its hooks, or drop the reader"
        )
    return None


def _load_builtin_adapters() -> None:
    """Fill :data:`ADAPTERS` from this package's ``teambrain.adapters`` entry points, by name:
    each names a tool module's ``adapter`` function (an :class:`Adapter` itself also does)."""
    from teambrain_kit.plugins import ADAPTERS_GROUP, builtin_names, load_builtin

    names = builtin_names(ADAPTERS_GROUP, DISTRIBUTION)
    if not names:
        raise RuntimeError(
            f"{DISTRIBUTION}'s installed metadata declares no {ADAPTERS_GROUP} entry points: the "
            "install is stale (reinstall teambrain-cli; in a checkout, `make install`)"
        )
    for name in sorted(names):
        loaded = load_builtin(ADAPTERS_GROUP, DISTRIBUTION, name)  # a tool module's adapter()
        adapter = loaded() if callable(loaded) and not isinstance(loaded, Adapter) else loaded
        if not isinstance(adapter, Adapter) or adapter.name != name:
            raise RuntimeError(f"entry point {name!r} of {ADAPTERS_GROUP} is not adapter {name!r}")
        register_adapter(adapter)
        MODULES[name] = getattr(loaded, "__module__", None) or ""


MODULES: dict[str, str] = {}  # built-in tool name -> the module of tools/ that is the tool
_load_builtin_adapters()
