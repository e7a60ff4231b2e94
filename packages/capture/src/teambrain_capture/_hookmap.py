"""What each agent tool's hook payload means, as one :class:`Hook`.

One normaliser per adapter in :data:`NORMALISERS`, a function named for the tool (the adapter
registry checks that every adapter with hooks has one). Everything else about a tool — where it
is wired, its docs, its user steps — is its module in teambrain_cli/_agent_tools/tools/, which
names its normaliser here; the normalisers stay in this one module because the hook must start
fast and import nothing else. They read the tool's documented payload fields and keep only metadata: the
kind of tool call and the file it touched, never the file's content, a command line or a search
pattern. Hot path: plain functions and built-in types, no imports beyond ``os``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is too slow for the hook
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    Normaliser = Callable[[Mapping[str, object], Mapping[str, str]], "Hook"]

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


def _text(payload: Mapping[str, object], *keys: str) -> str | None:
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _first_root(payload: Mapping[str, object], key: str) -> str | None:
    """The first of the workspace roots a payload lists under ``key`` (Cursor, Auggie, Cline)."""
    roots = payload.get(key)
    return roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None


def _mapping(value: object) -> Mapping[str, object]:
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
    value = _text(tool_input, *_PATH_KEYS)
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
        command = _text(tool_input, "command", "cmd", "command_line", "commandLine")
        if command and is_test_command(command):
            data["kind"] = "test"
    if kind in ("command", "test"):
        code = exit_code_of(_mapping(response) or response)
        if code is None and failed:
            code = exit_code_of(response)
        if code is None and success_means_zero and not failed:
            code = 0
        if code is not None:
            data["exit_code"] = code
        return Hook(TOOL, data=data)
    path = tool_path(tool_input)
    if path is None and _squash(name) == "applypatch":
        patch = _text(tool_input, "command", "patch", "input")
        path = _patch_path(patch) if patch else None
    if path:
        data["path"] = path
    return Hook(TOOL, data=data)


def _claude_shaped(payload: Mapping[str, object], *, success_means_zero: bool) -> Hook:
    """Claude Code, Codex CLI and Gemini CLI share this payload shape (snake_case).
    ``success_means_zero``: the tool fires PostToolUse only for commands that exited 0."""
    event = _text(payload, "hook_event_name") or ""
    if event in ("SessionStart",):
        hook = Hook(START, source=_text(payload, "source"))
    elif event in ("UserPromptSubmit", "BeforeAgent"):
        hook = Hook(PROMPT, prompt=_text(payload, "prompt") or "")
    elif event in ("PostToolUse", "PostToolUseFailure", "AfterTool"):
        failed = event == "PostToolUseFailure"
        response = payload.get("error") if failed else payload.get("tool_response")
        hook = tool_hook(
            _text(payload, "tool_name") or "",
            _mapping(payload.get("tool_input")),
            response,
            failed=failed,
            success_means_zero=success_means_zero,
        )
    elif event == "SessionEnd":
        hook = Hook(END, reason=_text(payload, "reason"))
    else:
        return Hook(IGNORE)
    hook.sid = _text(payload, "session_id")
    hook.cwd = _text(payload, "cwd")
    hook.model = _text(payload, "model")
    return hook


def claude_code(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Claude Code hooks (``.claude/settings.json``)."""
    # Cursor and VS Code also run the hooks in .claude/settings.json, with their own payloads;
    # their own adapters capture those sessions, so here they would be counted twice.
    if "cursor_version" in payload or "conversation_id" in payload:
        return Hook(IGNORE, reason="cursor payload in the claude-code hook")
    if "hookEventName" in payload or "sessionId" in payload:
        return Hook(IGNORE, reason="vscode payload in the claude-code hook")
    # A failed Bash call fires PostToolUseFailure ("Exit code N"), so PostToolUse means exit 0.
    hook = _claude_shaped(payload, success_means_zero=True)
    hook.cwd = hook.cwd or env.get("CLAUDE_PROJECT_DIR")
    # Only interactive sessions put the model in SessionStart; `claude -p` never does. The
    # transcript's assistant entries carry it (message.model) from the first reply on.
    hook.transcript = _text(payload, "transcript_path")
    return hook


