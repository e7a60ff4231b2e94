"""PostgresBackend: the contract's RetrievalBackend over one shared PostgreSQL database.

Ranking mirrors :class:`~teambrain_retrieval.SqliteBackend`:

* keyword half — BM25 exactly as FTS5 computes it, over Postgres full-text search's lexemes
  (``english``: stemmed, stopwords dropped) of the same OR'd terms as the SQLite query
  (:func:`~teambrain_retrieval._query.keyword_terms`), read from an inverted index
  (``postings``) a trigger keeps in step with the documents. (``ts_rank`` was tried first: it
  ignores how rare a word is, and weighting it per term meant re-reading every matching
  document's tsvector — 0.4 to 95 s a query on SciFact.);
* vector half — pgvector's cosine distance over the embeddings the same embedder made;
* both halves read the best :data:`~teambrain_retrieval._fusion.CANDIDATES` of what is
  served (filters inside each query), then :func:`~teambrain_retrieval._fusion.fuse_hybrid`.

Rows keep an integer ``rowid`` and read back as :class:`~teambrain_retrieval._store.DocRow`,
so what sits on top of a backend (required memories, the token budget) is shared code.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .._index._scan import is_retired_path
from .._index._store import DocRow, ServedBrain, embed_key, embed_text, is_live
from .._notices import say_once
from .._query import keyword_terms
from .._search._fusion import CANDIDATES, fuse_hybrid
from ._connect import SharedIndexUnavailable, describe
from ._schema import SCHEMA, SCHEMA_VERSION, schema_version

if TYPE_CHECKING:
    from teambrain_schema import IndexableDoc, IndexStats, Scored, Source

    from .._index._embedders import Embedder, Vectors

# BM25's parameters, FTS5's: term-frequency saturation and length normalisation. The column
# weights (title 2, tags 1.5, body 1: the SQLite backend's) are applied in the postings.
K1 = 1.2
B = 0.75
EMBED_BATCH = 64
WRITE_CHUNK = 1000  # documents written per statement
ANALYZE_AFTER = 200  # documents written at once that refresh the planner's statistics

_DOC_COLUMNS = (
    "d.rowid, d.brain, d.source, d.id, d.path, d.title, d.body, d.tags, d.class, d.scope, "
    "d.status, d.priority, d.retired, d.created, d.expires, d.supersedes, d.doc, d.content_hash"
)


def _iso(value: dt.date | None) -> str | None:
    return value.isoformat() if value is not None else None


def _row_to_doc(row: Sequence[Any]) -> DocRow:
    supersedes = row[15] if isinstance(row[15], list) else json.loads(row[15])
    return DocRow(
        rowid=int(row[0]), brain=row[1], source=row[2], id=row[3], path=row[4], title=row[5],
        body=row[6], tags=row[7].split() if row[7] else [], memory_class=row[8], scope=row[9],
        status=row[10], priority=row[11], retired=bool(row[12]), created=_iso(row[13]),
        expires=_iso(row[14]), supersedes=list(supersedes), doc_json=row[16],
        content_hash=row[17],
    )  # fmt: skip


def vector_literal(vector: Any) -> str:
    """pgvector's text form of a vector: ``[x1,x2,…]`` (float32 round-trips through repr)."""
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


def _expires(doc: IndexableDoc) -> dt.date | None:
    if doc.ttl_days is None or doc.created is None:
        return None
    return doc.created + dt.timedelta(days=doc.ttl_days)


