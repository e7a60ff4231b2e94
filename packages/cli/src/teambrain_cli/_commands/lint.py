"""``tb lint``: check every memory and retired file, brain.yaml, adapters.yaml and INDEX.md."""

from __future__ import annotations

import click
from teambrain_schema import BrainLayout, ExitCode, LintReport, Violation, lint_brain

from .._context import require_brain
from .._output import emit_json

ADAPTERS_RULE = "adapters-registry"


def _lint_adapters_registry(layout: BrainLayout, report: LintReport) -> None:
    """A repository's adapters.yaml that validates must also match the code's adapter registry."""
    path = layout.repo_root / "adapters.yaml"
    if not path.is_file() or any(v.rule == "adapters-yaml" for v in report.violations):
        return
    from teambrain_capture import check_adapters

    for problem in check_adapters(path):
        report.violations.append(
            Violation("adapters.yaml", problem.line, ADAPTERS_RULE, problem.message)
        )
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


@click.command("lint")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def command(ctx: click.Context, as_json: bool) -> None:
    """Check the brain. Prints one `path:line: rule: message` line per violation.

    Exits 0 when clean (warnings allowed) and 3 on any violation.
    """
    layout = require_brain()
    report = lint_brain(layout)
    _lint_adapters_registry(layout, report)
    if as_json:
        emit_json(report.to_json())
    else:
        for violation in report.violations:
            click.echo(violation.format())
        errors, warnings = len(report.errors), len(report.violations) - len(report.errors)
        summary = (
            f"{report.files_checked} files checked: {errors} violation(s), {warnings} warning(s)"
        )
        click.echo(
            summary if report.violations else f"{report.files_checked} files checked: clean",
            err=True,
        )
    ctx.exit(ExitCode.OK if report.ok else ExitCode.VALIDATION_FAILURE)
