"""Every memory of a brain as the index holds it, to list without reading every file.

A listing of a large brain (``tb ui``'s first page) would otherwise read and parse each memory
file (seconds at 10,000 memories); the index already holds each one's front-matter, refreshed
the way a search refreshes it. A retired memory is only a tombstone in the index (id, path,
status: its text left on retirement), so its entry carries no title or tags: read its file.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import apsw


class Indexed(Protocol):
    """What the catalog reads through: a :class:`~teambrain_retrieval.Retriever`, as the
    index sees it (its connection, its brain, bringing the index up to date)."""

    @property
    def db(self) -> apsw.Connection: ...
    @property
    def brain_id(self) -> str: ...
    def refresh(self) -> object: ...


@dataclass(frozen=True)
class CatalogEntry:
    """One memory file of a brain as indexed: its front-matter and where it is."""

    id: str
    path: str  # repository-relative
    title: str  # "" for a retired memory (its text is not kept)
    body: str  # likewise
    memory_class: str | None
    scope: str
    status: str
    priority: str
    retired: bool  # under retired/, or status retired
    tags: tuple[str, ...] = ()
    created: dt.date | None = None
    ttl_days: int | None = None
    supersedes: tuple[str, ...] = ()
    evidence_sessions: tuple[str, ...] = ()
    evidence_commits: tuple[str, ...] = ()
    content_hash: str = ""  # of class, title, body and tags as the file holds them (retired too)


@dataclass(frozen=True)
class Catalog:
    """A brain's entries in path order, and the files the index could not use (one line each)."""

    entries: list[CatalogEntry]
    problems: list[str]


_COLUMNS = (
    "path, retired, id, title, body, class, scope, status, priority, created, supersedes, "
    "json_extract(doc, '$.tags'), json_extract(doc, '$.ttl_days'), json_extract(doc, '$.evidence'), "
    "content_hash"
)


def _entry(row: Sequence[Any]) -> CatalogEntry:
    path, retired, memory_id, title, body, memory_class, scope, status, priority = row[:9]
    created, supersedes, tags, ttl_days, evidence, digest = row[9:]
    found = json.loads(evidence) if evidence else {}
    return CatalogEntry(
        id=str(memory_id), path=str(path), title=str(title or ""), body=str(body or ""),
        memory_class=str(memory_class) if memory_class else None, scope=str(scope),
        status=str(status), priority=str(priority), retired=bool(retired),
        tags=tuple(json.loads(tags)) if tags and tags != "[]" else (),
        created=dt.date.fromisoformat(created) if created else None,
        ttl_days=int(ttl_days) if ttl_days is not None else None,
        supersedes=tuple(json.loads(supersedes)) if supersedes and supersedes != "[]" else (),
        evidence_sessions=tuple(found.get("sessions") or ()),
        evidence_commits=tuple(found.get("commits") or ()), content_hash=str(digest or ""),
    )  # fmt: skip


def brain_catalog(retriever: Indexed) -> Catalog:
    """Every memory file of the retriever's own brain (not its org brain), live or not, as the
    index holds it after a refresh (files added, edited, moved or removed since the last look
    are read first, as for a search)."""
    retriever.refresh()
    brain = retriever.brain_id
    rows = retriever.db.execute(
        f"SELECT {_COLUMNS} FROM docs WHERE brain = ? AND source = 'memory' ORDER BY path",  # noqa: S608 - constant columns
        (brain,),
    ).fetchall()
    problems = retriever.db.execute(
        "SELECT path, problem FROM files WHERE brain = ? AND problem IS NOT NULL ORDER BY path",
        (brain,),
    ).fetchall()
    return Catalog(
        [_entry(row) for row in rows],
        [f"{path}: {problem}" for path, problem in problems],
    )
