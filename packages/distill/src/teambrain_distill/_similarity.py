"""Retrieval's similarity, plugged into the duplicate guard and the prompt.

The index, the embedder and the tokeniser all come from teambrain_retrieval; nothing here
computes embeddings of its own. When the index cannot be opened the run goes on with the exact
checks only, and the report says so.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_kit.paths import BrainLayout, MachineLayout

from ._dedup import Match, PairScores, SimilarLive

if TYPE_CHECKING:
    from teambrain_retrieval import Retriever


def open_index(
    layout: BrainLayout,
    machine: MachineLayout,
    warn: Callable[[str], None],
    *,
    scratch: Path | None = None,
) -> Retriever | None:
    """The brain's retriever, or None (with a note) when it cannot be opened.

    With ``scratch`` (a dry run) nothing under ``$TEAMBRAIN_HOME`` is touched: the index is
    built in memory, with a copy of index.db in ``scratch`` as its embedding cache.
    """
    try:
        from teambrain_retrieval import RetrieverOptions, open_retriever

        if scratch is not None:
            for suffix in ("", "-wal"):
                source = Path(f"{machine.index_db}{suffix}")
                if source.is_file():
                    shutil.copyfile(source, scratch / source.name)
            from teambrain_kit.egress import load_approvals

            # The scratch home holds a copy of the index only: approvals are this machine's.
            options = RetrieverOptions(
                ephemeral=True, warn=warn, approvals=load_approvals(machine, layout.repo_root)
            )
            return open_retriever(layout, options, home=MachineLayout(scratch))
        return open_retriever(layout, RetrieverOptions(warn=warn), home=machine)
    except Exception as exc:  # any failure here only costs the similarity checks
        warn(f"similarity checks unavailable ({exc.__class__.__name__}: {exc}); exact checks only")
        return None


def similar_live(retriever: Retriever) -> SimilarLive:
    """Live memories retrieval calls duplicates of a draft."""

    def check(title: str, body: str) -> list[Match]:
        return [
            Match(
                "memory",
                found.hit.id,
                found.hit.memory.title,
                "similar",
                path=found.hit.memory.path,
                cosine=None if found.cosine is None else round(found.cosine, 3),
                fts_strength=round(found.fts_strength, 3),
            )
            for found in retriever.similar(title, body)
            if found.is_duplicate
        ]

    return check


def pair_scores(retriever: Retriever) -> PairScores:
    """Cosine (retrieval's embedder) and word overlap (retrieval's tokeniser) of a draft with
    each pending candidate, on the text retrieval embeds (so the draft's vector from
    ``similar()`` and every candidate's from an earlier draft are reused, not recomputed)."""
    from teambrain_retrieval import embed_text, query_terms, term_overlap

    cache: dict[str, Any] = {}  # every pending candidate's vector, for the whole run

    def vector(text: str) -> Any:
        if text not in cache:
            cache[text] = retriever.backend.embeddings.embed_document(text)
        return cache[text]

    def scores(
        draft: tuple[str, str], others: Sequence[tuple[str, str]]
    ) -> list[tuple[float | None, float]]:
        text = embed_text(*draft)
        mine = retriever.backend.embeddings.embed_document(
            text
        )  # usually just embedded by similar()
        terms = set(query_terms(text))
        result: list[tuple[float | None, float]] = []
        for other in others:
            other_text = embed_text(*other)
            theirs = vector(other_text)
            cosine = None
            if mine is not None and theirs is not None and mine.shape == theirs.shape:
                cosine = float(mine @ theirs)
            result.append((cosine, term_overlap(terms, query_terms(other_text))))
        return result

    return scores


def related_ids(retriever: Retriever, query: str, k: int = 3) -> list[str]:
    """Ids of the live memories most related to ``query`` (its bodies go into the prompt)."""
    if not query.strip():
        return []
    return [hit.id for hit in retriever.search(query, k=k)]
