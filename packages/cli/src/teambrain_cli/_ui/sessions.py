"""A past session explained: what its agent was asked and did (its tools, the files they
touched, tests and commands with their exit codes, what it proposed, how it ended) beside the
memories it was shown, when, how and at which commit of the brain — read from this machine's
spool (what ``tb audit`` shows), never from elsewhere."""

from __future__ import annotations

import datetime as dt
from collections import Counter
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
from teambrain_schema import (
    ENVELOPE_ADAPTER,
    CandidateProposedEvent,
    IntentEvent,
    MemoryRetrievedEvent,
    PlanRevisionEvent,
    SessionEndEvent,
    ToolUseEvent,
    intent_summary,
)
from teambrain_schema.paths import MachineLayout

MAX_LISTED = 200
MAX_STEPS = 500  # a session page lists this many steps at most (the counts cover them all)


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
    tool_uses: int = 0
    duration_s: float | None = None


@dataclass(frozen=True)
class Retrieval:
    """One ``memory_retrieved`` event: the ids shown, at which brain commit, by which call."""

    at: dt.datetime
    ids: list[str]
    commit: str | None
    via: str | None
    token_estimate: int | None


@dataclass(frozen=True)
class Step:
    """One thing the agent did or was given, in order: what (``tool_use`` of a kind, an
    ``intent``, a plan revision, a proposal, a retrieval, the end), and its detail."""

    at: dt.datetime
    what: str
    detail: str = ""
    path: str | None = None
    exit_code: int | None = None
    memory_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileTouched:
    """A path the agent's tools touched, and how often by each kind (edit, explore, …)."""

    path: str
    kinds: dict[str, int]

    @property
    def edited(self) -> bool:
        return bool(self.kinds.get("edit"))


@dataclass(frozen=True)
class Proposed:
    """A memory draft the agent proposed in the session."""

    title: str
    memory_class: str
    candidate_id: str | None


@dataclass
class SessionExplanation:
    """What one session was asked, did and was shown, in order."""

    row: SessionRow
    retrievals: list[Retrieval] = field(default_factory=list)
    torn_lines: int = 0
    invalid_events: int = 0
    intents: list[tuple[dt.datetime, str]] = field(default_factory=list)
    tools: Counter[str] = field(default_factory=Counter)  # tool_use kinds
    files: list[FileTouched] = field(default_factory=list)  # most touched first
    tests: int = 0
    test_failures: int = 0
    command_failures: int = 0
    plan_revisions: int = 0
    proposed: list[Proposed] = field(default_factory=list)
    ended: dt.datetime | None = None
    duration_s: float | None = None
    turns: int | None = None
    commits: list[str] = field(default_factory=list)  # the session_end's commit_shas
    steps: list[Step] = field(default_factory=list)
    more_steps: int = 0  # steps past MAX_STEPS, counted but not listed

    @property
    def brain_commits(self) -> list[str]:
        """The brain commits the session read from, first seen first."""
        return list(dict.fromkeys(r.commit for r in self.retrievals if r.commit))

    @property
    def running(self) -> bool:
        """No ``session_end`` yet: still at work (or its tool never reports the end)."""
        return self.ended is None


def _row(key: str, summary: SessionSummary) -> SessionRow:
    return SessionRow(
        key=key, sid=summary.sid, tool=summary.tool, model=summary.model, branch=summary.branch,
        started=summary.started, outcome=summary.outcome, retrievals=summary.retrievals,
        memories=len(summary.memory_ids), tool_uses=sum(summary.tool_uses.values()),
        duration_s=summary.duration_s,
    )  # fmt: skip


def list_sessions(machine: MachineLayout, repo: RepoKeys | str | None) -> list[SessionRow]:
    """This repository's sessions (every one when ``repo`` is None; a repository's keys take
    those filed under its earlier names too), newest first: at most ``MAX_LISTED``;
    :func:`sessions_left_out` says how many more there are."""
    return _sessions(machine, repo)[0]


def sessions_left_out(
    machine: MachineLayout, repo: RepoKeys | str | None
) -> tuple[list[SessionRow], int]:
    """:func:`list_sessions`, and how many spool files were not read once ``MAX_LISTED``
    sessions were listed (the page says so, and where to see them all: ``tb audit``)."""
    return _sessions(machine, repo)


def _sessions(machine: MachineLayout, repo: RepoKeys | str | None) -> tuple[list[SessionRow], int]:
    keys = RepoKeys.of(repo) if repo is not None else None
    rows: list[SessionRow] = []
    files = list(reversed(session_files(machine)))
    for index, path in enumerate(files):
        if len(rows) >= MAX_LISTED:
            return _newest(rows), len(files) - index
        summary, _ = summarise_session(read_jsonl(path).records)
        if (
            summary is None
            or summary.is_empty
            or (keys is not None and not keys.holds(summary.repo))
        ):
            continue
        rows.append(_row(path.stem, summary))
    return _newest(rows), 0


def _newest(rows: list[SessionRow]) -> list[SessionRow]:
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
    touched: dict[str, Counter[str]] = {}
    for record in read.records:
        try:
            event = ENVELOPE_ADAPTER.validate_python(record)
        except ValidationError:
            continue
        step = _step(explanation, event, touched)
        if step is None:
            continue
        if len(explanation.steps) < MAX_STEPS:
            explanation.steps.append(step)
        else:
            explanation.more_steps += 1
    explanation.steps.sort(key=lambda s: s.at)
    explanation.files = [
        FileTouched(path, dict(kinds))
        for path, kinds in sorted(touched.items(), key=lambda item: (-item[1].total(), item[0]))
    ]
    return explanation


def _step(
    explanation: SessionExplanation, event: object, touched: dict[str, Counter[str]]
) -> Step | None:
    """Fold one valid event into ``explanation``; the step it is on the page (None for the
    session's start)."""
    if isinstance(event, MemoryRetrievedEvent):
        data = event.data
        explanation.retrievals.append(
            Retrieval(event.t, list(data.ids), data.commit, data.via, data.token_estimate)
        )
        call = {"context": "memory_context", "search": "memory_search"}.get(data.via or "", "retrieval")  # fmt: skip
        return Step(event.t, "memory", call, memory_ids=tuple(data.ids))
    if isinstance(event, ToolUseEvent):
        use = event.data
        explanation.tools[use.kind] += 1
        if use.path:
            touched.setdefault(use.path, Counter())[use.kind] += 1
        failed = use.exit_code not in (None, 0)
        if use.kind == "test":
            explanation.tests += 1
            explanation.test_failures += failed
        elif use.kind == "command":
            explanation.command_failures += failed
        return Step(event.t, use.kind, path=use.path, exit_code=use.exit_code)
    if isinstance(event, IntentEvent):
        text = intent_summary(event.data)
        if text:
            explanation.intents.append((event.t, text))
        return Step(event.t, "intent", text)
    if isinstance(event, PlanRevisionEvent):
        explanation.plan_revisions += 1
        items = event.data.items
        return Step(event.t, "plan", f"{items} items" if items is not None else "")
    if isinstance(event, CandidateProposedEvent):
        draft = event.data.draft
        explanation.proposed.append(Proposed(draft.title, draft.class_, event.data.candidate_id))
        return Step(event.t, "proposed", draft.title)
    if isinstance(event, SessionEndEvent):
        end = event.data
        explanation.ended = event.t
        explanation.duration_s = end.duration_s
        explanation.turns = end.turns
        explanation.commits = list(end.commit_shas)
        return Step(event.t, "end", end.outcome)
    return None
