"""``tb metrics``: a local health and context-efficiency snapshot (reads; captures nothing)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import click
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
def command(as_json: bool) -> None:
    """Local health and context-efficiency snapshot: memories, index freshness, serve
    heartbeat, embedder, and the last 7 days of sessions (the digest's figures: your own
    numbers, each marked `[n of 5]` where a shared report would show `<5`; --json is
    shared and shows `<5`).

    \b
    Examples:
      tb metrics
      tb metrics --json
    """
    now = dt.datetime.now(dt.UTC)
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
