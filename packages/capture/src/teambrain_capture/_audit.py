"""``tb audit``: what the capture hooks recorded on this machine, so a user can check it.

Per-session summaries (the digest's :func:`summarise_session`, plus what only an audit needs:
the file, commits, torn lines, and a secret scan of every stored event), or every event of the
last session exactly as stored. Sessions past the retention period are pruned first.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_kit.paths import MachineLayout
from teambrain_kit.secrets import find_secrets

from ._lite import OPEN_SESSIONS_DIR, dumps
from ._spool import prune_sessions, read_jsonl, session_files
from ._summary import NO_END, SessionSummary, summarise_session


@dataclass
class SessionAudit:
    """One session file: its digest summary, and what a user checking it wants to know."""

    path: Path
    records: list[dict[str, Any]]
    summary: SessionSummary | None  # None when no stored event is a valid envelope
    torn_lines: int = 0
    invalid_events: int = 0
    secrets_found: int = 0
    events: Counter[str] = field(default_factory=Counter)
    commit_shas: list[str] = field(default_factory=list)
    first_event: str | None = None  # `t` as stored
    last_event: str | None = None

    @property
    def sid(self) -> str:
        return self.summary.sid if self.summary else self.path.stem

    @property
    def ended(self) -> bool:
        return self.summary is not None and self.summary.outcome != NO_END

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` shape of one session (without its records)."""
        summary = self.summary
        return {
            "sid": self.sid,
            "file": str(self.path),
            "tool": summary.tool if summary else None,
            "repo": summary.repo if summary else None,
            "branch": summary.branch if summary else None,
            "model": summary.model if summary else None,
            "started": self.first_event,
            "last_event": self.last_event,
            "status": "ended" if self.ended else "open",
            "outcome": summary.outcome if self.ended and summary else None,
            "duration_s": summary.duration_s if summary else None,
            "prompts": self.events.get("intent", 0),
            "commit_shas": self.commit_shas,
            "events": dict(sorted(self.events.items())),
            "tool_uses": dict(sorted(summary.tool_uses.items())) if summary else {},
            "torn_lines": self.torn_lines,
            "invalid_events": self.invalid_events,
            "secrets_found": self.secrets_found,
        }


def audit_session(path: Path) -> SessionAudit:
    """Read, summarise and check the session file at ``path``."""
    read = read_jsonl(path)
    summary, invalid = summarise_session(read.records)
    audit = SessionAudit(path, read.records, summary, read.torn, invalid)
    for record in read.records:
        audit.events[str(record.get("ev"))] += 1
        audit.secrets_found += bool(find_secrets(dumps(record)))
        moment = record.get("t")
        if isinstance(moment, str):
            audit.first_event = audit.first_event or moment
            audit.last_event = moment
        data = record.get("data")
        if record.get("ev") == "session_end" and isinstance(data, dict):
            shas = data.get("commit_shas")
            audit.commit_shas += (
                [s for s in shas if isinstance(s, str)] if isinstance(shas, list) else []
            )
    return audit


def prune_spool(
    machine: MachineLayout, retention_days: int, *, now: dt.datetime | None = None
) -> int:
    """Delete sessions not written to for ``retention_days`` (and their open-session state);
    returns how many were deleted."""
    removed = prune_sessions(machine, retention_days, now=now)
    states = machine.spool / OPEN_SESSIONS_DIR
    for path in removed:
        (states / f"{path.stem}.json").unlink(missing_ok=True)
    cutoff = (now or dt.datetime.now(dt.UTC)).timestamp() - retention_days * 86400
    if states.is_dir():  # open states whose session file is gone and that are old too
        for state in states.glob("*.json"):
            if not machine.session_file(state.stem).exists() and os.path.getmtime(state) < cutoff:
                state.unlink(missing_ok=True)
    return len(removed)


def audit_sessions(machine: MachineLayout) -> list[SessionAudit]:
    """Every session in the spool, checked, oldest first."""
    return [audit_session(path) for path in session_files(machine)]


def last_session(machine: MachineLayout) -> SessionAudit | None:
    """The most recently written session, or None."""
    files = session_files(machine)
    return audit_session(files[-1]) if files else None
