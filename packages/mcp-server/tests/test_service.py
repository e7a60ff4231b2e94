from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from teambrain_mcp_server import build_server
from teambrain_retrieval import HashEmbedder, Retriever, RetrieverOptions, open_retriever
from teambrain_schema.paths import BrainLayout, MachineLayout

pytestmark = pytest.mark.anyio

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_context", {}),
    ("memory_search", {"query": "payments"}),
    ("memory_propose", {"draft": {"class": "map", "title": "Cart", "body": "In checkout."}}),
    ("memory_feedback", {"id": "01KB2F0A1S9Y4Q7V3C8D5E6F01", "useful": True}),
]


async def test_without_a_brain_every_tool_says_to_run_tb_init(
    bare_repo: Path, make_brain: Callable[..., object]
) -> None:
    async with Client(build_server(bare_repo)) as client:
        assert len((await client.list_tools()).tools) == 4
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            assert result.is_error, name
            text = result.content[0].text  # type: ignore[union-attr]
            assert text.startswith(f"{name}: no teambrain brain in {bare_repo}")
            assert "run `tb init`" in text
        # `tb init` while the server runs: the next call works without a restart.
        make_brain(bare_repo, memories=False)
        result = await client.call_tool(*CALLS[2])
        assert not result.is_error


async def test_outside_a_repository_the_tools_say_where_to_start(tmp_path: Path) -> None:
    server = build_server(cwd=tmp_path, env={})
    async with Client(server) as client:
        for name, arguments in CALLS:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text  # type: ignore[union-attr]
            assert result.is_error and "is not inside a git repository" in text
            assert "--repo" in text and "tb init" in text


def test_prepare_opens_the_brain_before_the_first_call_and_never_raises(
    brain_repo: Path, tmp_path: Path
) -> None:
    from teambrain_mcp_server._service import build_service

    service = build_service(brain_repo, heartbeat=False)
    assert service._retriever is None
    service.prepare()  # what a starting server does while the MCP SDK loads
    assert service._retriever is not None
    result = service.context()  # the first call finds the brain open
    assert [m.id for m in result.required][:1] == ["01KB2F0A1S9Y4Q7V3C8D5E6F01"]
    # no brain, no repository: a head start that does nothing; the first call reports why
    build_service(cwd=tmp_path, env={}, heartbeat=False).prepare()
    (nobrain := tmp_path / "nobrain").mkdir()
    build_service(nobrain, heartbeat=False).prepare()


class _UnloadedModel(HashEmbedder):
    """A local model that has to load before it embeds; says when its load started."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False
        self.load_started = threading.Event()

    def load(self) -> None:
        self.load_started.set()
        self.loaded = True


def test_the_model_loads_after_the_first_answer_is_written(
    brain_repo: Path, machine: MachineLayout, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first memory_context answers without the model and its load starts only once the
    answer is out (its imports hold the interpreter while the answer is sent otherwise); a
    server that never says so starts it a moment later."""
    from teambrain_mcp_server import _service
    from teambrain_mcp_server._service import build_service

    def factory_of(model: _UnloadedModel) -> Callable[[BrainLayout, MachineLayout], Retriever]:
        def factory(layout: BrainLayout, home: MachineLayout) -> Retriever:
            retriever = open_retriever(layout, RetrieverOptions(embedder=model), home=home)
            retriever.rebuild()  # a warm home: every memory embedded
            model.loaded = False  # a new server process: the model is not loaded yet
            return retriever

        return factory

    monkeypatch.setattr(_service, "LOAD_AFTER_ANSWER_S", 30.0)
    model = _UnloadedModel()
    service = build_service(
        brain_repo, machine=machine, heartbeat=False, retriever_factory=factory_of(model)
    )
    first = service.context()
    assert first.coverage is not None and "still loading" in first.coverage.note
    assert not model.load_started.wait(0.3)  # not while the answer is being written
    service.answered()  # the server wrote it
    assert model.load_started.wait(10)
    # without word from the server, the load starts on its own a moment later
    monkeypatch.setattr(_service, "LOAD_AFTER_ANSWER_S", 0.05)
    other = _UnloadedModel()
    later = build_service(
        brain_repo, machine=machine, heartbeat=False, retriever_factory=factory_of(other)
    )
    assert later.context().coverage is not None
    assert other.load_started.wait(10)
