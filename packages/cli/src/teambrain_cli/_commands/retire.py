"""``tb retire <id> <reason>``: a reviewed retirement on its own proposal branch."""

from __future__ import annotations

from pathlib import Path

import click
from teambrain_schema import ExitCode

from .._console.context import machine
from .._console.ids import resolve_id
from .._console.output import emit_json, say
from .._proposals.review import (
    open_target,
    report_review,
    report_tidied,
    report_unsent,
    target_json,
)
from ._complete import complete_memory_ids


def _full_id(repo_root: Path, given: str) -> str:
    """The memory id ``given`` names in the checkout's brain (a prefix or suffix of 4+
    characters will do, as for `tb show`); as given when nothing here matches (the base may
    hold it)."""
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema.brain import load_brain
    from teambrain_schema.ids import is_ulid

    text = given.strip()
    if is_ulid(text.upper()):
        return text.upper()
    layout = BrainLayout(repo_root)
    if not layout.root.is_dir():
        return text
    ids = [f.document.front.id for f in load_brain(layout).files if f.document is not None]
    return resolve_id(ids, text, what="memory", listing="tb list")


@click.command("retire")
@click.argument("memory_id", shell_complete=complete_memory_ids)
@click.argument("reason", nargs=-1, required=True)
@click.option("--base", metavar="REF", help="Commit, tag or branch to start from.")
@click.option("--dry-run", is_flag=True, help="Check and show the retirement; commit nothing.")
@click.option("--no-push", is_flag=True, help="Keep the branch local even when a remote exists.")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
@click.pass_context
def command(
    ctx: click.Context,
    *,
    memory_id: str,
    reason: tuple[str, ...],
    base: str | None,
    dry_run: bool,
    no_push: bool,
    as_json: bool,
) -> None:
    """Retire memory MEMORY_ID because REASON (the rest of the line).

    On a new branch teambrain/retire-<id>, one commit moves the file to .teambrain/retired/
    with status: retired and records the reason in the commit message (INDEX.md is left to
    the default branch, which lists it once merged). Your checkout, index and HEAD are not touched. The branch is pushed when there is a remote and
    a pull request is opened with gh when it is logged in; merging it is the approval.

    \b
    Examples:
      tb retire 01KB2F0A1S9Y4Q7V3C8D5E6F04 "the fake clock is the default fixture now"
      tb retire 6F04 superseded by the new logging decision --dry-run
    """
    from teambrain_sync import propose_retirement

    home = machine()
    repo, target = open_target(base, sending=not (dry_run or no_push), cache_dir=home.proposals)
    outcome = propose_retirement(
        repo, _full_id(repo.root, memory_id), " ".join(reason), target=target,
        patch_dir=home.proposals, dry_run=dry_run, push=not no_push,
    )  # fmt: skip
    retirement = outcome.retirement
    review = outcome.review
    push_failed = review is not None and review.push_error is not None
    # Not in review (its pull request was not opened), or another branch left unsent still is.
    not_sent = push_failed or any(
        r.push_error is not None or r.pr_failed for r in outcome.reviews()
    )
    if as_json:
        emit_json(
            {
                "ok": not not_sent,
                "dry_run": dry_run,
                "memory": {
                    "id": retirement.id,
                    "title": retirement.title,
                    "from": retirement.old_relpath,
                    "to": retirement.new_relpath,
                },
                "reason": retirement.reason,
                "base": target_json(target),
                "branch": outcome.branch,
                "commit": outcome.commit,
                "review": review.to_json() if review else None,
                "resent": [r.to_json() for r in outcome.resent],
                "unsent": list(outcome.unsent),
                "warnings": [v.format() for v in outcome.check.warnings],
                "notes": list(outcome.notes),
                "tidied": [b.to_json() for b in outcome.tidied],
            }
        )
    else:
        # Nothing is retired until the review is merged: say what was opened, not "Retired".
        # A push that failed opened no review yet: the branch is committed here, not sent.
        verb = (
            "Would propose retiring"
            if dry_run
            else "Committed, not yet sent for review: retiring"
            if push_failed or (review is not None and review.pr_failed)
            else "Proposed retiring"
        )
        click.echo(f"{verb} memory {retirement.id} {retirement.title!r}")
        click.echo(f"  {retirement.old_relpath} -> {retirement.new_relpath}")
        click.echo(f"  reason: {retirement.reason}")
        for warning in outcome.check.warnings:
            say(warning.format())
        for note in outcome.notes:
            say(f"note: {note}")
        report_tidied(outcome.tidied)
        if review is not None:
            report_review(review, target)
            if not push_failed and not review.pr_failed:
                say("It is retired once that review is merged.")
        else:
            say(f"Dry run: nothing committed (branch would be {outcome.branch}).")
        for sent in outcome.resent:  # branches earlier runs of any verb left unsent
            report_review(sent, target)
        report_unsent(outcome.unsent, target.remote)
    ctx.exit(ExitCode.ENVIRONMENT_ERROR if not_sent else ExitCode.OK)
