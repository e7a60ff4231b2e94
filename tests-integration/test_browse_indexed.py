"""The brain listed from the search index says exactly what reading every file says: the same
rows, supersedes chains, retirement reasons and stale reasons, on a real repository with a
history of merged pull requests (``tb ui``'s world)."""

from __future__ import annotations

from typing import Any

from teambrain_cli._browse import (
    BrainView,
    MemoryFilter,
    list_indexed,
    list_memories,
    stale_reasons,
)
from teambrain_retrieval import RetrieverOptions, brain_catalog, open_retriever
from teambrain_schema.paths import BrainLayout, MachineLayout


def test_the_index_lists_what_the_files_say(ui_world: Any) -> None:
    clone = ui_world.dev.clone
    view = BrainView(BrainLayout(clone), clone)
    from_files = list_memories(view, MemoryFilter(status="all"))
    retriever = open_retriever(
        view.layout, RetrieverOptions(embedder=None), home=MachineLayout(ui_world.dev.home)
    )
    try:
        catalog = brain_catalog(retriever)
    finally:
        retriever.close()
    stale = stale_reasons(view, catalog, {entry.id for entry in catalog.entries})
    from_index = list_indexed(view, catalog, stale)
    assert from_index.memories == from_files.memories
    assert from_index.total == from_files.total == 9  # the demo's seven, two merged
    # What the comparison covers: a chain, a retirement with its reason, stale reasons.
    rows = {row.id: row for row in from_index.memories}
    assert any(row.superseded_by for row in rows.values())
    assert any(row.retired_reason for row in rows.values())
    assert sum(bool(row.stale) for row in rows.values()) >= 2
    # Checked for some ids only: the others carry no reasons (the caller asked for none).
    some = sorted(stale)[:1]
    partial = list_indexed(view, catalog, stale_reasons(view, catalog, some))
    assert {row.id for row in partial.memories if row.stale} == set(some)


def test_one_memory_from_the_listing_is_what_tb_show_says(ui_world: Any) -> None:
    from teambrain_cli._browse import show_listed, show_memory

    clone = ui_world.dev.clone
    view = BrainView(BrainLayout(clone), clone)
    retriever = open_retriever(
        view.layout, RetrieverOptions(embedder=None), home=MachineLayout(ui_world.dev.home)
    )
    try:
        catalog = brain_catalog(retriever)
    finally:
        retriever.close()
    listing = list_indexed(
        view, catalog, stale_reasons(view, catalog, {e.id for e in catalog.entries})
    )
    for row in listing.memories:  # active, superseded, superseding, retired, stale
        assert show_listed(view, listing, row.id) == show_memory(view, row.id), row.id
