"""The shared database of the brain you are in, for the team view: publishing this machine's
weekly figures (``tb digest --publish``) and reading the team's (``tb metrics --team``).

It is the shared index's database (``retrieval.backend: postgres`` in brain.yaml, the
connection string from the variable ``retrieval.url_env`` names), used only once this machine
approved that destination (``tb trust``), like every committed setting that sends data.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from teambrain_schema import EnvironmentProblem

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout, MachineLayout
    from teambrain_retrieval import SharedIndexUnavailable, TeamCell

    from .team import WeekUsage


def _open(
    layout: BrainLayout, machine: MachineLayout, what: str, *, ask: bool = True
) -> tuple[Any, str]:
    """(connection, the brain's id in the database), or one line saying why not (``ask``: on
    a terminal, ask to approve the destination first, as other verbs do)."""
    from teambrain_retrieval import SharedIndexUnavailable, connect_shared_index, shared_brain_id
    from teambrain_schema.brain import load_brain_config

    from .._console.trust import approved_shared_index

    config = load_brain_config(layout)
    url, _ = approved_shared_index(
        layout, machine, config.retrieval,
        no_backend=f"{what}: this brain has no shared database (brain.yaml's retrieval.backend "
        "is sqlite); combine exported reports instead: `tb metrics --team FILE…` "
        "(`tb help metrics`)",
        label=what, ask=("retrieval.backend",) if ask else None,
    )  # fmt: skip
    try:
        conn = connect_shared_index(url, timeout_s=config.retrieval.timeout_s)
    except SharedIndexUnavailable as exc:
        raise _refused(what, exc) from None
    return conn, shared_brain_id(layout)


def _refused(what: str, exc: SharedIndexUnavailable) -> EnvironmentProblem:
    return EnvironmentProblem(f"{what}: shared database: {exc.reason}")


def publish_weeks(
    layout: BrainLayout, machine: MachineLayout, weeks: Sequence[WeekUsage]
) -> tuple[str, int]:
    """Replace this member's figures of ``weeks`` in the shared database: (brain id, rows)."""
    from teambrain_retrieval import SharedIndexUnavailable, publish_usage

    conn, brain = _open(layout, machine, "--publish")
    try:
        cells = [cell for week in weeks for cell in week.cells()]
        written = publish_usage(conn, brain, [week.week for week in weeks], cells)
    except SharedIndexUnavailable as exc:
        raise _refused("--publish", exc) from None
    finally:
        conn.close()
    return brain, written


def read_team(
    layout: BrainLayout, machine: MachineLayout, since: dt.date | None, *, ask: bool = True
) -> tuple[str, list[TeamCell]]:
    """The team's figures for the brain, as the database gives them to this member (``ask``:
    False where nobody can answer a question, as in tb ui's pages)."""
    from teambrain_retrieval import SharedIndexUnavailable, team_usage

    conn, brain = _open(layout, machine, "--team", ask=ask)
    try:
        cells = team_usage(conn, brain, since)
    except SharedIndexUnavailable as exc:
        raise _refused("--team", exc) from None
    finally:
        conn.close()
    return brain, cells
