"""``tb metrics``: a local health and context-efficiency snapshot (reads; captures nothing)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import click
from teambrain_schema import UserError
from teambrain_schema.brain import load_brain
from teambrain_schema.paths import find_brain

from .._console.context import machine
from .._reports.cells import Audience
from .._reports.metrics import (
    MetricsSnapshot,
    count_memories,
    recent_activity,
    render_metrics_json,
    render_metrics_text,
)
from .._reports.status import NO_BRAIN, retrieval_status, serve_status


@click.command("metrics")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot as JSON.")
@click.option(
    "--team", is_flag=True,
    help="The team's weekly figures instead: from the brain's shared database, or combined "
    "from the `tb digest --format json` files given (one per member).",
)  # fmt: skip
@click.option(
    "--since", metavar="WHEN",
    help="With --team: weeks from this one on (2026-07-01, 8w, 30d; default 12w).",
)  # fmt: skip
@click.argument(
    "reports", nargs=-1, metavar="[FILE]...", type=click.Path(dir_okay=False, path_type=Path)
)
def command(as_json: bool, team: bool, since: str | None, reports: tuple[Path, ...]) -> None:
    """Local health and context-efficiency snapshot: memories, index freshness, serve
    heartbeat, embedder, and the last 7 days of sessions (the digest's figures: your own
    numbers, each marked `[n of 5]` where a shared report would show `<5`; --json is
    shared and shows `<5`).

    \b
    Examples:
      tb metrics
      tb metrics --json
      tb metrics --team                          the team's figures, from the shared database
      tb metrics --team alice.json bob.json carol.json    combined from exported digests
    """
    now = dt.datetime.now(dt.UTC)
    if team:
        _team(now, since, reports, as_json=as_json)
        return
    if reports or since:
        raise UserError("FILE arguments and --since go with --team")
    home = machine()
    layout = find_brain()
    if layout is not None:
        from teambrain_schema.staleness import stale_memories

        brain = load_brain(layout)
        memories = count_memories(brain, now.date())
        # Stale and served: TTLs that ran out are counted as expired already.
        stale = [m for m in stale_memories(layout, brain=brain, today=now.date()) if m.citations]
        memories = dataclasses.replace(memories, stale=len(stale))
        index, embedder = retrieval_status(layout, home, now)
    else:
        memories, index, embedder = None, NO_BRAIN, NO_BRAIN
    snapshot = MetricsSnapshot(
        generated=now,
        brain=str(layout.repo_root) if layout else None,
        memories=memories,
        index=index,
        serve=serve_status(home, layout, now),
        embedder=embedder,
        # The text is this machine's own view; JSON is read by programs and may be passed on.
        recent=recent_activity(
            home, now=now, audience=Audience.SHARED if as_json else Audience.OWN
        ),
    )
    if as_json:
        click.echo(render_metrics_json(snapshot), nl=False)
    else:
        from .._console.output import terminal_width, wrap_text

        click.echo(wrap_text(render_metrics_text(snapshot), terminal_width()), nl=False)


def _team(now: dt.datetime, since: str | None, reports: tuple[Path, ...], *, as_json: bool) -> None:
    """``--team``: the team's weekly figures (see _reports/team.py)."""
    from teambrain_retrieval import MIN_MEMBERS, combine_cells

    from .._reports.team import read_reports, render_team_text, team_view, week_of
    from .._reports.window import resolve_window

    first = week_of(resolve_window(since or "12w", None, now=now).since.date())
    layout = find_brain()
    if reports:
        members = read_reports(list(reports))
        cells = [c for c in combine_cells(members) if c.week >= first]
        view = team_view(f"{len(members)} report(s)", cells, MIN_MEMBERS, members=len(members))
    else:
        from .._reports.team_db import read_team

        if layout is None:
            raise UserError(
                "--team: not inside a repository with a brain; give the members' "
                "`tb digest --format json` files to combine them instead"
            )
        brain, cells = read_team(layout, machine(), first)
        view = team_view(f"brain {brain} (shared database)", cells, MIN_MEMBERS)
    if as_json:
        import json

        click.echo(json.dumps(view.to_json(), indent=2, sort_keys=True))
        return
    titles: dict[str, str] = {}
    if layout is not None:
        from .digest import brain_facts

        titles = brain_facts()[0]
    click.echo(render_team_text(view, titles), nl=False)
