"""A partial answer says it is partial (issue 27 point 8): while some memories are not embedded
yet, context and search report how many semantic search covered, and embedding the rest
between answers completes it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from teambrain_kit.paths import BrainLayout
from teambrain_retrieval import Retriever, Situation
from teambrain_retrieval._index import _refresher as refresher_module

OpenRetriever = Callable[..., Retriever]


@pytest.fixture
def big(
    tmp_path: Path, new_brain: Callable[..., BrainLayout], write: Callable[..., Path]
) -> BrainLayout:
    layout = new_brain(tmp_path / "repo")
    for index in range(40):
        write(layout, f"Note {index}", f"Payments retry rule number {index}.")
    return layout


def test_a_first_answer_on_a_brain_still_embedding_says_how_much_it_covered(
    big: BrainLayout, open_test_retriever: OpenRetriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refresher_module, "ANSWER_EMBED_BUDGET_S", 0.0)  # one batch per answer
    retriever = open_test_retriever(big)
    pack = retriever.context(Situation(repo=str(big.repo_root), branch="fix/payments-retry"))
    assert pack.coverage is not None
    assert pack.coverage.memories == 40 and 0 < pack.coverage.embedded < 40
    assert pack.coverage.note in pack.notes and "partial answer" in pack.coverage.note
    result = pack.to_result()
    assert result.coverage == pack.coverage
    assert len(retriever.search("payments retry", 5)) == 5  # found by keywords meanwhile
    while retriever.embed_pending(0.0):
        pass
    assert retriever.coverage() is None
    pack = retriever.context(Situation(repo=str(big.repo_root), branch="fix/payments-retry"))
    assert pack.coverage is None and not any("partial" in note for note in pack.notes)
    assert pack.to_result().coverage is None


def test_keyword_only_search_is_not_a_partial_answer(
    big: BrainLayout, open_test_retriever: OpenRetriever
) -> None:
    retriever = open_test_retriever(big, embedder=None)
    assert retriever.coverage() is None
    assert retriever.embed_pending() == 0
    assert retriever.context(Situation(repo=str(big.repo_root), branch="main")).coverage is None


def test_a_brain_embedded_within_the_answer_is_complete(
    big: BrainLayout, open_test_retriever: OpenRetriever
) -> None:
    retriever = open_test_retriever(big)
    assert retriever.context(Situation(repo=str(big.repo_root), branch="main")).coverage is None


def test_with_a_background_embedder_an_answer_leaves_a_large_batch_to_it(
    tmp_path: Path,
    new_brain: Callable[..., BrainLayout],
    write: Callable[..., Path],
    open_test_retriever: OpenRetriever,
) -> None:
    layout = new_brain(tmp_path / "repo")
    for index in range(refresher_module.ANSWER_EMBED_MAX + 1):
        write(layout, f"Note {index}", f"Payments retry rule number {index}.")
    retriever = open_test_retriever(layout)
    retriever.embeds_in_background = True
    situation = Situation(repo=str(layout.repo_root), branch="main")
    coverage = retriever.context(situation).coverage
    assert coverage is not None and coverage.embedded == 0  # answered at once, by keywords
    assert retriever.embed_pending(60.0) == refresher_module.ANSWER_EMBED_MAX + 1
    write(layout, "One more", "Pulled later: a small batch.")
    assert retriever.context(situation).coverage is None  # a small pull: embedded by the answer
