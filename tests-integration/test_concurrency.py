"""Many teambrain processes on one fresh brain at once, as a team's laptop has them: ``tb
reindex`` run by hand, ``tb relevant`` from scripts, and agent sessions' ``tb serve`` answering
``memory_search`` — 4 + 4 + 2 on a fresh 600-memory brain (large enough that the
first build is still running when the last process starts). Every one answers (exit 0) with the answer the settled
brain gives, none reports "internal error" or "database is locked", and the work is done once: the others wait
for it (work locks) and find it done."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import apsw

Run = Callable[..., Any]
BIN = Path(sys.executable).parent
WORDS = ["deploy", "rollback", "cache", "queue", "payments", "invoice", "retry", "timeout", "schema", "migration", "index", "search", "token", "session", "branch", "commit", "review", "merge", "lint", "test", "build", "release", "docker", "helm", "metrics", "alert", "dashboard", "logging", "tracing", "auth", "oauth", "secret", "rotate", "key", "backup"]  # fmt: skip
COUNT = 600
CLASSES = {"learnings": "learning", "conventions": "convention", "decisions": "decision"}


def _brain(repo: Path, tb: Run, git_run: Run, memory_file: Run) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace("provider: local", "provider: none"))
    folders = list(CLASSES)
    for n in range(COUNT):
        folder = folders[n % 3]
        title = " ".join(WORDS[(n * k) % len(WORDS)] for k in (1, 3, 7)).capitalize()
        body = " ".join(WORDS[(n * k + 5) % len(WORDS)] for k in range(1, 40))
        memory_file(repo, f"01J{n:023d}", f"{title} {n}", f"{body}.", folder=folder,
                    memory_class=CLASSES[folder])  # fmt: skip
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", f"{COUNT} memories", cwd=repo)


def _serve_lines(queries: list[str]) -> str:
    calls: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "load", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]  # fmt: skip
    for n, query in enumerate(queries, start=1):
        calls.append({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                      "params": {"name": "memory_search", "arguments": {"query": query}}})  # fmt: skip
    return "".join(json.dumps(call) + "\n" for call in calls)


def _found(stdout: str) -> list[list[str]]:
    """The ids each ``memory_search`` answered in a ``tb serve`` transcript, in call order."""
    answers = [json.loads(line) for line in stdout.splitlines()]
    results = [a["result"] for a in sorted(answers, key=lambda a: a["id"]) if a["id"] > 0]
    assert results and not any(r.get("isError") for r in results), answers
    found = [[hit["id"] for hit in r["structuredContent"]["results"]] for r in results]
    assert all(found), answers
    return found


def test_reindexes_relevants_and_servers_at_once_all_answer(
    repo: Path, tb: Run, git_run: Run, teambrain_home: Path, write_memory: Run
) -> None:
    _brain(repo, tb, git_run, write_memory)
    env = dict(os.environ)
    tb_bin = str(BIN / "tb")
    queries = ["deploy rollback", "cache timeout", "oauth secret rotate"]
    started = time.monotonic()
    processes: list[tuple[str, subprocess.Popen[str]]] = []
    for n in range(4):
        processes.append((f"reindex {n}", subprocess.Popen(
            [tb_bin, "reindex"], cwd=repo, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)))  # fmt: skip
        processes.append((f"relevant {n}", subprocess.Popen(
            [tb_bin, "relevant", "--query", queries[n % 3], "--json"], cwd=repo, env=env,
            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))  # fmt: skip
    servers = [subprocess.Popen(
        [tb_bin, "serve"], cwd=repo, env=env, text=True, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]  # fmt: skip
    outcomes = [(name, *process.communicate(timeout=600), process.returncode)
                for name, process in processes]  # fmt: skip
    outcomes += [(f"serve {n}", *server.communicate(_serve_lines(queries), timeout=600),
                  server.returncode) for n, server in enumerate(servers)]  # fmt: skip
    elapsed = time.monotonic() - started
    # What each query answers on the settled brain, one process at a time: the answers given
    # under load must be the same ones (contention may slow an answer, never change it).
    settled = {
        query: [hit["id"] for hit in json.loads(tb("relevant", "--query", query, "--json",
                                                    cwd=repo).stdout)]
        for query in queries
    }  # fmt: skip
    quiet = subprocess.run([tb_bin, "serve"], cwd=repo, env=env, text=True, capture_output=True,
                           input=_serve_lines(queries), timeout=300, check=True)  # fmt: skip
    searched = dict(zip(queries, _found(quiet.stdout), strict=True))
    for name, out, err, code in outcomes:
        assert code == 0, (name, code, err)
        for words in ("internal error", "database is locked", "BusyError", "Traceback"):
            assert words not in err and words not in out, (name, err)
        if name.startswith("relevant"):
            query = queries[int(name.split()[1]) % 3]
            assert [hit["id"] for hit in json.loads(out)] == settled[query], name
        if name.startswith("serve"):
            found = _found(out)
            assert found == [searched[query] for query in queries], (name, found)
    db = apsw.Connection(str(teambrain_home / "index.db"))
    # tb serve indexes its live view (the default branch with this checkout on top) as a brain
    # of its own, "<repository>#live": each brain holds every memory once.
    counts = dict(db.execute("SELECT brain, count(*) FROM docs GROUP BY brain").fetchall())
    assert counts and set(counts.values()) == {COUNT}, counts
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    print(f"10 processes on a fresh {COUNT}-memory brain: {elapsed:.1f} s")
