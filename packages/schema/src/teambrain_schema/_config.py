"""brain.yaml (the team's settings, committed) and adapters.yaml (supported agent tools)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from ._mcp import MAX_CONTEXT_BUDGET
from ._memory import Scope

EnvVarName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


PluginName = Annotated[
    str, StringConstraints(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
]


class _Config(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


def _no_control_characters(value: str | None) -> str | None:
    """A path, URL or model name from a committed file never holds a control character: a NUL
    byte in ``org_brain`` ended lint, doctor, trust and verify in "internal error: embedded
    null byte" (every path call raises on it), and a newline or escape has no place there."""
    if value is not None and any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise ValueError("must not contain control characters (a NUL byte, newline, escape…)")
    return value


class EmbedderConfig(_Config):
    """Which embedder computes vectors. ``local`` runs a bundled model offline."""

    provider: Literal["local", "ollama", "openai", "none"] = "local"
    model: str | None = Field(default=None, description="Model name (provider default when unset)")
    path: str | None = Field(
        default=None,
        description="local: directory or .onnx file of a model to use instead of the bundled one",
    )
    base_url: str | None = Field(default=None, description="ollama/openai: server URL")
    api_key_env: EnvVarName | None = Field(
        default=None, description="openai: environment variable holding the key"
    )
    timeout_s: Annotated[float, Field(gt=0, le=120)] = 10.0
    plugin: PluginName | None = Field(
        default=None,
        description=(
            "An embedder another installed package provides (entry point group "
            "teambrain.embedders); used instead of provider"
        ),
    )

    _plain = field_validator("model", "path", "base_url")(_no_control_characters)


class RetrievalConfig(_Config):
    """Search and context settings."""

    budget_tokens: Annotated[int, Field(ge=100, le=MAX_CONTEXT_BUDGET)] = MAX_CONTEXT_BUDGET
    k: Annotated[int, Field(ge=1, le=50)] = 8
    embedder: EmbedderConfig = Field(default_factory=EmbedderConfig)
    graph_depth: Annotated[int, Field(ge=0, le=4)] = Field(
        default=2,
        description=(
            "How many edges of the graph (.teambrain/graph/) memory_context and memory_search "
            "follow from the nodes a session's paths or a query touch (0: none)"
        ),
    )
    backend: Literal["sqlite", "postgres"] = Field(
        default="sqlite",
        description=(
            "sqlite: the embedded index on each machine (the default); postgres: also a shared "
            "PostgreSQL + pgvector index the brain's CI fills, once each machine approved it"
        ),
    )
    url_env: EnvVarName | None = Field(
        default=None,
        description=(
            "postgres: environment variable holding the connection string (never the string)"
        ),
    )
    timeout_s: Annotated[float, Field(gt=0, le=30)] = Field(
        default=2.0,
        description="postgres: seconds to connect or answer before the local index answers",
    )

    @model_validator(mode="after")
    def _postgres_needs_url_env(self) -> RetrievalConfig:
        if self.backend == "postgres" and self.url_env is None:
            raise ValueError("url_env: required when backend is postgres")
        return self


