"""Proposing graph records: add or change ``.teambrain/graph/`` files (and remove the notes they
promote) on a new branch, reviewed like memories, after the ontology accepts them — no branch is
made for a record the ontology refuses (docs/graph.md#proposing-records)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from teambrain_schema import UserError

from ._proposals import BRANCH_PREFIX, _already_proposed
from ._review import ReviewRequest, ReviewTarget, send_for_review
from ._workspace import open_workspace

if TYPE_CHECKING:
    from pathlib import Path

    from ._git import GitRepo


@dataclass(frozen=True)
class RecordSubmission:
    """One record to propose: its YAML text and where it came from (a file, a candidate); or,
    with ``note_path``, a note to add under ``.teambrain/notes/`` (an import)."""

    text: str
    source: str
    note_path: str | None = None


@dataclass
class ProposedRecord:
    """What became of one submission: the node, where its file goes, added or changed, and the
    problems that stop it (located lines, as ``tb lint`` prints them)."""

    source: str
    node_id: str | None = None
    relpath: str | None = None
    action: str = "add"  # "add" or "change"
    problems: list[str] = field(default_factory=list)
    kind: str = "record"  # "record" or "note"

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source, "kind": self.kind, "id": self.node_id, "path": self.relpath,
            "action": self.action, "problems": self.problems,
        }  # fmt: skip


@dataclass
class RecordProposal:
    """A record proposal: each record, the notes it removes, and where it went."""

    target: ReviewTarget
    records: list[ProposedRecord]
    removed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    branch: str | None = None
    commit: str | None = None
    review: ReviewRequest | None = None
    dry_run: bool = False

    @property
    def failed(self) -> bool:
        return any(record.problems for record in self.records)


def _message(proposal: RecordProposal) -> tuple[str, str]:
    records = proposal.records
    if len(records) == 1:
        what = f"graph record {records[0].node_id}" if records[0].kind == "record" else "note"
        title = f"teambrain: {records[0].action} {what}"
    else:
        title = f"teambrain: {len(records)} graph records and notes"
    lines = [
        "Graph records and notes proposed for review (`tb help graph-guide`); the ontology accepted them.",
        "",
    ]
    lines += [f"- {r.action} {r.node_id or r.kind} ({r.relpath})" for r in records]
    if proposal.removed:
        lines += ["", "Promoted from notes, removed here:"]
        lines += [f"- {path}" for path in proposal.removed]
    base = proposal.target.base
    lines += ["", f"Base: {base.requested} ({base.sha[:12]})"]
    return title, "\n".join(lines) + "\n"


def propose_records(
    repo: GitRepo,
    submissions: Sequence[RecordSubmission],
    *,
    target: ReviewTarget,
    patch_dir: Path,
    removals: Sequence[str] = (),
    dry_run: bool = False,
    push: bool = True,
) -> RecordProposal:
    """Check each record against the brain at ``target``'s base — its own shape, the ontology,
    and what it does to the graph (a cycle it closes, an id another file has) — and, when every
    one passes and this is not a dry run, write them (and remove ``removals``, the notes they
    promote) in one commit on ``teambrain/records-<digest>`` sent for review. Nothing is
    committed when any record has a problem."""
    from teambrain_schema.graph import load_graph, parse_record
    from teambrain_schema.graph_lint import lint_graph, record_relpath

    proposal = RecordProposal(target=target, records=[], dry_run=dry_run)
    with open_workspace(repo, target.base) as workspace:
        layout = workspace.layout
        brain = workspace.load()
        before = {v.format() for v in lint_graph(layout, brain).violations}
        graph = load_graph(layout, reference_attributes={})
        placed: dict[str, str] = {}  # node id → where this proposal writes it
        notes_folder = layout.relative(layout.root / "notes")
        for submission in submissions:
            outcome = ProposedRecord(submission.source)
            proposal.records.append(outcome)
            if submission.note_path is not None:
                outcome.kind = "note"
                outcome.relpath = f"{notes_folder}/{submission.note_path}"
                outcome.action = "change" if workspace.read(outcome.relpath) is not None else "add"
                if outcome.relpath in placed.values():
                    outcome.problems.append(
                        f"{submission.source}: {outcome.relpath} is proposed twice"
                    )
                placed[outcome.relpath] = outcome.relpath
                continue
            parsed = parse_record(f"{submission.source}", submission.text)
            if parsed.record is None:
                outcome.problems = [
                    f"{submission.source}:{p.line}: {p.rule}: {p.message}" for p in parsed.problems
                ]
                continue
            node_id = parsed.record.id
            outcome.node_id = node_id
            if node_id in placed:
                outcome.problems.append(f"{submission.source}: {node_id} is proposed twice")
                continue
            relpath = record_relpath(graph, node_id, parsed.record.node_kind, layout)
            while relpath in placed.values():
                relpath = relpath.removesuffix(".yaml") + "-2.yaml"
            placed[node_id] = relpath
            outcome.relpath = relpath
            outcome.action = "change" if node_id in graph.nodes else "add"
        if proposal.failed:
            return proposal
        for submission, record in zip(submissions, proposal.records, strict=True):
            assert record.relpath is not None
            text = submission.text if submission.text.endswith("\n") else submission.text + "\n"
            workspace.write(record.relpath, text)
        for relpath in removals:
            if workspace.read(relpath) is None:
                raise UserError(
                    f"{relpath}: not in the brain at {target.base.requested}: nothing to promote"
                )
            workspace.remove(relpath)
            proposal.removed.append(relpath)
        # What the graph would hold with these records that it does not hold now: their own
        # problems, and those they cause elsewhere (a cycle they close, an id they duplicate).
        after = lint_graph(layout, workspace.load()).violations
        ours = {r.relpath for r in proposal.records}
        for violation in after:
            line = violation.format()
            if line in before:
                continue
            if violation.severity != "error":
                proposal.warnings.append(line)
                continue
            owners = [
                r for r in proposal.records if r.relpath == violation.path
            ] or proposal.records
            for record in owners:
                record.problems.append(line)
        from ._memories import check_proposal

        check = check_proposal(workspace)
        for violation in check.own:
            if violation.path not in ours:
                for record in proposal.records:
                    if violation.format() not in record.problems:
                        record.problems.append(violation.format())
        if proposal.failed:
            return proposal
        digest = hashlib.sha256(
            repr(sorted((r.relpath, s.text) for r, s in zip(proposal.records, submissions, strict=True))
                 + sorted(proposal.removed)).encode()
        ).hexdigest()  # fmt: skip
        branch = f"{BRANCH_PREFIX}records-{digest[:12]}"
        proposal.branch = branch
        if dry_run:
            return proposal
        resent = _already_proposed(
            repo, target, branch, "this record change", push=push, dry_run=dry_run,
            patch_dir=patch_dir,
        )  # fmt: skip
        if resent is not None:
            proposal.commit, proposal.review = resent
            return proposal
        title, body = _message(proposal)
        proposal.commit = workspace.commit(branch, f"{title}\n\n{body}")
    proposal.review = send_for_review(
        repo, target=target, branch=branch, commit=proposal.commit, title=title, body=body,
        patch_dir=patch_dir, push=push,
    )  # fmt: skip
    return proposal
