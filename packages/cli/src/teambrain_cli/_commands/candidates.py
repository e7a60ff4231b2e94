"""``tb candidates``: the review queue before ``tb propose`` — list the candidates waiting in this
machine's spool, show one with the checks it faces, drop the ones nobody wants."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .._console.choice import Choice
from .._console.output import emit_json, fit, paint, say, terminal_width
from .._proposals.queue import (
    CandidateStatus,
    candidate_json,
    drop_candidates,
    find_candidate,
    read_queue,
    review_candidate,
)
from ._complete import complete_candidate_ids

if TYPE_CHECKING:
    from teambrain_capture import RepoKeys
    from teambrain_schema import Candidate

    from .._proposals.queue import CandidateReview

STATUSES: tuple[CandidateStatus, ...] = ("pending", "proposed", "rejected")
VERDICT_MARKS = {
    "ok": ("ok", "green"),
    "warning": ("warning", "yellow"),
    "blocks": ("blocks", "red"),
}


def _repo_key() -> RepoKeys | None:
    """The spool's keys of the repository around the current directory (None outside one):
    its join key and the ones it was filed under before its remote changed (said once)."""
    from teambrain_capture import repo_keys
    from teambrain_schema.paths import find_repo_root

    from .._console.context import machine

    root = find_repo_root()
    return repo_keys(root, machine(), say=say) if root is not None else None


def format_row(candidate: Candidate, width: int | None) -> str:
    """One candidate: id, status, class, who proposed it and its title, cut to ``width``."""
    draft = candidate.draft
    head = f"{candidate.candidate_id}  {candidate.status:<8}  {draft.class_:<10}  {candidate.proposer:<9} "
    return head + fit(draft.title, None if width is None else max(width - len(head), 12))


STATUS_OPTION = click.option(
    "--status",
    "status",
    type=Choice([*STATUSES, "all"]),
    default="pending",
    show_default=True,
    help="Which candidates: waiting, proposed, dropped or rejected, or all.",
)
ALL_REPOS_OPTION = click.option(
    "--all-repos", is_flag=True, help="Candidates queued for every repository on this machine."
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print the candidates as JSON.")


class WholeSummaries(click.Group):
    """A group listing each subcommand's whole first sentence (click cuts it with "...")."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            sub = self.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                rows.append((name, sub.get_short_help_str(limit=200)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group("candidates", cls=WholeSummaries, invoke_without_command=True)
