"""The index's documents in SQLite: writing them, reading them back, and what may be served.

One index.db serves several brains; a store serves a chosen set of them (:class:`ServedBrain`:
a brain id and the scopes it may serve), so results never mix with other repositories'. The
served and live filters are SQL fragments the rankers put inside each candidate query.
Nothing here embeds, ranks or caches: :mod:`._backend` does, on top of this.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import apsw

from .._pathmatch import extract_mentions
from ._scan import is_retired_path

if TYPE_CHECKING:
    from teambrain_schema import IndexableDoc


@dataclass(frozen=True)
class ServedBrain:
    """A brain a backend answers from, and the memory scopes it may serve from it."""

    brain: str
    scopes: tuple[str, ...] = ("team", "org")


@dataclass(frozen=True)
class DocRow:
    """A document as stored in the index."""

    rowid: int
    brain: str
    source: str
    id: str
    path: str
    title: str
    body: str
    tags: list[str]
    memory_class: str | None
    scope: str
    status: str
    priority: str
    retired: bool
    created: str | None
    expires: str | None
    supersedes: list[str]
    doc_json: str
    content_hash: str


_DOC_COLUMNS = (
    "d.rowid, d.brain, d.source, d.id, d.path, d.title, d.body, d.tags, d.class, d.scope, "
    "d.status, d.priority, d.retired, d.created, d.expires, d.supersedes, d.doc, d.content_hash"
)


def _row_to_doc(row: Sequence[Any]) -> DocRow:
    return DocRow(
        rowid=row[0], brain=row[1], source=row[2], id=row[3], path=row[4], title=row[5],
        body=row[6], tags=row[7].split() if row[7] else [], memory_class=row[8], scope=row[9],
        status=row[10], priority=row[11], retired=bool(row[12]), created=row[13],
        expires=row[14], supersedes=json.loads(row[15]), doc_json=row[16], content_hash=row[17],
    )  # fmt: skip


def embed_text(title: str, body: str) -> str:
    """The text an embedder sees for a memory: its title, then its body."""
    return f"{title}\n{body}"


def embed_key(text: str) -> str:
    """The embedding cache key of ``text``: an unchanged text is never embedded twice."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _expires(doc: IndexableDoc) -> str | None:
    if doc.ttl_days is None or doc.created is None:
        return None
    return (doc.created + dt.timedelta(days=doc.ttl_days)).isoformat()


# Index choices for lookups of a few rows by key that also filter on what is served. Without
# statistics SQLite guesses an equality on docs_by_brain matches ~10 rows, prefers it to a
# list of 200 rowids or content keys, and then reads every memory of the brain: at 10,000
# memories the keyword half's filter took 2.1 ms instead of 0.5, and re-reading the vectors of
# one edited memory 12 ms instead of 0.1.
BY_ROWID = "NOT INDEXED"  # the rowid lookup stays; no secondary index
BY_EMBED_KEY = "INDEXED BY docs_by_embed_key"
# Conditions search asks for by name (:meth:`DocStore.live_docs`): its SQL text stays here.
REQUIRED = "d.priority = 'required'"
BY_ID = "d.id = ?"
# bm25() column weights: a word in the title counts double, a tag one and a half times.
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
TAGS_WEIGHT = 1.5
BM25 = f"bm25(docs_fts, {TITLE_WEIGHT}, {BODY_WEIGHT}, {TAGS_WEIGHT})"


def rowids_in(rowids: Sequence[int]) -> tuple[str, list[Any], str]:
    """The condition "one of these rows" for :meth:`DocStore.vector_rows`, its parameters and
    SQLite's index choice."""
    return f"d.rowid IN ({','.join('?' for _ in rowids)})", list(rowids), BY_ROWID


def ids_in(memory_ids: Sequence[str]) -> tuple[str, list[Any]]:
    """The condition "one of these memory ids" for :meth:`DocStore.live_docs`, and its
    parameters."""
    return f"d.id IN ({','.join('?' for _ in memory_ids)})", list(memory_ids)


