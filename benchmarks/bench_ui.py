"""`tb ui` on a 10,000-memory brain: how long the first page takes, beside the listing it
replaces (reading and parsing every memory file, as `tb list` does), measured in the same run.

Builds the same repository as bench_sync (10,000 memories, 3,000 source files, 501 commits;
BENCH_UI_MEMORIES changes the size) with keyword search only (`retrieval.embedder.provider:
none`: embedding 10,000 memories with the local model takes a quarter of an hour here, and the
listing never reads vectors), indexes it with `tb reindex`, then starts the installed `tb ui
--no-browser` and times, whole requests over HTTP on 127.0.0.1:

- the address printed (process start to the first line on stdout);
- the first page (the brain, 100 rows with facets over all 10,000), asked for at once;
- the same page again (median of several), a filtered page, a search, the stale filter (every
  memory's citations checked), one memory in full;

and, as the baseline, the listing `tb list --status all` makes (every memory file read and
parsed, citations checked), in-process, median of several.
"""

from __future__ import annotations

import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_sync import build_repo, git  # noqa: E402 - the same repository as the sync benchmark

MEMORIES = int(os.environ.get("BENCH_UI_MEMORIES", "10000"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
BIN = Path(sys.executable).parent


def median_of(action: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        connection.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="bench-ui-"))
    home = root / "home"
    env = {
        **os.environ, "TEAMBRAIN_HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(root / "gitconfig"),
        "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.test",
        "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.test",
    }  # fmt: skip
    os.environ.update(env)
    (root / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    started = time.perf_counter()
    repo = build_repo(root, MEMORIES)
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(brain_yaml.read_text().replace("provider: local", "provider: none"))
    git("commit", "-q", "-am", "keyword search only", cwd=repo)
    done = subprocess.run([BIN / "tb", "reindex"], cwd=repo, env=env, capture_output=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    print(f"  {MEMORIES} memories built and indexed in {time.perf_counter() - started:.0f} s")

    from teambrain_cli._browse import BrainView, MemoryFilter, list_memories
    from teambrain_schema.paths import BrainLayout

    view = BrainView(BrainLayout(repo), repo)
    rows: list[tuple[str, float]] = []
    rows.append(("baseline: the listing from every file (tb list --status all)",
                 median_of(lambda: list_memories(view, MemoryFilter(status="all")), 3)))  # fmt: skip
    some_id = list_memories(view, MemoryFilter()).memories[0].id

    launched = time.perf_counter()
    process = subprocess.Popen(
        [BIN / "tb", "ui", "--no-browser"], cwd=repo, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        rows.append(("tb ui: start to the address printed", time.perf_counter() - launched))
        port = int(url.split(":")[2].split("/")[0])
        base = "/" + url.split("/")[3]
        first = time.perf_counter()
        status, body = get(port, f"{base}/brain")
        assert status == 200 and b"memory-row" in body, status
        rows.append(
            ("tb ui: the first page (100 of all rows, facets)", time.perf_counter() - first)
        )
        rows.append(("tb ui: start to the first page served", time.perf_counter() - launched))
        for label, path in (
            ("the brain page again", "/brain"),
            ("a filtered page (class=decision)", "/brain?class=decision"),
            ("page 50", "/brain?page=50"),
            ("a search (keywords)", "/brain?q=payment+retry+checkout"),
        ):
            rows.append((f"tb ui: {label}", median_of(lambda p=path: get(port, base + p))))  # type: ignore[misc]
        once = time.perf_counter()
        assert get(port, f"{base}/brain?stale=1")[0] == 200
        rows.append(
            ("tb ui: the stale filter, first time (all checked)", time.perf_counter() - once)
        )
        rows.append(("tb ui: one memory in full (tb show's service)",
                     median_of(lambda: get(port, f"{base}/memory/{some_id}"), 3)))  # fmt: skip
    finally:
        process.terminate()
        process.communicate(timeout=60)
    width = max(len(name) for name, _ in rows)
    print(f"  {'N = ' + str(MEMORIES):<{width}}  {'ms':>8}")
    for name, seconds in rows:
        print(f"  {name:<{width}}  {seconds * 1000:>8.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
