"""``tb audit``: show exactly what the capture hooks recorded on this machine."""

from __future__ import annotations

import json
from typing import Any

import click
from teambrain_capture import (
    SessionSummary,
    audit_sessions,
    last_session,
    load_user_config,
    prune_spool,
)

from .._context import machine
from .._output import emit_json, say


def _describe(summary: SessionSummary) -> list[str]:
    status = f"ended: {summary.outcome}" if summary.ended else "open"
    duration = f", {summary.duration_s:g} s" if summary.duration_s is not None else ""
    uses = ", ".join(f"{kind} {count}" for kind, count in sorted(summary.tool_uses.items()))
    lines = [
        f"{summary.sid}  {summary.tool or '?'}  {summary.repo or '?'} @ {summary.branch or '?'}"
        f"  model {summary.model or 'unknown'}",
        f"    {summary.started or '?'} .. {summary.last_event or '?'}  ({status}{duration})",
        f"    {summary.turns} prompt(s); tool uses: {uses or 'none'}; "
        f"{summary.events.get('plan_revision', 0)} plan revision(s); "
        f"{summary.events.get('memory_retrieved', 0)} memory retrieval(s); "
        f"{len(summary.commits)} commit(s)",
    ]
    warnings = []
    if summary.torn_lines:
        warnings.append(f"{summary.torn_lines} torn line(s) skipped")
    if summary.invalid:
        warnings.append(f"{summary.invalid} event(s) not valid envelopes")
    if summary.secrets:
        warnings.append(f"{summary.secrets} event(s) look like they hold a secret")
    if warnings:
        lines.append("    WARNING: " + "; ".join(warnings))
    return lines


@click.command("audit")
@click.option(
    "--last-session", "last", is_flag=True, help="Print every event of the most recent session."
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(last: bool, as_json: bool) -> None:
    """Show what capture recorded: a summary per session, or with --last-session every event of
    the last one exactly as stored, checked against the envelope schema and the secret rules.

    Sessions not written to for capture.retention_days (user/config.toml, default 30) are pruned
    first, and the count is reported.
    """
    home = machine()
    retention = load_user_config(home).retention_days
    pruned = prune_spool(home, retention)
    report: dict[str, Any] = {"ok": True, "pruned": pruned, "retention_days": retention}
    if not as_json:
        say(f"pruned {pruned} session(s) older than {retention} days")
    if last:
        found = last_session(home)
        report["session"] = None
        if found is not None:
            summary, records = found
            report["session"] = {**summary.to_json(), "records": records}
        if as_json:
            emit_json(report)
        elif found is None:
            say(f"no captured sessions in {home.sessions}")
        else:
            summary, records = found
            for line in _describe(summary):
                click.echo(line)
            click.echo(f"  {len(records)} event(s) in {summary.path}:")
            for record in records:
                click.echo("  " + json.dumps(record, ensure_ascii=False))
        return
    summaries = audit_sessions(home)
    report["sessions"] = [summary.to_json() for summary in summaries]
    if as_json:
        emit_json(report)
        return
    if not summaries:
        say(f"no captured sessions in {home.sessions}")
        return
    for summary in summaries:
        for line in _describe(summary):
            click.echo(line)
    click.echo(f"{len(summaries)} session(s) in {home.sessions}")
