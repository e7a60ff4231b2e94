"""What an agent tool's hook payload means, as one :class:`Hook`: the kit each tool's reader is
written with, and how ``tb-capture <tool>`` finds that reader.

Each agent tool is one module (teambrain-cli's ``_agent_tools/tools/<tool>.py``, or a plugin's),
declared as a ``teambrain.adapters`` entry point. A tool with hooks defines ``read_hook(payload,
env) -> Hook`` at its module's top level (and, when the tool reads the hook's output,
``hook_reply(payload) -> str``). :func:`hook_module` finds that module by tool name from the
installed packages' metadata and imports it; nothing here names a tool. The module's top level
is what the hook process runs, so it imports only this kit (the rest of the tool module loads
inside its functions). Readers keep only metadata: the kind of tool call and the file it touched,
never the file's content, a command line or a search pattern. Hot path: plain functions and
built-in types, no imports beyond ``os`` and ``sys``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is too slow for the hook
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import ModuleType

    HookReader = Callable[[Mapping[str, object], Mapping[str, str]], "Hook"]

# What a hook tells us happened.
START, PROMPT, TOOL, PLAN, END, IGNORE = "start", "prompt", "tool", "plan", "end", "ignore"
ABANDON_REASONS = frozenset({"aborted", "error", "cancelled", "canceled"})

_PATH_KEYS = (
    "file_path", "filePath", "path", "target_file", "targetFile", "notebook_path",
    "absolute_path", "dir_path", "directory", "file", "uri",
)  # fmt: skip
_LIST_PATH_KEYS = ("files", "filePaths", "paths", "file_paths")
_TEST_PROGRAMS = frozenset(
    [
        "pytest",
        "py.test",
        "unittest",
        "nosetests",
        "tox",
        "nox",
        "jest",
        "vitest",
        "mocha",
        "ava",
        "rspec",
        "phpunit",
        "ctest",
        "karma",
        "cypress",
        "playwright",
    ]
)
_TEST_SUBCOMMANDS = frozenset(
    [
        "make:test",
        "make:check",
        "npm:test",
        "yarn:test",
        "pnpm:test",
        "bun:test",
        "go:test",
        "cargo:test",
        "cargo:nextest",
        "mvn:test",
        "mvn:verify",
        "gradle:test",
        "gradle:check",
        "gradlew:test",
        "gradlew:check",
        "dotnet:test",
        "mix:test",
        "swift:test",
        "bazel:test",
        "deno:test",
        "flutter:test",
    ]
)
_RUNNERS = frozenset(
    [
        "uv:run",
        "poetry:run",
        "pipenv:run",
        "pdm:run",
        "hatch:run",
        "pnpm:exec",
        "yarn:exec",
        "npm:exec",
    ]
)
_PREFIXES = frozenset(["time", "sudo", "env", "nice", "exec", "command", "npx", "bunx", "pnpx"])


class Hook:
    """One hook payload, reduced to what the envelope may record."""

    __slots__ = ("cwd", "data", "kind", "model", "prompt", "reason", "sid", "source", "transcript")

    def __init__(
        self,
        kind: str,
        *,
        sid: str | None = None,
        cwd: str | None = None,
        model: str | None = None,
        data: dict[str, object] | None = None,
        prompt: str | None = None,
        reason: str | None = None,
        source: str | None = None,
        transcript: str | None = None,
    ) -> None:
        self.kind = kind
        self.sid = sid
        self.cwd = cwd
        self.model = model
        self.data = data or {}
        self.prompt = prompt
        self.reason = reason
        self.source = source
        self.transcript = transcript  # where the tool's own record of the session says the model

    def __repr__(self) -> str:
        return f"Hook({self.kind!r}, sid={self.sid!r}, data={self.data!r})"


def payload_text(payload: Mapping[str, object], *keys: str) -> str | None:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def first_root(payload: Mapping[str, object], key: str) -> str | None:
    """The first of the workspace roots a payload lists under ``key`` (Cursor, Auggie, Cline)."""
    roots = payload.get(key)
    return roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None


def payload_object(value: object) -> Mapping[str, object]:
    if isinstance(value, str) and value[:1] == "{":
        from ._lite import JsonError, loads

        try:
            value = loads(value)
        except JsonError:
            return {}
    return value if isinstance(value, dict) else {}


def is_test_command(command: str) -> bool:
    """Does this shell command run tests? (Judged by its programs, never stored.)"""
    for separator in ("&&", "||", "|", ";", "\n"):
        command = command.replace(separator, "\0")
    for segment in command.split("\0"):
        words = segment.split()
        while words and ("=" in words[0] or words[0] in _PREFIXES or words[0].startswith("-")):
            words.pop(0)  # VAR=1, sudo, npx, their options
        if len(words) >= 2 and f"{words[0]}:{words[1]}" in _RUNNERS:
            words = [word for word in words[2:] if not word.startswith("-")] or [""]
        if len(words) >= 3 and os.path.basename(words[0]).startswith("python") and words[1] == "-m":
            words = words[2:]
        if not words:
            continue
        program = os.path.basename(words[0])
        argument = words[1] if len(words) > 1 else ""
        if program in _TEST_PROGRAMS or f"{program}:{argument}" in _TEST_SUBCOMMANDS:
            return True
        runs_script = program in ("npm", "yarn", "pnpm", "bun") and argument == "run"
        if runs_script and len(words) > 2 and words[2].startswith("test"):
            return True
    return False


def exit_code_of(response: object) -> int | None:
    """The exit code a tool response reports, if it reports one."""
    if isinstance(response, dict):
        for key in ("exit_code", "exitCode", "returncode", "return_code", "exit_status"):
            value = response.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                return value
        return None
    if isinstance(response, str):
        head = response[:4096]
        for marker in (
            '"exitCode":',
            '"exit_code":',
            "Exit code:",
            "Exit code",
            "exit code:",
            "exit code",
        ):
            at = head.find(marker)
            if at != -1:
                digits = head[at + len(marker) :].lstrip(" ")
                end = 1 if digits[:1] == "-" else 0
                while end < len(digits) and digits[end].isdigit():
                    end += 1
                if end and digits[:end] != "-":
                    return int(digits[:end])
    return None


def _patch_path(patch: str) -> str | None:
    for marker in ("*** Update File: ", "*** Add File: ", "*** Delete File: "):
        at = patch.find(marker)
        if at != -1:
            return patch[at + len(marker) :].split("\n", 1)[0].strip() or None
    return None


def tool_path(tool_input: Mapping[str, object]) -> str | None:
    """The file or directory a tool call names, as given (made repo-relative later)."""
    value = payload_text(tool_input, *_PATH_KEYS)
    if value:
        return value.removeprefix("file://")
    for key in _LIST_PATH_KEYS:
        items = tool_input.get(key)
        if isinstance(items, list) and items and isinstance(items[0], str):
            return items[0]
    return None


def _squash(name: str) -> str:
    return "".join(char for char in name.lower() if char.isalnum())


def classify_tool(name: str) -> str | None:
    """``edit``, ``command``, ``test``, ``explore`` or ``plan`` for a tool name; None for tools we
    do not record (MCP tools, sub-agents, the web)."""
    lowered = name.lower()
    if lowered.startswith(("mcp__", "mcp:", "mcp_")):
        return None  # teambrain's own calls are recorded by the MCP server itself
    squashed = _squash(name)
    if "todo" in squashed or "plan" in squashed or squashed in ("taskcreate", "taskupdate"):
        return PLAN
    if "web" in squashed or squashed.startswith(("task", "agent", "subagent", "delegate")):
        return None  # sub-agents and their task lists, the web: not this repository's work
    if squashed == "toolsearch":
        return None  # loads deferred tools' schemas (Claude Code, Codex): not a look at the code
    if squashed.startswith("get"):
        return "explore"  # get_terminal_output, get_errors, get_changed_files
    if "test" in squashed and ("run" in squashed or squashed == "test"):
        return "test"
    for word in (
        "edit",
        "write",
        "replace",
        "patch",
        "create",
        "delete",
        "rename",
        "move",
        "insert",
    ):
        if word in squashed:
            return "edit"
    for word in ("bash", "shell", "terminal", "exec", "command", "powershell"):
        if word in squashed:
            return "command"
    for word in ("read", "view", "grep", "glob", "search", "find", "list", "codebase", "usages"):
        if word in squashed:
            return "explore"
    return "explore" if squashed in ("ls", "cat", "tree") else None


def tool_hook(
    name: str,
    tool_input: Mapping[str, object],
    response: object,
    *,
    failed: bool = False,
    success_means_zero: bool = False,
) -> Hook:
    """A ``tool_use`` (or ``plan_revision``) hook for one tool call."""
    kind = classify_tool(name)
    if kind is None:
        return Hook(IGNORE)
    if kind == PLAN:
        todos = tool_input.get("todos") or tool_input.get("plan") or tool_input.get("todoList")
        return Hook(PLAN, data={"items": len(todos)} if isinstance(todos, list) else {})
    data: dict[str, object] = {"kind": kind}
    if kind == "command":
        command = payload_text(tool_input, "command", "cmd", "command_line", "commandLine")
        if command and is_test_command(command):
            data["kind"] = "test"
    if kind in ("command", "test"):
        code = exit_code_of(payload_object(response) or response)
        if code is None and failed:
            code = exit_code_of(response)
        if code is None and success_means_zero and not failed:
            code = 0
        if code is not None:
            data["exit_code"] = code
        return Hook(TOOL, data=data)
    path = tool_path(tool_input)
    if path is None and _squash(name) == "applypatch":
        patch = payload_text(tool_input, "command", "patch", "input")
        path = _patch_path(patch) if patch else None
    if path:
        data["path"] = path
    return Hook(TOOL, data=data)


def claude_shaped(payload: Mapping[str, object], *, success_means_zero: bool) -> Hook:
    """Claude Code, Codex CLI and Gemini CLI share this payload shape (snake_case).
    ``success_means_zero``: the tool fires PostToolUse only for commands that exited 0."""
    event = payload_text(payload, "hook_event_name") or ""
    if event in ("SessionStart",):
        hook = Hook(START, source=payload_text(payload, "source"))
    elif event in ("UserPromptSubmit", "BeforeAgent"):
        hook = Hook(PROMPT, prompt=payload_text(payload, "prompt") or "")
    elif event in ("PostToolUse", "PostToolUseFailure", "AfterTool"):
        failed = event == "PostToolUseFailure"
        response = payload.get("error") if failed else payload.get("tool_response")
        hook = tool_hook(
            payload_text(payload, "tool_name") or "",
            payload_object(payload.get("tool_input")),
            response,
            failed=failed,
            success_means_zero=success_means_zero,
        )
    elif event == "SessionEnd":
        hook = Hook(END, reason=payload_text(payload, "reason"))
    else:
        return Hook(IGNORE)
    hook.sid = payload_text(payload, "session_id")
    hook.cwd = payload_text(payload, "cwd")
    hook.model = payload_text(payload, "model")
    return hook


# teambrain_schema.plugins.ADAPTERS_GROUP and OWN_DISTRIBUTIONS, spelt here because importing
# the schema's plugin module costs the hook milliseconds (a test keeps them equal).
ADAPTERS_GROUP = "teambrain.adapters"
OWN_DISTRIBUTIONS = frozenset(
    f"teambrain_{name}"
    for name in ("schema", "capture", "retrieval", "distill", "sync", "mcp_server", "cli")
)
READER = "read_hook"  # the function a tool module with hooks defines
REPLY = "hook_reply"  # what the tool reads on the hook's stdout, for the few that read it


def _entry_points_in(path: str, group: str) -> list[tuple[str, str]]:
    """(name, value) of each entry point an ``entry_points.txt`` declares in ``group``."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found: list[tuple[str, str]] = []
    current = None
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            current = line.strip("[]").strip()
        elif current == group and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            found.append((name.strip(), value.strip()))
    return found


