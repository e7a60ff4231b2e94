"""``tb audit``: show exactly what the capture hooks recorded on this machine."""

from __future__ import annotations

import json
from typing import Any

import click
from teambrain_capture import (
    SessionAudit,
    audit_sessions,
    last_session,
    load_user_config,
    prune_spool,
)

from .._console.context import machine
from .._console.output import emit_json, say


def _describe(audit: SessionAudit) -> list[str]:
    summary = audit.summary
    if summary is None:
        return [f"{audit.sid}  (no valid events)", *_warnings(audit)]
    status = f"ended: {summary.outcome}" if audit.ended else "open"
    duration = f", {summary.duration_s:g} s" if summary.duration_s is not None else ""
    uses = ", ".join(f"{kind} {count}" for kind, count in sorted(summary.tool_uses.items()))
    return [
        f"{audit.sid}  {summary.tool}  {summary.repo} @ {summary.branch}  model {summary.model}",
        f"    {audit.first_event} .. {audit.last_event}  ({status}{duration})",
        f"    {audit.events.get('intent', 0)} prompt(s); tool uses: {uses or 'none'}; "
        f"{audit.events.get('plan_revision', 0)} plan revision(s); "
        f"{summary.retrievals} memory retrieval(s); {len(audit.commit_shas)} commit(s)",
        *_warnings(audit),
    ]


def _warnings(audit: SessionAudit) -> list[str]:
    warnings = []
    if audit.torn_lines:
        warnings.append(f"{audit.torn_lines} torn line(s) skipped")
    if audit.invalid_events:
        warnings.append(f"{audit.invalid_events} event(s) not valid envelopes")
    if audit.secrets_found:
        warnings.append(f"{audit.secrets_found} event(s) look like they hold a secret")
    return ["    WARNING: " + "; ".join(warnings)] if warnings else []


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

    \b
    Examples:
      tb audit
      tb audit --last-session
      tb audit --json
    """
    home = machine()
    retention = load_user_config(home).retention_days
    pruned = prune_spool(home, retention)
    report: dict[str, Any] = {"ok": True, "pruned": pruned, "retention_days": retention}
    if not as_json:
        say(f"pruned {pruned} session(s) older than {retention} days")
    if last:
        found = last_session(home)
        report["session"] = None if found is None else {**found.to_json(), "records": found.records}
        if as_json:
            emit_json(report)
        elif found is None:
            say(f"no captured sessions in {home.sessions}")
        else:
            for line in _describe(found):
                click.echo(line)
            click.echo(f"  {len(found.records)} event(s) in {found.path}:")
            for record in found.records:
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
    for audit in summaries:
        for line in _describe(audit):
            click.echo(line)
    click.echo(f"{len(summaries)} session(s) in {home.sessions}")
