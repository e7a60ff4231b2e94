"""``tb ui``: a local web page over the brain, the review queue, what is stale and whether
memory helps."""

from __future__ import annotations

import click

from .._console.output import say


@click.command("ui")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=False, help="Listen on this port of 127.0.0.1 (default: a random free one).")  # fmt: skip
@click.option("--no-browser", is_flag=True, help="Only print the address; do not open a browser.")
@click.option("--ref", metavar="REF", help="Open the brain as it was at this commit, tag or branch.")  # fmt: skip
@click.option("--at", metavar="ISO", help="Open the brain as it was at this moment (latest commit at or before).")  # fmt: skip
def command(port: int, no_browser: bool, ref: str | None, at: str | None) -> None:
    """Browse the brain, review the queue, see what is stale and whether memory helps, in a
    page served on 127.0.0.1 for this repository.

    Prints the address (with a secret made for this run: only that address is served) and
    opens it in your browser. Runs until Ctrl-C.

    \b
    Examples:
      tb ui
      tb ui --no-browser --port 8765
      tb ui --ref v1.2
    """
    from .._ui.server import run_ui

    run_ui(
        port=port, browser=not no_browser, ref=ref, at=at,
        echo=click.echo, say=say,
    )  # fmt: skip
