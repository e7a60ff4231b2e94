"""ULIDs, isolated here so the rest of the code never imports ulid-py directly."""

from __future__ import annotations

import re

__all__ = ["is_ulid", "new_ulid"]

ULID_PATTERN = r"[0-9A-HJKMNP-TV-Z]{26}"
_ULID_RE = re.compile(ULID_PATTERN)


def new_ulid() -> str:
    """Return a new ULID as its canonical 26-character Crockford base32 string."""
    import ulid  # ulid-py; imported lazily to keep hook start-up cheap

    return str(ulid.new()).upper()


def is_ulid(value: str) -> bool:
    """True when ``value`` is a canonical (upper-case) ULID string."""
    # fullmatch: ``^...$`` with match() also takes a trailing newline ("01…\n")
    return bool(_ULID_RE.fullmatch(value)) and value[0] <= "7"
