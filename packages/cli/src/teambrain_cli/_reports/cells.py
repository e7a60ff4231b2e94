"""Small-cell suppression: the one place that decides whether a figure may be shown.

Every session-derived figure of a report is a :data:`Figure`: a number, or :data:`SUPPRESSED`
when the group of sessions it was computed from is smaller than :data:`MIN_SESSIONS`. The
aggregator applies this before any renderer sees the report, so no output format can show what
another hides. Breakdowns of a shown total are also protected against subtraction: small cells
are hidden (or folded into ``(other)``) together with the next-smallest ones until the hidden
part holds at least :data:`MIN_SESSIONS` sessions. Stdlib only.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence, Set as AbstractSet
from typing import Final, TypeAlias

MIN_SESSIONS: Final = 5
SUPPRESSED_MARK: Final = "<5"
OTHER_KEY: Final = "(other)"


class Suppressed(enum.Enum):
    """The marker that stands where a figure over fewer than five sessions would be."""

    MARK = SUPPRESSED_MARK

    def __str__(self) -> str:
        return SUPPRESSED_MARK

    __repr__ = __str__


SUPPRESSED: Final = Suppressed.MARK
Figure: TypeAlias = int | float | Suppressed


def figure(value: float, sessions: int, *, digits: int | None = None) -> Figure:
    """``value`` when it rests on at least :data:`MIN_SESSIONS` sessions, else :data:`SUPPRESSED`.

    ``digits`` rounds a float for display (the rounding happens here so every format agrees)."""
    if sessions < MIN_SESSIONS:
        return SUPPRESSED
    if digits is not None:
        return round(float(value), digits)
    return value


def is_shown(value: Figure) -> bool:
    """True for a number, False for the suppression marker."""
    return not isinstance(value, Suppressed)


def as_json(value: Figure) -> int | float | str:
    """A figure as it appears in JSON: the number, or ``"<5"``."""
    return SUPPRESSED_MARK if isinstance(value, Suppressed) else value


def _hidden_indices(
    groups: Sequence[AbstractSet[str]], forced: frozenset[int] = frozenset()
) -> set[int]:
    """Cells to hide in a breakdown of a shown total: every cell under the threshold, plus the
    smallest others while the hidden cells together hold 1–4 sessions (a lone small cell would
    otherwise be the total minus the shown ones). Groups are session ids, so a session counted
    in two cells is counted once."""
    hidden = {index for index, group in enumerate(groups) if len(group) < MIN_SESSIONS} | forced
    pooled: set[str] = set().union(*(groups[index] for index in hidden))
    for index in sorted(set(range(len(groups))) - hidden, key=lambda i: (len(groups[i]), i)):
        if not pooled or len(pooled) >= MIN_SESSIONS:
            break
        hidden.add(index)
        pooled |= groups[index]
    return hidden


Cell: TypeAlias = tuple[float, AbstractSet[str]]


def hide_small_cells(cells: Sequence[Cell]) -> list[Figure]:
    """A breakdown with fixed categories (days, a with/without pair): each cell is
    ``(value, session ids)``; small cells and their complements become :data:`SUPPRESSED`."""
    hidden = _hidden_indices([group for _, group in cells])
    return [SUPPRESSED if index in hidden else value for index, (value, _) in enumerate(cells)]


def fold_small_cells(cells: Mapping[str, Cell]) -> dict[str, Figure]:
    """A breakdown with open categories (tools, models): small ones are folded into
    ``(other)`` so their names are not shown either; ``(other)`` is itself a figure."""
    keys = sorted(cells)
    # A category really named "(other)" is folded too, so the key always means the fold.
    forced = frozenset(index for index, key in enumerate(keys) if key == OTHER_KEY)
    hidden = _hidden_indices([cells[key][1] for key in keys], forced)
    # Largest first; "(other)" last.
    order = sorted(
        (index for index in range(len(keys)) if index not in hidden),
        key=lambda index: (-cells[keys[index]][0], keys[index]),
    )
    shown: dict[str, Figure] = {keys[index]: cells[keys[index]][0] for index in order}
    folded = [cells[keys[index]] for index in hidden]
    sessions: set[str] = set().union(*(group for _, group in folded))
    if sessions:
        shown[OTHER_KEY] = figure(sum(value for value, _ in folded), len(sessions))
    return shown
