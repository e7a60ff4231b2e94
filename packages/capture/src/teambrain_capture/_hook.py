"""``tb-capture <tool>``: the hook command ``tb install`` writes into each agent tool's config.

It reads one hook payload on stdin, turns it into contract envelope events and appends them to
``$TEAMBRAIN_HOME/spool/sessions/<sid>.jsonl``. It never blocks or breaks the agent: whatever
goes wrong is logged as one line to ``logs/capture.log`` and it still exits 0, printing nothing
unless the tool's protocol wants an answer (its module's ``hook_reply``: Cursor expects JSON).
What a payload means is the tool's business: its module's ``read_hook``, found by the tool's
``teambrain.adapters`` entry point (:func:`._hookmap.hook_module`). Everything heavier than the
standard library's built-ins loads only on the rare events that need it (session start and end,
prompts), so a tool-call hook costs about as much as starting the interpreter.
"""

from __future__ import annotations

import os
import sys
import time

from . import _gitinfo as git
from ._hookmap import (
    ABANDON_REASONS,
    END,
    IGNORE,
    PLAN,
    PROMPT,
    REPLY,
    START,
    TOOL,
    Hook,
    UnknownTool,
    hook_module,
    repo_relative,
)
from ._lite import (
    OPEN_SESSIONS_DIR,
    UNKNOWN_MODEL,
    JsonError,
    append_line,
    dumps,
    envelope,
    loads,
    make_private_dirs,
    safe_sid,
    session_path,
    teambrain_home,
    utc_stamp,
)

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing is too slow for the hook
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from types import ModuleType
    from typing import BinaryIO, TextIO

    from teambrain_schema.paths import MachineLayout

MAX_PAYLOAD_BYTES = 32 * 1024 * 1024  # a Read of a huge file arrives with its content
MAX_LOG_BYTES = 1024 * 1024
MAX_IDLE_CLOSES = 10  # per session start, so a pile of forgotten sessions cannot slow one hook
TRANSCRIPT_TAIL_BYTES = 256 * 1024  # where the latest assistant entry of a transcript lies
USAGE = "usage: tb-capture <tool>  (the hook command `tb install <tool>` writes; reads a hook payload on stdin)"
_STATE_DIR = ("spool", OPEN_SESSIONS_DIR)  # one small JSON file per open session


def state_path(home: str, sid: str) -> str:
    """Where the open-session state of ``sid`` lives."""
    return os.path.join(home, *_STATE_DIR, sid + ".json")


def log_problem(home: str, tool: str, message: str) -> bool:
    """One line in ``logs/capture.log``; never the payload, which may hold private text.
    Returns whether it could be written."""
    path = os.path.join(home, "logs", "capture.log")
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} tb-capture {tool}: {message}\n"
    try:
        if os.path.exists(path) and os.path.getsize(path) > MAX_LOG_BYTES:
            os.replace(path, path + ".1")
        append_line(path, line.encode("utf-8", "replace"))
    except OSError:
        return False  # nowhere to complain to; the agent must not notice
    return True


_DROPPED_DIR = ("spool", "dropped")
_dropped_here: list[str] = []


def note_dropped(home: str, sid: str, now: float) -> None:
    """Remember that an event of ``sid`` could not be written (a full disk): an empty file
    whose name says when and for which session. A name needs no free data blocks, only an
    inode, so this works when the log line cannot be written; the next hook that can write
    reports it (:func:`report_dropped`)."""
    directory = os.path.join(home, *_DROPPED_DIR)
    _dropped_here.append(sid)  # one name per drop, also within one process and millisecond
    name = f"{int(now * 1000)}-{os.getpid()}.{len(_dropped_here)}-{sid}"
    try:
        make_private_dirs(directory)
        os.close(
            os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        )
    except OSError:
        return


def report_dropped(home: str, tool: str) -> None:
    """Log, once the disk takes writes again, how many events of which sessions were dropped
    and when; the markers are removed once the line is written."""
    directory = os.path.join(home, *_DROPPED_DIR)
    if not os.path.isdir(directory):  # the usual case: one stat
        return
    try:
        names = os.listdir(directory)
    except OSError:
        return
    dropped: dict[str, list[int]] = {}
    for name in names:
        stamp, _, rest = name.partition("-")
        _pid, _, sid = rest.partition("-")
        if stamp.isdigit() and sid:
            dropped.setdefault(sid, []).append(int(stamp))
    for sid, stamps in sorted(dropped.items()):
        first, last = (utc_stamp(min(stamps) / 1000), utc_stamp(max(stamps) / 1000))
        span = first if first == last else f"{first} and {last}"
        message = (
            f"{len(stamps)} event(s) of session {sid} were dropped at {span}: the disk was full "
            "or not writable"
        )
        if not log_problem(home, tool, message):
            return
        for name in names:
            if name.endswith(f"-{sid}"):
                try:  # noqa: SIM105  (contextlib costs the hook an import)
                    os.unlink(os.path.join(directory, name))
                except OSError:
                    pass


