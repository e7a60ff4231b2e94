"""``tb reindex``: regenerate the derived files of the brain."""

from __future__ import annotations

import click
from teambrain_schema import regenerate_index

from .._context import require_brain


@click.command("reindex")
def command() -> None:
    """Regenerate .teambrain/INDEX.md from the memory files."""
    layout = require_brain()
    changed = regenerate_index(layout)
    relpath = layout.relative(layout.index_md)
    click.echo(f"{relpath} regenerated." if changed else f"{relpath} is up to date.")
