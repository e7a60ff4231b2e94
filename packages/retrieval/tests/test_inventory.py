"""Eviction of retired memories and the index inventory tb verify reads."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import Retriever, inventory_index, prune_index

from .conftest import MakeMemory, init_brain

OpenRetriever = Callable[..., Retriever]
SECRET_WORD = "quokkaplatypus"


def _retire(layout: BrainLayout, path: Path) -> Path:
    retired = layout.retired / path.name
    os.replace(path, retired)
    retired.write_text(retired.read_text().replace("status: active", "status: retired"))
    return retired


def test_a_retired_memory_leaves_only_a_tombstone(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    path = make_memory("Old deploy process", f"Deploy by hand with {SECRET_WORD} and scp.")
    make_memory("Deploy with CI", "Deploys run in CI.")
    retriever = open_test_retriever(layout)
    retired_id = path.name.split("-")[0]
    assert retired_id in [hit.id for hit in retriever.search(SECRET_WORD, 5)]
    _retire(layout, path)
    assert retired_id not in [hit.id for hit in retriever.search(SECRET_WORD, 5)]
    retriever.close()
    inventory = inventory_index(machine_layout())
    assert inventory is not None
    assert inventory.retired_with_text == [] and inventory.retired_tombstones == 1
    # Not in the file either: no row, no FTS segment, no free page holds the retired text.
    db = machine_layout().index_db
    for candidate in (db, db.with_name(db.name + "-wal")):
        if candidate.exists():
            assert SECRET_WORD.encode() not in candidate.read_bytes(), candidate.name


def test_inventory_names_brains_and_prune_forgets_the_missing(
    tmp_path: Path, open_test_retriever: OpenRetriever
) -> None:
    here = init_brain(tmp_path / "here")
    gone = init_brain(tmp_path / "gone")
    for layout in (here, gone):
        (layout.memories / "learnings" / "01KB2F0A1S9Y4Q7V3C8D5E6F01-note.md").write_text(
            "---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F01\nclass: learning\nscope: team\nstatus: active\n"
            "priority: advisory\ntitle: Note\ncreated: 2026-11-16\n---\n\nA note.\n"
        )
        retriever = open_test_retriever(layout)
        retriever.refresh()
        retriever.close()
    shutil.rmtree(gone.repo_root)
    inventory = inventory_index(machine_layout())
    assert inventory is not None
    assert sorted((b.present, b.documents) for b in inventory.brains) == [(False, 1), (True, 1)]
    assert prune_index(machine_layout()) == [b.brain for b in inventory.brains if not b.present]
    after = inventory_index(machine_layout())
    assert after is not None and [b.present for b in after.brains] == [True]


def test_no_index_no_inventory(teambrain_home: Path) -> None:
    assert inventory_index(machine_layout()) is None
    assert prune_index(machine_layout()) == []
