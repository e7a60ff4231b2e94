"""``tb show``: one memory in full — what it says, where it comes from, its history in git, and
why it may be stale."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .._browse import open_view, show_memory
from .._console.output import echo, emit_json, paint, say
from ._complete import complete_memory_ids

if TYPE_CHECKING:
    from .._browse import MemoryDetail, MemoryRef


def _ref(ref: MemoryRef) -> str:
    from teambrain_schema.render import one_line

    if ref.title is None:
        return f"{ref.id} (not in this brain)"
    return f"{ref.id} {one_line(ref.title)!r} ({ref.status})"


def format_detail(detail: MemoryDetail, *, as_agent: bool = False) -> list[str]:
    """The lines ``tb show`` prints: a header, the body (as written, or fenced as an agent gets
    it), then provenance, supersedes chain, staleness and history."""
    from teambrain_schema.render import one_line, sanitise_body

    memory, prov = detail.summary, detail.provenance
    lines = [
        paint(one_line(memory.title), bold=True),
        f"{memory.id} · {memory.memory_class} · {memory.priority} · {memory.scope} · {memory.status}",
    ]
    if memory.tags:
        lines.append("tags: " + ", ".join(memory.tags))
    lines.append("")
    # A body is anyone's text: shown without the control characters a terminal would obey.
    lines += (detail.agent_view if as_agent else sanitise_body(detail.body)).splitlines()
    lines += ["", paint("Provenance", bold=True)]
    lines.append(
        f"  file:     {prov.path}" + (" (uncommitted changes)" if prov.uncommitted else "")
    )
    lines.append(f"  created:  {prov.created.isoformat()}")
    if prov.last_commit:
        lines.append(f"  changed:  {prov.last_commit[:12]} (last commit to touch the file)")
    lines.append(f"  sessions: {', '.join(prov.evidence_sessions) or 'none'}")
    lines.append(f"  commits:  {', '.join(prov.evidence_commits) or 'none'}")
    if detail.ttl_days:
        expires = memory.expires_on.isoformat() if memory.expires_on else "?"
        lines.append(f"  ttl:      {detail.ttl_days} days (expires {expires})")
    if memory.retired_reason or memory.status == "retired":
        reason = one_line(memory.retired_reason or "") or "reason not recorded in INDEX.md"
        lines.append(f"  retired:  {reason}")
    if detail.supersedes:
        lines.append("  supersedes:")
        lines += [f"    {_ref(ref)}" for ref in detail.supersedes]
    if detail.superseded_by:
        lines.append("  superseded by:")
        lines += [f"    {_ref(ref)}" for ref in detail.superseded_by]
    if detail.nodes:
        lines += ["", paint("Graph", bold=True)]
        lines += [
            f"  {node.id}  {node.kind} · {one_line(node.title)}  ({node.edge})"
            for node in detail.nodes
        ]
    if memory.stale:
        lines += ["", paint("May be stale", bold=True, fg="yellow")]
        lines += [f"  - {one_line(reason)}" for reason in memory.stale]
        lines.append("  (`tb propose --fix-citations` follows moved paths; `tb retire` retires it)")
    lines += ["", paint("History", bold=True)]
    if not detail.history:
        lines.append("  not committed yet")
    for entry in detail.history:
        merged = ""
        if entry.merged_by is not None:
            number = entry.merged_by.pull_request
            merged = f" — merged by {entry.merged_by.commit[:12]}" + (f" (PR #{number})" if number else "")  # fmt: skip
        elif entry.pull_request:
            merged = f" (PR #{entry.pull_request})"
        lines.append(
            f"  {entry.date.date().isoformat()}  {entry.short}  {entry.change:<8} "
            f"{one_line(entry.author)}: {one_line(entry.subject)}{merged}"
        )
        if entry.old_path and entry.change in ("moved", "retired", "restored"):
            lines.append(f"  {'':10}  {'':12}  from {one_line(entry.old_path)}")
    if detail.history_note:
        lines.append(f"  … {detail.history_note}")
    return lines


@click.command("show")
@click.argument("memory_id", metavar="ID", shell_complete=complete_memory_ids)
@click.option(
    "--agent",
    "as_agent",
    is_flag=True,
    help="Print the body fenced exactly as an agent is given it.",
)
@click.option("--ref", metavar="REF", help="The memory as it was at this commit, tag or branch.")
@click.option("--at", metavar="ISO", help="The memory as it was at this moment.")
@click.option("--json", "as_json", is_flag=True, help="Print everything as JSON.")
@click.option("--web", "-w", is_flag=True, help="Open the memory in the local web page (`tb ui`) instead.")  # fmt: skip
def command(
    memory_id: str, *, as_agent: bool, ref: str | None, at: str | None, as_json: bool, web: bool
) -> None:
    """Show memory ID in full: its body, provenance, history in git, the graph's nodes it is
    linked to (by an edge of their records or by its tags) and why it may be stale.

    ID is the whole id, or a prefix or suffix of it (4 characters or more) that no other
    memory shares; retired memories are shown too.

    \b
    Examples:
      tb show 01KB2F0A1S9Y4Q7V3C8D5E6F01
      tb show F01                       the memory whose id ends in F01
      tb show F01 --agent               the body as agents are given it
      tb show F01 --ref main~3 --json   as it was three commits ago, as JSON
      tb show F01 --web                 in the local web page
    """
    with open_view(ref=ref, at=at) as view:
        detail = show_memory(view, memory_id)
    if web:
        from .._ui.server import run_ui

        run_ui(port=0, browser=True, ref=ref, at=at, echo=click.echo, say=say,
               start=f"memory/{detail.summary.id}")  # fmt: skip
        return
    if as_json:
        emit_json({"ok": True, **detail.to_json()})
        return
    if view.commit:
        click.echo(f"(the brain as of {view.requested}: commit {view.commit[:12]})", err=True)
    lines = "\n".join(format_detail(detail, as_agent=as_agent))
    # --agent is the fenced text exactly as agents get it: never re-wrapped, even on a terminal.
    if as_agent:
        click.echo(lines)
    else:
        echo(lines)
