"""Slugs for memory file names."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["slugify"]

SLUG_PATTERN = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_SLUG_RE = re.compile(rf"^{SLUG_PATTERN}$")
MAX_SLUG_LENGTH = 60


def slugify(title: str, *, max_length: int = MAX_SLUG_LENGTH) -> str:
    """Turn a title into a lowercase ASCII slug (``memory`` when nothing is left)."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    slug = ""
    for word in words:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > max_length:
            break
        slug = candidate
    if not slug and words:
        slug = words[0][:max_length]
    return slug or "memory"


def is_slug(value: str) -> bool:
    """True when ``value`` is a valid slug."""
    return bool(_SLUG_RE.match(value)) and len(value) <= MAX_SLUG_LENGTH
