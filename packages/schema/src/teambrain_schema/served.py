"""The one rule for "is this memory served" (retrieval answers by it, `tb metrics` counts by it).

A memory is served when it is active, not retired anywhere, not expired, and no *live*
memory supersedes it. A superseding memory whose TTL ran out no longer hides the one it
replaced: a TTL marks a temporary rule ("during the freeze, deploy on Fridays only"), and when
it ends the rule it stood in for applies again. Stdlib only.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

__all__ = ["excluded_ids"]


def excluded_ids(
    entries: Iterable[tuple[str, str, bool, Iterable[str], dt.date | None]], today: dt.date
) -> set[str]:
    """Ids never served whatever their own fields say, from the memories of a brain as
    ``(id, status, retired, supersedes, expires)`` (``expires``: the first day it is no longer
    served, None without a TTL): those a live memory supersedes, and those with a retired or
    non-active copy."""
    excluded: set[str] = set()
    for memory_id, status, retired, supersedes, expires in entries:
        if retired or status != "active":
            excluded.add(memory_id)
        elif expires is None or expires > today:
            excluded.update(supersedes)
    return excluded
