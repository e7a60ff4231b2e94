"""The time window a digest covers: ``--since`` / ``--until`` as users type them.

Accepted forms: ``now``; relative ``<n>m``, ``<n>h``, ``<n>d``, ``<n>w`` (that long before now);
ISO dates (``2026-07-01``) and datetimes (``2026-07-01T09:30``, ``…Z``, ``…+02:00``). Values
without an offset are UTC, so a team's reports agree whatever their laptops' time zones. A date
given to ``--until`` includes that whole day (``teambrain_kit.moments.parse_moment`` reads them).
Stdlib only.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from teambrain_kit.moments import parse_moment
from teambrain_schema import UserError

DEFAULT_SINCE = "7d"
# Windows longer than this are charted by week instead of by day.
MAX_DAILY_BUCKETS = 62


@dataclass(frozen=True)
class ReportWindow:
    """A half-open interval ``[since, until)`` in UTC."""

    since: dt.datetime
    until: dt.datetime

    def __post_init__(self) -> None:
        if self.since.tzinfo is None or self.until.tzinfo is None:
            raise ValueError("window bounds must be timezone-aware")

    def contains(self, moment: dt.datetime) -> bool:
        """True when ``moment`` falls inside the window."""
        return self.since <= moment < self.until

    @property
    def days(self) -> float:
        """Length of the window in days."""
        return (self.until - self.since).total_seconds() / 86400

    @property
    def bucket_days(self) -> int:
        """Width of one chart bucket: a day, or a week for long windows."""
        return 1 if self.days <= MAX_DAILY_BUCKETS else 7

    def buckets(self) -> list[dt.date]:
        """Start dates (UTC) of the chart buckets that cover the window."""
        first = self.since.astimezone(dt.UTC).date()
        last = (self.until - dt.timedelta(microseconds=1)).astimezone(dt.UTC).date()
        step = dt.timedelta(days=self.bucket_days)
        starts = []
        current = first
        while current <= last:
            starts.append(current)
            current += step
        return starts

    def bucket_of(self, moment: dt.datetime) -> dt.date:
        """The start date of the bucket ``moment`` falls in."""
        first = self.since.astimezone(dt.UTC).date()
        offset = (moment.astimezone(dt.UTC).date() - first).days
        return first + dt.timedelta(days=offset - offset % self.bucket_days)


def resolve_window(
    since: str | None = None, until: str | None = None, *, now: dt.datetime | None = None
) -> ReportWindow:
    """The window for ``--since`` / ``--until`` (default: the last 7 days up to now)."""
    reference = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    start = parse_moment(since or DEFAULT_SINCE, now=reference, option="--since")
    end = (
        parse_moment(until, now=reference, option="--until", end_of_day=True)
        if until
        else reference
    )
    if start >= end:
        raise UserError(
            f"--since ({start:%Y-%m-%d %H:%M}Z) must be before --until ({end:%Y-%m-%d %H:%M}Z)"
        )
    return ReportWindow(start, end)