def protocol_reply(module: ModuleType | None, payload: Mapping[str, object] | None) -> str:
    """What the tool expects on stdout: its module's ``hook_reply`` says (Cursor parses hook
    output as JSON); the others need none (Codex and Gemini would treat stray output as context
    or as a message to the user)."""
    reply = getattr(module, REPLY, None)
    if not callable(reply):
        return ""
    try:
        return str(reply(payload))
    except Exception:  # a tool module's bug must not break the agent either
        return ""


def _read_state(path: str) -> dict[str, object] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            state = loads(handle.read())
    except (OSError, JsonError):
        return None
    return state if isinstance(state, dict) else None


def _save_state(home: str, sid: str, state: Mapping[str, object]) -> None:
    """Rewrite an open session's state (atomically; never brings back a closed session's)."""
    path = state_path(home, sid)
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dumps(state))
    except OSError:
        _remove(temporary)
        raise
    if os.path.exists(path):
        os.replace(temporary, path)
    else:
        os.unlink(temporary)


def transcript_model(path: str) -> str | None:
    """The model of the latest assistant entry of a Claude Code transcript (JSONL): the API
    response's ``message.model``, metadata only. Reads the file's tail, parses only the lines
    that are assistant entries; message text is never looked at."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - TRANSCRIPT_TAIL_BYTES))
            tail = handle.read()
    except OSError:
        return None
    for line in reversed(tail.split(b"\n")):
        if b'"type":"assistant"' not in line or b'"model":' not in line:
            continue
        try:
            entry = loads(line.decode("utf-8"))
        except (JsonError, UnicodeDecodeError):
            continue  # the tail's first line may start mid-entry
        message = entry.get("message") if isinstance(entry, dict) else None
        model = message.get("model") if isinstance(message, dict) else None
        # "<synthetic>" marks entries Claude Code wrote itself (errors, interruptions).
        if isinstance(model, str) and model and not model.startswith("<"):
            return model[:256]
    return None


def _git_fields(cwd: str) -> dict[str, object]:
    found = git.find_git(cwd)
    if found is None:
        root = os.path.realpath(cwd)
        return {"root": root, "repo": git.repo_identity(root, None), "git_dir": None, "common_dir": None, "head": None}  # fmt: skip
    root, git_dir, common_dir = found
    return {
        "root": root,
        "repo": git.repo_identity(root, common_dir),
        "git_dir": git_dir,
        "common_dir": common_dir,
        "head": git.read_head_sha(git_dir, common_dir),
    }


def branch_of(state: Mapping[str, object]) -> str:
    git_dir = state.get("git_dir")
    return git.read_branch(git_dir) if isinstance(git_dir, str) else git.NO_BRANCH


def keys_for(state: Mapping[str, object], model: str | None) -> dict[str, str]:
    """The join keys of an event written now."""
    return {
        "sid": str(state["sid"]),
        "tool": str(state["tool"]),
        "model": (model or str(state.get("model") or "") or UNKNOWN_MODEL)[:256],
        "repo": str(state["repo"]),
        "branch": branch_of(state)[:256] or git.NO_BRANCH,
    }


def _scrubbed(text: str) -> str:
    from teambrain_schema.scrub import scrub_text

    return scrub_text(text)


def _append(home: str, event: dict[str, object]) -> None:
    """Write ``event`` to its session's spool file, every string field scrubbed first: a token
    or a ``<private>`` span can arrive in any field of a payload (the model, a file path)."""
    from teambrain_schema.scrub import scrub

    # v, sid (already file-name safe), tool (our argument), t and ev are ours; the rest came in.
    clean = {k: (v if k in ("v", "sid", "tool", "t", "ev") else scrub(v)) for k, v in event.items()}
    append_line(session_path(home, str(clean["sid"])), (dumps(clean) + "\n").encode("utf-8"))


def open_session(home: str, tool: str, sid: str, hook: Hook, now: float) -> dict[str, object]:
    """The state of session ``sid``, opening it (and writing ``session_start``) when this is the
    first event we see of it."""
    path = state_path(home, sid)
    state = _read_state(path)
    if state is not None:
        return state
    cwd = hook.cwd if hook.cwd and os.path.isdir(hook.cwd) else os.getcwd()
    state = {"sid": sid, "tool": tool, "start": now, "model": hook.model, **_git_fields(cwd)}
    make_private_dirs(os.path.dirname(path))
    try:  # O_EXCL: when two hooks of a new session race, one opens it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return _read_state(path) or state
    keys = keys_for(state, hook.model)
    try:  # an empty state file would hide this session's start for good: none, or a whole one
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dumps(state))
        _append(home, envelope("session_start", {}, keys, epoch=now))
    except OSError:
        _remove(path)
        raise
    _after_open(home, state, keys, now)
    return state


def _remove(path: str) -> None:
    try:  # noqa: SIM105  (contextlib costs the hook an import)
        os.unlink(path)
    except OSError:
        pass


def _registry_args(home: str, state: Mapping[str, object]) -> tuple[MachineLayout, Path]:
    """What the active-session registry (``_active``) takes; loaded only when a session opens
    or ends, since pathlib and the schema package cost the tool-call path too much."""
    from pathlib import Path

    from teambrain_schema.paths import machine_layout

    return machine_layout(Path(home)), Path(str(state["root"]))


def _after_open(home: str, state: Mapping[str, object], keys: dict[str, str], now: float) -> None:
    """Tell the MCP server which session runs here, and close sessions long gone silent."""
    from ._active import STALE_AFTER_S, mark_session_active
    from ._spool import JoinKeys

    mark_session_active(*_registry_args(home, state), JoinKeys(**keys))
    common_dir = state.get("common_dir")
    if isinstance(common_dir, str):  # the key it is filed under, for when its remote changes
        from ._repos import note_repo_key

        note_repo_key(_registry_args(home, state)[0], common_dir, str(state["repo"]))
    close_idle_sessions(home, now, STALE_AFTER_S, keep=str(state["sid"]))


def _turns(home: str, sid: str) -> int:
    """User prompts since the session last started (a resumed session reuses its file)."""
    try:
        with open(session_path(home, sid), "rb") as handle:
            lines = handle.read().split(b"\n")
    except OSError:
        return 0
    turns = 0
    for line in lines:  # both writers (hook, MCP server) use the same compact JSON
        if b'"ev":"session_start"' in line:
            turns = 0
        elif b'"ev":"intent"' in line:
            turns += 1
    return turns


def close_session(
    home: str, state: Mapping[str, object], *, reason: str | None, model: str | None, at: float
) -> None:
    """Write ``session_end`` (outcome, duration, turns, commits) and forget the session."""
    sid = str(state["sid"])
    commits: list[str] = []
    git_dir, common_dir, start_head = (
        state.get("git_dir"),
        state.get("common_dir"),
        state.get("head"),
    )
    if isinstance(git_dir, str) and isinstance(common_dir, str):
        end_head = git.read_head_sha(git_dir, common_dir)
        if end_head and end_head != start_head:
            start = float(state["start"])  # type: ignore[arg-type]
            commits = git.commits_between(
                str(state["root"]),
                start_head if isinstance(start_head, str) else None,
                end_head,
                start - 1,
            )
    if commits:
        outcome = "committed"
    elif reason and reason.lower() in ABANDON_REASONS:
        outcome = "abandoned"
    else:
        outcome = "unknown"
    started = float(state.get("start") or at)  # type: ignore[arg-type]
    data = {
        "outcome": outcome,
        "duration_s": round(max(0.0, at - started), 3),
        "turns": _turns(home, sid),
        "commit_shas": commits,
    }
    _append(home, envelope("session_end", data, keys_for(state, model), epoch=at))
    try:  # noqa: SIM105  (contextlib costs the hook an import)
        os.unlink(state_path(home, sid))
    except FileNotFoundError:
        pass
    from ._active import mark_session_ended

    mark_session_ended(*_registry_args(home, state), sid)


def close_idle_sessions(home: str, now: float, idle_s: float, *, keep: str | None = None) -> int:
    """End sessions silent for ``idle_s`` seconds (tools without a session-end hook, crashes);
    their ``session_end`` is dated at their last event. Closes at most ``MAX_IDLE_CLOSES`` per
    call; returns how many it closed."""
    directory = os.path.join(home, *_STATE_DIR)
    closed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if closed >= MAX_IDLE_CLOSES:
            break
        sid = entry.name.removesuffix(".json")
        if not entry.name.endswith(".json") or sid == keep:
            continue
        try:
            last = os.path.getmtime(session_path(home, sid))
        except OSError:
            last = entry.stat().st_mtime
        if now - last < idle_s:
            continue
        state = _read_state(entry.path)
        if state is None or "sid" not in state:
            continue
        close_session(home, state, reason="idle", model=None, at=last)
        closed += 1
    return closed


def record(home: str, tool: str, hook: Hook, now: float | None = None) -> None:
    """Append the events ``hook`` stands for to its session's spool file."""
    if hook.kind == IGNORE:
        return
    if not hook.sid:
        raise ValueError("payload has no session id")
    moment = time.time() if now is None else now
    sid = safe_sid(hook.sid)
    known = _read_state(state_path(home, sid))
    if hook.kind == END and known is None:
        # The end of a session we never saw open (or closed as idle already): nothing to close.
        # Claude Code fires SessionEnd alone for `claude mcp list` and `claude mcp get`.
        return
    if hook.model:  # kept in spool/open and spool/active too: scrubbed like every field
        hook.model = _scrubbed(hook.model)
    if hook.transcript and not hook.model and not (known or {}).get("model"):
        hook.model = transcript_model(hook.transcript)
        hook.model = _scrubbed(hook.model) if hook.model else hook.model
        if hook.model and known is not None and hook.kind != END:
            known["model"] = hook.model  # read the transcript once per session, not per hook
            _save_state(home, sid, known)
    state = known if known is not None else open_session(home, tool, sid, hook, moment)
    if hook.kind == START:
        return
    if hook.kind == END:
        close_session(home, state, reason=hook.reason, model=hook.model, at=moment)
        return
    keys = keys_for(state, hook.model)
    if hook.kind == PROMPT:
        from ._intent import summarise_intent

        # The contract's shape: the payload is the summary string itself.
        _append(home, envelope("intent", summarise_intent(hook.prompt or ""), keys, epoch=moment))
    elif hook.kind == PLAN:
        _append(home, envelope("plan_revision", hook.data, keys, epoch=moment))
    elif hook.kind == TOOL:
        data = dict(hook.data)
        path = data.pop("path", None)
        if isinstance(path, str):
            cwd = hook.cwd or str(state["root"])
            relative = repo_relative(path, cwd, str(state["root"]))
            if relative is not None:
                data["path"] = relative
        _append(home, envelope("tool_use", data, keys, epoch=moment))


