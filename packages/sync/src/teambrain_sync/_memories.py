"""What a proposal changes in a brain: new memory files and retirements, and the checks that
keep one piece of content from ever becoming two memories.

A proposal never touches ``INDEX.md``: every proposal that edits one generated file collides
with every other one opened on the same base, whatever the merge style (the towncrier way: the
memory files are the fragments, and the default branch regenerates the index after each merge).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from teambrain_kit.injection import find_injections
from teambrain_kit.secrets import find_secrets
from teambrain_schema import MemoryDraft, MemoryFrontMatter, UserError, content_hash
from teambrain_schema.brain import Brain
from teambrain_schema.frontmatter import (
    FrontMatterError,
    MemoryDocument,
    new_memory_text,
    parse_memory,
    serialise_memory,
)
from teambrain_schema.ids import is_ulid, new_ulid
from teambrain_schema.lint import LintReport, Violation, lint_brain
from teambrain_schema.slugs import slugify

from ._branches import ProposalBranch, PullRequest, all_branches
from ._git import GitRepo
from ._snapshot import read_blobs
from ._workspace import BrainWorkspace

MAX_REASON_CHARS = 300


@dataclass(frozen=True)
class KnownMemory:
    """A memory that already holds some content: where, and whether it is still served."""

    id: str
    title: str
    relpath: str
    status: str  # active | retired | proposed
    branch: str | None = None  # for proposed: the proposal branch
    # For proposed: the branch exists only here (no remote-tracking copy): it was never pushed,
    # or the push did not finish.
    local_only: bool = False
    # For proposed: what became of its branch (open, unpushed, closed) and its pull request.
    state: str | None = None
    pr: PullRequest | None = None
    where: str = ""  # e.g. "open: PR #7 https://…"

    def on_branch(self) -> str:
        """``on branch teambrain/propose-… (open: PR #7 https://…)``."""
        return f"on branch {self.branch}" + (f" ({self.where})" if self.where else "")


@dataclass(frozen=True)
class OpenMemory:
    """A memory an open proposal branch adds: who holds it, and its text (for the
    near-duplicate guard) and the ids it supersedes."""

    memory: KnownMemory
    title: str
    body: str
    supersedes: tuple[str, ...]


@dataclass
class ProposalIndex:
    """The proposal branches of a base and what they bring: memories of open branches (by
    content hash), memories of closed ones, and which open branches edit or supersede each
    live memory."""

    branches: list[ProposalBranch] = field(default_factory=list)
    open: dict[str, KnownMemory] = field(default_factory=dict)
    closed: dict[str, KnownMemory] = field(default_factory=dict)
    memories: list[OpenMemory] = field(default_factory=list)
    edits: dict[str, list[ProposalBranch]] = field(default_factory=dict)  # memory id → branches

    def counts(self) -> dict[str, int]:
        """How many branches are in each state."""
        counts = {"open": 0, "unpushed": 0, "merged": 0, "closed": 0}
        for branch in self.branches:
            counts[branch.state] += 1
        return counts

    def superseding(self, memory_id: str) -> list[OpenMemory]:
        """The open proposals' memories that supersede ``memory_id``."""
        return [m for m in self.memories if memory_id in m.supersedes]


@dataclass(frozen=True)
class NewMemory:
    """A memory file a proposal adds."""

    id: str
    title: str
    memory_class: str
    relpath: str
    content_hash: str


@dataclass(frozen=True)
class Retirement:
    """A memory a proposal retires: moved from ``old_relpath`` to ``new_relpath``."""

    id: str
    title: str
    old_relpath: str
    new_relpath: str
    reason: str


@dataclass
class ProposalCheck:
    """Lint of a workspace split by blame: errors in files the proposal changed, and errors
    the base brain already had (reported, not the proposal's fault)."""

    own: list[Violation] = field(default_factory=list)
    inherited: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.own


def known_memories(workspace: BrainWorkspace | Brain) -> dict[str, KnownMemory]:
    """Content hash → the memory holding that content, over active and retired files (of a
    proposal workspace, or of a brain read from a checkout)."""
    known: dict[str, KnownMemory] = {}
    brain = workspace if isinstance(workspace, Brain) else workspace.load()
    for brain_file in brain.files:
        document = brain_file.document
        if document is None:
            continue
        front = document.front
        digest = content_hash(front.class_, front.title, document.body, list(front.tags))
        status = "retired" if brain_file.location == "retired" else front.status
        current = known.get(digest)
        if current is None or (current.status != "active" and status == "active"):
            known[digest] = KnownMemory(front.id, front.title, brain_file.relpath, status)
    return known


def open_proposals(
    repo: GitRepo, base_sha: str, pulls: Mapping[str, PullRequest] | None = None
) -> ProposalIndex:
    """What the proposal branches bring that the base does not hold yet (see
    :func:`proposal_branches` for how a branch is judged merged, closed, open or unpushed),
    and the edits of memories on any branch of a remote: one ``git for-each-ref``,
    ``ls-tree``, ``log`` and ``cat-file`` whatever their number."""
    everything = all_branches(repo, base_sha, pulls)
    index = ProposalIndex(branches=[b for b in everything if b.proposal])
    wanted = [
        (branch, change) for branch in everything if branch.state != "merged"
        for change in branch.pending if change.folder == "memories"
    ]  # fmt: skip
    added = [(b, c) for b, c in wanted if c.status == "A" and b.proposal]
    documents = _documents(repo, [c.blob for _, c in added])
    for branch, change in added:
        document = documents.get(change.blob)
        if document is None:
            continue
        front = document.front
        known = KnownMemory(
            front.id, front.title, change.path, "proposed", branch.name,
            local_only=branch.state == "unpushed", state=branch.state, pr=branch.pr,
            where=branch.describe(),
        )  # fmt: skip
        digest = content_hash(front.class_, front.title, document.body, list(front.tags))
        if branch.state == "closed":
            index.closed.setdefault(digest, known)
            continue
        index.open.setdefault(digest, known)
        index.memories.append(
            OpenMemory(known, front.title, document.body, tuple(front.supersedes))
        )
    for branch, change in wanted:
        if change.status == "M" and branch.state != "closed" and change.memory_id:
            index.edits.setdefault(change.memory_id, []).append(branch)
    return index


# Parsed memory files of proposal branches by blob id: a blob never changes, so a running
# server (memory_propose on every call) reads and parses each one once.
_parsed: dict[str, MemoryDocument | None] = {}
_PARSED_MAX = 4096


def _documents(repo: GitRepo, blobs: list[str]) -> dict[str, MemoryDocument | None]:
    missing = sorted({b for b in blobs if b not in _parsed})
    if len(_parsed) + len(missing) > _PARSED_MAX:
        _parsed.clear()
    for blob, data in zip(missing, read_blobs(repo, missing), strict=True):
        _parsed[blob] = _parse(data)
    return {b: _parsed.get(b) for b in blobs}


def _parse(data: bytes | None) -> MemoryDocument | None:
    if data is None:
        return None
    try:
        return parse_memory(data.decode("utf-8"))
    except (FrontMatterError, UnicodeDecodeError):
        return None


def pending_proposals(
    repo: GitRepo, base_sha: str, pulls: Mapping[str, PullRequest] | None = None
) -> dict[str, KnownMemory]:
    """Content hash → memory added by an open (or not yet pushed) proposal branch, local or
    remote-tracking, that the base does not hold yet (see :func:`open_proposals`)."""
    return open_proposals(repo, base_sha, pulls).open


def add_memory(
    workspace: BrainWorkspace, draft: MemoryDraft, *, today: dt.date | None = None
) -> NewMemory:
    """Write ``draft`` into the workspace as a new active memory with a fresh ULID and slug."""
    memory_id = new_ulid()
    front = MemoryFrontMatter.model_validate(
        {
            "id": memory_id,
            "class": draft.class_,
            "scope": draft.scope,
            "status": "active",
            "priority": draft.priority,
            "title": draft.title,
            "created": today or dt.datetime.now(dt.UTC).date(),
            "evidence": draft.evidence,
            "supersedes": list(draft.supersedes),
            "tags": list(draft.tags),
            "ttl_days": draft.ttl_days,
        }
    )
    path = workspace.layout.memory_path(draft.class_, memory_id, slugify(draft.title))
    relpath = workspace.layout.relative(path)
    workspace.write(relpath, new_memory_text(front, draft.body))
    return NewMemory(memory_id, draft.title, draft.class_, relpath, draft.content_hash())


def clean_reason(reason: str) -> str:
    """A retirement reason as recorded: one line, at most 300 characters, no secrets and no
    text aimed at agents (it goes into the commit message and INDEX.md)."""
    text = " ".join(reason.split())
    if not text:
        raise UserError("reason: give a reason for retiring the memory")
    if len(text) > MAX_REASON_CHARS:
        raise UserError(f"reason: {len(text)} characters; the limit is {MAX_REASON_CHARS}")
    secrets = find_secrets(text)
    if secrets:
        raise UserError(f"reason: contains a secret ({secrets[0].rule}); remove it")
    injections = find_injections(text)
    if injections:
        raise UserError(f"reason: looks like a prompt injection ({injections[0].rule})")
    return text


def retire_memory(workspace: BrainWorkspace, memory_id: str, reason: str) -> Retirement:
    """Move memory ``memory_id`` to ``retired/`` with ``status: retired`` (comments and key
    order kept, nothing else changed); unknown or already retired ids are a
    :class:`UserError`. ``reason`` is checked and returned for the commit message."""
    if not is_ulid(memory_id):
        raise UserError(f"{memory_id!r} is not a memory id (a 26-character ULID)")
    reason = clean_reason(reason)
    brain = workspace.load()
    found = next(
        (f for f in brain.files if f.document is not None and f.document.front.id == memory_id),
        None,
    )
    where = workspace.base.requested
    if found is None or found.document is None:
        raise UserError(f"no memory {memory_id} in the brain at {where}")
    if found.location == "retired":
        raise UserError(f"memory {memory_id} is already retired ({found.relpath})")
    document = found.document
    retired_front = document.front.model_copy(update={"status": "retired"})
    text = serialise_memory(document.replace(front=retired_front))
    name = PurePosixPath(found.relpath).name
    new_relpath = workspace.layout.relative(workspace.layout.retired / name)
    if workspace.read(new_relpath) is not None:
        raise UserError(f"{new_relpath} already exists; cannot retire {memory_id} onto it")
    workspace.remove(found.relpath)
    # The retired file is the memory with `status: retired` and nothing else, so two
    # retirements of one memory (from two machines) make the same file and merge cleanly; the
    # reason goes in the commit message, where INDEX.md's regeneration finds it.
    workspace.write(new_relpath, text)
    return Retirement(memory_id, document.front.title, found.relpath, new_relpath, reason)


def check_proposal(workspace: BrainWorkspace) -> ProposalCheck:
    """Lint the workspace and blame each error on the proposal or on the base brain."""
    report: LintReport = lint_brain(workspace.layout, brain=workspace.load())
    check = ProposalCheck()
    changed = set(workspace.changes)
    for violation in report.violations:
        if violation.severity != "error":
            check.warnings.append(violation)
        elif violation.path in changed:
            check.own.append(violation)
        else:
            check.inherited.append(violation)
    return check
