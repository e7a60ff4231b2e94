"""``tb reindex``: regenerate the derived files of the brain and rebuild its search index."""

from __future__ import annotations

import sys
import time
from typing import Any

import click
from teambrain_schema import EnvironmentProblem

from .._console.context import machine, require_brain
from .._console.output import emit_json, say

# Without a terminal (an agent, CI, a pipe), a line at most this often while embedding.
PLAIN_PROGRESS_EVERY_S = 10.0


class _EmbeddingProgress:
    """A progress bar on a terminal (stderr); when piped, a plain line every 10 seconds."""

    def __init__(self, *, quiet: bool = False) -> None:
        self.quiet = quiet
        self.bar: Any = None
        self.shown = 0
        self.done = 0
        self.total = 0
        self.last_line = time.monotonic()

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if total == 0 or self.quiet:
            return
        if not sys.stderr.isatty():
            now = time.monotonic()
            if now - self.last_line >= PLAIN_PROGRESS_EVERY_S and done < total:
                self.last_line = now
                say(f"embedding memories: {done:,} of {total:,} ({100 * done // total}%)")
            return
        if self.bar is None:
            self.bar = click.progressbar(length=total, label="Embedding memories", file=sys.stderr)
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None


# Skipped files named one line each before the rest are counted.
_PROBLEM_LINES = 20


