"""Proposal branches and their messages, and the whole of a retirement (which needs nothing but
git and the brain)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from teambrain_schema import MemoryDraft, UserError, ValidationFailure
from teambrain_schema.frontmatter import serialise_memory
from teambrain_schema.ids import new_ulid

from ._branches import ProposalBranch, proposal_branches, tidy_branches
from ._git import GitRepo
from ._memories import (
    NewMemory,
    ProposalCheck,
    Retirement,
    check_proposal,
    open_proposals,
    retire_memory,
)
from ._pulls import pull_requests
from ._review import (
    ReviewRequest,
    ReviewTarget,
    send_branches,
    send_for_review,
    unsent_branches,
)
from ._workspace import open_workspace

if TYPE_CHECKING:
    from teambrain_schema import MemoryFrontMatter
    from teambrain_schema.frontmatter import MemoryDocument

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
    notes: tuple[str, ...] = ()  # open proposals that edit or supersede the memory
    tidied: tuple[ProposalBranch, ...] = ()  # local proposal branches merged or closed, removed
    # Other proposal branches whose push failed before (any verb's), sent again; and those
    # kept local on purpose (--no-push), named.
    resent: tuple[ReviewRequest, ...] = ()
    unsent: tuple[str, ...] = ()

    def reviews(self) -> list[ReviewRequest]:
        """Every branch this run sent for review: its own, then the ones it sent again."""
        return ([self.review] if self.review else []) + list(self.resent)


def propose_branch_name() -> str:
    """A new, unique, time-sortable proposal branch: ``teambrain/propose-<ulid>``."""
    return f"{BRANCH_PREFIX}propose-{new_ulid().lower()}"


def retire_branch_name(memory_id: str) -> str:
    """The branch that retires ``memory_id``: ``teambrain/retire-<id>``."""
    return f"{BRANCH_PREFIX}retire-{memory_id.lower()}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word.removesuffix('y')}ies"


# The trailer naming the commit a proposal was written on: merge styles that rewrite the
# commit (rebase, and a squash that keeps its message) keep it, so `tb lint` on the default
# branch can tell an edit the proposal's author could not have seen (see _supersedes.py).
BASE_TRAILER = "Teambrain-Base"


def proposal_message(
    items: list[ProposedItem], base: str, base_commit: str | None = None
) -> tuple[str, str]:
    """(title, body) of a proposal commit and its pull request: every memory id, file and
    evidence, so review has the provenance in front of it; ``base_commit`` is named in a
    ``Teambrain-Base:`` trailer."""
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
    if base_commit:
        lines += ["", f"{BASE_TRAILER}: {base_commit}"]
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
    file moves to ``retired/`` with ``status: retired`` and the commit message records the
    reason, in one commit; then the branch is sent for review. The user's checkout is never touched."""
    branch = retire_branch_name(memory_id)
    sending = push and not dry_run and target.remote is not None
    notes, tidied = _open_work_on(
        repo, target, patch_dir, [memory_id], refresh=sending, tidy=not dry_run
    )
    with open_workspace(repo, target.base) as workspace:
        retirement = retire_memory(workspace, memory_id, reason)
        resent = _already_proposed(
            repo, target, branch, f"retiring {memory_id}", push=push, dry_run=dry_run,
            patch_dir=patch_dir,
        )  # fmt: skip
        if resent is not None:  # committed here before, never pushed: send it now
            commit, review = resent
            others, kept = _send_others(
                repo, target, patch_dir, branch, sending=sending, review=review
            )
            return RetireOutcome(
                retirement, target, branch, commit, review, ProposalCheck(), tuple(notes),
                tidied, others, kept,
            )  # fmt: skip
        check = check_proposal(workspace)
        # A memory broken before is still retired: only problems the move itself causes count.
        caused = [v for v in check.own if v.path != retirement.new_relpath]
        if caused:
            raise ValidationFailure(f"{caused[0].format()} (after retiring {memory_id})")
        if dry_run:
            return RetireOutcome(retirement, target, branch, None, None, check, tuple(notes))
        title, body = retire_message(retirement)
        if notes:
            body += "\nOpen proposals touching this memory:\n" + "".join(
                f"- {line}\n" for line in notes
            )
        commit = workspace.commit(branch, f"{title}\n\n{body}")
    review = send_for_review(
        repo, target=target, branch=branch, commit=commit, title=title, body=body,
        patch_dir=patch_dir, push=push,
    )  # fmt: skip
    others, kept = _send_others(repo, target, patch_dir, branch, sending=sending, review=review)
    return RetireOutcome(
        retirement, target, branch, commit, review, check, tuple(notes), tidied, others, kept
    )


