"""``tb doctor``: readiness of this machine and repository."""

from __future__ import annotations

import click
from teambrain_schema import ExitCode

from .._checks import doctor
from .._console.context import machine
from .._console.output import emit_json

_MARKS = {"ok": "ok", "problem": "PROBLEM", "note": "note"}


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option(
    "--online",
    is_flag=True,
    help="Also send the distill model endpoint one tiny request (the only check that leaves "
    "the machine).",
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, online: bool) -> None:
    """Check that teambrain is ready here; each problem comes with a one-line fix.

    Offline unless --online. Exit 0 when ready, 2 when there are environment problems.
    """
    _, findings = doctor.gather(machine(), online=online)
    ready = not any(f.status == "problem" for f in findings)
    if as_json:
        emit_json({"ready": ready, "findings": [f.to_json() for f in findings]})
    else:
        width = max(len(f.name) for f in findings)
        for finding in findings:
            click.echo(f"{_MARKS[finding.status]:<7} {finding.name:<{width}}  {finding.detail}")
            if finding.fix and finding.status == "problem":
                click.echo(f"{'':<7} {'':<{width}}  fix: {finding.fix}")
        click.echo("ready" if ready else "not ready: fix the problems above", err=True)
    ctx.exit(ExitCode.OK if ready else ExitCode.ENVIRONMENT_ERROR)
