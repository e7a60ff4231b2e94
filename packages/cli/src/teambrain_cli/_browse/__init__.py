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
- :func:`list_indexed` and :func:`stale_reasons`: the same rows from the search index's catalog
  of the brain, for a large brain listed often (``tb ui``): no memory file read but the retired;
  :func:`show_listed`, one memory of such a listing in full (only its file read).

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
    list_indexed,
    list_memories,
    open_view,
    show_listed,
    show_memory,
    stale_reasons,
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
    "list_indexed",
    "list_memories",
    "open_view",
    "show_listed",
    "show_memory",
    "stale_reasons",
]
