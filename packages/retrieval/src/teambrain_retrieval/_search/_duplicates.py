"""The near-duplicate verdict, shared by retrieval's ``similar()`` (live memories) and the
distiller's guard (pending candidates, which are in no index). Stdlib only: importing it costs
nothing.
"""

from __future__ import annotations

from collections.abc import Collection

# A duplicate has an embedding cosine ≥ 0.88 (cosine distance ≤ 0.12), or shares ≥ 80% of its
# words with the other text (for bodies long enough to judge), or — the same thing said in other
# words — has a cosine ≥ 0.75 *and* shares ≥ 40% of its words. With the local model, hand-written
# paraphrases of one lesson score 0.73–0.96 (sharing 33–56% of their words), while two memories
# on one subject that say different things (a charge and a refund through one gateway) stay
# below 0.70; cosine ≥ 0.88 alone let a third of the paraphrases through.
DUPLICATE_COSINE = 0.88
DUPLICATE_TERM_OVERLAP = 0.8
PARAPHRASE_COSINE = 0.75
PARAPHRASE_TERM_OVERLAP = 0.4
_MIN_BODY_CHARS = 8


def term_overlap(a: Collection[str], b: Collection[str]) -> float:
    """Dice coefficient of two term sets: 1.0 for the same words, 0.0 for none shared."""
    first, second = set(a), set(b)
    if not first or not second:
        return 0.0
    return 2 * len(first & second) / (len(first) + len(second))


def is_near_duplicate(cosine: float | None, overlap: float, body: str) -> bool:
    """The verdict: cosine ≥ :data:`DUPLICATE_COSINE` (None: no vectors), or term overlap ≥
    :data:`DUPLICATE_TERM_OVERLAP` for a body of at least a few characters, or both cosine ≥
    :data:`PARAPHRASE_COSINE` and overlap ≥ :data:`PARAPHRASE_TERM_OVERLAP` (a paraphrase)."""
    if cosine is not None and (
        cosine >= DUPLICATE_COSINE
        or (cosine >= PARAPHRASE_COSINE and overlap >= PARAPHRASE_TERM_OVERLAP)
    ):
        return True
    return overlap >= DUPLICATE_TERM_OVERLAP and len(body.strip()) >= _MIN_BODY_CHARS
