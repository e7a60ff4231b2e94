"""How a retriever notices changed memory files without reading them: the stamps digest a new
process compares in one go, the cheap change signals a large brain checks on every call, and
the early model load of a process about to search."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import HashEmbedder, Retriever
from teambrain_retrieval._index import _refresher as refresher_module
from teambrain_retrieval._index._scan import change_signals, scan_stamps, stamps_digest

OpenRetriever = Callable[..., Retriever]
Write = Callable[..., Path]


def titles(hits: Sequence[Any]) -> list[str]:
    return [hit.memory.front.title for hit in hits]


def git(layout: BrainLayout, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=layout.repo_root, check=True, capture_output=True,
    )  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MachineLayout:
    monkeypatch.setenv("TEAMBRAIN_HOME", str(tmp_path / "home"))
    return MachineLayout(tmp_path / "home")


# ---------------------------------------------------------------- the stamps digest


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=30),
        st.tuples(st.integers(0, 2**63 - 1), st.integers(0, 2**40)),
        max_size=20,
    ),
    st.data(),
)
def test_digest_differs_whenever_stamps_differ(stamps: dict[str, Any], data: Any) -> None:
    """Equal stamps listed in the same order digest the same; any change to a path, mtime or
    size, an added or a removed file, digests differently."""
    assert stamps_digest(stamps) == stamps_digest(dict(stamps))
    changed = dict(stamps)
    if stamps and data.draw(st.booleans()):
        path = data.draw(st.sampled_from(sorted(stamps)))
        mtime, size = changed[path]
        changed[path] = (mtime, size + 1) if data.draw(st.booleans()) else (mtime + 1, size)
    else:
        changed[data.draw(st.text(min_size=31, max_size=40))] = (1, 1)
    assert stamps_digest(changed) != stamps_digest(stamps)


def test_a_new_process_trusts_the_digest_only_while_the_index_matches(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, home: MachineLayout
) -> None:
    write(layout, "Deploy checklist", "Deploys follow the checklist.")
    write(layout, "Retry budget", "Payments retry three times.")
    first = open_test_retriever(layout, home=home)
    assert first.refresh().added == 2
    first.close()
    # A document deleted behind the index's back (another version, a crash half-way): the
    # digest is forgotten with it, so the next process indexes the file again.
    import apsw

    db = apsw.Connection(str(home.index_db))
    with db:
        db.execute("DELETE FROM docs WHERE title = 'Retry budget'")
    assert db.execute("SELECT count(*) FROM scan_digests").fetchone() == (0,)
    db.close()
    second = open_test_retriever(layout, home=home)
    assert titles(second.search("payments retry", 3)) == ["Retry budget"]
    second.close()
    third = open_test_retriever(layout, home=home)
    report = third.refresh()
    assert (report.added, report.changed, report.unchanged) == (0, 0, 2)
    third.close()


def test_a_trusted_digest_still_reports_the_broken_files(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, home: MachineLayout
) -> None:
    write(layout, "Fine", "A fine memory.")
    broken = layout.memories / "learnings" / "broken.md"
    broken.write_text("---\nid: [unclosed\n---\nbody\n", "utf-8")
    first = open_test_retriever(layout, home=home)
    assert [p.split(":")[0] for p in first.refresh().problems] == [layout.relative(broken)]
    first.close()
    again = open_test_retriever(layout, home=home)
    report = again.refresh()
    assert report.unchanged == 2
    assert [p.split(":")[0] for p in report.problems] == [layout.relative(broken)]
    again.close()


def test_an_older_writer_of_the_files_table_voids_the_digest(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, home: MachineLayout
) -> None:
    write(layout, "Fine", "A fine memory.")
    retriever = open_test_retriever(layout, home=home)
    retriever.refresh()
    retriever.close()
    import apsw

    db = apsw.Connection(str(home.index_db))
    assert db.execute("SELECT count(*) FROM scan_digests").fetchone() == (1,)
    with db:
        db.execute("UPDATE files SET size = size + 1")
    assert db.execute("SELECT count(*) FROM scan_digests").fetchone() == (0,)
    db.close()


# ---------------------------------------------------------------- change signals of a large brain


@pytest.fixture
def large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat every brain as one whose full scan is too dear to run on every call."""
    monkeypatch.setattr(refresher_module, "_SCAN_FREE_S", -1.0)
    # The periodic full scan comes only when a test moves the clock: on a loaded machine the
    # measured scan cost (and so the interval) would otherwise let one arrive between two calls.
    monkeypatch.setattr(refresher_module, "_SCAN_SHARE", 1e9)
    monkeypatch.setattr(refresher_module, "_SCAN_MAX_INTERVAL_S", 3600.0)


def test_signals_move_when_a_file_is_added_or_git_moves(layout: BrainLayout, write: Write) -> None:
    write(layout, "One", "First memory.")
    git(layout, "add", "-A")
    git(layout, "commit", "-qm", "one")
    folders: list[str] = []
    scan_stamps(layout, folders)
    assert str(layout.memories / "learnings") in folders
    before = change_signals(layout, folders)
    assert change_signals(layout, folders) == before
    write(layout, "Two", "Second memory.")
    added = change_signals(layout, folders)
    assert added != before
    git(layout, "add", "-A")
    assert change_signals(layout, folders) != added  # git's index was rewritten