def codex(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Codex CLI hooks (``[hooks]`` in ``.codex/config.toml`` or ``.codex/hooks.json``)."""
    # Codex fires PostToolUse after failing commands too: no exit code unless it reports one.
    return _claude_shaped(payload, success_means_zero=False)


def gemini_cli(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Gemini CLI hooks (``hooks`` in ``.gemini/settings.json``)."""
    hook = _claude_shaped(payload, success_means_zero=False)
    hook.sid = hook.sid or env.get("GEMINI_SESSION_ID")
    hook.cwd = hook.cwd or env.get("GEMINI_PROJECT_DIR")
    request = payload.get("llm_request")
    if hook.model is None and isinstance(request, dict):
        hook.model = _text(request, "model")
    return hook


def cursor(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Cursor hooks (``.cursor/hooks.json``)."""
    event = _text(payload, "hook_event_name") or ""
    if event == "sessionStart":
        hook = Hook(START)
    elif event == "beforeSubmitPrompt":
        hook = Hook(PROMPT, prompt=_text(payload, "prompt") or "")
    elif event in ("postToolUse", "postToolUseFailure"):
        failed = event == "postToolUseFailure"
        hook = tool_hook(
            _text(payload, "tool_name") or "",
            _mapping(payload.get("tool_input")),
            payload.get("error_message") if failed else payload.get("tool_output"),
            failed=failed,
        )
    elif event == "sessionEnd":
        hook = Hook(END, reason=_text(payload, "reason"))
    else:
        return Hook(IGNORE)
    hook.sid = _text(payload, "session_id", "conversation_id")
    hook.cwd = (
        _text(payload, "cwd")
        or _first_root(payload, "workspace_roots")
        or env.get("CURSOR_PROJECT_DIR")
    )
    hook.model = _text(payload, "model_id", "model")
    return hook


def vscode(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """VS Code (Copilot agent mode) hooks (``.github/hooks/*.json``)."""
    # Copilot CLI runs every file in .github/hooks/ too, with snake_case payloads (VS Code's are
    # camelCase); `tb-capture copilot-cli` records those sessions.
    if "session_id" in payload and "sessionId" not in payload:
        return Hook(IGNORE, reason="copilot-cli payload in the vscode hook")
    event = _text(payload, "hookEventName", "hook_event_name") or ""
    if event == "SessionStart":
        hook = Hook(START, source=_text(payload, "source"))
    elif event == "UserPromptSubmit":
        hook = Hook(PROMPT, prompt=_text(payload, "prompt") or "")
    elif event == "PostToolUse":
        hook = tool_hook(
            _text(payload, "tool_name") or "",
            _mapping(payload.get("tool_input")),
            payload.get("tool_response"),
        )
    elif event == "Stop":  # VS Code documents Stop as "the agent session ends"
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = _text(payload, "sessionId", "session_id")
    hook.cwd = _text(payload, "cwd")
    return hook


def qwen_code(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Qwen Code hooks (``hooks`` in ``.qwen/settings.json``): Claude Code's shape."""
    # Qwen Code fires UserPromptSubmit again, with an empty prompt, before each continuation
    # after a tool result (0.24.4): not something the user asked.
    if payload.get("hook_event_name") == "UserPromptSubmit" and not _text(payload, "prompt"):
        return Hook(IGNORE, reason="qwen-code continuation, not a prompt")
    # Its PostToolUse fires for failed tools too (PostToolUseFailure exists as well).
    hook = _claude_shaped(payload, success_means_zero=False)
    hook.cwd = hook.cwd or env.get("QWEN_PROJECT_DIR")
    return hook


def copilot_cli(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """GitHub Copilot CLI hooks (``.github/hooks/*.json``, Claude-compatible event names)."""
    # VS Code runs the files in .github/hooks/ too, with camelCase payloads: its own adapter
    # records those sessions.
    if "sessionId" in payload or "hookEventName" in payload:
        return Hook(IGNORE, reason="vscode payload in the copilot-cli hook")
    event = _text(payload, "hook_event_name") or ""
    if event in ("PostToolUse", "PostToolUseFailure"):
        if "-" in (_text(payload, "tool_name") or ""):
            # MCP tools are `<server>-<tool>` (built-in ones never have a hyphen); teambrain's
            # own calls are recorded by its server.
            return Hook(IGNORE, reason="an MCP tool")
        result = _mapping(payload.get("tool_result"))
        failed = event == "PostToolUseFailure" or result.get("result_type") in ("failure", "error")
        hook = tool_hook(
            _text(payload, "tool_name") or "",
            _mapping(payload.get("tool_input")),
            payload.get("error")
            if event == "PostToolUseFailure"
            else result or payload.get("tool_response"),
            failed=failed,
        )
        hook.sid = _text(payload, "session_id")
        hook.cwd = _text(payload, "cwd")
        return hook
    return _claude_shaped(payload, success_means_zero=False)


# Auggie's built-in tools, by what they do (its names say too little for classify_tool).
_AUGGIE_TOOLS = {
    "launch-process": "Bash", "view": "Read", "view-range-untruncated": "Read",
    "save-file": "Write", "remove-files": "Delete", "str-replace-editor": "Edit",
    "apply_patch": "apply_patch", "codebase-retrieval": "Search",
}  # fmt: skip


def auggie(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Auggie (Augment Code CLI) hooks (``hooks`` in ``.augment/settings.json``)."""
    event = _text(payload, "hook_event_name") or ""
    if event == "SessionStart":
        hook = Hook(START)
    elif event == "PromptSubmit":
        hook = Hook(PROMPT, prompt=_text(payload, "user_prompt") or "")
    elif event == "PostToolUse":
        if payload.get("is_mcp_tool") is True:
            return Hook(IGNORE, reason="an MCP tool")  # teambrain's own: recorded by its server
        name = _text(payload, "tool_name") or ""
        error = payload.get("tool_error")
        hook = tool_hook(
            _AUGGIE_TOOLS.get(name, name),
            _mapping(payload.get("tool_input")),
            error if error else payload.get("tool_output"),
            failed=bool(error),
        )
    elif event == "SessionEnd":
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = _text(payload, "conversation_id") or env.get("AUGMENT_CONVERSATION_ID")
    hook.cwd = _first_root(payload, "workspace_roots") or env.get("AUGMENT_PROJECT_DIR")
    return hook


# Cline's hook files are named after the event (TaskStart, PostToolUse...); 3.0.65's payloads
# name it by its internal hook (agent_start, tool_result...). Either is read.
_CLINE_EVENTS = {
    "agent_start": START, "TaskStart": START, "agent_resume": START, "TaskResume": START,
    "prompt_submit": PROMPT, "UserPromptSubmit": PROMPT,
    "tool_result": TOOL, "PostToolUse": TOOL,
    "agent_end": END, "TaskComplete": END, "agent_abort": END, "TaskCancel": END,
}  # fmt: skip


def cline(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Cline hooks (executables in ``.clinerules/hooks/``)."""
    kind = _CLINE_EVENTS.get(_text(payload, "hookName") or "")
    if kind == START:
        hook = Hook(START)
    elif kind == PROMPT:
        asked = _mapping(payload.get("userPromptSubmit")) or _mapping(payload.get("prompt_submit"))
        hook = Hook(PROMPT, prompt=_text(asked, "prompt") or _text(payload, "prompt") or "")
    elif kind == TOOL:
        call = _mapping(payload.get("tool_result"))
        legacy = _mapping(payload.get("postToolUse"))
        name = _text(call, "name") or _text(legacy, "toolName") or ""
        if "__" in name:  # MCP tools are <server>__<tool>: teambrain's are recorded by its server
            return Hook(IGNORE, reason="an MCP tool")
        tool_input = dict(_mapping(call.get("input")) or _mapping(legacy.get("parameters")))
        files = tool_input.get("files")  # read_files: [{path, start_line, end_line}]
        if isinstance(files, list) and files and isinstance(files[0], dict):
            tool_input.setdefault("path", files[0].get("path"))
        commands = tool_input.get("commands")  # run_commands: [command, ...]
        if isinstance(commands, list) and commands and isinstance(commands[0], str):
            tool_input.setdefault("command", commands[0])
        failed = legacy.get("success") is False
        hook = tool_hook(
            name, tool_input, call.get("output") or legacy.get("result"), failed=failed
        )
    elif kind == END:
        hook = Hook(END, reason=_text(payload, "hookName"))
    else:
        return Hook(IGNORE)
    session = _mapping(payload.get("sessionContext"))
    hook.sid = _text(session, "rootSessionId") or _text(payload, "taskId")
    hook.cwd = _first_root(payload, "workspaceRoots")
    return hook


def factory_droid(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Factory Droid hooks (``hooks`` in ``.factory/settings.json``): Claude Code's shape."""
    if "___" in (_text(payload, "tool_name") or ""):
        # MCP tools are <server>___<tool>: teambrain's own calls are recorded by its server.
        return Hook(IGNORE, reason="an MCP tool")
    # 0.225.2 fires no PostToolUse for a tool call that returned an error; a command's exit
    # status is in its text, so none is assumed.
    hook = _claude_shaped(payload, success_means_zero=False)
    hook.cwd = hook.cwd or env.get("FACTORY_PROJECT_DIR")
    return hook


def opencode(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """opencode and Kilo Code, through the plugin ``tb install`` writes (.opencode/plugins/,
    .kilo/plugins/)."""
    event = _text(payload, "hook_event_name") or ""
    if event == "session.created":
        hook = Hook(START)
    elif event == "chat.message":
        hook = Hook(PROMPT, prompt=_text(payload, "prompt") or "")
    elif event == "tool.execute.after":
        name = _text(payload, "tool_name") or ""
        if "_" in name:  # MCP tools are <server>_<tool>; built-in tools are one word (read, bash)
            return Hook(IGNORE, reason="an MCP tool")
        hook = tool_hook(name, _mapping(payload.get("tool_input")), payload.get("tool_response"))
    elif event == "session.deleted":
        hook = Hook(END)
    else:
        return Hook(IGNORE)
    hook.sid = _text(payload, "session_id")
    hook.cwd = _text(payload, "cwd")
    hook.model = _text(payload, "model")
    return hook


def windsurf(payload: Mapping[str, object], env: Mapping[str, str]) -> Hook:
    """Windsurf Cascade hooks (``.windsurf/hooks.json``)."""
    event = _text(payload, "agent_action_name") or ""
    info = _mapping(payload.get("tool_info"))
    if event == "pre_user_prompt":
        hook = Hook(PROMPT, prompt=_text(info, "user_prompt") or "")
    elif event == "post_read_code":
        hook = Hook(TOOL, data={"kind": "explore"})
    elif event == "post_write_code":
        hook = Hook(TOOL, data={"kind": "edit"})
    elif event == "post_run_command":
        command = _text(info, "command_line") or ""
        data: dict[str, object] = {"kind": "test" if is_test_command(command) else "command"}
        code = exit_code_of(info)
        if code is not None:
            data["exit_code"] = code
        hook = Hook(TOOL, data=data)
    else:
        return Hook(IGNORE)
    if event in ("post_read_code", "post_write_code"):
        path = tool_path(info)
        if path:
            hook.data["path"] = path
    hook.sid = _text(payload, "trajectory_id")
    hook.cwd = _text(info, "cwd")
    return hook


NORMALISERS: dict[str, Normaliser] = {
    "claude-code": claude_code,
    "cursor": cursor,
    "codex": codex,
    "gemini-cli": gemini_cli,
    "vscode": vscode,
    "windsurf": windsurf,
    "qwen-code": qwen_code,
    "copilot-cli": copilot_cli,
    "auggie": auggie,
    "cline": cline,
    "factory-droid": factory_droid,
    "opencode": opencode,
    "kilocode": opencode,  # a fork of opencode, running the same plugin
}


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