def embed_keys_in(keys: Sequence[str]) -> tuple[str, list[Any], str]:
    """The condition "one of these texts" (content keys) for :meth:`DocStore.vector_rows`,
    likewise."""
    return f"d.embed_key IN ({','.join('?' for _ in keys)})", list(keys), BY_EMBED_KEY


# A cached vector row is used only when its blob holds exactly ``dim`` float32 values: a row
# damaged in index.db counts as missing, so the text is embedded again (and the row replaced).
USABLE = "typeof({v}.vec) = 'blob' AND {v}.dim > 0 AND length({v}.vec) = 4 * {v}.dim"


def is_live(expires: str | None, doc_id: str, excluded: frozenset[str], today: str) -> bool:
    """Not past its TTL on ``today`` (ISO date) and not superseded or retired elsewhere."""
    return (expires is None or expires > today) and doc_id not in excluded


class DocStore:
    """The documents of the served brains in one apsw connection: SQL only, no caches."""

    def __init__(
        self,
        db: apsw.Connection,
        served: Sequence[ServedBrain],
        today: Callable[[], dt.date],
    ) -> None:
        if not served:
            raise ValueError("a backend serves at least one brain")
        self.db = db
        self.served = list(served)
        self._today = today

    # ------------------------------------------------------------------ SQL pieces

    def q(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """All rows of a read query."""
        return self.db.execute(sql, params).fetchall()

    def q1(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first row of a read query, or None."""
        return self.db.execute(sql, params).fetchone()

    def served_clause(self) -> tuple[str, list[Any]]:
        parts, params = [], []
        for served in self.served:
            marks = ",".join("?" for _ in served.scopes) or "NULL"
            parts.append(f"(d.brain = ? AND d.scope IN ({marks}))")
            params.extend([served.brain, *served.scopes])
        return "(" + " OR ".join(parts) + ")", params

    def live_clause(self, sources: Sequence[str] | None) -> tuple[str, list[Any]]:
        served, params = self.served_clause()
        clause = f"d.status = 'active' AND d.retired = 0 AND {served}"
        if sources:
            clause += f" AND d.source IN ({','.join('?' for _ in sources)})"
            params.extend(sources)
        return clause, params

    def brains_clause(self) -> tuple[str, list[str]]:
        brains = [s.brain for s in self.served]
        return f"d.brain IN ({','.join('?' for _ in brains)})", brains

    def data_version(self) -> int:
        """SQLite's counter of writes by other connections (the caches' first key)."""
        (data_version,) = self.q1("PRAGMA data_version") or (0,)
        return int(data_version)

    def stored_generation(self) -> int | None:
        """The index's write counter (None for an index without one)."""
        try:
            row = self.q1("SELECT n FROM generation WHERE id = 0")
        except apsw.SQLError:
            return None
        return int(row[0]) if row else None

    def excluded(self) -> frozenset[str]:
        """Ids the served rule (``teambrain_schema.served.excluded_ids``) hides: superseded, or
        with a retired copy. Only the rows that can matter are read (both lookups are indexed)."""
        from teambrain_schema.served import excluded_ids

        brains, params = self.brains_clause()
        # One SELECT per partial index: with the OR in one WHERE, SQLite walked docs_by_brain
        # instead, every memory of the brain (11 ms at 10,000) after each write.
        columns = "d.id, d.status, d.retired, d.supersedes, d.expires"
        rows = self.q(
            f"SELECT {columns} FROM docs d INDEXED BY docs_superseding WHERE {brains} "
            "AND d.supersedes != '[]' UNION "
            f"SELECT {columns} FROM docs d INDEXED BY docs_not_active WHERE {brains} "
            "AND (d.retired = 1 OR d.status != 'active')",
            [*params, *params],
        )
        entries = (
            (i, s, bool(r), json.loads(sup), dt.date.fromisoformat(e) if e else None)
            for i, s, r, sup, e in rows
        )
        return frozenset(excluded_ids(entries, self._today()))

    # ------------------------------------------------------------------ writing

    def upsert(self, docs: Iterable[IndexableDoc], source: str) -> tuple[list[int], dict[str, str]]:
        """Write ``docs``; the rowids written, and the texts to embed by embed key."""
        rowids = []
        texts: dict[str, str] = {}
        evicted = False
        with self.db:
            for doc in docs:
                rowid, text = self._upsert_one(doc, doc.source or source)
                rowids.append(rowid)
                if text is not None:
                    texts[embed_key(text)] = text
                evicted = evicted or is_retired_path(doc.path) or doc.status == "retired"
        if evicted:
            # FTS5 keeps deleted tokens in old segments until they merge: merge now, so a
            # retired memory's words leave the file too (retirements are rare; this is cheap).
            with self.db:
                self.db.execute("INSERT INTO docs_fts(docs_fts) VALUES('optimize')")
        return rowids, texts

    def _upsert_one(self, doc: IndexableDoc, source: str) -> tuple[int, str | None]:
        retired = is_retired_path(doc.path) or doc.status == "retired"
        if retired:
            # Eviction: a retired memory stays only as a tombstone (id, path, status) so the
            # filters know it; its title, body and tags leave the index, and it has no vector.
            doc = doc.model_copy(update={"title": "", "body": "", "tags": [], "evidence": None})
        text = embed_text(doc.title, doc.body)
        values = (
            doc.brain, source, doc.id, doc.path, doc.title, doc.body, " ".join(doc.tags),
            doc.class_, doc.scope, doc.status, doc.priority,
            int(retired),
            doc.created.isoformat() if doc.created else None, _expires(doc),
            json.dumps(doc.supersedes), doc.model_dump_json(by_alias=True), doc.content_hash,
            embed_key(text),
        )  # fmt: skip
        row = self.q1(
            "INSERT INTO docs(brain, source, id, path, title, body, tags, class, scope, status, "
            "priority, retired, created, expires, supersedes, doc, content_hash, embed_key) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT(brain, source, path) DO UPDATE SET id=excluded.id, title=excluded.title, "
            "body=excluded.body, tags=excluded.tags, class=excluded.class, scope=excluded.scope, "
            "status=excluded.status, priority=excluded.priority, retired=excluded.retired, "
            "created=excluded.created, expires=excluded.expires, supersedes=excluded.supersedes, "
            "doc=excluded.doc, content_hash=excluded.content_hash, embed_key=excluded.embed_key "
            "RETURNING rowid",
            values,
        )
        assert row is not None
        rowid = row[0]
        self.db.execute("DELETE FROM doc_paths WHERE rowid = ?", (rowid,))
        self.db.executemany(
            "INSERT INTO doc_paths(rowid, mention) VALUES (?, ?)",
            [(rowid, mention) for mention in extract_mentions(doc.body, doc.tags, doc.title)],
        )
        return int(rowid), None if retired else text

    def remove(self, ids: list[str]) -> None:
        """Remove documents by id from the served brains (unknown ids are ignored)."""
        brains, params = self.brains_clause()
        marks = ",".join("?" for _ in ids)
        with self.db:
            self.db.execute(
                f"DELETE FROM docs WHERE rowid IN (SELECT d.rowid FROM docs d WHERE {brains} "
                f"AND d.id IN ({marks}))",
                [*params, *ids],
            )

    def remove_paths(self, brain: str, paths: Iterable[str], source: str = "memory") -> list[int]:
        """Remove the documents read from ``paths`` of ``brain``; returns their rowids."""
        removed: list[int] = []
        with self.db:
            for path in paths:
                removed.extend(
                    row[0]
                    for row in self.q(
                        "DELETE FROM docs WHERE brain = ? AND source = ? AND path = ? "
                        "RETURNING rowid",
                        (brain, source, path),
                    )
                )
        return removed

    def clear_brain(self, brain: str) -> None:
        """Forget every document of ``brain`` (before a rebuild)."""
        with self.db:
            self.db.execute("DELETE FROM docs WHERE brain = ?", (brain,))

    def mark_indexed(self, brain: str, root: str) -> None:
        """Record that ``brain`` (at ``root``) was brought up to date now: to the microsecond,
        so a memory file written in the same second, after it, reads as newer (``tb metrics``
        compares file times with it; whole seconds hid an edit made within a second)."""
        with self.db:
            self.db.execute(
                "INSERT INTO brains(brain, root, indexed_at) VALUES (?, ?, ?) ON CONFLICT(brain) "
                "DO UPDATE SET root = excluded.root, indexed_at = excluded.indexed_at",
                (brain, root, dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")),
            )

    # ------------------------------------------------------------------ reading

    def docs(self, rowids: Sequence[int]) -> dict[int, DocRow]:
        """Stored documents by rowid."""
        if not rowids:
            return {}
        marks = ",".join("?" for _ in rowids)
        rows = self.q(f"SELECT {_DOC_COLUMNS} FROM docs d WHERE d.rowid IN ({marks})", list(rowids))
        return {row[0]: _row_to_doc(row) for row in rows}

    def live_docs(
        self,
        excluded: frozenset[str],
        where: str = "1",
        params: Sequence[Any] = (),
        sources: Sequence[str] | None = None,
    ) -> list[DocRow]:
        """Every servable document matching an extra SQL condition, in path order."""
        today = self._today().isoformat()
        live, live_params = self.live_clause(sources)
        rows = self.q(
            f"SELECT {_DOC_COLUMNS} FROM docs d WHERE {live} AND ({where}) ORDER BY d.path",
            [*live_params, *params],
        )
        return [
            doc for doc in map(_row_to_doc, rows) if is_live(doc.expires, doc.id, excluded, today)
        ]

    def live_classes(self) -> list[tuple[int, str, str | None, str | None]]:
        """(rowid, id, expires, class) of every servable document (TTL and exclusions are
        the caller's to judge)."""
        live, params = self.live_clause(None)
        return self.q(f"SELECT d.rowid, d.id, d.expires, d.class FROM docs d WHERE {live}", params)

    def fts_rowids(self, match: str) -> list[int]:
        """The rowids whose full text matches the FTS5 expression ``match``."""
        return [r for (r,) in self.q("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?", [match])]

    def tagged_memories(self) -> list[tuple[str, str]]:
        """(id, tags) of every servable memory whose tags hold a ``:`` (could name a graph
        node)."""
        live, params = self.live_clause(["memory"])
        return self.q(
            f"SELECT d.id, d.tags FROM docs d WHERE {live} AND d.tags LIKE '%:%'",
            params,
        )

    def path_mentions(self) -> list[tuple[int, str]]:
        """(rowid, mention) of every servable document that names a path."""
        live, params = self.live_clause(None)
        return [
            (rowid, mention)
            for rowid, mention in self.q(
                f"SELECT p.rowid, p.mention FROM doc_paths p JOIN docs d ON d.rowid = p.rowid "
                f"WHERE {live}",
                params,
            )
        ]

    def is_live_row(self, doc: DocRow, excluded: frozenset[str]) -> bool:
        """True when ``doc`` passes every filter for the served brains."""
        scopes = {s.brain: s.scopes for s in self.served}
        return (
            doc.status == "active"
            and not doc.retired
            and doc.scope in scopes.get(doc.brain, ())
            and is_live(doc.expires, doc.id, excluded, self._today().isoformat())
        )

    def vector_rows(
        self,
        embedder: str,
        vectors_table: str,
        extra: str = "1",
        params: Sequence[Any] = (),
        hint: str = "",
    ) -> list[Any]:
        """(rowid, id, expires, dim, vector bytes, source) of live rows with a vector from
        ``embedder``; ``hint`` (``NOT INDEXED``, ``INDEXED BY …``) is SQLite's index choice for
        ``extra`` — see :data:`BY_ROWID`."""
        live, live_params = self.live_clause(None)
        return self.q(
            f"SELECT d.rowid, d.id, d.expires, v.dim, v.vec, d.source FROM docs d {hint} JOIN "
            f"{vectors_table} v ON v.embedder = ? AND v.key = d.embed_key "
            f"AND {USABLE.format(v='v')} WHERE {live} "
            f"AND ({extra})",
            [embedder, *live_params, *params],
        )

    # ------------------------------------------------------------------ keyword search

    def fts_best(self, match: str, limit: int) -> list[Any]:
        """(rowid, bm25) of the best ``limit`` FTS5 matches of ``match`` (lower is better),
        before any filter: read from the FTS table alone."""
        return self.q(
            f"SELECT rowid, {BM25} AS score FROM docs_fts WHERE docs_fts MATCH ? "
            "ORDER BY score LIMIT ?",
            [match, limit],
        )

    def live_among(
        self, rowids: Sequence[int], sources: Sequence[str] | None
    ) -> dict[int, tuple[str | None, str]]:
        """rowid → (expires, id) of those of ``rowids`` that are served and active."""
        live, params = self.live_clause(sources)
        marks = ",".join("?" for _ in rowids)
        return {
            rowid: (expires, doc_id)
            for rowid, doc_id, expires in self.q(
                f"SELECT d.rowid, d.id, d.expires FROM docs d {BY_ROWID} "
                f"WHERE d.rowid IN ({marks}) "
                f"AND {live}",
                [*rowids, *params],
            )
        }

    def fts_live(self, match: str, sources: Sequence[str] | None, limit: int) -> list[Any]:
        """(rowid, id, expires, bm25) of the best ``limit`` served, active FTS5 matches of
        ``match``: every match ranked joined with its document (the slow path)."""
        live, params = self.live_clause(sources)
        return self.q(
            f"SELECT d.rowid, d.id, d.expires, {BM25} AS score FROM docs_fts JOIN docs d "
            f"ON d.rowid = docs_fts.rowid WHERE docs_fts MATCH ? AND {live} "
            "ORDER BY score LIMIT ?",
            [match, *params, limit],
        )

    def counts(self, vectors_table: str, embedder: str | None) -> tuple[dict[str, int], int]:
        """Documents of the served brains by source, and how many have a vector."""
        brains, params = self.brains_clause()
        by_source: dict[str, int] = dict(
            self.q(
                f"SELECT d.source, count(*) FROM docs d WHERE {brains} GROUP BY d.source", params
            )
        )
        vectors = 0
        if embedder is not None:
            (vectors,) = self.q1(
                f"SELECT count(*) FROM docs d WHERE {brains} AND EXISTS (SELECT 1 FROM "
                f"{vectors_table} v WHERE v.embedder = ? AND v.key = d.embed_key)",
                [*params, embedder],
            ) or (0,)
        return by_source, int(vectors)

    def coverage_counts(self, vectors_table: str, embedder: str) -> tuple[int, int]:
        """Live documents of the served brains, and how many of them have a vector."""
        live, params = self.live_clause(None)
        (total,) = self.q1(f"SELECT count(*) FROM docs d WHERE {live}", params) or (0,)
        (embedded,) = self.q1(
            f"SELECT count(*) FROM docs d WHERE {live} AND EXISTS (SELECT 1 FROM "
            f"{vectors_table} v WHERE v.embedder = ? AND v.key = d.embed_key)",
            [*params, embedder],
        ) or (0,)
        return int(total), int(embedded)

    def last_indexed(self) -> dt.datetime | None:
        """When a served brain was last brought up to date."""
        brains = [s.brain for s in self.served]
        indexed = self.q1(
            f"SELECT max(indexed_at) FROM brains WHERE brain IN ({','.join('?' for _ in brains)})",
            brains,
        )
        return dt.datetime.fromisoformat(indexed[0]) if indexed and indexed[0] else None