def test_a_large_brain_serves_a_pulled_memory_on_the_very_next_call(
    tmp_path: Path, new_brain: Callable[..., BrainLayout], write: Write,
    open_test_retriever: OpenRetriever, large: None,
) -> None:  # fmt: skip
    upstream = new_brain(tmp_path / "upstream")
    write(upstream, "Deploy checklist", "Deploys follow the checklist.")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "first")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(upstream.repo_root), str(clone)], check=True)
    layout = BrainLayout(clone)
    retriever = open_test_retriever(layout, refresh_interval=None)
    assert titles(retriever.search("deploys", 5)) == ["Deploy checklist"]
    assert titles(retriever.search("payments retry", 5)) == []
    write(upstream, "Retry budget", "Payments retry three times.")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "second")
    git(layout, "pull", "-q", "--ff-only")
    assert titles(retriever.search("payments retry", 5)) == ["Retry budget"]


def test_a_large_brain_sees_an_in_place_edit_at_its_next_full_scan(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, large: None
) -> None:
    path = write(layout, "Retry budget", "Payments retry three times.")
    retriever = open_test_retriever(layout, refresh_interval=None)
    assert titles(retriever.search("payments", 5)) == ["Retry budget"]
    # Rewritten in place (same inode, same folder): no cheap signal moves...
    text = path.read_text("utf-8").replace("Payments retry", "Invoices retry")
    with open(path, "r+", encoding="utf-8") as handle:
        handle.write(text)
        handle.truncate()
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert titles(retriever.search("invoices", 5)) == []
    # ...until the periodic full scan, at most _SCAN_MAX_INTERVAL_S later.
    for source in retriever._sources:
        source.last_scan -= refresher_module._SCAN_MAX_INTERVAL_S
    assert titles(retriever.search("invoices", 5)) == ["Retry budget"]


def test_a_large_brain_sees_a_removed_or_renamed_file_at_once(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, large: None
) -> None:
    path = write(layout, "Retry budget", "Payments retry three times.")
    other = write(layout, "Deploy checklist", "Deploys follow the checklist.")
    retriever = open_test_retriever(layout, refresh_interval=None)
    assert titles(retriever.search("payments", 5)) == ["Retry budget"]
    path.unlink()
    assert titles(retriever.search("payments", 5)) == []
    (layout.memories / "decisions").mkdir(exist_ok=True)
    other.rename(layout.memories / "decisions" / other.name)
    hits = retriever.search("deploys", 5)
    assert [hit.provenance.path for hit in hits] == [
        layout.relative(layout.memories / "decisions" / other.name)
    ]


# ---------------------------------------------------------------- loading the model early


class CountingEmbedder(HashEmbedder):
    def __init__(self, *, fail: bool = False) -> None:
        super().__init__()
        self.loads = 0
        self.asked: list[str] = []
        self.fail = fail
        self.lock = threading.Lock()

    def load(self) -> None:
        with self.lock:
            self.loads += 1
        if self.fail:
            from teambrain_retrieval import EmbedderUnavailable

            raise EmbedderUnavailable("model file missing: /nowhere/model.onnx")

    def embed_query(self, text: str) -> Any:
        self.load()
        with self.lock:
            self.asked.append(text)
        return super().embed_query(text)


def test_warm_up_embeds_the_query_once_for_the_search_that_follows(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever
) -> None:
    write(layout, "Retry budget", "Payments retry three times.")
    embedder = CountingEmbedder()
    retriever = open_test_retriever(layout, embedder=embedder)
    retriever.warm_up("payments retry")
    assert titles(retriever.search("payments retry", 5)) == ["Retry budget"]
    assert embedder.asked == ["payments retry"]


def test_warm_up_of_a_broken_model_is_quiet_and_the_search_degrades_with_one_notice(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, notices: list[str]
) -> None:
    write(layout, "Retry budget", "Payments retry three times.")
    retriever = open_test_retriever(layout, embedder=CountingEmbedder(fail=True))
    retriever.warm_up("payments retry")
    assert titles(retriever.search("payments retry", 5)) == ["Retry budget"]
    assert len([n for n in notices if "keyword search only" in n]) == 1
    assert "model file missing" in notices[-1]


def test_a_brain_of_many_broken_files_reads_a_bounded_number_per_refresh(
    layout: BrainLayout, write: Write, open_test_retriever: OpenRetriever, home: MachineLayout,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A commit of 200,000 broken files had every search read them all (minutes): past
    MAX_UNUSABLE_FILES the rest are recorded unread, named in one problem, and not read again
    by the next process while they do not change."""
    monkeypatch.setattr(refresher_module, "MAX_UNUSABLE_FILES", 3, raising=False)
    write(layout, "Fine", "A fine memory.")
    junk = layout.memories / "learnings"
    for n in range(20):
        (junk / f"e{n:02}.md").write_text("", "utf-8")
    reads: list[str] = []
    real_read = refresher_module.read_doc

    def counted(layout: BrainLayout, relpath: str, brain_id: str) -> Any:
        reads.append(relpath)
        return real_read(layout, relpath, brain_id)

    monkeypatch.setattr(refresher_module, "read_doc", counted)
    first = open_test_retriever(layout, home=home)
    report = first.refresh()
    junk_reads = [p for p in reads if p.startswith(layout.relative(junk) + "/e")]
    assert len(junk_reads) <= 3
    assert len(report.problems) <= 4
    assert any("more than 3 files of the brain cannot be used" in p for p in report.problems)
    first.search("fine memory", 3)  # answers (the fine one may be among those left unread)
    first.close()
    reads.clear()
    again = open_test_retriever(layout, home=home)
    again.refresh()
    assert [p for p in reads if p.startswith(layout.relative(junk) + "/e")] == []
    again.close()
