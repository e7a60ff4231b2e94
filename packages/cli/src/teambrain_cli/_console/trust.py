"""This machine's approval of what a brain's committed settings send off it (``tb trust``,
the question other verbs ask on a terminal, and what doctor, verify and lint report)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from teambrain_kit.egress import Approvals, Egress
    from teambrain_kit.paths import BrainLayout, MachineLayout
    from teambrain_schema import BrainConfig, RetrievalConfig

# The settings brain.yaml can make send data (or bring it in from outside the repository).
SETTINGS = ("retrieval.embedder", "retrieval.backend", "org_brain", "distill")


def brain_egress(layout: BrainLayout, config: BrainConfig) -> list[Egress]:
    """Every setting of ``config`` that sends data off this machine, in :data:`SETTINGS`
    order (empty when everything stays here)."""
    from teambrain_distill import driver_egress
    from teambrain_retrieval import embedder_egress, org_brain_egress, shared_index_egress

    found = [
        embedder_egress(config.retrieval.embedder, layout.repo_root),
        shared_index_egress(config.retrieval),
        org_brain_egress(config, layout.repo_root),
        driver_egress(config.distill),
    ]
    return [egress for egress in found if egress is not None]


@dataclass(frozen=True)
class EgressStatus:
    """One setting, and whether this machine approved it for this repository."""

    egress: Egress
    state: str  # approved · not approved · changed
    approved_at: str | None
    was: str | None  # for "changed": what was approved before

    def line(self) -> str:
        """The setting and its state, on one line."""
        text = f"{self.egress.describe()}: {self.state} on this machine"
        if self.approved_at:
            text += f" (approved {self.approved_at})"
        if self.was:
            text += f" (approved before: {self.was})"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            **self.egress.to_json(),
            "state": self.state,
            "approved_at": self.approved_at,
            "was": self.was,
        }


def egress_status(
    layout: BrainLayout, config: BrainConfig, machine: MachineLayout
) -> tuple[list[EgressStatus], Approvals]:
    """Each sending setting of ``config`` with its approval state here, and the approvals."""
    from teambrain_kit.egress import load_approvals

    approvals = load_approvals(machine, layout.repo_root)
    found = []
    for egress in brain_egress(layout, config):
        record = approvals.approval(layout.repo_root, egress)
        previous = approvals.previous(layout.repo_root, egress) if record is None else None
        was = None
        if previous is not None:
            credential = previous.get("credential")
            was = str(previous.get("destination")) + (f", ${credential}" if credential else "")
        found.append(
            EgressStatus(
                egress,
                approvals.state(layout.repo_root, egress),
                str(record.get("approved_at")) if record else None,
                was,
            )
        )
    return found, approvals


def shown_proxy(url: str) -> str:
    """A proxy URL for people: its password never shown."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{parts.username}:***@{host}"


def proxy_line(approvals: Approvals) -> str | None:
    """How requests leave this machine, in one line — when there is anything to say: the
    proxy this machine named, or proxy variables of the environment that are not used."""
    from teambrain_kit.outbound import env_proxies_ignored

    ignored = env_proxies_ignored()
    unused = f"; ${', $'.join(ignored)} in the environment not used" if ignored else ""
    if approvals.proxy is not None:
        return (
            f"proxy: {shown_proxy(approvals.proxy)} (this machine's, `tb trust --proxy`; never "
            f"for this machine's own addresses){unused}"
        )
    if approvals.proxy_problem is not None:
        return f"proxy: none — {approvals.proxy_problem}{unused}"
    if ignored:
        return (
            f"proxy: none, requests go straight to each destination (${', $'.join(ignored)} in "
            "the environment is not used: `tb trust --proxy <url>` names this machine's proxy)"
        )
    return None


def interactive() -> bool:
    """Whether a person can answer a question: stdin and stderr are terminals."""
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def ask_to_approve(
    layout: BrainLayout, machine: MachineLayout, settings: tuple[str, ...] = SETTINGS
) -> None:
    """On a terminal, ask about each of ``settings`` that would send data somewhere this
    machine has not approved, and record a yes. Off a terminal (an agent's ``tb serve``, a
    script, CI) it asks nothing: the verb then runs without what is not approved."""
    if not interactive():
        return
    from teambrain_kit.egress import approve_egress
    from teambrain_schema import TeambrainError
    from teambrain_schema.brain import load_brain_config

    try:
        config = load_brain_config(layout)
        statuses, approvals = egress_status(layout, config, machine)
    except TeambrainError:
        return  # the verb itself reports a broken brain.yaml
    pending = [s for s in statuses if s.egress.setting in settings and s.state != "approved"]
    if not pending or approvals.problem is not None:
        return
    for status in pending:
        click.echo(f"brain.yaml (committed, arrives with `git pull`) wants to send data off this machine:\n  {status.line()}", err=True)  # fmt: skip
        if click.confirm(f"Approve this for {layout.repo_root} on this machine?", default=False, err=True):  # fmt: skip
            approve_egress(machine, layout.repo_root, [status.egress])
            click.echo("approved (`tb trust --revoke` takes it back)", err=True)


def approved_shared_index(
    layout: BrainLayout,
    machine: MachineLayout,
    retrieval: RetrievalConfig,
    *,
    no_backend: str,
    label: str,
    ask: tuple[str, ...] | None,
) -> tuple[str, Approvals]:
    """(connection string, this machine's approvals) of the shared index brain.yaml's
    ``retrieval`` names, once this machine approved it (``ask``: the settings to ask about on
    a terminal first). A :class:`UserError` saying ``no_backend`` when it names none, the
    approval's own one line when it is not approved, an :class:`EnvironmentProblem` starting
    with ``label`` when the variable ``url_env`` names holds nothing."""
    from teambrain_kit.egress import EgressNotApproved, load_approvals
    from teambrain_retrieval import shared_index_egress, shared_index_url
    from teambrain_schema import EnvironmentProblem, UserError

    egress = shared_index_egress(retrieval)
    if egress is None:
        raise UserError(no_backend)
    if ask:
        ask_to_approve(layout, machine, ask)
    approvals = load_approvals(machine, layout.repo_root)
    if not approvals.is_approved(layout.repo_root, egress):
        raise EgressNotApproved(egress, approvals.state(layout.repo_root, egress), layout.repo_root)
    url, why = shared_index_url(retrieval)
    if url is None:
        raise EnvironmentProblem(f"{label}: {why}")
    return url, approvals
