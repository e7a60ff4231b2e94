"""Which live memories of a brain may be stale: citations the repository no longer bears out
(see :mod:`._citations`) and TTLs that ran out. One pass that ``tb lint``, ``tb doctor``,
``tb metrics``, ``tb digest`` and ``tb propose --fix-citations`` share."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .citation_checker import CitationChecker, StaleCitation
from .citations import extract_citations

if TYPE_CHECKING:
    from .brain import Brain
    from .paths import BrainLayout

__all__ = ["StaleMemory", "stale_memories"]


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
    for brain_file in sorted(brain.files, key=lambda f: f.relpath):
        document = brain_file.document
        if not brain_file.is_usable or document is None or brain_file.location == "retired":
            continue
        front = document.front
        if front.status != "active":
            continue
        commits = list(front.evidence.commits) if front.evidence else []
        stale = checker.check(extract_citations(document.body, commits))
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
