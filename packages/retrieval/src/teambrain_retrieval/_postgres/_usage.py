"""The team's view of use in the shared database (schema version 3, ``teambrain.usage``).

A member who opted in publishes their digest's weekly figures for a brain — numbers that are
already small-cell suppressed on their machine, a ``None`` standing for a figure their digest
shows as ``<5`` — as :class:`UsageCell` rows; only their own rows, only for brains they may
read (row-level security). Everyone who may read the brain reads the team's figures through
``teambrain.team_usage``, which sums the members' shown values per week and figure and keeps
only the sums that at least :data:`MIN_MEMBERS` members' values make up.

:func:`combine_cells` is the same rule in Python, for teams without a shared database that
combine exported reports: both paths give the same :class:`TeamCell` rows.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._connect import SharedIndexUnavailable, describe
from ._schema import MIN_MEMBERS, SCHEMA, SCHEMA_VERSION, ULID_RE, USAGE_METRICS, schema_version

__all__ = [
    "MIN_MEMBERS",
    "USAGE_METRICS",
    "TeamCell",
    "UsageCell",
    "combine_cells",
    "publish_usage",
    "team_usage",
]

_ULID = re.compile(ULID_RE)


@dataclass(frozen=True, order=True)
class UsageCell:
    """One weekly figure of one member: ``value`` None when their digest shows it as ``<5``.
    ``key`` is a memory's ULID for the ``memory_*`` metrics and empty for the others."""

    week: dt.date
    metric: str
    key: str
    value: float | None

    def __post_init__(self) -> None:
        if self.week.isoweekday() != 1:
            raise ValueError(f"week {self.week} is not a Monday")
        if self.metric not in USAGE_METRICS:
            raise ValueError(f"unknown metric {self.metric!r}")
        if self.metric.startswith("memory_"):
            if not _ULID.fullmatch(self.key):
                raise ValueError(f"{self.metric}: key {self.key!r} is not a memory id")
        elif self.key:
            raise ValueError(f"{self.metric} takes no key")
        if self.value is not None and not self.value >= 0:
            raise ValueError(f"{self.metric}: value {self.value!r} is not a count")


@dataclass(frozen=True, order=True)
class TeamCell:
    """One weekly figure of the team: the sum of ``members`` members' shown values (at least
    :data:`MIN_MEMBERS`), and how many members published it as ``<5`` (``hidden``: the sum
    is then a lower bound)."""

    week: dt.date
    metric: str
    key: str
    value: float
    members: int
    hidden: int


def combine_cells(members: Sequence[Iterable[UsageCell]]) -> list[TeamCell]:
    """The team's figures from each member's cells, by the rule ``teambrain.team_usage``
    applies in the database (see the module docstring); sorted."""
    sums: dict[tuple[dt.date, str, str], list[float | None]] = {}
    for cells in members:
        seen: set[tuple[dt.date, str, str]] = set()
        for cell in cells:
            where = (cell.week, cell.metric, cell.key)
            if where in seen:  # one value per member and figure, as the table's key says
                raise ValueError(f"{cell.metric} {cell.key} of week {cell.week} given twice")
            seen.add(where)
            sums.setdefault(where, []).append(cell.value)
    team = []
    for (week, metric, key), values in sums.items():
        shown = [value for value in values if value is not None]
        if len(shown) >= MIN_MEMBERS:
            team.append(
                TeamCell(week, metric, key, sum(shown), len(shown), len(values) - len(shown))
            )
    return sorted(team)


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """The driver's errors as :class:`SharedIndexUnavailable`, one secret-free line."""
    import psycopg

    try:
        yield
    except psycopg.Error as exc:
        raise SharedIndexUnavailable(describe(exc)) from None


def _check_version(conn: Any) -> None:
    found = schema_version(conn)
    if found != SCHEMA_VERSION:
        raise SharedIndexUnavailable(
            f"its schema is version {found}, this teambrain reads {SCHEMA_VERSION}"
            + (" (CI's `tb reindex --shared` migrates it)" if found < SCHEMA_VERSION else "")
        )


def publish_usage(
    conn: Any, brain: str, weeks: Sequence[dt.date], cells: Sequence[UsageCell]
) -> int:
    """Replace this member's figures of ``weeks`` for ``brain`` with ``cells`` (one
    transaction; a week published again is replaced, never added to). Returns rows written.

    Raises :class:`SharedIndexUnavailable` for a schema of another version, and with the
    database's reason (one line) when it refuses: no grant, a brain this member may not read."""
    outside = {cell.week for cell in cells} - set(weeks)
    if outside:
        raise ValueError(f"cells for weeks not being published: {sorted(outside)}")
    with _refusals():
        return _publish(conn, brain, weeks, cells)


def _publish(conn: Any, brain: str, weeks: Sequence[dt.date], cells: Sequence[UsageCell]) -> int:
    _check_version(conn)
    with conn.transaction():
        conn.execute(
            f"DELETE FROM {SCHEMA}.usage WHERE brain = %s AND member = current_user "
            "AND week = ANY(%s)",
            [brain, list(weeks)],
        )
        if cells:
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {SCHEMA}.usage(brain, week, metric, key, value) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [(brain, c.week, c.metric, c.key, c.value) for c in cells],
                )
    return len(cells)


def team_usage(conn: Any, brain: str, since: dt.date | None = None) -> list[TeamCell]:
    """The team's figures for ``brain`` (weeks from ``since`` on), as ``teambrain.team_usage``
    gives them to the caller's role: nothing for a brain it may not read (a role without the
    grant: :class:`SharedIndexUnavailable`, with the database's reason)."""
    with _refusals():
        _check_version(conn)
        rows = conn.execute(
            f"SELECT week, metric, key, value, members, hidden FROM {SCHEMA}.team_usage(%s) "
            "WHERE week >= %s",
            [brain, since or dt.date.min],
        ).fetchall()
    return sorted(TeamCell(r[0], r[1], r[2], float(r[3]), int(r[4]), int(r[5])) for r in rows)
