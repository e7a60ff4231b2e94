"""A newcomer's first answers from the shared index (issue 40 point 3): a fresh clone whose
local index was never built answers from what CI indexed — naming CI's commit, with the
developer's own unmerged memory files on top — instead of parsing every memory file first;
a server builds the local index meanwhile and answers from it once built; every fault falls
back to the local index, said once in one line. A real PostgreSQL, real git clones."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.egress import approve_egress
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import HashEmbedder, Retriever, gather_situation, shared_index_egress
from teambrain_retrieval._postgres import connect, fill_shared_index
from teambrain_schema import BrainConfig, RetrievalConfig

from .conftest import Notices, memory_text, write_memory

CONFIG = BrainConfig(retrieval=RetrievalConfig(backend="postgres", url_env="TB_TEST_SHARED"))
REMOTE = "https://github.com/acme/shop.git"
GATEWAY_ID = "01KC0000000000000000000001"


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def ci(layout: BrainLayout, postgres_url: str) -> tuple[BrainLayout, str]:
    """The team's brain, committed, as CI filled the shared index from it: (layout, commit)."""
    _git(layout.repo_root, "remote", "add", "origin", REMOTE)
    write_memory(layout, "Payments go through the gateway",
                 "Call the payment gateway for every charge.", memory_id=GATEWAY_ID)  # fmt: skip
    write_memory(layout, "Releases are tagged", "Tag every release and build wheels from it.")
    write_memory(layout, "Retry uploads", "Retry uploads with exponential backoff.")
    write_memory(layout, "Never commit secrets", "Secrets live in the vault, never in git.",
                 priority="required", class_="convention")  # fmt: skip
    _git(layout.repo_root, "add", "-A")
    _git(layout.repo_root, "commit", "-qm", "brain")
    conn = connect(postgres_url)
    report = fill_shared_index(conn, layout, HashEmbedder())
    conn.close()
    assert report.documents == 4
    return layout, _git(layout.repo_root, "rev-parse", "HEAD")


@pytest.fixture
def clone(ci: tuple[BrainLayout, str], tmp_path: Path) -> BrainLayout:
    """A newcomer's fresh clone of the brain (same remote: the same brain in the index)."""
    root = tmp_path / "mate"
    _git(tmp_path, "clone", "-q", str(ci[0].repo_root), str(root))
    _git(root, "remote", "set-url", "origin", REMOTE)
    return BrainLayout(root)


def _machine(home: Path, repo: Path, *, approve: bool = True) -> MachineLayout:
    machine = MachineLayout(home)
    if approve:
        egress = shared_index_egress(CONFIG.retrieval)
        assert egress is not None
        approve_egress(machine, repo, [egress])
    return machine


def _open(
    open_test_retriever: Callable[..., Retriever], clone: BrainLayout, home: MachineLayout,
    embedder: HashEmbedder | None = None, **options: Any,
) -> Retriever:  # fmt: skip
    return open_test_retriever(
        clone, config=CONFIG, home=home, embedder=embedder or HashEmbedder(), **options
    )


def _local_documents(retriever: Retriever) -> int:
    return int(retriever.db.execute("SELECT count(*) FROM docs").fetchone()[0])


def test_a_newcomer_answers_from_the_shared_index_with_its_own_files_on_top(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, notices: Notices, monkeypatch: pytest.MonkeyPatch,
    teambrain_home: Path,
) -> None:  # fmt: skip
    _, commit = ci
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    # Unmerged here: a new memory, and an edit of a merged one (its shared copy is hidden).
    draft = write_memory(clone, "Gateway timeouts", "The payment gateway times out after 30 s.")
    edited = next(clone.memories.glob(f"learnings/{GATEWAY_ID}-*.md"))
    edited.write_text(memory_text(GATEWAY_ID, "Payments go through the new gateway",
                                  "Call the new payment gateway for every charge."), "utf-8")  # fmt: skip
    embedder = HashEmbedder()
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root),
                      embedder)  # fmt: skip
    hits = retriever.search("payment gateway charge", 5)
    assert retriever.answered_from is not None and commit[:12] in retriever.answered_from
    said = [n for n in notices if "shared index" in n]
    assert said == [f"{retriever.answered_from}; `tb reindex` or `tb serve` builds it"], notices
    by_title = {hit.memory.title: hit for hit in hits}
    assert "Payments go through the gateway" not in by_title  # the shared copy: replaced
    assert by_title["Payments go through the new gateway"].provenance.commit is None
    assert by_title["Gateway timeouts"].provenance.commit is None
    assert by_title["Gateway timeouts"].provenance.path == clone.relative(draft)
    merged = retriever.search("release tag wheels", 1)
    assert [h.memory.title for h in merged] == ["Releases are tagged"]
    assert merged[0].provenance.commit == commit  # CI's commit names what it indexed
    assert embedder.embedded == 0  # nothing embedded on this machine
    assert _local_documents(retriever) == 0  # and no memory file of the brain parsed into it
    assert [h.memory.title for h in retriever.required()] == ["Never commit secrets"]
    pack = retriever.context(gather_situation(clone.repo_root))
    assert [h.memory.title for h in pack.required] == ["Never commit secrets"]
    assert retriever.answered_from in pack.notes
    retriever.close()


