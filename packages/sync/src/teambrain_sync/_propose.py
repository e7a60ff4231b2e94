"""The propose service: candidates → checks → memory files on a proposal branch → review.

``tb propose`` and the MCP server's ``memory_propose`` both call it (the server only to check a
draft before it queues it).

Every candidate goes through the same gates, in order: already proposed? → schema and secret
scan → prompt-injection scan → content-hash identity (against the brain at the base, open
proposal branches, earlier proposals from this spool and this run) → near-duplicate guard
against live memories → lint of the memory file it would become. Survivors are written with
new ULIDs, and one commit on ``teambrain/propose-<ulid>`` holds them (and nothing else: not
INDEX.md, which the default branch regenerates after the merge, so proposals never conflict).

Exactly once, under faults: :func:`propose_candidates` holds the candidate ledger's lock from
reading each candidate's status to recording the outcome, so two ``tb propose`` of one candidate
at once make one proposal; and a candidate is recorded as proposed only once its branch exists
where it was sent (pushed, or local when there is nowhere to push). A proposal branch that was
committed but never pushed (a push that timed out, a killed ``tb``) is pushed again by the next
run instead of being taken for done.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from teambrain_schema import Candidate, MemoryDraft, UserError, ValidationFailure
from teambrain_schema.drafts import validate_draft
from teambrain_schema.injection import find_injections
from teambrain_schema.paths import BrainLayout

from ._branches import (
    CLOCK_SKEW_S,
    ProposalBranch,
    PullRequest,
    removed_memories,
    tidy_branches,
)
from ._git import GitRepo
from ._memories import (
    KnownMemory,
    NewMemory,
    OpenMemory,
    ProposalCheck,
    ProposalIndex,
    add_memory,
    check_proposal,
    known_memories,
    open_proposals,
)
from ._proposals import ProposedItem, proposal_message, propose_branch_name
from ._pulls import pull_requests
from ._review import (
    ReviewRequest,
    ReviewTarget,
    send_branches,
    send_for_review,
    unsent_branches,
)
from ._workspace import BrainWorkspace, open_workspace

Result = Literal["proposed", "would-propose", "already-proposed", "duplicate", "rejected"]
MAX_NOTE_CHARS = 500


def _cut(note: str) -> str:
    """``note`` as a candidate's note holds it (at most ``MAX_NOTE_CHARS``); cut with "…" and
    where the rest is, never silently (``tb propose <id> --dry-run`` says it in full)."""
    if len(note) <= MAX_NOTE_CHARS:
        return note
    tail = "… (`tb propose <id> --dry-run` says it all)"
    return note[: MAX_NOTE_CHARS - len(tail)] + tail


@dataclass(frozen=True)
class SimilarMemory:
    """A memory the near-duplicate guard found close to a draft: a live one, or one an open
    proposal branch adds (``branch`` set, and its pull request when known)."""

    id: str
    title: str
    path: str
    cosine: float | None
    fts_strength: float | None
    is_duplicate: bool
    branch: str | None = None
    pr: PullRequest | None = None

    def describe(self) -> str:
        scores = []
        if self.cosine is not None:
            scores.append(f"cosine {self.cosine:.2f}")
        if self.fts_strength is not None:
            scores.append(f"keywords {self.fts_strength:.2f}")
        where = ""
        if self.branch is not None:
            pr = f" PR #{self.pr.number} {self.pr.url}".rstrip() if self.pr else ""
            where = f" proposed on branch {self.branch}{pr}"
        return f"{self.id} {self.title!r}{where} ({', '.join(scores) or 'similar'})"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "path": self.path,
            "cosine": self.cosine,
            "fts_strength": self.fts_strength,
            "is_duplicate": self.is_duplicate,
            "branch": self.branch,
            "pr": self.pr.to_json() if self.pr else None,
        }


# layout of the brain at the base, its commit, drafts, the memories open proposals add → for
# each draft the similar memories (live ones, and open proposals' with their branch set)
NearDuplicateGuard = Callable[
    [BrainLayout, str, Sequence[MemoryDraft], Sequence[OpenMemory]], list[list[SimilarMemory]]
]


@dataclass
class Outcome:
    """What happened to one candidate."""

    candidate: Candidate
    result: Result
    rule: str | None = None  # why it was not proposed: schema, secret, injection, duplicate, …
    reason: str | None = None
    memory_id: str | None = None
    path: str | None = None
    branch: str | None = None
    similar: list[SimilarMemory] = field(default_factory=list)
    # Citations the base does not bear out: the memory would be stale the day it merges.
    stale: list[str] = field(default_factory=list)
    # What the reviewer and the proposer should know: an earlier, closed proposal of the same
    # content; an open branch that edits a memory this one supersedes.
    notes: list[str] = field(default_factory=list)

    @property
    def shown_title(self) -> str:
        """The draft's title as reports print it: a secret in it (why it was rejected, often)
        is never printed back."""
        from teambrain_schema.secrets import redact_secrets

        return redact_secrets(self.candidate.draft.title)

    @property
    def failed(self) -> bool:
        """A rejection the user must act on (duplicates and repeats are not failures)."""
        return self.result == "rejected"

    def to_json(self) -> dict[str, object]:
        return {
            "candidate_id": self.candidate.candidate_id,
            "title": self.shown_title,
            "class": self.candidate.draft.class_,
            "result": self.result,
            "rule": self.rule,
            "reason": self.reason,
            "memory_id": self.memory_id,
            "path": self.path,
            "branch": self.branch,
            "similar": [s.to_json() for s in self.similar],
            "stale": list(self.stale),
            "notes": list(self.notes),
        }


@dataclass
class ProposeRun:
    """A whole ``tb propose``: the base, each candidate's outcome and the proposal made."""

    target: ReviewTarget
    outcomes: list[Outcome]
    dry_run: bool
    branch: str | None = None
    commit: str | None = None
    review: ReviewRequest | None = None
    inherited_problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Proposal branches of an earlier run (of any verb) that were committed but not pushed,
    # sent again; and those kept local on purpose (--no-push), named.
    resent: list[ReviewRequest] = field(default_factory=list)
    unsent: list[str] = field(default_factory=list)
    # Every proposal branch of the base and what became of it; the local ones tidied away.
    branches: list[ProposalBranch] = field(default_factory=list)
    tidied: list[ProposalBranch] = field(default_factory=list)

    def reviews(self) -> list[ReviewRequest]:
        """Every branch this run sent for review: its own, then the ones it sent again."""
        return ([self.review] if self.review else []) + self.resent

    def push_errors(self) -> list[str]:
        """One line per branch whose push failed."""
        return [f"{r.branch}: {r.push_error}" for r in self.reviews() if r.push_error is not None]

    def pr_errors(self) -> list[str]:
        """One line per pushed branch whose pull request ``gh`` failed to open."""
        return [f"{r.branch}: {r.pr_error}" for r in self.reviews() if r.pr_failed]


