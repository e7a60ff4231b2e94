"""The near-duplicate guard ``tb propose`` runs and the review queue shows: retrieval's
similarity search over the live memories of the brain a proposal starts from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teambrain_schema import MemoryDraft
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import GitRepo, NearDuplicateGuard, SimilarMemory


def near_duplicate_guard(repo: GitRepo) -> NearDuplicateGuard:
    """Retrieval's near-duplicate guard over the live memories of the brain at the base: the
    checkout's warm index when the checkout holds exactly that brain, else an in-memory index
    of the base (embeddings come from the shared content-hash cache either way)."""

    def guard(
        layout: BrainLayout, commit: str, drafts: Sequence[MemoryDraft]
    ) -> list[list[SimilarMemory]]:
        from teambrain_retrieval import open_retriever
        from teambrain_schema.paths import BrainLayout
        from teambrain_sync import SimilarMemory, checkout_matches

        if checkout_matches(repo, commit):
            retriever = open_retriever(BrainLayout(repo.root), commit=commit)
        else:
            retriever = open_retriever(layout, ephemeral=True, commit=commit, trust_root=repo.root)
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
                for draft in drafts
            ]
        finally:
            retriever.close()

    return guard
