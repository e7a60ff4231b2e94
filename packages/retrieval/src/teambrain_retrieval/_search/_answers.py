"""The answers a :class:`~teambrain_retrieval.Retriever` gives, over an index already fresh:
search by query, by paths or both, the required memories, a context pack for a situation, the
memories closest to a draft (the near-duplicate guard), one memory by id, and how much of the
brain semantic search covers.

:class:`Answers` ranks with the backend and turns the ranked rows into hits; the facade
refreshes the index first and recovers index.db around each call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._index._store import BY_ID, REQUIRED, DocRow, embed_text
from .._numpy import prepare_numpy
from .._query import query_terms
from ._context import rank_paths, rank_situation, semantic_text
from ._duplicates import is_near_duplicate, term_overlap
from ._fusion import CANDIDATES, RRF_K, fuse_rrf
from ._graphlinks import GraphWalk, merge_linked
from ._hits import ContextPack, Hit, HitBuilder, Similar
from ._situation import ambiguous_paths, file_symbols
from ._trim import effective_budget, trim_to_budget

if TYPE_CHECKING:
    from teambrain_schema import SearchCoverage

    from ._backend import SqliteBackend
    from ._policy import OrgPolicies
    from ._situation import Situation

_WILDCARDS = frozenset("*?[")
# The most relevant memories a context looks at: more than the budget (2000 tokens) can hold,
# a memory costing ~20 tokens at the least.
CONTEXT_CANDIDATES = 120


class Answers:
    """Answers over one backend (see the module docstring). ``budget_tokens`` is brain.yaml's
    default context budget; ``lock`` the retriever's; ``policies`` the org brain's read
    policies; ``graph`` the graphs answers follow; ``repo_root`` the checkout changed files are
    read from (None for a brain read from the past); ``in_background()`` whether a server
    embeds between answers (then an answer never waits for the model)."""

    def __init__(
        self,
        backend: SqliteBackend,
        hits: HitBuilder,
        *,
        budget_tokens: int,
        lock: threading.RLock,
        policies: OrgPolicies,
        graph: GraphWalk,
        repo_root: Path | None,
        in_background: Callable[[], bool],
    ) -> None:
        self.backend = backend
        self.hits = hits
        self._budget_tokens = budget_tokens
        self._lock = lock
        self.policies = policies
        self.graph = graph
        self._repo_root = repo_root
        self._in_background = in_background

    def reattach(self, backend: SqliteBackend) -> None:
        """Answer from ``backend`` from now on (index.db was reopened or replaced)."""
        self.backend = backend
        self.hits.store = backend.store

    def search(self, query: str, k: int) -> list[Hit]:
        """The best ``k`` live memories for ``query``, each saying which of the query's words it
        holds (see :meth:`Retriever.search`)."""
        direct = self.backend.ranked(query, max(k, 0))
        linked, via = self.graph.linked(self.backend, (), query)
        ranked = self._readable(merge_linked(direct, linked), linked)
        why = self._query_why(query, [rowid for rowid, _ in direct])
        return _with_via(self.hits.build(ranked, why)[:k], via)

    def _readable(
        self, ranked: Sequence[tuple[int, float]], linked: Sequence[tuple[int, float]] = ()
    ) -> list[tuple[int, float]]:
        """``ranked`` as this repository may read it: the org brain's rows its read policy
        allows, within its byte cap (see :mod:`._policy`)."""
        if not self.policies:
            return list(ranked)
        return self.policies.readable(self.backend.store, ranked, {rowid for rowid, _ in linked})

    def model_before_search(self) -> None:
        """A search waits for the embedding model anyway (its query is embedded): in a server
        whose model has not loaded yet, load it before the refresh, so what the refresh finds
        changed (a pulled or edited memory) is embedded for this answer, not found by keywords
        alone. A failure is reported by the query's own embedding."""
        embeddings = self.backend.embeddings
        if not self._in_background() or embeddings.embedder is None or embeddings.ready():
            return
        loader = getattr(embeddings.embedder, "load", None)
        if callable(loader):
            with contextlib.suppress(Exception):
                embeddings.worker().submit(loader).result()

    def _query_why(self, query: str, rowids: Sequence[int]) -> dict[int, tuple[str, ...]]:
        """For each of ``rowids``: the query's words it holds, or that it matched by meaning."""
        from .._query import keyword_terms

        held: dict[int, list[str]] = {rowid: [] for rowid in rowids}
        for term in keyword_terms(query)[:24]:
            anywhere, _titled = self.backend.term_rows(term)
            for rowid, words in held.items():
                if rowid in anywhere:
                    words.append(term)
        meaning = self.backend.embedder is not None
        return {
            rowid: (f"query: {', '.join(words)}",) if words
            else ("close in meaning to the query",) if meaning else ()
            for rowid, words in held.items()
        }  # fmt: skip

    def search_paths(self, globs: Sequence[str], k: int) -> list[Hit]:
        """Memories about these files or folders, best first, each saying which path and
        mention matched (see :meth:`Retriever.search_paths`)."""
        paths = [g for g in globs if g.strip()]
        direct = rank_paths(self.backend, paths, *self._path_facts(paths))[:k]
        linked, via = self.graph.linked(self.backend, paths, None)
        ranked = self._readable(merge_linked([(r.rowid, r.score) for r in direct], linked), linked)
        return _with_via(self.hits.build(ranked, {r.rowid: r.why for r in direct})[:k], via)

    def _path_facts(self, paths: Sequence[str]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
        """What the files among ``paths`` define, and which of them share their name with
        another tracked file, read from this checkout (nothing for a brain read from the past,
        whose checkout is elsewhere)."""
        files = [p for p in paths if not _WILDCARDS & set(p)]
        if self._repo_root is None or not files:
            return {}, frozenset()
        return file_symbols(self._repo_root, files), ambiguous_paths(self._repo_root, files)

    def search_combined(self, query: str | None, globs: Sequence[str], k: int) -> list[Hit]:
        """Query and path results fused by reciprocal rank (either may be empty)."""
        lists: list[list[int]] = []
        why: dict[int, tuple[str, ...]] = {}
        if globs:
            by_path = rank_paths(self.backend, globs, *self._path_facts(globs))
            lists.append([r.rowid for r in by_path])
            why.update({r.rowid: r.why for r in by_path})
        if query and query.strip():
            by_query = [rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)]
            lists.append(by_query)
            for rowid, reasons in self._query_why(query, by_query).items():
                why[rowid] = (*why.get(rowid, ()), *reasons)
        linked, via = self.graph.linked(self.backend, globs, query)
        ranked = self._readable(
            merge_linked(fuse_rrf(lists, k=RRF_K, depth=CANDIDATES), linked), linked
        )
        return _with_via(self.hits.build(ranked, why)[:k], via)

    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        order = {"decision": 0, "convention": 1, "map": 2, "learning": 3}
        docs = self.backend.live_docs(REQUIRED)
        docs.sort(key=lambda d: (order.get(d.memory_class or "", 9), d.created or "", d.id))
        return self.hits.build(self._readable([(doc.rowid, 1.0) for doc in docs]))

    def context(self, situation: Situation, budget: int | None, *, load_model: bool) -> ContextPack:
        """Every required memory, then the memories most relevant to ``situation``, trimmed
        to the budget; in a server, without waiting for the model (see
        :meth:`Retriever.context`)."""
        from teambrain_schema.tokens import memory_token_cost

        limit = effective_budget(budget, self._budget_tokens)
        required = self.required()
        required_ids = {hit.id for hit in required}
        # A server answers without waiting for its model; a one-shot reader (`tb relevant`)
        # waits for it, as its searches do.
        loading = (
            self._in_background()
            and self.backend.embedder is not None
            and not self.backend.embeddings.ready()
        )
        direct = rank_situation(self.backend, situation, semantic=not loading)
        direct = direct[: CONTEXT_CANDIDATES + len(required_ids)]
        linked, via = self.graph.linked(
            self.backend, situation.changed_paths, situation.query_text() or None
        )
        ranked = self._readable(merge_linked([(r.rowid, r.score) for r in direct], linked), linked)
        capped = self.policies.note()
        built = _with_via(self.hits.build(ranked, {r.rowid: r.why for r in direct}), via)
        relevant = [hit for hit in built if hit.id not in required_ids]
        trimmed = trim_to_budget(
            required,
            relevant,
            lambda hit: memory_token_cost(hit.id, hit.memory.title, hit.memory.body),
            limit,
        )
        notes = list(trimmed.notes)
        if capped:
            notes.append(capped)
        if situation.is_empty() and not trimmed.over_budget:
            notes.append("no branch, changed paths or commits to go by; only required memories")
        if self.backend.degraded:
            notes.append(f"keyword search only ({self.backend.degraded})")
        coverage = self.coverage()
        if coverage is None and loading:
            coverage = self._loading_coverage()
        if coverage is not None:
            notes.append(coverage.note)
        to_load = None
        if loading and load_model:  # after the answer's own work: it never waits for the load
            self.backend.embeddings.warm_up(semantic_text(situation) or None)
        elif loading:
            to_load = semantic_text(situation)
        return ContextPack(
            trimmed.required, trimmed.relevant, trimmed.tokens, trimmed.budget,
            trimmed.over_budget, notes, coverage, to_load,
        )  # fmt: skip

    def prepare(self) -> None:
        """Read what answers need (the live memories, their path mentions, the required
        memories and their citations' staleness) before the first one asks."""
        self.backend.path_matcher()
        self.required()

    def _loading_coverage(self) -> SearchCoverage:
        """The partial mark of an answer given while the embedding model loads."""
        from teambrain_schema import SearchCoverage

        total = len(self.backend.live_rows())
        note = (
            "partial answer: the embedding model is still loading, so this answer used paths "
            "and keywords only; a later call adds semantic search"
        )
        return SearchCoverage(memories=total, embedded=0, note=note)

    def coverage(self) -> SearchCoverage | None:
        """How many live memories semantic search covers while some are not embedded yet;
        None once all are, or without an embedder (see :meth:`Retriever.coverage`)."""
        from teambrain_schema import SearchCoverage

        with self._lock:
            found = self.backend.embedding_coverage()
        if found is None or found[1] >= found[0]:
            return None
        total, embedded = found
        note = (
            f"partial answer: semantic search covers {embedded} of {total} memories so far; the "
            f"other {total - embedded} are found by keywords only until they are embedded (a "
            "later call covers more)"
        )
        return SearchCoverage(memories=total, embedded=embedded, note=note)

    def similar(self, title: str, body: str, k: int) -> list[Similar]:
        """Live memories closest to a draft (see :meth:`Retriever.similar`)."""
        text = embed_text(title, body)
        vector = self.backend.embeddings.embed_document(text)
        cosines = dict(self.backend.vector_ranking_for(vector, CANDIDATES))
        fts = [rowid for rowid, _ in self.backend.fts_ranking(text, CANDIDATES)]
        candidates = list(dict.fromkeys([*cosines, *fts]))
        docs = self.backend.store.docs(candidates)
        draft_terms = set(query_terms(text))
        scored = []
        for rowid in candidates:
            doc = docs.get(rowid)
            if doc is None:
                continue
            overlap = term_overlap(draft_terms, query_terms(embed_text(doc.title, doc.body)))
            cosine = cosines.get(rowid)
            if cosine is None and vector is not None:
                cosine = self._cosine_of(vector, doc)
            same = _same_text(title, body, doc)
            duplicate = same or is_near_duplicate(cosine, overlap, body)
            scored.append((rowid, max(cosine or 0.0, overlap), cosine, overlap, duplicate))
        scored.sort(key=lambda item: -item[1])
        hits = {hit.id: hit for hit in self.hits.build([(r, s) for r, s, *_ in scored])}
        result = []
        for rowid, _score, cosine, overlap, duplicate in scored:
            hit = hits.get(docs[rowid].id)
            if hit is not None and hit.memory.path == docs[rowid].path:
                result.append(Similar(hit, cosine, round(overlap, 4), duplicate))
        return result[:k]

    def _cosine_of(self, vector: Any, doc: DocRow) -> float | None:
        prepare_numpy()
        import numpy as np

        other = self.backend.embeddings.stored_vector(doc.title, doc.body)
        if other is None or other.shape != vector.shape:
            return None
        return float(np.dot(vector, other))

    def memory(self, memory_id: str) -> Hit | None:
        """The live (served) memory with this id, or None."""
        docs = self.backend.live_docs(BY_ID, [memory_id])
        hits = self.hits.build(self._readable([(docs[0].rowid, 1.0)])) if docs else []
        return hits[0] if hits else None


def _with_via(hits: list[Hit], via: dict[str, str]) -> list[Hit]:
    """``hits`` with the graph route of each one reached through the graph in provenance."""
    if not via:
        return hits
    return [
        dataclasses.replace(h, provenance=h.provenance.model_copy(update={"via": via[h.id]}))
        if h.id in via else h
        for h in hits
    ]  # fmt: skip


def _same_text(title: str, body: str, doc: DocRow) -> bool:
    def norm(text: str) -> str:
        return " ".join(text.split()).casefold()

    return norm(title) == norm(doc.title) and norm(body) == norm(doc.body)