class CandidateLedger(Protocol):
    """Where candidates live and their status is recorded (the capture spool on this machine)."""

    def hold(self) -> AbstractContextManager[object]:
        """An exclusive lock over proposing: one propose at a time per machine."""
        ...

    def reload(self, candidate: Candidate) -> Candidate:
        """The candidate as stored now (its status may have changed since it was listed)."""
        ...

    def save(self, candidate: Candidate) -> None:
        """Record a changed candidate."""
        ...


def _injection_reason(draft: MemoryDraft) -> str | None:
    for name, text in (
        ("title", draft.title),
        ("body", draft.body),
        ("tags", " ".join(draft.tags)),
    ):
        findings = find_injections(text)
        if findings:
            first = findings[0]
            where = f"{name} line {first.line}" if name == "body" else name
            return f"{first.rule} in {where}: {first.excerpt!r}"
    return None


def _identity_reason(known: KnownMemory) -> tuple[Result, str]:
    if known.status == "active":
        return "duplicate", f"same content as live memory {known.id} ({known.relpath})"
    if known.status == "retired":
        return "duplicate", f"same content as retired memory {known.id}; it was retired on purpose"
    return "already-proposed", f"already proposed as {known.id} {known.on_branch()}"


def _closed_note(known: KnownMemory, then: str = "proposed again for review") -> str:
    return f"the same content was proposed before as {known.id} {known.on_branch()}; {then}"


