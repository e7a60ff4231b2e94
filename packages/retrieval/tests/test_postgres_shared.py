"""A developer's retriever with ``retrieval.backend: postgres``: vectors CI put in the shared
index are read, not embedded again; every fault (unreachable, not approved, another embedder,
an unknown schema) is said once and the machine embeds itself, as without a shared index."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.egress import approve_egress
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import HashEmbedder, Retriever
from teambrain_retrieval._postgres import connect, fill_shared_index
from teambrain_schema import BrainConfig, RetrievalConfig

from .conftest import Notices, write_memory

CONFIG = BrainConfig(retrieval=RetrievalConfig(backend="postgres", url_env="TB_TEST_SHARED"))
MEMORIES = [
    ("Payments go through the gateway", "Call the payment gateway for every charge."),
    ("Releases are tagged", "Tag every release and build the wheels from the tag."),
    ("Retry uploads", "Retry uploads with exponential backoff, three attempts."),
]


@pytest.fixture
def brain(layout: BrainLayout) -> BrainLayout:
    subprocess.run(
        ["git", "remote", "add", "origin", "https://github.com/acme/shop.git"],
        cwd=layout.repo_root, check=True,
    )  # fmt: skip
    for title, body in MEMORIES:
        write_memory(layout, title, body)
    return layout


@pytest.fixture
def filled(brain: BrainLayout, postgres_url: str) -> Iterator[str]:
    """The brain as CI filled the shared index (test embedder); its URL."""
    conn = connect(postgres_url)
    report = fill_shared_index(conn, brain, HashEmbedder())
    assert (report.documents, report.embedded) == (3, 3)
    conn.close()
    yield postgres_url


def _approve(home: Path, repo: Path) -> MachineLayout:
    from teambrain_retrieval import shared_index_egress

    machine = MachineLayout(home)
    egress = shared_index_egress(CONFIG.retrieval)
    assert egress is not None
    approve_egress(machine, repo, [egress])
    return machine


def _open(
    open_test_retriever: Callable[..., Retriever], brain: BrainLayout, home: MachineLayout,
    embedder: HashEmbedder,
) -> Retriever:  # fmt: skip
    return open_test_retriever(brain, config=CONFIG, home=home, embedder=embedder)


def test_vectors_in_the_shared_index_are_not_embedded_again(
    brain: BrainLayout, filled: str, open_test_retriever: Any, notices: Notices,
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", filled)
    home = _approve(teambrain_home, brain.repo_root)
    embedder = HashEmbedder()
    retriever = _open(open_test_retriever, brain, home, embedder)
    retriever.rebuild()
    assert embedder.embedded == 0, notices
    assert retriever.stats().vectors == 3
    assert [h.memory.title for h in retriever.search("gateway charge", 1)] == [MEMORIES[0][0]]
    assert not [n for n in notices if "shared index" in n]
    # A memory not merged yet (the local overlay): only it is embedded here.
    write_memory(brain, "Local draft about gateways", "A gateway note not yet merged.")
    retriever.refresh(force=True)
    retriever.backend.ensure_vectors()
    assert embedder.embedded == 1
    retriever.close()


@pytest.mark.parametrize("fault", ["unreachable", "not approved", "other embedder", "no url"])
def test_every_fault_is_one_line_and_this_machine_embeds(
    fault: str, brain: BrainLayout, filled: str, open_test_retriever: Any, notices: Notices,
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path, tmp_path: Path,
) -> None:  # fmt: skip
    url = filled
    if fault == "unreachable":
        url = f"postgresql://nobody:secret-pw@/db?host={tmp_path}&port=5999"
    if fault != "no url":
        monkeypatch.setenv("TB_TEST_SHARED", url)
    else:
        monkeypatch.delenv("TB_TEST_SHARED", raising=False)
    home = MachineLayout(teambrain_home)
    if fault != "not approved":
        home = _approve(teambrain_home, brain.repo_root)
    embedder = HashEmbedder(name="test:other") if fault == "other embedder" else HashEmbedder()
    retriever = _open(open_test_retriever, brain, home, embedder)
    retriever.rebuild()
    assert embedder.embedded == 3
    said = [n for n in notices if "shared index" in n]
    assert len(said) == 1, notices
    assert "embedding on this machine instead" in said[0]
    assert "secret-pw" not in said[0] and "\n" not in said[0]
    expected = {
        "unreachable": "cannot connect",
        "not approved": "not approved",
        "other embedder": "filled with embedder test:hash-256, this machine uses test:other",
        "no url": "$TB_TEST_SHARED is not set",
    }[fault]
    assert expected in said[0]
    assert retriever.search("gateway charge", 1)  # answers anyway
    retriever.close()


def test_an_unknown_schema_version_falls_back(
    brain: BrainLayout, filled: str, open_test_retriever: Any, notices: Notices,
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    conn = connect(filled)
    conn.execute("UPDATE teambrain.schema_version SET version = 99")
    conn.close()
    monkeypatch.setenv("TB_TEST_SHARED", filled)
    home = _approve(teambrain_home, brain.repo_root)
    embedder = HashEmbedder()
    retriever = _open(open_test_retriever, brain, home, embedder)
    retriever.rebuild()
    assert embedder.embedded == 3
    assert any("schema is version 99" in n for n in notices), notices
    retriever.close()
