"""One lint finding (:class:`Violation`, public as ``teambrain_schema.lint.Violation``) and
the cycle search lint's rules share: a leaf, so the memory lint (:mod:`.lint`) and the graph
lint (:mod:`.graph_lint`) both use it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from teambrain_kit.secrets import redact_secrets

from .render import quote_path

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Violation:
    """One lint finding."""

    path: str
    line: int
    rule: str
    message: str
    severity: Severity = "error"

    def __post_init__(self) -> None:
        # A message quotes committed text (an excerpt, a cited path): a secret in it is never
        # printed back, to a terminal or a CI log.
        object.__setattr__(self, "message", redact_secrets(self.message))

    def format(self) -> str:
        """``path:line: rule: message`` (warnings and notes say so after the rule)."""
        tag = self.rule if self.severity == "error" else f"{self.rule} ({self.severity})"
        return f"{quote_path(self.path)}:{self.line}: {tag}: {self.message}"


def cycle_members(graph: dict[str, list[str]]) -> list[str]:
    """Ids that lie on a cycle of the supersedes graph (iterative DFS, sorted)."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    on_cycle: set[str] = set()
    for root in graph:
        if colour[root] != white:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = []
        while stack:
            node, index = stack.pop()
            if index == 0:
                colour[node] = grey
                path.append(node)
            children = [c for c in graph.get(node, []) if c in graph]
            if index < len(children):
                stack.append((node, index + 1))
                child = children[index]
                if colour[child] == grey:
                    on_cycle.update(path[path.index(child) :])
                elif colour[child] == white:
                    stack.append((child, 0))
            else:
                colour[node] = black
                path.pop()
    return sorted(on_cycle)
