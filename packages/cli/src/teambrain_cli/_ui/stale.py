"""What is stale: live memories whose citations the code no longer bears out, or whose TTL ran
out — the same pass ``tb lint`` and ``tb doctor`` make — each with the fix to make, and the
action ``tb propose --fix-citations`` takes."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from teambrain_kit.paths import BrainLayout
from teambrain_schema.staleness import stale_memories


@dataclass(frozen=True)
class StaleCitationRow:
    """One citation that no longer holds, where it is cited, and what to do about it."""

    text: str
    line: int
    reason: str
    moved_to: str | None

    @property
    def fix(self) -> str:
        if self.moved_to:
            return f"cite `{self.moved_to}` instead (git followed the move)"
        return "no move to follow: edit the memory or retire it"


@dataclass(frozen=True)
class StaleRow:
    """A memory that may be stale."""

    id: str
    title: str
    relpath: str
    citations: list[StaleCitationRow] = field(default_factory=list)
    expired_on: str | None = None

    @property
    def fixable(self) -> bool:
        """True when the fix-citations review would edit it (some cited path moved)."""
        return any(c.moved_to for c in self.citations)


def stale_rows(layout: BrainLayout, among: Collection[str] | None = None) -> list[StaleRow]:
    """Every live memory of the checkout's brain that may be stale, in path order. ``among``
    (repository-relative paths: those the index's listing found stale) limits the files read
    and checked again for line numbers and moves to those; None reads the whole brain."""
    brain = None
    if among is not None:
        from teambrain_schema.brain import brain_file_paths, load_brain_files

        wanted = set(among)
        paths = [p for p in brain_file_paths(layout) if layout.relative(p) in wanted]
        brain = load_brain_files(layout, paths)
    rows = []
    for memory in stale_memories(layout, brain=brain):
        citations = [
            StaleCitationRow(stale.citation.text, line, stale.reason, stale.moved_to)
            for stale, line in memory.citations
        ]
        expired = memory.expired_on.isoformat() if memory.expired_on else None
        rows.append(StaleRow(memory.id, memory.title, memory.relpath, citations, expired))
    return rows


@dataclass(frozen=True)
class FixResult:
    """What the fix-citations action did: the edits proposed and where the review went."""

    fixes: list[tuple[str, str, list[tuple[str, str]]]]
    not_fixable: list[str]
    branch: str | None
    review: dict[str, object] | None
    base: str
    error: str | None = None


def open_fix_review(repo_root: Path, patch_dir: Path) -> FixResult:
    """``tb propose --fix-citations``: one reviewed edit following every cited path git saw
    move, on its own branch, sent for review as that verb sends it."""
    from teambrain_sync import propose_citation_fixes

    from .._proposals.review import open_target

    repo, target = open_target(None, repo_root, sending=True, cache_dir=patch_dir)
    outcome = propose_citation_fixes(
        repo, target=target, patch_dir=patch_dir, dry_run=False, push=True
    )
    return FixResult(
        fixes=[(f.id, f.title, list(f.moves)) for f in outcome.fixes],
        not_fixable=list(outcome.stale_without_fix),
        branch=outcome.branch if outcome.fixes else None,
        review=outcome.review.to_json() if outcome.review else None,
        base=target.base.requested,
    )