def _send_others(
    repo: GitRepo,
    target: ReviewTarget,
    patch_dir: Path,
    own: str,
    *,
    sending: bool,
    review: ReviewRequest | None,
) -> tuple[tuple[ReviewRequest, ...], tuple[str, ...]]:
    """What a verb that reaches the remote does for the proposal branches other verbs left
    unsent (``own``: this verb's branch, sent as ``review`` says): the ones whose push failed,
    pushed (their pull requests opened); the ones kept local on purpose, named. Nothing is
    tried when this verb's own push failed (offline: the next run sends them all)."""
    if not sending or (review is not None and review.push_error is not None):
        return (), ()
    pulls = pull_requests(repo, patch_dir, refresh=False)  # as this run's own gh call left it
    failed, kept = unsent_branches(repo, proposal_branches(repo, target.base.sha, pulls))
    names = [b for b in failed if b != own]
    return (
        tuple(send_branches(repo, target, names, patch_dir)),
        tuple(b for b in kept if b != own),
    )


def _open_work_on(
    repo: GitRepo,
    target: ReviewTarget,
    patch_dir: Path,
    memory_ids: list[str],
    *,
    refresh: bool,
    tidy: bool,
) -> tuple[list[str], tuple[ProposalBranch, ...]]:
    """Lines naming the open branches that edit or supersede ``memory_ids`` (as last fetched;
    ``gh`` asked when ``refresh``), and the merged or closed local proposal branches removed on
    the way (when ``tidy``: a run that changes things)."""
    pulls = pull_requests(repo, patch_dir, refresh=refresh and target.remote is not None)
    proposals = open_proposals(repo, target.base.sha, pulls)
    lines = []
    for memory_id in memory_ids:
        lines += [f"{memory_id}: branch {b.name} ({b.describe()}) edits it"
                  for b in proposals.edits.get(memory_id, [])]  # fmt: skip
        lines += [
            f"{memory_id}: branch {m.memory.branch} ({m.memory.where}) supersedes it with "
            f"{m.memory.id} {m.title!r}: once both merge, an edit of {memory_id} is never served"
            for m in proposals.superseding(memory_id)
        ]
    tidied = tuple(tidy_branches(repo, proposals.branches)) if tidy else ()
    return lines, tidied


def _already_proposed(
    repo: GitRepo,
    target: ReviewTarget,
    branch: str,
    what: str,
    *,
    push: bool,
    dry_run: bool,
    patch_dir: Path,
) -> tuple[str, ReviewRequest] | None:
    """Stop (:class:`UserError`) when ``branch`` — named after its change, so the same change
    from any machine has the same name — is already proposed: on the remote as last fetched
    (a teammate pushed it, or this machine did), or here and pushed before. A local branch
    that was never pushed is sent again instead: (its commit, how it was sent)."""
    remote = target.remote
    if remote is not None and repo.ref_exists(f"refs/remotes/{remote}/{branch}"):
        raise UserError(
            f"{what} is already proposed on {remote}/{branch} (pushed from another machine, or "
            "from this one): review and merge its pull request"
        )
    local = repo.rev_parse(f"refs/heads/{branch}^{{commit}}")
    if local is None:
        return None
    pushed_before = repo.config(f"branch.{branch}.remote") is not None
    if push and remote is not None and not pushed_before and not dry_run:
        title, _, body = repo.text("log", "-1", "--format=%B", local).partition("\n\n")
        review = send_for_review(
            repo, target=target, branch=branch, commit=local, title=title, body=body,
            patch_dir=patch_dir, push=True,
        )  # fmt: skip
        return local, review
    gone = " (its remote branch is gone: merged or closed)" if pushed_before else ""
    raise UserError(
        f"{what} is already proposed on branch {branch}{gone}; review and merge it, or "
        f"delete it (git branch -D {branch}) to start over"
    )


