"""The primitives the capture hook needs, at the cost of a bare interpreter.

``tb-capture`` runs on every agent tool call, so this module imports only modules that are
built in or already loaded at start-up (``os``, ``sys``, ``time``, ``fcntl``, ``_json``): no
``re``, ``json``, ``dataclasses``, ``pathlib``, ``typing`` or ``hashlib``. :mod:`._spool` builds
its public API on these same functions, so there is one implementation of each.
"""

from __future__ import annotations

import _json  # the C accelerator behind ``json``; importing ``json`` itself pulls in ``re``
import fcntl
import os
import time

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SID_MAX = 128
OPEN_SESSIONS_DIR = "open"  # spool/open/<sid>.json: the sessions tb-capture has open
UNKNOWN_MODEL = "unknown"  # the envelope's model when the tool has not said which
_SID_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_SID_REST = _SID_FIRST | frozenset("._-")
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class JsonError(ValueError):
    """Text that is not one JSON value."""


class _ScanContext:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _no_default(value: object) -> object:
    raise TypeError(f"{value.__class__.__name__} is not JSON serializable")


_scan = _json.make_scanner(_ScanContext)  # type: ignore[arg-type]  # typeshed wants an instance
_encode = _json.make_encoder(
    {}, _no_default, _json.encode_basestring, None, ":", ",", False, False, True
)


def loads(text: str) -> object:
    """Parse one JSON document (what ``json.loads`` accepts, minus the ``re`` import)."""
    start = len(text) - len(text.lstrip(" \t\n\r"))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise JsonError("no JSON value") from None
    except RecursionError:
        raise JsonError("JSON nested too deeply") from None
    except (ValueError, SystemError):
        # Without ``json.decoder`` loaded, CPython 3.11's scanner fails on most malformed text
        # (say, cut off inside a string) with an empty SystemError; only then is ``json``
        # worth importing, to say what is wrong and where.
        raise JsonError(_describe_malformed(text)) from None
    if text[end:].strip(" \t\n\r"):
        raise JsonError(f"extra data after the JSON value at offset {end}")
    return value


def _describe_malformed(text: str) -> str:
    import json

    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg.startswith("Unterminated string"):
            return f"cut off inside a string that starts at offset {exc.pos}"
        return f"{exc.msg} at offset {exc.pos}"
    except RecursionError:
        return "JSON nested too deeply"
    except ValueError as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else "not JSON"
    return "not JSON"


def dumps(value: object) -> str:
    """Compact JSON (``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``)."""
    return "".join(_encode(value, 0))


def teambrain_home() -> str:
    """``$TEAMBRAIN_HOME`` when set, else ``~/.teambrain``: schema's one rule, as a string."""
    from teambrain_kit.home import teambrain_home_dir

    return teambrain_home_dir()


def safe_sid(raw: str) -> str:
    """A file-name-safe session id: ``raw`` itself when it already is, else a stable hash of it."""
    if (
        0 < len(raw) <= SID_MAX
        and raw[0] in _SID_FIRST
        and all(char in _SID_REST for char in raw)
        and raw not in (".", "..")
    ):
        return raw
    import hashlib  # rare path: tools send UUID-like ids

    return "h-" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def utc_stamp(epoch: float | None = None) -> str:
    """ISO-8601 UTC with milliseconds and a ``Z`` (the envelope's ``t``)."""
    moment = time.time() if epoch is None else epoch
    whole = int(moment)
    micros = round((moment - whole) * 1_000_000)  # as datetime.fromtimestamp rounds
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    elif micros < 0:
        whole, micros = whole - 1, micros + 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{micros // 1000:03d}Z"


def make_private_dirs(path: str) -> None:
    """Create directory ``path`` (and every missing parent) with mode 0700."""
    if os.path.isdir(path):
        return
    from teambrain_kit.private_dirs import ensure_private_dir

    ensure_private_dir(path)


def append_line(path: str, data: bytes) -> None:
    """Append ``data`` (one line ending in a newline) to ``path`` atomically with respect to other
    appenders: one ``write`` loop under ``flock`` on an ``O_APPEND`` descriptor. A torn line left
    by a writer killed mid-append stays its own (unreadable) line instead of swallowing ours.

    A write that fails (a full disk) leaves the file as it was: a partial line is cut off again
    and a file this call created is removed, so no empty file is left behind; the OSError is
    raised. The file is re-checked under the lock, so a writer that waited on a file another
    one removed opens the path again instead of writing into the removed file."""
    make_private_dirs(os.path.dirname(path))
    for _attempt in range(100):
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, PRIVATE_FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            try:
                named = os.stat(path)
            except FileNotFoundError:
                continue  # removed while we waited for the lock: open it again
            if (named.st_ino, named.st_dev) != (held.st_ino, held.st_dev):
                continue
            size = held.st_size
            line = b"\n" + data if size and os.pread(fd, 1, size - 1) != b"\n" else data
            try:
                view = memoryview(line)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
            except OSError:
                _undo_append(path, fd, size)
                raise
            return
        finally:
            os.close(fd)  # closing releases the lock
    raise OSError(f"{path} kept being replaced while appending")


def _undo_append(path: str, fd: int, size: int) -> None:
    """Put a file back as it was before a failed append (shrinking needs no free space)."""
    try:
        if size == 0:
            os.unlink(path)  # we still hold the lock: a waiting writer sees it gone
        else:
            os.ftruncate(fd, size)
    except OSError:
        return


def envelope(
    ev: str, data: dict[str, object] | str, keys: dict[str, str], *, epoch: float | None = None
) -> dict[str, object]:
    """An envelope v1 as a plain dict: ``v``, the join keys, ``t``, ``ev``, ``data``."""
    return {
        "v": 1,
        "sid": keys["sid"],
        "tool": keys["tool"],
        "model": keys["model"],
        "repo": keys["repo"],
        "branch": keys["branch"],
        "t": utc_stamp(epoch),
        "ev": ev,
        "data": data,
    }


def session_path(home: str, sid: str) -> str:
    """``<home>/spool/sessions/<sid>.jsonl`` (``sid`` already file-name safe)."""
    return os.path.join(home, "spool", "sessions", sid + ".jsonl")
