"""A newcomer's cold start on a large brain: time to the first ``memory_context`` answer and
to a brain fully embedded, at 500 and 5,000 memories, with the real ``tb serve`` over stdio and
the bundled local model, in a fresh ``TEAMBRAIN_HOME`` (nothing cached).

The first answer embeds what it can within its budget (2 s) and says how much of the brain it
covered (``coverage``, and a line in its text); the server embeds the rest between answers. The
agent calls ``memory_search`` every 0.5 s until the answer is complete. Baselines, in the same
run: ``tb reindex`` on the same brain in another fresh home — the explicit way to embed a
whole brain before anyone asks — and the first answer of a server started again on the home the
first one filled (a warm start: nothing left to index or embed).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mcp_startup import BIN, RawClient

SIZES = tuple(int(n) for n in os.environ.get("BENCH_COLD_SIZES", "500,5000").split(","))
POLL_S = 0.5
TOPICS = [
    "payments", "checkout", "retries", "cache", "migrations", "logging", "deploys", "tests",
    "fixtures", "tenants", "invoices", "webhooks", "queues", "search", "auth", "sessions",
]  # fmt: skip
VERBS = ["retry", "log", "cache", "validate", "round", "lock", "batch", "stream", "page", "sign"]


def brain(work: Path, count: int, env: dict[str, str], seed: int = 3) -> Path:
    """A repository whose committed brain holds ``count`` memories of varied prose."""
    rng = random.Random(seed)
    repo = work / f"repo-{count}"
    repo.mkdir()
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.test"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, env=env, check=True)
    subprocess.run([str(BIN / "tb"), "init"], cwd=repo, env=env, check=True, capture_output=True)
    folder = repo / ".teambrain" / "memories" / "learnings"
    for index in range(count):
        topic, other = rng.sample(TOPICS, 2)
        verb = rng.choice(VERBS)
        memory_id = f"01KD{index:022d}"
        body = (
            f"When {topic} touch {other}, {verb} before writing: rule {index}. "
            f"The {topic} service owns this; see the {other} runbook for the {verb} budget."
        )
        (folder / f"{memory_id}-{topic}-{index}.md").write_text(
            f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: {topic.title()} and {other} rule {index}\n"
            f"created: 2026-11-16\n---\n\n{body}\n",
            "utf-8",
        )
    subprocess.run([*git, "add", "-A"], cwd=repo, env=env, check=True)
    subprocess.run([*git, "commit", "-qm", "brain"], cwd=repo, env=env, check=True)
    return repo


def call(client: RawClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.request("tools/call", {"name": tool, "arguments": arguments})
    assert not result.get("isError"), result
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def cold_start(repo: Path, env: dict[str, str]) -> tuple[float, dict[str, Any], float, int]:
    """(seconds to the first memory_context answer from spawn, its coverage, seconds until an
    answer is complete, calls made meanwhile)."""
    client = RawClient([str(BIN / "tb"), "serve"], repo, env)
    try:
        client.handshake_and_list()
        first = call(client, "memory_context", {})
        first_s = time.perf_counter() - client.started
        coverage = first.get("coverage") or {}
        calls = 1
        while first.get("coverage") is not None:
            time.sleep(POLL_S)
            first = call(client, "memory_search", {"query": "payments retry budget"})
            calls += 1
        return first_s, coverage, time.perf_counter() - client.started, calls
    finally:
        client.close()


def warm_first_answer(repo: Path, env: dict[str, str]) -> float:
    client = RawClient([str(BIN / "tb"), "serve"], repo, env)
    try:
        client.handshake_and_list()
        answer = call(client, "memory_context", {})
        coverage = answer.get("coverage")  # complete, or only waiting for the model to load
        assert coverage is None or "still loading" in coverage["note"], coverage
        return time.perf_counter() - client.started
    finally:
        client.close()


def reindex_seconds(repo: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([str(BIN / "tb"), "reindex"], cwd=repo, env=env, check=True,
                   capture_output=True)  # fmt: skip
    return time.perf_counter() - started


def main() -> int:
    print("cold start on a large brain: tb serve over stdio, local model, a fresh home each")
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp:
        work = Path(tmp)
        base = {**os.environ, "HOME": str(work)}
        base.pop("TEAMBRAIN_DEBUG", None)
        for count in SIZES:
            setup = {**base, "TEAMBRAIN_HOME": str(work / f"setup-{count}")}
            repo = brain(work, count, setup)
            env = {**base, "TEAMBRAIN_HOME": str(work / f"serve-{count}")}
            first_s, coverage, full_s, calls = cold_start(repo, env)
            warm_s = warm_first_answer(repo, env)
            baseline = reindex_seconds(repo, {**base, "TEAMBRAIN_HOME": str(work / f"re-{count}")})
            said = (
                f"said partial: {coverage['embedded']} of {coverage['memories']} embedded"
                if coverage
                else "complete at once"
            )
            print(
                f"  {count:>5} memories: first memory_context {first_s:5.1f} s from spawn "
                f"({said}; baseline, a warm start: {warm_s:4.1f} s); fully embedded "
                f"{full_s:5.1f} s from spawn, answering all along ({calls} calls; baseline "
                f"`tb reindex` in a fresh home {baseline:5.1f} s)"
            )
            shutil.rmtree(repo, ignore_errors=True)
            print(json.dumps({"memories": count, "first_s": round(first_s, 2),
                              "warm_s": round(warm_s, 2), "full_s": round(full_s, 2),
                              "reindex_s": round(baseline, 2)}), file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
