"""Graph records as proposals: a record draft (what ``memory_propose`` accepts besides a memory
draft) and a queued record candidate (``spool/records/<candidate_id>.json``). docs/graph.md."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from ._memory import Proposer, SessionId, Ulid

NodeId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._:/@+\-]{0,127}$")]
EdgeKindName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")]
# A record is at most 64 KB of YAML: its attributes, as JSON, are bounded the same way.
MAX_RECORD_JSON_BYTES = 64 * 1024


class _Strict(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, populate_by_name=True)


class RecordEdge(_Strict):
    """One edge of a record draft's list form: ``{kind, to}``."""

    kind: EdgeKindName
    to: NodeId = Field(description="A node id, or a memory's ULID")


class RecordDraft(_Strict):
    """A graph record to propose (``.teambrain/graph/``): the company-brain shape, ``nodeKind``,
    ``id``, ``attributes`` and ``edges`` (a map of edge kind → id or ids, or a list of
    ``{kind, to}``). Checked against the ontology before it is queued or proposed."""

    node_kind: Annotated[str, StringConstraints(pattern=r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")] = Field(
        alias="nodeKind", description="A node kind of the ontology (service, team, runbook…)"
    )
    id: NodeId = Field(description="The node's id, e.g. service:payments")
    attributes: dict[str, Any] = Field(
        default_factory=dict, description="title, owners, status, paths… (see the ontology)"
    )
    edges: dict[EdgeKindName, NodeId | list[NodeId]] | list[RecordEdge] = Field(
        default_factory=dict, description="edge kind → target id(s), or a list of {kind, to}"
    )

    @field_validator("attributes")
    @classmethod
    def _bounded(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
        except (TypeError, ValueError):
            raise ValueError("attributes must be plain JSON values") from None
        if size > MAX_RECORD_JSON_BYTES:
            raise ValueError(f"attributes are larger than {MAX_RECORD_JSON_BYTES // 1024} KB")
        return value

    def as_yaml_data(self) -> dict[str, Any]:
        """The record as a file holds it (keys in the seed's order)."""
        data: dict[str, Any] = {"nodeKind": self.node_kind, "id": self.id}
        if self.attributes:
            data["attributes"] = self.attributes
        if isinstance(self.edges, list):
            if self.edges:
                data["edges"] = [{"kind": e.kind, "to": e.to} for e in self.edges]
        elif self.edges:
            data["edges"] = dict(self.edges)
        return data

    def content_hash(self) -> str:
        """Identity of the record's content: the same record proposed twice is one candidate."""
        payload = json.dumps(self.as_yaml_data(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


MAX_NOTE_TEXT_BYTES = 256 * 1024
NotePath = Annotated[
    str,
    StringConstraints(min_length=4, max_length=300, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_./ -]*\.md$"),
]


class NoteDraft(_Strict):
    """A free-form note to add under ``.teambrain/notes/`` (an import of a company brain's
    notes): its path under ``notes/`` and its text."""

    path: NotePath = Field(description="Where under .teambrain/notes/, e.g. meetings/2026-05-01.md")
    text: Annotated[str, StringConstraints(min_length=1)]

    @field_validator("path")
    @classmethod
    def _inside_notes(cls, value: str) -> str:
        if any(part in ("", ".", "..") for part in value.split("/")):
            raise ValueError("must be a relative path under notes/ (no '.', '..' or empty parts)")
        return value

    @field_validator("text")
    @classmethod
    def _bounded_text(cls, value: str) -> str:
        if len(value.encode("utf-8", "surrogatepass")) > MAX_NOTE_TEXT_BYTES:
            raise ValueError(f"is larger than {MAX_NOTE_TEXT_BYTES // 1024} KB")
        return value

    def content_hash(self) -> str:
        """Identity of the note: its path and text."""
        return hashlib.sha256(f"{self.path}\x1f{self.text}".encode()).hexdigest()


class RecordCandidate(_Strict):
    """A graph record draft — or a note to add — queued in ``spool/records/``, waiting for
    ``tb propose``."""

    v: Literal[1] = 1
    candidate_id: Ulid
    created: dt.datetime
    proposer: Proposer
    record: RecordDraft | None = None
    note: NoteDraft | None = None
    content_hash: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
    sid: SessionId | None = None
    repo: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = None
    status: Literal["pending", "proposed", "rejected"] = "pending"
    branch: Annotated[str, StringConstraints(max_length=256)] | None = Field(
        default=None, description="The proposal branch, once proposed"
    )
    reason: Annotated[str, StringConstraints(max_length=500)] | None = Field(
        default=None, description="Why it was rejected, or where it came from"
    )

    @model_validator(mode="after")
    def _one_thing(self) -> RecordCandidate:
        if (self.record is None) == (self.note is None):
            raise ValueError("a record candidate holds a record or a note, exactly one")
        return self