class DistillConfig(_Config):
    """The distiller's model pin, credentials (by variable name only) and limits."""

    # none: no model chosen yet (a fresh brain.yaml); `tb distill` says how to pick one.
    driver: Literal["none", "fake", "anthropic", "openai", "ollama"] = "none"
    model: str = "none"
    api_key_env: EnvVarName | None = None
    base_url: str | None = None
    fixtures: str | None = Field(
        default=None, description="fake: fixture directory, relative to the brain"
    )
    timeout_s: Annotated[float, Field(gt=0, le=600)] | None = Field(
        default=None,
        description=(
            "Seconds the whole answer of one request may take (null: 60 for the hosted "
            "anthropic and openai APIs, 300 for ollama and any distill.base_url server)"
        ),
    )
    max_retries: Annotated[int, Field(ge=0, le=10)] = 2
    temperature: Annotated[float, Field(ge=0, le=2)] | None = Field(
        default=None, description="Sampling temperature sent to the model (null: the server's)"
    )
    structured_output: Literal["auto", "tools", "json_schema", "json_object", "prompt"] = Field(
        default="auto",
        description=(
            "How the answer's JSON shape is asked for: a forced tool call, response_format "
            "json_schema or json_object, or the schema in the prompt only (auto: tools for "
            "anthropic and openai, json_schema for ollama)"
        ),
    )
    max_output_tokens: Annotated[int, Field(ge=256, le=64_000)] = Field(
        default=4096, description="Most tokens one model answer may have (bounds re-ask cost)"
    )
    max_calls: Annotated[int, Field(ge=1, le=10_000)] = 20
    max_input_tokens: Annotated[int, Field(ge=1)] = 200_000
    plugin: PluginName | None = Field(
        default=None,
        description=(
            "A driver another installed package provides (entry point group teambrain.drivers); "
            "used instead of driver"
        ),
    )

    _plain = field_validator("model", "base_url", "fixtures")(_no_control_characters)

    @model_validator(mode="after")
    def _remote_needs_key_env(self) -> DistillConfig:
        if self.driver in ("anthropic", "openai") and not self.api_key_env:
            raise ValueError(f"api_key_env: required for the {self.driver} driver")
        if self.driver == "anthropic" and self.structured_output in ("json_schema", "json_object"):
            raise ValueError(
                f"structured_output: {self.structured_output} is not an anthropic option "
                "(use tools, prompt or auto)"
            )
        return self

    def timeout(self) -> float:
        """``timeout_s``, or the driver's default: 60 s for the hosted APIs, 300 s for ollama
        and any ``base_url`` server (a local model on a CPU answers slowly)."""
        if self.timeout_s is not None:
            return self.timeout_s
        return 300.0 if self.driver == "ollama" or self.base_url else 60.0


class BrainConfig(_Config):
    """``.teambrain/brain.yaml``."""

    version: Literal[1] = 1
    name: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    scopes: list[Scope] = Field(default_factory=lambda: list[Scope](["team", "org"]), min_length=1)
    org_brain: str | None = Field(
        default=None,
        description="Path to a local checkout of the org brain whose org-scoped memories are also served",
    )
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    distill: DistillConfig = Field(default_factory=DistillConfig)

    _plain = field_validator("name", "org_brain")(_no_control_characters)


ConfigFormat = Literal["json", "jsonc", "toml", "yaml"]
HandlerValue = str | int | bool
EntryValue = str | int | bool | list[str]


class McpWiring(_Config):
    """How a tool registers MCP servers."""

    path: str = Field(
        description="Config file, relative to the repository (or ~/ for user-level only)"
    )
    format: ConfigFormat
    key: str = Field(description="Dotted path of the table holding the servers, e.g. mcpServers")
    scope: Literal["project", "user"] = "project"
    entry_type: str | None = Field(
        default=None,
        description="Value of the server entry's `type` field, for tools that require one (stdio)",
    )
    entry: dict[str, EntryValue] = Field(
        default_factory=dict,
        description="Fields of the server entry besides type, command and args (Codex: env_vars; "
        "Gemini CLI: timeout)",
    )
    file_defaults: dict[str, HandlerValue] = Field(
        default_factory=dict,
        description="Top-level keys the MCP config file gets when it has none of its own (Codex: "
        "mcp_optional_startup_grace_ms)",
    )
    servers: Literal["map", "list"] = Field(
        default="map",
        description="map: servers keyed by name (most tools); list: a list of entries each with a "
        "`name` field (Continue)",
    )
    command_style: Literal["split", "array"] = Field(
        default="split",
        description="split: `command` plus `args`; array: one `command` list (opencode, Kilo Code)",
    )
    alternate_path: str | None = Field(
        default=None,
        description="A file used instead of `path` when it already exists (opencode.jsonc)",
    )


class HookWiring(_Config):
    """How a tool runs capture hooks."""

    path: str = Field(description="Config file; for the script shape, the folder of hook scripts")
    format: ConfigFormat | Literal["script"]
    events: list[str] = Field(
        min_length=1, description="Tool-native hook event names we subscribe to"
    )
    shape: Literal["grouped", "flat", "script", "plugin"] = Field(
        default="grouped",
        description="grouped: event -> [{matcher, hooks: [handler]}]; flat: event -> [handler]; "
        "script: one executable file per event, named after it, in the `path` folder (Cline); "
        "plugin: one plugin file at `path` that hands the events to tb-capture (opencode)",
    )
    matchers: dict[str, str] = Field(
        default_factory=dict, description="Matcher written for an event (grouped shape only)"
    )
    handler: dict[str, HandlerValue] = Field(
        default_factory=dict,
        description="Fields of each hook handler besides `command` (type, timeout, name, ...)",
    )
    file_defaults: dict[str, HandlerValue] = Field(
        default_factory=dict,
        description="Top-level keys the hooks file must have (Cursor: version)",
    )
    alternate_path: str | None = Field(
        default=None,
        description="A file used instead of `path` when it already exists (JSON by its suffix)",
    )


