"""The near-duplicate guard ``tb propose`` runs and the review queue shows: retrieval's
similarity search over the live memories of the brain a proposal starts from, and over the
memories open proposal branches add (a teammate's too, as last fetched)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teambrain_retrieval import Retriever
    from teambrain_schema import MemoryDraft
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import GitRepo, NearDuplicateGuard, OpenMemory, SimilarMemory


def near_duplicate_guard(repo: GitRepo) -> NearDuplicateGuard:
    """Retrieval's near-duplicate guard over the live memories of the brain at the base (the
    checkout's warm index when the checkout holds exactly that brain, else an in-memory index
    of the base; embeddings come from the shared content-hash cache either way), and over the
    memories open proposal branches add, which are in no index: each compared with the draft
    by the same verdict (cosine of retrieval's embeddings, or shared words)."""

    def guard(
        layout: BrainLayout,
        commit: str,
        drafts: Sequence[MemoryDraft],
        proposed: Sequence[OpenMemory] = (),
    ) -> list[list[SimilarMemory]]:
        from teambrain_retrieval import RetrieverOptions, open_retriever
        from teambrain_schema.paths import BrainLayout
        from teambrain_sync import SimilarMemory, checkout_matches

        if checkout_matches(repo, commit):
            retriever = open_retriever(BrainLayout(repo.root), RetrieverOptions(commit=commit))
        else:
            options = RetrieverOptions(ephemeral=True, commit=commit, trust_root=repo.root)
            retriever = open_retriever(layout, options)
        try:
            return [
                [
                    SimilarMemory(
                        id=found.hit.id,
                        title=found.hit.memory.title,
                        path=found.hit.provenance.path,
                        cosine=found.cosine,
                        fts_strength=found.fts_strength,
                        is_duplicate=found.is_duplicate,
                    )
                    for found in retriever.similar(draft.title, draft.body, k=5)
                ]
                + _similar_proposed(retriever, draft, proposed)
                for draft in drafts
            ]
        finally:
            retriever.close()

    return guard


# Open proposals a draft is embedded against: the ones sharing most words with it. Every open
# proposal is judged by shared words; only these also by cosine, so a thousand stale branches
# cost a few embeddings, not a thousand.
MAX_EMBEDDED_PROPOSALS = 16


def _similar_proposed(
    retriever: Retriever, draft: MemoryDraft, proposed: Sequence[OpenMemory]
) -> list[SimilarMemory]:
    """The memories of open proposals (as last fetched) that are near-duplicates of ``draft``."""
    if not proposed:
        return []
    from teambrain_retrieval import embed_text, is_near_duplicate, query_terms, term_overlap
    from teambrain_sync import SimilarMemory

    text = embed_text(draft.title, draft.body)
    terms = set(query_terms(text))
    scored = sorted(
        (
            (term_overlap(terms, query_terms(embed_text(o.title, o.body))), n, o)
            for n, o in enumerate(proposed)
            if o.memory.id not in draft.supersedes
        ),
        key=lambda item: (-item[0], item[1]),
    )
    mine = retriever.backend.embeddings.embed_document(text) if scored else None
    found = []
    for rank, (overlap, _, other) in enumerate(scored):
        cosine = None
        if mine is not None and rank < MAX_EMBEDDED_PROPOSALS:
            theirs = retriever.backend.embeddings.embed_document(
                embed_text(other.title, other.body)
            )
            if theirs is not None and mine.shape == theirs.shape:
                cosine = float(mine @ theirs)
        if not is_near_duplicate(cosine, overlap, draft.body):
            continue
        memory = other.memory
        found.append(
            SimilarMemory(
                id=memory.id, title=memory.title, path=memory.relpath, cosine=cosine,
                fts_strength=round(overlap, 4), is_duplicate=True, branch=memory.branch,
                pr=memory.pr,
            )
        )  # fmt: skip
    return found
