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
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import RetrieverOptions, brain_catalog, open_retriever


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


def test_tb_show_reads_only_the_files_it_needs(ui_world: Any, monkeypatch: Any) -> None:
    """ids are in file names: one memory is shown from its file and the few naming its id,
    exactly as from the whole brain (the listing from the index says what the files say)."""
    import teambrain_schema.brain as brain_module
    from teambrain_cli._browse import show_listed, show_memory

    clone = ui_world.dev.clone
    view = BrainView(BrainLayout(clone), clone)
    listing = _indexed(view, ui_world)
    read: list[str] = []
    real = brain_module._read_brain_file

    def counting(path: Any, layout: BrainLayout) -> Any:
        read.append(path.name)
        return real(path, layout)

    monkeypatch.setattr(brain_module, "_read_brain_file", counting)
    for row in listing.memories:  # active, superseded, superseding, retired, stale
        read.clear()
        shown = show_memory(view, row.id[-6:])
        assert shown == show_listed(view, listing, row.id), row.id
        needed = 1 + len(row.supersedes) + len(row.superseded_by)
        assert 1 <= len(read) <= needed + 1, (row.id, read)  # +1: a body may name another id
        assert len(read) < listing.total


def test_tb_show_reads_the_whole_brain_when_a_name_says_no_id(ui_world: Any, tmp_path: Any) -> None:
    import shutil

    from teambrain_cli._browse import show_memory
    from teambrain_schema import UserError
    from teambrain_schema.ids import new_ulid

    clone = tmp_path / "clone"
    shutil.copytree(ui_world.dev.clone, clone, symlinks=True)
    view = BrainView(BrainLayout(clone), clone)
    files = sorted((clone / ".teambrain" / "memories").rglob("*.md"))
    plain, lying = files[0], files[1]
    plain_id, lying_id = plain.name[:26], lying.name[:26]
    plain.rename(plain.with_name("a-plain-name.md"))
    assert show_memory(view, plain_id).summary.path.endswith("a-plain-name.md")
    plain.with_name("a-plain-name.md").rename(plain)
    other = new_ulid()
    lying.rename(lying.with_name(f"{other}-{lying.name[27:]}"))
    assert show_memory(view, lying_id).summary.id == lying_id  # not its name: found all the same
    try:
        show_memory(view, other)
    except UserError as exc:
        assert "no memory" in exc.message
    else:
        raise AssertionError(f"{other} is only a file name, not a memory")


def test_the_queue_knows_the_brain_from_the_index_as_from_the_files(ui_world: Any) -> None:
    """The identical-content check of a whole queue, from the index's content hashes, knows
    what reading every file knows (active and retired memories, their titles)."""
    from teambrain_cli._proposals.queue import shared_checks

    clone = ui_world.dev.clone
    view = BrainView(BrainLayout(clone), clone)
    retriever = open_retriever(
        view.layout, RetrieverOptions(embedder=None), home=MachineLayout(ui_world.dev.home)
    )
    try:
        catalog = brain_catalog(retriever)
    finally:
        retriever.close()
    listing = list_indexed(view, catalog)
    titles = {row.id: row.title for row in listing.memories}
    from_index = shared_checks(view.layout, None, catalog, titles)
    from_files = shared_checks(view.layout, None)
    assert from_index.known == from_files.known
    assert any(known.status == "retired" for known in from_files.known.values())


def _indexed(view: BrainView, ui_world: Any) -> Any:
    retriever = open_retriever(
        view.layout, RetrieverOptions(embedder=None), home=MachineLayout(ui_world.dev.home)
    )
    try:
        catalog = brain_catalog(retriever)
    finally:
        retriever.close()
    return list_indexed(
        view, catalog, stale_reasons(view, catalog, {e.id for e in catalog.entries})
    )


def test_the_stale_view_from_the_index_is_what_reading_every_file_says(ui_world: Any) -> None:
    """The stale view re-reads only the files the index's listing found stale, for line
    numbers and moves: the same rows as the whole brain's pass."""
    from teambrain_cli._ui.stale import stale_rows

    clone = ui_world.dev.clone
    view = BrainView(BrainLayout(clone), clone)
    listing = _indexed(view, ui_world)
    paths = {row.path for row in listing.memories if row.stale}
    whole = stale_rows(view.layout)
    assert len(whole) >= 2
    assert stale_rows(view.layout, paths) == whole
