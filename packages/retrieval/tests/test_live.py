"""The live view (issue 27 point 7): the default branch as last fetched, with this checkout's
own memory changes on top; retirements on the default branch apply; provenance names the commit
each memory is served from; a memory merged on the remote is served after a fetch, no pull."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_retrieval import Retriever
from teambrain_retrieval._index._live import LiveView, fetch_default_branch

OpenRetriever = Callable[..., Retriever]
Write = Callable[..., Path]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def titles(hits: Sequence[Any]) -> list[str]:
    return sorted(hit.memory.title for hit in hits)


@pytest.fixture
def team(
    tmp_path: Path, new_brain: Callable[..., BrainLayout], write: Write
) -> tuple[BrainLayout, BrainLayout]:
    """(upstream, mine): a brain with two memories, and a clone of it on a feature branch."""
    upstream = new_brain(tmp_path / "upstream")
    write(upstream, "Deploy checklist", "Deploys follow the checklist.", memory_id=IDS[0])
    write(upstream, "Retry budget", "Payments retry three times.", memory_id=IDS[1])
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "brain")
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(upstream.repo_root), str(mine))
    git(mine, "checkout", "-qb", "feature/long-lived")
    return upstream, BrainLayout(mine)


IDS = [f"01KG{index:022d}" for index in range(10)]


def live(open_test_retriever: OpenRetriever, layout: BrainLayout) -> Retriever:
    return open_test_retriever(layout, live=True)


def test_a_memory_merged_on_the_remote_is_served_after_a_fetch_without_a_pull(
    team: tuple[BrainLayout, BrainLayout], write: Write, open_test_retriever: OpenRetriever
) -> None:
    upstream, mine = team
    retriever = live(open_test_retriever, mine)
    assert titles(retriever.search("cache tenant keys", 5)) == []
    write(upstream, "Cache keys", "Cache keys carry the tenant id.", memory_id=IDS[2])
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "a teammate's memory, merged")
    assert titles(retriever.search("cache tenant keys", 5)) == []  # not fetched yet
    git(mine.repo_root, "fetch", "-q", "origin")
    merged = git(mine.repo_root, "rev-parse", "origin/main")
    hits = retriever.search("cache tenant keys", 5)  # the same retriever: no restart, no pull
    assert titles(hits) == ["Cache keys"]
    assert hits[0].provenance.commit == merged  # the commit actually served
    assert retriever.commit == merged
    assert not (mine.memories / "learnings" / f"{IDS[2]}-note.md").exists()  # checkout as it was


def test_my_own_changes_are_served_on_top_of_the_default_branch(
    team: tuple[BrainLayout, BrainLayout], write: Write, open_test_retriever: OpenRetriever
) -> None:
    upstream, mine = team
    # Mine: an uncommitted edit, a memory committed on my branch, a deletion not committed.
    edited = write(mine, "Retry budget", "Payments retry five times now.", memory_id=IDS[1])
    write(mine, "Branch learning", "Feature flags default off.", memory_id=IDS[3])
    git(mine.repo_root, "add", str(mine.memories / "learnings" / f"{IDS[3]}-note.md"))
    git(mine.repo_root, "commit", "-qm", "a learning on my branch")
    head = git(mine.repo_root, "rev-parse", "HEAD")
    (mine.memories / "learnings" / f"{IDS[0]}-note.md").unlink()
    # Theirs, merged meanwhile: an edit of a memory I did not touch.
    write(upstream, "Deploy checklist", "Deploys follow the new checklist.", memory_id=IDS[0])
    write(upstream, "Onboarding", "New people pair for a week.", memory_id=IDS[4])
    git(upstream.repo_root, "commit", "-qam", "x")
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "their edit")
    git(mine.repo_root, "fetch", "-q", "origin")
    merged = git(mine.repo_root, "rev-parse", "origin/main")

    retriever = live(open_test_retriever, mine)
    found = {
        hit.memory.title: hit for hit in retriever.search("payments retry flags deploys pair", 10)
    }
    assert set(found) == {"Retry budget", "Branch learning", "Onboarding"}  # my deletion holds
    assert "five times" in found["Retry budget"].memory.body
    assert found["Retry budget"].provenance.commit is None  # uncommitted: no commit holds it
    assert found["Branch learning"].provenance.commit == head
    assert found["Onboarding"].provenance.commit == merged
    assert edited.read_text().count("five times") == 1


def test_a_retirement_on_the_default_branch_applies_even_to_a_memory_i_edited(
    team: tuple[BrainLayout, BrainLayout], write: Write, open_test_retriever: OpenRetriever
) -> None:
    upstream, mine = team
    write(mine, "Retry budget", "Payments retry five times now.", memory_id=IDS[1])
    git(mine.repo_root, "commit", "-qam", "my edit")
    git(upstream.repo_root, "mv", f".teambrain/memories/learnings/{IDS[1]}-note.md",
        f".teambrain/retired/{IDS[1]}-note.md")  # fmt: skip
    retired = upstream.retired / f"{IDS[1]}-note.md"
    retired.write_text(retired.read_text().replace("status: active", "status: retired"))
    git(upstream.repo_root, "commit", "-qam", "retire the retry budget")
    retriever = live(open_test_retriever, mine)
    assert titles(retriever.search("payments retry", 5)) == ["Retry budget"]  # not fetched
    git(mine.repo_root, "fetch", "-q", "origin")
    assert titles(retriever.search("payments retry", 5)) == []


def test_without_a_remote_the_checkout_is_served(
    tmp_path: Path,
    new_brain: Callable[..., BrainLayout],
    write: Write,
    open_test_retriever: OpenRetriever,
) -> None:
    layout = new_brain(tmp_path / "solo")
    write(layout, "Committed", "A committed rule about caches.", memory_id=IDS[0])
    git(layout.repo_root, "add", "-A")
    git(layout.repo_root, "commit", "-qm", "brain")
    head = git(layout.repo_root, "rev-parse", "HEAD")
    write(layout, "Draft", "An uncommitted rule about caches.", memory_id=IDS[1])
    retriever = live(open_test_retriever, layout)
    hits = {hit.memory.title: hit for hit in retriever.search("rule caches", 5)}
    assert hits["Committed"].provenance.commit == head
    assert hits["Draft"].provenance.commit is None
    assert retriever.commit == head


def test_a_view_that_did_not_move_rewrites_nothing(
    team: tuple[BrainLayout, BrainLayout], tmp_path: Path
) -> None:
    _upstream, mine = team
    view = LiveView(mine.repo_root, MachineLayout(tmp_path / "home"))
    assert view.refresh() is True
    files = sorted(view.layout.root.rglob("*.md"))
    stamps = [path.stat().st_mtime_ns for path in files]
    assert len(files) == 2 and view.refresh() is False
    again = LiveView(mine.repo_root, MachineLayout(tmp_path / "home"))  # a new process
    assert again.refresh() is False
    assert [path.stat().st_mtime_ns for path in files] == stamps


def test_fetch_takes_the_default_branch_alone_and_says_why_it_failed(
    team: tuple[BrainLayout, BrainLayout], write: Write
) -> None:
    upstream, mine = team
    git(upstream.repo_root, "checkout", "-qb", "someone-else")
    write(upstream, "Elsewhere", "Only on another branch.", memory_id=IDS[5])
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "another branch")
    git(upstream.repo_root, "checkout", "-q", "main")
    write(upstream, "Merged", "Merged on main.", memory_id=IDS[6])
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "merged")
    assert fetch_default_branch(mine.repo_root, timeout=30) is None
    assert git(mine.repo_root, "rev-parse", "origin/main") == git(
        upstream.repo_root, "rev-parse", "main"
    )
    refs = git(mine.repo_root, "for-each-ref", "--format=%(refname)", "refs/remotes")
    assert "someone-else" not in refs  # just the default branch
    git(mine.repo_root, "remote", "set-url", "origin", str(upstream.repo_root) + "-gone")
    failed = fetch_default_branch(mine.repo_root, timeout=30)
    assert failed is not None and "\n" not in failed


def test_the_fetch_uses_no_proxy_from_the_environment(
    team: tuple[BrainLayout, BrainLayout], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tb serve``'s environment can come from a committed agent config: its proxy
    variables do not route the fetch (the remote itself is asked, the proxy never)."""
    import socket
    import threading

    _, mine = team
    received: dict[str, list[bytes]] = {"proxy": [], "remote": []}

    def listen(name: str) -> int:
        server = socket.create_server(("127.0.0.1", 0))

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    received[name].append(conn.recv(4096))
                    conn.sendall(
                        b"HTTP/1.1 500 no\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    )

        threading.Thread(target=serve, daemon=True).start()
        return int(server.getsockname()[1])

    proxy, remote = listen("proxy"), listen("remote")
    git(mine.repo_root, "remote", "set-url", "origin", f"http://127.0.0.1:{remote}/brain.git")
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):  # fmt: skip
        monkeypatch.setenv(name, f"http://127.0.0.1:{proxy}")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    assert fetch_default_branch(mine.repo_root, timeout=30) is not None  # the remote said 500
    assert received["proxy"] == [] and received["remote"]


