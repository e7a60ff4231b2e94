"""``tb export``: the brain's required memories in a marked section of AGENTS.md or a rules
file, for agent tools that read no MCP server."""

from __future__ import annotations

import click
from teambrain_schema import ExitCode

from .._console.context import require_brain
from .._console.output import emit_json, say
from .._instructions.export import DEFAULT_TARGET, Exported, export_section


@click.command("export")
@click.option(
    "--to",
    "targets",
    multiple=True,
    metavar="FILE",
    help=f"The file to write the section into (default {DEFAULT_TARGET}; repeat for several).",
)
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print what was written as JSON.")
def command(targets: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """Write the brain's required memories into a marked section of AGENTS.md (or --to FILE).

    For agent tools with no MCP server: they read the section as instructions. Only the
    part between the teambrain markers is written; the rest of the file is kept as it is.
    Each body is fenced as data, as MCP serves it; a memory `tb lint` rejects as a prompt
    injection is left out, named, and the exit code is 3. `tb lint` warns when a section no
    longer matches the brain; run `tb export` again then.

    \b
    Examples:
      tb export                                  AGENTS.md
      tb export --to .cursor/rules/teambrain.mdc
      tb export --to AGENTS.md --to GEMINI.md --dry-run
    """
    layout = require_brain()
    results = [
        export_section(layout, target, dry_run=dry_run) for target in targets or (DEFAULT_TARGET,)
    ]
    left_out = {item.id: item for result in results for item in result.left_out}
    if as_json:
        emit_json({"ok": not left_out, "dry_run": dry_run,
                   "files": [r.to_json() for r in results]})  # fmt: skip
    else:
        _print(results, dry_run=dry_run)
    # The injection gate of lint: such a memory never reaches an instruction file.
    for item in left_out.values():
        say(f"{item.path}: not exported: {item.reason}; `tb lint` shows it: fix or retire it")
    if left_out:
        click.get_current_context().exit(ExitCode.VALIDATION_FAILURE)


def _print(results: list[Exported], *, dry_run: bool) -> None:
    for result in results:
        if not result.changed:
            click.echo(f"{result.path}: up to date ({result.memories} required memories)")
            continue
        verb = (
            ("would create" if result.created else "would update")
            if dry_run
            else ("created" if result.created else "updated")
        )
        click.echo(f"{result.path}: {verb} ({result.memories} required memories)")
    if not dry_run and any(r.changed for r in results):
        click.echo(
            "Commit the file; `tb lint` tells you when it needs `tb export` again.", err=True
        )