def _own_entry_points(tool: str | None) -> dict[str, str]:
    """Name -> ``module:attribute`` of the agent tools teambrain's own distributions declare
    (their ``entry_points.txt``, read directly: importlib.metadata costs the hook more than the
    rest of it); with ``tool``, stops at the first that declares it. Installers put ``.dist-info``
    folders in ``site-packages``, so those folders of ``sys.path`` are read first, the others only
    when they did not tell. The first copy of a distribution on the path counts, as for
    importlib.metadata."""
    found: dict[str, str] = {}
    seen: set[str] = set()
    folders = [folder for folder in sys.path if folder.endswith(("site-packages", "dist-packages"))]
    for group in (folders, [folder for folder in sys.path if folder not in folders]):
        for folder in group:
            try:
                entries = os.listdir(folder or ".")
            except OSError:
                continue
            for entry in entries:
                if not entry.endswith(".dist-info"):
                    continue
                distribution = entry.split("-", 1)[0].replace(".", "_").lower()
                if distribution not in OWN_DISTRIBUTIONS or distribution in seen:
                    continue
                seen.add(distribution)
                path = os.path.join(folder, entry, "entry_points.txt")
                for name, value in _entry_points_in(path, ADAPTERS_GROUP):
                    found.setdefault(name, value)
                if tool is not None and tool in found:
                    return found
    return found


