"""The review queue before ``tb propose``: the candidates waiting in this machine's spool, the
checks each would face, and dropping the ones nobody wants (``tb candidates``, the queue view of
``tb ui``).

- :func:`read_queue` → :class:`Queue`: the candidates queued for a repository, by status.
- :func:`find_candidate`: a candidate by its id, or an unambiguous prefix or suffix of it.
- :func:`review_candidate` → :class:`CandidateReview`: the gates of ``tb propose`` run on one
  candidate without proposing it (schema and secrets, prompt injection, content already in the
  brain or an open proposal, near-duplicates of live memories, citations the repository does
  not bear out).
- :func:`drop_candidates`: mark candidates rejected (kept as a record, so nothing proposes them
  again by accident), or delete their files.

Proposing stays ``tb propose``'s: the same service, the same checks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from teambrain_schema import Candidate, UserError, ValidationFailure
from teambrain_schema.paths import MachineLayout

from .._console.ids import resolve_id

if TYPE_CHECKING:
    from teambrain_capture import RepoKeys
    from teambrain_retrieval import Catalog, Retriever
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import GitRepo, KnownMemory, ProposalIndex, SimilarMemory

CandidateStatus = Literal["pending", "proposed", "rejected"]
Verdict = Literal["ok", "warning", "blocks"]
MAX_REASON_CHARS = 400


def shown(candidate: Candidate) -> Candidate:
    """``candidate`` as every listing prints it (``tb candidates``, ``--json``, the page): a
    secret anywhere in its title, body, tags or note — the reason it is blocked, often — is
    redacted, never printed back."""
    from teambrain_schema.secrets import redact_secrets

    draft = candidate.draft
    clean = draft.model_copy(update={
        "title": redact_secrets(draft.title), "body": redact_secrets(draft.body),
        "tags": [redact_secrets(tag) for tag in draft.tags],
    })  # fmt: skip
    note = redact_secrets(candidate.note) if candidate.note else candidate.note
    return candidate.model_copy(update={"draft": clean, "note": note})


def candidate_json(candidate: Candidate) -> dict[str, object]:
    """A candidate as ``--json`` and the web page show it: its queue facts and its draft (a
    secret in it redacted: :func:`shown`)."""
    candidate = shown(candidate)
    draft = candidate.draft
    return {
        "candidate_id": candidate.candidate_id,
        "created": candidate.created.isoformat(),
        "proposer": candidate.proposer,
        "status": candidate.status,
        "note": candidate.note,
        "proposed_as": candidate.proposed_as,
        "repo": candidate.repo,
        "session": candidate.sid,
        "draft": draft.model_dump(mode="json", by_alias=True),
    }


@dataclass
class Queue:
    """The candidates of one repository with the statuses asked for, oldest first; how many
    pending ones other repositories have (not listed); spool files that do not parse."""

    candidates: list[Candidate] = field(default_factory=list)
    elsewhere: int = 0
    unreadable: list[tuple[Path, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "candidates": [candidate_json(c) for c in self.candidates],
            "other_repositories_pending": self.elsewhere,
            "unreadable": [{"path": str(p), "reason": r} for p, r in self.unreadable],
        }


def read_queue(
    machine: MachineLayout,
    repo_key: RepoKeys | str | None,
    *,
    statuses: Sequence[CandidateStatus] = ("pending",),
    every_repository: bool = False,
) -> Queue:
    """The spool's candidates queued for ``repo_key`` (capture's join key of the repository,
    or its :class:`~teambrain_capture.RepoKeys`: the keys it was filed under before its remote
    changed count too; candidates queued for no repository count as this one's), or with
    ``every_repository`` all of them, keeping ``statuses``."""
    from teambrain_capture import RepoKeys, list_candidates

    keys = RepoKeys.of(repo_key)
    listing = list_candidates(machine)
    queue = Queue(unreadable=list(listing.broken))
    for candidate in listing.candidates:
        here = every_repository or keys.holds(candidate.repo)
        if not here:
            queue.elsewhere += candidate.status == "pending"
        elif candidate.status in statuses:
            queue.candidates.append(candidate)
    return queue


def find_candidate(machine: MachineLayout, given: str) -> Candidate:
    """The spool's candidate that ``given`` names (the whole id in any case, or a prefix or
    suffix of four characters or more that no other candidate has); a user error otherwise."""
    from teambrain_capture import list_candidates, load_candidate

    listing = list_candidates(machine)
    ids = [c.candidate_id for c in listing.candidates]
    found = load_candidate(
        resolve_id(ids, given, what="candidate", listing="tb candidates list --status all"),
        machine=machine,
    )
    if found is None:  # removed since it was listed
        raise UserError(f"candidate {given!r} is gone from {machine.candidates}")
    return found


@dataclass(frozen=True)
class Check:
    """One gate of ``tb propose`` and what it says about a candidate: ``blocks`` means propose
    would not make it a memory; ``warning`` that it would, with a note for the reviewer."""

    name: str
    verdict: Verdict
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "verdict": self.verdict, "detail": self.detail}


@dataclass(frozen=True)
class CandidateReview:
    """A candidate and every check it faces, with the near-duplicates found and the citations
    that do not hold."""

    candidate: Candidate
    checks: tuple[Check, ...]
    similar: tuple[SimilarMemory, ...] = ()
    stale: tuple[str, ...] = ()

    @property
    def would_propose(self) -> bool:
        """True when ``tb propose`` would turn it into a memory file (warnings included)."""
        return self.candidate.status != "proposed" and all(
            check.verdict != "blocks" for check in self.checks
        )

    def to_json(self) -> dict[str, object]:
        return {
            "candidate": candidate_json(self.candidate),
            "would_propose": self.would_propose,
            "checks": [check.to_json() for check in self.checks],
            "similar": [s.to_json() for s in self.similar],
            "stale": list(self.stale),
        }


@dataclass(frozen=True)
class SharedChecks:
    """What every candidate of a queue is checked against, read once: the content of each
    memory of the checkout's brain, and the open proposals (None without a repository or a
    commit)."""

    known: Mapping[str, KnownMemory]
    proposals: ProposalIndex | None


def shared_checks(
    layout: BrainLayout, repo: GitRepo | None, catalog: Catalog | None = None,
    titles: Mapping[str, str] | None = None,
) -> SharedChecks:  # fmt: skip
    """:class:`SharedChecks` for reviewing many candidates against ``layout``'s brain and the
    proposal branches of ``repo``: the brain read once (not once per candidate) — or not at
    all, given the search index's ``catalog`` of it (``teambrain_retrieval.brain_catalog``,
    which keeps each memory's content hash; ``titles`` names the retired ones, whose text the
    index drops)."""
    from teambrain_sync import KnownMemory, known_memories, open_proposals

    head = repo.head() if repo is not None else None
    proposals = open_proposals(repo, head) if repo is not None and head is not None else None
    if catalog is None:
        from teambrain_schema.brain import load_brain

        return SharedChecks(known_memories(load_brain(layout)), proposals)
    from teambrain_schema.paths import BRAIN_DIRNAME

    retired_dir = f"{BRAIN_DIRNAME}/retired/"
    known: dict[str, KnownMemory] = {}
    named = titles or {}
    for entry in catalog.entries:  # as known_memories: an active holder wins over a retired one
        status = "retired" if entry.path.startswith(retired_dir) else entry.status
        current = known.get(entry.content_hash)
        if current is None or (current.status != "active" and status == "active"):
            title = entry.title or named.get(entry.id) or entry.id
            known[entry.content_hash] = KnownMemory(entry.id, title, entry.path, status)
    return SharedChecks(known, proposals)


def _similar(
    layout: BrainLayout, candidate: Candidate, retriever: Retriever | None = None
) -> list[SimilarMemory]:
    """Live memories of the checkout's brain close to the draft (retrieval's guard), through
    ``retriever`` when one is open already (a page reviewing many candidates opens one)."""
    from teambrain_retrieval import open_retriever
    from teambrain_sync import SimilarMemory

    draft = candidate.draft
    if retriever is not None:
        found = retriever.similar(draft.title, draft.body, k=5)
    else:
        own = open_retriever(layout)
        try:
            found = own.similar(draft.title, draft.body, k=5)
        finally:
            own.close()
    return [
        SimilarMemory(
            id=item.hit.id, title=item.hit.memory.title, path=item.hit.provenance.path,
            cosine=item.cosine, fts_strength=item.fts_strength, is_duplicate=item.is_duplicate,
        )
        for item in found
        if item.hit.id not in draft.supersedes
    ]  # fmt: skip


def review_candidate(
    candidate: Candidate,
    *,
    layout: BrainLayout,
    repo: GitRepo | None = None,
    similar: bool = True,
    retriever: Retriever | None = None,
    shared: SharedChecks | None = None,
) -> CandidateReview:
    """What ``tb propose`` would say about ``candidate`` against the brain checked out at
    ``layout`` (and the open proposal branches of ``repo``, when given), without proposing it.
    ``similar`` False skips the near-duplicate search (it loads the embedding model);
    ``retriever``, the checkout's, open already, serves it (one for a whole queue) instead of
    one opened for this candidate; ``shared`` (:func:`shared_checks`), the brain's contents and
    the open proposals read once for a whole queue."""
    from teambrain_sync import check_draft, draft_citation_problems

    checks: list[Check] = []
    if candidate.status == "proposed":
        checks.append(Check("status", "blocks", f"already proposed as {candidate.proposed_as}"))
    try:
        verdict = check_draft(
            repo, layout, candidate.draft,
            known=shared.known if shared else None, proposals=shared.proposals if shared else None,
        )  # fmt: skip
    except ValidationFailure as exc:
        name = "secrets" if "secret" in exc.message else "schema"
        checks.append(Check(name, "blocks", exc.message))
        return CandidateReview(candidate, tuple(checks))
    checks.append(Check("schema and secrets", "ok", "valid, no secret found"))
    if verdict.injection:
        checks.append(Check("prompt injection", "blocks", verdict.injection))
        return CandidateReview(candidate, tuple(checks))
    checks.append(Check("prompt injection", "ok", "none found"))
    if verdict.holder is not None:
        checks.append(Check("identical content", "blocks", verdict.note() or ""))
    else:
        checks.append(Check("identical content", "ok", "new to the brain and open proposals"))
    found: list[SimilarMemory] = []
    if similar:
        found = _similar(layout, candidate, retriever)
        duplicates = [s for s in found if s.is_duplicate]
        if duplicates:
            shown = "; ".join(s.describe() for s in duplicates)
            checks.append(Check("near-duplicates", "blocks",
                                f"{shown} (propose with --allow-similar, or supersede it)"))  # fmt: skip
        else:
            checks.append(Check("near-duplicates", "ok", "no live memory is this close"))
    stale = draft_citation_problems(layout.repo_root, candidate.draft)
    if stale:
        checks.append(Check("citations", "warning", "; ".join(stale)))
    else:
        checks.append(Check("citations", "ok", "every cited path, symbol and command exists"))
    return CandidateReview(candidate, tuple(checks), tuple(found), tuple(stale))


@dataclass(frozen=True)
class Dropped:
    """A candidate taken out of the queue: marked rejected (its file kept) or deleted."""

    candidate_id: str
    title: str
    deleted: bool

    def to_json(self) -> dict[str, object]:
        return {"candidate_id": self.candidate_id, "title": self.title, "deleted": self.deleted}


def drop_candidates(
    machine: MachineLayout,
    candidates: Sequence[Candidate],
    *,
    reason: str | None = None,
    delete: bool = False,
) -> list[Dropped]:
    """Take ``candidates`` out of the review queue, under the same lock ``tb propose`` holds:
    each is marked rejected with the reason (``tb propose <id>`` can still take it), or with
    ``delete`` its file is removed. A candidate already proposed is a user error (its pull
    request is where it is reviewed now); nothing is changed then."""
    from teambrain_capture import SpoolLedger

    note = "dropped from the review queue" + (f": {reason.strip()}" if reason and reason.strip() else "")  # fmt: skip
    if len(note) > MAX_REASON_CHARS:  # refused whole, never cut: the record says all of it
        room = MAX_REASON_CHARS - len("dropped from the review queue: ")
        raise UserError(f"--reason: {len((reason or '').strip())} characters; the limit is {room}")
    ledger = SpoolLedger(machine)
    dropped: list[Dropped] = []
    with ledger.hold():
        fresh = [ledger.reload(c) for c in candidates]
        for candidate in fresh:
            if candidate.status == "proposed":
                raise UserError(
                    f"candidate {candidate.candidate_id} was already proposed as "
                    f"{candidate.proposed_as}: close its pull request instead"
                )
        for candidate in fresh:
            if delete:
                machine.candidate_file(candidate.candidate_id).unlink(missing_ok=True)
            elif candidate.status != "rejected" or candidate.note != note:
                ledger.save(candidate.model_copy(update={"status": "rejected", "note": note}))
            dropped.append(Dropped(candidate.candidate_id, shown(candidate).draft.title, delete))
    return dropped