class PostgresBackend:
    """RetrievalBackend over a psycopg connection (see the module docstring).

    ``embedder`` None means keyword search only. ``warn`` receives one-line messages (default:
    stderr, once per process). The connection's schema must be at :data:`SCHEMA_VERSION`
    (:func:`~._schema.migrate` — CI's job); otherwise :class:`SharedIndexUnavailable`.
    """

    def __init__(
        self,
        conn: Any,
        served: Sequence[ServedBrain],
        embedder: Embedder | None = None,
        *,
        warn: Callable[[str], None] | None = None,
        today: Callable[[], dt.date] | None = None,
        no_embedder_reason: str = "none: keyword search only",
        hidden_paths: Iterable[str] = (),
        hidden_ids: Iterable[str] = (),
    ) -> None:
        if not served:
            raise ValueError("a backend serves at least one brain")
        self.conn = conn
        self.served = list(served)
        self._embedder = embedder
        self._warn = warn or say_once
        self._today = today or (lambda: dt.datetime.now(dt.UTC).date())
        self._degraded: str | None = None if embedder is not None else no_embedder_reason
        # Documents a developer's own files replace (a newcomer's first answers, ._first):
        # never served from here, whatever the shared index holds.
        self.hidden_paths = sorted(set(hidden_paths))
        self.hidden_ids = frozenset(hidden_ids)
        # [N, mean document length] for BM25, when the caller remembers them between searches
        # (None: counted by every search, as the documents may change between two).
        self.corpus: list[float] | None = None
        found = self._guard(schema_version, conn)
        if found != SCHEMA_VERSION:
            raise SharedIndexUnavailable(
                f"the shared index's schema is version {found}, this teambrain reads version "
                f"{SCHEMA_VERSION} (CI's `tb reindex --shared` migrates it)"
            )

    # ------------------------------------------------------------------ plumbing

    def _guard(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run ``function``; a driver error becomes :class:`SharedIndexUnavailable`."""
        import psycopg

        try:
            return function(*args)
        except psycopg.Error as exc:
            raise SharedIndexUnavailable(describe(exc)) from None

    def _q(self, sql: str, params: Any = None) -> list[Any]:
        return self._guard(lambda: self.conn.execute(sql, params).fetchall())  # type: ignore[no-any-return]

    @property
    def embedder(self) -> Embedder | None:
        """The embedder in use (None: keyword search only)."""
        return self._embedder

    @property
    def degraded(self) -> str | None:
        """Why search is keyword-only, when it is."""
        return self._degraded

    def _embedder_failed(self, reason: str) -> None:
        self._degraded = f"embedder unavailable: {reason}"
        self._warn(f"semantic search off, keyword search only ({reason})")
        self._embedder = None

    @property
    def brains(self) -> list[str]:
        return [s.brain for s in self.served]

    def _served_clause(self, params: dict[str, Any]) -> str:
        parts = []
        for index, served in enumerate(self.served):
            params[f"brain{index}"] = served.brain
            params[f"scopes{index}"] = list(served.scopes)
            parts.append(f"(d.brain = %(brain{index})s AND d.scope = ANY(%(scopes{index})s))")
        return "(" + " OR ".join(parts) + ")"

    def _live_clause(self, sources: Sequence[str] | None, params: dict[str, Any]) -> str:
        """Every filter of the served rule as SQL: served brain and scope, active, not
        retired, not past its TTL, not superseded or shadowed (:meth:`excluded`)."""
        clause = (
            f"d.status = 'active' AND NOT d.retired AND {self._served_clause(params)} "
            "AND (d.expires IS NULL OR d.expires > %(today)s) "
            "AND NOT (d.id = ANY(%(excluded)s))"
        )
        params["today"] = self._today()
        params["excluded"] = sorted(self.excluded())
        if self.hidden_paths:
            clause += " AND NOT (d.path = ANY(%(hidden_paths)s))"
            params["hidden_paths"] = self.hidden_paths
        if sources:
            clause += " AND d.source = ANY(%(sources)s)"
            params["sources"] = list(sources)
        return clause

    def excluded(self) -> frozenset[str]:
        """Ids the served rule (``teambrain_schema.served.excluded_ids``) hides."""
        from teambrain_schema.served import excluded_ids

        rows = self._q(
            f"SELECT d.id, d.status, d.retired, d.supersedes, d.expires FROM {SCHEMA}.docs d "
            "WHERE d.brain = ANY(%(brains)s) "
            "AND (d.supersedes <> '[]'::jsonb OR d.retired OR d.status <> 'active')",
            {"brains": self.brains},
        )
        entries = ((i, s, bool(r), list(sup), e) for i, s, r, sup, e in rows)
        return frozenset(excluded_ids(entries, self._today())) | self.hidden_ids

    # ------------------------------------------------------------------ writing

    def index(
        self, docs: list[IndexableDoc], source: Source = "memory", *, commit: str | None = None
    ) -> None:
        """Add or replace ``docs`` (keyed by brain, source and path), then embed what is new."""
        self.upsert(docs, source, commit=commit)
        self.ensure_vectors()

    def upsert(
        self, docs: Iterable[IndexableDoc], source: str = "memory", *, commit: str | None = None
    ) -> int:
        """Write ``docs`` without embedding them; returns how many rows changed (a document
        whose stored form is unchanged is not written again)."""
        rows = []
        for given in docs:
            retired = is_retired_path(given.path) or given.status == "retired"
            doc = given
            if retired:
                # A retired memory stays only as a tombstone, as in the SQLite index.
                doc = given.model_copy(
                    update={"title": "", "body": "", "tags": [], "evidence": None}
                )
            rows.append(
                (
                    doc.brain, doc.source or source, doc.path, doc.id, doc.title, doc.body,
                    " ".join(doc.tags), doc.class_, doc.scope, doc.status, doc.priority, retired,
                    doc.created, _expires(doc), json.dumps(doc.supersedes),
                    doc.model_dump_json(by_alias=True), doc.content_hash,
                    embed_key(embed_text(doc.title, doc.body)), doc.commit or commit,
                )
            )  # fmt: skip
        if not rows:
            return 0
        # One statement per chunk (a row-by-row upsert took 2.7 ms a document): the rows as
        # parallel arrays, the last copy of a repeated key winning, as one by one would.
        unique = list({(row[0], row[1], row[2]): row for row in rows}.values())
        types = (
            "text", "text", "text", "text", "text", "text", "text", "text", "text", "text",
            "text", "boolean", "date", "date", "text", "text", "text", "text", "text",
        )  # fmt: skip
        arrays = ", ".join(f"%s::{kind}[]" for kind in types)
        sql = (
            f"INSERT INTO {SCHEMA}.docs AS old (brain, source, path, id, title, body, tags, class, "
            "scope, status, priority, retired, created, expires, supersedes, doc, content_hash, "
            "embed_key, commit) "
            "SELECT brain, source, path, id, title, body, tags, class, scope, status, priority, "
            "retired, created, expires, supersedes::jsonb, doc, content_hash, embed_key, commit "
            f"FROM unnest({arrays}) AS t(brain, source, path, id, title, body, tags, class, "
            "scope, status, priority, retired, created, expires, supersedes, doc, content_hash, "
            "embed_key, commit) "
            "ON CONFLICT (brain, source, path) DO UPDATE SET id = excluded.id, "
            "title = excluded.title, body = excluded.body, tags = excluded.tags, "
            "class = excluded.class, scope = excluded.scope, status = excluded.status, "
            "priority = excluded.priority, retired = excluded.retired, "
            "created = excluded.created, expires = excluded.expires, "
            "supersedes = excluded.supersedes, doc = excluded.doc, "
            "content_hash = excluded.content_hash, embed_key = excluded.embed_key, "
            "commit = excluded.commit, indexed_at = now() "
            "WHERE (old.doc, old.content_hash) IS DISTINCT FROM (excluded.doc, excluded.content_hash)"
        )

        def write() -> int:
            written = 0
            with self.conn.transaction(), self.conn.cursor() as cur:
                for start in range(0, len(unique), WRITE_CHUNK):
                    chunk = unique[start : start + WRITE_CHUNK]
                    cur.execute(sql, [list(column) for column in zip(*chunk, strict=True)])
                    written += max(0, cur.rowcount)
            if written >= ANALYZE_AFTER:
                # Fresh statistics after a big fill: the planner otherwise guesses at empty
                # tables and may walk every posting for one query.
                self.conn.execute(f"ANALYZE {SCHEMA}.docs, {SCHEMA}.postings")
            return written

        return int(self._guard(write))

    def remove(self, ids: list[str]) -> None:
        """Remove documents by id from the served brains (unknown ids are ignored)."""
        if ids:
            self._q(
                f"DELETE FROM {SCHEMA}.docs d WHERE d.brain = ANY(%(brains)s) "
                "AND d.id = ANY(%(ids)s) RETURNING d.rowid",
                {"brains": self.brains, "ids": list(ids)},
            )

    def remove_paths(self, brain: str, paths: Iterable[str], source: str = "memory") -> int:
        """Remove the documents read from ``paths`` of ``brain``; returns how many."""
        rows = self._q(
            f"DELETE FROM {SCHEMA}.docs WHERE brain = %s AND source = %s AND path = ANY(%s) "
            "RETURNING rowid",
            [brain, source, list(paths)],
        )
        return len(rows)

    def clear_brain(self, brain: str) -> None:
        """Forget every document of ``brain`` (before a rebuild)."""
        self._q(f"DELETE FROM {SCHEMA}.docs WHERE brain = %s RETURNING rowid", [brain])

    def pending_texts(self) -> list[tuple[str, str]]:
        """(embed key, text) of every served document whose text has no vector yet from
        this backend's embedder."""
        if self._embedder is None:
            return []
        rows = self._q(
            f"SELECT DISTINCT ON (d.embed_key) d.embed_key, d.title, d.body FROM {SCHEMA}.docs d "
            "WHERE d.brain = ANY(%(brains)s) AND NOT d.retired AND NOT EXISTS (SELECT 1 FROM "
            f"{SCHEMA}.vectors v WHERE v.embedder = %(embedder)s AND v.embed_key = d.embed_key)",
            {"brains": self.brains, "embedder": self._embedder.name},
        )
        return [(key, embed_text(title, body)) for key, title, body in rows]

    def ensure_vectors(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every served document whose text has no vector yet; returns how many. On an
        embedder failure, search degrades to keyword search (said once) — never raises."""
        from .._index._embedders import EmbedderUnavailable

        pending = self.pending_texts()
        if not pending or self._embedder is None:
            return 0
        done = 0
        for start in range(0, len(pending), EMBED_BATCH):
            batch = pending[start : start + EMBED_BATCH]
            try:
                vectors = self._embedder.embed_documents([text for _, text in batch])
            except EmbedderUnavailable as exc:
                self._embedder_failed(exc.reason)
                return done
            self.store_vectors(
                [(key, vector) for (key, _), vector in zip(batch, vectors, strict=True)]
            )
            done += len(batch)
            if progress is not None:
                progress(done, len(pending))
        return done

    def store_vectors(self, vectors: Sequence[tuple[str, Any]]) -> None:
        """Store (embed key, vector) pairs made by this backend's embedder."""
        if not vectors or self._embedder is None:
            return
        self._q(
            f"INSERT INTO {SCHEMA}.vectors(embedder, embed_key, dim, vec) "
            "SELECT %s, k, d, v::vector FROM unnest(%s::text[], %s::int[], %s::text[]) AS t(k, d, v) "
            "ON CONFLICT DO NOTHING RETURNING embed_key",
            [
                self._embedder.name,
                [key for key, _ in vectors],
                [len(vector) for _, vector in vectors],
                [vector_literal(vector) for _, vector in vectors],
            ],
        )

    def mark_indexed(self, brain: str, commit: str | None) -> None:
        """Record that ``brain`` was filled from ``commit`` with this backend's embedder."""
        self._q(
            f"INSERT INTO {SCHEMA}.brains(brain, commit, embedder, indexed_at) "
            "VALUES (%s, %s, %s, now()) ON CONFLICT (brain) DO UPDATE SET "
            "commit = excluded.commit, embedder = excluded.embedder, indexed_at = now() "
            "RETURNING brain",
            [brain, commit, self._embedder.name if self._embedder else None],
        )

    # ------------------------------------------------------------------ ranking

    def fts_ranking(
        self, query: str, limit: int = CANDIDATES, sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, BM25) of live documents for ``query`` (higher is better).

        BM25 as FTS5 computes it (k1 1.2, b 0.75, IDF floored at 1e-6, column-weighted term
        frequencies) over the postings of the query's terms, OR'd; N, document frequencies and
        the mean length are counted over the served brains.
        """
        terms = keyword_terms(query)
        if not terms:
            return []
        weights = self._q(
            f"""
            WITH q AS (
                SELECT DISTINCT lex
                FROM unnest(tsvector_to_array(to_tsvector('english', %(text)s))) lex
            ),
            n AS MATERIALIZED ({self._corpus_sql()})
            SELECT p.lexeme, greatest(ln((n.n - count(*) + 0.5) / (count(*) + 0.5)), 1e-6),
                   n.avgdl
            FROM {SCHEMA}.postings p CROSS JOIN n
            WHERE p.brain = ANY(%(brains)s) AND p.lexeme IN (SELECT lex FROM q)
            GROUP BY p.lexeme, n.n, n.avgdl
            """,
            {"text": " ".join(terms), "brains": self.brains, "corpus": self.corpus},
        )
        if not weights:
            return []
        # The second query gets the few terms and their IDF as constants, so the planner reads
        # their postings by index whatever it believes about the tables.
        params: dict[str, Any] = {
            "lexemes": [lexeme for lexeme, _, _ in weights],
            "idfs": [float(idf) for _, idf, _ in weights],
            "avgdl": float(weights[0][2]),
            "brains": self.brains,
            "limit": limit,
        }
        live = self._live_clause(sources, params)
        score = (
            f"sum(w.idf * p.tf * {K1 + 1} "
            f"/ (p.tf + {K1} * ({1 - B} + {B} * p.doclen / %(avgdl)s::float8)))"
        )
        weighted = (
            "WITH w AS (SELECT * FROM unnest(%(lexemes)s::text[], %(idfs)s::float8[]) "
            "AS w(lexeme, idf))"
        )
        # First the best documents by the postings alone (no document read per posting: at
        # 50,000 memories that lookup was half the query), then the served rule over those.
        # The same order as filtering first whenever `limit` of them are live, or they were
        # every match; otherwise the filtered query below decides.
        params["over"] = self._over(limit, params)
        rows = self._q(
            f"""
            {weighted}, top AS MATERIALIZED (
                SELECT p.rowid, {score} AS score
                FROM {SCHEMA}.postings p JOIN w ON w.lexeme = p.lexeme
                WHERE p.brain = ANY(%(brains)s) AND p.lexeme = ANY(%(lexemes)s)
                GROUP BY p.rowid ORDER BY score DESC, p.rowid LIMIT %(over)s
            )
            SELECT t.rowid, t.score, (SELECT count(*) FROM top)
            FROM top t JOIN {SCHEMA}.docs d ON d.rowid = t.rowid
            WHERE {live} ORDER BY t.score DESC, t.rowid LIMIT %(limit)s
            """,
            params,
        )
        if len(rows) >= limit or (rows and rows[0][2] < params["over"]):
            return [(int(rowid), float(value)) for rowid, value, _ in rows]
        rows = self._q(
            f"""
            {weighted}
            SELECT p.rowid, {score} AS score
            FROM {SCHEMA}.postings p
            JOIN w ON w.lexeme = p.lexeme
            JOIN {SCHEMA}.docs d ON d.rowid = p.rowid
            WHERE p.brain = ANY(%(brains)s) AND p.lexeme = ANY(%(lexemes)s) AND {live}
            GROUP BY p.rowid ORDER BY score DESC, p.rowid LIMIT %(limit)s
            """,
            params,
        )
        return [(int(rowid), float(value)) for rowid, value in rows]

    def _over(self, limit: int, params: dict[str, Any]) -> int:
        """How many candidates a two-step ranking reads before the served rule: enough for
        ``limit`` live ones past every excluded id and hidden path, and some other-scope or
        expired documents."""
        return 4 * limit + len(params.get("excluded", ())) + len(self.hidden_paths)

    def _corpus_sql(self) -> str:
        """N and the mean document length BM25 weighs by: counted over the served brains, or
        :attr:`corpus` when the caller remembered them (``%(corpus)s``)."""
        if self.corpus is not None:
            return "SELECT (%(corpus)s::float8[])[1] AS n, (%(corpus)s::float8[])[2] AS avgdl"
        return (
            "SELECT count(*)::float8 AS n, greatest(coalesce(avg(d.doclen), 1), 1)::float8 "
            f"AS avgdl FROM {SCHEMA}.docs d WHERE d.brain = ANY(%(brains)s) AND NOT d.retired"
        )

    def count_corpus(self) -> list[float]:
        """[N, mean document length] of the served brains as the keyword half counts them
        (a read of every document: remember it in :attr:`corpus` while the brains stay)."""
        remembered, self.corpus = self.corpus, None
        try:
            rows = self._q(self._corpus_sql(), {"brains": self.brains})
        finally:
            self.corpus = remembered
        return [float(rows[0][0]), float(rows[0][1])]

    def embed_query(self, query: str) -> Vectors | None:
        """The query's vector, or None when semantic search is off (degrades on failure)."""
        from .._index._embedders import EmbedderUnavailable

        if self._embedder is None:
            return None
        try:
            return self._embedder.embed_query(query)
        except EmbedderUnavailable as exc:
            self._embedder_failed(exc.reason)
            return None

    def vector_ranking_for(
        self,
        vector: Vectors | None,
        limit: int = CANDIDATES,
        sources: Sequence[str] | None = None,
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, cosine) of live documents nearest to ``vector``."""
        if vector is None or self._embedder is None:
            return []
        params: dict[str, Any] = {
            "vec": vector_literal(vector),
            "embedder": self._embedder.name,
            "dim": len(vector),
            "limit": limit,
        }
        live = self._live_clause(sources, params)
        # First the nearest texts of this embedder (no document read per vector), then the
        # served rule over their documents: the same order as filtering first when `limit`
        # live ones are nearer than the farthest text read, or every text was read.
        params["over"] = 2 * self._over(limit, params)
        rows = self._q(
            "WITH top AS MATERIALIZED (SELECT v.embed_key, v.vec <=> %(vec)s::vector AS dist "
            f"FROM {SCHEMA}.vectors v WHERE v.embedder = %(embedder)s AND v.dim = %(dim)s "
            "ORDER BY dist LIMIT %(over)s) "
            "SELECT d.rowid, t.dist, (SELECT count(*) FROM top), (SELECT max(dist) FROM top) "
            f"FROM top t JOIN {SCHEMA}.docs d ON d.embed_key = t.embed_key WHERE {live} "
            "ORDER BY t.dist, d.rowid LIMIT %(limit)s",
            params,
        )
        if (rows and rows[0][2] < params["over"]) or (
            len(rows) >= limit and rows[-1][1] < rows[0][3]
        ):
            return [(int(rowid), 1 - float(dist)) for rowid, dist, _, _ in rows]
        rows = self._q(
            f"SELECT d.rowid, 1 - (v.vec <=> %(vec)s::vector) AS cosine FROM {SCHEMA}.docs d "
            f"JOIN {SCHEMA}.vectors v ON v.embedder = %(embedder)s AND v.embed_key = d.embed_key "
            f"AND v.dim = %(dim)s WHERE {live} "
            "ORDER BY v.vec <=> %(vec)s::vector, d.rowid LIMIT %(limit)s",
            params,
        )
        return [(int(rowid), float(cosine)) for rowid, cosine in rows]

    def vector_ranking(
        self, query: str, limit: int = CANDIDATES, sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """Best-first (rowid, cosine) of live documents for ``query``'s embedding."""
        return self.vector_ranking_for(self.embed_query(query), limit, sources)

    def ranked(
        self, query: str, k: int, *, mode: str = "hybrid", sources: Sequence[str] | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, score) best first: ``hybrid`` (RRF), ``fts`` or ``vector`` alone."""
        if mode == "fts":
            return self.fts_ranking(query, max(k, 1), sources)[:k]
        if mode == "vector":
            return self.vector_ranking(query, max(k, CANDIDATES), sources)[:k]
        vectors = self.vector_ranking(query, CANDIDATES, sources) if self._embedder else None
        keyword = [rowid for rowid, _ in self.fts_ranking(query, CANDIDATES, sources)]
        return fuse_hybrid(keyword, vectors)[:k]

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
        rows = self._q(
            f"SELECT {_DOC_COLUMNS} FROM {SCHEMA}.docs d WHERE d.rowid = ANY(%s)", [list(rowids)]
        )
        return {int(row[0]): _row_to_doc(row) for row in rows}

    def live_docs(
        self, where: str = "true", params: dict[str, Any] | None = None,
        sources: Sequence[str] | None = None,
    ) -> list[DocRow]:  # fmt: skip
        """Every servable document matching an extra SQL condition, in path order."""
        all_params: dict[str, Any] = dict(params or {})
        live = self._live_clause(sources, all_params)
        rows = self._q(
            f"SELECT {_DOC_COLUMNS} FROM {SCHEMA}.docs d WHERE {live} AND ({where}) "
            "ORDER BY d.path",
            all_params,
        )
        return [_row_to_doc(row) for row in rows]

    def required_docs(self) -> list[DocRow]:
        """Every live required memory (force-included in every context)."""
        return self.live_docs("d.priority = 'required'")

    def is_live_row(self, doc: DocRow) -> bool:
        """True when ``doc`` passes every filter for this backend."""
        scopes = {s.brain: s.scopes for s in self.served}
        return (
            doc.status == "active"
            and not doc.retired
            and doc.scope in scopes.get(doc.brain, ())
            and is_live(doc.expires, doc.id, self.excluded(), self._today().isoformat())
        )

    def indexed_commit(self, brain: str) -> tuple[str | None, str | None] | None:
        """(commit, embedder) ``brain`` was last filled from, None if it never was."""
        rows = self._q(f"SELECT commit, embedder FROM {SCHEMA}.brains WHERE brain = %s", [brain])
        return (rows[0][0], rows[0][1]) if rows else None

    def stats(self) -> IndexStats:
        """Counts for the served brains, the embedder in use and why search is degraded."""
        from teambrain_schema import IndexStats

        params = {"brains": self.brains, "embedder": self._embedder.name if self._embedder else ""}
        by_source = {
            source: int(count)
            for source, count in self._q(
                f"SELECT d.source, count(*) FROM {SCHEMA}.docs d WHERE d.brain = ANY(%(brains)s) "
                "GROUP BY d.source",
                params,
            )
        }
        ((vectors, last),) = self._q(
            f"SELECT (SELECT count(*) FROM {SCHEMA}.docs d WHERE d.brain = ANY(%(brains)s) "
            f"AND EXISTS (SELECT 1 FROM {SCHEMA}.vectors v WHERE v.embedder = %(embedder)s "
            "AND v.embed_key = d.embed_key)), "
            f"(SELECT max(indexed_at) FROM {SCHEMA}.brains WHERE brain = ANY(%(brains)s))",
            params,
        )
        return IndexStats(
            documents=sum(by_source.values()),
            by_source=by_source,
            brains=self.brains,
            embedder=self._embedder.name if self._embedder else "none",
            vectors=int(vectors),
            last_indexed=last,
            degraded=self._degraded,
        )
