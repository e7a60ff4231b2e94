"""``tb relevant``: the team memories relevant to a question or to some files, as an agent sees
them (each body inside the rendering rule's fence)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from teambrain_schema import UserError

from .._context import require_brain
from .._output import emit_json, say

if TYPE_CHECKING:
    from teambrain_retrieval import Hit, Retriever
    from teambrain_schema import BrainLayout

MAX_K = 50


def build_retriever(layout: BrainLayout) -> Retriever:
    """The retriever this verb reads through (one place, so options such as a ref can pick
    another brain snapshot)."""
    from teambrain_retrieval import open_retriever

    return open_retriever(layout)


def format_hit(position: int, hit: Hit) -> str:
    """One result for a terminal: title, where it comes from, then the fenced body."""
    from teambrain_schema import render_memory

    front = hit.memory.front
    commit = (hit.provenance.commit or "uncommitted")[:12]
    meta = f"{front.class_} · {front.priority} · {hit.provenance.path} @ {commit}"
    return f"{position}. {front.title}\n   {meta}\n{render_memory(front.id, hit.memory.body)}"


@click.command("relevant")
@click.option("--query", "-q", "query", metavar="TEXT", help="Find memories about this text.")
@click.option(
    "--paths",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Find memories about these files or folders (globs; more may follow as arguments).",
)
@click.argument("more_paths", nargs=-1, metavar="[GLOB]...")
@click.option("--k", "k", type=int, default=None, help="How many memories (default: brain.yaml retrieval.k).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the ranked results as JSON.")
def command(
    query: str | None, paths: tuple[str, ...], more_paths: tuple[str, ...], k: int | None,
    as_json: bool,
) -> None:  # fmt: skip
    """Print the live team memories most relevant to --query TEXT and/or --paths GLOB…

    Ranked by hybrid keyword + semantic search (or, for paths, by the files and folders the
    memories name), filtered to active, in-scope, unexpired, unsuperseded memories.
    """
    if more_paths and not paths:
        raise UserError(f"unexpected argument {more_paths[0]!r}: use --query TEXT or --paths GLOB")
    globs = [g for g in (*paths, *more_paths) if g.strip()]
    text = (query or "").strip()
    if not text and not globs:
        raise UserError("give --query TEXT or --paths GLOB (or both)")
    if k is not None and not 1 <= k <= MAX_K:
        raise UserError(f"--k must be between 1 and {MAX_K}, not {k}")
    retriever = build_retriever(require_brain())
    limit = k or retriever.config.retrieval.k
    if globs and text:
        hits = retriever.search_combined(text, globs, limit)
    elif globs:
        hits = retriever.search_paths(globs, limit)
    else:
        hits = retriever.search(text, limit)
    if as_json:
        emit_json([hit.to_result().model_dump(mode="json", by_alias=True) for hit in hits])
        return
    if not hits:
        say("no live memory matches")
        return
    click.echo("\n\n".join(format_hit(i, hit) for i, hit in enumerate(hits, start=1)))
