"""Answers from the shared index while this machine's index is built (a newcomer's clone):
search by query, the required memories and a context pack, over
:class:`~teambrain_retrieval._postgres._first.SharedFirst`.

The same shapes as :class:`~.._search._answers.Answers` gives (hits with provenance, a
:class:`~.._search._hits.ContextPack` within the budget), from what the shared index can rank: the
query's words and meaning. A context pack ranks the session's situation by its words (branch,
its commits, the changed paths' words) — path mentions, the graph and notes join once the
local index is built. Every answer says where it came from: ``ContextPack.notes`` and
:attr:`FirstAnswers.source`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .._search._hits import ContextPack, Hit, HitBuilder
from .._search._trim import effective_budget, trim_to_budget

if TYPE_CHECKING:
    from teambrain_schema import SearchCoverage

    from .._index._embedders import Vectors
    from .._index._embedding import Embeddings
    from .._search._situation import Situation
    from ._first import SharedFirst


class FirstAnswers:
    """Answers over ``first`` (see the module docstring). ``embeddings`` embeds the query with
    this machine's model; ``in_background()`` says a server is answering (it never waits for
    the model: the keyword half answers while the model loads)."""

    def __init__(
        self,
        first: SharedFirst,
        hits: HitBuilder,
        embeddings: Embeddings,
        *,
        budget_tokens: int,
        in_background: Callable[[], bool],
    ) -> None:
        self.first = first
        self.hits = hits
        self.embeddings = embeddings
        self._budget_tokens = budget_tokens
        self._in_background = in_background
        self.loading = False  # the last answer did without the model, which was loading

    @property
    def source(self) -> str:
        """Where these answers come from, as one line."""
        commit = (self.first.commit or "an unknown commit")[:12]
        return (
            f"answered from the shared index at CI's commit {commit} while this machine's "
            "index is built"
        )

    def _vector(self, text: str, *, load_model: bool = True) -> Vectors | None:
        """``text``'s vector; None without an embedder, or in a server while the model loads
        (its load is started, or with ``load_model=False`` left to the caller: a later answer
        has it)."""
        self.loading = False
        if self.embeddings.embedder is None or not text.strip():
            return None
        if self._in_background() and not self.embeddings.ready():
            self.loading = True
            if load_model:  # on a thread: not even the load's first imports hold the answer
                threading.Thread(
                    target=self.embeddings.warm_up, args=(text,), name="teambrain-model",
                    daemon=True,
                ).start()  # fmt: skip
            return None
        # On the worker thread: after a load already started there (warm_up), never beside it.
        return self.embeddings.worker().submit(self.embeddings.embed_query, text).result()

    def search(self, query: str, k: int) -> list[Hit]:
        """The best ``k`` memories for ``query``, each saying which of its words it holds."""
        from .._query import query_terms

        self.first.read_commit()
        ranked = self.first.ranked(query, lambda: self._vector(query), max(k, 0))
        hits = self.hits.build(ranked)
        terms = query_terms(query)
        out = []
        for hit in hits[:k]:
            held = set(query_terms(f"{hit.memory.title} {hit.memory.body}"))
            words = [t for t in dict.fromkeys(terms) if t in held]
            why = (f"query: {', '.join(words)}",) if words else ("close in meaning to the query",)
            out.append(Hit(hit.memory, hit.score, hit.provenance, hit.stale, why))
        return out

    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        self.first.read_commit()
        return self.hits.build([(doc.rowid, 1.0) for doc in self.first.required()])

    def context(
        self, situation: Situation, budget: int | None, *, load_model: bool = True
    ) -> ContextPack:
        """Every required memory, then the memories the situation's words find, trimmed to
        the budget; its notes say it came from the shared index. In a server whose model has
        not loaded, ``load_model=False`` leaves its load to the caller (``model_to_load``), as
        :meth:`Retriever.context` does."""
        from teambrain_schema.tokens import memory_token_cost

        from .._search._context import semantic_text

        limit = effective_budget(budget, self._budget_tokens)
        required = self.required()
        required_ids = {hit.id for hit in required}
        text = situation.query_text()
        relevant: list[Hit] = []
        self.loading = False
        if text.strip():
            meaning = semantic_text(situation) or text
            ranked = self.first.ranked(
                text, lambda: self._vector(meaning, load_model=load_model), 120 + len(required_ids)
            )
            relevant = [hit for hit in self.hits.build(ranked) if hit.id not in required_ids]
        trimmed = trim_to_budget(
            required, relevant,
            lambda hit: memory_token_cost(hit.id, hit.memory.title, hit.memory.body), limit,
        )  # fmt: skip
        notes = [*trimmed.notes, self.source]
        if situation.is_empty() and not trimmed.over_budget:
            notes.append("no branch, changed paths or commits to go by; only required memories")
        coverage = self.coverage()
        if coverage is not None:
            notes.append(coverage.note)
        to_load = semantic_text(situation) if self.loading and not load_model else None
        return ContextPack(
            trimmed.required, trimmed.relevant, trimmed.tokens, trimmed.budget,
            trimmed.over_budget, notes, coverage, to_load,
        )  # fmt: skip

    def coverage(self) -> SearchCoverage | None:
        """The partial mark of an answer given while the model loads (None otherwise: the
        shared index holds a vector for every memory CI indexed)."""
        from teambrain_schema import SearchCoverage

        if not self.loading:
            return None
        note = (
            "partial answer: the embedding model is still loading, so this answer used "
            "keywords only; a later call adds semantic search"
        )
        return SearchCoverage(memories=self.first.count(), embedded=0, note=note)
