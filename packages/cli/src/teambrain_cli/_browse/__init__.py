"""Browsing a brain, for people: ``tb list``, ``tb show`` and the brain view of ``tb ui``.

The API (typed results, plain data through ``to_json``):

- :func:`open_view` — the brain of the working tree, or as it was at a ref or a moment.
- :func:`list_memories` with a :class:`MemoryFilter` → :class:`BrainListing` of
  :class:`MemorySummary` (class, tags, scope, priority, status, supersedes chains, retirement
  reasons, why each may be stale).
- :func:`show_memory` → :class:`MemoryDetail`: the memory, the agent's fenced view of it, its
  provenance, its history in git (who changed it, when, through which merge or pull request),
  the memories it supersedes and those superseding it, why it may be stale.
- :func:`find_memory_id`: a full id, or an unambiguous prefix or suffix of one.

Reads only: nothing here writes to the brain, the spool or the index.
"""

from .brain import (
    BrainListing,
    BrainView,
    MemoryDetail,
    MemoryFilter,
    MemoryRef,
    MemorySummary,
    Provenance,
    find_memory_id,
    list_memories,
    open_view,
    show_memory,
)

__all__ = [
    "BrainListing",
    "BrainView",
    "MemoryDetail",
    "MemoryFilter",
    "MemoryRef",
    "MemorySummary",
    "Provenance",
    "find_memory_id",
    "list_memories",
    "open_view",
    "show_memory",
]
