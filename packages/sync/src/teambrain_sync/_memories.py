"""What a proposal changes in a brain: new memory files and retirements, and the checks that
keep one piece of content from ever becoming two memories.

A proposal never touches ``INDEX.md``: every proposal that edits one generated file collides
with every other one opened on the same base, whatever the merge style (the towncrier way: the
memory files are the fragments, and the default branch regenerates the index after each merge).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from teambrain_schema import BRAIN_DIRNAME, MemoryDraft, MemoryFrontMatter, UserError, content_hash
from teambrain_schema.brain import Brain
from teambrain_schema.frontmatter import (
    FrontMatterError,
    new_memory_text,
    parse_memory,
    serialise_memory,
)
from teambrain_schema.ids import is_ulid, new_ulid
from teambrain_schema.injection import find_injections
from teambrain_schema.lint import LintReport, Violation, lint_brain
from teambrain_schema.secrets import find_secrets
from teambrain_schema.slugs import slugify

from ._git import GitRepo
from ._snapshot import read_blobs
from ._workspace import PROPOSAL_REF_PREFIX, BrainWorkspace

MAX_REASON_CHARS = 300


@dataclass(frozen=True)
class KnownMemory:
    """A memory that already holds some content: where, and whether it is still served."""

    id: str
    title: str
    relpath: str
    status: str  # active | retired | proposed
    branch: str | None = None  # for proposed: the open proposal branch
    # For proposed: the branch exists only here (no remote-tracking copy): it was never pushed,
    # or the push did not finish.
    local_only: bool = False


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


def pending_proposals(repo: GitRepo, base_sha: str) -> dict[str, KnownMemory]:
    """Content hash → memory added by an open proposal branch (local ``teambrain/*`` branches
    and their remote-tracking copies) that the base does not contain yet."""
    out = repo.text(  # --no-merged: one process instead of a merge-base check per branch
        "for-each-ref", "--format=%(refname)%00%(objectname)", f"--no-merged={base_sha}",
        PROPOSAL_REF_PREFIX, "refs/remotes/",
    )  # fmt: skip
    names: list[str] = []
    owners: list[tuple[str, str, bool]] = []
    listed = [line.partition("\x00") for line in out.splitlines()]
    # The part after refs/remotes/<remote>/ of every remote-tracking proposal branch.
    tracked = {
        ref.split("/", 3)[3] for ref, _, _ in listed if ref.startswith("refs/remotes/")
        and _is_proposal_ref(ref)
    }  # fmt: skip
    for ref, _, sha in listed:
        if not _is_proposal_ref(ref):
            continue
        local = ref.startswith("refs/heads/")
        branch = ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
        added = repo.git(
            "diff", "--name-only", "-z", "--no-renames", "--diff-filter=A",
            f"{base_sha}...{sha}", "--", f"{BRAIN_DIRNAME}/memories",
        ).stdout.decode("utf-8", "surrogateescape")  # fmt: skip
        for path in filter(None, added.split("\x00")):
            names.append(f"{sha}:{path}")
            owners.append((branch, path, local and branch not in tracked))
    found: dict[str, KnownMemory] = {}
    for (branch, path, local_only), data in zip(owners, read_blobs(repo, names), strict=True):
        if data is None:
            continue
        try:
            document = parse_memory(data.decode("utf-8"))
        except (FrontMatterError, UnicodeDecodeError):
            continue
        front = document.front
        digest = content_hash(front.class_, front.title, document.body, list(front.tags))
        found.setdefault(
            digest, KnownMemory(front.id, front.title, path, "proposed", branch, local_only)
        )
    return found


def _is_proposal_ref(ref: str) -> bool:
    if ref.startswith(PROPOSAL_REF_PREFIX):
        return True
    parts = ref.split("/")  # refs/remotes/<remote>/teambrain/<name>
    return len(parts) >= 5 and parts[1] == "remotes" and parts[3] == "teambrain"


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
