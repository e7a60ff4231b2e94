"""``tb retire <id> <reason>``: a reviewed retirement on its own proposal branch."""

from __future__ import annotations

import click
from teambrain_schema import ExitCode

from .._console.context import machine
from .._console.output import emit_json, say
from .._proposals.review import open_target, report_review, report_tidied, target_json


@click.command("retire")
@click.argument("memory_id")
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
    with status: retired and records the reason in INDEX.md and the commit message. Your
    checkout, index and HEAD are not touched. The branch is pushed when there is a remote and
    a pull request is opened with gh when it is logged in; merging it is the approval.
    """
    from teambrain_sync import propose_retirement

    repo, target = open_target(base)
    outcome = propose_retirement(
        repo, memory_id.strip(), " ".join(reason), target=target,
        patch_dir=machine().proposals, dry_run=dry_run, push=not no_push,
    )  # fmt: skip
    retirement = outcome.retirement
    review = outcome.review
    push_failed = review is not None and review.push_error is not None
    if as_json:
        emit_json(
            {
                "ok": not push_failed,
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
                "warnings": [v.format() for v in outcome.check.warnings],
                "notes": list(outcome.notes),
                "tidied": [b.to_json() for b in outcome.tidied],
            }
        )
    else:
        verb = "Would retire" if dry_run else "Retired"
        click.echo(f"{verb} {retirement.id} {retirement.title!r}")
        click.echo(f"  {retirement.old_relpath} -> {retirement.new_relpath}")
        click.echo(f"  reason: {retirement.reason}")
        for warning in outcome.check.warnings:
            say(warning.format())
        for note in outcome.notes:
            say(f"note: {note}")
        report_tidied(outcome.tidied)
        if review is not None:
            report_review(review, target)
        else:
            say(f"Dry run: nothing committed (branch would be {outcome.branch}).")
    ctx.exit(ExitCode.ENVIRONMENT_ERROR if push_failed else ExitCode.OK)
