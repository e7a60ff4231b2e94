"""``tb doctor``: readiness of this machine and repository."""

from __future__ import annotations

from typing import Any

import click
from teambrain_schema import ExitCode

from .._checks import doctor
from .._console.context import machine
from .._console.output import emit_json, paint, say, terminal_width, wrap_lines

_MARKS: dict[str, tuple[str, dict[str, Any]]] = {
    "ok": ("ok", {"fg": "green"}),
    "problem": ("PROBLEM", {"fg": "red", "bold": True}),
    "note": ("note", {"dim": True}),
    "step": ("STEP", {"fg": "yellow", "bold": True}),
}
NAME_WIDTH = 34  # "tool claude-code: server approval"; longer names push their detail along


def verdict(findings: list[doctor.Finding]) -> str:
    """The last line: ready, or what is left — problems to fix, and the one-time steps only a
    person can take (a tool's own trust and approval dialogs), counted."""
    problems = sum(f.status == "problem" for f in findings)
    steps = sum(f.status == "step" for f in findings)
    if not problems and not steps:
        return "ready"
    one_time = f"{steps} one-time step{'s' if steps != 1 else ''} marked STEP"
    if not problems:
        return f"not ready: take the {one_time} (only you can); nothing else to fix"
    line = f"not ready: fix the {problems} problem{'s' if problems != 1 else ''} above"
    return line + (f", then take the {one_time}" if steps else "")


def format_findings(findings: list[doctor.Finding], width: int | None) -> list[str]:
    """One finding per line (its detail wrapped on a terminal), with the fix under each problem
    and the action under each one-time step."""
    name_width = min(max(len(f.name) for f in findings), NAME_WIDTH)
    indent = " " * (8 + name_width + 2)
    lines = []
    for finding in findings:
        mark, style = _MARKS[finding.status]
        head = f"{paint(f'{mark:<7}', **style)} {finding.name:<{name_width}}  "
        detail = wrap_lines(finding.detail, width, indent) or [indent]
        lines.append(head + detail[0][len(indent) :])
        lines += detail[1:]
        if finding.fix and finding.status in ("problem", "step"):
            label = "fix: " if finding.status == "problem" else "do once: "
            lines += wrap_lines(label + finding.fix, width, indent)
    return lines


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

    Marks each finding ok, note, PROBLEM (with its fix) or STEP: a one-time step only you can
    take in the agent tool itself (trust the folder, approve the server). Offline unless
    --online. Exit 0 when ready, 2 while a problem or a step is left.

    \b
    Examples:
      tb doctor
      tb doctor --json | jq '.findings[] | select(.status != "ok")'
      tb doctor --online      also ask the distill model endpoint once
    """
    _, findings = doctor.gather(machine(), online=online)
    ready = not any(f.status in ("problem", "step") for f in findings)
    if as_json:
        emit_json({"ok": ready, "ready": ready, "findings": [f.to_json() for f in findings]})
    else:
        for line in format_findings(findings, terminal_width()):
            click.echo(line)
        say(verdict(findings))
    ctx.exit(ExitCode.OK if ready else ExitCode.ENVIRONMENT_ERROR)
