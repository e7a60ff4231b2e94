"""The near-duplicate guard: a draft is dropped when it repeats a live memory or a pending
candidate (or one queued earlier in the same run), and the report names what it matched.

Exact checks are always on: the content hash, and the same title (case and spacing ignored).
Similarity checks come from retrieval when it is available: its ``similar()`` over live
memories (embedding cosine ≥ 0.88 or ≥ 80% shared words), and the same verdict computed with
its embedder and its tokeniser over pending candidates, which are not in any index.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from teambrain_retrieval import (  # lazy names: _duplicates is stdlib only, no index or model
    DUPLICATE_COSINE as COSINE_THRESHOLD,
    DUPLICATE_TERM_OVERLAP as TERM_OVERLAP_THRESHOLD,
    is_near_duplicate,
)
from teambrain_schema import Candidate, MemoryDraft, content_hash

from ._prompt_text import KnownMemory

__all__ = [  # the verdict and its thresholds are retrieval's: one rule for both checks
    "COSINE_THRESHOLD", "TERM_OVERLAP_THRESHOLD", "DuplicateGuard", "Match", "MatchKind",
    "PairScores", "SimilarLive", "is_near_duplicate", "normal_title",
]  # fmt: skip

MatchKind = Literal["memory", "candidate"]


@dataclass(frozen=True)
class Match:
    """What a dropped draft duplicates, and why."""

    kind: MatchKind
    ref: str
    title: str
    reason: Literal["same content", "same title", "similar"]
    path: str | None = None
    cosine: float | None = None
    fts_strength: float | None = None

    def as_dict(self) -> dict[str, object]:
        return {k: v for k, v in asdict(self).items() if v is not None}


# (title, body) -> similar live memories, from retrieval
SimilarLive = Callable[[str, str], list[Match]]
# (draft (title, body), others' (title, body)) -> (cosine or None without vectors, term
# overlap) for each other
PairScores = Callable[
    [tuple[str, str], Sequence[tuple[str, str]]], list[tuple[float | None, float]]
]


def normal_title(title: str) -> str:
    """A title as compared for sameness: NFC, case-folded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", title)).strip().casefold()


@dataclass
class _Pending:
    candidate_id: str
    title: str
    body: str
    digest: str


class DuplicateGuard:
    """Checks drafts against live memories and pending candidates."""

    def __init__(
        self,
        memories: Sequence[KnownMemory],
        pending: Sequence[Candidate],
        *,
        similar_live: SimilarLive | None = None,
        pair_scores: PairScores | None = None,
    ) -> None:
        self.memories = list(memories)
        self.pending = [
            _Pending(c.candidate_id, c.draft.title, c.draft.body, c.content_hash)
            for c in pending
            if c.status == "pending"
        ]
        self.similar_live = similar_live
        self.pair_scores = pair_scores
        self._memory_hashes = {
            content_hash(m.memory_class, m.title, m.body, list(m.tags)): m for m in self.memories
        }

    def matches(self, draft: MemoryDraft) -> list[Match]:
        """Every live memory and pending candidate ``draft`` duplicates (empty: it is new)."""
        found: dict[tuple[str, str], Match] = {}

        def add(match: Match) -> None:
            found.setdefault((match.kind, match.ref), match)

        digest = draft.content_hash()
        title = normal_title(draft.title)
        same = self._memory_hashes.get(digest)
        if same is not None:
            add(Match("memory", same.id, same.title, "same content", path=same.path))
        for memory in self.memories:
            if normal_title(memory.title) == title:
                add(Match("memory", memory.id, memory.title, "same title", path=memory.path))
        if self.similar_live is not None:
            for match in self.similar_live(draft.title, draft.body):
                add(match)
        for pending in self.pending:
            if pending.digest == digest:
                add(Match("candidate", pending.candidate_id, pending.title, "same content"))
            elif normal_title(pending.title) == title:
                add(Match("candidate", pending.candidate_id, pending.title, "same title"))
        if self.pair_scores is not None and self.pending:
            scores = self.pair_scores(
                (draft.title, draft.body), [(p.title, p.body) for p in self.pending]
            )
            for pending, (cosine, overlap) in zip(self.pending, scores, strict=True):
                if is_near_duplicate(cosine, overlap, draft.body):
                    add(
                        Match(
                            "candidate",
                            pending.candidate_id,
                            pending.title,
                            "similar",
                            cosine=None if cosine is None else round(cosine, 3),
                            fts_strength=round(overlap, 3),
                        )
                    )
        return sorted(found.values(), key=lambda m: (m.kind, m.ref))

    def remember(self, draft: MemoryDraft, candidate_id: str) -> None:
        """Count a draft queued in this run as pending, so later drafts are checked against it."""
        self.pending.append(_Pending(candidate_id, draft.title, draft.body, draft.content_hash()))
