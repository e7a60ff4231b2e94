"""Reciprocal-rank fusion: combine rankings by position, not by incomparable raw scores."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

RRF_K = 60
CANDIDATES = 40
# A vector candidate the keyword half did not find must be at least this close to the query:
# below it a memory is unrelated (MiniLM: unrelated texts ~0-0.15, a relevant SciFact abstract
# ≥ 0.39 in 95% of cases), and "the nearest of 40" alone would always fill every answer.
VECTOR_FLOOR = 0.2

KeyT = TypeVar("KeyT", bound=Hashable)


def fuse_rrf(
    rankings: Sequence[Sequence[KeyT]], *, k: int = RRF_K, depth: int = CANDIDATES
) -> list[tuple[KeyT, float]]:
    """Fuse best-first ``rankings`` into one: score(d) = Σ 1 / (k + rank(d)), rank from 1.

    Only the first ``depth`` entries of each ranking count; a key repeated within one ranking
    counts at its best position. Ties keep the order in which keys were first seen, so the
    result is deterministic.
    """
    scores: dict[KeyT, float] = {}
    for ranking in rankings:
        seen: set[KeyT] = set()
        for position, key in enumerate(ranking[:depth], start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + position)
    order = {key: index for index, key in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def fuse_hybrid(
    keyword: Sequence[KeyT], vectors: Sequence[tuple[KeyT, float]] | None
) -> list[tuple[KeyT, float]]:
    """The hybrid ranking every backend gives: the keyword half's best-first keys fused by
    :func:`fuse_rrf` with the vector half's best-first (key, cosine), where a vector candidate
    the keyword half did not find counts only when its cosine reaches :data:`VECTOR_FLOOR`."""
    lists: list[Sequence[KeyT]] = [keyword]
    if vectors:
        found = set(keyword)
        near = [key for key, cosine in vectors if cosine >= VECTOR_FLOOR or key in found]
        if near:
            lists.append(near)
    return fuse_rrf(lists, k=RRF_K, depth=CANDIDATES)
