"""Cold start says it is partial (issue 27 point 8): a first answer over memories not embedded
yet carries ``coverage`` (an optional field) and a line in its text; the server embeds the rest
between answers, so a later call is complete without `tb reindex` or a restart."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest
from mcp import Client
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_mcp_server import build_server
from teambrain_retrieval import (
    HashEmbedder,
    Retriever,
    RetrieverOptions,
    open_retriever,
)
from teambrain_retrieval._index import _refresher as refresher_module
from teambrain_schema import MemoryContextResult, MemorySearchResult

pytestmark = pytest.mark.anyio


def _hash_retriever(layout: BrainLayout, machine: MachineLayout) -> Retriever:
    return open_retriever(layout, RetrieverOptions(embedder=HashEmbedder()), home=machine)


@pytest.fixture
def many(brain_repo: Path) -> Path:
    folder = brain_repo / ".teambrain" / "memories" / "learnings"
    for index in range(60):
        memory_id = f"01KC{index:022d}"
        (folder / f"{memory_id}-note.md").write_text(
            f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: Payments note {index}\ncreated: 2026-11-16\n---\n\n"
            f"Payments retry rule number {index}.\n"
        )
    return brain_repo


async def test_a_partial_first_answer_says_so_and_the_rest_is_embedded_meanwhile(
    many: Path, machine: MachineLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refresher_module, "ANSWER_EMBED_BUDGET_S", 0.0)  # one batch per answer
    server = build_server(many, machine=machine, retriever_factory=_hash_retriever)
    async with Client(server) as client:
        first = await client.call_tool("memory_context", {})
        result = MemoryContextResult.model_validate(first.structured_content)
        assert result.coverage is not None
        assert result.coverage.memories == 67 and result.coverage.embedded < 67  # + 7 demo
        text = first.content[0].text  # type: ignore[union-attr]
        assert f"Note: {result.coverage.note}" in text and "partial answer" in text
        deadline = time.monotonic() + 30
        while True:  # the server embeds between answers; no reindex, no restart
            found = await client.call_tool("memory_search", {"query": "payments retry"})
            search = MemorySearchResult.model_validate(found.structured_content)
            if search.coverage is None or time.monotonic() > deadline:
                break
            assert "partial answer" in found.content[0].text  # type: ignore[union-attr]
            await anyio.sleep(0.05)
        assert search.coverage is None
        done = MemoryContextResult.model_validate(
            (await client.call_tool("memory_context", {})).structured_content
        )
        assert done.coverage is None and not any("partial" in n for n in done.notes)


async def test_a_complete_answer_has_no_coverage(brain_repo: Path, machine: MachineLayout) -> None:
    server = build_server(brain_repo, machine=machine, retriever_factory=_hash_retriever)
    async with Client(server) as client:
        found = await client.call_tool("memory_search", {"query": "payments"})
        assert found.structured_content is not None
        assert found.structured_content.get("coverage") is None
