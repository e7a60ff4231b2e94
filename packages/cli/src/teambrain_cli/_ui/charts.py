"""Charts drawn as SVG by the server: no script, no library, nothing fetched.

A chart is built from figures exactly as the digest's JSON report holds them: a number, or the
suppression marker ``"<5"``. A suppressed figure is drawn as an empty outline labelled ``<5``,
never as a bar of any height, so the shared view cannot show what the JSON hides.

The page's own view (the default: this machine's own sessions) reads the same report made for
its own audience, where a figure a shared report hides is ``{"value": 3, "sessions": 3}``: it is
drawn as a bar of its height, hatched, its label saying ``3 of 5 sessions needed to share``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

SUPPRESSED_TEXT = "<5"
MIN_SESSIONS = 5
# Geometry of a column chart (SVG user units; the style sheet scales it to the page's width).
COLUMN_HEIGHT = 140
COLUMN_AREA = 720
LABEL_ROOM = 34
TOP_ROOM = 16
MIN_SLOT = 10
MAX_SLOT = 72


@dataclass(frozen=True)
class Bar:
    """One figure of a chart: its label, its value (None when suppressed) and the text shown."""

    label: str
    value: float | None
    text: str
    href: str | None = None
    title: str | None = None  # a longer label, shown on hover and in the table
    # An own view's figure a shared report hides: the sessions it rests on.
    unshared_sessions: int | None = None

    @property
    def suppressed(self) -> bool:
        return self.value is None and self.unshared_sessions is None

    @property
    def unshared(self) -> str | None:
        """Why a shared report hides this figure (own view only): ``3 of 5 sessions needed
        to share``, or that it is hidden to protect a smaller cell."""
        n = self.unshared_sessions
        if n is None:
            return None
        if n >= MIN_SESSIONS:
            return "hidden when shared, to protect a smaller cell"
        return f"{n} of {MIN_SESSIONS} sessions needed to share"

    @property
    def unshared_short(self) -> str:
        """:attr:`unshared` in a few words, beside a number."""
        n = self.unshared_sessions
        if n is None:
            return ""
        return "hidden when shared" if n >= MIN_SESSIONS else f"{n} of {MIN_SESSIONS}"


def _number_text(number: float, unit: str) -> str:
    return f"{int(number) if number.is_integer() else number}{unit}"


def bar_from_json(label: str, figure: object, *, href: str | None = None, title: str | None = None, unit: str = "") -> Bar:  # fmt: skip
    """A bar for a figure as the JSON report holds it: a number, ``"<5"``, or in an own view
    ``{"value": …, "sessions": n}`` (shown, marked as what a shared report hides)."""
    if isinstance(figure, dict):
        value, sessions = figure.get("value"), figure.get("sessions")
        if isinstance(sessions, bool) or not isinstance(sessions, int):
            return Bar(label, None, SUPPRESSED_TEXT, href, title)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return Bar(label, None, "none", href, title, sessions)
        return Bar(label, float(value), _number_text(float(value), unit), href, title, sessions)
    if isinstance(figure, bool) or not isinstance(figure, (int, float)):
        return Bar(label, None, SUPPRESSED_TEXT, href, title)
    return Bar(label, float(figure), _number_text(float(figure), unit), href, title)


@dataclass(frozen=True)
class Column:
    """A column's place in the SVG (computed here so the template only copies numbers)."""

    bar: Bar
    x: float
    y: float
    width: float
    height: float
    label_x: float
    show_label: bool


@dataclass(frozen=True)
class Chart:
    """A titled chart: columns over time, or horizontal rows for named things."""

    key: str
    title: str
    bars: list[Bar]
    kind: Literal["columns", "rows"] = "columns"
    note: str = ""
    columns: list[Column] = field(default_factory=list)
    width: float = COLUMN_AREA
    height: float = COLUMN_HEIGHT + LABEL_ROOM + TOP_ROOM

    @property
    def top(self) -> float:
        return max((b.value for b in self.bars if b.value is not None), default=0.0)

    @property
    def any_shown(self) -> bool:
        return any(not b.suppressed for b in self.bars)

    def row_percent(self, bar: Bar) -> int:
        """A row's length in percent of the longest (at least 1 for a value above zero)."""
        if bar.value is None or self.top <= 0 or bar.value <= 0:
            return 0
        return max(1, round(bar.value / self.top * 100))


def column_chart(key: str, title: str, bars: Sequence[Bar], note: str = "") -> Chart:
    """A column chart (one column per bar, in order), its geometry worked out."""
    count = max(len(bars), 1)
    slot = max(MIN_SLOT, min(MAX_SLOT, COLUMN_AREA / count))
    width = slot * count
    top = max((b.value for b in bars if b.value is not None), default=0.0)
    every = max(1, round(count / 12))  # at most about twelve labels along the axis
    columns = []
    for index, bar in enumerate(bars):
        x = index * slot + slot * 0.15
        bar_width = slot * 0.7
        if bar.value is None or top <= 0:
            height = 0.0
        else:
            height = max(1.0, bar.value / top * COLUMN_HEIGHT) if bar.value > 0 else 0.0
        columns.append(
            Column(
                bar=bar, x=round(x, 2), y=round(TOP_ROOM + COLUMN_HEIGHT - height, 2),
                width=round(bar_width, 2), height=round(height, 2),
                label_x=round(x + bar_width / 2, 2), show_label=index % every == 0,
            )
        )  # fmt: skip
    return Chart(key, title, list(bars), "columns", note, columns, width=max(width, 120))


def row_chart(key: str, title: str, bars: Sequence[Bar], note: str = "") -> Chart:
    """Horizontal bars for named things (tools, memories, with/without memory)."""
    return Chart(key, title, list(bars), "rows", note)


CHART_BASELINE = TOP_ROOM + COLUMN_HEIGHT