def test_serving_settings_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from teambrain_retrieval import live_settings

    for name in ("TEAMBRAIN_SERVE_FROM", "TEAMBRAIN_FETCH_MINUTES", "TEAMBRAIN_FETCH_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    default = live_settings()
    assert (default.live, default.fetch_minutes, default.problems) == (True, 0.0, ())
    monkeypatch.setenv("TEAMBRAIN_SERVE_FROM", "checkout")
    monkeypatch.setenv("TEAMBRAIN_FETCH_MINUTES", "0.5")
    chosen = live_settings()
    assert (chosen.live, chosen.fetch_minutes) == (False, 0.5)
    monkeypatch.setenv("TEAMBRAIN_SERVE_FROM", "tip")
    monkeypatch.setenv("TEAMBRAIN_FETCH_MINUTES", "often")
    monkeypatch.setenv("TEAMBRAIN_FETCH_TIMEOUT", "nan")
    wrong = live_settings()
    assert (wrong.live, wrong.fetch_minutes, wrong.fetch_timeout_s) == (True, 0.0, 20.0)
    assert len(wrong.problems) == 3 and all("$TEAMBRAIN_" in p for p in wrong.problems)


def test_the_view_copies_no_more_files_than_the_walk_reads(
    team: tuple[BrainLayout, BrainLayout], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit of 200,000 files was copied into the view in full (every search of tb serve
    then took ~17 s): the view keeps the walk's bounds, MAX_BRAIN_FILES files."""
    import teambrain_retrieval._index._live as live_module

    monkeypatch.setattr(live_module, "MAX_BRAIN_FILES", 2, raising=False)
    upstream, mine = team
    junk = upstream.memories / "learnings"
    for n in range(6):
        (junk / f"e{n}.md").write_text("x\n")
    git(upstream.repo_root, "add", "-A")
    git(upstream.repo_root, "commit", "-qm", "a teammate's junk")
    git(mine.repo_root, "fetch", "-q", "origin")
    said: list[str] = []
    view = LiveView(mine.repo_root, MachineLayout(tmp_path / "home"), warn=said.append)
    view.refresh()
    assert len(view.files) <= 2
    assert len(list(view.layout.root.rglob("*.md"))) <= 2
    # ...and says so (issue 37 point 8: every cap says when it is hit)
    assert said == [
        "serving the first 2 of 8 memory files of the default branch; the rest are left out "
        "(`tb lint` there says so)"
    ]


def test_a_crafted_path_from_git_is_never_a_file_of_the_view(
    team: tuple[BrainLayout, BrainLayout], tmp_path: Path
) -> None:
    """Issue 37 point 1: a fetched tree naming '..' under memories/ wrote outside the view."""
    upstream, mine = team
    repo = upstream.repo_root
    data = b"---\nid: 01KG0000000000000000000009\n---\nPWNED\n"
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=data,
                          capture_output=True, check=True).stdout.decode().strip()  # fmt: skip
    leaf = subprocess.run(["git", "mktree"], cwd=repo, capture_output=True, check=True,
                          input=f"100644 blob {blob}\tCLAUDE.md\n".encode()).stdout.decode().strip()  # fmt: skip
    for _ in range(7):
        leaf = subprocess.run(["git", "mktree"], cwd=repo, capture_output=True, check=True,
                              input=f"040000 tree {leaf}\t..\n".encode()).stdout.decode().strip()  # fmt: skip
    memories = git(repo, "ls-tree", "HEAD:.teambrain/memories") + f"\n040000 tree {leaf}\t..\n"
    tree = subprocess.run(["git", "mktree"], cwd=repo, capture_output=True, check=True,
                          input=memories.encode()).stdout.decode().strip()  # fmt: skip
    brain = git(repo, "ls-tree", "HEAD:.teambrain").replace(
        git(repo, "rev-parse", "HEAD:.teambrain/memories"), tree
    )
    brain_tree = subprocess.run(["git", "mktree"], cwd=repo, capture_output=True, check=True,
                                input=(brain + "\n").encode()).stdout.decode().strip()  # fmt: skip
    top = git(repo, "ls-tree", "HEAD").replace(
        git(repo, "rev-parse", "HEAD:.teambrain"), brain_tree
    )
    root = subprocess.run(["git", "mktree"], cwd=repo, capture_output=True, check=True,
                          input=(top + "\n").encode()).stdout.decode().strip()  # fmt: skip
    commit = git(repo, "commit-tree", root, "-p", "HEAD", "-m", "crafted")
    git(repo, "update-ref", "refs/heads/" + git(repo, "symbolic-ref", "--short", "HEAD"), commit)
    git(mine.repo_root, "fetch", "-q", "origin")
    said: list[str] = []
    view = LiveView(mine.repo_root, MachineLayout(tmp_path / "home" / "tb"), warn=said.append)
    view.refresh()
    written = list(tmp_path.rglob("CLAUDE.md"))
    assert written == [], written
    assert any("a '..' in the path" in line for line in said), said
    assert sorted(p.rsplit("/", 1)[1][:26] for p in view.files) == IDS[:2]
