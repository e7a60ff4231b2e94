"""``tb trust``: show, approve or revoke what this brain's committed settings send off this
machine (approval is per machine and per repository, like direnv's ``allow``)."""

from __future__ import annotations

from pathlib import Path

import click
from teambrain_schema import ExitCode, UserError

from .._console.choice import suggestion
from .._console.context import machine, require_brain
from .._console.output import echo, emit_json, say
from .._console.trust import (
    SETTINGS,
    EgressStatus,
    egress_status,
    interactive,
    proxy_line,
    shown_proxy,
)
from ._complete import complete_trust_settings


@click.command("trust")
@click.argument(
    "settings", nargs=-1, metavar="[SETTING]...", shell_complete=complete_trust_settings
)
@click.option("--yes", "-y", is_flag=True, help="Approve without asking (scripts, provisioning).")
@click.option("--revoke", is_flag=True, help="Forget this machine's approvals for this repository.")
@click.option("--json", "as_json", is_flag=True, help="Print the settings and their state as JSON.")
@click.option("--proxy", metavar="URL|none", help="Send through this http://host:port proxy from this machine (every repository); `none` sends directly.")  # fmt: skip
@click.pass_context
def command(
    ctx: click.Context, *, settings: tuple[str, ...], yes: bool, revoke: bool, as_json: bool,
    proxy: str | None,
) -> None:  # fmt: skip
    """Show what brain.yaml sends off this machine, and approve it here.

    brain.yaml arrives by `git pull`: a setting that sends memory text or sessions to a server
    (a remote embedder or distill driver, a plugin), names a credential sent along, or serves
    an org brain from outside the repository is used only once this machine approved exactly
    that destination and credential for this repository. A changed destination asks again.
    SETTING limits the command to retrieval.embedder, org_brain or distill. On a terminal it
    asks; elsewhere --yes approves. Exits 0, or 1 for an unknown SETTING.

    Requests go straight to each destination: proxy variables of the environment (HTTPS_PROXY,
    …) are not used, since a committed agent config can set them. --proxy names this
    machine's proxy instead (never used for 127.0.0.1 or localhost).

    \b
    Examples:
      tb trust                  what brain.yaml sends, and whether it is approved here
      tb trust distill --yes
      tb trust --proxy http://proxy.corp.example:3128
    """
    from teambrain_schema.brain import load_brain_config
    from teambrain_schema.egress import approve_egress, revoke_egress
    from teambrain_schema.outbound import env_proxies_ignored

    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        hint = suggestion(unknown[0], list(SETTINGS))
        raise UserError(f"unknown setting {unknown[0]!r}.{hint} (known: {', '.join(SETTINGS)})")
    if yes and revoke:
        raise UserError("--yes approves and --revoke forgets: give one of them")
    if proxy is not None:
        _set_proxy(proxy, settings=settings, other=yes or revoke, as_json=as_json)
        return
    layout = require_brain()
    home = machine()
    wanted = set(settings or SETTINGS)
    if revoke:
        dropped = revoke_egress(home, layout.repo_root, sorted(wanted) if settings else None)
        say(f"forgot {dropped} approval(s) for {layout.repo_root} on this machine")
        if as_json:
            emit_json({"ok": True, "revoked": dropped, "repo": str(layout.repo_root)})
        return
    config = load_brain_config(layout)
    statuses, approvals = egress_status(layout, config, home)
    statuses = [s for s in statuses if s.egress.setting in wanted]
    pending = [s for s in statuses if s.state != "approved"]
    approved_now = []
    if pending and approvals.problem is None:
        if yes:
            approved_now = approve_egress(home, layout.repo_root, [s.egress for s in pending])
        elif interactive() and not as_json:
            _show(statuses, layout.repo_root)
            question = f"Approve {len(pending)} setting(s) for {layout.repo_root} on this machine?"
            if click.confirm(question, default=False, err=True):
                approved_now = approve_egress(home, layout.repo_root, [s.egress for s in pending])
                say(f"approved {len(approved_now)} (`tb trust --revoke` takes them back)")
            ctx.exit(ExitCode.OK)
    if approved_now:
        statuses, approvals = egress_status(layout, config, home)
        statuses = [s for s in statuses if s.egress.setting in wanted]
    if as_json:
        emit_json({
            "ok": True, "repo": str(layout.repo_root), "trust_file": str(approvals.path),
            "problem": approvals.problem, "approved_now": len(approved_now),
            "settings": [s.to_json() for s in statuses],
            "proxy": shown_proxy(approvals.proxy) if approvals.proxy else None,
            "env_proxies_ignored": env_proxies_ignored(),
        })  # fmt: skip
        return
    _show(statuses, layout.repo_root)
    network = proxy_line(approvals)
    if network is not None:
        say(network)
    if approvals.problem is not None:
        say(f"tb: {approvals.problem}: nothing is approved until it is fixed")
    elif approved_now:
        say(f"approved {len(approved_now)} (`tb trust --revoke` takes them back)")
    elif any(s.state != "approved" for s in statuses):
        say("not approved: nothing is sent there; `tb trust --yes` approves after you checked")


def _set_proxy(url: str, *, settings: tuple[str, ...], other: bool, as_json: bool) -> None:
    """``--proxy``: name (or, with ``none``, forget) this machine's proxy."""
    from teambrain_schema.egress import set_machine_proxy

    if settings or other:
        raise UserError("--proxy sets this machine's proxy alone: give it without SETTING, --yes or --revoke")  # fmt: skip
    home = machine()
    chosen = None if url.strip().lower() == "none" else url
    set_machine_proxy(home, chosen)
    if chosen is None:
        say("proxy: none — requests go straight to each approved destination")
    else:
        say(f"proxy: {shown_proxy(chosen.strip())} for every repository on this machine (never for 127.0.0.1 or localhost); `tb trust --proxy none` stops it")  # fmt: skip
    if as_json:
        emit_json({"ok": True, "proxy": shown_proxy(chosen.strip()) if chosen else None})


def _show(statuses: list[EgressStatus], repo: Path) -> None:
    if not statuses:
        say(f"brain.yaml of {repo} sends nothing off this machine: nothing to approve")
        return
    width = max(len(s.state) for s in statuses)
    for status in statuses:
        text = status.egress.describe()
        if status.approved_at:
            text += f" (approved {status.approved_at})"
        if status.was:
            text += f" (approved before: {status.was})"
        echo(f"{status.state:<{width}}  {text}", hang=width + 2)
