"""``tb lint``: check every memory and retired file, brain.yaml, adapters.yaml and INDEX.md."""

from __future__ import annotations

import click
from teambrain_kit.paths import BrainLayout
from teambrain_schema import ExitCode
from teambrain_schema.brain import Brain, load_brain
from teambrain_schema.lint import LintReport, Violation, lint_brain

from .._console.context import require_brain
from .._console.output import emit_json

ADAPTERS_RULE = "adapters-registry"


def _lint_adapters_registry(layout: BrainLayout, report: LintReport) -> None:
    """A repository's adapters.yaml that validates must also match the code's adapter registry."""
    path = layout.repo_root / "adapters.yaml"
    if not path.is_file() or any(v.rule == "adapters-yaml" for v in report.violations):
        return
    from .._agent_tools.registry import check_adapters

    for problem in check_adapters(path):
        report.violations.append(
            Violation("adapters.yaml", problem.line, ADAPTERS_RULE, problem.message)
        )
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


STALE_RULE = "stale-citation"
EXPIRED_RULE = "ttl-expired"


def _lint_staleness(layout: BrainLayout, report: LintReport, brain: Brain) -> None:
    """Warnings for memories the code no longer bears out: a cited path or glob that matches
    nothing (and where git says it moved), a symbol gone from its module, a make target no
    Makefile defines, a name renamed or removed from the file it is cited next to; and TTLs
    that ran out."""
    from teambrain_schema.staleness import stale_memories

    for memory in stale_memories(layout, brain=brain):
        for stale, line in memory.citations:
            fix = " (`tb propose --fix-citations` proposes the edit)" if stale.moved_to else ""
            report.violations.append(
                Violation(memory.relpath, line, STALE_RULE, stale.reason + fix, "warning")
            )
        if memory.expired_on is not None:
            report.violations.append(
                Violation(
                    memory.relpath, 1, EXPIRED_RULE,
                    f"ttl_days ran out on {memory.expired_on.isoformat()}: no longer served; "
                    "renew it or `tb retire` it", "warning",
                )
            )  # fmt: skip
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


HIDDEN_EDIT_RULE = "superseded-edit"


def _lint_hidden_edits(layout: BrainLayout, report: LintReport, brain: Brain) -> None:
    """Warnings for edits a supersede hides (issue 27 point 5): a superseded memory edited after
    its superseder merged, or, on a pull request's merge result, superseded by the pull request
    after the default branch edited it. Both merge cleanly; the edit is never served."""
    live = {
        f.document.front.id: f for f in brain.active
        if f.document is not None and f.document.front.status == "active"
    }  # fmt: skip
    supersedes = {
        memory_id: [old for old in f.document.front.supersedes if old in live]
        for memory_id, f in live.items()
        if f.document is not None
    }
    if not any(supersedes.values()):
        return
    from teambrain_schema import EnvironmentProblem
    from teambrain_sync import hidden_edits, open_repo

    try:
        repo = open_repo(layout.repo_root)
    except EnvironmentProblem:
        return
    relpaths = {memory_id: f.relpath for memory_id, f in live.items()}
    for hidden in hidden_edits(repo, supersedes, relpaths):
        report.violations.append(
            Violation(hidden.relpath, 1, HIDDEN_EDIT_RULE, hidden.message, "warning")
        )
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


NEAR_DUPLICATE_RULE = "near-duplicate"


def _lint_near_duplicates(layout: BrainLayout, report: LintReport, brain: Brain) -> None:
    """Warnings for live memories that say the same as another live one (the rule `tb
    propose` refuses a near-duplicate by): a paraphrase two machines proposed without seeing
    each other's pull request merges cleanly, and CI's lint of the merge result shows it to
    the reviewer. Only where embeddings are available (the brain's local model, or a remote
    embedder approved here)."""
    from .._proposals.guard import live_near_duplicates

    found = live_near_duplicates(layout, brain)
    relpaths = {f.document.front.id: f.relpath for f in brain.files if f.document is not None}
    for duplicate in found or ():
        report.violations.append(
            Violation(relpaths[duplicate.newer_id], 1, NEAR_DUPLICATE_RULE, duplicate.message(),
                      "warning")
        )  # fmt: skip
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


EVIDENCE_RULE = "evidence-commit"


