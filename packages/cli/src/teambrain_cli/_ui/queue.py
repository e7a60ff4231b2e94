"""The review queue of ``tb ui``: this repository's candidates with the checks each would face
(``tb candidates show``'s service), proposing the ticked ones (``tb propose``'s service, with
its gates, branch and review), dropping others (``tb candidates drop``'s service), and editing
one before it is proposed (``tb candidates edit``'s service)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from teambrain_schema import Candidate, UserError
from teambrain_schema.paths import BrainLayout, MachineLayout

from .._proposals.queue import (
    CandidateReview,
    Dropped,
    drop_candidates,
    read_queue,
    review_candidate,
    shared_checks,
)

if TYPE_CHECKING:
    from teambrain_capture import RepoKeys
    from teambrain_retrieval import Catalog, Retriever
    from teambrain_sync import GitRepo, ProposalBranch


@dataclass
class QueueView:
    """The queue page: pending candidates with their checks (newest first), the ones already
    proposed or dropped, and spool files that do not parse."""

    pending: list[CandidateReview] = field(default_factory=list)
    handled: list[Candidate] = field(default_factory=list)
    broken: list[tuple[str, str]] = field(default_factory=list)
    elsewhere: int = 0


def _repo(root: Path) -> GitRepo | None:
    from teambrain_schema import EnvironmentProblem
    from teambrain_sync import open_repo

    with contextlib.suppress(EnvironmentProblem):
        return open_repo(root)
    return None


def queue_view(
    machine: MachineLayout, layout: BrainLayout, repo_key: RepoKeys | str | None, *,
    retriever: Retriever | None = None, catalog: Catalog | None = None,
    titles: Mapping[str, str] | None = None,
) -> QueueView:  # fmt: skip
    """The candidates queued for this repository, each pending one reviewed as ``tb
    candidates show`` reviews it (against the checked-out brain and open proposals), the
    near-duplicate checks of all of them through one ``retriever`` (the checkout's), the
    brain's contents (from the index's ``catalog`` of it, when given; ``titles`` names its
    retired memories) and the open proposals read once for all of them."""
    queue = read_queue(machine, repo_key, statuses=("pending", "proposed", "rejected"))
    repo = _repo(layout.repo_root)
    view = QueueView(
        broken=[(str(path), reason) for path, reason in queue.unreadable],
        elsewhere=queue.elsewhere,
    )
    shared = None
    for candidate in reversed(queue.candidates):
        if candidate.status == "pending":
            shared = shared or shared_checks(
                layout, repo, catalog, titles
            )  # read once, for every candidate
            review = review_candidate(
                candidate, layout=layout, repo=repo, retriever=retriever, shared=shared
            )
            view.pending.append(review)
        else:
            view.handled.append(candidate)
    return view


def _chosen(machine: MachineLayout, repo_key: RepoKeys | str | None, ids: Sequence[str], verb: str) -> list[Candidate]:  # fmt: skip
    if not ids:
        raise UserError(f"tick at least one candidate to {verb}")
    queue = read_queue(machine, repo_key, statuses=("pending", "proposed", "rejected"))
    by_id = {c.candidate_id: c for c in queue.candidates}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise UserError(f"no candidate {unknown[0]} in this repository's queue")
    return [by_id[i] for i in dict.fromkeys(ids)]


@dataclass(frozen=True)
class ProposeResult:
    """What proposing the ticked candidates did: ``tb propose --json``'s results, the branch
    and where it was sent for review."""

    outcomes: list[dict[str, object]]
    branch: str | None
    review: dict[str, object] | None
    warnings: list[str]
    base: str


def propose_chosen(
    machine: MachineLayout, repo_root: Path, repo_key: RepoKeys | str | None, ids: Sequence[str],
    *, allow_similar: bool = False,
) -> ProposeResult:  # fmt: skip
    """``tb propose <ids> [--allow-similar]``: the same service, gates and review."""
    from teambrain_capture import SpoolLedger
    from teambrain_sync import propose_candidates

    from .._proposals.guard import near_duplicate_guard
    from .._proposals.review import open_target

    chosen = _chosen(machine, repo_key, ids, "propose")
    spool = read_queue(machine, repo_key, statuses=("pending", "proposed", "rejected")).candidates
    repo, target = open_target(None, repo_root, sending=True, cache_dir=machine.proposals)
    run = propose_candidates(
        chosen, repo=repo, target=target, ledger=SpoolLedger(machine),
        patch_dir=machine.proposals, spool=spool, push=True, allow_similar=allow_similar,
        guard=near_duplicate_guard(repo),
    )  # fmt: skip
    return ProposeResult(
        outcomes=[o.to_json() for o in run.outcomes],
        branch=run.branch,
        review=run.review.to_json() if run.review else None,
        warnings=list(run.warnings),
        base=f"{target.base.requested} ({target.base.short})",
    )


@dataclass(frozen=True)
class DropResult:
    """The candidates dropped (marked rejected, kept as a record)."""

    dropped: list[Dropped]


def drop_chosen(
    machine: MachineLayout, repo_key: RepoKeys | str | None, ids: Sequence[str], reason: str | None
) -> DropResult:
    """``tb candidates drop <ids> [--reason TEXT]``: out of the queue, under propose's lock."""
    chosen = _chosen(machine, repo_key, ids, "drop")
    return DropResult(drop_candidates(machine, chosen, reason=reason))