def _proposed_elsewhere(
    candidates: Sequence[Candidate], spool: Sequence[Candidate]
) -> dict[str, Candidate]:
    """Content hash → a different candidate of the spool already proposed with that content."""
    selected = {c.candidate_id for c in candidates}
    return {
        c.content_hash: c
        for c in spool
        if c.status == "proposed" and c.proposed_as and c.candidate_id not in selected
    }


@dataclass(frozen=True)
class DraftVerdict:
    """What the propose gates would say about one draft before it is queued."""

    draft: MemoryDraft
    injection: str | None = None  # why it looks like a prompt injection
    holder: KnownMemory | None = None  # a memory that already holds exactly this content
    closed: KnownMemory | None = None  # a closed proposal of the same content
    edited: tuple[str, ...] = ()  # open branches editing a memory this draft supersedes

    def note(self) -> str | None:
        """One line for the agent that proposed it, or None when nothing stands in the way."""
        if self.injection:
            return f"looks like a prompt injection: {self.injection}"
        if self.holder is not None:
            return _identity_reason(self.holder)[1] + "; `tb propose` will skip it"
        lines = list(self.edited)
        if self.closed is not None:
            lines.append(_closed_note(self.closed, "`tb propose` will propose it again"))
        return "; ".join(lines) or None


def draft_citation_problems(
    repo_root: Path, draft: MemoryDraft, *, commit: str | None = None
) -> list[str]:
    """Why ``draft`` would be stale the day it merges: one line per cited path, glob, symbol,
    ``make`` target, script or evidence commit that the repository at ``commit`` (default: its
    working tree) does not bear out. Empty when every citation holds, or without git."""
    from teambrain_schema.citation_checker import CitationChecker
    from teambrain_schema.citations import extract_citations

    commits = draft.evidence.commits if draft.evidence else []
    checker = CitationChecker(repo_root, commit=commit)
    # The checker speaks of memories that once held ("no longer", "any more"); a draft is new.
    return [
        stale.reason.replace(" no longer exists", " does not exist")
        .replace(" no longer appears in ", " does not appear in ")
        .replace(" any more", "")
        for stale in checker.check(extract_citations(draft.body, commits))
    ]


def check_draft(
    repo: GitRepo | None,
    layout: BrainLayout,
    draft: MemoryDraft | dict[str, object],
    *,
    pulls: Mapping[str, PullRequest] | None = None,
    known: Mapping[str, KnownMemory] | None = None,
    proposals: ProposalIndex | None = None,
) -> DraftVerdict:
    """The gates of :func:`run_propose` a draft can be judged by on its own, against the brain
    in the checkout at ``layout`` and the proposal branches of ``repo`` (when known; ``pulls``:
    their pull requests as last seen, no network): schema and secrets (raises
    :class:`ValidationFailure`), prompt injection, identical content (open proposals block it,
    a closed one is named). Near-duplicates and lint are judged by ``tb propose``.

    Judging many drafts at once, pass what they share, worked out once: ``known``
    (:func:`known_memories` of the checkout's brain) and ``proposals`` (:func:`open_proposals`
    of ``repo`` at its HEAD); otherwise each call reads the brain and the branches itself."""
    from teambrain_schema.brain import load_brain

    valid = validate_draft(draft)
    injection = _injection_reason(valid)
    if injection:
        return DraftVerdict(valid, injection=injection)
    digest = valid.content_hash()
    if known is None:
        known = known_memories(load_brain(layout))
    holder = known.get(digest)
    if holder is not None or repo is None:
        return DraftVerdict(valid, holder=holder)
    if proposals is None:
        head = repo.head()
        if head is None:
            return DraftVerdict(valid)
        proposals = open_proposals(repo, head, pulls)
    return DraftVerdict(
        valid, holder=proposals.open.get(digest), closed=proposals.closed.get(digest),
        edited=tuple(_hidden_edits(valid, proposals)),
    )  # fmt: skip


