"""``tb import``: the instructions a team already wrote for its agent tools, as candidates in
the review queue (proposed only through ``tb propose``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from .._console.context import machine, require_brain

if TYPE_CHECKING:
    from teambrain_schema.paths import BrainLayout
from teambrain_schema import UserError

from .._console.output import emit_json, fit, paint, say, terminal_width
from .._instructions.importer import import_instructions

_LABELS = {
    "queued": "queued",
    "would-queue": "would queue",
    "already-queued": "in queue",
    "in-brain": "in brain",
    "skipped": "skipped",
}


@click.command("import")
@click.argument("paths", nargs=-1, metavar="[FILE]...")
@click.option(
    "--auto-memory",
    is_flag=True,
    help="Also import Claude Code's auto memory of this project (personal notes, ~/.claude).",
)
@click.option(
    "--company-brain",
    "company_brain",
    metavar="DIR",
    help="Import a company-brain folder (graph/, pages/, runbooks/, decisions/, notes/…) instead.",
)
@click.option("--dry-run", is_flag=True, help="Show the candidates; queue nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print what became of each piece as JSON.")
def command(
    paths: tuple[str, ...], auto_memory: bool, dry_run: bool, as_json: bool,
    company_brain: str | None = None,
) -> None:  # fmt: skip
    """Turn existing agent instructions into memory candidates for review.

    Reads CLAUDE.md, AGENTS.md, GEMINI.md, .cursor/rules/, .cursorrules, .windsurf/rules/,
    .clinerules, .github/copilot-instructions.md and .github/instructions/, and a Cline
    memory bank (or only the FILEs given), splits them into one piece per rule, classes and
    tags each, and queues the ones that pass the checks every candidate faces (schema,
    secrets, <private> spans removed, prompt injection, content already in the brain). The files are never modified. Review with `tb candidates`, then `tb propose`.

    Each rule becomes one candidate: a bullet or numbered item (with what is nested in it), a
    paragraph, a table, a code block with the text it illustrates; a lead-in ("Before
    merging:") goes with each item it introduces. A secret is redacted on its line (the rest of
    the rule is kept, and the line is shown); a piece that looks like a prompt injection is
    skipped, quoting the line.

    \b
    Examples:
      tb import                       every instruction file found here
      tb import CLAUDE.md --dry-run   what CLAUDE.md would give, queuing nothing
      tb import --auto-memory         Claude Code's own notes for this project too
      tb import --company-brain ../company-brain   graph records, pages, runbooks, notes
      tb candidates && tb propose --all
    """
    from teambrain_schema.render import one_line

    layout = require_brain()
    if company_brain is not None:
        if paths or auto_memory:
            raise UserError("--company-brain imports that folder alone: no FILEs, no --auto-memory")
        _company_brain(layout, company_brain, dry_run=dry_run, as_json=as_json)
        return
    run = import_instructions(
        layout, machine(), paths=paths, auto_memory=auto_memory, dry_run=dry_run
    )
    if as_json:
        emit_json({"ok": True, **run.to_json()})
        note = run.left_out_note()
        if note:
            say(f"tb import: {note}")
        return
    for shown, reason in run.unreadable:
        say(f"tb: skipping {shown}: {reason}")
    if not run.sources:
        say("No agent instruction files found here (CLAUDE.md, AGENTS.md, GEMINI.md, "
            ".cursor/rules/, .windsurf/rules/, .clinerules, .github/copilot-instructions.md, "
            "memory-bank/); name files to import them.")  # fmt: skip
    width = terminal_width()
    for item in run.items:
        label = _LABELS[item.result]
        colour = {"queued": "green", "would-queue": "green", "skipped": "yellow"}.get(item.result)
        head = paint(f"{label:<12}", fg=colour) + f"{item.memory_class:<11}"
        click.echo(head + fit(item.title, None if width is None else width - 23))
        where = f"{'':23}{item.source.shown}:{item.line}"
        click.echo(fit(where + (f"  {item.candidate_id}" if item.candidate_id else ""), width))
        if item.reason and item.result in ("skipped", "in-brain"):
            click.echo(fit(f"{'':23}{item.reason}", width))
        for redacted in item.redacted:  # the secret's value only; the rest of the rule is kept
            click.echo(fit(f"{'':23}redacted a secret ({redacted.rule}) on line {redacted.line}: "
                           f"{one_line(redacted.text)}", width))  # fmt: skip
    if run.personal_available:
        say(f"note: Claude Code's auto memory for this project is at {run.personal_available[0].shown}: "
            "add --auto-memory to import it (personal notes; reviewed like the rest)")  # fmt: skip
    queued = run.count("would-queue" if dry_run else "queued")
    summary = f"{len(run.sources)} file(s), {len(run.items)} piece(s): {queued} {'would be ' if dry_run else ''}queued"
    others = (
        (run.count("already-queued"), "already queued"),
        (run.count("in-brain"), "already in the brain"),
        (run.count("skipped"), "skipped"),
    )
    summary += "".join(f", {n} {label}" for n, label in others if n)
    secrets = sum(len(item.redacted) for item in run.items)
    if secrets:
        summary += f"; {secrets} secret(s) redacted where they were (the lines above)"
    say(summary)
    note = run.left_out_note()
    if note:
        say(f"tb import: {note}")
    if queued and not dry_run:
        say("Next: `tb candidates` to review them (`tb candidates drop ID` for what should not "
            "be a memory), then `tb propose --all`.")  # fmt: skip


def _company_brain(layout: BrainLayout, given: str, *, dry_run: bool, as_json: bool) -> None:
    """``tb import --company-brain DIR``: records, memory candidates and notes queued for review."""
    from .._instructions.company_brain import import_company_brain

    run = import_company_brain(layout, machine(), given, dry_run=dry_run)
    if as_json:
        emit_json({"ok": True, **run.to_json()})
        return
    width = terminal_width()
    for shown, reason in run.memories.unreadable:
        say(f"tb: skipping {shown}: {reason}")
    for item in run.memories.items:
        label = _LABELS[item.result]
        colour = {"queued": "green", "would-queue": "green", "skipped": "yellow"}.get(item.result)
        click.echo(
            paint(f"{label:<12}", fg=colour)
            + fit(f"{item.memory_class:<11}{item.title}", None if width is None else width - 12)
        )
        if item.reason and item.result in ("skipped", "in-brain"):
            click.echo(fit(f"{'':12}{item.reason}", width))
    for found in run.files:
        label = _LABELS[found.result]
        colour = {"queued": "green", "would-queue": "green", "skipped": "yellow"}.get(found.result)
        click.echo(
            paint(f"{label:<12}", fg=colour)
            + fit(
                f"{found.kind:<11}{found.path} → {found.target}",
                None if width is None else width - 12,
            )
        )
        if found.reason and found.result == "skipped":
            click.echo(fit(f"{'':12}{found.reason}", width))
    for path, why in run.left_out:
        say(f"not imported: {path}: {why}")
    verb = "would be queued" if dry_run else "queued"
    records = sum(f.result in ("queued", "would-queue") for f in run.files if f.kind == "record")
    notes = sum(f.result in ("queued", "would-queue") for f in run.files if f.kind == "note")
    pieces = run.memories.count("would-queue" if dry_run else "queued")
    say(f"{run.root}: {pieces} memory candidate(s), {records} record(s) and {notes} note(s) {verb}")
    if not dry_run and (pieces or records or notes):
        say("Next: `tb candidates` to review the memories, then `tb propose --all` (records and "
            "notes are checked against the ontology and proposed on a branch of their own).")  # fmt: skip
