"""Embedding the index: the pass that gives every stored text a vector (the ``vectors``
table, keyed by content so an unchanged text is never embedded twice), the query and document
vectors kept in memory, and the worker thread that loads the model.

An embedder failure turns semantic search off for the process (said once) and never raises:
keyword search answers meanwhile.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from .._numpy import prepare_numpy
from ._embedders import EmbedderUnavailable
from ._store import USABLE, embed_key, embed_text

if TYPE_CHECKING:
    from ._embedders import Embedder, Vectors
    from ._store import DocStore

# Texts embedded and committed together: small enough that an interrupted reindex keeps all but
# a few seconds of work (each batch is its own transaction), large enough to batch the model.
EMBED_BATCH = 16

Progress = Callable[[int, int], None]


class Embeddings:
    """The embedder of one backend, its vectors in index.db and its in-memory caches.

    ``embedder`` None means keyword search only. ``vectors_table`` names where cached
    embeddings live (``vectors``, or ``cache.vectors`` for an in-memory index whose cache is the
    shared index.db). ``on_unavailable`` runs when the embedder fails and search degrades.
    """

    def __init__(
        self,
        store: DocStore,
        embedder: Embedder | None,
        *,
        vectors_table: str,
        warn: Callable[[str], None],
        no_embedder_reason: str,
        on_unavailable: Callable[[], None],
        version: Callable[[], tuple[int, int, int]],
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.vectors_table = vectors_table
        self._warn = warn
        self._on_unavailable = on_unavailable
        self._version = version
        self._dim_seen: tuple[tuple[int, int, int], int | None] | None = None
        self.degraded: str | None = None if embedder else no_embedder_reason
        self._query_vectors: dict[str, Any] = {}
        self._document_vectors: dict[str, Any] = {}
        self._pool: ThreadPoolExecutor | None = None
        # Texts written since the last embedding pass, by embed key; None: unknown (at start),
        # so the first pass looks at every document.
        self._pending: dict[str, str] | None = None
        self._load_failed = False  # a background load failed: the next embedding says why
        # Where vectors already made elsewhere come from before this machine embeds (the
        # shared index, retrieval.backend: postgres): embed keys → vectors it holds.
        self.vector_source: Callable[[list[str]], dict[str, Any]] | None = None

    def _from_source(self, todo: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[str]]:
        """Store what :attr:`vector_source` holds of ``todo``; what is left, and the keys
        stored."""
        if self.vector_source is None or self.embedder is None or not todo:
            return todo, []
        found = self.vector_source([key for key, _ in todo])
        if not found:
            return todo, []
        with self.store.db:
            self.store.db.executemany(
                f"INSERT OR REPLACE INTO {self.vectors_table}(embedder, key, dim, vec) "
                "VALUES (?, ?, ?, ?)",
                [
                    (self.embedder.name, key, int(v.shape[0]), v.tobytes())
                    for key, v in found.items()
                ],
            )
        return [(key, text) for key, text in todo if key not in found], list(found)

    def note_unavailable(self, reason: str) -> None:
        """Semantic search is off from now on: say why, once."""
        name = getattr(self.embedder, "name", "embedder")
        self.degraded = f"none: {name} unavailable ({reason})"
        self._warn(f"semantic search is off, using keyword search only: {name}: {reason}")
        self.embedder = None
        self._on_unavailable()

    def common_dim(self) -> int | None:
        """The dimension of most of this embedder's usable cached vectors (None: none yet).
        Rows of another dimension are damage: their texts are embedded again."""
        if self.embedder is None:
            return None
        version = self._version()
        if self._dim_seen is not None and self._dim_seen[0] == version:
            return self._dim_seen[1]
        row = self.store.q1(
            f"SELECT v.dim FROM {self.vectors_table} v WHERE v.embedder = ? AND "
            f"{USABLE.format(v='v')} GROUP BY v.dim ORDER BY count(*) DESC LIMIT 1",
            (self.embedder.name,),
        )
        dim = int(row[0]) if row else None
        self._dim_seen = (version, dim)
        return dim

    # ------------------------------------------------------------------ the embedding pass

    def note_written(self, texts: dict[str, str]) -> None:
        """Texts just written to the index (by embed key): the next pass embeds those."""
        if self._pending is not None:
            self._pending.update(texts)

    @property
    def pending(self) -> bool:
        """True when some document may still lack a vector."""
        return self._pending is None or bool(self._pending)

    @property
    def all_pending_known(self) -> bool:
        """True when every text that may lack a vector is in the pending set (after a pass)."""
        return self._pending is not None and not self._pending

    def missing(self, saved_complete: Callable[[], bool]) -> list[tuple[str, str]]:
        """(embed_key, text) of served documents that have no cached vector yet;
        ``saved_complete()`` says whether a saved matrix already had every vector."""
        if self.embedder is None:
            return []
        if self._pending is None and saved_complete():
            return []  # every served document had a vector at this generation
        dim = self.common_dim()
        if self._pending is not None:
            keys = list(self._pending)
            present: set[str] = set()
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                present.update(
                    key
                    for (key,) in self.store.q(
                        f"SELECT v.key FROM {self.vectors_table} v WHERE v.embedder = ? "
                        f"AND {USABLE.format(v='v')} AND v.dim IS ? AND v.key IN "
                        f"({','.join('?' for _ in chunk)})",
                        [self.embedder.name, dim, *chunk],
                    )
                )
            return [(key, text) for key, text in self._pending.items() if key not in present]
        brains, params = self.store.brains_clause()
        rows = self.store.q(
            f"SELECT DISTINCT d.embed_key, d.title, d.body FROM docs d WHERE {brains} AND d.retired = 0 AND NOT "
            f"EXISTS (SELECT 1 FROM {self.vectors_table} v WHERE v.embedder = ? AND "
            f"v.key = d.embed_key AND {USABLE.format(v='v')} AND v.dim IS ?)",
            [*params, self.embedder.name, dim],
        )
        return [(key, embed_text(title, body)) for key, title, body in rows]

    def embed_missing(
        self,
        saved_complete: Callable[[], bool],
        progress: Progress | None = None,
        *,
        budget_s: float | None = None,
        quiet: bool = False,
        max_docs: int | None = None,
    ) -> tuple[int, list[str] | None]:
        """Embed every served document whose text has no cached vector: how many, and the
        embed keys stored (None when nothing was stored or the embedder failed).

        With ``budget_s``, stop after the batch that passes that many seconds: the rest stays
        pending for the next call (said once, unless ``quiet``). With ``max_docs``, embed nothing
        when more than that many wait: they are left pending for whoever embeds in the
        background. Each batch is committed on its own, so an interruption loses at most one
        batch.
        """
        todo = self.missing(saved_complete)
        self._pending = {}
        todo, fetched = self._from_source(todo)
        if not todo or self.embedder is None:
            return 0, fetched or None
        if max_docs is not None and len(todo) > max_docs:
            self._pending = dict(todo)
            return 0, fetched or None
        db = self.store.db
        done = 0
        started = time.monotonic()
        if progress:
            progress(0, len(todo))
        for start in range(0, len(todo), EMBED_BATCH):
            if budget_s is not None and done and time.monotonic() - started > budget_s:
                self._pending = dict(todo[start:])
                if quiet:
                    break
                self._warn(
                    f"{len(todo) - start} memories are not embedded yet: keyword search finds "
                    "them meanwhile; `tb reindex` embeds them all (with progress)"
                )
                break
            batch = todo[start : start + EMBED_BATCH]
            try:
                vectors = self.embedder.embed_documents([text for _, text in batch])
            except EmbedderUnavailable as exc:
                self.note_unavailable(exc.reason)
                return done, fetched or None
            with db:
                db.executemany(
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
        return done, fetched + [key for key, _ in todo[:done]]

    # ------------------------------------------------------------------ vectors on demand

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
            self.note_unavailable(exc.reason)
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
            self.note_unavailable(exc.reason)
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
        row = self.store.q1(
            f"SELECT v.vec, v.dim FROM {self.vectors_table} v WHERE v.embedder = ? AND v.key = ? "
            f"AND {USABLE.format(v='v')}",
            (self.embedder.name, embed_key(text)),
        )
        if row is None or row[1] != self.common_dim():
            return None
        prepare_numpy()
        import numpy as np

        vector: Vectors = np.frombuffer(row[0], dtype=np.float32)
        return vector

    def ready(self) -> bool:
        """True when embedding a query will not wait for a model to load: it is loaded, the
        embedder has nothing to load, or loading failed (the next embedding reports why)."""
        embedder = self.embedder
        if embedder is None or self._load_failed:
            return True
        loaded = getattr(embedder, "loaded", None)
        return True if loaded is None else bool(loaded)

    # ------------------------------------------------------------------ the worker thread

    def worker(self) -> ThreadPoolExecutor:
        """The one thread that loads the model and embeds queries beside SQLite's work."""
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
                    try:
                        prepare()
                    except Exception:
                        self._load_failed = True
                        raise
                if query is not None and query not in self._query_vectors:
                    # Stored only on success: a failure is noted by the search's own call.
                    self._query_vectors[query] = embedder.embed_query(query)

        self.worker().submit(load)