def _hidden_edits(draft: MemoryDraft, proposals: ProposalIndex) -> list[str]:
    """A line for each open branch that edits a memory ``draft`` supersedes: once both merge,
    that edit is never served (issue 27 point 5)."""
    return [
        f"supersedes {memory_id}, which branch {branch.name} ({branch.describe()}) edits: once "
        "both merge, that edit is never served — fold it into this memory"
        for memory_id in draft.supersedes
        for branch in proposals.edits.get(memory_id, [])
    ]


def propose_candidates(
    candidates: Sequence[Candidate],
    *,
    repo: GitRepo,
    target: ReviewTarget,
    ledger: CandidateLedger,
    patch_dir: Path,
    spool: Sequence[Candidate] = (),
    dry_run: bool = False,
    push: bool = True,
    allow_similar: bool = False,
    guard: NearDuplicateGuard | None = None,
    today: dt.date | None = None,
    strict_citations: bool = False,
    removals: Sequence[str] = (),
) -> ProposeRun:
    """The whole of ``tb propose``: under the ledger's lock, re-read each candidate, run the
    gates, commit and send the survivors (see :func:`run_propose`), and record every outcome
    (see :func:`record_outcomes`). ``removals``: brain files the proposal removes in the same
    commit (the notes its memories promote), when any candidate is proposed."""
    with ledger.hold():
        fresh = [ledger.reload(c) for c in candidates]
        by_id = {c.candidate_id: c for c in fresh}
        spool = [by_id.get(c.candidate_id) or ledger.reload(c) for c in spool]
        run = run_propose(
            fresh, repo=repo, target=target, patch_dir=patch_dir, spool=spool,
            dry_run=dry_run, push=push, allow_similar=allow_similar, guard=guard, today=today,
            strict_citations=strict_citations, removals=removals,
        )  # fmt: skip
        record_outcomes(run, ledger)
    return run


