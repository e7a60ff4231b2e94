"""What one captured session amounts to, read back from its spool file: the facts the digest,
``tb audit`` and spool pruning share (the tool and model, when it started and ended, how it
ended, what it retrieved, explored, proposed and tested). No text of the session is kept."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from teambrain_schema import (
    ENVELOPE_ADAPTER,
    CandidateProposedData,
    MemoryRetrievedData,
    SessionEndData,
    ToolUseData,
)

from ._lite import UNKNOWN_MODEL

NO_END = "no_end"  # no session_end yet: still running, or its tool never reported the end


@dataclass
class SessionSummary:
    """What one session did, reduced to the counts the digest needs (no paths, no text)."""

    sid: str
    tool: str
    model: str
    repo: str
    branch: str
    started: dt.datetime
    outcome: str = NO_END
    duration_s: float | None = None
    turns: int | None = None
    retrievals: int = 0
    retrievals_by_via: Counter[str] = field(default_factory=Counter)
    memory_ids: set[str] = field(default_factory=set)
    context_tokens: list[int] = field(default_factory=list)
    tool_uses: Counter[str] = field(default_factory=Counter)
    test_failures: int = 0
    candidates: int = 0
    activity: int = 0  # events other than session_start and session_end

    @property
    def has_memory(self) -> bool:
        """True when the agent was shown at least one memory."""
        return bool(self.memory_ids)

    @property
    def is_empty(self) -> bool:
        """Nothing happened between start and end: no prompt, no tool call, no retrieval.
        Such records are not sessions anyone worked in (``claude mcp list`` used to leave one
        per listing) and reports do not count them."""
        return self.activity == 0


def summarise_session(records: Iterable[dict[str, Any]]) -> tuple[SessionSummary | None, int]:
    """Fold one session's events into a :class:`SessionSummary`; returns it (None when no event
    validated) and the number of events that did not validate against the contract."""
    summary: SessionSummary | None = None
    invalid = 0
    for record in records:
        try:
            event = ENVELOPE_ADAPTER.validate_python(record)
        except ValidationError:
            invalid += 1
            continue
        if summary is None:
            summary = SessionSummary(
                event.sid, event.tool, event.model, event.repo, event.branch, event.t
            )
        summary.started = min(summary.started, event.t)
        if summary.model == UNKNOWN_MODEL and event.model != UNKNOWN_MODEL:
            summary.model = event.model  # tools that learn the model after the session started
        if event.ev not in ("session_start", "session_end"):
            summary.activity += 1
        data = event.data
        if isinstance(data, SessionEndData):
            summary.outcome = data.outcome
            summary.duration_s = data.duration_s
            summary.turns = data.turns
        elif isinstance(data, MemoryRetrievedData):
            summary.retrievals += 1
            summary.retrievals_by_via[data.via or "unspecified"] += 1
            summary.memory_ids.update(data.ids)
            if data.via == "context" and data.token_estimate is not None:
                summary.context_tokens.append(data.token_estimate)
        elif isinstance(data, ToolUseData):
            summary.tool_uses[data.kind] += 1
            if data.kind == "test" and data.exit_code not in (None, 0):
                summary.test_failures += 1
        elif isinstance(data, CandidateProposedData):
            summary.candidates += 1
    return summary, invalid
