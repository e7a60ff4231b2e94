"""Small-cell suppression: the one place that decides whether a figure may be shown.

Every session-derived figure of a report is a :data:`Figure`: a number, or :data:`SUPPRESSED`
when the group of sessions it was computed from is smaller than :data:`MIN_SESSIONS`. The
aggregator applies this before any renderer sees the report, so no output format can show what
another hides. Breakdowns of a shown total are also protected against subtraction: small cells
are hidden (or folded into ``(other)``) together with the next-smallest ones until the hidden
part holds at least :data:`MIN_SESSIONS` sessions.

That is the rule for a report made for others (:attr:`Audience.SHARED`). A view of the
person's own machine (:attr:`Audience.OWN`: ``tb metrics``, ``tb digest --format text`` on
stdout, the usage page of ``tb ui``) takes the very same decisions but, where a shared report
hides a figure, shows it as :class:`Unshared`: the number, marked with the sessions it rests
on, so a solo user's first week reads "3 [3 of 5]" rather than "<5". Stdlib only.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence, Set as AbstractSet
from dataclasses import dataclass
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


class Audience(enum.Enum):
    """Who a report is for: others (``shared``: small cells suppressed, what may leave this
    machine) or the person at it, about their own sessions (``own``: every number, marked
    where a shared report would hide it)."""

    SHARED = "shared"
    OWN = "own"


@dataclass(frozen=True)
class Unshared:
    """A figure an own view shows and a shared report hides: its value (None when there is
    nothing to compute it from: a median of no session) and the sessions it rests on — fewer
    than :data:`MIN_SESSIONS`, or more, hidden to keep a smaller cell from being worked out."""

    value: int | float | None
    sessions: int

    @property
    def protects_another(self) -> bool:
        """True when it rests on enough sessions but is hidden for a smaller cell's sake."""
        return self.sessions >= MIN_SESSIONS


Figure: TypeAlias = int | float | Suppressed | Unshared


def figure(
    value: float, sessions: int, *, digits: int | None = None,
    audience: Audience = Audience.SHARED,
) -> Figure:  # fmt: skip
    """``value`` when it rests on at least :data:`MIN_SESSIONS` sessions, else
    :data:`SUPPRESSED` (in an own view: :class:`Unshared`, the value marked).

    ``digits`` rounds a float for display (the rounding happens here so every format agrees)."""
    rounded = round(float(value), digits) if digits is not None else value
    if sessions >= MIN_SESSIONS:
        return rounded
    if audience is Audience.OWN:
        return Unshared(rounded, sessions)
    return SUPPRESSED


def no_figure(audience: Audience = Audience.SHARED) -> Figure:
    """A figure with nothing to compute it from (a median of no session): :data:`SUPPRESSED`,
    or in an own view an :class:`Unshared` without a value."""
    return Unshared(None, 0) if audience is Audience.OWN else SUPPRESSED


def hidden(value: float, sessions: int, audience: Audience) -> Figure:
    """A figure a shared report hides whatever its group (a cell hidden with a smaller one):
    :data:`SUPPRESSED`, or in an own view the value marked."""
    return Unshared(value, sessions) if audience is Audience.OWN else SUPPRESSED


def is_shown(value: Figure) -> bool:
    """True for a number (an own view's marked one included), False for the marker."""
    return not isinstance(value, Suppressed) and number_of(value) is not None


def number_of(value: Figure) -> float | None:
    """The number a figure shows (an :class:`Unshared` one's too); None for the marker or
    a figure of nothing."""
    if isinstance(value, Unshared):
        return value.value
    if isinstance(value, Suppressed):
        return None
    return value


def as_json(value: Figure) -> int | float | str | dict[str, int | float | None]:
    """A figure as it appears in JSON: the number, or ``"<5"``; an own view's marked figure
    is ``{"value": …, "sessions": n}`` (no shared format ever holds one: see render.py)."""
    if isinstance(value, Unshared):
        return {"value": value.value, "sessions": value.sessions}
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


def hide_small_cells(cells: Sequence[Cell], audience: Audience = Audience.SHARED) -> list[Figure]:
    """A breakdown with fixed categories (days, a with/without pair): each cell is
    ``(value, session ids)``; small cells and their complements become :data:`SUPPRESSED`
    (in an own view, :class:`Unshared`)."""
    gone = _hidden_indices([group for _, group in cells])
    return [
        hidden(value, len(group), audience) if index in gone else value
        for index, (value, group) in enumerate(cells)
    ]


def fold_small_cells(
    cells: Mapping[str, Cell], audience: Audience = Audience.SHARED
) -> dict[str, Figure]:
    """A breakdown with open categories (tools, models): small ones are folded into
    ``(other)`` so their names are not shown either; ``(other)`` is itself a figure. An own
    view folds nothing: every category keeps its name, the ones a shared report folds marked
    :class:`Unshared`."""
    keys = sorted(cells)
    # A category really named "(other)" is folded too, so the key always means the fold.
    forced = frozenset(index for index, key in enumerate(keys) if key == OTHER_KEY)
    gone = _hidden_indices([cells[key][1] for key in keys], forced)
    if audience is Audience.OWN:
        order = sorted(range(len(keys)), key=lambda index: (-cells[keys[index]][0], keys[index]))
        return {
            keys[i]: hidden(cells[keys[i]][0], len(cells[keys[i]][1]), audience)
            if i in gone
            else cells[keys[i]][0]
            for i in order
        }
    # Largest first; "(other)" last.
    order = sorted(
        (index for index in range(len(keys)) if index not in gone),
        key=lambda index: (-cells[keys[index]][0], keys[index]),
    )
    shown: dict[str, Figure] = {keys[index]: cells[keys[index]][0] for index in order}
    folded = [cells[keys[index]] for index in gone]
    sessions: set[str] = set().union(*(group for _, group in folded))
    if sessions:
        shown[OTHER_KEY] = figure(sum(value for value, _ in folded), len(sessions))
    return shown
