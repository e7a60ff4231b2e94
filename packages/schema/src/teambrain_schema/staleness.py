"""Which live memories of a brain may be stale: citations the repository no longer bears out
(see :mod:`._citations`) and TTLs that ran out. One pass that ``tb lint``, ``tb doctor``,
``tb metrics``, ``tb digest`` and ``tb propose --fix-citations`` share."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from teambrain_kit.citation_checker import CitationChecker, StaleCitation
from teambrain_kit.citations import MAX_EVIDENCE_CHECKED, extract_citations

if TYPE_CHECKING:
    from teambrain_kit.evidence import EvidenceFate
    from teambrain_kit.paths import BrainLayout

    from .brain import Brain, BrainFile

__all__ = ["EvidenceNote", "StaleMemory", "followed_evidence", "stale_memories"]


@dataclass(frozen=True)
class StaleMemory:
    """A live memory that may be out of date: its citations that no longer hold (each with
    the line of the file that cites it) and whether its TTL ran out (and when)."""

    id: str
    title: str
    relpath: str
    citations: list[tuple[StaleCitation, int]] = field(default_factory=list)
    expired_on: dt.date | None = None

    @property
    def reasons(self) -> list[str]:
        """One line per reason, as agents and people are shown them."""
        out = [stale.reason for stale, _ in self.citations]
        if self.expired_on is not None:
            out.append(f"its ttl_days ran out on {self.expired_on.isoformat()}")
        return out

    @property
    def moves(self) -> list[tuple[str, str]]:
        """(cited text, new path) for each cited path git followed to a new place."""
        return [(s.citation.text, s.moved_to) for s, _ in self.citations if s.moved_to]


def _line_of(text: str, needle: str) -> int:
    offset = text.find(needle)
    return text.count("\n", 0, offset) + 1 if offset >= 0 else 1


def stale_memories(
    layout: BrainLayout,
    *,
    brain: Brain | None = None,
    checker: CitationChecker | None = None,
    today: dt.date | None = None,
) -> list[StaleMemory]:
    """Every active memory under ``memories/`` that may be stale, in path order (empty without
    git: citations are checked against the repository's files and history)."""
    from .brain import load_brain

    brain = brain if brain is not None else load_brain(layout)
    checker = checker or CitationChecker(layout.repo_root)
    today = today or dt.datetime.now(dt.UTC).date()
    found: list[StaleMemory] = []
    live = _live_files(brain)
    asked = []
    for brain_file in live:
        document = brain_file.document
        assert document is not None  # _live_files keeps parsed files only
        evidence = document.front.evidence
        citations = extract_citations(document.body, list(evidence.commits) if evidence else [])
        asked.append((citations, brain_file.relpath))
    # One pass for the brain: old versions of cited files are read in a batch.
    checked = checker.check_all(asked)
    for brain_file, stale in zip(live, checked, strict=True):
        document = brain_file.document
        assert document is not None  # _live_files keeps parsed files only
        front = document.front
        expired = front.expires_on() if front.is_expired(today) else None
        if not stale and expired is None:
            continue
        text = document.original or ""  # the file as it was read: no second read for line numbers
        found.append(
            StaleMemory(
                front.id, front.title, brain_file.relpath,
                [(s, _line_of(text, s.citation.text)) for s in stale], expired,
            )
        )  # fmt: skip
    return found


def _live_files(brain: Brain) -> list[BrainFile]:
    """The brain's usable, active files under ``memories/``, in path order."""
    return [
        f
        for f in sorted(brain.files, key=lambda f: f.relpath)
        if f.is_usable and f.document is not None and f.location != "retired"
        and f.document.front.status == "active"
    ]  # fmt: skip


@dataclass(frozen=True)
class EvidenceNote:
    """An evidence commit of a live memory that is not simply in the history: followed to the
    commit a squash or rebase merge made of it (``fate.became``), or unverifiable. The line is
    where the file names the commit."""

    id: str
    title: str
    relpath: str
    fate: EvidenceFate
    line: int


def followed_evidence(
    layout: BrainLayout, *, brain: Brain | None = None, checker: CitationChecker | None = None
) -> list[EvidenceNote]:
    """Every live memory's evidence commits that a merge rewrote or that cannot be verified
    here, in path order: all commits followed at once (a few git processes for the brain)."""
    from .brain import load_brain

    brain = brain if brain is not None else load_brain(layout)
    checker = checker or CitationChecker(layout.repo_root)
    live = [
        (f, list(f.document.front.evidence.commits)[:MAX_EVIDENCE_CHECKED])
        for f in _live_files(brain)
        if f.document is not None and f.document.front.evidence is not None
    ]
    checker.prepare(sha for _, commits in live for sha in commits)
    notes: list[EvidenceNote] = []
    for brain_file, commits in live:
        document = brain_file.document
        assert document is not None
        for fate in checker.evidence(commits):
            line = _line_of(document.original or "", fate.sha)
            notes.append(
                EvidenceNote(
                    document.front.id, document.front.title, brain_file.relpath, fate, line
                )
            )
    return notes
