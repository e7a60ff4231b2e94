"""The near-duplicate verdict, shared by retrieval's ``similar()`` (live memories) and the
distiller's guard (pending candidates, which are in no index). Stdlib only: importing it costs
nothing.
"""

from __future__ import annotations

from collections.abc import Collection

# A duplicate has an embedding cosine ≥ 0.88 (cosine distance ≤ 0.12), or shares ≥ 80% of its
# words with the other text (for bodies long enough to judge).
DUPLICATE_COSINE = 0.88
DUPLICATE_TERM_OVERLAP = 0.8
_MIN_BODY_CHARS = 8


def term_overlap(a: Collection[str], b: Collection[str]) -> float:
    """Dice coefficient of two term sets: 1.0 for the same words, 0.0 for none shared."""
    first, second = set(a), set(b)
    if not first or not second:
        return 0.0
    return 2 * len(first & second) / (len(first) + len(second))


def is_near_duplicate(cosine: float | None, overlap: float, body: str) -> bool:
    """The verdict: cosine ≥ :data:`DUPLICATE_COSINE` (None: no vectors), or term overlap ≥
    :data:`DUPLICATE_TERM_OVERLAP` for a body of at least a few characters."""
    return (cosine is not None and cosine >= DUPLICATE_COSINE) or (
        overlap >= DUPLICATE_TERM_OVERLAP and len(body.strip()) >= _MIN_BODY_CHARS
    )