def test_a_retirement_here_hides_the_shared_copy(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    path = next(clone.memories.glob(f"learnings/{GATEWAY_ID}-*.md"))
    clone.retired.mkdir(parents=True, exist_ok=True)
    _git(clone.repo_root, "mv", str(path), str(clone.retired / path.name))
    _git(clone.repo_root, "commit", "-qm", "retire the gateway memory")
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root))
    titles = [h.memory.title for h in retriever.search("payment gateway charge", 5)]
    assert retriever.answered_from is not None
    assert "Payments go through the gateway" not in titles
    retriever.close()


def test_a_server_builds_the_local_index_meanwhile_then_answers_from_it(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, notices: Notices, monkeypatch: pytest.MonkeyPatch,
    teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root))
    retriever.embeds_in_background = True
    retriever.prepare()  # a server's head start: the shared index is asked, nothing built yet
    first = retriever.search("release tag wheels", 1)
    assert retriever.answered_from is not None
    assert [h.memory.title for h in first] == ["Releases are tagged"]
    assert retriever._building is not None
    retriever._building.join(timeout=120)
    later = retriever.search("release tag wheels", 1)
    assert retriever.answered_from is None  # the local index answers now
    assert [h.memory.title for h in later] == ["Releases are tagged"]
    assert _local_documents(retriever) == 4
    assert [n for n in notices if "it is built meanwhile" in n]
    retriever.close()


def test_a_server_s_live_view_is_built_meanwhile_too(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    home = _machine(teambrain_home, clone.repo_root)
    draft = write_memory(clone, "Gateway timeouts", "The payment gateway times out after 30 s.")
    retriever = _open(open_test_retriever, clone, home, live=True)
    assert retriever.live is not None and retriever.live.base is None  # not materialised yet
    retriever.embeds_in_background = True
    hits = retriever.search("payment gateway timeouts", 2)
    assert retriever.answered_from is not None
    assert "Gateway timeouts" in [h.memory.title for h in hits]
    assert retriever._building is not None
    retriever._building.join(timeout=120)
    later = retriever.search("payment gateway timeouts", 2)
    assert retriever.answered_from is None
    assert "Gateway timeouts" in [h.memory.title for h in later]
    assert (retriever.live.layout.repo_root / clone.relative(draft)).is_file()
    retriever.close()


def test_a_server_returns_to_its_own_index_once_it_follows_what_the_shared_index_served(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    """Answers never step back: a merge CI filled is in the shared index's next answer, and
    the local index serves it through the follower's snapshot. With the index built but the
    follower not yet holding that commit, the shared index keeps answering (at most
    CATCH_UP_S); a switch then would drop the merge until its notification is heard."""
    from teambrain_retrieval import _retriever

    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    layout, _ = ci
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root),
                      live=True)  # fmt: skip
    retriever.embeds_in_background = True
    assert retriever.follow_shared_index()
    follower = retriever._follower
    assert follower is not None and follower._thread is not None
    for _ in range(100):
        if follower.snapshot is not None:
            break
        follower._thread.join(0.1)
    assert follower.snapshot is not None
    follower.stop()  # it hears of no later fill: the lag, held open
    follower._thread.join(10)
    write_memory(layout, "Cache keys carry the tenant", "Every cache key starts with the tenant.",
                 priority="required", class_="convention")  # fmt: skip
    _git(layout.repo_root, "add", "-A")
    _git(layout.repo_root, "commit", "-qm", "a teammate's memory, merged")
    conn = connect(postgres_url)
    fill_shared_index(conn, layout, HashEmbedder())
    conn.close()

    def required() -> list[str]:
        return [hit.memory.title for hit in retriever.required()]

    assert "Cache keys carry the tenant" in required()
    assert retriever.answered_from is not None and retriever._building is not None
    retriever._building.join(timeout=120)
    assert "Cache keys carry the tenant" in required()
    assert retriever.answered_from is not None  # built, but the follower is behind
    monkeypatch.setattr(_retriever, "CATCH_UP_S", 0.0)
    required()
    assert retriever.answered_from is None  # not waited for beyond the bound
    retriever.close()


