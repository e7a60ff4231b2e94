"""``tb verify``: the privacy self-audit."""

from __future__ import annotations

import click
from teambrain_kit.paths import BrainLayout, find_repo_root

from .._checks import verify
from .._checks.results import CheckResult, verdict_exit_code
from .._console.context import machine
from .._console.output import echo, emit_json

_MARKS = {"PASS": "PASS", "FAIL": "FAIL", "UNVERIFIED": "UNVERIFIED"}


def run_checks(*, strict: bool) -> list[CheckResult]:
    """Every verify check, in a stable order (the ``--strict`` tier last)."""
    home = machine()
    repo = find_repo_root()
    layout = BrainLayout(repo) if repo is not None and BrainLayout(repo).root.is_dir() else None
    results = [
        verify.check_spool_privacy(home),
        verify.check_machine_dirs(home),
        verify.check_sync_user_isolation(home, repo),
        verify.check_llm_imports(),
        verify.check_memory_fences(layout),
        verify.check_egress(home, layout),
        verify.check_index(home),
        verify.check_provenance(),
    ]
    if strict:
        from .._checks.sandbox import check_sandbox_egress

        results.append(check_sandbox_egress(home, layout))
    return results


def print_results(results: list[CheckResult]) -> None:
    """Human-readable report: one line per check, then its evidence, indented."""
    width = max(len(r.status) for r in results)
    for result in results:  # on a terminal each line wraps under its text; piped, whole
        echo(f"{_MARKS[result.status]:<{width}}  {result.title}: {result.summary}", hang=width + 2)
        for line in result.evidence:
            echo(f"{'':<{width}}    {line}")
        if result.fix and result.status != "PASS":
            echo(f"{'':<{width}}    fix: {result.fix}")


@click.command("verify")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--strict",
    is_flag=True,
    help="Also run capture, retrieval and serve in a network-less OS sandbox.",
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, strict: bool) -> None:
    """Re-prove teambrain's privacy invariants on this machine.

    Exit 0: every check passed · 2: a check could not run (UNVERIFIED) · 3: an invariant is violated.

    \b
    Examples:
      tb verify
      tb verify --json
      tb verify --strict        also the OS-sandbox egress tier
    """
    results = run_checks(strict=strict)
    code = verdict_exit_code(results)
    if as_json:
        emit_json({"ok": code == 0, "exit_code": code, "checks": [r.to_json() for r in results]})
    else:
        print_results(results)
        counts = {s: sum(r.status == s for r in results) for s in ("PASS", "FAIL", "UNVERIFIED")}
        click.echo(
            f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['UNVERIFIED']} unverified",
            err=True,
        )
    ctx.exit(code)
