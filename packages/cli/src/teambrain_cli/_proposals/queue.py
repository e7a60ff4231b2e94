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
- :func:`edit_candidate`: change a pending candidate's draft (title, body, class, tags, …)
  before it is proposed, re-checked as it is queued; a refused edit changes nothing.

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
    from teambrain_retrieval import Catalog, Retriever
    from teambrain_schema.paths import BrainLayout
    from teambrain_sync import GitRepo, KnownMemory, ProposalIndex, SimilarMemory

CandidateStatus = Literal["pending", "proposed", "rejected"]
Verdict = Literal["ok", "warning", "blocks"]
MAX_REASON_CHARS = 400


def candidate_json(candidate: Candidate) -> dict[str, object]:
    """A candidate as ``--json`` and the web page show it: its queue facts and its draft."""
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
    repo_key: str | None,
    *,
    statuses: Sequence[CandidateStatus] = ("pending",),
    every_repository: bool = False,
) -> Queue:
    """The spool's candidates queued for ``repo_key`` (capture's join key of the repository;
    candidates queued for no repository count as this one's), or with ``every_repository``
    all of them, keeping ``statuses``."""
    from teambrain_capture import list_candidates

    listing = list_candidates(machine)
    queue = Queue(unreadable=list(listing.broken))
    for candidate in listing.candidates:
        here = every_repository or candidate.repo in (repo_key, None)
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
                ledger.save(
                    candidate.model_copy(
                        update={"status": "rejected", "note": note[:MAX_REASON_CHARS]}
                    )
                )
            dropped.append(Dropped(candidate.candidate_id, candidate.draft.title, delete))
    return dropped


EDITABLE_FIELDS = ("class", "title", "body", "tags", "priority", "scope", "ttl_days", "supersedes", "evidence")  # fmt: skip


def edit_candidate(
    machine: MachineLayout,
    candidate_id: str,
    changes: Mapping[str, object],
    *,
    expected_hash: str | None = None,
) -> Candidate:
    """Change the draft of the pending candidate ``candidate_id``: ``changes`` maps draft
    fields by their contract names (:data:`EDITABLE_FIELDS`: ``title``, ``body``, ``class``,
    ``tags``, …) to new values; fields not named keep theirs. Returns the candidate as saved
    (the same one when nothing changed).

    The edited draft is checked as a draft is when it is queued, before anything is written:
    the schema (``title`` one line of ≤ 80 characters, ``body`` ≤ 400 words and not empty, tags,
    class), secrets and prompt injection — :class:`ValidationFailure` (exit 3) naming the field
    otherwise. Identical content, near-duplicates and citations are judged as ``tb candidates
    show`` judges them, on the saved candidate (they do not refuse an edit: the reviewer may
    want to supersede). A candidate that is not pending (proposed, dropped), is gone, or changed
    since the editor read it (its content hash is not ``expected_hash``) is a
    :class:`UserError` (exit 1). The file is replaced atomically under the lock ``tb propose``
    holds; a refused edit leaves it untouched."""
    from pydantic import ValidationError
    from teambrain_capture import SpoolLedger, load_candidate
    from teambrain_schema.drafts import validate_draft
    from teambrain_schema.frontmatter import describe_validation_error
    from teambrain_schema.injection import find_injections

    unknown = sorted(set(changes) - set(EDITABLE_FIELDS))
    if unknown:
        raise ValidationFailure(f"draft.{unknown[0]}: not a field of a draft")
    ledger = SpoolLedger(machine)
    with ledger.hold():
        current = load_candidate(candidate_id, machine=machine)
        if current is None:
            raise UserError(f"candidate {candidate_id} is gone from {machine.candidates}")
        if current.status != "pending":
            raise UserError(
                f"candidate {candidate_id} is {current.status}"
                + (f" as {current.proposed_as}" if current.proposed_as else "")
                + ": only a pending candidate can be edited"
            )
        if expected_hash is not None and current.content_hash != expected_hash:
            raise UserError(
                f"candidate {candidate_id} changed since it was opened for editing: "
                "open it again to edit what it holds now"
            )
        before = current.draft.model_dump(mode="json", by_alias=True)
        wanted = {**before, **dict(changes)}
        draft = validate_draft(wanted)  # schema and secrets
        if not draft.body.strip():  # lint's "body is empty"
            raise ValidationFailure("draft.body: is empty")
        for name, text in (("title", draft.title), ("body", draft.body), ("tags", " ".join(draft.tags))):  # fmt: skip
            findings = find_injections(text)
            if findings:
                first = findings[0]
                where = f"body line {first.line}" if name == "body" else name
                raise ValidationFailure(
                    f"draft.{name}: {first.rule} in {where}: {first.excerpt!r}; "
                    "an agent would read it as an instruction"
                )
        if draft == current.draft:
            return current
        try:
            edited = Candidate.model_validate(
                {
                    **current.model_dump(mode="python", by_alias=True),
                    "draft": draft,
                    "content_hash": draft.content_hash(),
                }
            )
        except ValidationError as exc:
            message, _ = describe_validation_error(exc)
            raise ValidationFailure(message) from None
        ledger.save(edited)
    return edited
