"""``tb list``: the memories of the brain, one line each, filtered by class, tag, scope,
priority, status and staleness."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from click.core import ParameterSource
from teambrain_schema import MEMORY_CLASSES

from .._browse import MemoryFilter, list_memories, open_view
from .._console.choice import Choice
from .._console.output import emit_json, fit, page, paint, say, terminal_width

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
# As gh's `pr list`: 30 rows unless --limit says otherwise.
DEFAULT_LIMIT = 30
# What --json FIELDS picks from (each row's --json keys, and the body).
JSON_FIELDS = (
    "id", "title", "class", "scope", "status", "priority", "tags", "created", "path",
    "supersedes", "superseded_by", "stale", "expires_on", "retired_reason", "body",
)  # fmt: skip


def tsv_row(memory: MemorySummary) -> str:
    """One memory for a script (stdout piped): id, class, title, marks and tags, tab-separated,
    nothing cut (as gh prints its lists when piped)."""
    marks = ",".join(text for text, _ in _marks(memory))
    fields = (memory.id, memory.memory_class, memory.title, marks, ",".join(memory.tags))
    return "\t".join(" ".join(f.replace("\t", " ").split()) for f in fields)


def json_rows(memories: list[MemorySummary], fields: str) -> list[dict[str, object]]:
    """``--json FIELDS``: each memory as an object of those fields only (a user error naming the
    fields there are for one that is not)."""
    wanted = [f.strip() for f in fields.split(",") if f.strip()]
    unknown = [f for f in wanted if f not in JSON_FIELDS]
    if unknown or not wanted:
        raise click.UsageError(
            f"unknown JSON field {unknown[0]!r}; the fields are: {', '.join(JSON_FIELDS)}"
            if unknown else f"--json FIELDS: name some of {', '.join(JSON_FIELDS)}"
        )  # fmt: skip
    rows = []
    for memory in memories:
        data = {**memory.to_json(), "body": memory.body}
        rows.append({name: data[name] for name in wanted})
    return rows


def _web(wanted: MemoryFilter, ref: str | None, at: str | None) -> None:
    """``--web``: the brain page of ``tb ui``, filtered as asked, until Ctrl-C."""
    from .._ui.server import run_ui

    query = {
        name: values[0]
        for name, values in (("class", wanted.classes), ("tag", wanted.tags),
                             ("scope", wanted.scopes), ("priority", wanted.priorities))
        if values
    }  # fmt: skip
    if wanted.status != "active":
        query["status"] = wanted.status
    if wanted.stale:
        query["stale"] = "1"
    if wanted.search:
        query["q"] = wanted.search
    run_ui(port=0, browser=True, ref=ref, at=at, echo=click.echo, say=say, start="brain",
           query=query)  # fmt: skip


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
@click.option("--search", "-S", "search", metavar="TEXT", help="Only memories whose id, title, tags or body hold every word of TEXT.")  # fmt: skip
@click.option("--limit", "-L", type=click.IntRange(min=1), default=DEFAULT_LIMIT, show_default=True, help="Show at most this many.")  # fmt: skip
@click.option("--ref", metavar="REF", help="The brain at this commit, tag or branch.")
@click.option("--at", metavar="ISO", help="The brain at this moment (latest commit at or before).")
@click.option(
    "--json", "json_fields", is_flag=False, flag_value="", default=None, metavar="[FIELDS]",
    help="Print JSON: the whole listing, or with FIELDS (comma-separated) an array of those fields of each memory.",
)  # fmt: skip
@click.option("--jq", "-q", "jq", metavar="EXPR", help="Filter the JSON with a jq expression (a subset; no jq needed).")  # fmt: skip
@click.option("--web", "-w", is_flag=True, help="Open the list in the local web page (`tb ui`) instead.")  # fmt: skip
@click.pass_context
def command(
    ctx: click.Context,
    *,
    classes: tuple[str, ...], tags: tuple[str, ...], scopes: tuple[str, ...],
    priorities: tuple[str, ...], status: str, stale: bool | None, search: str | None,
    limit: int, ref: str | None, at: str | None, json_fields: str | None, jq: str | None,
    web: bool,
) -> None:  # fmt: skip
    """List the memories of this repository's brain, one line each.

    Shows each memory's id, class and title, marked when it is required, retired, superseded
    or may be stale; at most 30 (--limit), through a pager on a terminal; tab-separated when
    piped. Filters combine; `tb show ID` prints one memory in full.

    \b
    Examples:
      tb list                          the first 30 live memories
      tb list -c decision -t payments  decisions tagged payments
      tb list -S "checkout flaky" -L 5   the five that say both words
      tb list --stale                  what may be out of date, and `tb show` says why
      tb list --status retired         retired memories (their reasons: tb show ID)
      tb list --json id,title --jq '.[] | .title'
      tb list --at 2026-01-01 --json   the brain as it was on that day, as JSON
      tb list -c map --web             the same list in the local web page
    """
    wanted = MemoryFilter(
        classes=classes, tags=tags, scopes=scopes, priorities=priorities,
        status=status,  # type: ignore[arg-type]
        stale=stale, search=search or "",
    )  # fmt: skip
    if web:
        if json_fields is not None or jq is not None:
            raise click.UsageError("--web opens the page: not with --json or --jq")
        _web(wanted, ref, at)
        return
    if jq is not None and json_fields is None:
        raise click.UsageError("--jq filters JSON: add --json (or --json FIELDS), as gh does")
    limited = ctx.get_parameter_source("limit") is not ParameterSource.DEFAULT
    with open_view(ref=ref, at=at) as view:
        listing = list_memories(view, wanted)
    if json_fields is not None:
        data: object
        if json_fields == "":  # the whole listing, as before --json took fields
            if limited:
                listing.memories = listing.memories[:limit]
            data = {"ok": True, **listing.to_json()}
        else:
            data = json_rows(listing.memories[:limit], json_fields)
        if jq is not None:
            from .._console.jq import format_results, run_jq

            click.echo(format_results(run_jq(jq, data)), nl=False)
        else:
            emit_json(data)
        return
    for problem in listing.problems[:_PROBLEM_LINES]:
        say(f"tb: skipping unreadable {problem.relpath}:{problem.line}: {problem.message}")
    if len(listing.problems) > _PROBLEM_LINES:  # a commit of 10,000 broken files: not 10,000 lines
        more = len(listing.problems) - _PROBLEM_LINES
        say(f"tb: skipping {more} more unreadable file(s); `tb lint` lists them all")
    if view.commit:
        say(f"the brain as of {view.requested}: commit {view.commit[:12]}")
    shown = listing.memories[:limit]
    width = terminal_width()
    if width is None:  # piped: one tab-separated row per memory, for scripts
        click.echo("".join(tsv_row(memory) + "\n" for memory in shown), nl=False)
    else:
        page("".join(format_row(memory, width) + "\n" for memory in shown))
    matched = len(listing.memories)
    stale_count = sum(1 for m in listing.memories if m.stale)
    noun = "memory" if listing.total == 1 else "memories"
    if len(shown) < matched:
        summary = f"showing {len(shown)} of {matched} {'matching ' if matched != listing.total else ''}{noun}"
        summary += (
            f" ({listing.total} in the brain); -L {matched} shows them all"
            if matched != listing.total
            else f"; -L {matched} shows them all"
        )
    else:
        summary = f"{matched} of {listing.total} {noun}"
    if stale_count:
        summary += f"; {stale_count} may be stale (`tb show ID` says why)"
    if not matched and listing.total:
        summary += " (no memory matches these filters)"
    say(summary)
