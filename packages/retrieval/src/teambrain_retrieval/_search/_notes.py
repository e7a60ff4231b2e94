"""Free-form notes (``.teambrain/notes/**/*.md``) as a search source of their own: ``note``.

Notes are indexed in index.db like memories — keyword and vector halves, fused by reciprocal
rank — but as a brain of their own (``<brain id>#notes``), so no memory query, filter, required
list or context ever sees one: they are searched only when asked, and answers list them after
the memories. Nothing here is required or trimmed into a context budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._git import blob_id, head_blobs, head_commit
from .._index._refresher import BrainSource
from .._pathmatch import path_score
from ._fusion import CANDIDATES, RRF_K, fuse_rrf

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import NoteResult

    from .._index._refresher import Refresher
    from ._backend import SqliteBackend

NOTES_SUFFIX = "#notes"


@dataclass(frozen=True)
class NoteHit:
    """A note that matches: where it is, the commit it can be cited at, its text."""

    id: str
    title: str
    body: str
    path: str
    score: float
    commit: str | None
    brain: str

    def to_result(self) -> NoteResult:
        """The note as an agent receives it: its body inside the note's fence."""
        from teambrain_schema import NoteResult
        from teambrain_schema.notes import render_note

        return NoteResult(
            id=self.id, title=self.title, body=render_note(self.path, self.body), path=self.path,
            commit=self.commit, brain=self.brain,
        )  # fmt: skip


def note_source(layout: BrainLayout, brain_id: str, display: str) -> BrainSource:
    """The notes of the brain ``brain_id`` as a source of their own (``<brain id>#notes``)."""
    return BrainSource(layout, brain_id + NOTES_SUFFIX, display, ("team",), kind="note")


class NoteIndex:
    """The notes of one brain in index.db (their own ``backend``, a source of
    :func:`note_source`), kept fresh by their own ``refresher`` (built by the set-up)."""

    def __init__(
        self,
        layout: BrainLayout,
        display: str,
        backend: SqliteBackend,
        refresher: Refresher,
        *,
        commit: str | None,
    ) -> None:
        self.layout = layout
        self.display = display
        self.commit_override = commit
        self.backend = backend
        self.refresher = refresher

    def _path_ranking(self, globs: Sequence[str]) -> list[tuple[int, float]]:
        best: dict[int, float] = {}
        for pattern in globs:
            for rowid, mention in self.backend.store.path_mentions():
                score = path_score(pattern, mention)
                if score > best.get(rowid, 0.0):
                    best[rowid] = score
        return sorted(best.items(), key=lambda item: -item[1])

    def search(self, query: str | None, globs: Sequence[str], k: int) -> list[NoteHit]:
        """The best ``k`` notes for ``query`` and/or ``globs`` (fresh: changed notes are read
        first)."""
        if k <= 0:
            return []
        self.refresher.refresh()
        lists: list[list[int]] = []
        if query and query.strip():
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        if globs:
            lists.append([rowid for rowid, _ in self._path_ranking(globs)])
        ranked = fuse_rrf(lists, k=RRF_K, depth=CANDIDATES)[:k]
        docs = self.backend.store.docs([rowid for rowid, _ in ranked])
        commits = self._commits([docs[r].path for r, _ in ranked if r in docs])
        return [
            NoteHit(
                doc.id, doc.title, doc.body, doc.path, score, commits.get(doc.path), self.display
            )
            for rowid, score in ranked
            if (doc := docs.get(rowid)) is not None
        ]

    def _commits(self, paths: list[str]) -> dict[str, str | None]:
        """The commit each note can be cited at: HEAD when the file is exactly as HEAD holds it
        (the commit asked for, when the brain was read from one)."""
        if self.commit_override is not None:
            return dict.fromkeys(paths, self.commit_override)
        root = self.layout.repo_root
        head = head_commit(root)
        if head is None or not paths:
            return {}
        blobs = head_blobs(root, *paths)
        found: dict[str, str | None] = {}
        for path in paths:
            committed = blobs.get(path)
            try:
                data = (root / path).read_bytes()
            except OSError:
                continue
            if committed and blob_id(data, sha256=len(committed) == 64) == committed:
                found[path] = head
        return found
