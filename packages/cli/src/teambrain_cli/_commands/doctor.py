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
    "later": ("later", {"fg": "yellow"}),
}
NAME_WIDTH = 34  # "tool claude-code: server approval"; longer names push their detail along


def _tools(findings: list[doctor.Finding]) -> str:
    """The tools named by ``findings`` ("tool claude-code: folder trust"), as a list."""
    names = list(dict.fromkeys(f.name.split(":", 1)[0].removeprefix("tool ") for f in findings))
    return ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]


def verdict(findings: list[doctor.Finding]) -> str:
    """The last line: ready, or what is left — problems to fix here, the one-time steps only a
    person can take inside an agent tool installed here (its trust and approval dialogs), and
    the same steps for tools not installed here (for later: this machine is ready), counted."""
    problems = sum(f.status == "problem" for f in findings)
    steps = [f for f in findings if f.status == "step"]
    later = [f for f in findings if f.later]
    if not problems and not steps:
        if not later:
            return "ready"
        count = f"{len(later)} one-time step{'s' if len(later) != 1 else ''}"
        return (
            f"ready here; {count} marked later to take inside {_tools(later)} once you use "
            f"{'it' if len({f.name.split(':')[0] for f in later}) == 1 else 'them'} on this "
            "machine (not installed here)"
        )
    one_time = f"{len(steps)} one-time step{'s' if len(steps) != 1 else ''} marked STEP"
    if not problems:
        return f"not ready: take the {one_time} inside {_tools(steps)} (only you can); nothing else to fix"
    line = f"not ready here: fix the {problems} problem{'s' if problems != 1 else ''} above"
    return line + (f", then take the {one_time} inside {_tools(steps)}" if steps else "")


def format_findings(findings: list[doctor.Finding], width: int | None) -> list[str]:
    """One finding per line (its detail wrapped on a terminal), with the fix under each problem
    and the action under each one-time step."""
    name_width = min(max(len(f.name) for f in findings), NAME_WIDTH)
    indent = " " * (8 + name_width + 2)
    lines = []
    for finding in findings:
        mark, style = _MARKS["later" if finding.later else finding.status]
        head = f"{paint(f'{mark:<7}', **style)} {finding.name:<{name_width}}  "
        detail = wrap_lines(finding.detail, width, indent) or [indent]
        lines.append(head + detail[0][len(indent) :])
        lines += detail[1:]
        if finding.fix and (finding.status in ("problem", "step") or finding.later):
            label = "fix: " if finding.status == "problem" else "do once, inside the tool: "
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

    Marks each finding ok, note, PROBLEM (with its fix: not ready here) or STEP: a one-time
    step only you can take inside an agent tool installed on this machine (trust the folder,
    approve the server). The same step for a tool not installed here is marked later: to do
    inside the tool once you use it here. Offline unless --online. Exit 0 when ready here, 2
    while a problem or a STEP is left.

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
