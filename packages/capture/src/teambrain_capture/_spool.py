"""The session spool: append-only JSONL files, one per agent session.

Stdlib only — this is the capture hook's hot path. Appends are serialised with ``flock`` and
written with one ``write`` on an ``O_APPEND`` descriptor, so concurrent hooks never interleave.
A writer killed mid-append can leave a torn last line; the next writer starts on a fresh line so
that fragment never swallows a complete event, and readers skip it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_kit.paths import MachineLayout

from ._lite import append_line, dumps, safe_sid


@dataclass(frozen=True)
class JoinKeys:
    """The keys every event carries, so sessions join across tools and reports."""

    sid: str
    tool: str
    model: str
    repo: str
    branch: str

    def as_dict(self) -> dict[str, str]:
        return {
            "sid": self.sid,
            "tool": self.tool,
            "model": self.model,
            "repo": self.repo,
            "branch": self.branch,
        }


def utc_timestamp(now: dt.datetime | None = None) -> str:
    """ISO-8601 UTC with milliseconds and a ``Z``, as events carry in ``t``."""
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def make_event(
    ev: str, data: dict[str, Any], keys: JoinKeys, *, now: dt.datetime | None = None
) -> dict[str, Any]:
    """An envelope v1 as a plain dict (validated against the schema in tests, not on the hot path)."""
    return {"v": 1, **keys.as_dict(), "t": utc_timestamp(now), "ev": ev, "data": data}


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (and every missing parent) with mode 0700."""
    from teambrain_kit.private_dirs import ensure_private_dir as ensure

    ensure(path)


def append_jsonl(path: Path, record: dict[str, Any]) -> None:
    """Append one JSON line to ``path`` atomically with respect to other appenders."""
    append_line(str(path), (dumps(record) + "\n").encode("utf-8"))


def append_event(machine: MachineLayout, event: dict[str, Any]) -> Path:
    """Append ``event`` to its session's spool file; returns the file."""
    path = machine.session_file(safe_sid(str(event["sid"])))
    append_jsonl(path, event)
    return path


# A session's spool file: thousands of small events at most; anything larger is not ours.
MAX_SESSION_BYTES = 64 * 1024 * 1024


@dataclass
class JsonlRead:
    """What a JSONL file held: the records that parsed, and how many lines did not."""

    records: list[dict[str, Any]] = field(default_factory=list)
    torn: int = 0
    # Why the file could not be read at all (a FIFO, too large, a symlink), or None.
    unreadable: str | None = None


def read_jsonl(path: Path) -> JsonlRead:
    """Every JSON object line of ``path``; torn or corrupt lines are counted, never raised."""
    result = JsonlRead()
    from teambrain_kit.local_files import loads_json, read_local_bytes

    try:
        raw = read_local_bytes(path, max_bytes=MAX_SESSION_BYTES)
    except FileNotFoundError:
        return result
    except OSError as exc:
        result.unreadable = str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__
        return result
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = loads_json(line)
        except (ValueError, UnicodeDecodeError):
            result.torn += 1
            continue
        if isinstance(record, dict):
            result.records.append(record)
        else:
            result.torn += 1
    return result


def session_files(machine: MachineLayout) -> list[Path]:
    """Every session spool file, oldest first (by modification time)."""
    if not machine.sessions.is_dir():
        return []
    files = [p for p in machine.sessions.glob("*.jsonl") if p.is_file()]
    return sorted(files, key=lambda p: (p.stat().st_mtime, p.name))


def iter_sessions(machine: MachineLayout) -> Iterator[tuple[Path, JsonlRead]]:
    """Each session file with its events, oldest first."""
    for path in session_files(machine):
        yield path, read_jsonl(path)


def prune_sessions(
    machine: MachineLayout, retention_days: int, *, now: dt.datetime | None = None
) -> list[Path]:
    """Delete session files not written to for ``retention_days``; returns what was removed."""
    cutoff = (now or dt.datetime.now(dt.UTC)).timestamp() - retention_days * 86400
    removed = []
    for path in session_files(machine):
        if path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed
