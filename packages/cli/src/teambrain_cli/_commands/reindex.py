"""``tb reindex``: regenerate the derived files of the brain and rebuild its search index."""

from __future__ import annotations

import sys
from typing import Any

import click
from teambrain_schema import EnvironmentProblem, regenerate_index

from .._context import machine, require_brain
from .._output import say


class _EmbeddingProgress:
    """A progress bar on a terminal (stderr), nothing when piped."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        if not sys.stderr.isatty() or total == 0:
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label="Embedding memories", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


@click.command("reindex")
@click.option(
    "--prune",
    is_flag=True,
    help="Also forget brains whose repository is no longer on this machine.",
)
def command(prune: bool) -> None:
    """Regenerate .teambrain/INDEX.md and rebuild the search index from the memory files.

    The search index (in $TEAMBRAIN_HOME/index.db) is derived: rebuilding loses nothing.
    Embeddings of unchanged memories come from the cache and are not computed again.
    """
    from teambrain_retrieval import open_retriever, prune_index

    layout = require_brain()
    if prune:
        for brain in prune_index(machine()):
            click.echo(f"Forgot brain {brain}: its repository is no longer on this machine.")
    changed = regenerate_index(layout)
    relpath = layout.relative(layout.index_md)
    click.echo(f"{relpath} regenerated." if changed else f"{relpath} is up to date.")
    retriever = open_retriever(layout)
    progress = _EmbeddingProgress()
    try:
        report = retriever.rebuild(progress)
    finally:
        progress.close()
    if not machine().index_db.is_file():
        raise EnvironmentProblem(
            f"the search index could not be written to {machine().index_db} "
            "(searches still work, from a temporary in-memory index); check TEAMBRAIN_HOME"
        )
    indexed = report.added + report.changed
    status = retriever.embedder_status() if indexed else retriever.stats().embedder
    click.echo(
        f"Search index rebuilt: {indexed} memories ({report.embedded} newly embedded, "
        f"embedder {status}) in {report.seconds:.1f} s."
    )
    for problem in report.problems:
        say(f"skipped {problem}")