@click.command("reindex")
@click.option(
    "--prune",
    is_flag=True,
    help="Also forget brains whose repository is no longer on this machine.",
)
@click.option(
    "--index-md-only",
    is_flag=True,
    help="Regenerate INDEX.md and stop: no search index, no model (the default branch's "
    "post-merge step in CI).",
)
@click.option(
    "--shared",
    is_flag=True,
    help="Fill the shared Postgres index (retrieval.backend: postgres) instead of this "
    "machine's: migrate its schema, write what changed, embed what is new (CI's step).",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was done as JSON.")
def command(
    prune: bool, *, index_md_only: bool = False, shared: bool = False, as_json: bool = False
) -> None:
    """Regenerate .teambrain/INDEX.md and rebuild the search index from the memory files.

    Rarely needed: every search brings the index up to date with the memory files by itself.
    The search index (in $TEAMBRAIN_HOME/index.db) is derived: rebuilding loses nothing.
    Embeddings of unchanged memories come from the cache and are not computed again.
    Retirement reasons come from INDEX.md as it was and from the retirements' commit messages.

    \b
    Examples:
      tb reindex
      tb reindex --index-md-only      in CI after a merge: INDEX.md only, no model
      tb reindex --prune --json
      tb reindex --shared             in CI after a merge: fill the shared Postgres index
    """
    out: dict[str, object] = {"ok": True}
    echo = (lambda _text: None) if as_json else click.echo
    from teambrain_sync import open_repo, regenerate_index_md

    layout = require_brain()
    try:
        repo = open_repo(layout.repo_root)
    except EnvironmentProblem:
        repo = None
    changed = regenerate_index_md(layout, repo)
    relpath = layout.relative(layout.index_md)
    out["index_md"] = {"path": relpath, "changed": changed}
    echo(f"{relpath} regenerated." if changed else f"{relpath} is up to date.")
    if index_md_only:
        if as_json:
            emit_json(out)
        return
    if shared:
        _fill_shared(layout, out, quiet=as_json)
        if as_json:
            emit_json(out)
        return
    from teambrain_retrieval import open_retriever, prune_index

    if prune:
        forgotten = prune_index(machine())
        out["pruned"] = [str(brain) for brain in forgotten]
        for brain in forgotten:
            echo(f"Forgot brain {brain}: its repository is no longer on this machine.")
    from .._console.trust import ask_to_approve

    ask_to_approve(layout, machine(), ("retrieval.embedder", "org_brain"))
    retriever = open_retriever(layout)
    progress = _EmbeddingProgress(quiet=as_json)
    try:
        report = retriever.rebuild(progress)
    except KeyboardInterrupt:
        progress.close()
        kept = (
            f"{progress.done:,} of {progress.total:,} new embeddings"
            if progress.total
            else ("the embeddings computed so far")
        )
        say(
            f"interrupted: {kept} are kept; run `tb reindex` again to embed only the rest "
            "(searches meanwhile use keywords for what is not embedded yet)"
        )
        raise click.exceptions.Exit(130) from None
    finally:
        progress.close()
    if not machine().index_db.is_file():
        raise EnvironmentProblem(
            f"the search index could not be written to {machine().index_db} "
            "(searches still work, from a temporary in-memory index); check TEAMBRAIN_HOME"
        )
    indexed = report.added + report.changed
    # The model is checked only when this rebuild needed it: with every vector from the cache,
    # loading it just to print its name cost each rebuild (CI's step among them) ~0.3 s CPU.
    # (`tb doctor` checks the model itself.)
    status = retriever.embedder_status(load=report.embedded > 0)
    out["search_index"] = {
        "memories": indexed, "newly_embedded": report.embedded, "embedder": status,
        "seconds": round(report.seconds, 3), "skipped": list(report.problems),
    }  # fmt: skip
    if as_json:
        emit_json(out)
        return
    click.echo(
        f"Search index rebuilt: {indexed} memories ({report.embedded} newly embedded, "
        f"embedder {status}) in {report.seconds:.1f} s."
    )
    for problem in report.problems[:_PROBLEM_LINES]:
        say(f"skipped {problem}")
    if len(report.problems) > _PROBLEM_LINES:  # a commit of 10,000 broken files: not 10,000 lines
        more = len(report.problems) - _PROBLEM_LINES
        say(f"skipped {more} more file(s); `tb lint` names them all")


def _fill_shared(layout: Any, out: dict[str, object], *, quiet: bool) -> None:
    """``--shared``: fill the shared index named by brain.yaml, once this machine approved it."""
    from teambrain_retrieval import (
        SharedIndexUnavailable,
        connect_shared_index,
        embedder_egress,
        fill_shared_index,
        make_embedder,
    )
    from teambrain_schema.brain import load_brain_config

    from .._console.trust import approved_shared_index

    config = load_brain_config(layout)
    url, approvals = approved_shared_index(
        layout, machine(), config.retrieval,
        no_backend="--shared: brain.yaml's retrieval.backend is sqlite; set `backend: postgres` "
        "and `url_env` under retrieval (`tb help deploying-postgres`)",
        label="shared index", ask=("retrieval.embedder", "retrieval.backend"),
    )  # fmt: skip
    embedder = None
    if approvals.is_approved(
        layout.repo_root, embedder_egress(config.retrieval.embedder, layout.repo_root)
    ):
        embedder = make_embedder(config.retrieval.embedder, layout.repo_root)
    progress = _EmbeddingProgress(quiet=quiet)
    try:
        # A fill writes and embeds in long statements: CI's deadline, not a reader's.
        conn = connect_shared_index(url, timeout_s=max(config.retrieval.timeout_s, 600.0))
        try:
            report = fill_shared_index(conn, layout, embedder, progress=progress)
        finally:
            conn.close()
    except SharedIndexUnavailable as exc:
        raise EnvironmentProblem(f"shared index: {exc.reason}") from None
    finally:
        progress.close()
    out["shared_index"] = report.to_json()
    if not quiet:
        click.echo(
            f"Shared index filled: brain {report.brain} at {(report.commit or 'no commit')[:12]}, "
            f"{report.documents} memories ({report.written} written, {report.removed} removed, "
            f"{report.embedded} newly embedded, embedder {report.embedder}) in "
            f"{report.seconds:.1f} s."
        )
        for problem in report.problems[:_PROBLEM_LINES]:
            say(f"skipped {problem}")
