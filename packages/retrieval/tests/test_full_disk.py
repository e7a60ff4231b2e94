"""index.db that cannot be written (a full disk, read-only): answers come from a temporary
index in memory, said once, with the cached embeddings copied over; a rebuild stops with one
line naming the cause and leaves the index as it was."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
import pytest
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import HashEmbedder, Retriever
from teambrain_retrieval._index._db import storage_trouble
from teambrain_schema import EnvironmentProblem

OpenRetriever = Callable[..., Retriever]


def _full(*_args: Any, **_kwargs: Any) -> Any:
    raise apsw.FullError("database or disk is full")


def _full_then_no_rollback(*_args: Any, **_kwargs: Any) -> Any:
    """What SQLite does on a full disk inside a transaction: it rolls back itself, and the
    rollback that follows fails."""
    try:
        raise apsw.FullError("database or disk is full")
    except apsw.FullError:
        raise apsw.SQLError("cannot rollback - no transaction is active") from None


@pytest.mark.parametrize("failure", [_full, _full_then_no_rollback], ids=["full", "no rollback"])
def test_a_search_that_cannot_write_the_index_answers_from_memory(
    layout: BrainLayout, make_memory: Callable[..., Path], open_test_retriever: OpenRetriever,
    notices: list[str], monkeypatch: pytest.MonkeyPatch, failure: Callable[..., Any],
) -> None:  # fmt: skip
    for n in range(5):
        make_memory(f"Deploy step {n}", f"Deploy with the release script, step {n}.")
    embedder = HashEmbedder()
    first = open_test_retriever(layout, embedder=embedder)
    first.search("deploy", 3)
    first.close()
    embedded = embedder.embedded
    make_memory("Rollback plan", "Roll back with the release script's undo.")
    again = open_test_retriever(layout, embedder=embedder)
    monkeypatch.setattr(again.backend, "upsert", failure)
    monkeypatch.setattr(again.backend.store, "mark_indexed", failure)
    hits = again.search("rollback undo", 3)
    assert hits[0].memory.title == "Rollback plan"
    assert again.in_memory is not None and "full" in again.in_memory
    assert embedder.embedded == embedded + 1  # only the new memory: the cache came along
    assert again.search("deploy step 3", 1)[0].memory.title == "Deploy step 3"
    said = [n for n in notices if "temporary index in memory" in n]
    assert len(said) == 1, notices
    with pytest.raises(EnvironmentProblem, match="is full"):
        again.rebuild()


def test_a_rebuild_that_cannot_finish_leaves_the_index_as_it_was(
    layout: BrainLayout, make_memory: Callable[..., Path], open_test_retriever: OpenRetriever,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    for n in range(5):
        make_memory(f"Deploy step {n}", f"Deploy with the release script, step {n}.")
    first = open_test_retriever(layout)
    first.rebuild()
    before = first.stats().documents
    first.close()
    make_memory("Rollback plan", "Roll back with the release script's undo.")
    retriever = open_test_retriever(layout)
    monkeypatch.setattr(retriever.backend, "upsert", _full_then_no_rollback)
    with pytest.raises(EnvironmentProblem, match="is full"):
        retriever.rebuild()
    db = apsw.Connection(str(machine_layout().index_db))
    assert db.execute("SELECT count(*) FROM docs").fetchone()[0] == before
    db.close()


@pytest.mark.parametrize(
    "exc, words",
    [
        (apsw.FullError("full"), "is full"),
        (OSError(28, "No space left on device"), "is full"),
        (OSError(122, "Disk quota exceeded"), "is full"),
        (apsw.ReadOnlyError("readonly"), "read-only"),
        (OSError(30, "Read-only file system"), "read-only"),
        (apsw.IOError("disk I/O error"), "I/O error"),
    ],
)
def test_storage_troubles_are_named(tmp_path: Path, exc: BaseException, words: str) -> None:
    assert words in (storage_trouble(exc, tmp_path / "index.db") or "")


def test_other_errors_are_not_storage_troubles(tmp_path: Path) -> None:
    assert storage_trouble(apsw.SQLError("no such table: docs"), tmp_path / "index.db") is None
    assert storage_trouble(ValueError("x"), tmp_path / "index.db") is None