def run_propose(
    candidates: Sequence[Candidate],
    *,
    repo: GitRepo,
    target: ReviewTarget,
    patch_dir: Path,
    spool: Sequence[Candidate] = (),
    dry_run: bool = False,
    push: bool = True,
    allow_similar: bool = False,
    guard: NearDuplicateGuard | None = None,
    today: dt.date | None = None,
    strict_citations: bool = False,
    removals: Sequence[str] = (),
) -> ProposeRun:
    """Check ``candidates`` and, unless ``dry_run``, commit the survivors on a new proposal
    branch (removing ``removals`` from the brain in the same commit) and send it for review. Candidates are not marked here (see :func:`record_outcomes`;
    :func:`propose_candidates` does both under a lock)."""
    run = ProposeRun(target=target, outcomes=[], dry_run=dry_run)
    sending = push and target.remote is not None and not dry_run
    unsent: dict[str, list[Outcome]] = {}
    elsewhere = _proposed_elsewhere(candidates, spool)
    # gh is asked only by a run that reaches the remote anyway; others read its last answer.
    pulls = pull_requests(repo, patch_dir, refresh=sending)
    proposals = open_proposals(repo, target.base.sha, pulls)
    pending = proposals.open
    run.branches = proposals.branches
    if not dry_run:
        run.tidied = tidy_branches(repo, proposals.branches)
    with open_workspace(repo, target.base) as workspace:
        known = known_memories(workspace)
        reverted = _reverted_proposals(repo, target, candidates, workspace, proposals)
        seen: dict[str, Candidate] = {}
        survivors: list[Outcome] = []
        for candidate in candidates:
            outcome = Outcome(candidate, "rejected")
            run.outcomes.append(outcome)
            draft = candidate.draft
            revert = reverted.get(candidate.candidate_id)
            if revert is not None:  # merged once, taken out since: the proposal is over
                outcome.notes.append(revert)
            elif candidate.status == "proposed":
                outcome.result, outcome.rule = "already-proposed", "proposed"
                outcome.memory_id = candidate.proposed_as
                outcome.reason = f"already proposed as {candidate.proposed_as}" + (
                    f" ({candidate.note})" if candidate.note else ""
                )
                continue
            try:
                validate_draft(draft)
            except ValidationFailure as exc:
                outcome.rule = "secret" if "secret" in exc.message else "schema"
                outcome.reason = exc.message
                continue
            injection = _injection_reason(draft)
            if injection:
                outcome.rule, outcome.reason = (
                    "injection",
                    f"looks like a prompt injection: {injection}",
                )
                continue
            digest = draft.content_hash()
            holder = known.get(digest) or pending.get(digest)
            if holder is not None and holder.local_only and holder.branch and sending:
                # Committed by an earlier run that never got it to the remote: send it now.
                outcome.result, outcome.rule = "proposed", None
                outcome.memory_id, outcome.path = holder.id, holder.relpath
                outcome.branch = holder.branch
                outcome.reason = f"sending branch {holder.branch} again (it was never pushed)"
                unsent.setdefault(holder.branch, []).append(outcome)
                continue
            if holder is not None:
                outcome.result, outcome.reason = _identity_reason(holder)
                outcome.rule = "duplicate" if outcome.result == "duplicate" else "proposed"
                outcome.memory_id, outcome.branch = holder.id, holder.branch
                continue
            if digest in proposals.closed:  # rejected in review once: say so, do not block
                outcome.notes.append(_closed_note(proposals.closed[digest]))
            outcome.notes.extend(_hidden_edits(draft, proposals))
            earlier = seen.get(digest) or elsewhere.get(digest)
            if earlier is not None:
                outcome.result, outcome.rule = "duplicate", "duplicate"
                outcome.memory_id = earlier.proposed_as
                outcome.reason = f"same content as candidate {earlier.candidate_id}" + (
                    f", proposed as {earlier.proposed_as}"
                    if earlier.proposed_as
                    else " in this run"
                )
                continue
            seen[digest] = candidate
            survivors.append(outcome)
        _guard_near_duplicates(
            survivors, workspace.layout, target, guard, allow_similar,
            proposed=proposals.memories,
        )  # fmt: skip
        _check_citations(survivors, repo, target, strict_citations)
        accepted = [o for o in survivors if o.rule is None]
        items = {
            o.candidate.candidate_id: add_memory(workspace, o.candidate.draft, today=today)
            for o in accepted
        }
        if accepted:
            for relpath in removals:  # the notes these memories promote (docs/graph.md#notes)
                if workspace.read(relpath) is None:
                    raise UserError(
                        f"{relpath}: not in the brain at {target.base.requested}: nothing to promote"
                    )
                workspace.remove(relpath)
            check = _lint_and_drop_failures(accepted, items, workspace)
            accepted = [o for o in accepted if o.rule is None]
            run.inherited_problems = [v.format() for v in check.inherited]
            run.warnings = [v.format() for v in check.warnings]
        for outcome in accepted:
            memory = items[outcome.candidate.candidate_id]
            outcome.result = "would-propose" if dry_run else "proposed"
            outcome.memory_id, outcome.path = memory.id, memory.relpath
        if dry_run or not accepted:
            run.resent = _send_again(repo, target, unsent, patch_dir, run, sending=sending)
            return run
        proposed = [
            ProposedItem(
                items[o.candidate.candidate_id],
                o.candidate.draft,
                notes=_reviewer_notes(o),
            )
            for o in accepted
        ]
        title, body = proposal_message(proposed, target.base.requested, target.base.sha)
        if removals:
            body += "\nPromoted from notes, removed here:\n" + "".join(f"- {p}\n" for p in removals)
        branch = propose_branch_name()
        run.commit = workspace.commit(branch, f"{title}\n\n{body}")
        run.branch = branch
    for outcome in accepted:
        outcome.branch = branch
    run.review = send_for_review(
        repo, target=target, branch=branch, commit=run.commit, title=title, body=body,
        patch_dir=patch_dir, push=push,
    )  # fmt: skip
    run.resent = _send_again(repo, target, unsent, patch_dir, run, sending=sending)
    return run


