"""``tb distill``: turn this repository's captured sessions into memory candidates."""

from __future__ import annotations

import sys
from typing import Any

import click
from teambrain_schema import EnvironmentProblem
from teambrain_schema.brain import load_brain_config

from .._console.context import machine, require_brain
from .._console.output import emit_json, say


def _progress_printer() -> Any:
    """Progress on stderr when it is a terminal; nothing when piped."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, sid: str) -> None:
        line = f"distilling session {done + 1}/{total} ({sid})…" if sid else ""
        click.echo(f"\r\033[K{line}", err=True, nl=False)

    return show


NO_MODEL_STEPS = """\
tb distill needs a model, and this brain has none yet (distill.driver: none in
.teambrain/brain.yaml). Pick one, commit brain.yaml, and run tb distill again:

  A local model (nothing leaves this machine):
    1. install Ollama (https://ollama.com) and run: ollama pull qwen2.5:7b-instruct
    2. {ollama}
    3. in brain.yaml:  distill: {driver: ollama, model: qwen2.5:7b-instruct}

  A hosted model (session summaries and memories are sent to the provider):
    1. {anthropic}   (or [openai])
    2. in brain.yaml:  distill: {driver: anthropic, model: <model name>,
                                 api_key_env: ANTHROPIC_API_KEY}
    3. export ANTHROPIC_API_KEY=…   then `tb trust` approves the destination on this machine

Other servers (LM Studio, llama.cpp, vLLM) and their settings: `tb help distill-guide`.
`tb doctor` checks the choice."""


def _human(report: Any) -> None:
    echo = click.echo
    distilled = report.count("distilled")
    usage = report.usage
    header = (
        f"Distilled {distilled} session(s) with {report.driver}:{report.model} "
        f"({usage['calls']} model call(s), ~{usage['input_tokens']} input tokens)."
    )
    if report.dry_run:
        header += " Dry run: nothing was written."
    ignored = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in report.ignored.items() if n)
    if not report.sessions:
        header = "Nothing to distill: no new sessions" + (f" ({ignored})." if ignored else ".")
    elif ignored:
        header += f" Not taken: {ignored}."
    echo(header)
    if report.candidates:
        verb = "Would queue" if report.dry_run else "Queued"
        echo(f"{verb} {len(report.candidates)} candidate(s) (proposer: distiller):")
        for c in report.candidates:
            evidence = ", ".join(
                [*c.evidence["sessions"], *(s[:10] for s in c.evidence["commits"])]
            )
            echo(
                f"  {c.candidate_id or '(dry run)'}  {c.memory_class:<10} {c.title}  [evidence: {evidence}]"
            )
    duplicates = [d for d in report.dropped if d.reason == "duplicate"]
    if duplicates:
        echo(f"Dropped {len(duplicates)} near-duplicate(s):")
        for d in duplicates:
            echo(f'  "{d.title}" (session {d.sid}) matches:')
            for m in d.matches:
                where = f" {m.path}" if m.path else ""
                score = f", cosine {m.cosine}" if m.cosine is not None else ""
                echo(f'    {m.kind} {m.ref} "{m.title}"{where} ({m.reason}{score})')
    invalid = [d for d in report.dropped if d.reason == "invalid"]
    if invalid:
        echo(f"Dropped {len(invalid)} invalid proposal(s) (the valid ones were kept):")
        for d in invalid:
            echo(f'  "{d.title}" (session {d.sid}): {d.detail}')
    empty = [r for r in report.sessions if r.yielded_nothing]
    if empty:
        said_none = sum(1 for r in empty if r.proposals == 0)
        echo(
            f"{len(empty)} session(s) yielded nothing: {said_none} answered that nothing was "
            f"learned, {len(empty) - said_none} had every proposal dropped."
        )
    resent = sum(r.resends for r in report.sessions)
    reasked = sum(max(r.attempts - 1, 0) for r in report.sessions)
    if resent or reasked:
        echo(f"Re-asked {reasked} time(s) after invalid or cut-off answers; re-sent {resent} "
             "request(s) after server errors.")  # fmt: skip
    for status, label in (("failed", "Failed"), ("deferred", "Deferred (distilled next run)")):
        rows = [r for r in report.sessions if r.status == status]
        if rows:
            echo(f"{label}: {len(rows)} session(s)")
            for r in rows:
                echo(f"  {r.sid}: {r.detail}")
    if report.stopped:
        echo(f"Stopped early: {report.stopped}")
    for note in report.notes:
        echo(f"Note: {note}")
    for path in report.recorded:
        echo(f"Recorded fixture {path}")
    if report.candidates and not report.dry_run:
        echo("Next: review the candidates with `tb propose`.")


@click.command("distill")
@click.option(
    "--since",
    metavar="WHEN",
    help="Only sessions active since WHEN: 2026-11-20, 2026-11-20T09:30Z, 12h, 7d, 2w or now.",
)
@click.option("--dry-run", is_flag=True, help="Ask the model and show the result; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--record",
    is_flag=True,
    help="Also save each answer of a real driver as a fake-driver fixture.",
)
@click.pass_context
def command(
    ctx: click.Context, since: str | None, dry_run: bool, as_json: bool, record: bool
) -> None:
    """Distill captured sessions into memory candidates for review.

    Reads this repository's spool sessions that were not distilled yet (sessions that ended
    with a commit first), asks the model pinned in brain.yaml for memories with evidence, and
    queues the valid, new ones in the candidate spool (proposer: distiller). Only envelope data
    and the brain's own memories are sent; see `tb help distill-guide`.

    Exits 0 when done (a cost-cap stop included), 2 when the model or its fixtures are
    unavailable, 3 when the model's answers stayed invalid after the allowed retries.

    \b
    Examples:
      tb distill
      tb distill --since 7d --dry-run
      tb distill --json
    """
    from teambrain_distill import DistillOptions, distill, parse_since

    from .._console.trust import ask_to_approve

    layout = require_brain()
    # A bad --since is a one-line UserError (exit 1) worded as `tb digest --since` words it.
    since_at = parse_since(since) if since is not None else None
    config = load_brain_config(layout).distill
    if config.driver == "none" and config.plugin is None:
        from teambrain_distill import NO_MODEL

        if not as_json:
            from .._console.extras import extra_install_command

            steps = NO_MODEL_STEPS
            for extra in ("ollama", "anthropic"):  # this installer's own command
                steps = steps.replace(f"{{{extra}}}", extra_install_command(extra))
            say(steps)
        raise EnvironmentProblem(NO_MODEL)
    ask_to_approve(layout, machine(), ("distill", "retrieval.embedder", "org_brain"))
    report = distill(
        layout,
        machine(),
        options=DistillOptions(since=since_at, dry_run=dry_run, record=record or None),
        progress=None if as_json else _progress_printer(),
    )
    if as_json:
        emit_json(report.to_json())
    else:
        _human(report)
    failed = [r for r in report.sessions if r.status == "failed"]
    if failed:
        click.echo(f"tb: {len(failed)} session(s) failed; see above", err=True)
    ctx.exit(report.exit_code)
