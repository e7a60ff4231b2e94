"""The contract's RetrievalBackend on SQLite: FTS5 BM25 ∪ vectors → RRF → filters.

One index.db serves several brains; a backend instance serves a chosen set of them
(:class:`ServedBrain`: a brain id and the scopes it may serve), so results never mix with
other repositories'. Filters are applied inside each candidate query (a filtered-out memory
never takes one of the 40 candidate slots), which gives the same answer as filtering after
fusion, only fuller.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import apsw

from ._db import now_iso
from ._embedders import EmbedderUnavailable
from ._fusion import CANDIDATES, RRF_K, fuse_rrf
from ._numpy import prepare_numpy
from ._pathmatch import extract_mentions
from ._query import sanitise_fts_query
from ._scan import is_retired_path

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from teambrain_schema import IndexableDoc, IndexStats, Scored, Source

    from ._embedders import Embedder, Vectors

# bm25() column weights: a word in the title counts double, a tag one and a half times.
TITLE_WEIGHT = 2.0
BODY_WEIGHT = 1.0
TAGS_WEIGHT = 1.5
# Texts embedded and committed together: small enough that an interrupted reindex keeps all but
# a few seconds of work (each batch is its own transaction), large enough to batch the model.
EMBED_BATCH = 16
# A vector candidate the keyword half did not find must be at least this close to the query:
# below it a memory is unrelated (MiniLM: unrelated texts ~0-0.15, a relevant SciFact abstract
# ≥ 0.39 in 95% of cases), and "the nearest of 40" alone would always fill every answer.
VECTOR_FLOOR = 0.2
# Keyword matches read before filtering, beyond the ones wanted; more are read only when filters
# reject too many.
FTS_WINDOW = 160

Progress = Callable[[int, int], None]


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


def say_once(message: str, _said: set[str] = set()) -> None:  # noqa: B006 - process-wide memo
    """Print ``teambrain: message`` on stderr, once per process."""
    if message not in _said:
        _said.add(message)
        print(f"teambrain: {message}", file=sys.stderr, flush=True)


_NO_EXPIRY = dt.date.max.toordinal()


def _expiry_day(expires: str | None) -> int:
    """The first day (ordinal) a row is expired on; a day that never comes without a TTL."""
    return dt.date.fromisoformat(expires).toordinal() if expires else _NO_EXPIRY


# Index choices for lookups of a few rows by key that also filter on what is served. Without
# statistics SQLite guesses an equality on docs_by_brain matches ~10 rows, prefers it to a
# list of 200 rowids or content keys, and then reads every memory of the brain: at 10,000
# memories the keyword half's filter took 2.1 ms instead of 0.5, and re-reading the vectors of
# one edited memory 12 ms instead of 0.1.
_BY_ROWID = "NOT INDEXED"  # the rowid lookup stays; no secondary index
# A cached vector row is used only when its blob holds exactly ``dim`` float32 values: a row
# damaged in index.db counts as missing, so the text is embedded again (and the row replaced).
_USABLE = "typeof({v}.vec) = 'blob' AND {v}.dim > 0 AND length({v}.vec) = 4 * {v}.dim"
_BY_EMBED_KEY = "INDEXED BY docs_by_embed_key"


@dataclass
class _VectorMatrix:
    """Vectors of every servable document, ready for one matrix product per query."""

    rowids: list[int]
    ids: list[str]
    sources: Any  # NDArray[np.str_]: each row's source (memory, codemap)
    matrix: Any  # NDArray[np.float32] (n, dim)
    expires: Any  # NDArray[np.int64]: first expired day as an ordinal, a huge value without TTL
    excluded: Any  # NDArray[np.bool_]: superseded or retired elsewhere
    any_expiry: bool
    position: dict[int, int] | None = None  # rowid → row, built when first needed


def _excluded_mask(ids: list[str], snap: _Snapshot) -> Any:
    """NDArray[np.bool_]: which of ``ids`` are superseded or retired elsewhere."""
    import numpy as np

    return np.array([doc_id in snap.excluded for doc_id in ids], dtype=np.bool_)


def _writable_float32(array: Any) -> Any:
    import numpy as np

    if array.dtype == np.float32 and array.flags.writeable and array.flags.c_contiguous:
        return array
    return np.array(array, dtype=np.float32)


@dataclass
class _SavedMatrix:
    """A vector matrix saved to a private file, valid for one generation of the index."""

    generation: int
    complete: bool
    arrays: dict[str, Any]

    @classmethod
    def load(
        cls, path: Path, generation: int, dim: int | None, warn: Callable[[str], None]
    ) -> _SavedMatrix | None:
        """The matrix saved at ``path`` for ``generation``; None when there is none. A file
        that does not validate is deleted (it is rebuilt and saved again), said once."""
        prepare_numpy()
        from ._matrix_file import MatrixFileDamaged, read_matrix_file

        try:
            arrays = read_matrix_file(path, generation, dim)
        except MatrixFileDamaged as exc:
            warn(f"discarded the damaged vectors cache {path} ({exc.reason}); rebuilding it")
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        if arrays is None:
            return None
        return cls(generation, bool(arrays["complete"]), arrays)

    @staticmethod
    def save(path: Path, vectors: _VectorMatrix, generation: int, complete: bool) -> None:
        import numpy as np
        from teambrain_schema.private_dirs import ensure_private_dir

        from ._matrix_file import CHECKSUM, checksum

        ensure_private_dir(path.parent)
        arrays = {
            "generation": np.int64(generation), "complete": np.bool_(complete),
            "rowids": np.array(vectors.rowids, dtype=np.int64),
            "ids": np.array(vectors.ids, dtype=np.str_), "sources": vectors.sources,
            "matrix": vectors.matrix, "expires": vectors.expires,
        }  # fmt: skip
        arrays[CHECKSUM] = np.uint32(checksum(arrays))
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".vectors-", suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, **arrays)
            os.replace(temp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)

    def matrix_for(self, snap: _Snapshot) -> _VectorMatrix | None:

        a = self.arrays
        ids = [str(i) for i in a["ids"]]
        if not ids:
            return None
        expires = a["expires"]
        return _VectorMatrix(
            rowids=[int(r) for r in a["rowids"]],
            ids=ids,
            sources=a["sources"],
            # Read from the file into memory of its own (the saved matrix is used once), so it
            # is already writable and edits can patch it in place: copying 30 MB cost 50 ms.
            matrix=_writable_float32(a["matrix"]),
            expires=expires,
            excluded=_excluded_mask(ids, snap),
            any_expiry=bool((expires != _NO_EXPIRY).any()),
        )


@dataclass
class _Snapshot:
    """Per-generation caches: what is excluded, and the vector matrix."""

    version: tuple[int, int, int]
    excluded: frozenset[str]
    vectors: _VectorMatrix | None = None
    vectors_built: bool = False
    # (embedder name, brains) → (documents by source, documents with a vector): counting the
    # vectors is a lookup per document (75 ms at 10k), and the MCP server asks on every request.
    counts: dict[tuple[str | None, tuple[str, ...]], tuple[dict[str, int], int]] = field(
        default_factory=dict
    )


class SqliteBackend:
    """RetrievalBackend over an apsw connection (see the module docstring).

    ``embedder`` None means keyword search only. ``vectors_table`` names where cached
    embeddings live (``vectors``, or ``cache.vectors`` for an in-memory index whose cache is the
    shared index.db). ``warn`` receives one-line messages (default: stderr, once per process).
    """

    def __init__(
        self,
        db: apsw.Connection,
        served: Sequence[ServedBrain],
        embedder: Embedder | None = None,
        *,
        vectors_table: str = "vectors",
        warn: Callable[[str], None] | None = None,
        today: Callable[[], dt.date] | None = None,
        no_embedder_reason: str = "none: keyword search only",
        matrix_cache: Path | None = None,
    ) -> None:
        if not served:
            raise ValueError("a backend serves at least one brain")
        self.db = db
        self.served = list(served)
        self.embedder = embedder
        self.vectors_table = vectors_table
        self._warn = warn or say_once
        self._today = today or (lambda: dt.datetime.now(dt.UTC).date())
        self.degraded: str | None = None if embedder else no_embedder_reason
        self._generation = 0
        self._snapshot: _Snapshot | None = None
        # What changed through this connection since the snapshot: rows written or deleted,
        # texts embedded. Small changes then patch the vector matrix instead of rebuilding it.
        self._dirty_rows: set[int] = set()
        self._dirty_keys: set[str] = set()
        self._full_rebuild = True
        self._lock = threading.RLock()
        self._query_vectors: dict[str, Any] = {}
        self._document_vectors: dict[str, Any] = {}
        self._pool: ThreadPoolExecutor | None = None
        # Texts written since the last embedding pass, by embed key; None: unknown (at start),
        # so the first pass looks at every document.
        self._pending: dict[str, str] | None = None
        # A directory for the saved vector matrix (None: never saved): a new process loads it
        # instead of reading every vector row, while the index's generation is unchanged.
        self._matrix_cache = matrix_cache
        self._saved: _SavedMatrix | None = None
        self._saved_checked = False
        self._matrix_rows_read = 0  # vector rows read from SQLite to build matrices (for tests)
        self._dim_seen: tuple[tuple[int, int, int], int | None] | None = None

    # ------------------------------------------------------------------ SQL pieces

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """All rows of a read query."""
        return self.db.execute(sql, params).fetchall()

    def _q1(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first row of a read query, or None."""
        return self.db.execute(sql, params).fetchone()

    def _served_clause(self) -> tuple[str, list[Any]]:
        parts, params = [], []
        for served in self.served:
            marks = ",".join("?" for _ in served.scopes) or "NULL"
            parts.append(f"(d.brain = ? AND d.scope IN ({marks}))")
            params.extend([served.brain, *served.scopes])
        return "(" + " OR ".join(parts) + ")", params

    def _live_clause(self, sources: Sequence[str] | None) -> tuple[str, list[Any]]:
        served, params = self._served_clause()
        clause = f"d.status = 'active' AND d.retired = 0 AND {served}"
        if sources:
            clause += f" AND d.source IN ({','.join('?' for _ in sources)})"
            params.extend(sources)
        return clause, params

    def _brains_clause(self) -> tuple[str, list[str]]:
        brains = [s.brain for s in self.served]
        return f"d.brain IN ({','.join('?' for _ in brains)})", brains

    # ------------------------------------------------------------------ caches

    def _version(self) -> tuple[int, int, int]:
        (data_version,) = self._q1("PRAGMA data_version") or (0,)
        # The day is part of it: a superseder's TTL running out changes what is served.
        return (int(data_version), self._generation, self._today().toordinal())

    def _changed(
        self, rows: Iterable[int] | None = None, keys: Iterable[str] | None = None
    ) -> None:
        """Invalidate the caches: ``rows``/``keys`` say what changed (None: anything)."""
        self._generation += 1
        self._saved, self._saved_checked = None, True  # what was saved predates this write
        if rows is None and keys is None:
            self._full_rebuild = True
        self._dirty_rows.update(rows or ())
        self._dirty_keys.update(keys or ())

    def _excluded(self) -> frozenset[str]:
        """Ids the served rule (``teambrain_schema.served.excluded_ids``) hides: superseded, or with a
        retired copy. Only the rows that can matter are read (both lookups are indexed)."""
        from teambrain_schema.served import excluded_ids

        brains, params = self._brains_clause()
        # One SELECT per partial index: with the OR in one WHERE, SQLite walked docs_by_brain
        # instead, every memory of the brain (11 ms at 10,000) after each write.
        columns = "d.id, d.status, d.retired, d.supersedes, d.expires"
        rows = self._q(
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

    def snapshot(self) -> _Snapshot:
        """Caches valid for the current contents of the index: rebuilt after another process
        wrote to it, patched after small writes through this one."""
        version = self._version()
        with self._lock:
            old = self._snapshot
            if old is not None and old.version == version:
                return old
            snap = _Snapshot(version, self._excluded())
            if (
                old is not None
                and old.version[0] == version[0]
                and not self._full_rebuild
                and old.vectors_built
                and self.embedder is not None
            ):
                snap.vectors = self._patched_matrix(old.vectors, snap)
                snap.vectors_built = True
            self._dirty_rows, self._dirty_keys = set(), set()
            self._full_rebuild = False
            self._snapshot = snap
            return snap

    def _is_live(self, expires: str | None, doc_id: str, snap: _Snapshot, today: str) -> bool:
        return (expires is None or expires > today) and doc_id not in snap.excluded

    # ------------------------------------------------------------------ writing

    def index(self, docs: list[IndexableDoc], source: Source = "memory") -> None:
        """Add or replace ``docs`` (keyed by brain, source and path), then embed what is new."""
        self.upsert(docs, source)
        self.ensure_vectors()

    def upsert(self, docs: Iterable[IndexableDoc], source: Source = "memory") -> int:
        """Write ``docs`` without embedding them; returns how many rows were written."""
        rowids = []
        evicted = False
        with self.db:
            for doc in docs:
                rowids.append(self._upsert_one(doc, doc.source or source))
                evicted = evicted or is_retired_path(doc.path) or doc.status == "retired"
        if evicted:
            # FTS5 keeps deleted tokens in old segments until they merge: merge now, so a
            # retired memory's words leave the file too (retirements are rare; this is cheap).
            with self.db:
                self.db.execute("INSERT INTO docs_fts(docs_fts) VALUES('optimize')")
        if rowids:
            self._changed(rows=rowids)
        return len(rowids)

    @property
    def vectors_pending(self) -> bool:
        """True when some document may still lack a vector."""
        return self._pending is None or bool(self._pending)

    def _upsert_one(self, doc: IndexableDoc, source: str) -> int:
        retired = is_retired_path(doc.path) or doc.status == "retired"
        if retired:
            # Eviction: a retired memory stays only as a tombstone (id, path, status) so the
            # filters know it; its title, body and tags leave the index, and it has no vector.
            doc = doc.model_copy(update={"title": "", "body": "", "tags": [], "evidence": None})
        text = embed_text(doc.title, doc.body)
        if self._pending is not None and not retired:
            self._pending[embed_key(text)] = text
        values = (
            doc.brain, source, doc.id, doc.path, doc.title, doc.body, " ".join(doc.tags),
            doc.class_, doc.scope, doc.status, doc.priority,
            int(retired),
            doc.created.isoformat() if doc.created else None, _expires(doc),
            json.dumps(doc.supersedes), doc.model_dump_json(by_alias=True), doc.content_hash,
            embed_key(text),
        )  # fmt: skip
        row = self._q1(
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
            [(rowid, mention) for mention in extract_mentions(doc.body, doc.tags)],
        )
        return int(rowid)

    def remove(self, ids: list[str]) -> None:
        """Remove documents by id from the served brains (unknown ids are ignored)."""
        if not ids:
            return
        brains, params = self._brains_clause()
        marks = ",".join("?" for _ in ids)
        with self.db:
            self.db.execute(
                f"DELETE FROM docs WHERE rowid IN (SELECT d.rowid FROM docs d WHERE {brains} "
                f"AND d.id IN ({marks}))",
                [*params, *ids],
            )
        self._changed()

    def remove_paths(self, brain: str, paths: Iterable[str], source: str = "memory") -> int:
        """Remove the documents read from ``paths`` of ``brain``; returns how many."""
        removed: list[int] = []
        with self.db:
            for path in paths:
                removed.extend(
                    row[0]
                    for row in self._q(
                        "DELETE FROM docs WHERE brain = ? AND source = ? AND path = ? "
                        "RETURNING rowid",
                        (brain, source, path),
                    )
                )
        if removed:
            self._changed(rows=removed)
        return len(removed)

    def clear_brain(self, brain: str) -> None:
        """Forget every document of ``brain`` (before a rebuild)."""
        with self.db:
            self.db.execute("DELETE FROM docs WHERE brain = ?", (brain,))
        self._changed()

    # ------------------------------------------------------------------ embeddings

    def _note_unavailable(self, reason: str) -> None:
        name = getattr(self.embedder, "name", "embedder")
        self.degraded = f"none: {name} unavailable ({reason})"
        self._warn(f"semantic search is off, using keyword search only: {name}: {reason}")
        self.embedder = None
        self._snapshot = None
        self._full_rebuild = True

    def missing_vectors(self) -> list[tuple[str, str]]:
        """(embed_key, text) of served documents that have no cached vector yet."""
        if self.embedder is None:
            return []
        if self._pending is None and self._saved_matrix() is not None:
            saved = self._saved
            assert saved is not None
            if saved.complete:  # every served document had a vector at this generation
                return []
        dim = self._common_dim()
        if self._pending is not None:
            keys = list(self._pending)
            present: set[str] = set()
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                present.update(
                    key
                    for (key,) in self._q(
                        f"SELECT v.key FROM {self.vectors_table} v WHERE v.embedder = ? "
                        f"AND {_USABLE.format(v='v')} AND v.dim IS ? AND v.key IN "
                        f"({','.join('?' for _ in chunk)})",
                        [self.embedder.name, dim, *chunk],
                    )
                )
            return [(key, text) for key, text in self._pending.items() if key not in present]
        brains, params = self._brains_clause()
        rows = self._q(
            f"SELECT DISTINCT d.embed_key, d.title, d.body FROM docs d WHERE {brains} AND d.retired = 0 AND NOT "
            f"EXISTS (SELECT 1 FROM {self.vectors_table} v WHERE v.embedder = ? AND "
            f"v.key = d.embed_key AND {_USABLE.format(v='v')} AND v.dim IS ?)",
            [*params, self.embedder.name, dim],
        )
        return [(key, embed_text(title, body)) for key, title, body in rows]

    def ensure_vectors(
        self, progress: Progress | None = None, *, budget_s: float | None = None
    ) -> int:
        """Embed every served document whose text has no cached vector; returns how many.

        With ``budget_s``, stop after the batch that passes that many seconds: the rest stays
        pending for the next call (an answer never waits minutes for a big pull to be embedded;
        keyword search finds those memories meanwhile). Each batch is committed on its own, so
        an interruption loses at most one batch. On an embedder failure, search degrades to
        keyword search (said once) — never raises.
        """
        todo = self.missing_vectors()
        self._pending = {}
        if not todo or self.embedder is None:
            return 0
        done = 0
        started = time.monotonic()
        if progress:
            progress(0, len(todo))
        for start in range(0, len(todo), EMBED_BATCH):
            if budget_s is not None and done and time.monotonic() - started > budget_s:
                self._pending = dict(todo[start:])
                self._warn(
                    f"{len(todo) - start} memories are not embedded yet: keyword search finds "
                    "them meanwhile; `tb reindex` embeds them all (with progress)"
                )
                break
            batch = todo[start : start + EMBED_BATCH]
            try:
                vectors = self.embedder.embed_documents([text for _, text in batch])
            except EmbedderUnavailable as exc:
                self._note_unavailable(exc.reason)
                return done
            with self.db:
                self.db.executemany(
                    f"INSERT OR REPLACE INTO {self.vectors_table}(embedder, key, dim, vec) "
                    "VALUES (?, ?, ?, ?)",
                    [
                        (self.embedder.name, key, int(vector.shape[0]), vector.tobytes())
                        for (key, _), vector in zip(batch, vectors, strict=True)
                    ],
                )
            done += len(batch)
            if progress:
                progress(done, len(todo))
        self._changed(keys=[key for key, _ in todo[:done]])
        return done

    def _matrix_rows(
        self, extra: str = "1", params: Sequence[Any] = (), hint: str = ""
    ) -> list[Any]:
        """Live rows with their vectors; ``hint`` (``NOT INDEXED``, ``INDEXED BY …``) is
        SQLite's index choice for ``extra`` — see :data:`_BY_ROWID`."""
        assert self.embedder is not None
        live, live_params = self._live_clause(None)
        self._matrix_rows_read += 1
        return self._q(
            f"SELECT d.rowid, d.id, d.expires, v.dim, v.vec, d.source FROM docs d {hint} JOIN "
            f"{self.vectors_table} v ON v.embedder = ? AND v.key = d.embed_key "
            f"AND {_USABLE.format(v='v')} WHERE {live} "
            f"AND ({extra})",
            [self.embedder.name, *live_params, *params],
        )

    def _build_matrix(
        self, rows: list[Any], snap: _Snapshot, base: _VectorMatrix | None = None
    ) -> _VectorMatrix | None:
        prepare_numpy()
        import numpy as np

        dims = [r[3] for r in rows]
        if base is not None:
            dim = int(base.matrix.shape[1])
        elif rows:
            dim = max(set(dims), key=dims.count)
        else:
            return None
        rows = [r for r in rows if r[3] == dim]
        new_matrix = np.frombuffer(
            bytearray().join(r[4] for r in rows),  # writable: edits patch rows in place
            dtype=np.float32,
        ).reshape(len(rows), dim)
        new_expires = np.array(
            [_expiry_day(r[2]) for r in rows],
            dtype=np.int64,
        )
        rowids, ids = [r[0] for r in rows], [r[1] for r in rows]
        new_sources = np.array([r[5] for r in rows], dtype=np.str_)
        if base is not None:
            rowids, ids = base.rowids + rowids, base.ids + ids
            new_sources = np.concatenate([base.sources, new_sources])
            new_matrix = np.concatenate([base.matrix, new_matrix])
            new_expires = np.concatenate([base.expires, new_expires])
        if not rowids:
            return None
        return _VectorMatrix(
            rowids=rowids,
            ids=ids,
            sources=new_sources,
            matrix=new_matrix,
            expires=new_expires,
            excluded=_excluded_mask(ids, snap),
            any_expiry=bool((new_expires != _NO_EXPIRY).any()),
        )

    def _patched_matrix(self, old: _VectorMatrix | None, snap: _Snapshot) -> _VectorMatrix | None:
        """``old`` with the rows written or embedded since replaced (a few rows, not all)."""
        rows = []
        dirty = list(self._dirty_rows)
        for start in range(0, len(dirty), 500):
            chunk = dirty[start : start + 500]
            rows += self._matrix_rows(
                f"d.rowid IN ({','.join('?' for _ in chunk)})", chunk, _BY_ROWID
            )
        keys = list(self._dirty_keys)
        for start in range(0, len(keys), 500):
            some_keys = keys[start : start + 500]
            rows += self._matrix_rows(
                f"d.embed_key IN ({','.join('?' for _ in some_keys)})", some_keys, _BY_EMBED_KEY
            )
        changed = self._dirty_rows | {r[0] for r in rows}
        unique = list({r[0]: r for r in rows}.values())
        in_place = self._patched_in_place(old, changed, unique, snap)
        if in_place is not None:
            return in_place
        base = None
        if old is not None:
            prepare_numpy()
            import numpy as np

            keep = np.array([rowid not in changed for rowid in old.rowids], dtype=np.bool_)
            base = _VectorMatrix(
                rowids=[r for r, k in zip(old.rowids, keep, strict=True) if k],
                ids=[i for i, k in zip(old.ids, keep, strict=True) if k],
                sources=old.sources[keep],
                matrix=old.matrix[keep],
                expires=old.expires[keep],
                excluded=old.excluded[keep],
                any_expiry=old.any_expiry,
            )
            if not base.rowids:
                base = None
        return self._build_matrix(unique, snap, base)

    def _patched_in_place(
        self, old: _VectorMatrix | None, changed: set[int], rows: list[Any], snap: _Snapshot
    ) -> _VectorMatrix | None:
        """The common small change — memories edited, none added, removed or filtered out —
        as row writes into ``old``'s arrays instead of copying the whole matrix; None when the
        change is not of that kind."""
        if old is None or len(rows) != len(changed):
            return None
        if old.position is None:
            old.position = {rowid: index for index, rowid in enumerate(old.rowids)}
        dim = int(old.matrix.shape[1])
        places = [old.position.get(r[0]) for r in rows]
        width = old.sources.dtype.itemsize // 4  # characters a fixed-width str row holds
        if (
            any(place is None for place in places)
            or any(r[3] != dim or len(r[5]) > width for r in rows)
            or not old.matrix.flags.writeable
        ):
            return None
        prepare_numpy()
        import numpy as np

        ids = list(old.ids)
        for place, row in zip(places, rows, strict=True):
            assert place is not None
            old.matrix[place] = np.frombuffer(row[4], dtype=np.float32)
            old.expires[place] = _expiry_day(row[2])
            old.sources[place] = row[5]
            ids[place] = row[1]
        # A search already running on the previous snapshot sees each row either before or
        # after its write; both are answers that were true a moment ago.
        return _VectorMatrix(
            rowids=old.rowids,
            ids=ids,
            sources=old.sources,
            matrix=old.matrix,
            expires=old.expires,
            excluded=_excluded_mask(ids, snap),
            any_expiry=bool((old.expires != _NO_EXPIRY).any()),
            position=old.position,
        )

    def _vector_matrix(self, snap: _Snapshot) -> _VectorMatrix | None:
        if snap.vectors_built:
            return snap.vectors
        snap.vectors_built = True
        if self.embedder is None:
            return None
        saved = self._saved_matrix()
        if saved is not None:
            self._saved = None  # used once: later snapshots are patched or rebuilt
            snap.vectors = saved.matrix_for(snap)
            return snap.vectors
        before = self._stored_generation()
        snap.vectors = self._build_matrix(self._matrix_rows(), snap)
        if before is not None and before == self._stored_generation():
            self._save_matrix(snap.vectors, before)
        return snap.vectors

    # ------------------------------------------------------------------ the saved matrix

    def _stored_generation(self) -> int | None:
        """The index's write counter (None for an index without one, e.g. in memory)."""
        if self._matrix_cache is None:
            return None
        try:
            row = self._q1("SELECT n FROM generation WHERE id = 0")
        except apsw.SQLError:
            return None
        return int(row[0]) if row else None

    def _common_dim(self) -> int | None:
        """The dimension of most of this embedder's usable cached vectors (None: none yet).
        Rows of another dimension are damage: their texts are embedded again."""
        if self.embedder is None:
            return None
        version = self._version()
        if self._dim_seen is not None and self._dim_seen[0] == version:
            return self._dim_seen[1]
        row = self._q1(
            f"SELECT v.dim FROM {self.vectors_table} v WHERE v.embedder = ? AND "
            f"{_USABLE.format(v='v')} GROUP BY v.dim ORDER BY count(*) DESC LIMIT 1",
            (self.embedder.name,),
        )
        dim = int(row[0]) if row else None
        self._dim_seen = (version, dim)
        return dim

    def _cache_file(self) -> Path:
        assert self._matrix_cache is not None and self.embedder is not None
        served = json.dumps([self.embedder.name, [[s.brain, list(s.scopes)] for s in self.served]])
        name = hashlib.sha256(served.encode("utf-8", "surrogatepass")).hexdigest()[:24]
        return self._matrix_cache / f"vectors-{name}.npz"

    def _saved_matrix(self) -> _SavedMatrix | None:
        """The matrix a process saved at the index's current generation, if there is one."""
        if self._saved_checked:
            return self._saved
        self._saved_checked = True
        generation = self._stored_generation()
        if generation is None or self.embedder is None:
            return None
        dim = self._common_dim()
        self._saved = _SavedMatrix.load(self._cache_file(), generation, dim, self._warn)
        return self._saved

    def _save_matrix(self, vectors: _VectorMatrix | None, generation: int) -> None:
        """Save the freshly built matrix for the next process (best effort, private file)."""
        if vectors is None or self._matrix_cache is None:
            return
        complete = self._pending is not None and not self._pending
        with contextlib.suppress(OSError, ValueError):
            _SavedMatrix.save(self._cache_file(), vectors, generation, complete)

    def embed_query(self, text: str) -> Vectors | None:
        """The query's vector, or None when semantic search is off (degrades on failure)."""
        if self.embedder is None:
            return None
        cached = self._query_vectors.get(text)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        try:
            vector = self.embedder.embed_query(text)
        except EmbedderUnavailable as exc:
            self._note_unavailable(exc.reason)
            return None
        if len(self._query_vectors) > 256:
            self._query_vectors.clear()
        self._query_vectors[text] = vector
        return vector

    def embed_document(self, text: str) -> Vectors | None:
        """A document-side vector for ``text`` (near-duplicate checks), None when off. A text
        already embedded (stored, or asked for recently) is not embedded again: the distiller
        compares each draft with live memories and with pending candidates."""
        if self.embedder is None:
            return None
        cached = self._document_vectors.get(text)
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        try:
            vector = self._stored(text)
            if vector is None:
                vector = self.embedder.embed_documents([text])[0]
        except EmbedderUnavailable as exc:
            self._note_unavailable(exc.reason)
            return None
        if len(self._document_vectors) > 256:
            self._document_vectors.clear()
        self._document_vectors[text] = vector
        return vector

    def stored_vector(self, title: str, body: str) -> Vectors | None:
        """The cached vector of a document's text, if it has one."""
        return None if self.embedder is None else self._stored(embed_text(title, body))

    def _stored(self, text: str) -> Vectors | None:
        assert self.embedder is not None
        row = self._q1(
            f"SELECT v.vec, v.dim FROM {self.vectors_table} v WHERE v.embedder = ? AND v.key = ? "
            f"AND {_USABLE.format(v='v')}",
            (self.embedder.name, embed_key(text)),
        )
        if row is None or row[1] != self._common_dim():
            return None
        prepare_numpy()
        import numpy as np

        vector: Vectors = np.frombuffer(row[0], dtype=np.float32)
        return vector

    # ------------------------------------------------------------------ searching

    def fts_ranking(
        self, query: str, limit: int = CANDIDATES, sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, bm25) of live documents for ``query`` (bm25: lower is better).

        The common case reads the best few hundred matches from the FTS table alone and
        filters those; only when filters reject too many of them (other brains sharing the
        index, many retired memories) does it rank every match joined with its document.
        """
        match = sanitise_fts_query(query)
        if not match:
            return []
        snap = self.snapshot()
        today = self._today().isoformat()
        live, params = self._live_clause(sources)
        score = f"bm25(docs_fts, {TITLE_WEIGHT}, {BODY_WEIGHT}, {TAGS_WEIGHT})"
        window = FTS_WINDOW + limit + len(snap.excluded)
        first = self._q(
            f"SELECT rowid, {score} AS score FROM docs_fts WHERE docs_fts MATCH ? "
            "ORDER BY score LIMIT ?",
            [match, window],
        )
        if first:
            marks = ",".join("?" for _ in first)
            passing = {
                rowid: (expires, doc_id)
                for rowid, doc_id, expires in self._q(
                    f"SELECT d.rowid, d.id, d.expires FROM docs d {_BY_ROWID} "
                    f"WHERE d.rowid IN ({marks}) "
                    f"AND {live}",
                    [*(row[0] for row in first), *params],
                )
            }
            ranked = [
                (rowid, float(value))
                for rowid, value in first
                if rowid in passing and self._is_live(*passing[rowid], snap, today)
            ]
            if len(ranked) >= limit or len(first) < window:
                return ranked[:limit]
        rows = self._q(
            f"SELECT d.rowid, d.id, d.expires, {score} AS score FROM docs_fts JOIN docs d "
            f"ON d.rowid = docs_fts.rowid WHERE docs_fts MATCH ? AND {live} "
            "ORDER BY score LIMIT ?",
            [match, *params, limit + len(snap.excluded) + 16],
        )
        ranked = [
            (rowid, float(value))
            for rowid, doc_id, expires, value in rows
            if self._is_live(expires, doc_id, snap, today)
        ]
        return ranked[:limit]

    def vector_ranking_for(
        self,
        vector: Vectors | None,
        limit: int = CANDIDATES,
        sources: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, cosine) of live documents nearest to ``vector``."""
        if vector is None or self.embedder is None:
            return []
        snap = self.snapshot()
        return self._nearest(self._vector_matrix(snap), vector, limit, sources)

    def _nearest(
        self,
        matrix: _VectorMatrix | None,
        vector: Vectors | None,
        limit: int,
        sources: Sequence[str] | None,
    ) -> list[tuple[int, float]]:
        """The matrix half of a vector search: no SQL, so it can run beside the keyword half."""
        if vector is None or matrix is None or matrix.matrix.shape[1] != vector.shape[0]:
            return []
        prepare_numpy()
        import numpy as np

        scores: NDArray[np.float32] = matrix.matrix @ vector.astype(np.float32)
        if matrix.any_expiry:
            scores[matrix.expires <= self._today().toordinal()] = -np.inf
        scores[matrix.excluded] = -np.inf
        if sources:
            scores[~np.isin(matrix.sources, list(sources))] = -np.inf
        count = min(limit, len(scores))
        if count <= 0:
            return []
        top = np.argpartition(-scores, count - 1)[:count]
        found = [
            (matrix.rowids[int(i)], float(scores[int(i)])) for i in top if np.isfinite(scores[i])
        ]
        # Ties go to the older row, so the order never depends on how the matrix was built.
        return sorted(found, key=lambda item: (-item[1], item[0]))

    def _worker(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="teambrain-embed")
        return self._pool

    def warm_up(self, query: str | None = None) -> None:
        """Start loading the embedding model (and embedding ``query``) on the worker thread,
        so a one-shot process's first search waits only for what is left of the load. A
        failure is not reported here: the search that needs the model reports it."""
        embedder = self.embedder
        if embedder is None:
            return
        # numpy's import is Python work that would hold the interpreter lock against the
        # caller's file scan (each stat gives the lock up and waits to get it back); the
        # caller needs numpy anyway, so import it here. The session build runs without it.
        prepare_numpy()
        import numpy  # noqa: F401

        def load() -> None:
            with contextlib.suppress(Exception):
                prepare = getattr(embedder, "load", None)
                if callable(prepare):
                    prepare()
                if query is not None and query not in self._query_vectors:
                    # Stored only on success: a failure is noted by the search's own call.
                    self._query_vectors[query] = embedder.embed_query(query)

        self._worker().submit(load)

    def vector_ranking(
        self, query: str, limit: int = CANDIDATES, sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, cosine) of live documents for ``query``'s embedding."""
        return self.vector_ranking_for(self.embed_query(query), limit, sources)

    def _embed_and_rank(
        self, query: str, matrix: _VectorMatrix | None, sources: Sequence[str] | None
    ) -> list[tuple[int, float]]:
        return self._nearest(matrix, self.embed_query(query), CANDIDATES, sources)

    def ranked(
        self, query: str, k: int, *, mode: str = "hybrid", sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, score) best first: ``hybrid`` (RRF), ``fts`` or ``vector`` alone.

        In the hybrid, a vector candidate that the keyword half did not find counts only when
        its cosine reaches :data:`VECTOR_FLOOR`.
        """
        if mode == "fts":
            return self.fts_ranking(query, max(k, 1), sources)[:k]
        if mode == "vector":
            return self.vector_ranking(query, max(k, CANDIDATES), sources)[:k]
        pending = None
        if self.embedder is not None:
            # The vector half (the query's embedding on onnxruntime, then one matrix product)
            # and the keyword half (SQLite) both release the GIL: run them side by side. The
            # matrix is taken here, so the worker never touches the database connection.
            matrix = self._vector_matrix(self.snapshot())
            if matrix is not None:
                pending = self._worker().submit(self._embed_and_rank, query, matrix, sources)
        keyword = [rowid for rowid, _ in self.fts_ranking(query, CANDIDATES, sources)]
        lists = [keyword]
        if pending is not None:
            found = set(keyword)
            vectors = [
                rowid for rowid, cosine in pending.result()
                if cosine >= VECTOR_FLOOR or rowid in found
            ]  # fmt: skip
            if vectors:
                lists.append(vectors)
        return fuse_rrf(lists, k=RRF_K, depth=CANDIDATES)[:k]

    def search(self, q: str, k: int, sources: list[Source] | None = None) -> list[Scored]:
        """The contract's search: hybrid, filtered, best ``k`` first, each with its source."""
        from teambrain_schema import Scored

        ranked = self.ranked(q, k, sources=sources)
        docs = self.docs([rowid for rowid, _ in ranked])
        return [
            Scored(id=docs[rowid].id, source=docs[rowid].source, score=score,
                   brain=docs[rowid].brain, rank=position)
            for position, (rowid, score) in enumerate(ranked, start=1)
            if rowid in docs
        ]  # fmt: skip

    # ------------------------------------------------------------------ reading

    def docs(self, rowids: Sequence[int]) -> dict[int, DocRow]:
        """Stored documents by rowid."""
        if not rowids:
            return {}
        marks = ",".join("?" for _ in rowids)
        rows = self._q(
            f"SELECT {_DOC_COLUMNS} FROM docs d WHERE d.rowid IN ({marks})", list(rowids)
        )
        return {row[0]: _row_to_doc(row) for row in rows}

    def live_docs(
        self, where: str = "1", params: Sequence[Any] = (), sources: Sequence[str] | None = None
    ) -> list[DocRow]:
        """Every servable document matching an extra SQL condition, in path order."""
        snap = self.snapshot()
        today = self._today().isoformat()
        live, live_params = self._live_clause(sources)
        rows = self._q(
            f"SELECT {_DOC_COLUMNS} FROM docs d WHERE {live} AND ({where}) ORDER BY d.path",
            [*live_params, *params],
        )
        return [
            doc for doc in map(_row_to_doc, rows) if self._is_live(doc.expires, doc.id, snap, today)
        ]

    def path_mentions(self) -> list[tuple[int, str]]:
        """(rowid, mention) of every servable document that names a path."""
        live, params = self._live_clause(None)
        return [
            (rowid, mention)
            for rowid, mention in self._q(
                f"SELECT p.rowid, p.mention FROM doc_paths p JOIN docs d ON d.rowid = p.rowid "
                f"WHERE {live}",
                params,
            )
        ]

    def is_live_row(self, doc: DocRow) -> bool:
        """True when ``doc`` passes every filter for this backend."""
        snap = self.snapshot()
        scopes = {s.brain: s.scopes for s in self.served}
        return (
            doc.status == "active"
            and not doc.retired
            and doc.scope in scopes.get(doc.brain, ())
            and self._is_live(doc.expires, doc.id, snap, self._today().isoformat())
        )

    def stats(self) -> IndexStats:
        """Counts for the served brains, the embedder in use and why search is degraded."""
        from teambrain_schema import IndexStats

        brains, params = self._brains_clause()
        by_source, vectors = self._counts(brains, params)
        indexed = self._q1(
            f"SELECT max(indexed_at) FROM brains WHERE brain IN ({','.join('?' for _ in params)})",
            params,
        )
        last = dt.datetime.fromisoformat(indexed[0]) if indexed and indexed[0] else None
        return IndexStats(
            documents=sum(by_source.values()),
            by_source=by_source,
            brains=[s.brain for s in self.served],
            embedder=self.embedder.name if self.embedder else "none",
            vectors=vectors,
            last_indexed=last,
            degraded=self.degraded,
        )

    def _counts(self, brains: str, params: list[Any]) -> tuple[dict[str, int], int]:
        """Documents by source and how many have a vector, counted once per index generation."""
        snap = self.snapshot()
        name = self.embedder.name if self.embedder is not None else None
        key = (name, tuple(params))
        counts = snap.counts.get(key)
        if counts is None:
            by_source: dict[str, int] = dict(
                self._q(
                    f"SELECT d.source, count(*) FROM docs d WHERE {brains} GROUP BY d.source",
                    params,
                )
            )
            vectors = 0
            if name is not None:
                (vectors,) = self._q1(
                    f"SELECT count(*) FROM docs d WHERE {brains} AND EXISTS (SELECT 1 FROM "
                    f"{self.vectors_table} v WHERE v.embedder = ? AND v.key = d.embed_key)",
                    [*params, name],
                ) or (0,)
            counts = snap.counts[key] = (by_source, int(vectors))
        return dict(counts[0]), counts[1]

    def mark_indexed(self, brain: str, root: str) -> None:
        """Record that ``brain`` (at ``root``) was brought up to date now."""
        with self.db:
            self.db.execute(
                "INSERT INTO brains(brain, root, indexed_at) VALUES (?, ?, ?) ON CONFLICT(brain) "
                "DO UPDATE SET root = excluded.root, indexed_at = excluded.indexed_at",
                (brain, root, now_iso()),
            )