@dataclass(frozen=True)
class CitationFix:
    """One memory edited to follow the code: each (old, new) path replaced in its body and
    tags, as git's rename detection found them."""

    id: str
    title: str
    relpath: str
    moves: tuple[tuple[str, str], ...]
    # (cited commit, the commit a squash or rebase merge made of it, how: "squash-merged in #7")
    evidence: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class FixCitationsOutcome:
    """A citation-fix proposal: the edits, on which branch and commit (None with ``dry_run``
    or when nothing moved), how it was sent for review, and the brain's lint verdict after."""

    fixes: tuple[CitationFix, ...]
    stale_without_fix: tuple[str, ...]
    target: ReviewTarget
    branch: str
    commit: str | None
    review: ReviewRequest | None
    check: ProposalCheck | None
    notes: tuple[str, ...] = ()  # open proposals that edit or supersede an edited memory
    resent: tuple[ReviewRequest, ...] = ()  # other branches whose push failed, sent again
    unsent: tuple[str, ...] = ()  # other branches kept local on purpose, named

    def reviews(self) -> list[ReviewRequest]:
        """Every branch this run sent for review: its own, then the ones it sent again."""
        return ([self.review] if self.review else []) + list(self.resent)


def fix_citations_message(fixes: tuple[CitationFix, ...]) -> tuple[str, str]:
    """(title, body) of a citation-fix commit and its pull request: every edit, for review."""
    count = len(fixes)
    what = "moved code" if any(f.moves for f in fixes) else "merged evidence"
    title = (
        f"teambrain: follow {what} in {fixes[0].id} {fixes[0].title!r}"
        if count == 1
        else f"teambrain: follow {what} in {count} memories"
    )
    title = title if len(title) <= 100 else title[:99] + "…"
    lines = [
        "Memories whose cited paths moved, or whose evidence commits a squash or rebase merge "
        "rewrote, edited to cite where git says they went.",
        "",
    ]
    for fix in fixes:
        lines.append(f"- {fix.id}: {fix.title}")
        lines.append(f"  file: {fix.relpath}")
        lines.extend(f"  `{old}` -> `{new}`" for old, new in fix.moves)
        lines.extend(f"  evidence {old} -> {new} ({how})" for old, new, how in fix.evidence)
    lines += ["", "Review each edit: the code moved, but the memory may need more than a new path.",
              "", "Proposed with `tb propose --fix-citations`."]  # fmt: skip
    return title, "\n".join(lines) + "\n"


def _moved_text(text: str, moves: tuple[tuple[str, str], ...]) -> str:
    """``text`` with each cited path moved where it is written as a whole path: ``app.py``
    becomes ``main.py`` but ``webapp.py`` and ``app.py.bak`` stay; a folder's deeper paths
    (``src/shop/checkout/cart.py``) move with it; a ``./`` prefix is kept."""
    import re

    for old, new in moves:
        end = "" if old.endswith("/") else r"(?![\w/-]|\.\w)"
        pattern = re.compile(rf"(?<![\w/.-])(\./)?{re.escape(old)}{end}")
        text = pattern.sub(r"\g<1>" + new.replace("\\", r"\\"), text)  # an unmatched ./ is ""
    return text


def _edited_file(document: MemoryDocument, front: MemoryFrontMatter, body: str) -> str:
    """The memory file with the new body: the file's own bytes everywhere else (its front
    matter as written, no fields added) unless the front matter changed too."""
    original = document.original
    at = original.rfind(document.body) if original and document.body else -1
    if front == document.front and original is not None and at >= 0:
        rest = original[at + len(document.body) :]
        if not rest.strip():
            return original[:at] + body + rest
    text: str = serialise_memory(document.replace(front=front, body=body))
    return text