def _lint_evidence(layout: BrainLayout, report: LintReport, brain: Brain) -> None:
    """Notes for evidence commits that are not in the history as cited: followed to the commit a
    squash or rebase merge made of them, or unverifiable here (a shallow clone, a deleted
    branch). Never a warning: the memory is not stale for it."""
    from teambrain_schema.staleness import followed_evidence

    for note in followed_evidence(layout, brain=brain):
        fix = (
            " (`tb propose --fix-citations` proposes the edit)"
            if note.fate.state == "rewritten"
            else ""
        )
        report.notes.append(
            Violation(note.relpath, note.line, EVIDENCE_RULE, note.fate.note + fix, "note")
        )
    report.notes.sort(key=lambda v: (v.path, v.line, v.rule))


EXPORT_RULE = "export-stale"


def _lint_exported_sections(layout: BrainLayout, report: LintReport, brain: Brain) -> None:
    """A warning per instruction file whose `tb export` section no longer matches the brain's
    required memories."""
    from .._instructions.export import stale_sections

    for path, line, message in stale_sections(layout, brain):
        report.violations.append(Violation(path, line, EXPORT_RULE, message, "warning"))
    report.violations.sort(key=lambda v: (v.path, v.line, v.rule))


EGRESS_RULE = "egress"


def _egress_notes(layout: BrainLayout) -> list[Violation]:
    """One note per brain.yaml setting that sends data off the machine, with its approval
    state here: a reviewer sees a changed destination in CI's log, a user on their machine.
    Notes never fail lint (CI approves nothing)."""
    from teambrain_schema import TeambrainError
    from teambrain_schema.brain import brain_yaml_line, load_brain_config

    from .._console.context import machine
    from .._console.trust import egress_status

    try:
        statuses, _ = egress_status(layout, load_brain_config(layout), machine())
    except TeambrainError:
        return []  # brain.yaml's own problems are already violations
    relpath = layout.relative(layout.brain_yaml)
    notes = []
    for status in statuses:
        line = brain_yaml_line(layout, status.egress.setting)
        notes.append(Violation(relpath, line, EGRESS_RULE, status.line(), "note"))
    return notes


@click.command("lint")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--strict", is_flag=True, help="Fail (exit 3) on warnings too, stale citations included."
)
@click.pass_context
def command(ctx: click.Context, as_json: bool, *, strict: bool = False) -> None:
    """Check the brain. Prints one `path:line: rule: message` line per violation.

    Also warns about memories the code no longer bears out (stale citations, run-out TTLs),
    about edits of superseded memories that are never served and, where embeddings are
    available, about live memories that say the same as another one (near-duplicates),
    and notes (never a failure) an INDEX.md that the default branch has yet to regenerate,
    evidence commits a squash or rebase merge rewrote (or that are unverifiable here), and
    each brain.yaml setting that sends data off this machine, with its approval here.
    Exits 0 when clean (warnings allowed, unless --strict) and 3 on any violation.

    \b
    Examples:
      tb lint
      tb lint --strict          in CI: warnings fail too
      tb lint --json
    """
    layout = require_brain()
    brain = load_brain(layout)  # parsed once for the rules and the citation check
    report = lint_brain(layout, brain=brain)
    _lint_adapters_registry(layout, report)
    _lint_staleness(layout, report, brain)
    _lint_evidence(layout, report, brain)
    _lint_exported_sections(layout, report, brain)
    _lint_hidden_edits(layout, report, brain)
    _lint_near_duplicates(layout, report, brain)
    report.notes.extend(_egress_notes(layout))
    if as_json:
        emit_json(report.to_json())
    else:
        for violation in report.violations:
            click.echo(violation.format())
        for note in report.notes:  # never a failure: said on stderr, beside the summary
            click.echo(note.format(), err=True)
        errors, warnings = len(report.errors), len(report.violations) - len(report.errors)
        summary = (
            f"{report.files_checked} files checked: {errors} violation(s), {warnings} warning(s)"
        )
        click.echo(
            summary if report.violations else f"{report.files_checked} files checked: clean",
            err=True,
        )
    failed = not report.ok or (strict and bool(report.violations))
    ctx.exit(ExitCode.VALIDATION_FAILURE if failed else ExitCode.OK)
