"""``tb candidates``: the review queue before ``tb propose`` — list the candidates waiting in this
machine's spool, show one with the checks it faces, drop the ones nobody wants."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from teambrain_schema import UserError

from .._console.choice import Choice
from .._console.output import emit_json, fit, paint, say, terminal_width
from .._proposals.edit import EditOutcome
from .._proposals.queue import (
    CandidateStatus,
    candidate_json,
    drop_candidates,
    find_candidate,
    read_queue,
    review_candidate,
    shown,
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
    draft = shown(candidate).draft
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
      tb candidates edit 7QH2          fix its title, body, class or tags in your editor
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

    candidate = shown(review.candidate)
    draft = candidate.draft
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
    from teambrain_schema.render import one_line, sanitise_body
    from teambrain_sync import open_repo

    from .._console.context import machine, require_brain

    candidate = find_candidate(machine(), candidate_id)
    if find_repo_root() is None:
        if as_json:
            emit_json({"ok": True, "candidate": candidate_json(candidate), "checks": None})
            return
        say("tb: not in a git repository: showing the candidate without its checks")
        draft = shown(candidate).draft
        click.echo("\n".join([one_line(draft.title), "", sanitise_body(draft.body)]))
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


def _insert_problems(text: str, problems: tuple[str, ...]) -> str:
    """The user's edited form again, the problems said in ``# tb:`` lines at its top (old ones
    replaced): what they re-open."""
    from .._proposals.edit import FORM_NOTE

    lines = [line for line in text.split("\n") if not line.startswith(f"{FORM_NOTE} PROBLEM:")]
    notes = [f"{FORM_NOTE} PROBLEM: {' '.join(problem.split())}" for problem in problems]
    if lines and lines[0].strip() == "---":
        return "\n".join([lines[0], *notes, *lines[1:]])
    return "\n".join(["---", *notes, "---", *lines])


def _keep_edit(candidate_id: str, text: str) -> str:
    """Save a refused edit where the user finds it again (private, like git's COMMIT_EDITMSG)."""
    from teambrain_capture import ensure_private_dir
    from teambrain_schema.atomic import write_text_atomic

    from .._console.context import machine

    folder = machine().spool / "edits"
    ensure_private_dir(folder)
    path = folder / f"{candidate_id}.md"
    write_text_atomic(path, text, mode=0o600)
    return str(path)


@command.command("edit")
@click.argument("candidate_id", metavar="ID", shell_complete=complete_candidate_ids)
@click.option("--title", metavar="TEXT", help="The new title (no editor opens).")
@click.option(
    "--class", "memory_class", type=Choice(["decision", "convention", "map", "learning"]),
    help="The new class (no editor opens).",
)  # fmt: skip
@click.option("--add-tag", "add_tags", multiple=True, metavar="TAG", help="Add a tag (repeat for several; no editor opens).")  # fmt: skip
@click.option("--remove-tag", "remove_tags", multiple=True, metavar="TAG", help="Remove a tag (repeat for several; no editor opens).")  # fmt: skip
@click.option(
    "--file", "-F", "form_file", metavar="FILE",
    help="Take the edited form from FILE (- for stdin) instead of opening an editor.",
)  # fmt: skip
@click.option(
    "--no-similar", is_flag=True,
    help="Skip the near-duplicate search after saving (it loads the embedding model).",
)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the outcome and the checks as JSON.")
def edit_command(
    *, candidate_id: str, title: str | None, memory_class: str | None, add_tags: tuple[str, ...],
    remove_tags: tuple[str, ...], form_file: str | None, no_similar: bool, as_json: bool,
) -> None:  # fmt: skip
    """Edit candidate ID before it is proposed: title, body, class, tags, priority, scope.

    Opens your editor on the candidate as a memory file (front matter, then the body): $VISUAL,
    else $EDITOR, else vi. When you save and close, it is checked again as `tb candidates
    show` checks it. Schema and lint limits, secrets and prompt injection refuse the edit: on
    a terminal you are asked whether to edit again (your text, the problems at its top);
    otherwise the candidate is left as it was and your edit is kept in a file (as git keeps a
    commit message) to pass back with --file. Emptying the file cancels. --title, --class,
    --add-tag, --remove-tag and --file change it without an editor. A candidate already
    proposed is edited in its pull request.

    \b
    Examples:
      tb candidates edit 1D8C
      tb candidates edit 1D8C --title "Money is integer cents" --class decision
      tb candidates edit 1D8C --add-tag payments --remove-tag imported
      tb candidates edit 1D8C --file edited.md
    """
    from teambrain_schema import ExitCode, ValidationFailure
    from teambrain_schema.paths import find_repo_root

    from .._console.context import machine, require_brain
    from .._console.editor import edit_text, on_terminal
    from .._proposals.edit import candidate_form, edit_candidate, form_changes

    home = machine()
    candidate = find_candidate(home, candidate_id)
    if candidate.status == "proposed":
        raise UserError(
            f"candidate {candidate.candidate_id} was already proposed as "
            f"{candidate.proposed_as}: edit it in its pull request instead"
        )
    layout = repo = None
    if find_repo_root() is not None:
        from teambrain_sync import open_repo

        layout = require_brain()
        repo = open_repo(layout.repo_root)
    started = candidate.content_hash

    def apply(changes: dict[str, object]) -> EditOutcome:
        return edit_candidate(
            home, candidate, changes, layout=layout, repo=repo, similar=not no_similar,
            expected_hash=started,
        )  # fmt: skip

    flags = title is not None or memory_class is not None or add_tags or remove_tags
    if flags or form_file is not None:
        if flags and form_file is not None:
            raise UserError("give --file or the field options (--title, --class, --add-tag, --remove-tag), not both")  # fmt: skip
        if form_file is not None:
            from .._proposals.drafts import read_draft_source

            found = form_changes(read_draft_source(form_file), form_file)
            if found is None:
                raise UserError(
                    f"{form_file} is empty: candidate {candidate.candidate_id} unchanged"
                )
            changes: dict[str, object] = found
        else:
            changes = {}
            if title is not None:
                changes["title"] = title
            if memory_class is not None:
                changes["class"] = memory_class
            if add_tags or remove_tags:
                tags = [t for t in candidate.draft.tags if t not in remove_tags]
                changes["tags"] = tags + [t for t in add_tags if t not in tags]
        outcome = apply(changes)
        if outcome.refused:
            _refused(outcome, as_json, kept=None)
            raise SystemExit(ExitCode.VALIDATION_FAILURE)
        _edited(outcome, as_json)
        return

    text = candidate_form(candidate)
    name = f"candidate-{candidate.candidate_id}.md"
    while True:
        text = edit_text(text, name=name)
        try:
            found = form_changes(text, name)
        except ValidationFailure as exc:
            outcome = EditOutcome(candidate, False, True, None, (exc.message,))
        else:
            if found is None:
                raise UserError(
                    f"the form was emptied: candidate {candidate.candidate_id} unchanged"
                )
            outcome = apply(found)
        if not outcome.refused:
            _edited(outcome, as_json)
            return
        for problem in outcome.problems:
            say(f"tb: {problem}")
        if (
            not as_json
            and on_terminal()
            and click.confirm("Edit it again?", default=True, err=True)
        ):
            text = _insert_problems(text, outcome.problems)
            continue
        _refused(outcome, as_json, kept=_keep_edit(candidate.candidate_id, text))
        raise SystemExit(ExitCode.VALIDATION_FAILURE)


def _edited(outcome: EditOutcome, as_json: bool) -> None:
    if outcome.saved:  # a refused edit kept earlier is not needed any more
        from .._console.context import machine

        (machine().spool / "edits" / f"{outcome.candidate.candidate_id}.md").unlink(missing_ok=True)
    if as_json:
        emit_json({"ok": True, **outcome.to_json()})
        return
    from teambrain_schema.render import one_line

    candidate = outcome.candidate
    if not outcome.changed:
        say(f"No change: candidate {candidate.candidate_id} is as it was.")
    else:
        say(f"Edited candidate {candidate.candidate_id}: {one_line(candidate.draft.title)!r}")
    if outcome.review is not None:
        lines = format_review(outcome.review)
        click.echo("\n".join(lines[lines.index(paint("Checks", bold=True)) :]))


def _refused(outcome: EditOutcome, as_json: bool, kept: str | None) -> None:
    candidate_id = outcome.candidate.candidate_id
    if as_json:
        emit_json({"ok": False, **outcome.to_json(), "kept": kept})
        return
    if kept is None:  # the options' problems were not said yet
        for problem in outcome.problems:
            say(f"tb: {problem}")
    say(f"tb: candidate {candidate_id} unchanged (the checks refused the edit)")
    if kept is not None:
        say(f"  your edit is kept in {kept}: fix it, then `tb candidates edit {candidate_id} "
            f"--file {kept}`")  # fmt: skip
