"""A past session explained: which memories its agent was shown, when, how and at which commit
of the brain — read from this machine's spool (what ``tb audit`` shows), never from elsewhere."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from teambrain_capture import (
    RepoKeys,
    SessionSummary,
    read_jsonl,
    safe_sid,
    session_files,
    summarise_session,
)
from teambrain_schema import ENVELOPE_ADAPTER, MemoryRetrievedEvent
from teambrain_schema.paths import MachineLayout

MAX_LISTED = 200


@dataclass(frozen=True)
class SessionRow:
    """One session of the list (``key``: its spool file's name, what the page links by)."""

    key: str
    sid: str
    tool: str
    model: str
    branch: str
    started: dt.datetime
    outcome: str
    retrievals: int
    memories: int


@dataclass(frozen=True)
class Retrieval:
    """One ``memory_retrieved`` event: the ids shown, at which brain commit, by which call."""

    at: dt.datetime
    ids: list[str]
    commit: str | None
    via: str | None
    token_estimate: int | None


@dataclass
class SessionExplanation:
    """What one session was shown, in order."""

    row: SessionRow
    retrievals: list[Retrieval] = field(default_factory=list)
    torn_lines: int = 0
    invalid_events: int = 0

    @property
    def commits(self) -> list[str]:
        """The brain commits the session read from, first seen first."""
        return list(dict.fromkeys(r.commit for r in self.retrievals if r.commit))


def _row(key: str, summary: SessionSummary) -> SessionRow:
    return SessionRow(
        key=key, sid=summary.sid, tool=summary.tool, model=summary.model, branch=summary.branch,
        started=summary.started, outcome=summary.outcome, retrievals=summary.retrievals,
        memories=len(summary.memory_ids),
    )  # fmt: skip


def list_sessions(machine: MachineLayout, repo: RepoKeys | str | None) -> list[SessionRow]:
    """This repository's sessions (every one when ``repo`` is None; a repository's keys take
    those filed under its earlier names too), newest first."""
    keys = RepoKeys.of(repo) if repo is not None else None
    rows = []
    for path in reversed(session_files(machine)):
        summary, _ = summarise_session(read_jsonl(path).records)
        if (
            summary is None
            or summary.is_empty
            or (keys is not None and not keys.holds(summary.repo))
        ):
            continue
        rows.append(_row(path.stem, summary))
        if len(rows) >= MAX_LISTED:
            break
    return sorted(rows, key=lambda r: (r.started, r.sid), reverse=True)


def explain_session(machine: MachineLayout, key: str) -> SessionExplanation | None:
    """The memories the session of spool file ``key`` was shown, or None when the spool has
    no such session."""
    if safe_sid(key) != key:
        return None
    path: Path = machine.session_file(key)
    read = read_jsonl(path)
    summary, invalid = summarise_session(read.records)
    if summary is None:
        return None
    explanation = SessionExplanation(
        _row(key, summary), torn_lines=read.torn, invalid_events=invalid
    )
    for record in read.records:
        if record.get("ev") != "memory_retrieved":
            continue
        try:
            event = ENVELOPE_ADAPTER.validate_python(record)
        except ValidationError:
            continue
        assert isinstance(event, MemoryRetrievedEvent)
        data = event.data
        explanation.retrievals.append(
            Retrieval(event.t, list(data.ids), data.commit, data.via, data.token_estimate)
        )
    return explanation
