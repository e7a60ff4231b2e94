"""The near-duplicate guard ``tb propose`` runs and the review queue shows: retrieval's
similarity search over the live memories of the brain a proposal starts from, and over the
memories open proposal branches add (a teammate's too, as last fetched); and the same verdict
over the live memories themselves, for ``tb lint`` on a pull request's merge result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout
    from teambrain_retrieval import Retriever
    from teambrain_schema import MemoryDraft
    from teambrain_schema.brain import Brain
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
        from teambrain_kit.paths import BrainLayout
        from teambrain_retrieval import RetrieverOptions, open_retriever
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


@dataclass(frozen=True)
class LiveDuplicate:
    """Two live memories that say the same thing: ``newer`` (the one reported) and ``older``,
    with the scores of the near-duplicate verdict."""

    newer_id: str
    older_id: str
    older_title: str
    older_path: str
    cosine: float | None
    overlap: float

    def message(self) -> str:
        scores = [f"cosine {self.cosine:.2f}"] if self.cosine is not None else []
        scores.append(f"keywords {self.overlap:.2f}")
        return (
            f"says the same as live memory {self.older_id} {self.older_title!r} "
            f"({self.older_path}; {', '.join(scores)}): keep one lesson in one memory — fold "
            "this one into it and retire one, or supersede it"
        )


def live_near_duplicates(layout: BrainLayout, brain: Brain) -> list[LiveDuplicate] | None:
    """Every pair of live memories of the checkout's brain that ``tb propose`` would have
    refused as near-duplicates of each other (retrieval's verdict: cosine of its embeddings
    and shared words, the paraphrase rule included): what two machines proposed without seeing
    each other's pull request, caught on the merge result. Identical content is left to
    lint's ``duplicate-content``; a memory superseding the other is no duplicate. None when no
    embeddings are available here (a keyword-only brain, a remote embedder not approved on this
    machine, no model): paraphrases need them."""
    from teambrain_retrieval import RetrieverOptions, open_retriever
    from teambrain_schema import content_hash
    from teambrain_schema.brain import load_brain_config

    if load_brain_config(layout).retrieval.embedder.provider == "none":
        return None
    retriever = open_retriever(layout, RetrieverOptions(warn=lambda _message: None))
    try:
        embeddings = retriever.backend.embeddings
        if embeddings.embedder is None:  # keyword-only here (not approved, not configured)
            return None
        # Every live memory embedded (a warm index has them all: the model is not even
        # loaded); a model that cannot load leaves no embeddings, and then no verdict.
        retriever.refresh()
        while retriever.embed_pending(budget_s=2.0):
            pass
        if embeddings.embedder is None:
            return None
        live = {
            f.document.front.id: f for f in brain.active
            if f.document is not None and f.document.front.status == "active"
        }  # fmt: skip
        hashes = {
            memory_id: content_hash(f.document.front.class_, f.document.front.title,
                                    f.document.body, list(f.document.front.tags))
            for memory_id, f in live.items() if f.document is not None
        }  # fmt: skip
        related = {
            (memory_id, old)
            for memory_id, f in live.items() if f.document is not None
            for old in f.document.front.supersedes
        }  # fmt: skip
        found: dict[tuple[str, str], LiveDuplicate] = {}
        for memory_id, brain_file in sorted(live.items()):
            document = brain_file.document
            if document is None:
                continue
            for similar in retriever.similar(document.front.title, document.body, k=5):
                other = similar.hit.id
                if not similar.is_duplicate or other == memory_id or other not in live:
                    continue
                if hashes.get(other) == hashes.get(memory_id):
                    continue  # identical content: duplicate-content says it
                if (memory_id, other) in related or (other, memory_id) in related:
                    continue
                newer, older = max(memory_id, other), min(memory_id, other)
                older_file = live[older]
                assert older_file.document is not None
                found.setdefault((newer, older), LiveDuplicate(
                    newer, older, older_file.document.front.title, older_file.relpath,
                    similar.cosine, similar.fts_strength,
                ))  # fmt: skip
        return sorted(found.values(), key=lambda d: (d.newer_id, d.older_id))
    finally:
        retriever.close()
