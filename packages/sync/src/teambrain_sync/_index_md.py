"""Regenerating ``.teambrain/INDEX.md`` on the default branch, after a merge.

Proposals never edit INDEX.md (see :mod:`._memories`), so a retirement's reason reaches the
index from the retirement's commit message (``Reason: …`` under ``Retire memory <id>: …``, as
``tb retire`` writes it). GitHub's three merge styles all keep that text: a merge keeps the
commit itself, a rebase replays it, and a squash of a one-commit pull request uses its message
(a squash of several lists every message).
"""

from __future__ import annotations

import re

from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.git import GitFailed
from teambrain_kit.paths import BrainLayout
from teambrain_schema import BRAIN_DIRNAME
from teambrain_schema.brain import load_brain
from teambrain_schema.index_md import parse_retirement_reasons
from teambrain_schema.lint import expected_index_text, index_md_text

from ._git import GitRepo
from ._memories import MAX_REASON_CHARS

_RETIRE_LINE = re.compile(r"^[\s*>-]*Retire memory (?P<id>[0-9A-HJKMNP-TV-Z]{26})\b")
_REASON_LINE = re.compile(r"^[\s*>-]*Reason: (?P<reason>.+)$")


def retirement_reasons(repo: GitRepo, wanted: set[str]) -> dict[str, str]:
    """Memory id → the reason its retirement commit gives, for the ids in ``wanted`` (one
    ``git log`` over the commits that touched ``retired/``; the newest retirement wins)."""
    if not wanted:
        return {}
    try:
        out = repo.git("log", "--format=%x00%B", "--", f"{BRAIN_DIRNAME}/retired").stdout.decode(
            "utf-8", "replace"
        )
    except GitFailed:  # an unborn branch, a shallow clone without the commits: no reasons
        return {}
    found: dict[str, str] = {}
    for message in out.split("\x00"):
        current: str | None = None
        for line in message.splitlines():
            retire = _RETIRE_LINE.match(line)
            if retire:
                current = retire.group("id")
                continue
            reason = _REASON_LINE.match(line)
            if reason and current in wanted and current not in found:
                found[current] = " ".join(reason.group("reason").split())[:MAX_REASON_CHARS]
                current = None
    return found


def regenerate_index_md(layout: BrainLayout, repo: GitRepo | None) -> bool:
    """Rewrite INDEX.md from the memory files of the checkout at ``layout``; True when it
    changed. Retirement reasons come from the INDEX.md being replaced and, for retirements it
    does not list yet, from git history (``repo``; None: no history, "no reason recorded")."""
    brain = load_brain(layout)
    path = layout.index_md
    existing = index_md_text(layout) or ""  # a committed link out of the brain is not read
    known = parse_retirement_reasons(existing)
    missing = {f.document.front.id for f in brain.retired if f.document is not None} - set(known)
    reasons = retirement_reasons(repo, missing) if repo is not None else {}
    text = expected_index_text(brain, reasons)
    if text == existing:
        return False
    write_text_atomic(path, text)
    return True