@dataclass
class ProposalsView:
    """The proposal branches of this repository (on the remote as last fetched, and local),
    each with its state against the base ``tb propose`` uses and its pull request."""

    branches: list[ProposalBranch] = field(default_factory=list)
    base: str | None = None
    asked_gh: bool = False
    problem: str | None = None


def proposals_view(machine: MachineLayout, repo_root: Path, *, ask_gh: bool) -> ProposalsView:
    """Open, merged and closed proposals (``tb propose``'s own listing of them): judged by
    content against the base and by the pull requests ``gh`` last reported, asked again with
    ``ask_gh`` (the forge is asked only then)."""
    from teambrain_schema import TeambrainError
    from teambrain_sync import choose_target, proposal_branches, pull_requests

    repo = _repo(repo_root)
    if repo is None:
        return ProposalsView(problem="no git repository here")
    try:
        target = choose_target(repo, None)
        pulls = pull_requests(repo, machine.proposals, refresh=ask_gh)
        found = proposal_branches(repo, target.base.sha, pulls)
    except TeambrainError as exc:
        return ProposalsView(problem=exc.message)
    order = {"open": 0, "merged": 1, "closed": 2}
    found.sort(key=lambda b: (order.get(b.state, 3), b.name), reverse=False)
    return ProposalsView(found, f"{target.base.requested} ({target.base.short})", ask_gh)


@dataclass(frozen=True)
class EditForm:
    """The edit page of one candidate: the values in the form (the draft's, or what was
    typed when an edit was refused), the content hash it was opened at, and why it was
    refused."""

    candidate: Candidate
    values: dict[str, str]
    expected: str
    problem: str | None = None


def _pending_here(
    machine: MachineLayout, repo_key: RepoKeys | str | None, candidate_id: str
) -> Candidate:
    queue = read_queue(machine, repo_key, statuses=("pending", "proposed", "rejected"))
    found = next((c for c in queue.candidates if c.candidate_id == candidate_id), None)
    if found is None:
        raise UserError(f"no candidate {candidate_id} in this repository's queue")
    return found


def edit_form(
    machine: MachineLayout, repo_key: RepoKeys | str | None, candidate_id: str
) -> EditForm:
    """The form to edit candidate ``candidate_id`` of this repository's queue, filled with its
    draft — a secret in it shown redacted, as everywhere on the page (saving keeps the
    redaction: the secret is gone from the draft)."""
    from teambrain_schema.secrets import redact_secrets

    candidate = _pending_here(machine, repo_key, candidate_id)
    if candidate.status != "pending":
        raise UserError(
            f"candidate {candidate_id} is {candidate.status}: only a pending candidate can be edited"
        )
    draft = candidate.draft
    values = {
        "title": redact_secrets(draft.title), "body": redact_secrets(draft.body),
        "class": draft.class_, "priority": draft.priority, "scope": draft.scope,
        "tags": redact_secrets(" ".join(draft.tags)),
    }  # fmt: skip
    return EditForm(candidate, values, candidate.content_hash)


EDIT_FIELDS = ("title", "body", "class", "priority", "scope", "tags")


def save_edit(
    machine: MachineLayout,
    repo_key: RepoKeys | str | None,
    candidate_id: str,
    form: Mapping[str, Sequence[str]],
) -> Candidate | EditForm:
    """Save the edit form posted for ``candidate_id`` through ``tb candidates edit``'s service
    (:func:`teambrain_cli._proposals.edit.edit_candidate`: the schema, secrets and prompt
    injection checked before anything is written); the saved candidate, or the form again with
    what was typed and why the edit was refused (the candidate file untouched)."""
    from teambrain_schema import TeambrainError
    from teambrain_schema.secrets import redact_secrets

    from .._proposals.edit import edit_candidate

    candidate = _pending_here(machine, repo_key, candidate_id)
    values = {name: (form.get(name) or [""])[0] for name in EDIT_FIELDS}
    values["body"] = values["body"].replace("\r\n", "\n")  # a textarea posts CRLF line ends
    values["title"] = values["title"].strip()
    expected = (form.get("expected") or [""])[0]
    changes: dict[str, object] = {
        "title": values["title"], "body": values["body"], "class": values["class"],
        "priority": values["priority"], "scope": values["scope"],
        "tags": [t for t in values["tags"].replace(",", " ").split() if t],
    }  # fmt: skip
    shown = {name: redact_secrets(value) for name, value in values.items()}
    if candidate.status != "pending":
        problem = f"candidate {candidate_id} is {candidate.status}: only a pending candidate can be edited"  # fmt: skip
        return EditForm(candidate, shown, expected, problem)
    try:
        outcome = edit_candidate(machine, candidate, changes, expected_hash=expected or None)
    except TeambrainError as exc:  # typed back, a secret in it redacted as the page shows it
        return EditForm(candidate, shown, expected, exc.message)
    if outcome.refused:
        # each problem without the check's name ("secrets: draft.body: …"): the field says it
        said = "; ".join(problem.split(": ", 1)[-1] for problem in outcome.problems)
        return EditForm(candidate, shown, expected, said)
    return outcome.candidate