def test_a_built_local_index_answers_itself(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    home = _machine(teambrain_home, clone.repo_root)
    built = _open(open_test_retriever, clone, home)
    built.rebuild()
    built.close()
    retriever = _open(open_test_retriever, clone, home)
    assert retriever.search("release tag wheels", 1)
    assert retriever.answered_from is None
    retriever.close()


@pytest.mark.parametrize("fault", ["unreachable", "not approved", "other embedder", "old schema"])
def test_a_fault_falls_back_to_the_local_index_said_once(
    fault: str, ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, notices: Notices, monkeypatch: pytest.MonkeyPatch,
    teambrain_home: Path, tmp_path: Path,
) -> None:  # fmt: skip
    url = postgres_url
    if fault == "unreachable":
        url = f"postgresql://nobody:secret-pw@/db?host={tmp_path}&port=5999"
    if fault == "old schema":
        conn = connect(postgres_url)
        conn.execute("UPDATE teambrain.schema_version SET version = 99")
        conn.close()
    monkeypatch.setenv("TB_TEST_SHARED", url)
    home = _machine(teambrain_home, clone.repo_root, approve=fault != "not approved")
    embedder = HashEmbedder(name="test:other") if fault == "other embedder" else HashEmbedder()
    retriever = _open(open_test_retriever, clone, home, embedder)
    hits = retriever.search("release tag wheels", 1)
    assert [h.memory.title for h in hits] == ["Releases are tagged"]  # answered anyway
    assert retriever.answered_from is None
    assert _local_documents(retriever) == 4  # from this machine's index, built first
    said = [n for n in notices if "shared index" in n]
    assert len(said) == 1 and "\n" not in said[0] and "secret-pw" not in said[0], notices
    expected = {
        "unreachable": "cannot connect",
        "not approved": "not approved",
        "other embedder": "this machine uses test:other",
        "old schema": "version 99",
    }[fault]
    assert expected in said[0]
    retriever.close()


def test_a_shared_index_lost_mid_way_falls_back_said_once(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, notices: Notices, monkeypatch: pytest.MonkeyPatch,
    teambrain_home: Path,
) -> None:  # fmt: skip
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root))
    assert retriever.search("release tag wheels", 1)
    assert retriever.answered_from is not None
    admin = connect(postgres_url)
    admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'teambrain' AND pid <> pg_backend_pid()"
    )
    admin.close()
    hits = retriever.search("release tag wheels", 1)
    assert [h.memory.title for h in hits] == ["Releases are tagged"]
    assert retriever.answered_from is None
    assert _local_documents(retriever) == 4
    lost = [n for n in notices if "answering from this machine's index" in n]
    assert len(lost) == 1 and "\n" not in lost[0], notices
    retriever.close()


def test_a_slow_shared_index_falls_back_within_its_timeout(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, notices: Notices, monkeypatch: pytest.MonkeyPatch,
    teambrain_home: Path,
) -> None:  # fmt: skip
    """The brain's row is locked by another session (a migration, a stuck writer): the first
    answer's reads give up after retrieval.timeout_s and the local index answers."""
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    config = CONFIG.model_copy(
        update={"retrieval": CONFIG.retrieval.model_copy(update={"timeout_s": 0.5})}
    )
    locker = connect(postgres_url, timeout_s=30)
    locker.autocommit = False
    locker.execute("LOCK TABLE teambrain.brains IN ACCESS EXCLUSIVE MODE")
    try:
        retriever = open_test_retriever(
            clone, config=config, home=_machine(teambrain_home, clone.repo_root),
            embedder=HashEmbedder(),
        )  # fmt: skip
        hits = retriever.search("release tag wheels", 1)
    finally:
        locker.rollback()
        locker.close()
    assert [h.memory.title for h in hits] == ["Releases are tagged"]
    assert retriever.answered_from is None
    said = [n for n in notices if "shared index" in n]
    assert len(said) == 1 and "\n" not in said[0], notices
    retriever.close()


def test_any_query_text_is_answered_from_the_shared_index(
    ci: tuple[BrainLayout, str], clone: BrainLayout, postgres_url: str,
    open_test_retriever: Any, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    """A query is outside input: whatever its text (SQL, tsquery operators, control
    characters, emoji), a first answer from the shared index never raises and stays there."""
    from hypothesis import HealthCheck, given, settings, strategies as st

    write_memory(clone, "Gateway timeouts", "The payment gateway times out after 30 s.")
    monkeypatch.setenv("TB_TEST_SHARED", postgres_url)
    retriever = _open(open_test_retriever, clone, _machine(teambrain_home, clone.repo_root))
    assert retriever.search("warm up", 3) is not None
    assert retriever.answered_from is not None

    @settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
    @given(query=st.one_of(
        st.text(max_size=80),
        st.sampled_from(["' OR 1=1 --", "a & !b | c:*", "%(brains)s", "\x00gateway", "🙂 payment",
                         "gateway" * 40, "", "   "]),
    ))  # fmt: skip
    def answers(query: str) -> None:
        hits = retriever.search(query, 5)
        assert len(hits) <= 5
        assert retriever.answered_from is not None

    try:
        answers()
    finally:
        retriever.close()
