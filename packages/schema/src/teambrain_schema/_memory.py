"""Memory files and drafts: the contract's front-matter schema as pydantic models."""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from .ids import ULID_PATTERN, is_ulid

MemoryClass = Literal["decision", "convention", "map", "learning"]
Scope = Literal["team", "org"]
Status = Literal["active", "retired"]
Priority = Literal["required", "advisory"]
Proposer = Literal["human", "agent", "distiller"]

MAX_TITLE_CHARS = 80
MAX_BODY_WORDS = 400
# One size cap for a memory body wherever it enters (memory_propose, tb propose --draft, the
# distiller, lint): the word limit alone let a one-"word" body of 20 MB through.
MAX_BODY_BYTES = 256 * 1024
MAX_TAG_CHARS = 40
MAX_TAGS = 20
# What one draft may list, the same wherever it enters (memory_propose, tb propose --draft, the
# distiller, tb import) and wherever it is read back (the candidate spool, the memory file it
# becomes): 5,000 session ids were queued as a 1.8 MB candidate no reader would open.
MAX_SUPERSEDES = 32
MAX_EVIDENCE_ITEMS = 64  # sessions, and commits (lint follows the first 64 of a memory's)
# A candidate file in the spool (one draft and its metadata), written and read to this bound.
MAX_CANDIDATE_BYTES = 1024 * 1024


def _check_ulid(value: str) -> str:
    if not is_ulid(value):
        raise ValueError("must be a canonical ULID (26 Crockford base32 characters, upper case)")
    return value


def _check_single_line(value: str) -> str:
    # C*: controls and format characters; Zl/Zp: U+2028 LINE and U+2029 PARAGRAPH SEPARATOR,
    # which a terminal or a line-splitting tool renders as a new line of text.
    if any(unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp")
           for char in value):  # fmt: skip
        raise ValueError("must be one line without control characters or line separators")
    if value != value.strip():
        raise ValueError("must not start or end with whitespace")
    return value


def _check_body_words(value: str) -> str:
    if len(value) > MAX_BODY_BYTES or len(value.encode("utf-8", "surrogatepass")) > MAX_BODY_BYTES:
        raise ValueError(f"is larger than {MAX_BODY_BYTES // 1024} KB")
    words = count_words(value)
    if words > MAX_BODY_WORDS:
        raise ValueError(f"has {words} words; the limit is {MAX_BODY_WORDS}")
    return value


Ulid = Annotated[str, StringConstraints(pattern=f"^{ULID_PATTERN}$"), AfterValidator(_check_ulid)]
Title = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_TITLE_CHARS),
    AfterValidator(_check_single_line),
]
Tag = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=MAX_TAG_CHARS, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/\-]*$"
    ),
]
Body = Annotated[str, StringConstraints(min_length=1), AfterValidator(_check_body_words)]
# A git commit id (abbreviated or full) as evidence.
CommitSha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{7,64}$")]
SessionId = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9][A-Za-z0-9._\-]*$")
]


def _iso_date_only(value: object) -> object:
    # The contract says ISO date: a number is not one (pydantic would read it as Unix time).
    if isinstance(value, (int, float)):  # bool is an int too
        raise ValueError("must be an ISO date such as 2026-11-16")
    if isinstance(value, dt.datetime):
        raise ValueError("must be a date without a time, such as 2026-11-16")
    return value


IsoDate = Annotated[dt.date, BeforeValidator(_iso_date_only)]


def count_words(text: str) -> int:
    """Words in a memory body, as the 400-word limit counts them."""
    return len(re.findall(r"\S+", text))


