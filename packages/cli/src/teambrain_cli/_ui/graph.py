"""The graph view of ``tb ui``: one node's neighbourhood drawn as SVG on the server (no script),
every node and memory in it a link, and the list of every node. ``tb graph``'s service."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._browse.graph import NodeView

WIDTH, HEIGHT = 760, 520
RING = (0, 150, 235, 300, 350)  # radius of each depth's ring
MAX_DRAWN = 48  # neighbours drawn; the list below the drawing has them all
MAX_LABEL = 26


@dataclass(frozen=True)
class Dot:
    """One node or memory placed on the drawing."""

    id: str
    label: str
    type: str  # "center", "node" or "memory"
    kind: str
    x: float
    y: float


@dataclass(frozen=True)
class Line:
    """An edge drawn between two placed dots, with its kind at its middle."""

    x1: float
    y1: float
    x2: float
    y2: float
    edge: str


@dataclass(frozen=True)
class Drawing:
    """What the template draws: dots, lines, and how many neighbours were left off."""

    width: int
    height: int
    dots: tuple[Dot, ...]
    lines: tuple[Line, ...]
    left_off: int


def _label(text: str) -> str:
    return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"


def draw(view: NodeView) -> Drawing:
    """Place the node in the middle and its neighbours on a ring per depth (each ring's dots
    evenly around it, in the order the walk found them), with a line for each route's last
    edge."""
    center = Dot(view.record.id, _label(view.record.id), "center", view.record.node_kind,
                 WIDTH / 2, HEIGHT / 2)  # fmt: skip
    shown = list(view.neighbours[:MAX_DRAWN])
    by_depth: dict[int, list[int]] = {}
    for index, neighbour in enumerate(shown):
        by_depth.setdefault(neighbour.depth, []).append(index)
    placed: dict[str, Dot] = {center.id: center}
    dots = [center]
    for depth, indexes in sorted(by_depth.items()):
        radius = RING[min(depth, len(RING) - 1)]
        offset = 0.0 if depth % 2 else math.pi / max(len(indexes), 1)
        for position, index in enumerate(indexes):
            neighbour = shown[index]
            angle = offset + 2 * math.pi * position / len(indexes) - math.pi / 2
            x = WIDTH / 2 + radius * math.cos(angle) * 1.25
            y = HEIGHT / 2 + radius * math.sin(angle) * 0.8
            label = neighbour.id if neighbour.type == "node" else neighbour.title
            dot = Dot(neighbour.id, _label(label), neighbour.type, neighbour.kind or "memory", x, y)
            placed[neighbour.id] = dot
            dots.append(dot)
    lines = []
    for neighbour in shown:
        start = neighbour.hops[-2][2] if len(neighbour.hops) > 1 else view.record.id
        a, b = placed.get(start), placed[neighbour.id]
        if a is not None:
            lines.append(Line(a.x, a.y, b.x, b.y, neighbour.hops[-1][0] if neighbour.hops else ""))
    return Drawing(WIDTH, HEIGHT, tuple(dots), tuple(lines), len(view.neighbours) - len(shown))