def run_capture_hook(
    argv: list[str], stdin: BinaryIO, stdout: TextIO, env: Mapping[str, str]
) -> int:
    """One hook invocation; always returns 0."""
    tool = argv[0] if argv else ""
    if tool in ("", "-h", "--help"):
        print(USAGE, file=sys.stderr)
        return 0
    home = teambrain_home()
    payload: dict[str, object] | None = None
    module: ModuleType | None = None
    try:
        try:
            module = hook_module(tool)
        except UnknownTool as exc:
            log_problem(home, tool, str(exc))
            return 0
        raw = stdin.read(MAX_PAYLOAD_BYTES + 1)
        if len(raw) > MAX_PAYLOAD_BYTES:
            log_problem(home, tool, f"payload larger than {MAX_PAYLOAD_BYTES} bytes; skipped")
            return 0
        try:
            parsed = loads(raw.decode("utf-8", "replace"))
        except JsonError as exc:
            log_problem(home, tool, f"malformed payload ({len(raw)} bytes): {exc}")
            return 0
        if not isinstance(parsed, dict):
            log_problem(
                home, tool, f"malformed payload: a JSON {type(parsed).__name__}, not an object"
            )
            return 0
        payload = parsed
        hook = module.read_hook(payload, env)
        if not isinstance(hook, Hook):
            raise TypeError(f"{module.__name__}.read_hook gave {type(hook).__name__}, not a Hook")
        try:
            record(home, tool, hook)
        except OSError as exc:  # a full disk: nothing half-written is left; say so later
            note_dropped(home, safe_sid(hook.sid or "unknown"), time.time())
            raise exc from None
        report_dropped(home, tool)
    except Exception as exc:  # never break the agent
        detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
        log_problem(home, tool, f"{exc.__class__.__name__}: {detail}")
    finally:
        reply = protocol_reply(module, payload)
        if reply:
            stdout.write(reply + "\n")
            stdout.flush()
    return 0


def main() -> int:
    """Console-script entry point of ``tb-capture``."""
    try:
        return run_capture_hook(sys.argv[1:], sys.stdin.buffer, sys.stdout, os.environ)
    except BaseException:  # KeyboardInterrupt, BrokenPipe…: still never fail the hook
        return 0
