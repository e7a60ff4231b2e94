"""The first thing every agent is told: the first ``memory_context`` of a fresh ``tb serve`` in a
warm home (index.db built and every memory embedded; the model not loaded in the new process),
against the same call on a server whose model is already loaded (the baseline, same run).

The repository is the shop of context_world.py (520 memories, a real history, a clone of a
bare remote) with a session at work on a topical branch and a modified file. Each run spawns
``tb serve``, answers the handshake, then calls ``memory_context`` at once, as an agent tool
does: timed from the request (and from spawn). The baseline spawns a server, calls
``memory_search`` (which loads the model) and times its first ``memory_context``. Runs are
interleaved; medians are printed with the machine's load average (2 cores, shared).

``BENCH_FIRST_BIN=/path/to/venv/bin`` measures another installation (the code before a change).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_context import CACHE, forget_documents, materialise
from bench_mcp_startup import RawClient
from context_projects import SHOP
from context_world import build_world

BIN = Path(os.environ.get("BENCH_FIRST_BIN") or Path(sys.executable).parent)
RUNS = int(os.environ.get("BENCH_FIRST_RUNS", "5"))


def call(client: RawClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.request("tools/call", {"name": tool, "arguments": arguments})
    assert not result.get("isError"), result
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def first_context(
    work: Path, env: dict[str, str], *, model_loaded: bool
) -> tuple[float, float, bool, list[str]]:
    """(seconds from the request to the answer, from spawn, partial?, the first relevant ids)."""
    client = RawClient([str(BIN / "tb"), "serve"], work, env)
    try:
        client.handshake_and_list()
        if model_loaded:
            call(client, "memory_search", {"query": "refunds"})  # loads the model
        started = time.perf_counter()
        answer = call(client, "memory_context", {})
        done = time.perf_counter()
        return (done - started, done - client.started, answer.get("coverage") is not None,
                [m["id"] for m in answer["relevant"][:3]])  # fmt: skip
    finally:
        client.close()


def main() -> int:
    CACHE.mkdir(parents=True, exist_ok=True)
    tag = "".join(c if c.isalnum() else "-" for c in str(BIN.resolve()))[-60:]
    home = CACHE / f"first-home-{tag}"
    env = {**os.environ, "TEAMBRAIN_HOME": str(home), "HOME": str(CACHE / "user-home"),
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    env.pop("TEAMBRAIN_DEBUG", None)
    (CACHE / "user-home").mkdir(exist_ok=True)
    forget_documents(home / "index.db")
    root = CACHE / "repos" / "first-answer"
    shutil.rmtree(root, ignore_errors=True)
    world = build_world(SHOP, 1)
    work = materialise(world, root, env)
    subprocess.run([str(BIN / "tb"), "reindex"], cwd=work, env=env, check=True,
                   capture_output=True)  # fmt: skip
    subprocess.run(["git", "checkout", "-q", "-b", "fix/zanzibar-refunds"], cwd=work, env=env,
                   check=True)  # fmt: skip
    with (work / "src/shop/payments/refunds.py").open("a") as handle:
        handle.write("# the whole amount\n")
    first_context(work, env, model_loaded=True)  # untimed: the OS file cache, the live view
    cold: list[tuple[float, float, bool, list[str]]] = []
    warm: list[tuple[float, float, bool, list[str]]] = []
    for _ in range(RUNS):
        cold.append(first_context(work, env, model_loaded=False))
        warm.append(first_context(work, env, model_loaded=True))
    load = os.getloadavg()[0]
    print(f"first memory_context of a tb serve in a warm home ({len(world.memories)} memories; "
          f"{BIN / 'tb'}; median of {RUNS}; load average {load:.1f} on {os.cpu_count()} cores)")  # fmt: skip
    c_req = statistics.median(r[0] for r in cold)
    c_spawn = statistics.median(r[1] for r in cold)
    w_req = statistics.median(r[0] for r in warm)
    partial = sum(r[2] for r in cold)
    print(f"  model not loaded (an agent's first call)   {c_req * 1000:7.0f} ms from the request, "
          f"{c_spawn * 1000:6.0f} ms from spawn; partial in {partial} of {RUNS}")  # fmt: skip
    print(f"  baseline: model already loaded             {w_req * 1000:7.0f} ms from the request")
    same = sum(set(c[3]) == set(w[3]) for c, w in zip(cold, warm, strict=True))
    print(f"  same first three relevant memories (in any order) in {same} of {RUNS} runs")
    print(json.dumps({"first_ms": round(c_req * 1000), "first_from_spawn_ms": round(c_spawn * 1000),
                      "loaded_ms": round(w_req * 1000), "partial": partial, "load": load}),
          file=sys.stderr)  # fmt: skip
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
