"""The RetrievalBackend protocol and the records it exchanges."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ._memory import Evidence, MemoryClass, Priority, Scope, Status

Source = Literal["memory", "codemap", "note"]


class _Record(BaseModel):
    # defer_build: validators are built on first use, not when a `tb` process imports this
    model_config = ConfigDict(
        defer_build=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class IndexableDoc(_Record):
    """One document handed to :meth:`RetrievalBackend.index`."""

    id: str
    source: Source = "memory"
    brain: str = Field(description="Identity of the brain (repository) the document belongs to")
    path: str
    title: str
    body: str
    tags: list[str] = Field(default_factory=list)
    class_: MemoryClass | None = Field(default=None, alias="class")
    scope: Scope = "team"
    status: Status = "active"
    priority: Priority = "advisory"
    created: dt.date | None = None
    ttl_days: int | None = None
    supersedes: list[str] = Field(default_factory=list)
    evidence: Evidence | None = None
    commit: str | None = None
    content_hash: str


class Scored(_Record):
    """A search hit: the document id, its fused score and where it came from."""

    id: str
    source: Source
    score: float
    brain: str | None = None
    rank: Annotated[int, Field(ge=1)] | None = None


class IndexStats(_Record):
    """What an index holds and how it searches."""

    documents: int
    by_source: dict[str, int] = Field(default_factory=dict)
    brains: list[str] = Field(default_factory=list)
    embedder: str = Field(description="Embedder in use, or 'none' when searching by keywords only")
    vectors: int = 0
    last_indexed: dt.datetime | None = None
    degraded: str | None = Field(default=None, description="Why search fell back to keywords only")


@runtime_checkable
class RetrievalBackend(Protocol):
    """The contract's retrieval interface (synchronous in Python)."""

    def index(self, docs: list[IndexableDoc], source: Source = "memory") -> None:
        """Add or replace ``docs``."""

    def search(self, q: str, k: int, sources: list[Source] | None = None) -> list[Scored]:
        """The best ``k`` documents for ``q``, best first; results carry their source."""

    def remove(self, ids: list[str]) -> None:
        """Remove documents by id (unknown ids are ignored)."""

    def stats(self) -> IndexStats:
        """Counts and settings of the index."""
