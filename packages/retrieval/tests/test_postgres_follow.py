"""A running server follows the shared index (issue 40, point 5): CI's fill notifies, and a
live retriever of a clone that never fetched serves the merged memory — naming the commit CI
filled from — and stops serving a retired one; the clone's own unmerged memory stays on top.
Against a real PostgreSQL (pgserver)."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from teambrain_kit.egress import approve_egress
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import HashEmbedder, Retriever
from teambrain_retrieval._index._scan import read_doc
from teambrain_retrieval._postgres import connect, fill_shared_index
from teambrain_retrieval._postgres._follow import render_document, servable_path
from teambrain_schema import BrainConfig, RetrievalConfig

from .conftest import Notices, write_memory

CONFIG = BrainConfig(retrieval=RetrievalConfig(backend="postgres", url_env="TB_TEST_SHARED"))
IDS = [f"01KH{index:022d}" for index in range(10)]
POLL_LIMIT_S = 10.0  # the bound: served within 10 s of the fill


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def titles(hits: Sequence[Any]) -> list[str]:
    return sorted(hit.memory.title for hit in hits)


def fill(url: str, layout: BrainLayout) -> None:
    conn = connect(url)
    try:
        fill_shared_index(conn, layout, HashEmbedder())
    finally:
        conn.close()


def poll(check: Callable[[], bool]) -> bool:
    limit = time.monotonic() + POLL_LIMIT_S
    while time.monotonic() < limit:
        if check():
            return True
        time.sleep(0.2)
    return check()


def approved_home(
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path, mine: BrainLayout, url: str
) -> MachineLayout:
    """This machine with the shared index at ``url`` named by brain.yaml's variable and
    approved for the clone ``mine``, as `tb trust` leaves it."""
    from teambrain_retrieval import shared_index_egress

    monkeypatch.setenv("TB_TEST_SHARED", url)
    home = MachineLayout(teambrain_home)
    egress = shared_index_egress(CONFIG.retrieval)
    assert egress is not None
    approve_egress(home, mine.repo_root, [egress])
    return home


@pytest.fixture
def ci_and_clone(
    tmp_path: Path, new_brain: Callable[..., BrainLayout]
) -> tuple[BrainLayout, BrainLayout]:
    """(ci, mine): the brain's default branch as CI checks it out, and a developer's clone
    that will not fetch again; both name the same origin (the shared index's brain id)."""
    ci = new_brain(tmp_path / "ci")
    write_memory(ci, "Deploy checklist", "Deploys follow the checklist.", memory_id=IDS[0])
    git(ci.repo_root, "add", "-A")
    git(ci.repo_root, "commit", "-qm", "brain")
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(ci.repo_root), str(mine))
    for root in (ci.repo_root, mine):
        subprocess.run(["git", "remote", "remove", "origin"], cwd=root, check=False)
        git(root, "remote", "add", "origin", "https://github.com/acme/shop.git")
    # The clone's record of the default branch, as its last fetch left it.
    git(mine, "update-ref", "refs/remotes/origin/main", git(mine, "rev-parse", "HEAD"))
    git(mine, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    return ci, BrainLayout(mine)


def test_a_merge_and_a_retirement_reach_a_running_server_without_a_fetch(
    ci_and_clone: tuple[BrainLayout, BrainLayout], postgres_url: str,
    open_test_retriever: Callable[..., Retriever], notices: Notices,
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    ci, mine = ci_and_clone
    fill(postgres_url, ci)
    home = approved_home(monkeypatch, teambrain_home, mine, postgres_url)
    # My own memory, not merged: served on top of whatever the shared index says.
    write_memory(mine, "Local scratch rule", "Scratch files live in tmp.", memory_id=IDS[5])
    retriever = open_test_retriever(mine, config=CONFIG, home=home, live=True)
    try:
        assert retriever.follow_shared_index()
        assert titles(retriever.search("cache tenant keys", 5)) == []

        # CI: a teammate's memory merged, then `tb reindex --shared`.
        write_memory(ci, "Cache keys", "Cache keys carry the tenant id.", memory_id=IDS[2])
        git(ci.repo_root, "add", "-A")
        git(ci.repo_root, "commit", "-qm", "a teammate's memory, merged")
        merged = git(ci.repo_root, "rev-parse", "HEAD")
        fill(postgres_url, ci)

        assert poll(lambda: "Cache keys" in titles(retriever.search("cache tenant keys", 5))), (
            notices
        )
        hit = next(
            h for h in retriever.search("cache tenant keys", 5) if h.memory.title == "Cache keys"
        )
        assert hit.provenance.commit == merged  # the commit CI filled from, not fetched here
        assert retriever.commit == merged
        # This clone never fetched it; its own unmerged memory is still served.
        assert subprocess.run(
            ["git", "cat-file", "-e", f"{merged}^{{commit}}"], cwd=mine.repo_root,
            capture_output=True, check=False,
        ).returncode != 0  # fmt: skip
        assert titles(retriever.search("scratch files tmp", 5)) == ["Local scratch rule"]
        assert "Deploy checklist" in titles(retriever.search("deploys checklist", 5))

        # CI: the deploy checklist retired (moved to retired/), filled again.
        old = next((ci.memories).rglob(f"{IDS[0]}-*.md"))
        git(ci.repo_root, "mv", str(old), str(ci.retired / old.name))
        git(ci.repo_root, "commit", "-qm", "retire the checklist")
        fill(postgres_url, ci)
        assert poll(lambda: titles(retriever.search("deploys checklist", 5)) == []), notices
        assert "Cache keys" in titles(retriever.search("cache tenant keys", 5))
    finally:
        retriever.close()


@pytest.mark.parametrize("stopped", [False, True], ids=["running", "stopped"])
def test_a_dropped_connection_is_said_while_following_and_never_once_stopped(
    ci_and_clone: tuple[BrainLayout, BrainLayout], postgres_url: str, stopped: bool,
    open_test_retriever: Callable[..., Retriever], notices: Notices,
    monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    """A server shutting down stops following; the database then closing the connection under
    the follower's last wait (a stopped server, a restarted database) is not a warning."""
    ci, mine = ci_and_clone
    fill(postgres_url, ci)
    home = approved_home(monkeypatch, teambrain_home, mine, postgres_url)
    retriever = open_test_retriever(mine, config=CONFIG, home=home, live=True)
    try:
        assert retriever.follow_shared_index()
        follower = retriever._follower
        assert follower is not None and poll(lambda: follower.snapshot is not None)
        if stopped:
            follower.stop()
        admin = connect(postgres_url)
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "  # this test's database
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        finally:
            admin.close()
        if stopped:
            assert follower._thread is not None
            follower._thread.join(POLL_LIMIT_S)
            assert not follower._thread.is_alive()
            assert not [n for n in notices if "not following" in n], notices
        else:
            assert poll(lambda: any("not following the shared index" in n for n in notices))
    finally:
        retriever.close()


def test_an_unreachable_shared_index_is_said_once_and_answers_go_on(
    ci_and_clone: tuple[BrainLayout, BrainLayout], open_test_retriever: Callable[..., Retriever],
    notices: Notices, monkeypatch: pytest.MonkeyPatch, teambrain_home: Path,
) -> None:  # fmt: skip
    _ci, mine = ci_and_clone
    home = approved_home(monkeypatch, teambrain_home, mine, "postgresql://nobody@127.0.0.1:9/none")
    retriever = open_test_retriever(mine, config=CONFIG, home=home, live=True)
    try:
        assert retriever.follow_shared_index()
        assert titles(retriever.search("deploys checklist", 5)) == ["Deploy checklist"]
        assert poll(lambda: any("not following the shared index" in n for n in notices))
        said = [n for n in notices if "not following the shared index" in n]
        assert len(said) == 1 and "postgresql://" not in said[0], said
    finally:
        retriever.close()


def test_a_stored_document_renders_to_a_file_that_reads_back_the_same(
    ci_and_clone: tuple[BrainLayout, BrainLayout],
) -> None:
    ci, _mine = ci_and_clone
    path = write_memory(
        ci, "Tagged: a title", "Body line one.\n\nLine two with `code`.", memory_id=IDS[3],
        tags=["api", "cache"], priority="required", ttl_days=30,
    )  # fmt: skip
    relpath = ci.relative(path)
    original = read_doc(ci, relpath, "b").doc
    assert original is not None
    data = render_document(original.model_dump_json(by_alias=True), retired=False)
    assert data is not None
    path.write_bytes(data)
    again = read_doc(ci, relpath, "b").doc
    assert again is not None
    assert again.model_dump() == original.model_dump()


@given(st.text(max_size=80))
def test_only_memory_paths_inside_the_brain_are_servable(path: str) -> None:
    if servable_path(path):
        parts = path.split("/")
        assert parts[0] == ".teambrain" and parts[1] in ("memories", "retired")
        assert ".." not in parts and "." not in parts and not path.startswith("/")
        assert path.endswith(".md") and "\n" not in path and "\0" not in path


@pytest.mark.parametrize(
    "path",
    ["../x.md", ".teambrain/memories/../../x.md", "/etc/x.md", ".teambrain/brain.yaml",
     ".teambrain/memories//x.md", ".teambrain/memories/a\nb.md", ".teambrain/hooks/x.md"],
)  # fmt: skip
def test_paths_that_leave_the_memory_folders_are_refused(path: str) -> None:
    assert not servable_path(path)


def test_a_snapshot_takes_from_git_what_this_clone_has_and_renders_the_rest(
    ci_and_clone: tuple[BrainLayout, BrainLayout], postgres_url: str
) -> None:
    from teambrain_retrieval._postgres._fill import shared_brain_id
    from teambrain_retrieval._postgres._follow import read_snapshot

    ci, mine = ci_and_clone
    fill(postgres_url, ci)  # CI's fill after the commit this clone has
    path = write_memory(ci, "Cache keys", "Cache keys carry the tenant id.", memory_id=IDS[2])
    git(ci.repo_root, "add", "-A")
    git(ci.repo_root, "commit", "-qm", "merged")
    fill(postgres_url, ci)
    conn = connect(postgres_url)
    try:
        snapshot = read_snapshot(conn, shared_brain_id(ci), mine.repo_root)
    finally:
        conn.close()
    assert snapshot is not None and snapshot.commit == git(ci.repo_root, "rev-parse", "HEAD")
    known = next(p for p in snapshot.files if IDS[0] in p)
    blob, data = snapshot.files[known]
    assert data is None  # written from a commit this clone has: read from its git
    assert blob == git(mine.repo_root, "rev-parse", f"HEAD:{known}")
    _blob, rendered = snapshot.files[ci.relative(path)]
    assert rendered is not None and b"Cache keys carry the tenant id." in rendered
