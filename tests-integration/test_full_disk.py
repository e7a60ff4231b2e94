"""A full disk under the installed ``tb``: ``TEAMBRAIN_HOME`` on a tmpfs of a few hundred KB,
filled to the last byte. ``tb reindex`` names the full disk (exit 2) and leaves the index as
it was; ``tb relevant`` and ``memory_search`` answer from a temporary index in memory, saying
so once; nothing already written is lost; ``internal error`` never appears."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw
import pytest

Run = Callable[..., Any]
BIN = Path(sys.executable).parent


@pytest.fixture
def small_home(small_filesystem: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TEAMBRAIN_HOME on a small real filesystem (see the root conftest)."""
    monkeypatch.setenv("TEAMBRAIN_HOME", str(small_filesystem.root / "home"))
    return Path(small_filesystem.root / "home")


def _brain(repo: Path, tb: Run, git_run: Run, write: Run, count: int) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace("provider: local", "provider: none"))
    _memories(write, repo, 1, count, "deploy")
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "memories", cwd=repo)


def _memories(write: Run, repo: Path, start: int, count: int, word: str) -> None:
    for n in range(start, start + count):
        write(repo, f"01J{n:023d}", f"Note {n} about {word}",
                    f"When you {word}, check dashboard {n} first and write down what you saw.")  # fmt: skip


def _clean(stderr: str) -> None:
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr


def _doc_count(home: Path) -> int:
    """Documents in index.db as it is on disk (read from a copy: the full disk has no room
    for this reader's shared-memory file)."""
    import shutil
    import tempfile

    copy = Path(tempfile.mkdtemp())
    for name in ("index.db", "index.db-wal"):
        if (home / name).exists():
            shutil.copyfile(home / name, copy / name)
    db = apsw.Connection(str(copy / "index.db"))
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return int(db.execute("SELECT count(*) FROM docs").fetchone()[0])
    finally:
        db.close()
        shutil.rmtree(copy)


def test_a_full_disk_is_named_and_answers_still_come(
    repo: Path, tb: Run, git_run: Run, small_home: Path, small_filesystem: Any, write_memory: Run
) -> None:
    _brain(repo, tb, git_run, write_memory, 40)
    assert tb("reindex", cwd=repo).returncode == 0
    before = _doc_count(small_home)
    _memories(write_memory, repo, 100, 40, "rollback")  # new memories the index has not seen
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "more memories", cwd=repo)
    free = small_filesystem.fill()

    reindex = tb("reindex", cwd=repo)
    assert reindex.returncode == 2, reindex.stderr
    assert "is full" in reindex.stderr and len(reindex.stderr.strip().splitlines()) == 1
    _clean(reindex.stderr)
    assert _doc_count(small_home) == before  # as it was: nothing lost, nothing half-written

    relevant = tb("relevant", "--query", "rollback dashboard", "--json", cwd=repo)
    assert relevant.returncode == 0, relevant.stderr
    assert any("rollback" in hit["title"] for hit in json.loads(relevant.stdout))
    said = [line for line in relevant.stderr.splitlines() if "is full" in line]
    assert len(said) == 1, relevant.stderr
    _clean(relevant.stderr)

    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "full-disk", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "rollback dashboard"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "memory_context", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "memory_propose", "arguments": {"draft": {
             "class": "learning", "title": "Check the dashboard after a rollback",
             "body": "After a rollback, check the dashboard before paging anyone."}}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "memory_feedback",
                    "arguments": {"id": f"01J{1:023d}", "useful": True}}},
    ]  # fmt: skip
    serve = subprocess.run(
        [str(BIN / "tb"), "serve"], cwd=repo, capture_output=True, text=True, timeout=120,
        input="".join(json.dumps(call) + "\n" for call in calls), env=os.environ, check=False,
    )  # fmt: skip
    assert serve.returncode == 0, serve.stderr
    answers = {m["id"]: m for m in map(json.loads, serve.stdout.splitlines())}
    assert not answers[2]["result"].get("isError"), answers[2]
    assert "rollback" in json.dumps(answers[2]["result"])
    assert not answers[3]["result"].get("isError"), answers[3]
    for call in (4, 5):  # they write to the home: an answer naming the full disk, or success
        result = answers[call]["result"]
        text = json.dumps(result)
        assert not result.get("isError") or "No space left on device" in text, result
        assert "internal error" not in text, result
    _clean(serve.stderr)
    assert _doc_count(small_home) == before

    free()
    again = tb("reindex", cwd=repo)
    assert again.returncode == 0, again.stderr
    assert _doc_count(small_home) == 80


def test_a_fresh_home_on_a_full_disk_still_answers(
    repo: Path, tb: Run, git_run: Run, small_home: Path, small_filesystem: Any, write_memory: Run
) -> None:
    _brain(repo, tb, git_run, write_memory, 10)
    small_home.mkdir(mode=0o700, exist_ok=True)
    small_filesystem.fill()
    relevant = tb("relevant", "--query", "deploy", cwd=repo)
    assert relevant.returncode == 0, relevant.stderr
    assert "Note 1 about deploy" in relevant.stdout
    _clean(relevant.stderr)
    reindex = tb("reindex", cwd=repo)
    assert reindex.returncode == 2 and "is full" in reindex.stderr, reindex.stderr
    _clean(reindex.stderr)
    assert not [p for p in small_home.rglob("*") if p.is_file() and p.stat().st_size == 0
                and p.name != "index.db"]  # fmt: skip
