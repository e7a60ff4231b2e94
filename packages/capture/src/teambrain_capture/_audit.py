"""``tb audit``: what the capture hooks recorded on this machine, so a user can check it.

Per-session summaries, or every event of the last session exactly as stored. Each record is
also checked against the envelope schema and scanned with the secret rules, so a user does not
have to take our word that nothing private was kept. Sessions past the retention period are
pruned first.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_schema import MachineLayout, find_secrets

from ._lite import OPEN_SESSIONS_DIR, dumps
from ._spool import prune_sessions, read_jsonl, session_files


@dataclass
class SessionSummary:
    """One session file, summarised."""

    sid: str
    path: Path
    tool: str | None = None
    repo: str | None = None
    branch: str | None = None
    model: str | None = None
    started: str | None = None
    last_event: str | None = None
    ended: bool = False
    outcome: str | None = None
    duration_s: float | None = None
    turns: int = 0
    commits: list[str] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)
    tool_uses: Counter[str] = field(default_factory=Counter)
    torn_lines: int = 0
    invalid: int = 0
    secrets: int = 0

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape of a summary."""
        return {
            "sid": self.sid,
            "file": str(self.path),
            "tool": self.tool,
            "repo": self.repo,
            "branch": self.branch,
            "model": self.model,
            "started": self.started,
            "last_event": self.last_event,
            "status": "ended" if self.ended else "open",
            "outcome": self.outcome,
            "duration_s": self.duration_s,
            "turns": self.turns,
            "commit_shas": self.commits,
            "events": dict(sorted(self.events.items())),
            "tool_uses": dict(sorted(self.tool_uses.items())),
            "torn_lines": self.torn_lines,
            "invalid_events": self.invalid,
            "secrets_found": self.secrets,
        }


def _check(record: dict[str, Any]) -> tuple[bool, bool]:
    """(valid envelope, holds a secret) for one stored record."""
    from pydantic import ValidationError
    from teambrain_schema import ENVELOPE_ADAPTER

    try:
        ENVELOPE_ADAPTER.validate_python(record)
        valid = True
    except ValidationError:
        valid = False
    return valid, bool(find_secrets(dumps(record)))


def summarise_session(path: Path) -> tuple[SessionSummary, list[dict[str, Any]]]:
    """The summary of the session file at ``path`` and its records, in file order."""
    read = read_jsonl(path)
    summary = SessionSummary(sid=path.stem, path=path, torn_lines=read.torn)
    durations: list[float] = []
    for record in read.records:
        valid, secret = _check(record)
        summary.invalid += not valid
        summary.secrets += secret
        ev = str(record.get("ev"))
        summary.events[ev] += 1
        summary.tool = summary.tool or _text(record.get("tool"))
        summary.repo = summary.repo or _text(record.get("repo"))
        summary.branch = _text(record.get("branch")) or summary.branch
        model = _text(record.get("model"))
        if model and model != "unknown":
            summary.model = model
        summary.started = summary.started or _text(record.get("t"))
        summary.last_event = _text(record.get("t")) or summary.last_event
        data = record.get("data") if isinstance(record.get("data"), dict) else {}
        assert isinstance(data, dict)
        if ev == "session_start":
            summary.ended = False
        elif ev == "intent":
            summary.turns += 1
        elif ev == "tool_use":
            summary.tool_uses[str(data.get("kind"))] += 1
        elif ev == "session_end":
            summary.ended = True
            summary.outcome = _text(data.get("outcome"))
            if isinstance(data.get("duration_s"), (int, float)):
                durations.append(float(data["duration_s"]))
            shas = data.get("commit_shas")
            summary.commits += (
                [sha for sha in shas if isinstance(sha, str)] if isinstance(shas, list) else []
            )
    summary.duration_s = round(sum(durations), 3) if durations else None
    return summary, read.records


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def prune_spool(
    machine: MachineLayout, retention_days: int, *, now: dt.datetime | None = None
) -> int:
    """Delete sessions not written to for ``retention_days`` (and their open-session state);
    returns how many were deleted."""
    removed = prune_sessions(machine, retention_days, now=now)
    for path in removed:
        state = machine.spool / OPEN_SESSIONS_DIR / f"{path.stem}.json"
        if state.exists():
            state.unlink(missing_ok=True)
    cutoff = (now or dt.datetime.now(dt.UTC)).timestamp() - retention_days * 86400
    stale_states = machine.spool / OPEN_SESSIONS_DIR
    if stale_states.is_dir():  # open states whose session file is gone and that are old too
        for state in stale_states.glob("*.json"):
            if not machine.session_file(state.stem).exists() and os.path.getmtime(state) < cutoff:
                state.unlink(missing_ok=True)
    return len(removed)


def audit_sessions(machine: MachineLayout) -> list[SessionSummary]:
    """A summary of every session in the spool, oldest first."""
    return [summarise_session(path)[0] for path in session_files(machine)]


def last_session(machine: MachineLayout) -> tuple[SessionSummary, list[dict[str, Any]]] | None:
    """The most recently written session and every record it holds, or None."""
    files = session_files(machine)
    return summarise_session(files[-1]) if files else None
