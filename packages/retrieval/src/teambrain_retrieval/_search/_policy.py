"""The org brain's read policies, enforced on every answer (docs/graph.md#read-policies-for-the-org-brain).

The index holds an org brain's memories once for every repository that reads it, so a policy is
applied where the answer is made, not where documents are stored: a ranked row of the org brain
is kept only when the policy of this repository allows its path (and, under ``graph-only``,
when the graph led to it), and the org brain's rows stop where their text passes the policy's
byte cap (``maxContextBytes``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teambrain_schema.read_policy import ReadPolicy

    from .._index._store import DocStore


@dataclass
class OrgPolicies:
    """The read policy of each org brain this retriever serves (brain id → policy); a brain
    without one is unrestricted."""

    policies: dict[str, ReadPolicy] = field(default_factory=dict)
    left_out: int = 0  # org rows the last answer dropped for the byte cap

    def __bool__(self) -> bool:
        return bool(self.policies)

    def readable(
        self,
        store: DocStore,
        ranked: Sequence[tuple[int, float]],
        linked: Collection[int] = (),
    ) -> list[tuple[int, float]]:
        """``ranked`` without the org rows a policy does not let this repository read, and
        without those past a policy's byte cap (counted in rank order)."""
        self.left_out = 0
        if not self.policies or not ranked:
            return list(ranked)
        docs = store.docs([rowid for rowid, _ in ranked])
        spent: dict[str, int] = {}
        kept = []
        for rowid, score in ranked:
            doc = docs.get(rowid)
            policy = self.policies.get(doc.brain) if doc is not None else None
            if doc is None or policy is None:
                kept.append((rowid, score))
                continue
            if not policy.allows_path(doc.path):
                continue
            if policy.query_mode == "graph-only" and rowid not in linked:
                continue
            size = len(doc.title.encode("utf-8")) + len(doc.body.encode("utf-8"))
            if policy.max_context_bytes is not None:
                if spent.get(doc.brain, 0) + size > policy.max_context_bytes:
                    self.left_out += 1
                    continue
                spent[doc.brain] = spent.get(doc.brain, 0) + size
            kept.append((rowid, score))
        return kept

    def note(self) -> str | None:
        """What the last answer left out for a byte cap, in one line (None: nothing)."""
        if not self.left_out:
            return None
        caps = sorted({p.max_context_bytes for p in self.policies.values() if p.max_context_bytes})
        return (
            f"{self.left_out} org brain memories left out: its read policy caps them at "
            f"{caps[0]:,} bytes per answer (maxContextBytes)"
        )
