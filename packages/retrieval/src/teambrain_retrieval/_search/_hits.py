"""Ranked rows turned into answers: each a memory, its score, where it can be cited, and why
it may be stale.

:class:`HitBuilder` reads the ranked rows back from the index (parsed memories are kept while
their row is unchanged), looks up in one ``git ls-tree`` per brain whether each file is exactly
as HEAD holds it (then HEAD is its commit), and checks this brain's memories' citations
against the repository at the commit served.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._git import blob_id, head_blobs, head_commit

if TYPE_CHECKING:
    from teambrain_kit.citation_checker import CitationChecker
    from teambrain_schema import (
        Memory,
        MemoryContextResult,
        MemoryResult,
        Provenance,
        SearchCoverage,
    )

    from .._index._refresher import BrainSource
    from .._index._store import DocRow, DocStore

_MEMORY_CACHE = 4096


@dataclass(frozen=True)
class Hit:
    """A served memory, its score and where it was read."""

    memory: Memory
    score: float
    provenance: Provenance
    # Why the memory may be out of date: citations the repository no longer bears out.
    stale: tuple[str, ...] = ()
    # Why it was chosen: the changed path and the mention it matched, the words, the meaning.
    why: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.memory.id

    def to_result(self) -> MemoryResult:
        """The memory as an agent receives it (body inside the rendering rule's fence)."""
        from teambrain_schema import MemoryResult
        from teambrain_schema.render import render_memory

        front = self.memory.front
        return MemoryResult(
            id=front.id,
            title=front.title,
            body=render_memory(front.id, self.memory.body),
            class_=front.class_,
            provenance=self.provenance,
            priority=front.priority,
            tags=list(front.tags),
            stale=list(self.stale) or None,
            why=list(self.why) or None,
        )


@dataclass(frozen=True)
class Similar:
    """A live memory close to a draft: cosine (None without vectors), term overlap and the
    verdict of the near-duplicate guard."""

    hit: Hit
    cosine: float | None
    fts_strength: float
    is_duplicate: bool


@dataclass(frozen=True)
class ContextPack:
    """What ``memory_context()`` returns: required memories, then relevant ones, within budget."""

    required: list[Hit]
    relevant: list[Hit]
    token_estimate: int
    budget: int
    over_budget: bool = False
    notes: list[str] = field(default_factory=list)
    coverage: SearchCoverage | None = None  # while some memories are not embedded yet
    # The answer came without the embedding model (it had not loaded) and the load was left
    # to the caller (``Retriever.context(load_model=False)``): the text to embed meanwhile.
    model_to_load: str | None = None

    def to_result(self) -> MemoryContextResult:
        """The MCP result model."""
        from teambrain_schema import MemoryContextResult

        return MemoryContextResult(
            required=[hit.to_result() for hit in self.required],
            relevant=[hit.to_result() for hit in self.relevant],
            token_estimate=self.token_estimate,
            budget=self.budget,
            over_budget=self.over_budget,
            notes=list(self.notes),
            coverage=self.coverage,
        )


class HitBuilder:
    """Hits for ranked rows of ``store`` (see the module docstring).

    ``brain_id`` is the retriever's own brain (its memories' citations are checked); with
    ``commit``, its files were materialised from that commit (time travel) and are cited at it.
    """

    def __init__(
        self,
        store: DocStore,
        sources: list[BrainSource],
        *,
        brain_id: str,
        repo_root: Path,
        ephemeral: bool,
        commit: str | None,
        commit_of: Callable[[str], str | None] | None = None,
        checker: Callable[[], CitationChecker] | None = None,
    ) -> None:
        self.store = store
        self._sources = sources
        self._brain_id = brain_id
        self._repo_root = repo_root
        self._ephemeral = ephemeral
        self._commit_override = commit
        # A live view says which commit each of its files is served from.
        self._commit_of = commit_of
        # Parsed memories by stored row: validating front-matter again on every answer is the
        # slowest part of turning hits into results.
        self._memories: dict[tuple[int, str, str, str], Memory] = {}
        # Blob ids in HEAD's tree of the files answers cited, by (brain, HEAD commit); None for
        # a path HEAD does not hold. Looked up for the hits of each answer only, in one git call.
        self._head_blobs: dict[tuple[str, str], dict[str, str | None]] = {}
        self._checker: CitationChecker | None = None
        # Where the citation checker comes from when made elsewhere (one already reading the
        # repository's files on a thread of its own).
        self._made_checker = checker

    def _display(self, brain: str) -> str:
        for source in self._sources:
            if source.brain_id == brain:
                return source.display
        return brain

    def _prefetch_blobs(self, docs: Iterable[DocRow], heads: dict[str, str | None]) -> None:
        """Look up, in one ``git ls-tree`` per brain, the HEAD blobs of ``docs`` not known yet."""
        wanted: dict[str, list[str]] = {}
        for doc in docs:
            wanted.setdefault(doc.brain, []).append(doc.path)
        for brain, paths in wanted.items():
            if brain == self._brain_id and (
                self._commit_override is not None or self._commit_of is not None
            ):
                continue
            source = next((s for s in self._sources if s.brain_id == brain), None)
            if source is None:
                continue
            if brain not in heads:
                heads[brain] = head_commit(source.layout.repo_root)
            head = heads[brain]
            if head is None:
                continue
            if len(self._head_blobs) > 8:
                self._head_blobs.clear()
            blobs = self._head_blobs.setdefault((brain, head), {})
            missing = [p for p in dict.fromkeys(paths) if p not in blobs]
            if missing:
                found = head_blobs(source.layout.repo_root, *missing)
                blobs.update({p: found.get(p) for p in missing})

    def _committed_at(self, brain: str, path: str, heads: dict[str, str | None]) -> str | None:
        """The commit a served file can be cited at: HEAD, when the file is exactly as it is
        in HEAD's tree; None when it is uncommitted or edited since (no commit holds it)."""
        if brain == self._brain_id and self._commit_override is not None:
            return self._commit_override  # read from a brain materialised at that commit
        if brain == self._brain_id and self._commit_of is not None:
            return self._commit_of(path)  # a live view: the default branch's, or this branch's
        source = next((s for s in self._sources if s.brain_id == brain), None)
        if source is None:
            return None
        if brain not in heads:
            heads[brain] = head_commit(source.layout.repo_root)
        head = heads[brain]
        if head is None:
            return None
        blobs = self._head_blobs.setdefault((brain, head), {})
        if path not in blobs:
            blobs[path] = head_blobs(source.layout.repo_root, path).get(path)
        committed = blobs[path]
        if committed is None:
            return None
        try:
            data = (source.layout.repo_root / path).read_bytes()
        except OSError:
            return None
        return head if blob_id(data, sha256=len(committed) == 64) == committed else None

    def build(
        self,
        ranked: Sequence[tuple[int, float]],
        why: Mapping[int, tuple[str, ...]] | None = None,
    ) -> list[Hit]:
        """One hit per memory of ``ranked`` (best first; a memory's copies after the first are
        skipped), with provenance, staleness and, from ``why`` (by row), why it was chosen."""
        from teambrain_schema import Memory, MemoryFrontMatter, Provenance

        docs = self.store.docs([rowid for rowid, _ in ranked])
        heads: dict[str, str | None] = {}
        self._prefetch_blobs(docs.values(), heads)
        hits: list[Hit] = []
        own: list[int] = []
        seen: set[str] = set()
        for rowid, score in ranked:
            doc = docs.get(rowid)
            if doc is None or doc.id in seen:
                continue
            seen.add(doc.id)
            cache_key = (doc.rowid, doc.content_hash, doc.path, doc.doc_json)
            memory = self._memories.get(cache_key)
            if memory is None:
                front = MemoryFrontMatter.model_validate_json(_front_json(doc))
                memory = Memory.model_construct(front=front, body=doc.body, path=doc.path)
                if len(self._memories) >= _MEMORY_CACHE:
                    self._memories.clear()
                self._memories[cache_key] = memory
            front = memory.front
            provenance = Provenance(
                path=doc.path,
                commit=self._committed_at(doc.brain, doc.path, heads),
                created=front.created,
                evidence=front.evidence,
                brain=self._display(doc.brain),
            )
            if doc.brain == self._brain_id:
                own.append(len(hits))
            hits.append(Hit(memory, score, provenance, why=why.get(rowid, ()) if why else ()))
        return self._with_staleness(hits, own)

    def _with_staleness(self, hits: list[Hit], own: list[int]) -> list[Hit]:
        """The hits at ``own`` (this brain's) with the reasons each may be stale: its citations
        checked against the repository at the commit served. An org brain's memories cite
        other repositories and are not checked here."""
        if not own:
            return hits
        checker = self._citation_checker()
        asked = []
        for i in own:
            evidence = hits[i].memory.front.evidence
            commits = list(evidence.commits) if evidence else []
            asked.append((hits[i].memory.body, commits, hits[i].provenance.path))
        try:
            reasons = checker.stale_reasons(asked)
        except (OSError, UnicodeError):  # a check is advice: never the reason an answer fails
            return hits
        out = list(hits)
        for i, why in zip(own, reasons, strict=True):
            if why:
                out[i] = dataclasses.replace(hits[i], stale=why)
        return out

    def _citation_checker(self) -> CitationChecker:
        if self._checker is None and self._made_checker is not None:
            self._checker = self._made_checker()
        if self._checker is None:
            from teambrain_kit.citation_checker import CitationChecker

            # A time-travel retriever reads a brain materialised elsewhere: the code it cites
            # is the repository's own, at the commit served.
            root = Path(self._brain_id) if self._ephemeral else self._repo_root
            self._checker = CitationChecker(root, commit=self._commit_override)
        return self._checker


def _front_json(doc: DocRow) -> str:
    import json

    data = json.loads(doc.doc_json)
    keep = ("id", "class", "scope", "status", "priority", "title", "created", "evidence",
            "supersedes", "tags", "ttl_days")  # fmt: skip
    front = {key: data[key] for key in keep if key in data and data[key] is not None}
    return json.dumps(front)