def own_tools() -> dict[str, str]:
    """Tool name -> ``module:attribute`` of each agent tool teambrain's own distributions
    declare."""
    return _own_entry_points(None)


def _plugin_tool(tool: str) -> str | None:
    """``module:attribute`` of the agent tool another installed package declares as ``tool``
    (the first one found), or None; only asked when teambrain declares no such tool."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=ADAPTERS_GROUP):
        distribution = (getattr(entry.dist, "name", None) or "").replace("-", "_").lower()
        if entry.name == tool and distribution not in OWN_DISTRIBUTIONS:
            return str(entry.value)
    return None


class UnknownTool(LookupError):
    """No installed package declares the tool, or its module reads no hooks; one line."""


def hook_module(tool: str) -> ModuleType:
    """The module of agent tool ``tool``, whose ``read_hook`` reads its payloads: found by the
    ``teambrain.adapters`` entry point that declares the tool (teambrain's own first, then other
    installed packages'), imported by name. :class:`UnknownTool` says why there is none."""
    target = _own_entry_points(tool).get(tool) or _plugin_tool(tool)
    if target is None:
        known = ", ".join(sorted(own_tools())) or "none"
        raise UnknownTool(
            f"unknown tool; no installed package declares it ({ADAPTERS_GROUP}: {known})"
        )
    name = target.partition(":")[0].strip()
    __import__(name)  # not importlib.import_module: the importlib package costs the hook 0.5 ms
    module = sys.modules[name]
    if not callable(getattr(module, READER, None)):
        raise UnknownTool(f"{module.__name__} defines no {READER}(): this tool records no sessions")
    return module


def hook_reader(tool: str) -> HookReader:
    """The function that reads agent tool ``tool``'s hook payloads (see :func:`hook_module`)."""
    reader: HookReader = getattr(hook_module(tool), READER)
    return reader


def repo_relative(path: str, cwd: str, root: str) -> str | None:
    """``path`` relative to the repository root, or None when it lies outside the repository
    (a path outside the repository is nobody's business)."""
    if (
        not path
        or path.startswith("~")
        or path.startswith("\\\\")  # a Windows UNC path
        or (len(path) > 2 and path[0].isalpha() and path[1] == ":" and path[2] in "\\/")
        or any(ord(char) < 32 or ord(char) == 127 for char in path)
    ):
        return None  # a home-relative, Windows or control-character path is not a repo path
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    root = os.path.normpath(root)
    if absolute == root:
        return "."
    if not absolute.startswith(root + os.sep):
        real = os.path.realpath(absolute)
        if not real.startswith(root + os.sep):
            return None
        absolute = real
    relative = absolute[len(root) + 1 :]
    return relative[:1024] if relative else None
