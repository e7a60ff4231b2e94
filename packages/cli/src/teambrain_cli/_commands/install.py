"""``tb install <tool>``: wire teambrain's MCP server and capture hooks into an agent tool."""

from __future__ import annotations

import click

from .._adapters import resolve_adapter
from .._context import require_repo
from .._install import adapter_notes, apply_install, plan_install
from .._readiness import user_steps


@click.command("install")
@click.argument("tool")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
def command(tool: str, dry_run: bool) -> None:
    """Merge teambrain into TOOL's config in this repository: an MCP server named `teambrain`
    (`tb serve`) and, where the tool has hooks, capture hooks running `tb-capture TOOL`.

    Other servers and hooks are kept, as are comments and layout; running it again changes
    nothing. Prints what changed as a diff. Unknown TOOL: exit 1 with the supported list.
    """
    adapter = resolve_adapter(tool)
    repo = require_repo()
    plan = plan_install(adapter, repo)
    verb = "Would install" if dry_run else "Installing"
    click.echo(f"{verb} teambrain for {adapter.title} in {repo}:")
    for change in plan.files:
        what = "; ".join(change.actions) if change.actions else "already set up"
        status = {"create": "created", "update": "updated"}.get(change.status, change.status)
        if dry_run and change.changed:
            status = f"would {change.status}"
        click.echo(f"  {change.display}: {status} ({what})")
    for note in plan.notes:
        click.echo(f"  note: {note}")
    for change in plan.files:
        if change.changed:
            click.echo(change.diff(), nl=False)
    if not plan.changed:
        click.echo(f"Nothing to change: teambrain is already installed for {adapter.title}.")
    elif dry_run:
        click.echo("Dry run: nothing was written.")
    else:
        apply_install(plan)
        notes = adapter_notes(adapter)
        if notes:
            click.echo(f"Note: {notes}")
        if adapter.hooks is not None:
            click.echo(
                f"Check what gets recorded with `tb audit` after your next {adapter.title} session."
            )
    pending = [step for step in user_steps(adapter.name, repo) if not step.done]
    if pending:
        click.echo(
            f"{adapter.title} loads nothing from this repository until you (and each teammate) "
            "have done this once; `tb doctor` checks it:"
        )
        for number, step in enumerate(pending, start=1):
            click.echo(f"  {number}. {step.name}: {step.fix}")
