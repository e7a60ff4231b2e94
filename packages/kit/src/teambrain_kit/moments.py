"""Moments as users type them, for every option that takes one (``--since``, ``--until``,
``--at``): one parser, one error message. Stdlib only.

Accepted forms: ``now``; relative ``<n>m``, ``<n>h``, ``<n>d``, ``<n>w`` (that long before now);
ISO dates (``2026-07-01``) and datetimes (``2026-07-01T09:30``, ``…Z``, ``…+02:00``). Values
without an offset are UTC, so a team's reports agree whatever their laptops' time zones.
"""

from __future__ import annotations

import datetime as dt
import re

from ._errors import UserError

__all__ = ["parse_moment"]

_RELATIVE = re.compile(r"^(?P<count>\d{1,5})(?P<unit>[mhdw])$")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# git and the spool count time from the Unix epoch: nothing teambrain knows happened before it.
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def parse_moment(
    text: str,
    *,
    now: dt.datetime | None = None,
    option: str = "--since",
    end_of_day: bool = False,
) -> dt.datetime:
    """One moment as an aware UTC datetime; :class:`UserError` (exit 1) naming ``option`` when
    it cannot be read or lies before 1970 (a typo such as ``0226-05-08``).

    ``end_of_day`` makes a bare date mean the end of that day (what ``--until 2026-07-07``
    means to a person)."""
    reference = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    value = text.strip()
    moment = _read(value, reference, end_of_day)
    if moment is None:
        raise UserError(
            f"{option} {text!r}: expected an ISO date or datetime (2026-07-01, "
            "2026-07-01T09:30Z) or a relative time like 7d, 12h, 2w or now"
        )
    if moment < EPOCH:
        raise UserError(f"{option} {text!r}: before 1970; is the year mistyped?")
    return moment


def _read(value: str, now: dt.datetime, end_of_day: bool) -> dt.datetime | None:
    if value.lower() == "now":
        return now
    relative = _RELATIVE.match(value)
    try:
        if relative:
            seconds = int(relative["count"]) * _UNITS[relative["unit"]]
            return (now - dt.timedelta(seconds=seconds)).astimezone(dt.UTC)
        if _DATE.match(value):
            day = dt.date.fromisoformat(value)
            if end_of_day:
                day += dt.timedelta(days=1)
            return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC)
        moment = dt.datetime.fromisoformat(value)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        return moment.astimezone(dt.UTC)
    except (ValueError, OverflowError):
        return None
