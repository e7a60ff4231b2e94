"""Parsing ``--since``: a date, an ISO-8601 time, or a span back from now (``90m``, ``12h``,
``7d``, ``2w``)."""

from __future__ import annotations

import datetime as dt
import re

_SPAN = re.compile(r"^(\d{1,6})\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, *, now: dt.datetime | None = None) -> dt.datetime:
    """The moment ``text`` names, timezone-aware (UTC unless it says otherwise).

    Raises ``ValueError`` with a one-line reason for anything else.
    """
    value = text.strip()
    reference = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)
    span = _SPAN.match(value.lower())
    if span:
        amount, unit = int(span.group(1)), span.group(2)
        return reference - dt.timedelta(**{_UNITS[unit]: amount})
    try:
        if len(value) == 10:
            day = dt.date.fromisoformat(value)
            return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date (2026-11-20), a time (2026-11-20T09:30) or a span (12h, 7d)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)
