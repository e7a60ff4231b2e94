"""``tb digest``: the FlightDeck v0 report — safe aggregates of this machine's agent sessions."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
from teambrain_capture import RepoKeys, repo_keys
from teambrain_schema import UserError
from teambrain_schema.brain import load_brain
from teambrain_schema.paths import MachineLayout, find_brain

from .._console.choice import Choice
from .._console.context import machine
from .._console.output import say
from .._reports.cells import Audience
from .._reports.digest import DigestReport, build_digest
from .._reports.render import (
    REPORT_FORMATS,
    ReportFormat,
    render_digest,
    slack_payload,
    slack_text,
    write_report,
)
from .._reports.slack import post_slack, resolve_slack_webhook
from .._reports.window import ReportWindow, resolve_window

SUFFIX_FORMATS: dict[str, ReportFormat] = {
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
}


OWN_HINT = (
    "Figures over fewer than 5 sessions show <5 in what is shared; "
    "`tb digest --format text` shows your own numbers."
)


def hides_any(report: DigestReport) -> bool:
    """Whether a shared report hides at least one figure (``<5`` anywhere in it)."""
    import json

    return '"<5"' in json.dumps(report.to_json())


def brain_facts() -> tuple[dict[str, str], list[tuple[str, str, tuple[str, ...]]]]:
    """What reports say of the brain you are in (nothing outside one), read once: each
    memory's title, so reports name them, and the memories whose citations no longer hold
    (still served, marked)."""
    from teambrain_schema.staleness import stale_memories

    layout = find_brain()
    if layout is None:
        return {}, []
    brain = load_brain(layout)
    titles = {
        memory_id: brain_file.document.front.title
        for memory_id, brain_file in brain.by_id().items()
        if brain_file.document is not None
    }
    stale = [
        (m.id, m.title, tuple(s.reason for s, _ in m.citations))
        for m in stale_memories(layout, brain=brain)
        if m.citations
    ]
    return titles, stale


@click.command("digest")
@click.option(
    "--format", "fmt", type=Choice(REPORT_FORMATS),
    help="Print (or, with --out, write) the report as text, markdown or json instead of "
    "composing the Slack message.",
)  # fmt: skip
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), metavar="PATH",
    help="Write the report to this file (atomically; never inside .teambrain/). The format "
    "defaults from the suffix: .md markdown, .json json, else text.",
)  # fmt: skip
@click.option(
    "--since", metavar="WHEN",
    help="Start of the window: 2026-07-01, 2026-07-01T09:00Z, 7d, 12h, 2w (default 7d).",
)  # fmt: skip
@click.option(
    "--until", metavar="WHEN",
    help="End of the window, same forms (default now; a date includes that day).",
)  # fmt: skip
@click.option(
    "--repo", metavar="NAME", help="Only sessions whose repo join key is exactly this; `.` means the repository "
    "you are in (default: every repository).",
)  # fmt: skip
@click.option(
    "--publish", is_flag=True,
    help="Send this repository's weekly figures (the ISO weeks the window touches, small cells "
    "suppressed; no ids of sessions, no paths, prompts or text) to the brain's shared database "
    "for `tb metrics --team`. Needs digest.publish_to_team = true in "
    "$TEAMBRAIN_HOME/user/config.toml.",
)  # fmt: skip
def command(  # click passes every option by name
    *,
    fmt: ReportFormat | None,
    out: Path | None,
    since: str | None,
    until: str | None,
    repo: str | None,
    publish: bool,
) -> None:
    """Aggregate the captured sessions of a window into a report nobody can be picked out of.

    Every figure over fewer than 5 sessions shows `<5` in what is shared: the Slack message,
    markdown, json and any --out file. `--format text` printed here is your own view: every
    number, marked `[n of 5]` where a shared report hides it. Without --format or --out,
    composes a Slack message and posts it when a webhook is configured (the variable named by
    digest.slack_webhook_env in $TEAMBRAIN_HOME/user/config.toml), else prints it as a dry run.

    \b
    Examples:
      tb digest                                  dry run of the Slack message
      tb digest --since 7d --format markdown --out reports/week.md
      tb digest --format json
      tb digest --publish --since 4w             share your weekly figures with the team
    """
    window = resolve_window(since, until)
    home = machine()
    if publish:
        if fmt is not None or out is not None or repo is not None:
            raise UserError("--publish takes only --since and --until")
        _publish(home, window)
        return
    keys: RepoKeys | str | None = repo
    if repo == ".":  # this repository, under its current key and the ones it had before
        keys = repo_keys(Path.cwd(), home, say=say)
        if keys.key is None:
            raise UserError("--repo .: not inside a git repository")
    # Text printed here is the person's own view; everything else may leave the machine.
    own = fmt == "text" and out is None
    report = build_digest(
        home, window, repo=keys, audience=Audience.OWN if own else Audience.SHARED
    )
    titles, stale = brain_facts()
    report = dataclasses.replace(report, stale=stale)
    if out is not None:
        chosen = fmt or SUFFIX_FORMATS.get(out.suffix.lower(), "text")
        target = write_report(out, render_digest(report, chosen, titles))
        say(
            f"Wrote the {chosen} digest to {target} (a derived file: never commit it to the brain)."
        )
        return
    if fmt is not None:
        text = render_digest(report, fmt, titles)
        if fmt == "text":  # for a person: wrapped to the terminal (piped, left whole)
            from .._console.output import terminal_width, wrap_text

            text = wrap_text(text, terminal_width())
        click.echo(text, nl=False)
        return
    text = slack_text(report, titles)
    lookup = resolve_slack_webhook(home)
    if lookup.webhook is None:
        click.echo(text)
        say(f"Dry run: not posted to Slack ({lookup.reason}).")
        if hides_any(report):
            say(OWN_HINT)
        return
    post_slack(lookup.webhook, slack_payload(text))
    say(f"Digest posted to Slack ({lookup.reason}).")


def _publish(home: MachineLayout, window: ReportWindow) -> None:
    """``--publish``: this repository's weekly figures to the brain's shared database."""
    from teambrain_capture import load_user_config

    from .._reports.digest import member_weeks
    from .._reports.team_db import publish_weeks

    config = load_user_config(home)
    if not config.publish_to_team:
        raise UserError(
            "--publish: not opted in on this machine; to share your weekly figures with the "
            "team, set publish_to_team = true under [digest] in "
            f"{home.home / 'user' / 'config.toml'} (`tb help metrics`)"
        )
    layout = find_brain()
    if layout is None:
        raise UserError("--publish: not inside a repository with a brain")
    keys = repo_keys(layout.repo_root, home, say=say)
    if keys.key is None:
        raise UserError("--publish: the brain is not in a git repository")
    weeks = member_weeks(home, window, repo=keys)
    brain, rows = publish_weeks(layout, home, weeks)
    first, last = weeks[0].week, weeks[-1].week
    say(
        f"Published this machine's figures of {len(weeks)} week(s) ({first} to {last}, "
        f"{rows} figures, small cells suppressed) for brain {brain}; `tb metrics --team` "
        "shows the team's."
    )
