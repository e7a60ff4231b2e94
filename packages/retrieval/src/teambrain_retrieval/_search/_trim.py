"""Fitting memories into an agent's token budget: required ones always, relevant ones if room."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from teambrain_schema import MAX_CONTEXT_BUDGET

ItemT = TypeVar("ItemT")


@dataclass(frozen=True)
class Trimmed(Generic[ItemT]):
    """What fits: every required item, the relevant items that fit, and the accounting."""

    required: list[ItemT]
    relevant: list[ItemT]
    tokens: int
    budget: int
    over_budget: bool
    notes: list[str] = field(default_factory=list)


def effective_budget(budget: int | None, configured: int) -> int:
    """The budget to use: the asked one, else the configured one, never above the contract's."""
    chosen = configured if budget is None else budget
    return max(1, min(int(chosen), MAX_CONTEXT_BUDGET))


def trim_to_budget(
    required: Sequence[ItemT],
    relevant: Sequence[ItemT],
    cost: Callable[[ItemT], int],
    budget: int,
) -> Trimmed[ItemT]:
    """Keep every required item (never dropped: if they alone exceed ``budget``, say so), then
    relevant items in rank order while they fit; one that does not fit is skipped and smaller
    ones further down may still fill the room."""
    budget = max(1, min(budget, MAX_CONTEXT_BUDGET))
    notes: list[str] = []
    used = sum(cost(item) for item in required)
    over = used > budget
    if over:
        notes.append(
            f"required memories alone need ~{used} tokens, over the budget of {budget}; "
            "all are included and no relevant memories were added"
        )
        return Trimmed(list(required), [], used, budget, True, notes)
    kept: list[ItemT] = []
    skipped = 0
    for item in relevant:
        item_cost = cost(item)
        if used + item_cost <= budget:
            kept.append(item)
            used += item_cost
        else:
            skipped += 1
    if skipped:
        notes.append(f"{skipped} relevant memories left out to stay within {budget} tokens")
    return Trimmed(list(required), kept, used, budget, False, notes)
