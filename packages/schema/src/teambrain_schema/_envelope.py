"""The session event envelope v1 and one payload model per ``ev`` value."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from ._memory import CommitSha, MemoryDraft, SessionId, Ulid

MAX_INTENT_CHARS = 200
EVENT_TYPES = (
    "session_start",
    "intent",
    "memory_retrieved",
    "tool_use",
    "plan_revision",
    "candidate_proposed",
    "session_end",
)

JoinKey = Annotated[str, StringConstraints(min_length=1, max_length=256)]
ToolUseKind = Literal["edit", "command", "test", "explore"]
Outcome = Literal["committed", "abandoned", "unknown"]


class _Payload(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)


class SessionStartData(_Payload):
    """``session_start``: no payload beyond the join keys."""


class IntentData(_Payload):
    """``intent`` as v1 wrote it, ``{"summary": …}``: still read, never written."""

    summary: Annotated[str, StringConstraints(min_length=1, max_length=MAX_INTENT_CHARS)]


# ``intent`` as the contract defines it: a locally-summarised string of at most 200 characters.
IntentText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_INTENT_CHARS)]


def intent_summary(data: object) -> str:
    """The summary of an ``intent`` payload in either shape (the contract's string, or v1's
    ``{"summary": …}``); "" for anything else."""
    if isinstance(data, str):
        return data
    if isinstance(data, IntentData):
        return data.summary
    if isinstance(data, dict) and isinstance(data.get("summary"), str):
        return str(data["summary"])
    return ""


class MemoryRetrievedData(_Payload):
    """``memory_retrieved``: which memories the agent was shown, at which brain commit."""

    ids: list[Ulid]
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,64}$")] | None = None
    via: Literal["context", "search"] | None = None
    token_estimate: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="Tokens of the memories returned (memory_context calls)"
    )


class ToolUseData(_Payload):
    """``tool_use``: metadata of one agent tool call (never its content)."""

    kind: ToolUseKind
    path: Annotated[str, StringConstraints(min_length=1, max_length=1024)] | None = None
    exit_code: int | None = None


class PlanRevisionData(_Payload):
    """``plan_revision``: the agent revised its plan (only the fact, and how many items)."""

    items: Annotated[int, Field(ge=0)] | None = None


class CandidateProposedData(_Payload):
    """``candidate_proposed``: the agent proposed a memory draft."""

    draft: MemoryDraft
    candidate_id: Ulid | None = None


class SessionEndData(_Payload):
    """``session_end``: how the session ended."""

    outcome: Outcome
    duration_s: Annotated[float, Field(ge=0)]
    turns: Annotated[int, Field(ge=0)]
    commit_shas: list[CommitSha] = Field(default_factory=list)


class _Envelope(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    v: Literal[1] = 1
    sid: SessionId
    t: AwareDatetime
    tool: JoinKey
    model: JoinKey
    repo: JoinKey
    branch: JoinKey


class SessionStartEvent(_Envelope):
    ev: Literal["session_start"] = "session_start"
    data: SessionStartData = Field(default_factory=SessionStartData)


class IntentEvent(_Envelope):
    ev: Literal["intent"] = "intent"
    data: IntentText | IntentData


class MemoryRetrievedEvent(_Envelope):
    ev: Literal["memory_retrieved"] = "memory_retrieved"
    data: MemoryRetrievedData


class ToolUseEvent(_Envelope):
    ev: Literal["tool_use"] = "tool_use"
    data: ToolUseData


class PlanRevisionEvent(_Envelope):
    ev: Literal["plan_revision"] = "plan_revision"
    data: PlanRevisionData = Field(default_factory=PlanRevisionData)


class CandidateProposedEvent(_Envelope):
    ev: Literal["candidate_proposed"] = "candidate_proposed"
    data: CandidateProposedData


class SessionEndEvent(_Envelope):
    ev: Literal["session_end"] = "session_end"
    data: SessionEndData


Envelope = Annotated[
    SessionStartEvent
    | IntentEvent
    | MemoryRetrievedEvent
    | ToolUseEvent
    | PlanRevisionEvent
    | CandidateProposedEvent
    | SessionEndEvent,
    Field(discriminator="ev"),
]

ENVELOPE_ADAPTER: TypeAdapter[Envelope] = TypeAdapter(Envelope)


def parse_event(line: str | bytes) -> Envelope:
    """Validate one JSONL line as a v1 envelope (raises pydantic.ValidationError)."""
    return ENVELOPE_ADAPTER.validate_json(line)


def dump_event(event: Envelope) -> str:
    """One compact JSON line (without newline) for ``event``."""
    return event.model_dump_json(exclude_none=True)


def utc_now() -> dt.datetime:
    """Now, timezone-aware in UTC (what ``t`` carries)."""
    return dt.datetime.now(dt.UTC)
