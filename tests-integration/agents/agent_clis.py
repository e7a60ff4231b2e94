"""The agent CLIs the real-agent suite drives, one :class:`AgentCli` each (see README.md to add
one). Everything a CLI needs is written into a throwaway ``HOME``: the stand-in as its model
provider, telemetry and update checks off, and — separately — the files its own trust and
approval dialogs write, which is the one-time action a user takes (``user_action``)."""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from teambrain_cli._agent_tools.registry import ADAPTERS

HERE = Path(__file__).resolve().parent
NODE_BIN = HERE / "node_modules" / ".bin"
PROMPT = "What does the team memory say about payment providers? Then read README.md."


class _Refuse(BaseHTTPRequestHandler):
    """Every request, a tunnel (CONNECT) or a plain one, answered 403 at once, its target kept."""

    def _refuse(self) -> None:
        self.server.asked.append(self.path)  # type: ignore[attr-defined]
        self.close_connection = True
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_CONNECT = do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _refuse

    def log_message(self, format: str, *args: object) -> None:
        pass


@functools.cache
def refusing_proxy() -> ThreadingHTTPServer:
    """This process's proxy on 127.0.0.1 that refuses everything (started on first use; its
    ``asked`` lists the targets, e.g. ``otel.cline.bot:443``). Not a closed port: a refused
    connection is retried with back-off by some CLIs (Cline's telemetry: five tries over 8 s
    in every run), a 403 from the proxy is final at once — as final as having no network."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    server.daemon_threads = True
    server.asked = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, name="refusing-proxy", daemon=True).start()
    return server


def no_network() -> dict[str, str]:
    """The environment that keeps a CLI off the network: anything not on 127.0.0.1 goes to
    :func:`refusing_proxy` (for the CLIs that honour proxies), and every telemetry and update
    switch the CLIs share is off."""
    proxy = f"http://127.0.0.1:{refusing_proxy().server_address[1]}"
    return {
        "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "https_proxy": proxy, "http_proxy": proxy,
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
        "DO_NOT_TRACK": "1", "NO_UPDATE_NOTIFIER": "1", "DISABLE_TELEMETRY": "1",
        # CLIs that install packages themselves (opencode's plugin SDK) give up at once, not
        # after a minute of retries.
        "npm_config_offline": "true",
    }  # fmt: skip


@dataclass(frozen=True)
class Sandbox:
    """One test's world: the throwaway home, the repository, the stand-in's base URL."""

    home: Path
    teambrain_home: Path
    repo: Path
    model_url: str


def _write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")


def _merge_json(path: Path, data: dict[str, object]) -> None:
    current = json.loads(path.read_text()) if path.exists() else {}
    _write_json(path, {**current, **data})


@dataclass(frozen=True)
class AgentCli:
    """How to drive one agent CLI headless against the stand-in."""

    tool: str  # the `tb install` name
    title: str
    package: str  # the npm package pinned in package.json
    binary: str  # under node_modules/.bin
    read_tool: str  # the tool the CLI's model reads a file with
    read_event: dict[str, str]  # what capture records for that read (a subset of tool_use data)
    listing: tuple[tuple[str, ...], ...]  # the CLI's own MCP listing/health commands
    connected: str  # regex over the listing's output once teambrain works
    headless: Callable[[str], list[str]]
    env: Callable[[Sandbox], dict[str, str]]
    configure: Callable[[Sandbox], None]  # provider, telemetry: not the user's trust decisions
    # For tools that wait for their user: what the tool's own trust/approval dialogs write, the
    # doctor findings that report it missing, and the listing's output until then.
    user_action: Callable[[Sandbox], None] = lambda box: None
    doctor_steps: tuple[str, ...] = ()
    not_connected: str | None = None
    session_end: bool = True  # the tool has a session-end hook
    knows_model: bool = True  # its hooks say (or lead to) the model; Gemini CLI's do not
    # The tool starts MCP servers with a fixed environment (HOME, PATH, ...): a TEAMBRAIN_HOME set
    # for the session never reaches `tb serve`, so the test uses the default, ~/.teambrain.
    default_home_only: bool = False
    prompt_hook: bool = True  # its headless sessions fire a prompt hook (an `intent` event)
    # How late its `tb serve` starts, when less than the suite's SLOW_START_S: for a CLI that
    # drops slower servers from the session without a word (said in docs/agents.md).
    slow_start_s: int | None = None
    captures: bool = True  # it runs teambrain's capture hooks (MCP-only tools do not)
    reports_version: str | None = None  # what `--version` says, when not the package's version
    # The detached helpers a run leaves behind, matched in their command lines (killed after it).
    leftovers: tuple[str, ...] = ()

    @property
    def path(self) -> Path:
        return NODE_BIN / self.binary

    def version(self, env: dict[str, str]) -> str:
        """What ``<cli> --version`` prints."""
        import subprocess

        done = subprocess.run(
            [str(self.path), "--version"], env=env, capture_output=True, text=True, timeout=120
        )
        return (done.stdout or done.stderr).strip()

    @property
    def pinned(self) -> str:
        """The version package.json pins."""
        manifest = json.loads((HERE / "package.json").read_text())
        return self.reports_version or str(manifest["dependencies"][self.package])


# Claude Code ------------------------------------------------------------------------------------


def _claude_env(box: Sandbox) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": box.model_url, "ANTHROPIC_API_KEY": "sk-stand-in",
        "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }  # fmt: skip


def _claude_configure(box: Sandbox) -> None:
    _merge_json(box.home / ".claude.json", {"hasCompletedOnboarding": True})


def _claude_approve(box: Sandbox) -> None:
    # Observed with 2.1.332 driven through a terminal: "Yes, I trust this folder" sets
    # projects[<repo>].hasTrustDialogAccepted in ~/.claude.json, and "Use this MCP server" adds
    # the server to enabledMcpjsonServers in .claude/settings.local.json.
    config = box.home / ".claude.json"
    data = json.loads(config.read_text()) if config.exists() else {}
    data.setdefault("projects", {})[str(box.repo)] = {"hasTrustDialogAccepted": True}
    _write_json(config, data)
    _merge_json(box.repo / ".claude" / "settings.local.json", {"enabledMcpjsonServers": ["teambrain"]})  # fmt: skip


CLAUDE = AgentCli(
    tool="claude-code",
    title="Claude Code",
    package="@anthropic-ai/claude-code",
    binary="claude",
    read_tool="Read",
    read_event={"kind": "explore", "path": "README.md"},
    listing=(("mcp", "list"), ("mcp", "get", "teambrain")),
    connected=r"teambrain: tb serve - ✔ Connected",
    not_connected=r"Pending approval",
    headless=lambda prompt: [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--allowedTools",
        "mcp__teambrain__memory_context,mcp__teambrain__memory_search,Read",
    ],
    env=_claude_env,
    configure=_claude_configure,
    user_action=_claude_approve,
    doctor_steps=("tool claude-code: folder trust", "tool claude-code: server approval"),
)


# Codex CLI --------------------------------------------------------------------------------------


def _codex_home(box: Sandbox) -> Path:
    return box.home / ".codex"


def _codex_env(box: Sandbox) -> dict[str, str]:
    return {"STANDIN_API_KEY": "stand-in", "CODEX_HOME": str(_codex_home(box))}


def _codex_configure(box: Sandbox) -> None:
    config = _codex_home(box) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        'model = "gpt-5-codex"\n'
        'model_provider = "standin"\n'
        "check_for_update_on_startup = false\n\n"
        "[analytics]\nenabled = false\n\n"
        "[model_providers.standin]\n"
        'name = "stand-in"\n'
        f'base_url = "{box.model_url}/v1"\n'
        'env_key = "STANDIN_API_KEY"\n'
        'wire_api = "responses"\n'
    )


def _codex_trust(box: Sandbox) -> None:
    # What Codex's own prompts write into $CODEX_HOME/config.toml: the project's trust_level
    # (first start in a repository) and one trusted_hash per hook (/hooks). The hashes come from
    # teambrain's reading of Codex's rules; hooks only run if Codex agrees with them.
    from teambrain_cli._agent_tools.tools.codex import codex_hook_states

    lines = ["", f"[projects.{json.dumps(str(box.repo))}]", 'trust_level = "trusted"', ""]
    for key, trusted_hash in codex_hook_states(box.repo):
        lines += [f"[hooks.state.{json.dumps(key)}]", f'trusted_hash = "{trusted_hash}"', ""]
    with (_codex_home(box) / "config.toml").open("a") as handle:
        handle.write("\n".join(lines))


CODEX = AgentCli(
    tool="codex",
    title="Codex CLI",
    package="@openai/codex",
    binary="codex",
    read_tool="exec_command",  # Codex has no file-reading tool: `cat README.md`
    read_event={"kind": "command"},  # a command line is never recorded, so neither is its path
    listing=(("mcp", "list"),),
    # `codex mcp list` has no health check: "enabled" is all it can say.
    connected=r"teambrain\s+tb\s+serve\s+.*enabled",
    not_connected=r"No MCP servers configured",
    headless=lambda prompt: ["exec", "--json", prompt],
    env=_codex_env,
    configure=_codex_configure,
    user_action=_codex_trust,
    doctor_steps=("tool codex: project trust", "tool codex: hook trust"),
    session_end=False,
)


# Gemini CLI -------------------------------------------------------------------------------------


def _gemini_env(box: Sandbox) -> dict[str, str]:
    return {"GEMINI_API_KEY": "stand-in", "GOOGLE_GEMINI_BASE_URL": box.model_url}


def _gemini_configure(box: Sandbox) -> None:
    _write_json(
        box.home / ".gemini" / "settings.json",
        {
            # Without a selected auth type a headless run exits 41 ("Invalid auth method").
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
        },
    )


def _gemini_trust(box: Sandbox) -> None:
    # What "Trust folder" in Gemini CLI's folder-trust dialog writes.
    _write_json(box.home / ".gemini" / "trustedFolders.json", {str(box.repo): "TRUST_FOLDER"})


GEMINI = AgentCli(
    tool="gemini-cli",
    title="Gemini CLI",
    package="@google/gemini-cli",
    binary="gemini",
    read_tool="read_file",
    read_event={"kind": "explore", "path": "README.md"},
    listing=(("mcp", "list"),),
    connected=r"✓ teambrain: tb serve \(stdio\) - Connected",
    not_connected=r"teambrain: tb serve \(stdio\) - Disabled",
    headless=lambda prompt: [
        "-p",
        prompt,
        "--output-format",
        "json",
        "--approval-mode",
        "yolo",
        "-m",
        "gemini-2.5-flash",
    ],
    env=_gemini_env,
    configure=_gemini_configure,
    user_action=_gemini_trust,
    doctor_steps=("tool gemini-cli: folder trust",),
    knows_model=False,
)


# Qwen Code --------------------------------------------------------------------------------------


def _qwen_env(box: Sandbox) -> dict[str, str]:
    return {"OPENAI_BASE_URL": f"{box.model_url}/v1", "OPENAI_API_KEY": "sk-stand-in", "OPENAI_MODEL": "standin-model"}  # fmt: skip


def _qwen_configure(box: Sandbox) -> None:
    # Qwen Code offers MCP tools through tool_search/tool_call by default; the stand-in calls
    # tools it is offered by name, so the test lists them directly (a model uses either).
    _merge_json(box.home / ".qwen" / "settings.json", {"tools": {"toolSearch": {"enabled": False}}, "privacy": {"usageStatisticsEnabled": False}})  # fmt: skip


def _qwen_approve(box: Sandbox) -> None:
    # What `qwen mcp approve teambrain` (0.24.4) writes: the folder's approval of the entry,
    # bound to Qwen Code's hash of it. Qwen Code checks the hash itself (`qwen mcp list`).
    from teambrain_cli._agent_tools.tools.qwen_code import qwen_entry_hash

    entry = json.loads((box.repo / ".qwen" / "settings.json").read_text())["mcpServers"][
        "teambrain"
    ]
    record = {str(box.repo): {"teambrain": {"hash": qwen_entry_hash(entry), "status": "approved"}}}
    _write_json(box.home / ".qwen" / "mcpApprovals.json", record)


QWEN = AgentCli(
    tool="qwen-code",
    title="Qwen Code",
    package="@qwen-code/qwen-code",
    binary="qwen",
    read_tool="read_file",
    read_event={"kind": "explore", "path": "README.md"},
    listing=(("mcp", "list"),),  # starts each approved server and says whether it answered
    connected=r"teambrain: tb serve \(stdio\) - Connected",
    not_connected=r"teambrain: tb serve \(stdio\) - Pending approval",
    # --yolo approves tool calls (and skips Qwen Code's server-approval gate, which the listing
    # test covers).
    headless=lambda prompt: ["--auth-type", "openai", "--yolo", "-o", "json", prompt],
    env=_qwen_env,
    configure=_qwen_configure,
    user_action=_qwen_approve,
    doctor_steps=("tool qwen-code: server approval",),
    session_end=False,  # headless sessions fire no SessionEnd (0.24.4)
)


# GitHub Copilot CLI -----------------------------------------------------------------------------


def _copilot_env(box: Sandbox) -> dict[str, str]:
    # Its own "bring your own model" settings: no GitHub sign-in, nothing leaves 127.0.0.1.
    return {
        "COPILOT_PROVIDER_BASE_URL": f"{box.model_url}/v1", "COPILOT_PROVIDER_TYPE": "openai",
        "COPILOT_PROVIDER_API_KEY": "sk-stand-in", "COPILOT_MODEL": "gpt-4.1",
        "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
    }  # fmt: skip


def _copilot_trust(box: Sandbox) -> None:
    # What answering "Yes" to Copilot CLI's folder-trust prompt records (1.0.102).
    _merge_json(box.home / ".copilot" / "config.json", {"trustedFolders": [str(box.repo)]})


COPILOT_CLI = AgentCli(
    tool="copilot-cli",
    title="GitHub Copilot CLI",
    package="@github/copilot",
    binary="copilot",
    read_tool="view",
    read_event={"kind": "explore", "path": "README.md"},
    # Its listing reads the config without starting servers: "Enabled" is all it can say.
    listing=(("mcp", "list"), ("mcp", "get", "teambrain")),
    connected=r"Status: Enabled[\s\S]*Source: Workspace",
    not_connected=r"No MCP servers configured",
    headless=lambda prompt: [
        *("-p", prompt, "--allow-all-tools", "--output-format", "json", "--no-auto-update")
    ],
    env=_copilot_env,
    configure=lambda box: None,
    user_action=_copilot_trust,
    doctor_steps=("tool copilot-cli: folder trust",),
    knows_model=False,  # no hook payload names the model
)


# Auggie -----------------------------------------------------------------------------------------


def _auggie_env(box: Sandbox) -> dict[str, str]:
    # A session token naming the stand-in as the Augment tenant: no sign-in, no network.
    auth = {"accessToken": "stand-in", "tenantURL": f"{box.model_url}/", "scopes": ["email"]}
    return {"AUGMENT_SESSION_AUTH": json.dumps(auth)}


AUGGIE = AgentCli(
    tool="auggie",
    title="Auggie",
    package="@augmentcode/auggie",
    binary="auggie",
    read_tool="view",
    read_event={"kind": "explore", "path": "README.md"},
    # Its listing reads the config without starting servers; a session's start says more.
    listing=(("mcp", "list"),),
    connected=r"✓ teambrain\s+stdio\s+tb serve",
    headless=lambda prompt: ["-p", prompt, "--max-turns", "6"],
    env=_auggie_env,
    configure=lambda box: None,
    knows_model=False,  # no hook payload names the model
    default_home_only=True,  # 0.36.0 passes MCP servers only HOME, LOGNAME, PATH, SHELL, TERM, USER
)


# Cline ------------------------------------------------------------------------------------------


def _cline_configure(box: Sandbox) -> None:
    # What `cline auth -p openai-compatible -k … -m … -b <url>/v1` writes (3.0.65).
    provider = {"provider": "openai-compatible", "apiKey": "sk-stand-in", "model": "standin-model", "baseUrl": f"{box.model_url}/v1"}  # fmt: skip
    _write_json(
        box.home / ".cline" / "data" / "settings" / "providers.json",
        {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {
                "openai-compatible": {
                    "settings": provider,
                    "updatedAt": "2026-12-04T00:00:00.000Z",
                    "tokenSource": "manual",
                }
            },
        },
    )


CLINE = AgentCli(
    tool="cline",
    title="Cline",
    package="cline",
    binary="cline",
    read_tool="read_files",
    read_event={"kind": "explore", "path": "README.md"},
    # Cline 3.0.65 has no MCP listing or health command (`cline mcp` adds and removes only): the
    # headless session is what shows the server connected.
    listing=(),
    connected="",
    headless=lambda prompt: ["--json", "-m", "standin-model", prompt],
    env=lambda box: {},
    configure=_cline_configure,
    knows_model=False,  # no hook payload names the model
    prompt_hook=False,  # 3.0.65 runs no UserPromptSubmit hook for a prompt given on the command line
    leftovers=("--cline-hub-daemon",),  # every run starts a hub daemon that outlives it
    slow_start_s=2,  # 3.0.65 silently leaves out a server not ready within ~3 s (2 s: in; 4 s: out)
)


# Factory Droid ----------------------------------------------------------------------------------


def _droid_configure(box: Sandbox) -> None:
    # Its "bring your own model" settings (https://docs.factory.ai/cli/byok/overview): no sign-in.
    model = {"model": "standin-model", "displayName": "Stand-in", "baseUrl": f"{box.model_url}/v1", "apiKey": "sk-stand-in", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}  # fmt: skip
    _merge_json(box.home / ".factory" / "settings.json", {"customModels": [model]})


FACTORY_DROID = AgentCli(
    tool="factory-droid",
    title="Factory Droid",
    package="@factory/cli",
    binary="droid",
    read_tool="Read",
    read_event={"kind": "explore", "path": "README.md"},
    listing=(("mcp", "list"),),  # starts each server: connected or failed
    connected=r"teambrain\s+stdio\s+connected\s+\[project\]",
    # -o stream-jsonrpc: the one output mode whose sessions fire UserPromptSubmit (0.225.2).
    headless=lambda prompt: [
        *("exec", "-m", "custom:standin-model", "--auto", "low", "-o", "stream-jsonrpc", prompt)
    ],
    env=lambda box: {},
    configure=_droid_configure,
    knows_model=False,  # no hook payload names the model
    # The wrapper 0.225.1 names a linux-x64 build 0.225.1 that was never published; package.json
    # overrides it with 0.225.2, the build it then runs.
    reports_version="0.225.2",
    slow_start_s=3,  # `droid mcp list` waits ~5 s, then says `connecting` (3 s: connected; 5 s: not)
)


# Continue ---------------------------------------------------------------------------------------
CONTINUE_BLOCK = ".continue/mcpServers/teambrain.yaml"


def _continue_configure(box: Sandbox) -> None:
    config = box.home / ".continue" / "config.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "name: stand-in\nversion: 0.0.1\nschema: v1\nmodels:\n"
        "  - name: stand-in\n    provider: openai\n    model: standin-model\n"
        f"    apiBase: {box.model_url}/v1\n    apiKey: sk-stand-in\n    roles: [chat, edit, apply]\n"
    )


CONTINUE = AgentCli(
    tool="continue",
    title="Continue",
    package="@continuedev/cli",
    binary="cn",
    read_tool="Read",
    read_event={"kind": "explore", "path": "README.md"},
    # cn 1.5.47 has no MCP listing (its TUI has /mcp); a headless run fails when any server does,
    # so the session is the health check.
    listing=(),
    connected="",
    headless=lambda prompt: ["-p", "--auto", "--mcp", CONTINUE_BLOCK, prompt],
    env=lambda box: {"CONTINUE_TELEMETRY_ENABLED": "0"},
    configure=_continue_configure,
    captures=False,  # 1.5.47 fires no hooks
)


def cli_env(cli: AgentCli, box: Sandbox, bin_dirs: list[Path]) -> dict[str, str]:
    """The environment a CLI runs in: the throwaway home, teambrain's console scripts first on
    PATH, the stand-in as its model, nothing that could reach the network."""
    keep = {name: os.environ[name] for name in ("LANG", "LC_ALL", "TERM", "SYSTEMROOT") if name in os.environ}  # fmt: skip
    path = os.pathsep.join([*(str(d) for d in bin_dirs), os.environ.get("PATH", "")])
    scratch = box.home / "tmp"  # the CLIs' sockets and scratch files stay with the test
    scratch.mkdir(exist_ok=True)
    return {
        **keep, **no_network(), **cli.env(box), "TMPDIR": str(scratch),
        "HOME": str(box.home), "TEAMBRAIN_HOME": str(box.teambrain_home), "PATH": path,
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.environ.get("GIT_CONFIG_GLOBAL", ""),
        "CI": "",  # some CLIs change behaviour under CI=true; the test decides
    }  # fmt: skip


def matches(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


# opencode ---------------------------------------------------------------------------------------


def _opencode_env(box: Sandbox) -> dict[str, str]:
    return {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1", "XDG_CONFIG_HOME": str(box.home / ".config"), "XDG_DATA_HOME": str(box.home / ".local" / "share"), "XDG_CACHE_HOME": str(box.home / ".cache"), "XDG_STATE_HOME": str(box.home / ".local" / "state")}  # fmt: skip


def _opencode_config(box: Sandbox) -> dict[str, object]:
    """A custom OpenAI-compatible provider (https://opencode.ai/docs/providers): opencode and its
    fork Kilo Code read the same user config, each in its own folder."""
    provider = {"npm": "@ai-sdk/openai-compatible", "name": "Stand-in", "options": {"baseURL": f"{box.model_url}/v1", "apiKey": "sk-stand-in"}, "models": {"standin-model": {"name": "standin", "tool_call": True}}}  # fmt: skip
    return {"autoupdate": False, "share": "disabled", "provider": {"standin": provider}, "model": "standin/standin-model"}  # fmt: skip


def _opencode_configure(box: Sandbox) -> None:
    _write_json(box.home / ".config" / "opencode" / "opencode.json", _opencode_config(box))


OPENCODE = AgentCli(
    tool="opencode",
    title="opencode",
    package="opencode-ai",
    binary="opencode",
    read_tool="read",
    read_event={"kind": "explore", "path": "README.md"},
    listing=(("mcp", "list"),),  # starts each server: connected or failed
    connected=r"✓ teambrain (\x1b\[[0-9;]*m)?connected",  # colours even when not a terminal
    headless=lambda prompt: ["run", prompt],
    env=_opencode_env,
    configure=_opencode_configure,
    session_end=False,  # its plugin sees session.deleted only when a session is deleted
)


# Kilo Code CLI ----------------------------------------------------------------------------------


def _kilo_configure(box: Sandbox) -> None:
    _write_json(box.home / ".config" / "kilo" / "kilo.json", _opencode_config(box))


# A fork of opencode: the same commands, listing, plugin and environment.
KILO = replace(
    OPENCODE,
    tool="kilocode",
    title="Kilo Code CLI",
    package="@kilocode/cli",
    binary="kilo",
    configure=_kilo_configure,
    # The registry here serves no linux-x64 build of 7.8.1; package.json overrides it with 7.7.9,
    # the newest it has, which `kilo --version` reports.
    reports_version="7.7.9",
)


_DRIVEN = (
    CLAUDE,
    CODEX,
    GEMINI,
    QWEN,
    COPILOT_CLI,
    AUGGIE,
    CLINE,
    FACTORY_DROID,
    CONTINUE,
    OPENCODE,
    KILO,
)
CLIS: dict[str, AgentCli] = {cli.tool: cli for cli in _DRIVEN}


# The tools `tb install` supports that this suite does not drive, and why: each tool module says
# (`not_driven`), and the docs' list is generated from it (checked by a test: a new adapter is
# either driven here or says why not).
NOT_DRIVEN: dict[str, str] = {
    name: adapter.not_driven for name, adapter in ADAPTERS.items() if adapter.not_driven
}
