"""The answers a :class:`~teambrain_retrieval.Retriever` gives, over an index already fresh:
search by query, by paths or both, the required memories, a context pack for a situation, the
memories closest to a draft (the near-duplicate guard), one memory by id, and how much of the
brain semantic search covers.

:class:`Answers` ranks with the backend and turns the ranked rows into hits; the facade
refreshes the index first and recovers index.db around each call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._index._store import BY_ID, REQUIRED, DocRow, embed_text
from .._numpy import prepare_numpy
from .._pathmatch import path_score
from .._query import query_terms
from ._duplicates import is_near_duplicate, term_overlap
from ._fusion import CANDIDATES, RRF_K, fuse_rrf
from ._hits import ContextPack, Hit, HitBuilder, Similar
from ._trim import effective_budget, trim_to_budget

if TYPE_CHECKING:
    from teambrain_schema import SearchCoverage

    from ._backend import SqliteBackend
    from ._situation import Situation


class Answers:
    """Answers over one backend (see the module docstring). ``budget_tokens`` is brain.yaml's
    default context budget; ``lock`` the retriever's."""

    def __init__(
        self,
        backend: SqliteBackend,
        hits: HitBuilder,
        *,
        budget_tokens: int,
        lock: threading.RLock,
    ) -> None:
        self.backend = backend
        self.hits = hits
        self._budget_tokens = budget_tokens
        self._lock = lock

    def reattach(self, backend: SqliteBackend) -> None:
        """Answer from ``backend`` from now on (index.db was reopened or replaced)."""
        self.backend = backend
        self.hits.store = backend.store

    def search(self, query: str, k: int) -> list[Hit]:
        """The best ``k`` live memories for ``query`` (see :meth:`Retriever.search`)."""
        return self.hits.build(self.backend.ranked(query, max(k, 0)))[:k]

    def path_ranking(self, globs: Sequence[str]) -> list[tuple[int, float]]:
        best: dict[int, float] = {}
        mentions = self.backend.store.path_mentions()
        for pattern in globs:
            for rowid, mention in mentions:
                score = path_score(pattern, mention)
                if score > best.get(rowid, 0.0):
                    best[rowid] = score
        if not best:
            return []
        docs = self.backend.store.docs(list(best))
        live = {rowid for rowid, doc in docs.items() if self.backend.is_live_row(doc)}
        scored = [
            (rowid, score + (0.1 if docs[rowid].memory_class == "map" else 0.0))
            for rowid, score in best.items()
            if rowid in live
        ]
        return sorted(scored, key=lambda item: (-item[1], docs[item[0]].path))

    def search_paths(self, globs: Sequence[str], k: int) -> list[Hit]:
        """Memories about these files or folders, best first."""
        return self.hits.build(self.path_ranking([g for g in globs if g.strip()]))[:k]

    def search_combined(self, query: str | None, globs: Sequence[str], k: int) -> list[Hit]:
        """Query and path results fused by reciprocal rank (either may be empty)."""
        lists: list[list[int]] = []
        if globs:
            lists.append([rowid for rowid, _ in self.path_ranking(globs)])
        if query and query.strip():
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        return self.hits.build(fuse_rrf(lists, k=RRF_K, depth=CANDIDATES))[:k]

    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        order = {"decision": 0, "convention": 1, "map": 2, "learning": 3}
        docs = self.backend.live_docs(REQUIRED)
        docs.sort(key=lambda d: (order.get(d.memory_class or "", 9), d.created or "", d.id))
        return self.hits.build([(doc.rowid, 1.0) for doc in docs])

    def context(self, situation: Situation, budget: int | None) -> ContextPack:
        """Every required memory, then the memories most relevant to ``situation``, trimmed
        to the budget (see :meth:`Retriever.context`)."""
        from teambrain_schema.tokens import memory_token_cost

        limit = effective_budget(budget, self._budget_tokens)
        required = self.required()
        required_ids = {hit.id for hit in required}
        lists: list[list[int]] = []
        query = situation.query_text()
        if query:
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        if situation.changed_paths:
            lists.append([rowid for rowid, _ in self.path_ranking(situation.changed_paths)])
        ranked = fuse_rrf(lists, k=RRF_K, depth=CANDIDATES)
        relevant = [hit for hit in self.hits.build(ranked) if hit.id not in required_ids]
        trimmed = trim_to_budget(
            required,
            relevant,
            lambda hit: memory_token_cost(hit.id, hit.memory.title, hit.memory.body),
            limit,
        )
        notes = list(trimmed.notes)
        if situation.is_empty() and not trimmed.over_budget:
            notes.append("no branch, changed paths or commits to go by; only required memories")
        if self.backend.degraded:
            notes.append(f"keyword search only ({self.backend.degraded})")
        coverage = self.coverage()
        if coverage is not None:
            notes.append(coverage.note)
        return ContextPack(
            trimmed.required, trimmed.relevant, trimmed.tokens, trimmed.budget,
            trimmed.over_budget, notes, coverage,
        )  # fmt: skip

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
        hits = self.hits.build([(docs[0].rowid, 1.0)]) if docs else []
        return hits[0] if hits else None


def _same_text(title: str, body: str, doc: DocRow) -> bool:
    def norm(text: str) -> str:
        return " ".join(text.split()).casefold()

    return norm(title) == norm(doc.title) and norm(body) == norm(doc.body)
