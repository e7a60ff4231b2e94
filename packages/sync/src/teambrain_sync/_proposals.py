"""Proposal branches and their messages, and the whole of a retirement (which needs nothing but
git and the brain)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from teambrain_schema import MemoryDraft, UserError, ValidationFailure, new_ulid

from ._git import GitRepo
from ._memories import NewMemory, ProposalCheck, Retirement, check_proposal, retire_memory
from ._review import ReviewRequest, ReviewTarget, send_for_review
from ._workspace import open_workspace

BRANCH_PREFIX = "teambrain/"


@dataclass(frozen=True)
class ProposedItem:
    """A memory in a proposal, with the draft it came from and lines for the reviewer."""

    memory: NewMemory
    draft: MemoryDraft
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RetireOutcome:
    """A retirement: what moved, on which branch and commit (None with ``dry_run``), how it
    was sent for review, and the lint verdict of the brain after it."""

    retirement: Retirement
    target: ReviewTarget
    branch: str
    commit: str | None
    review: ReviewRequest | None
    check: ProposalCheck


def propose_branch_name() -> str:
    """A new, unique, time-sortable proposal branch: ``teambrain/propose-<ulid>``."""
    return f"{BRANCH_PREFIX}propose-{new_ulid().lower()}"


def retire_branch_name(memory_id: str) -> str:
    """The branch that retires ``memory_id``: ``teambrain/retire-<id>``."""
    return f"{BRANCH_PREFIX}retire-{memory_id.lower()}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word.removesuffix('y')}ies"


def proposal_message(items: list[ProposedItem], base: str) -> tuple[str, str]:
    """(title, body) of a proposal commit and its pull request: every memory id, file and
    evidence, so review has the provenance in front of it."""
    if len(items) == 1:
        title = f"teambrain: propose {items[0].memory.memory_class} {items[0].memory.title!r}"
    else:
        title = f"teambrain: propose {_plural(len(items), 'memory')}"
    title = title if len(title) <= 100 else title[:99] + "…"
    lines = [
        f"Proposed memories, based on {base}. Review is the approval: merging makes them live.",
        "",
    ]
    for item in items:
        memory, draft = item.memory, item.draft
        lines.append(f"- {memory.id} {memory.memory_class} ({draft.priority}): {memory.title}")
        lines.append(f"  file: {memory.relpath}")
        evidence = draft.evidence
        sessions = ", ".join(evidence.sessions) if evidence and evidence.sessions else "none"
        commits = ", ".join(evidence.commits) if evidence and evidence.commits else "none"
        lines.append(f"  evidence: sessions {sessions}; commits {commits}")
        if draft.supersedes:
            lines.append(f"  supersedes: {', '.join(draft.supersedes)}")
        lines.extend(f"  {note}" for note in item.notes)
    lines += ["", "Proposed with `tb propose`."]
    return title, "\n".join(lines) + "\n"


def retire_message(retirement: Retirement) -> tuple[str, str]:
    """(title, body) of a retirement commit and its pull request, reason included."""
    title = f"teambrain: retire {retirement.id} {retirement.title!r}"
    title = title if len(title) <= 100 else title[:99] + "…"
    body = (
        f"Retire memory {retirement.id}: {retirement.title}\n\n"
        f"Reason: {retirement.reason}\n\n"
        f"Moved {retirement.old_relpath} -> {retirement.new_relpath} with status: retired.\n"
        "Once merged, no agent is served this memory.\n\n"
        "Proposed with `tb retire`.\n"
    )
    return title, body


def propose_retirement(
    repo: GitRepo,
    memory_id: str,
    reason: str,
    *,
    target: ReviewTarget,
    patch_dir: Path,
    dry_run: bool = False,
    push: bool = True,
) -> RetireOutcome:
    """Retire ``memory_id`` on a new branch ``teambrain/retire-<id>`` based on ``target``: the
    file moves to ``retired/`` with ``status: retired`` and INDEX.md records the reason, in one
    commit; then the branch is sent for review. The user's checkout is never touched."""
    branch = retire_branch_name(memory_id)
    if repo.ref_exists(f"refs/heads/{branch}"):
        raise UserError(
            f"retiring {memory_id} is already proposed on branch {branch}; review and merge it, "
            f"or delete it (git branch -D {branch}) to start over"
        )
    with open_workspace(repo, target.base) as workspace:
        retirement = retire_memory(workspace, memory_id, reason)
        check = check_proposal(workspace)
        # A memory broken before is still retired: only problems the move itself causes count.
        caused = [v for v in check.own if v.path != retirement.new_relpath]
        if caused:
            raise ValidationFailure(f"{caused[0].format()} (after retiring {memory_id})")
        if dry_run:
            return RetireOutcome(retirement, target, branch, None, None, check)
        title, body = retire_message(retirement)
        commit = workspace.commit(branch, f"{title}\n\n{body}")
    review = send_for_review(
        repo, target=target, branch=branch, commit=commit, title=title, body=body,
        patch_dir=patch_dir, push=push,
    )  # fmt: skip
    return RetireOutcome(retirement, target, branch, commit, review, check)