@STATUS_OPTION
@ALL_REPOS_OPTION
@JSON_OPTION
@click.pass_context
def command(ctx: click.Context, status: str, all_repos: bool, as_json: bool) -> None:
    """The review queue: candidates waiting for `tb propose` on this machine.

    Candidates come from agents (memory_propose), `tb distill` and `tb import`. Nothing in
    the queue reaches the brain until `tb propose` turns it into a reviewed pull request. With
    no subcommand, lists the pending candidates of this repository.

    \b
    Examples:
      tb candidates                    what waits for review here
      tb candidates show 7QH2          one candidate and the checks it would face
      tb candidates drop 7QH2 --reason "not true any more"
      tb propose 7QH2                  propose it (the same checks, a reviewed branch)

    --status, --all-repos and --json are those of `tb candidates list`.
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_command, status=status, all_repos=all_repos, as_json=as_json)
        return
    given = [
        name
        for name in ("status", "all_repos", "as_json")
        if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
    ]
    if given:
        flag = {"status": "--status", "all_repos": "--all-repos", "as_json": "--json"}[given[0]]
        sub = ctx.command.get_command(ctx, ctx.invoked_subcommand)  # type: ignore[attr-defined]
        if sub is not None and any(flag in param.opts for param in sub.params):
            where = f"belongs after the subcommand: `tb candidates {ctx.invoked_subcommand} {flag}`"
        else:
            where = f"is an option of `tb candidates list`, not of `{ctx.invoked_subcommand}`"
        raise click.UsageError(f"{flag} {where}")


@command.command("list")
@STATUS_OPTION
@ALL_REPOS_OPTION
@JSON_OPTION
def list_command(status: str = "pending", all_repos: bool = False, as_json: bool = False) -> None:
    """List the candidates of this repository's review queue, oldest first.

    \b
    Examples:
      tb candidates list
      tb candidates list --status rejected   dropped and rejected ones, with why
      tb candidates list --all-repos --json
    """
    from teambrain_schema.render import one_line

    from .._console.context import machine

    statuses = STATUSES if status == "all" else (status,)
    queue = read_queue(machine(), _repo_key(), statuses=statuses, every_repository=all_repos)  # type: ignore[arg-type]
    if as_json:
        emit_json({"ok": True, **queue.to_json()})
        return
    for path, reason in queue.unreadable:
        say(f"tb: skipping unreadable candidate {path}: {reason}")
    width = terminal_width()
    for candidate in queue.candidates:
        click.echo(format_row(candidate, width))
        if candidate.note and candidate.status != "pending":
            click.echo(paint(fit(f"{'':28}{one_line(candidate.note)}", width), dim=True))
    count = len(queue.candidates)
    summary = f"{count} {status if status != 'all' else ''} candidate{'s' if count != 1 else ''}".replace("  ", " ")  # fmt: skip
    if queue.elsewhere and not all_repos:
        summary += f" ({queue.elsewhere} pending for other repositories: --all-repos)"
    if count and status == "pending":
        summary += "; `tb candidates show ID` to review one, `tb propose ID` or `--all` to propose"
    say(summary)


def format_review(review: CandidateReview) -> list[str]:
    """A candidate in full for a person: the draft, where it came from, the checks it faces."""
    from teambrain_schema.render import one_line, sanitise_body

    candidate, draft = review.candidate, review.candidate.draft
    lines = [
        paint(one_line(draft.title), bold=True),
        f"{candidate.candidate_id} · {draft.class_} · {draft.priority} · {draft.scope} · {candidate.status}",
        f"proposed by {candidate.proposer} on {candidate.created.date().isoformat()}"
        + (f" in session {candidate.sid}" if candidate.sid else ""),
    ]
    if draft.tags:
        lines.append("tags: " + ", ".join(draft.tags))
    evidence = draft.evidence
    if evidence and not evidence.is_empty():
        lines.append(f"evidence: sessions {', '.join(evidence.sessions) or 'none'}; "
                     f"commits {', '.join(evidence.commits) or 'none'}")  # fmt: skip
    if draft.supersedes:
        lines.append("supersedes: " + ", ".join(draft.supersedes))
    if candidate.note:
        lines.append(f"note: {one_line(candidate.note)}")
    body = sanitise_body(draft.body).splitlines()  # an agent's text: no terminal controls
    lines += ["", *body, "", paint("Checks", bold=True)]
    for check in review.checks:
        label, colour = VERDICT_MARKS[check.verdict]
        lines.append(f"  {paint(f'{label:<7}', fg=colour)} {check.name}: {one_line(check.detail)}")
    lines.append("")
    if review.would_propose:
        lines.append(f"`tb propose {candidate.candidate_id}` would propose it.")
    elif candidate.status == "proposed":
        lines.append("Already proposed: review it in its pull request.")
    else:
        lines.append("`tb propose` would not propose it as it is.")
    return lines


@command.command("show")
@click.argument("candidate_id", metavar="ID", shell_complete=complete_candidate_ids)
@click.option(
    "--no-similar",
    is_flag=True,
    help="Skip the near-duplicate search (it loads the embedding model).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the candidate and its checks as JSON.")
def show_command(candidate_id: str, no_similar: bool, as_json: bool) -> None:
    """Show candidate ID in full and the checks `tb propose` would run on it.

    ID is the whole id, or a prefix or suffix of it (4 characters or more) no other candidate
    shares. The checks run against the brain in this checkout: schema and secrets, prompt
    injection, identical content, near-duplicates, citations that do not exist.

    \b
    Examples:
      tb candidates show 01KBX9V8M2Q4RZ7T5W3Y6N1D8C
      tb candidates show 1D8C --json
    """
    from teambrain_schema.paths import BrainLayout, find_repo_root
    from teambrain_schema.render import sanitise_body
    from teambrain_sync import open_repo

    from .._console.context import machine, require_brain

    candidate = find_candidate(machine(), candidate_id)
    if find_repo_root() is None:
        if as_json:
            emit_json({"ok": True, "candidate": candidate_json(candidate), "checks": None})
            return
        say("tb: not in a git repository: showing the candidate without its checks")
        click.echo("\n".join([candidate.draft.title, "", sanitise_body(candidate.draft.body)]))
        return
    layout: BrainLayout = require_brain()
    review = review_candidate(
        candidate, layout=layout, repo=open_repo(layout.repo_root), similar=not no_similar
    )
    if as_json:
        emit_json({"ok": True, **review.to_json()})
        return
    click.echo("\n".join(format_review(review)))


@command.command("drop")
@click.argument(
    "candidate_ids", nargs=-1, required=True, metavar="ID...", shell_complete=complete_candidate_ids
)
@click.option("--reason", metavar="TEXT", help="Why (kept with the candidate).")
@click.option(
    "--delete",
    is_flag=True,
    help="Delete the candidate files instead of keeping them marked rejected.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was dropped as JSON.")
def drop_command(
    candidate_ids: tuple[str, ...], reason: str | None, delete: bool, as_json: bool
) -> None:
    """Drop candidates from the review queue: `tb propose --all` will not take them.

    A dropped candidate stays in the spool marked rejected, with your reason, so the same
    content is not proposed again by accident; `tb propose ID` still takes it if you change
    your mind. --delete removes the files instead.

    \b
    Examples:
      tb candidates drop 1D8C
      tb candidates drop 1D8C 7QH2 --reason "covered by the payments decision"
      tb candidates drop 1D8C --delete
    """
    from .._console.context import machine

    home = machine()
    chosen: dict[str, Candidate] = {}
    for given in candidate_ids:
        found = find_candidate(home, given)
        chosen.setdefault(found.candidate_id, found)
    dropped = drop_candidates(home, list(chosen.values()), reason=reason, delete=delete)
    if as_json:
        emit_json({"ok": True, "dropped": [d.to_json() for d in dropped]})
        return
    for item in dropped:
        verb = "deleted" if item.deleted else "dropped"
        click.echo(f"{verb:<8} {item.candidate_id}  {item.title!r}")
