"""``tb list``: the memories of the brain, one line each, filtered by class, tag, scope,
priority, status and staleness."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from teambrain_schema import MEMORY_CLASSES

from .._browse import MemoryFilter, list_memories, open_view
from .._console.choice import Choice
from .._console.output import emit_json, fit, paint, say, terminal_width

if TYPE_CHECKING:
    from .._browse import MemorySummary

ID_WIDTH = 26
CLASS_WIDTH = 10
CLASS_COLOURS = {"decision": "magenta", "convention": "blue", "map": "cyan", "learning": "green"}


def _marks(memory: MemorySummary) -> list[tuple[str, dict[str, object]]]:
    marks: list[tuple[str, dict[str, object]]] = []
    if memory.priority == "required":
        marks.append(("required", {"bold": True}))
    if memory.scope != "team":
        marks.append((memory.scope, {}))
    if memory.status == "retired":
        marks.append(("retired", {"dim": True}))
    if memory.superseded_by:
        marks.append(("superseded", {"dim": True}))
    if memory.stale:
        marks.append(("may be stale", {"fg": "yellow"}))
    return marks


def format_row(memory: MemorySummary, width: int | None) -> str:
    """One memory on one line: id, class, title and its marks, cut to ``width`` (title first)."""
    marks = _marks(memory)
    plain_marks = "".join(f" [{text}]" for text, _ in marks)
    tags = " ".join(f"#{tag}" for tag in memory.tags)
    room = None if width is None else width - ID_WIDTH - CLASS_WIDTH - 4
    title = memory.title
    if room is not None:
        title = fit(title, max(room - len(plain_marks), 12))
        tags = "" if len(title) + len(plain_marks) + 1 + len(tags) > room else tags
    coloured_marks = "".join(" " + paint(f"[{text}]", **style) for text, style in marks)  # type: ignore[arg-type]
    line = (
        f"{memory.id:<{ID_WIDTH}}  "
        + paint(f"{memory.memory_class:<{CLASS_WIDTH}}", fg=CLASS_COLOURS.get(memory.memory_class))
        + f"  {title}{coloured_marks}"
    )
    return line + (" " + paint(tags, dim=True) if tags else "")


# Unreadable files named one line each before the rest are counted.
_PROBLEM_LINES = 20


@click.command("list")
@click.option(
    "--class",
    "-c",
    "classes",
    multiple=True,
    type=Choice(MEMORY_CLASSES),
    help="Only memories of this class (repeat for several).",
)
@click.option(
    "--tag",
    "-t",
    "tags",
    multiple=True,
    metavar="TAG",
    help="Only memories carrying this tag (repeat: every one).",
)
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    type=Choice(["team", "org"]),
    help="Only memories of this scope.",
)
@click.option(
    "--priority",
    "priorities",
    multiple=True,
    type=Choice(["required", "advisory"]),
    help="Only required or only advisory memories.",
)
@click.option(
    "--status",
    type=Choice(["active", "retired", "all"]),
    default="active",
    show_default=True,
    help="Live memories, retired ones, or both.",
)
@click.option(
    "--stale/--not-stale",
    "stale",
    default=None,
    help="Only memories that may be stale (a citation no longer holds, a TTL ran out), or only the others.",
)
@click.option("--ref", metavar="REF", help="The brain at this commit, tag or branch.")
@click.option("--at", metavar="ISO", help="The brain at this moment (latest commit at or before).")
@click.option("--json", "as_json", is_flag=True, help="Print the memories as JSON.")
def command(
    *,
    classes: tuple[str, ...], tags: tuple[str, ...], scopes: tuple[str, ...],
    priorities: tuple[str, ...], status: str, stale: bool | None, ref: str | None,
    at: str | None, as_json: bool,
) -> None:  # fmt: skip
    """List the memories of this repository's brain, one line each.

    Shows each memory's id, class and title, marked when it is required, retired, superseded
    or may be stale. Filters combine; `tb show ID` prints one memory in full.

    \b
    Examples:
      tb list                          every live memory
      tb list -c decision -t payments  decisions tagged payments
      tb list --stale                  what may be out of date, and `tb show` says why
      tb list --status retired         retired memories (their reasons: tb show ID)
      tb list --at 2026-01-01 --json   the brain as it was on that day, as JSON
    """
    wanted = MemoryFilter(
        classes=classes, tags=tags, scopes=scopes, priorities=priorities,
        status=status,  # type: ignore[arg-type]
        stale=stale,
    )  # fmt: skip
    with open_view(ref=ref, at=at) as view:
        listing = list_memories(view, wanted)
    if as_json:
        emit_json({"ok": True, **listing.to_json()})
        return
    for problem in listing.problems[:_PROBLEM_LINES]:
        say(f"tb: skipping unreadable {problem.relpath}:{problem.line}: {problem.message}")
    if len(listing.problems) > _PROBLEM_LINES:  # a commit of 10,000 broken files: not 10,000 lines
        more = len(listing.problems) - _PROBLEM_LINES
        say(f"tb: skipping {more} more unreadable file(s); `tb lint` lists them all")
    if view.commit:
        say(f"the brain as of {view.requested}: commit {view.commit[:12]}")
    width = terminal_width()
    for memory in listing.memories:
        click.echo(format_row(memory, width))
    shown = len(listing.memories)
    stale_count = sum(1 for m in listing.memories if m.stale)
    summary = f"{shown} of {listing.total} memor{'y' if listing.total == 1 else 'ies'}"
    if stale_count:
        summary += f"; {stale_count} may be stale (`tb show ID` says why)"
    if not shown and listing.total:
        summary += " (no memory matches these filters)"
    say(summary)