def _reverted_proposals(
    repo: GitRepo,
    target: ReviewTarget,
    candidates: Sequence[Candidate],
    workspace: BrainWorkspace,
    proposals: ProposalIndex,
) -> dict[str, str]:
    """Candidate id → a note, for each candidate marked proposed whose memory the base held
    once and holds no more — its merge reverted (``git revert``) or its file deleted — and no
    open proposal adds: the proposal state follows what the default branch holds now, so it
    is proposed again (one ``git log``, only when a candidate marked proposed is named)."""
    marked = {
        c.candidate_id: c.proposed_as for c in candidates
        if c.status == "proposed" and c.proposed_as
    }  # fmt: skip
    if not marked:
        return {}
    brain = workspace.load()
    present = {f.document.front.id for f in brain.files if f.document is not None}
    held = {m.id for m in proposals.open.values()}
    wanted = {c: m for c, m in marked.items() if m not in present and m not in held}
    if not wanted:
        return {}
    oldest = min(c.created for c in candidates if c.candidate_id in wanted)
    since = int(oldest.timestamp()) - CLOCK_SKEW_S
    removed = removed_memories(repo, target.base.sha, since=since, present=present)
    base = target.base.requested
    return {
        candidate_id: f"memory {memory_id} was merged, then taken out of {base} (commit "
        f"{removed[memory_id][:12]}, a revert?): proposed again as a new memory"
        for candidate_id, memory_id in wanted.items()
        if memory_id in removed
    }


def _send_again(
    repo: GitRepo,
    target: ReviewTarget,
    unsent: dict[str, list[Outcome]],
    patch_dir: Path,
    run: ProposeRun,
    *,
    sending: bool,
) -> list[ReviewRequest]:
    """Push each proposal branch an earlier run committed but did not get to the remote: the
    ones holding these candidates, and — whichever verb made them (a retirement, a citation
    fix) — every other one whose push failed; name the ones kept local on purpose."""
    for branch, outcomes in unsent.items():
        if repo.rev_parse(f"refs/heads/{branch}^{{commit}}") is None:
            # deleted meanwhile: the candidates stay pending for the next run
            for outcome in outcomes:
                outcome.result, outcome.rule = "rejected", "proposed"
                outcome.reason = f"branch {branch} disappeared while proposing; run it again"
    names = [b for b in unsent if repo.rev_parse(f"refs/heads/{b}^{{commit}}") is not None]
    if sending and not (run.review is not None and run.review.push_error is not None):
        failed, kept = unsent_branches(repo, run.branches)
        names += [b for b in failed if b not in names and b != run.branch]
        run.unsent = [b for b in kept if b not in names and b != run.branch]
    return send_branches(repo, target, names, patch_dir)


def _check_citations(
    survivors: list[Outcome], repo: GitRepo, target: ReviewTarget, strict: bool
) -> None:
    """Each draft's citations against the base: what the base lacks is a warning the reviewer
    sees, or with ``strict`` a rejection."""
    for outcome in survivors:
        if outcome.rule is not None:
            continue
        outcome.stale = draft_citation_problems(
            repo.root, outcome.candidate.draft, commit=target.base.sha
        )
        if outcome.stale and strict:
            outcome.rule = "citations"
            outcome.reason = (
                f"stale at birth ({target.base.requested} lacks what it cites): "
                + "; ".join(outcome.stale)
                + ": fix the draft, or propose without --strict-citations"
            )


