"""The contract's RetrievalBackend on SQLite: FTS5 BM25 ∪ vectors → RRF → filters.

:class:`SqliteBackend` ranks: the keyword half is one FTS5 query over the documents of
:mod:`._store`, the vector half one matrix product (:mod:`._vectors`) over the embeddings of
:mod:`._embedding`, and the two are fused by reciprocal rank. Filters are applied inside each
candidate query (a filtered-out memory never takes one of the 40 candidate slots), which gives
the same answer as filtering after fusion, only fuller. It also keeps what is valid for one
generation of the index — the excluded ids, the vector matrix (saved between processes by
:mod:`._matrix_file`), the counts — and drops or patches it after each write.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._index._embedding import Embeddings, Progress
from .._index._store import (
    DocRow,
    DocStore,
    ServedBrain,
    embed_keys_in,
    is_live,
    rowids_in,
)
from .._notices import say_once
from .._pathmatch import PathMatcher
from .._query import sanitise_fts_query
from ._fusion import CANDIDATES, fuse_hybrid
from ._matrix_file import SavedMatrix, cache_file
from ._vectors import VectorMatrix, build_matrix, nearest, patched_in_place, without_rows

if TYPE_CHECKING:
    import apsw
    from teambrain_schema import IndexableDoc, IndexStats, Scored, Source

    from .._index._embedders import Embedder, Vectors

# Keyword matches read before filtering, beyond the ones wanted; more are read only when filters
# reject too many.
FTS_WINDOW = 160


@dataclass
class _Snapshot:
    """Per-generation caches: what is excluded, and the vector matrix."""

    version: tuple[int, int, int]
    excluded: frozenset[str]
    vectors: VectorMatrix | None = None
    vectors_built: bool = False
    # (embedder name, brains) → (documents by source, documents with a vector): counting the
    # vectors is a lookup per document (75 ms at 10k), and the MCP server asks on every request.
    counts: dict[tuple[str | None, tuple[str, ...]], tuple[dict[str, int], int]] = field(
        default_factory=dict
    )
    coverage: tuple[int, int] | None = None  # (live documents, with a vector) while pending
    live: dict[int, str | None] | None = None  # rowid → class of every live document
    matcher: PathMatcher | None = None  # the live documents' path mentions, indexed
    # term → (live rows holding it anywhere, live rows holding it in the title or tags)
    terms: dict[str, tuple[frozenset[int], frozenset[int]]] = field(default_factory=dict)


class SqliteBackend:
    """RetrievalBackend over an apsw connection (see the module docstring).

    ``embedder`` None means keyword search only. ``vectors_table`` names where cached
    embeddings live (``vectors``, or ``cache.vectors`` for an in-memory index whose cache is the
    shared index.db). ``warn`` receives one-line messages (default: stderr, once per process).
    ``matrix_cache`` is a directory for the saved vector matrix (None: never saved).
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
        self._today = today or (lambda: dt.datetime.now(dt.UTC).date())
        self._warn = warn or say_once
        self.store = DocStore(db, served, self._today)
        self.embeddings = Embeddings(
            self.store,
            embedder,
            vectors_table=vectors_table,
            warn=self._warn,
            no_embedder_reason=no_embedder_reason,
            on_unavailable=self._forget_snapshot,
            version=self._version,
        )
        self._generation = 0
        self._snapshot: _Snapshot | None = None
        # What changed through this connection since the snapshot: rows written or deleted,
        # texts embedded. Small changes then patch the vector matrix instead of rebuilding it.
        self._dirty_rows: set[int] = set()
        self._dirty_keys: set[str] = set()
        self._full_rebuild = True
        self._lock = threading.RLock()
        # A directory for the saved vector matrix (None: never saved): a new process loads it
        # instead of reading every vector row, while the index's generation is unchanged.
        self._matrix_cache = matrix_cache
        self._saved: SavedMatrix | None = None
        self._saved_checked = False
        self._matrix_rows_read = 0  # vector rows read from SQLite to build matrices (for tests)

    @property
    def embedder(self) -> Embedder | None:
        """The embedder in use (None: keyword search only)."""
        return self.embeddings.embedder

    @property
    def degraded(self) -> str | None:
        """Why search is keyword-only, when it is."""
        return self.embeddings.degraded

    # ------------------------------------------------------------------ caches

    def _version(self) -> tuple[int, int, int]:
        # The day is part of it: a superseder's TTL running out changes what is served.
        return (self.store.data_version(), self._generation, self._today().toordinal())

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

    def _forget_snapshot(self) -> None:
        """The embedder failed: the next snapshot is built again, without vectors."""
        self._snapshot = None
        self._full_rebuild = True

    def snapshot(self) -> _Snapshot:
        """Caches valid for the current contents of the index: rebuilt after another process
        wrote to it, patched after small writes through this one."""
        version = self._version()
        with self._lock:
            old = self._snapshot
            if old is not None and old.version == version:
                return old
            snap = _Snapshot(version, self.store.excluded())
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

    # ------------------------------------------------------------------ writing

    def index(self, docs: list[IndexableDoc], source: Source = "memory") -> None:
        """Add or replace ``docs`` (keyed by brain, source and path), then embed what is new."""
        self.upsert(docs, source)
        self.ensure_vectors()

    def upsert(self, docs: Iterable[IndexableDoc], source: Source = "memory") -> int:
        """Write ``docs`` without embedding them; returns how many rows were written."""
        rowids, texts = self.store.upsert(docs, source)
        self.embeddings.note_written(texts)
        if rowids:
            self._changed(rows=rowids)
        return len(rowids)

    def remove(self, ids: list[str]) -> None:
        """Remove documents by id from the served brains (unknown ids are ignored)."""
        if not ids:
            return
        self.store.remove(ids)
        self._changed()

    def remove_paths(self, brain: str, paths: Iterable[str], source: str = "memory") -> int:
        """Remove the documents read from ``paths`` of ``brain``; returns how many."""
        removed = self.store.remove_paths(brain, paths, source)
        if removed:
            self._changed(rows=removed)
        return len(removed)

    def clear_brain(self, brain: str) -> None:
        """Forget every document of ``brain`` (before a rebuild)."""
        self.store.clear_brain(brain)
        self._changed()

    def ensure_vectors(
        self,
        progress: Progress | None = None,
        *,
        budget_s: float | None = None,
        quiet: bool = False,
        max_docs: int | None = None,
    ) -> int:
        """Embed every served document whose text has no cached vector; returns how many.

        With ``budget_s``, stop after the batch that passes that many seconds: the rest stays
        pending for the next call (an answer never waits minutes for a big pull to be embedded;
        keyword search finds those memories meanwhile; ``quiet``: without saying so). With
        ``max_docs``, embed nothing when more wait (left to a background embedder). On an
        embedder failure, search degrades to keyword search (said once) — never raises.
        """
        done, stored = self.embeddings.embed_missing(
            self._saved_complete, progress, budget_s=budget_s, quiet=quiet, max_docs=max_docs
        )
        if stored is not None:
            self._changed(keys=stored)
        return done

    # ------------------------------------------------------------------ the vector matrix

    def _vector_rows(
        self, extra: str = "1", params: Sequence[Any] = (), hint: str = ""
    ) -> list[Any]:
        assert self.embedder is not None
        self._matrix_rows_read += 1
        return self.store.vector_rows(
            self.embedder.name, self.embeddings.vectors_table, extra, params, hint
        )

    def _patched_matrix(self, old: VectorMatrix | None, snap: _Snapshot) -> VectorMatrix | None:
        """``old`` with the rows written or embedded since replaced (a few rows, not all)."""
        rows = []
        dirty = list(self._dirty_rows)
        for start in range(0, len(dirty), 500):
            chunk = dirty[start : start + 500]
            rows += self._vector_rows(*rowids_in(chunk))
        keys = list(self._dirty_keys)
        for start in range(0, len(keys), 500):
            some_keys = keys[start : start + 500]
            rows += self._vector_rows(*embed_keys_in(some_keys))
        changed = self._dirty_rows | {r[0] for r in rows}
        unique = list({r[0]: r for r in rows}.values())
        in_place = patched_in_place(old, changed, unique, snap.excluded)
        if in_place is not None:
            return in_place
        base = without_rows(old, changed) if old is not None else None
        return build_matrix(unique, snap.excluded, base)

    def _vector_matrix(self, snap: _Snapshot) -> VectorMatrix | None:
        if snap.vectors_built:
            return snap.vectors
        snap.vectors_built = True
        if self.embedder is None:
            return None
        saved = self._saved_matrix()
        if saved is not None:
            self._saved = None  # used once: later snapshots are patched or rebuilt
            snap.vectors = saved.matrix_for(snap.excluded)
            return snap.vectors
        before = self._stored_generation()
        snap.vectors = build_matrix(self._vector_rows(), snap.excluded)
        if before is not None and before == self._stored_generation():
            self._save_matrix(snap.vectors, before)
        return snap.vectors

    def _stored_generation(self) -> int | None:
        """The index's write counter (None for an index without one, e.g. in memory)."""
        if self._matrix_cache is None:
            return None
        return self.store.stored_generation()

    def _cache_file(self) -> Path:
        assert self._matrix_cache is not None and self.embedder is not None
        served = [(s.brain, s.scopes) for s in self.store.served]
        return cache_file(self._matrix_cache, self.embedder.name, served)

    def _saved_matrix(self) -> SavedMatrix | None:
        """The matrix a process saved at the index's current generation, if there is one."""
        if self._saved_checked:
            return self._saved
        self._saved_checked = True
        generation = self._stored_generation()
        if generation is None or self.embedder is None:
            return None
        dim = self.embeddings.common_dim()
        self._saved = SavedMatrix.load(self._cache_file(), generation, dim, self._warn)
        return self._saved

    def _saved_complete(self) -> bool:
        """Whether the saved matrix had a vector for every served document."""
        saved = self._saved_matrix()
        return saved is not None and saved.complete

    def _save_matrix(self, vectors: VectorMatrix | None, generation: int) -> None:
        """Save the freshly built matrix for the next process (best effort, private file)."""
        if vectors is None or self._matrix_cache is None:
            return
        complete = self.embeddings.all_pending_known
        with contextlib.suppress(OSError, ValueError):
            SavedMatrix.save(self._cache_file(), vectors, generation, complete)

    # ------------------------------------------------------------------ ranking

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
        window = FTS_WINDOW + limit + len(snap.excluded)
        first = self.store.fts_best(match, window)
        if first:
            passing = self.store.live_among([row[0] for row in first], sources)
            ranked = [
                (rowid, float(value))
                for rowid, value in first
                if rowid in passing and is_live(*passing[rowid], snap.excluded, today)
            ]
            if len(ranked) >= limit or len(first) < window:
                return ranked[:limit]
        rows = self.store.fts_live(match, sources, limit + len(snap.excluded) + 16)
        ranked = [
            (rowid, float(value))
            for rowid, doc_id, expires, value in rows
            if is_live(expires, doc_id, snap.excluded, today)
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
        return nearest(self._vector_matrix(snap), vector, limit, sources, self._today)

    def vector_ranking(
        self, query: str, limit: int = CANDIDATES, sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, cosine) of live documents for ``query``'s embedding."""
        return self.vector_ranking_for(self.embeddings.embed_query(query), limit, sources)

    def _embed_and_rank(
        self, query: str, matrix: VectorMatrix | None, sources: Sequence[str] | None
    ) -> list[tuple[int, float]]:
        vector = self.embeddings.embed_query(query)
        return nearest(matrix, vector, CANDIDATES, sources, self._today)

    def ranked(
        self, query: str, k: int, *, mode: str = "hybrid", sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, score) best first: ``hybrid`` (RRF), ``fts`` or ``vector`` alone.

        In the hybrid (:func:`~._fusion.fuse_hybrid`), a vector candidate that the keyword half
        did not find counts only when its cosine reaches :data:`~._fusion.VECTOR_FLOOR`.
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
                worker = self.embeddings.worker()
                pending = worker.submit(self._embed_and_rank, query, matrix, sources)
        keyword = [rowid for rowid, _ in self.fts_ranking(query, CANDIDATES, sources)]
        vectors = pending.result() if pending is not None else None
        return fuse_hybrid(keyword, vectors)[:k]

    def search(self, q: str, k: int, sources: list[Source] | None = None) -> list[Scored]:
        """The contract's search: hybrid, filtered, best ``k`` first, each with its source."""
        from teambrain_schema import Scored

        ranked = self.ranked(q, k, sources=sources)
        docs = self.store.docs([rowid for rowid, _ in ranked])
        return [
            Scored(id=docs[rowid].id, source=docs[rowid].source, score=score,
                   brain=docs[rowid].brain, rank=position)
            for position, (rowid, score) in enumerate(ranked, start=1)
            if rowid in docs
        ]  # fmt: skip

    # ------------------------------------------------------------------ what is served now

    def live_docs(
        self, where: str = "1", params: Sequence[Any] = (), sources: Sequence[str] | None = None
    ) -> list[DocRow]:
        """Every servable document matching an extra SQL condition, in path order."""
        return self.store.live_docs(self.snapshot().excluded, where, params, sources)

    def live_rows(self) -> dict[int, str | None]:
        """``{rowid: memory class}`` of every document served now (read once per generation)."""
        snap = self.snapshot()
        if snap.live is None:
            today = self._today().isoformat()
            snap.live = {
                rowid: memory_class
                for rowid, doc_id, expires, memory_class in self.store.live_classes()
                if is_live(expires, doc_id, snap.excluded, today)
            }
        return snap.live

    def path_matcher(self) -> PathMatcher:
        """The path mentions of the documents served now, indexed (once per generation)."""
        snap = self.snapshot()
        if snap.matcher is None:
            live = self.live_rows()
            snap.matcher = PathMatcher(
                (rowid, mention) for rowid, mention in self.store.path_mentions() if rowid in live
            )
        return snap.matcher

    def term_rows(self, term: str) -> tuple[frozenset[int], frozenset[int]]:
        """The documents served now that hold the word ``term`` (as FTS5 stems it) anywhere,
        and those holding it in their title or tags (cached per generation)."""
        snap = self.snapshot()
        found = snap.terms.get(term)
        if found is None:
            live = self.live_rows()
            quoted = '"' + term.replace('"', "") + '"'
            anywhere = frozenset(r for r in self.store.fts_rowids(quoted) if r in live)
            titled: frozenset[int] = frozenset()
            if anywhere:
                rows = self.store.fts_rowids("{title tags} : " + quoted)
                titled = frozenset(r for r in rows if r in anywhere)
            if len(snap.terms) > 512:
                snap.terms.clear()
            found = snap.terms[term] = (anywhere, titled)
        return found

    def is_live_row(self, doc: DocRow) -> bool:
        """True when ``doc`` passes every filter for this backend."""
        return self.store.is_live_row(doc, self.snapshot().excluded)

    def stats(self) -> IndexStats:
        """Counts for the served brains, the embedder in use and why search is degraded."""
        from teambrain_schema import IndexStats

        by_source, vectors = self._counts()
        return IndexStats(
            documents=sum(by_source.values()),
            by_source=by_source,
            brains=[s.brain for s in self.store.served],
            embedder=self.embedder.name if self.embedder else "none",
            vectors=vectors,
            last_indexed=self.store.last_indexed(),
            degraded=self.degraded,
        )

    def embedding_coverage(self) -> tuple[int, int] | None:
        """(live documents served, how many of them have a vector) while some may still lack
        one; None without an embedder, or once every one has a vector (nothing is counted
        then). Counted once per index generation."""
        if self.embedder is None or not self.embeddings.pending:
            return None
        snap = self.snapshot()
        if snap.coverage is None:
            snap.coverage = self.store.coverage_counts(
                self.embeddings.vectors_table, self.embedder.name
            )
        return snap.coverage

    def _counts(self) -> tuple[dict[str, int], int]:
        """Documents by source and how many have a vector, counted once per index generation."""
        snap = self.snapshot()
        name = self.embedder.name if self.embedder is not None else None
        key = (name, tuple(s.brain for s in self.store.served))
        counts = snap.counts.get(key)
        if counts is None:
            counts = snap.counts[key] = self.store.counts(self.embeddings.vectors_table, name)
        return dict(counts[0]), counts[1]
