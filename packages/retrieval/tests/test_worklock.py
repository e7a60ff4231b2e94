"""Work locks: processes sharing index.db do a brain's indexing and embedding once — the
others wait for it and find it done — and an answer never waits for someone's embedding."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import HashEmbedder, Retriever
from teambrain_retrieval._index._worklock import work_lock

OpenRetriever = Callable[..., Retriever]


def test_a_held_lock_is_tried_waited_for_and_released(tmp_path: Path) -> None:
    waits: list[str] = []
    with work_lock(tmp_path, "index:a", wait_s=0) as first:
        assert first
        with work_lock(tmp_path, "index:a", wait_s=0) as second:
            assert not second  # another open of the same lock: held elsewhere
        with work_lock(tmp_path, "index:b", wait_s=0) as other:
            assert other  # another name, another lock
        got: list[bool] = []

        def wait_for_it() -> None:
            with work_lock(
                tmp_path, "index:a", wait_s=None, on_wait=lambda: waits.append("w")
            ) as held:
                got.append(held)

        waiter = threading.Thread(target=wait_for_it)
        waiter.start()
        # Released once the waiter is waiting, however long a loaded machine takes to get it
        # there (a fixed sleep released it first when the thread started late).
        started = time.monotonic()
        while not waits and time.monotonic() - started < 60:
            time.sleep(0.005)
        assert waits == ["w"] and not got
    waiter.join(10)
    assert got == [True] and waits == ["w"]
    assert (tmp_path / "locks").stat().st_mode & 0o777 == 0o700


class SlowEmbedder(HashEmbedder):
    """The same vectors as HashEmbedder, slowly (a model under load)."""

    def embed_documents(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        time.sleep(0.02 * len(texts))
        return super().embed_documents(texts)


def test_two_rebuilds_at_once_embed_each_text_once(
    layout: BrainLayout, make_memory: Callable[..., Path], open_test_retriever: OpenRetriever
) -> None:
    for n in range(40):
        make_memory(f"Note {n}", f"Deploy step {n} with the release script.")
    embedders = [SlowEmbedder(), SlowEmbedder()]
    retrievers = [open_test_retriever(layout, embedder=e) for e in embedders]
    errors: list[BaseException] = []

    def rebuild(retriever: Retriever) -> None:
        try:
            retriever.rebuild()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=rebuild, args=(r,)) for r in retrievers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors
    assert sum(e.embedded for e in embedders) == 40  # the work was done once
    for retriever in retrievers:
        assert retriever.stats().vectors == 40
        retriever.close()


def test_an_answer_never_waits_for_another_process_embedding(
    layout: BrainLayout, make_memory: Callable[..., Path], open_test_retriever: OpenRetriever
) -> None:
    make_memory("Deploy with the release script", "Deploy with the release script only.")
    retriever = open_test_retriever(layout, embedder=HashEmbedder())
    with work_lock(machine_layout().home, f"embed:{HashEmbedder().name}", wait_s=0) as held:
        assert held
        hits = retriever.search("release script", 3)
    assert [h.memory.title for h in hits] == ["Deploy with the release script"]
    assert retriever.stats().vectors == 0  # it left the embedding to the lock's holder
    retriever.close()


def test_opening_while_another_process_writes_waits_instead_of_going_to_memory(
    layout: BrainLayout,
    make_memory: Callable[..., Path],
    open_test_retriever: OpenRetriever,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every process opening a fresh home at once migrates it: one still refused after the busy
    timeout tries again instead of answering from memory ("stayed locked by another process"
    for 2 of 8 processes on a loaded machine)."""
    import apsw
    from teambrain_retrieval._index import _db

    make_memory("Deploy with the release script", "Deploy with the release script only.")
    monkeypatch.setattr(_db, "BUSY_TIMEOUT_MS", 50)
    index_db = machine_layout().index_db
    index_db.parent.mkdir(parents=True, exist_ok=True)
    other = apsw.Connection(str(index_db))  # another process, first on a fresh home
    other.execute("BEGIN EXCLUSIVE")
    timer = threading.Timer(0.12, lambda: other.execute("COMMIT"))
    timer.start()
    try:
        retriever = open_test_retriever(layout)
    finally:
        timer.join()
        other.close()
    assert retriever.in_memory is None
    retriever.close()
