"""The catalog: every memory file of a brain as the index holds it, live or not, fresh as a
search is, and the same front-matter the files say."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_retrieval import Retriever, brain_catalog
from teambrain_schema.brain import load_brain
from teambrain_schema.paths import BrainLayout

MakeMemory = Callable[..., Path]


def test_every_memory_file_is_listed_with_its_front_matter(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: Callable[..., Retriever], write: Any
) -> None:  # fmt: skip
    kept = make_memory(
        "Payments go through the gateway", "Use `PaymentGateway`.", class_="decision",
        priority="required", tags=["payments", "architecture"], supersedes=["01KB2F0A1S9Y4Q7V3C8D5E6F01"],
        evidence={"sessions": ["s-1"], "commits": ["4be1f0c"]}, ttl_days=30,
    )  # fmt: skip
    superseded = make_memory(
        "Old payments rule", "Call the provider.", memory_id="01KB2F0A1S9Y4Q7V3C8D5E6F01"
    )
    retired = write(layout, "Flaky test", "Use the fake clock.", retired=True)
    (layout.memories / "learnings" / "01KB2F0A1S9Y4Q7V3C8D5E6F99-broken.md").write_text(
        "not a memory"
    )
    retriever = open_test_retriever(layout)
    try:
        catalog = brain_catalog(retriever)
    finally:
        retriever.close()
    by_path = {entry.path: entry for entry in catalog.entries}
    relative = {p: str(p.relative_to(layout.repo_root)) for p in (kept, superseded, retired)}
    assert set(by_path) == set(relative.values())  # the broken file is a problem, not a row
    entry = by_path[relative[kept]]
    assert (entry.title, entry.memory_class, entry.priority, entry.status) == (
        "Payments go through the gateway",
        "decision",
        "required",
        "active",
    )
    assert entry.tags == ("payments", "architecture")
    assert entry.supersedes == ("01KB2F0A1S9Y4Q7V3C8D5E6F01",)
    assert (entry.evidence_sessions, entry.evidence_commits) == (("s-1",), ("4be1f0c",))
    assert entry.ttl_days == 30 and entry.created == dt.date(2026, 11, 16) and not entry.retired
    # Superseded memories are listed (a listing shows the chain; search filters them out).
    assert by_path[relative[superseded]].status == "active"
    # A retired memory's text left the index: its row says only that it is retired.
    gone = by_path[relative[retired]]
    assert gone.retired and gone.status == "retired" and gone.title == ""
    assert (
        len(catalog.problems) == 1 and "01KB2F0A1S9Y4Q7V3C8D5E6F99-broken.md" in catalog.problems[0]
    )


def test_files_added_or_removed_since_the_last_look_are_seen(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: Callable[..., Retriever]
) -> None:
    first = make_memory("One", "The first.")
    retriever = open_test_retriever(layout)
    try:
        assert [e.title for e in brain_catalog(retriever).entries] == ["One"]
        first.unlink()
        make_memory("Two", "The second.")
        assert [e.title for e in brain_catalog(retriever).entries] == ["Two"]
    finally:
        retriever.close()


words = st.text(alphabet=st.characters(categories=("Ll", "Lu", "Nd")), min_size=1, max_size=12)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.tuples(words, st.lists(words, max_size=3, unique=True)), min_size=1, max_size=8))
def test_the_catalog_says_what_the_files_say(
    tmp_path_factory: Any, new_brain: Any, write: Any, open_test_retriever: Callable[..., Retriever],
    drawn: list[tuple[str, list[str]]],
) -> None:  # fmt: skip
    layout = new_brain(tmp_path_factory.mktemp("brain") / "repo")
    for title, tags in drawn:
        write(layout, f"Note {title}", f"About {title}.", tags=tags)
    retriever = open_test_retriever(layout)
    try:
        entries = {e.id: e for e in brain_catalog(retriever).entries}
    finally:
        retriever.close()
    files = {
        f.document.front.id: f.document.front
        for f in load_brain(layout).files
        if f.document is not None
    }
    assert set(entries) == set(files)
    for memory_id, front in files.items():
        entry = entries[memory_id]
        assert (entry.title, list(entry.tags), entry.memory_class) == (
            front.title,
            front.tags,
            front.class_,
        )
