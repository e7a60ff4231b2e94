"""``tb relevant``: the team memories relevant to a question or to some files, as an agent sees
them (each body inside the rendering rule's fence)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING

import click
from teambrain_schema import UserError

from .._console.choice import Choice
from .._console.output import emit_json, fit, fit_middle, paint, say, terminal_width, wrap_lines
from .._console.travel import open_brain, open_served_brain

if TYPE_CHECKING:
    from collections.abc import Sequence

    from teambrain_retrieval import Hit, NoteHit, Situation

MAX_K = 50


GLOB_CHARS = frozenset("*?[")


def repo_globs(globs: list[str], root: Path, cwd: Path) -> list[str]:
    """``globs`` as the brain's paths are written: relative to the repository root. A path
    under the repository given absolutely is made relative to it; from a subfolder, a relative
    glob whose plain leading part exists there (as a shell's expansion does) is taken relative
    to that folder, as git takes a pathspec; any other glob is kept as given (the root's)."""
    root, cwd = root.resolve(), cwd.resolve()
    here = cwd.relative_to(root) if cwd.is_relative_to(root) else None
    out = []
    for glob in globs:
        leading = itertools.takewhile(lambda part: not GLOB_CHARS & set(part), Path(glob).parts)
        plain = Path(*list(leading)[:1])
        if Path(glob).is_absolute():
            resolved = Path(glob).resolve()  # as the root is: links followed, `..` gone
            out.append(
                resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else glob
            )
        elif here is not None and here.parts and str(plain) != "." and (cwd / plain).exists():
            out.append(Path(os.path.normpath(here / glob)).as_posix())
        else:
            out.append(glob)
    return out


def format_hit_human(position: int, hit: Hit, width: int | None = None) -> str:
    """One result for a person: title, class and tags, where it comes from, why it may be stale,
    then the body as written (terminal controls removed), indented under its title and, on a
    terminal, wrapped to its ``width``."""
    from teambrain_schema.render import one_line, sanitise_body

    front = hit.memory.front
    commit = (hit.provenance.commit or "uncommitted")[:12]
    tags = f" · tags {', '.join(front.tags)}" if front.tags else ""
    room = None if width is None else width - 3
    lines = [
        paint(f"{position}. {one_line(front.title)}", bold=True)
        + f"  [{front.class_} · {front.priority}]",
        f"   id {front.id}" + fit(tags, None if room is None else room - 29),
        "   " + fit_middle(f"{one_line(hit.provenance.path)} @ {commit}", room),
    ]
    if hit.provenance.via:
        lines += wrap_lines(f"linked in the graph, {one_line(hit.provenance.via)}", width, "   ")
    if hit.stale:
        lines += wrap_lines(
            paint(f"may be stale: {one_line('; '.join(hit.stale))}", fg="yellow"), width, "   "
        )
    lines += _why_lines(hit, width)
    lines += ["", *wrap_lines(sanitise_body(hit.memory.body), width, "   ")]
    return "\n".join(lines)


def _why_lines(hit: Hit, width: int | None) -> list[str]:
    """Why the memory was chosen, one reason a line (paths and words on one safe line each)."""
    from teambrain_schema.render import one_line

    return [
        line for reason in hit.why for line in wrap_lines(f"why: {one_line(reason)}", width, "   ")
    ]


def format_hit(position: int, hit: Hit, width: int | None = None) -> str:
    """One result for a terminal: title, where it comes from, then the fenced body. On a
    terminal ``width`` wide the lines above the fence fit it (the path cut in its middle, the
    stale reason wrapped); the fenced body is exactly what an agent is given, never re-wrapped."""
    from teambrain_schema.render import one_line, render_memory

    front = hit.memory.front
    commit = (hit.provenance.commit or "uncommitted")[:12]
    head = f"{front.class_} · {front.priority} · "
    room = None if width is None else max(width - 3 - len(head) - len(commit) - 3, 12)
    meta = f"{head}{fit_middle(one_line(hit.provenance.path), room)} @ {commit}"
    title = one_line(front.title)  # one line whatever the file says (U+2028 splits lines too)
    lines = [f"{position}. {title}", f"   {meta}"]
    if hit.provenance.via:
        lines += wrap_lines(f"linked in the graph, {one_line(hit.provenance.via)}", width, "   ")
    if hit.stale:
        lines += wrap_lines(f"may be stale: {one_line('; '.join(hit.stale))}", width, "   ")
    lines += _why_lines(hit, width)
    return "\n".join([*lines, render_memory(front.id, hit.memory.body)])


# Free-form notes listed after the memories, at most (docs/graph.md#notes).
NOTES_K = 3


def format_note(position: int, note: NoteHit, width: int | None, view: str) -> str:
    """One matching note: its title, that it is a note and where, then its body fenced (agent
    view) or plain (human view)."""
    from teambrain_schema.notes import render_note
    from teambrain_schema.render import one_line, sanitise_body

    commit = (note.commit or "uncommitted")[:12]
    lines = [
        f"n{position}. {one_line(note.title)}",
        f"   team note · {fit_middle(one_line(note.path), None if width is None else width - 30)} @ {commit}",
    ]
    if view == "human":
        return "\n".join([*lines, "", *wrap_lines(sanitise_body(note.body), width, "   ")])
    return "\n".join([*lines, render_note(note.path, note.body)])


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
@click.option(
    "--view",
    type=Choice(["agent", "human"]),
    default="agent",
    show_default=True,
    help="agent: each body fenced exactly as an agent is given it; human: plain, to read.",
)
@click.option(
    "--no-notes",
    "no_notes",
    is_flag=True,
    help="Memories only: leave out the free-form notes (.teambrain/notes/) listed after them.",
)
@click.option("--ref", metavar="REF", help="Answer from the brain at this commit, tag or branch.")
@click.option("--at", metavar="ISO", help="Answer from the brain at this moment (latest commit at or before).")  # fmt: skip
def command(
    query: str | None, paths: tuple[str, ...], more_paths: tuple[str, ...], k: int | None,
    as_json: bool, *, view: str = "agent", ref: str | None = None, at: str | None = None,
    no_notes: bool = False,
) -> None:  # fmt: skip
    """Print the live team memories most relevant to --query TEXT and/or --paths GLOB…, or,
    with neither, what an agent starting a session here is told now (memory_context).

    Ranked by hybrid keyword + semantic search (or, for paths, by the files, folders, modules
    and names the memories cite), filtered to active, in-scope, unexpired, unsuperseded
    memories; each says why it was chosen. Up to three free-form team notes (.teambrain/notes/)
    that match follow the memories, marked as notes (--no-notes leaves them out). With --ref or
    --at, the answer comes from the brain as it was at that commit or moment. Each body is
    printed fenced, exactly as an agent is given it; --view human prints it plain.

    \b
    Examples:
      tb relevant
      tb relevant --query "why is checkout flaky"
      tb relevant --paths 'src/shop/checkout/**' --view human
      tb relevant -q deploys --at 2026-11-01 --json
    """
    if more_paths and not paths:
        raise UserError(f"unexpected argument {more_paths[0]!r}: use --query TEXT or --paths GLOB")
    globs = [g for g in (*paths, *more_paths) if g.strip()]
    text = (query or "").strip()
    if k is not None and not 1 <= k <= MAX_K:
        raise UserError(f"--k must be between 1 and {MAX_K}, not {k}")
    if not text and not globs:
        if query is not None or paths:
            raise UserError("give --query TEXT or --paths GLOB (or both), or neither")
        _print_context(k, as_json, view, ref, at)
        return
    from teambrain_schema.paths import find_repo_root

    root = find_repo_root()
    if root is not None:
        globs = repo_globs(globs, root, Path.cwd())
    with open_brain(ref, at) as retriever:
        if text:
            retriever.warm_up(text)  # the model loads while the index is checked
        limit = k or retriever.config.retrieval.k
        if globs and text:
            hits = retriever.search_combined(text, globs, limit)
        elif globs:
            hits = retriever.search_paths(globs, limit)
        else:
            hits = retriever.search(text, limit)
        notes = [] if no_notes else retriever.search_notes(text or None, globs, min(limit, NOTES_K))
    from teambrain_retrieval import terms_note

    from .. import _main

    _main.quick_exit_ok = True  # read-only but for committed index writes
    capped = terms_note(text) if text else None
    if capped:
        say(f"note: {capped}")  # a cap is said, never silent (stderr: --json stays data)
    if as_json:
        emit_json(
            [hit.to_result().model_dump(mode="json", by_alias=True) for hit in hits]
            + [note.to_result().model_dump(mode="json") for note in notes]
        )
        return
    if not hits and not notes:
        say("no live memory matches")
        return
    _print_hits(hits, view, notes=notes)


def _print_hits(hits: list[Hit], view: str, start: int = 1, notes: Sequence[NoteHit] = ()) -> None:
    width = terminal_width()
    shown = format_hit_human if view == "human" else format_hit
    texts = [shown(i, hit, width) for i, hit in enumerate(hits, start=start)]
    if notes:
        texts.append(paint("Team notes (free-form, not reviewed as memories):", bold=True))
        texts += [format_note(i, note, width, view) for i, note in enumerate(notes, start=1)]
    click.echo("\n\n".join(texts))


def _describe_situation(situation: Situation) -> str:
    """One line on what a session here is working on (paths quoted as git quotes them)."""
    from teambrain_schema.render import quote_path

    parts = [f"branch {quote_path(situation.branch)}" if situation.branch else "no branch"]
    changed = situation.changed_paths
    if changed:
        shown = ", ".join(quote_path(p) for p in changed[:3])
        more = f" and {len(changed) - 3} more" if len(changed) > 3 else ""
        parts.append(
            f"{len(changed)} changed path{'s' if len(changed) != 1 else ''} ({shown}{more})"
        )
    else:
        parts.append("nothing changed")
    if situation.default_branch:
        parts.append(f"default branch {quote_path(situation.default_branch)}")
    return "situation: " + "; ".join(parts)


def _print_context(
    k: int | None, as_json: bool, view: str, ref: str | None, at: str | None
) -> None:
    """What ``memory_context()`` would give an agent starting a session here now: the
    required memories, then the relevant ones with why (the brain ``tb serve`` serves, or
    with --ref/--at the brain as it was then; the situation is always the work tree's)."""
    from teambrain_retrieval import gather_situation
    from teambrain_schema.paths import find_repo_root

    from .. import _main

    root = find_repo_root()
    with open_served_brain(ref, at) as retriever:
        situation = gather_situation(root if root is not None else retriever.layout.repo_root)
        retriever.warm_up(None)  # the model loads while the situation is ranked
        pack = retriever.context(situation)
    relevant = pack.relevant[:k] if k else pack.relevant
    _main.quick_exit_ok = True  # read-only but for committed index writes
    if as_json:
        emit_json([hit.to_result().model_dump(mode="json", by_alias=True)
                   for hit in (*pack.required, *relevant)])  # fmt: skip
        return
    say(_describe_situation(situation))
    for note in pack.notes:
        say(f"note: {note}")
    if not pack.required and not relevant:
        say("no memory for this session")
        return
    if pack.required:
        click.echo(paint("Required (always applied):", bold=True))
        _print_hits(list(pack.required), view)
    if relevant:
        if pack.required:
            click.echo()
        click.echo(paint("Relevant to this session:", bold=True))
        _print_hits(list(relevant), view, start=len(pack.required) + 1)