class AdapterSpec(_Config):
    """One supported agent tool."""

    name: Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9\-]*$")]
    title: str
    aliases: list[Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9\-]*$")]] = Field(
        default_factory=list, description="Other names `tb install` accepts for this tool"
    )
    docs: list[Annotated[str, StringConstraints(pattern=r"^https://")]] = Field(min_length=1)
    mcp: McpWiring
    hooks: HookWiring | None = None
    notes: str | None = None


class AdaptersFile(_Config):
    """``adapters.yaml``: every supported tool and how it is wired."""

    version: Literal[1] = 1
    adapters: list[AdapterSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> AdaptersFile:
        names = [name for adapter in self.adapters for name in (adapter.name, *adapter.aliases)]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"adapters: duplicate names {', '.join(duplicates)}")
        return self


BRAIN_YAML_TEMPLATE = """\
# teambrain settings for this repository. Reviewed and versioned like code.
# `tb help config` documents every key; omitted keys take the defaults shown here.
version: 1

# A name for this brain in reports (default: the repository folder name).
name: null

# Which memory scopes agents in this repository see: team, org or both.
scopes: [team, org]

# A local checkout of your organisation's brain; its org-scoped memories are served too.
org_brain: null

retrieval:
  # Most tokens memory_context() may return (never above 2000).
  budget_tokens: 2000
  # Results memory_search returns when the agent does not say.
  k: 8
  # Edges of the graph (.teambrain/graph/) followed from the nodes a session's changed paths
  # or a query touch, to the memories linked to them (0: none; at most 4).
  graph_depth: 2
  embedder:
    # local: the bundled offline model. none: keyword search only.
    # ollama / openai: remote embedders, opt-in; memory text is sent to them.
    provider: local
    model: null
    path: null
    base_url: null
    api_key_env: null
    timeout_s: 10.0
    # An embedder another installed package provides (its entry point name), instead of provider.
    plugin: null
  # sqlite: the index each machine builds. postgres: also a shared index the brain's CI
  # fills (`tb help deploying-postgres`), used once each machine approved it (`tb trust`).
  backend: sqlite
  # postgres: the environment variable holding the connection string (never the string).
  url_env: null
  # postgres: seconds to wait for it before this machine embeds by itself.
  timeout_s: 2.0

distill:
  # The model `tb distill` asks to turn captured sessions into memory candidates (the only
  # step that calls one). none: not chosen yet. Pick one (`tb help distill-guide#choosing-a-model`):
  #   local, nothing leaves this machine: driver: ollama, model: qwen2.5:7b-instruct
  #     (pip install 'teambrain-cli[ollama]', an Ollama server running)
  #   hosted: driver: anthropic or openai, model: <the provider's model name>,
  #     api_key_env: ANTHROPIC_API_KEY or OPENAI_API_KEY (pip install 'teambrain-cli[anthropic]')
  # fake replays answers recorded in fixtures (the tests and the demo). Credentials come only
  # from the variable named here.
  driver: none
  model: none
  api_key_env: null
  base_url: null
  fixtures: null
  # Seconds one answer may take; null: 60 for the hosted APIs, 300 for ollama and base_url servers.
  timeout_s: null
  # Re-asks after an invalid or cut-off answer (and re-sends after a server error).
  max_retries: 2
  max_output_tokens: 4096
  # null: the server's default. 0-0.3 suits distilling.
  temperature: null
  # auto, tools, json_schema, json_object or prompt (`tb help distill-guide`: which needs which).
  structured_output: auto
  # Cost cap per `tb distill` run.
  max_calls: 20
  max_input_tokens: 200000
  # A driver another installed package provides (its entry point name), instead of driver.
  plugin: null
"""
