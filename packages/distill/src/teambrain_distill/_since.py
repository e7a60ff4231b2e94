"""``tb distill --since``: the same moments, and the same one-line error, as ``tb digest --since``
(``teambrain_kit.moments.parse_moment`` reads them; this module only names the option)."""

from __future__ import annotations

import datetime as dt

from teambrain_kit.moments import parse_moment


def parse_since(text: str, *, now: dt.datetime | None = None) -> dt.datetime:
    """The moment ``text`` names, in UTC: ``now``, a span back from now (``90m``, ``12h``,
    ``7d``, ``2w``), an ISO date (midnight UTC) or an ISO time (UTC unless it has an offset).

    Raises :class:`teambrain_schema.UserError` (exit 1) with a one-line message naming
    ``--since`` for anything else.
    """
    return parse_moment(text, now=now or dt.datetime.now(dt.UTC), option="--since")
