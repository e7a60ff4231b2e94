"""Codex CLI: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

https://developers.openai.com/codex/mcp ([mcp_servers.<name>] in .codex/config.toml, trusted
  projects only)
https://developers.openai.com/codex/hooks (inline [[hooks.<Event>]] tables or hooks.json;
  one representation per layer, else Codex merges and warns; trust per hook hash)

Its hook payloads are read by :func:`read_hook`, which the hook process imports this module
for: its top level imports only teambrain_capture's hook kit; what `tb install` and `tb doctor`
need is imported inside the functions that use it.
"""

from __future__ import annotations

from teambrain_capture import Hook, claude_shaped

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from ..readiness import ToolContext, UserStep
    from ..registry import Adapter


def read_hook(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Codex CLI hooks (``[hooks]`` in ``.codex/config.toml`` or ``.codex/hooks.json``)."""
    # Codex fires PostToolUse after failing commands too: no exit code unless it reports one.
    return claude_shaped(payload, success_means_zero=False)


CODEX_STARTUP_GRACE_MS = 10000  # Codex's own default startup_timeout_sec

_CODEX_DOCS = "https://developers.openai.com/codex"


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
    import hashlib
    import json

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
    from ..readiness import read_object, table

    hooks_json = repo / ".codex" / "hooks.json"
    if hooks_json.is_file():
        return hooks_json, table(read_object(hooks_json).get("hooks"))
    config = repo / ".codex" / "config.toml"
    return config, table(read_object(config, "toml").get("hooks"))


def codex_hook_states(repo: Path) -> list[tuple[str, str]]:
    """``(key, trusted_hash)`` of every teambrain hook in ``repo``'s Codex config: what Codex's
    /hooks writes under ``[hooks.state."<key>"]`` when you trust them."""
    from ..readiness import table
    from ..registry import HOOK_COMMAND

    source, hooks = _codex_hook_source(repo)
    ours = f"{HOOK_COMMAND} codex"
    found = []
    for event, groups in hooks.items():
        if event == "state" or not isinstance(groups, list):
            continue
        for group_index, group in enumerate(groups):
            handlers = table(group).get("hooks")
            for index, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if isinstance(handler, dict) and handler.get("command") == ours:
                    matcher = table(group).get("matcher")
                    key = f"{source}:{_snake(event)}:{group_index}:{index}"
                    found.append((key, codex_hook_hash(event, matcher if isinstance(matcher, str) else None, handler)))  # fmt: skip
    return found


def _main_checkout(repo: Path) -> Path | None:
    """For a linked worktree, the main checkout (where Codex also looks for trust)."""
    from pathlib import Path

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
    from pathlib import Path

    from ..readiness import UserStep, read_object, table
    from ..registry import HOOK_COMMAND

    codex_home = Path(ctx.env["CODEX_HOME"]) if ctx.env.get("CODEX_HOME") else ctx.home / ".codex"
    user_config = codex_home / "config.toml"
    config = read_object(user_config, "toml")
    projects = table(config.get("projects"))
    main = _main_checkout(ctx.repo)
    keys = ctx.path_keys() + (ctx.path_keys(main) if main else [])
    level = next((table(projects[k]).get("trust_level") for k in keys if k in projects), None)
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
    all_states = table(table(config.get("hooks")).get("state"))

    def state(key: str) -> dict[str, Any]:
        # Codex keys hooks by the path it read them from: this checkout, spelt as the user
        # started it or resolved, or for a linked worktree the main checkout's .codex/.
        spellings = [key.replace(str(ctx.repo), other, 1) for other in keys]
        return next((table(all_states[k]) for k in spellings if k in all_states), {})

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


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter, HookTarget, McpTarget, Presence

    return Adapter(
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
        notes=(
            "Codex loads project config only in trusted projects and runs new hooks only after "
            "you trust them in /hooks. Codex hooks have no session end: sessions close when idle."
        ),
        user_steps=_codex_steps,
        presence=Presence(("codex",), ("$CODEX_HOME", "~/.codex")),
    )
