"""What the local model's session costs a one-shot command: whole-process ``tb relevant`` and
``tb reindex`` on the demo brain, each in a fresh ``TEAMBRAIN_HOME`` for reindex, against the
same commands with the session optimised as ``tb serve`` and ``tb ui`` create it
(``favour_query_speed()`` called first: the baseline, what every command did before). Then the
query embedding itself in process, both ways: what a server gains per query for its slower
start.

Prints the median CPU (user + system, the process and its children) and wall time of each.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_mcp_startup import demo_repository

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
RUNS = int(os.environ.get("BENCH_RUNS", "7"))
QUERY = "why does the checkout timeout test fail sometimes?"
# The baseline: the same console script, with the session a server asks for.
OPTIMISED = (
    "import sys; from teambrain_retrieval import favour_query_speed; favour_query_speed(); "
    "from teambrain_cli._main import main; sys.argv[0] = 'tb'; sys.exit(main())"
)


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``command``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def row(label: str, samples: list[tuple[float, float]]) -> str:
    cpu = statistics.median(s[0] for s in samples) * 1000
    wall = statistics.median(s[1] for s in samples) * 1000
    return f"| {label} | {cpu:,.0f} ms | {wall:,.0f} ms |"


def in_process() -> list[str]:
    import onnxruntime  # noqa: F401  (imported before timing)
    from teambrain_retrieval import LocalOnnxEmbedder, favour_query_speed, make_embedder
    from teambrain_schema import EmbedderConfig

    lines = []
    for label in ("one-shot session", "optimised session (tb serve, tb ui)"):
        if label.startswith("optimised"):
            favour_query_speed()
        started = time.process_time()
        embedder = make_embedder(EmbedderConfig(), ROOT)
        assert isinstance(embedder, LocalOnnxEmbedder)
        embedder.load()
        load = time.process_time() - started
        embedder.embed_query(QUERY)
        times = []
        for _ in range(30):
            started = time.process_time()
            embedder.embed_query(QUERY)
            times.append(time.process_time() - started)
        lines.append(f"| {label} | {load * 1000:,.0f} ms | "
                     f"{statistics.median(times) * 1000:.1f} ms |")  # fmt: skip
    return lines


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="bench-model-start-"))
    try:
        env = {
            **os.environ, "HOME": str(work / "user-home"), "TEAMBRAIN_HOME": str(work / "home"),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
        }  # fmt: skip
        env.pop("TEAMBRAIN_DEBUG", None)
        (work / "user-home").mkdir()
        repo = demo_repository(work, env)  # indexed, so `tb relevant` only searches
        tb = [str(BIN / "tb")]
        optimised = [sys.executable, "-c", OPTIMISED]
        samples: dict[str, list[tuple[float, float]]] = {}
        for run in range(RUNS):  # the two alternate, run by run
            for name, command in (("tb", tb), ("baseline", optimised)):
                relevant = [*command, "relevant", "--query", QUERY, "--k", "3"]
                samples.setdefault(f"relevant {name}", []).append(timed(relevant, repo, env))
                fresh = {**env, "TEAMBRAIN_HOME": str(work / f"home-{name}-{run}")}
                samples.setdefault(f"reindex {name}", []).append(
                    timed([*command, "reindex"], repo, fresh)
                )
        print(f"Whole process, median of {RUNS} runs each (the demo brain, 7 memories):\n")
        print("| command | CPU | wall |\n|---|---|---|")
        for verb in ("relevant", "reindex"):
            print(row(f"`tb {verb}` (one-shot session)", samples[f"{verb} tb"]))
            print(row(f"`tb {verb}`, baseline: optimised session", samples[f"{verb} baseline"]))
        print("\nIn process: creating the session, then one query's embedding (median of 30):\n")
        print("| session | create (CPU) | a query (CPU) |\n|---|---|---|")
        for line in in_process():
            print(line)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