def _reviewer_notes(outcome: Outcome) -> tuple[str, ...]:
    candidate = outcome.candidate
    notes = [f"from: candidate {candidate.candidate_id} ({candidate.proposer})"]
    notes.extend(f"note: {note}" for note in outcome.notes)
    if outcome.stale:
        notes.append("cites what the base does not have (stale the day it merges):")
        notes.extend(f"  {reason}" for reason in outcome.stale)
    if outcome.similar:
        notes.append("similar memories (proposed with --allow-similar):")
        notes.extend(f"  {s.describe()}" for s in outcome.similar)
    return tuple(notes)


def _guard_near_duplicates(
    survivors: list[Outcome],
    layout: BrainLayout,
    target: ReviewTarget,
    guard: NearDuplicateGuard | None,
    allow_similar: bool,
    *,
    proposed: Sequence[OpenMemory] = (),
) -> None:
    if guard is None or not survivors:
        return
    found = guard(layout, target.base.sha, [o.candidate.draft for o in survivors], proposed)
    for outcome, similar in zip(survivors, found, strict=True):
        superseded = set(outcome.candidate.draft.supersedes)
        matches = [s for s in similar if s.is_duplicate and s.id not in superseded]
        if not matches:
            continue
        outcome.similar = matches
        if allow_similar:
            continue
        outcome.rule = "near-duplicate"
        outcome.reason = (
            "near-duplicate of "
            + "; ".join(s.describe() for s in matches)
            + ": edit that memory instead, supersede it, or pass --allow-similar"
            + (" (or review the open pull request)" if any(s.branch for s in matches) else "")
        )


def _lint_and_drop_failures(
    accepted: list[Outcome], items: dict[str, NewMemory], workspace: BrainWorkspace
) -> ProposalCheck:
    """Lint; a new memory file with an error rejects its candidate and leaves the proposal, and
    the rest is checked again. Only the proposal's own files can fail."""
    while True:
        check = check_proposal(workspace)
        dropped = False
        for outcome in accepted:
            memory = items[outcome.candidate.candidate_id]
            problems = [v for v in check.own if v.path == memory.relpath]
            if problems and outcome.rule is None:
                outcome.rule = problems[0].rule
                outcome.reason = f"lint: {problems[0].rule}: {problems[0].message}"
                workspace.discard(memory.relpath)
                dropped = True
        if not dropped:
            break
    if not check.ok:  # only new memory files changed, so this is a bug worth stopping for
        raise ValidationFailure(f"proposal does not lint: {check.own[0].format()}")
    return check


def record_outcomes(run: ProposeRun, ledger: CandidateLedger) -> None:
    """Record each outcome in the ledger so a second ``tb propose`` does nothing for it:
    proposed (with ``proposed_as``) once its branch exists where it was sent, rejected (with the
    reason) for duplicates and failures. A candidate whose branch did not reach the remote stays
    pending, with a note, and the next run sends that branch again."""
    if run.dry_run:
        return
    failed = {r.branch: r.push_error for r in run.reviews() if r.push_error is not None}
    for outcome in run.outcomes:
        candidate = outcome.candidate
        update: dict[str, object]
        if outcome.result in ("proposed", "already-proposed") and outcome.memory_id:
            if outcome.result == "proposed" and outcome.branch in failed:
                update = {
                    "status": "pending",
                    "note": _cut(
                        f"committed on branch {outcome.branch} but not pushed "
                        f"({failed[outcome.branch]}); `tb propose` sends it again"
                    ),
                }
            else:
                where = f"on branch {outcome.branch}" if outcome.branch else None
                update = {"status": "proposed", "proposed_as": outcome.memory_id, "note": where}
        elif outcome.result in ("duplicate", "rejected"):
            if outcome.rule == "proposed":  # a branch vanished mid-run: try again next time
                continue
            update = {"status": "rejected", "note": _cut(outcome.reason or "")}
        else:
            continue
        changed = candidate.model_copy(update=update)
        if changed != candidate:
            ledger.save(changed)
