"""``tb propose``: candidates from the spool (or a hand-written draft) → a reviewed proposal."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

import click
from teambrain_schema import Candidate, ExitCode, MemoryDraft, UserError
from teambrain_schema.ids import is_ulid, new_ulid
from teambrain_schema.paths import MachineLayout

from .._console.context import machine
from .._console.output import emit_json, fit, fit_middle, say, terminal_width
from .._proposals.guard import near_duplicate_guard
from .._proposals.queue import find_candidate
from .._proposals.review import (
    open_target,
    report_review,
    report_tidied,
    report_unsent,
    target_json,
)
from ._complete import complete_candidate_ids

if TYPE_CHECKING:
    from teambrain_capture import RepoKeys
    from teambrain_schema import RecordCandidate
    from teambrain_sync import (
        Outcome,
        ProposeRun,
        RecordProposal,
        RecordSubmission,
        ReviewTarget,
    )

_LABELS = {
    "proposed": "proposed",
    "would-propose": "would propose",
    "already-proposed": "skipped",
    "duplicate": "duplicate",
    "rejected": "rejected",
}


def _select(
    ids: tuple[str, ...],
    propose_all: bool,
    drafts: tuple[str, ...],
    home: MachineLayout,
    keys: RepoKeys,
) -> tuple[list[Candidate], list[Candidate]]:
    """(the candidates to propose, this repository's spool) — unknown ids are a user error.

    The spool is machine-wide: ``--all`` takes only candidates queued for this repository,
    under its current key or one it had before its remote changed (an id named explicitly is
    taken whatever repository it was queued for)."""
    from teambrain_capture import list_candidates, load_candidate

    listing = list_candidates(home)
    others = [c for c in listing.candidates if not keys.holds(c.repo)]
    listing.candidates = [c for c in listing.candidates if keys.holds(c.repo)]
    if propose_all and any(c.status == "pending" for c in others):
        say(
            f"tb: leaving {sum(c.status == 'pending' for c in others)} pending candidate(s) of other repositories alone"
        )
    for path, reason in listing.broken:
        say(f"tb: skipping unreadable candidate {path}: {reason}")
    if propose_all and ids:
        raise UserError("give candidate ids or --all, not both")
    if not (ids or propose_all or drafts):
        pending = sum(1 for c in listing.candidates if c.status == "pending")
        raise UserError(
            f"nothing to propose: {pending} pending candidate(s); name their ids, use --all, "
            "or --draft FILE (`tb propose --all --dry-run` previews)"
        )
    chosen: list[Candidate] = []
    for candidate_id in dict.fromkeys(ids):
        found = load_candidate(candidate_id, machine=home) if is_ulid(candidate_id) else None
        if found is None:  # a prefix or suffix of an id, as `tb candidates` accepts
            found = find_candidate(home, candidate_id)
        if found.candidate_id not in {c.candidate_id for c in chosen}:
            chosen.append(found)
    if propose_all:
        chosen.extend(c for c in listing.candidates if c.status == "pending")
    return chosen, listing.candidates


def _draft_candidates(
    drafts: list[MemoryDraft],
    home: MachineLayout,
    spool: list[Candidate],
    dry_run: bool,
    repo_key: str | None,
) -> list[Candidate]:
    """Hand-written drafts as candidates: the spool's candidate with the same content when
    there is one (so proposing a file twice does nothing), else queued in the spool like any
    candidate, or for a dry run only built in memory."""
    from teambrain_capture import queue_candidate, save_candidate

    by_hash = {c.content_hash: c for c in spool if c.status != "proposed"}
    by_hash.update({c.content_hash: c for c in spool if c.status == "proposed"})
    found: list[Candidate] = []
    for draft in drafts:
        existing = by_hash.get(draft.content_hash())
        if existing is not None and existing.status != "proposed" and existing.draft != draft:
            # Same content, other fields (supersedes, priority, evidence…): the file wins.
            existing = existing.model_copy(
                update={"draft": draft, "status": "pending", "note": None}
            )
            if not dry_run:
                save_candidate(existing, machine=home)
        if existing is not None:
            found.append(existing)
        elif dry_run:
            found.append(
                Candidate(
                    candidate_id=new_ulid(),
                    created=dt.datetime.now(dt.UTC),
                    proposer="human",
                    draft=draft,
                    content_hash=draft.content_hash(),
                    repo=repo_key,
                )
            )
        else:
            candidate, _ = queue_candidate(draft, "human", repo=repo_key, machine=home)
            found.append(candidate)
    return found


def _line(outcome: Outcome, width: int | None = None) -> str:
    """One outcome: what happened and the title, then which candidate became which memory (each
    id labelled) and where, or why not; paths cut in the middle to fit a terminal."""
    label = _LABELS[outcome.result]
    room = None if width is None else width - 14
    lines = [f"{label:<14}{fit(repr(outcome.shown_title), room)}"]
    ids = f"candidate {outcome.candidate.candidate_id}"
    if outcome.memory_id:
        ids += f" → memory {outcome.memory_id}"
    lines.append(f"{'':14}{ids}")
    if outcome.result in ("proposed", "would-propose") and outcome.path:
        lines.append(f"{'':14}{fit_middle(outcome.path, room)}")
    elif outcome.reason:
        lines.append(f"{'':14}{outcome.reason}")
    return "\n".join(lines)


def _exit_code(run: ProposeRun) -> int:
    if any(o.failed for o in run.outcomes):
        return ExitCode.VALIDATION_FAILURE
    if run.push_errors() or run.pr_errors():  # not sent for review: never "ok"
        return ExitCode.ENVIRONMENT_ERROR
    return ExitCode.OK


@click.command("propose")
@click.argument(
    "candidate_ids", nargs=-1, metavar="[CANDIDATE_ID]...", shell_complete=complete_candidate_ids
)
@click.option("--all", "propose_all", is_flag=True, help="Propose every pending candidate.")
@click.option(
    "--draft",
    "drafts",
    multiple=True,
    metavar="FILE",
    help="A hand-written draft (markdown with front-matter, .json or .yaml; - for stdin).",
)
@click.option(
    "--record",
    "records",
    multiple=True,
    metavar="FILE",
    help="A graph record to add or change (.yaml, or .json), checked against the ontology.",
)
@click.option(
    "--promote",
    metavar="NOTE",
    help="A note of .teambrain/notes/ this proposal replaces (removed in the same commit).",
)
@click.option(
    "--class",
    "memory_class",
    type=click.Choice(["decision", "convention", "map", "learning"]),
    help="With --promote: the note itself becomes a memory of this class.",
)
@click.option("--dry-run", is_flag=True, help="Check and show; write, mark and commit nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.option("--base", metavar="REF", help="Commit, tag or branch to start from.")
@click.option("--no-push", is_flag=True, help="Keep the branch local even when a remote exists.")
@click.option(
    "--allow-similar",
    is_flag=True,
    help="Propose near-duplicates anyway, listing the similar memories for the reviewer.",
)
@click.option(
    "--strict-citations",
    is_flag=True,
    help="Refuse a draft citing paths, make targets or scripts the base does not have.",
)
@click.option(
    "--fix-citations",
    is_flag=True,
    help="Propose edits that make memories cite where git says their cited paths moved.",
)
@click.pass_context
def command(
    ctx: click.Context,
    *,
    candidate_ids: tuple[str, ...],
    propose_all: bool,
    drafts: tuple[str, ...],
    dry_run: bool,
    as_json: bool,
    base: str | None,
    no_push: bool,
    allow_similar: bool,
    strict_citations: bool = False,
    fix_citations: bool = False,
    records: tuple[str, ...] = (),
    promote: str | None = None,
    memory_class: str | None = None,
) -> None:
    """Turn candidates into memory files on a proposal branch and send it for review.

    Each candidate is checked (schema, lint, secrets, prompt injection, identical content
    already in the brain or proposed, near-duplicates of live memories). The survivors become
    memory files with new ids in one commit on teambrain/propose-<ulid>; your checkout, index
    and HEAD are not touched. Candidates are marked proposed or rejected, so running it again
    does nothing for them.

    Graph records (--record FILE, and those agents queued with memory_propose, taken by --all)
    are checked against the brain's ontology first and proposed on a branch of their own; a
    record the ontology refuses makes no branch. --promote NOTE removes that note in the same
    commit: with --class CLASS the note becomes the memory, with --draft or --record your file
    replaces it.

    Exit codes: 0 ok (duplicates are not failures) · 1 bad arguments · 2 no git, no repository
    or the push failed · 3 a candidate or record was rejected (the others are still proposed).

    \b
    Examples:
      tb propose --all --dry-run        what would be proposed
      tb propose --all
      tb propose 1D8C --no-push       one candidate, branch kept local
      tb propose --draft my-memory.md
      tb propose --fix-citations
      tb propose --record payments.yaml           a graph record, checked by the ontology
      tb propose --promote .teambrain/notes/x.md --class learning
    """
    from teambrain_capture import SpoolLedger, repo_keys
    from teambrain_sync import propose_candidates

    home = machine()
    if fix_citations:
        if candidate_ids or propose_all or drafts or allow_similar or records or promote:
            raise UserError("--fix-citations proposes edits on its own: no candidates or drafts")
        ctx.exit(_fix_citations(home, base=base, dry_run=dry_run, no_push=no_push, as_json=as_json))
    if memory_class and not promote:
        raise UserError(
            "--class goes with --promote NOTE (the note becomes a memory of that class)"
        )
    if promote and not (memory_class or drafts or records):
        raise UserError(
            "--promote NOTE needs --class CLASS (the note becomes that memory), --draft FILE "
            "or --record FILE (your file replaces the note)"
        )
    if promote and memory_class and drafts:
        raise UserError("--promote NOTE --class CLASS makes the memory from the note: no --draft")
    repo, target = open_target(base, sending=not (dry_run or no_push), cache_dir=home.proposals)
    from teambrain_schema.paths import BrainLayout

    from .._console.trust import ask_to_approve
    from .._proposals.drafts import load_draft_file
    from .._proposals.records import note_draft, note_relpath

    layout = BrainLayout(repo.root)
    removal = note_relpath(layout, promote) if promote else None
    keys = repo_keys(repo.root, home, say=say, record=not dry_run)
    repo_key = keys.key
    submissions, record_candidates = _record_submissions(records, propose_all, home, keys)
    memory_drafts = [load_draft_file(source) for source in drafts]
    if removal and memory_class:
        memory_drafts.append(note_draft(layout, removal, memory_class))
    run: ProposeRun | None = None
    code: int = ExitCode.OK
    if candidate_ids or propose_all or memory_drafts or not submissions:
        if layout.root.is_dir():  # the near-duplicate guard embeds the drafts
            ask_to_approve(layout, home, ("retrieval.embedder", "org_brain"))
        named = (*drafts, *((removal,) if removal and memory_class else ()))
        chosen, spool = _select(candidate_ids, propose_all, named, home, keys)
        chosen += [
            c for c in _draft_candidates(memory_drafts, home, spool, dry_run, repo_key)
            if c.candidate_id not in {k.candidate_id for k in chosen}
        ]  # fmt: skip
        run = propose_candidates(
            chosen, repo=repo, target=target, ledger=SpoolLedger(home), patch_dir=home.proposals,
            spool=spool, dry_run=dry_run, push=not no_push, allow_similar=allow_similar,
            guard=near_duplicate_guard(repo), strict_citations=strict_citations,
            removals=[removal] if removal and not submissions else (),
        )  # fmt: skip
        code = _exit_code(run)
    record_run = None
    if submissions:
        from teambrain_sync import propose_records

        record_run = propose_records(
            repo, submissions, target=target, patch_dir=home.proposals,
            removals=[removal] if removal else (), dry_run=dry_run, push=not no_push,
        )  # fmt: skip
        if not dry_run:
            _mark_record_candidates(record_candidates, record_run, home)
        code = max(code, _record_exit_code(record_run))
    if run is None:
        if as_json:
            emit_json({"ok": code == ExitCode.OK, "dry_run": dry_run, "base": target_json(target),
                       "records": _records_json(record_run)})  # fmt: skip
        else:
            _print_records(record_run, target)
        ctx.exit(code)
    if as_json:
        emit_json(
            {
                "records": _records_json(record_run),
                "ok": code == ExitCode.OK,
                "dry_run": dry_run,
                "base": target_json(target),
                "results": [o.to_json() for o in run.outcomes],
                "branch": run.branch,
                "commit": run.commit,
                "review": run.review.to_json() if run.review else None,
                "resent": [r.to_json() for r in run.resent],
                "unsent": list(run.unsent),
                "warnings": run.warnings,
                "base_problems": run.inherited_problems,
                "proposal_branches": [b.to_json() for b in run.branches],
                "tidied": [b.to_json() for b in run.tidied],
            }
        )
    else:
        _print_human(run)
        _print_records(record_run, target)
    ctx.exit(code)


def _record_submissions(
    files: tuple[str, ...], propose_all: bool, home: MachineLayout, keys: RepoKeys
) -> tuple[list[RecordSubmission], list[RecordCandidate]]:
    """The records to propose: the files named, then (with --all) the record drafts agents
    queued for this repository."""
    from teambrain_capture import list_records

    from .._proposals.records import candidate_submission, record_submission

    submissions = [record_submission(source) for source in files]
    queued: list[RecordCandidate] = []
    if propose_all:
        listing = list_records(home)
        for path, reason in listing.broken:
            say(f"tb: skipping unreadable record candidate {path}: {reason}")
        queued = [c for c in listing.records if c.status == "pending" and keys.holds(c.repo)]
        submissions += [candidate_submission(c) for c in queued]
    return submissions, queued


def _mark_record_candidates(
    queued: list[RecordCandidate], run: RecordProposal, home: MachineLayout
) -> None:
    """Record what became of the queued record drafts: proposed on the branch, or rejected
    with the first problem."""
    from teambrain_capture import save_record

    by_source = {record.source: record for record in run.records}
    for candidate in queued:
        found = by_source.get(f"candidate {candidate.candidate_id}")
        if found is None:
            continue
        update: dict[str, object]
        if found.problems:
            update = {"status": "rejected", "reason": found.problems[0][:500]}
        elif run.commit:
            update = {"status": "proposed", "branch": run.branch, "reason": None}
        else:
            continue
        save_record(candidate.model_copy(update=update), machine=home)


def _record_exit_code(run: RecordProposal) -> int:
    if run.failed:
        return ExitCode.VALIDATION_FAILURE
    if run.review is not None and run.review.push_error:
        return ExitCode.ENVIRONMENT_ERROR
    return ExitCode.OK


def _records_json(run: RecordProposal | None) -> dict[str, object] | None:
    if run is None:
        return None
    return {
        "results": [record.to_json() for record in run.records],
        "removed": run.removed,
        "warnings": run.warnings,
        "branch": run.branch if run.commit or run.dry_run else None,
        "commit": run.commit,
        "review": run.review.to_json() if run.review else None,
    }


def _print_records(run: RecordProposal | None, target: ReviewTarget) -> None:
    if run is None:
        return
    for record in run.records:
        if record.problems:
            click.echo(f"{'rejected':<14}record {record.node_id or '?'} ({record.source})")
            for problem in record.problems:
                click.echo(f"{'':14}{problem}")
        else:
            label = "would propose" if run.dry_run else "proposed"
            what = f"record {record.node_id}" if record.kind == "record" else "note"
            click.echo(f"{label:<14}{what} ({record.action})")
            click.echo(f"{'':14}{record.relpath}")
    for path in run.removed:
        click.echo(f"{'removes':<14}{path} (promoted)")
    for warning in run.warnings:
        say(f"warning: {warning}")
    if run.failed:
        say("Nothing committed: the ontology refused a record (fix it and propose again).")
    elif run.review is not None:
        report_review(run.review, target)
    elif run.dry_run:
        say(f"Dry run: nothing committed (branch would be {run.branch}).")


def _fix_citations(
    home: MachineLayout, *, base: str | None, dry_run: bool, no_push: bool, as_json: bool
) -> int:
    """``tb propose --fix-citations``: one reviewed edit following every cited path git saw
    move; never a silent rewrite of the brain."""
    from teambrain_sync import propose_citation_fixes

    repo, target = open_target(base, sending=not (dry_run or no_push), cache_dir=home.proposals)
    outcome = propose_citation_fixes(
        repo, target=target, patch_dir=home.proposals, dry_run=dry_run, push=not no_push
    )
    review = outcome.review
    # A failed push, or a pull request gh did not open, is a failure here as everywhere
    # (exit 2): the branch is kept, and the next run sends it again.
    failed = any(r.push_error is not None or r.pr_failed for r in outcome.reviews())
    code = ExitCode.ENVIRONMENT_ERROR if failed else ExitCode.OK
    if as_json:
        emit_json(
            {
                "ok": code == ExitCode.OK,
                "dry_run": dry_run,
                "base": target_json(target),
                "fixes": [
                    {"id": f.id, "title": f.title, "path": f.relpath,
                     "moves": [{"from": old, "to": new} for old, new in f.moves],
                     "evidence": [{"from": old, "to": new, "how": how}
                                  for old, new, how in f.evidence]}
                    for f in outcome.fixes
                ],
                "not_fixable": list(outcome.stale_without_fix),
                "branch": outcome.branch if outcome.fixes else None,
                "commit": outcome.commit,
                "review": review.to_json() if review else None,
                "resent": [r.to_json() for r in outcome.resent],
                "unsent": list(outcome.unsent),
                "notes": list(outcome.notes),
            }
        )  # fmt: skip
        return code
    for fix in outcome.fixes:
        click.echo(
            f"follows {'moved code' if fix.moves else 'merged evidence'}: {fix.id} {fix.title}"
        )
        for old, new in fix.moves:
            click.echo(f"{'':14}`{old}` -> `{new}`")
        for old, new, how in fix.evidence:
            click.echo(f"{'':14}evidence {old[:12]} -> {new[:12]} ({how})")
    for line in outcome.stale_without_fix:
        say(f"stale, no rename to follow (edit or retire it by hand): {line}")
    for note in outcome.notes:
        say(f"note: {note}")
    for sent in outcome.reviews():
        report_review(sent, target)
    report_unsent(outcome.unsent, target.remote)
    if review is not None:
        return code
    if not outcome.fixes:
        say("No cited path has moved and no evidence commit was rewritten: nothing to propose.")
    elif dry_run:
        say(f"Dry run: nothing committed (branch would be {outcome.branch}).")
    return code


def _print_human(run: ProposeRun) -> None:
    if not run.outcomes:
        say("No candidates to propose.")
        return
    for outcome in run.outcomes:
        click.echo(_line(outcome, terminal_width()))
        for similar in outcome.similar if outcome.result != "rejected" else ():
            click.echo(f"{'':14}similar: {similar.describe()}")
        for reason in outcome.stale if outcome.result != "rejected" else ():
            click.echo(f"{'':14}warning: stale at birth: {reason}")
        for note in outcome.notes:
            click.echo(f"{'':14}note: {note}")
    report_tidied(run.tidied)
    for warning in run.warnings:
        say(warning)
    if run.inherited_problems:
        say(
            f"note: the brain at {run.target.base.requested} already has "
            f"{len(run.inherited_problems)} lint problem(s), e.g. {run.inherited_problems[0]}"
        )
    for review in run.reviews():
        report_review(review, run.target)
    report_unsent(run.unsent, run.target.remote)
    if run.reviews():
        return
    if run.dry_run:
        say("Dry run: nothing written, marked or committed.")
    elif any(o.failed for o in run.outcomes):
        say("Nothing to commit: no candidate passed the checks.")
    else:
        say("Nothing new to propose.")