def propose_citation_fixes(
    repo: GitRepo,
    *,
    target: ReviewTarget,
    patch_dir: Path,
    dry_run: bool = False,
    push: bool = True,
) -> FixCitationsOutcome:
    """Every live memory at ``target``'s base citing a path git followed to a new place gets
    that path replaced (body and tags), and every evidence commit a squash or rebase merge
    rewrote replaced by the commit it became, on a new branch ``teambrain/fix-citations-<ulid>``,
    in one commit sent for review; nothing is rewritten in place. Stale citations git cannot
    follow (a deleted file, a missing symbol) are listed, not edited."""
    from teambrain_kit.citation_checker import CitationChecker
    from teambrain_schema.staleness import followed_evidence, stale_memories

    checker = CitationChecker(repo.root, commit=target.base.sha)
    sending = push and not dry_run and target.remote is not None
    with open_workspace(repo, target.base) as workspace:
        brain = workspace.load()
        stale = stale_memories(workspace.layout, brain=brain, checker=checker)
        rewritten: dict[str, list[tuple[str, str, str]]] = {}
        for note in followed_evidence(workspace.layout, brain=brain, checker=checker):
            fate = note.fate
            if fate.state == "rewritten" and fate.became:
                how = fate.how + (f" in {fate.pr}" if fate.pr else "")
                rewritten.setdefault(note.relpath, []).append((fate.sha, fate.became, how))
        fixes: list[CitationFix] = []
        unfixed = [
            f"{memory.relpath}: {stale_item.reason}"
            for memory in stale
            for stale_item, _ in memory.citations
            if not stale_item.moved_to
        ]
        by_path = {f.relpath: f for f in brain.files}
        moved = {
            memory.relpath: tuple(
                (s.citation.target, _as_written(s.citation.target, s.moved_to))
                for s, _ in memory.citations
                if s.moved_to
            )
            for memory in stale
        }
        for relpath in sorted(set(moved) | set(rewritten)):
            moves = moved.get(relpath, ())
            evidence = tuple(rewritten.get(relpath, ()))
            found = by_path.get(relpath)
            if not (moves or evidence) or found is None or found.document is None:
                continue
            document = found.document
            tags = [_moved_text(tag, tuple((o.rstrip("/"), n.rstrip("/")) for o, n in moves))
                    if tag.rstrip("/") in {o.rstrip("/") for o, _ in moves} else tag
                    for tag in document.front.tags]  # fmt: skip
            front = (
                document.front
                if tags == document.front.tags
                else document.front.model_copy(update={"tags": tags})
            )
            edited = _edited_file(document, front, _moved_text(document.body, moves))
            edited = _with_evidence(edited, evidence)
            workspace.write(relpath, edited)
            fixes.append(
                CitationFix(document.front.id, document.front.title, relpath, moves, evidence)
            )
        # Named after the edits: the same edits proposed twice are one branch.
        digest = hashlib.sha256(
            repr([(f.relpath, f.moves, f.evidence) if f.evidence else (f.relpath, f.moves)
                  for f in fixes]).encode()
        ).hexdigest()  # fmt: skip
        branch = f"{BRANCH_PREFIX}fix-citations-{digest[:12]}"
        if not fixes:
            return FixCitationsOutcome((), tuple(unfixed), target, branch, None, None, None)
        resent = _already_proposed(
            repo, target, branch, "the edit of these citations", push=push, dry_run=dry_run,
            patch_dir=patch_dir,
        )  # fmt: skip
        if resent is not None:  # committed here before, never pushed: send it now
            commit, review = resent
            others, kept = _send_others(
                repo, target, patch_dir, branch, sending=sending, review=review
            )
            return FixCitationsOutcome(
                tuple(fixes), tuple(unfixed), target, branch, commit, review, None, (),
                others, kept,
            )  # fmt: skip
        check = check_proposal(workspace)
        if check.own:
            raise ValidationFailure(f"{check.own[0].format()} (after following moved citations)")
        # An edit a teammate's open supersede would hide (issue 27 point 5), said for review.
        notes, _ = _open_work_on(
            repo, target, patch_dir, [f.id for f in fixes], refresh=False, tidy=False
        )
        if dry_run:
            return FixCitationsOutcome(
                tuple(fixes), tuple(unfixed), target, branch, None, None, check, tuple(notes)
            )
        title, body = fix_citations_message(tuple(fixes))
        if notes:
            body += "\nOpen proposals touching these memories:\n" + "".join(
                f"- {line}\n" for line in notes
            )
        commit = workspace.commit(branch, f"{title}\n\n{body}")
    review = send_for_review(
        repo, target=target, branch=branch, commit=commit, title=title, body=body,
        patch_dir=patch_dir, push=push,
    )  # fmt: skip
    others, kept = _send_others(repo, target, patch_dir, branch, sending=sending, review=review)
    return FixCitationsOutcome(
        tuple(fixes), tuple(unfixed), target, branch, commit, review, check, tuple(notes),
        others, kept,
    )  # fmt: skip


def _with_evidence(text: str, evidence: tuple[tuple[str, str, str], ...]) -> str:
    """``text`` (a memory file) with each cited evidence commit replaced, as a whole word and in
    the front matter only, by the commit it became; every other byte as it was."""
    import re

    if not evidence or not text.startswith("---"):
        return text
    end = text.find("\n---", 3)
    if end < 0:
        return text
    front = text[:end]
    for old, new, _how in evidence:
        front = re.sub(rf"(?<![0-9A-Za-z]){re.escape(old)}(?![0-9A-Za-z])", new, front)
    return front + text[end:]


def _as_written(old: str, new: str) -> str:
    """``new`` in the form ``old`` was cited: a trailing slash kept or left off, a
    ``./`` prefix kept."""
    out = new.rstrip("/") + ("/" if old.endswith("/") else "")
    return f"./{out}" if old.startswith("./") else out