class _Strict(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(
        defer_build=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        frozen=True,
    )


class Evidence(_Strict):
    """Where a memory came from: agent session ids and git commits."""

    sessions: list[SessionId] = Field(default_factory=list)
    commits: list[CommitSha] = Field(default_factory=list)

    def is_empty(self) -> bool:
        """True when neither a session nor a commit is named."""
        return not self.sessions and not self.commits


class MemoryFrontMatter(_Strict):
    """The YAML front-matter of a memory file, exactly as the contract defines it."""

    id: Ulid
    class_: MemoryClass = Field(alias="class")
    scope: Scope
    status: Status
    priority: Priority
    title: Title
    created: IsoDate
    evidence: Evidence | None = None
    supersedes: list[Ulid] = Field(default_factory=list)
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    ttl_days: Annotated[int, Field(ge=1, le=36500)] | None = None

    @model_validator(mode="after")
    def _not_self_superseding(self) -> MemoryFrontMatter:
        if self.id in self.supersedes:
            raise ValueError("supersedes: a memory cannot supersede itself")
        return self

    def expires_on(self) -> dt.date | None:
        """The first day on which this memory is expired, or None without a TTL."""
        if self.ttl_days is None:
            return None
        return self.created + dt.timedelta(days=self.ttl_days)

    def is_expired(self, today: dt.date | None = None) -> bool:
        """True when the TTL has run out by ``today`` (default: today, UTC)."""
        expires = self.expires_on()
        if expires is None:
            return False
        return (today or dt.datetime.now(dt.UTC).date()) >= expires


class Memory(_Strict):
    """A parsed memory: front-matter, body and the file it was read from."""

    front: MemoryFrontMatter
    body: Body
    path: str = Field(description="Path of the file relative to the repository root")

    @property
    def id(self) -> str:
        return self.front.id

    @property
    def title(self) -> str:
        return self.front.title

    def content_hash(self) -> str:
        """Identity of the content (class, title, body, tags): same content, same hash."""
        return content_hash(self.front.class_, self.front.title, self.body, self.front.tags)


class MemoryDraft(_Strict):
    """A proposed memory before review: what an agent, the distiller or a human submits."""

    class_: MemoryClass = Field(alias="class")
    title: Title
    body: Body
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_TAGS)
    priority: Priority = "advisory"
    scope: Scope = "team"
    evidence: Evidence | None = None
    supersedes: list[Ulid] = Field(default_factory=list)
    ttl_days: Annotated[int, Field(ge=1, le=36500)] | None = None

    @model_validator(mode="after")
    def _bounded_lists(self) -> MemoryDraft:
        listed = [("supersedes", len(self.supersedes), MAX_SUPERSEDES, "memory ids")]
        if self.evidence is not None:
            listed += [
                ("evidence.sessions", len(self.evidence.sessions), MAX_EVIDENCE_ITEMS, "sessions"),
                ("evidence.commits", len(self.evidence.commits), MAX_EVIDENCE_ITEMS, "commits"),
            ]
        for name, count, limit, what in listed:
            if count > limit:
                raise ValueError(f"{name}: lists {count} {what}; at most {limit}")
        return self

    def content_hash(self) -> str:
        """Identity of the content (class, title, body, tags)."""
        return content_hash(self.class_, self.title, self.body, self.tags)


class Candidate(_Strict):
    """A draft queued in ``spool/candidates/``, waiting for ``tb propose``."""

    v: Literal[1] = 1
    candidate_id: Ulid
    created: dt.datetime
    proposer: Proposer
    draft: MemoryDraft
    content_hash: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
    sid: SessionId | None = None
    repo: Annotated[str, StringConstraints(min_length=1, max_length=256)] | None = Field(
        default=None,
        description="Repository join key the draft was queued for (as capture records it)",
    )
    status: Literal["pending", "proposed", "rejected"] = "pending"
    proposed_as: Ulid | None = Field(default=None, description="Memory id once proposed")
    note: Annotated[str, StringConstraints(max_length=500)] | None = None

    @model_validator(mode="after")
    def _distiller_needs_evidence(self) -> Candidate:
        if self.proposer == "distiller" and (
            self.draft.evidence is None or self.draft.evidence.is_empty()
        ):
            raise ValueError("draft.evidence: mandatory when proposer is distiller")
        if self.content_hash != self.draft.content_hash():
            raise ValueError("content_hash: does not match the draft")
        return self


def content_hash(memory_class: str, title: str, body: str, tags: list[str]) -> str:
    """sha256 over normalised content: whitespace runs and case in title don't make new memories."""
    normal_body = re.sub(r"\s+", " ", unicodedata.normalize("NFC", body)).strip()
    normal_title = re.sub(r"\s+", " ", unicodedata.normalize("NFC", title)).strip().casefold()
    payload = "\x1f".join([memory_class, normal_title, normal_body, ",".join(sorted(tags))])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def front_matter_fields(model: MemoryFrontMatter) -> dict[str, Any]:
    """The front-matter as plain data in contract key order (``class`` spelled as such)."""
    return model.model_dump(mode="python", by_alias=True)
