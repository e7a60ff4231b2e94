"""`tb ui` and `tb show` on a 10,000-memory brain, each beside a named baseline measured in
the same run (the machine is shared: read the pairs more than the absolute numbers).

Builds the same repository as bench_sync (10,000 memories, 3,000 source files, 501 commits;
BENCH_UI_MEMORIES changes the size) with keyword search only (`retrieval.embedder.provider:
none`: embedding 10,000 memories with the local model takes a quarter of an hour here, and the
listing never reads vectors), indexes it with `tb reindex` (a warm index), queues 6 candidates,
then starts the installed `tb ui --no-browser` and times, whole requests over HTTP on
127.0.0.1:

- the address printed (process start to the first line on stdout);
- the first page (the brain, 100 rows with facets over all 10,000), asked for at once, and the
  time from process start to it served (the cold first start of the server);
- the same page again (median of several), a filtered page, a search, the stale filter (every
  memory's citations checked), one memory in full, each other view's first load;

and, as baselines: the listing `tb list --status all` makes (every memory file read and
parsed); with BENCH_UI_BASELINE_TB (another installed `tb`, e.g. main's before a change) the
same first page from that `tb ui`, started right after this one's; `tb show` resolving through
file names against `tb show` reading every file; the review queue's checks through one
retriever and one read of the brain against one of each per candidate (in-process)."""

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
CANDIDATES = 6
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
    load = os.getloadavg()
    print(f"  load average at start: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} (2 cores)")

    rows: list[tuple[str, float]] = []
    rows += in_process(repo)
    rows += first_pages(repo, env)
    load = os.getloadavg()
    print(f"  load average at the end: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    width = max(len(name) for name, _ in rows)
    print(f"  {'N = ' + str(MEMORIES):<{width}}  {'ms':>8}")
    for name, seconds in rows:
        print(f"  {name:<{width}}  {seconds * 1000:>8.0f}")
    return 0


def in_process(repo: Path) -> list[tuple[str, float]]:
    """The listing from every file; tb show by file names beside tb show reading every file;
    the queue's checks shared beside one set per candidate: A/B pairs, alternated."""
    import teambrain_cli._browse.brain as browse_module
    from teambrain_capture import queue_candidate, repo_join_key
    from teambrain_cli._browse import BrainView, MemoryFilter, list_memories, show_memory
    from teambrain_cli._proposals.queue import read_queue, review_candidate
    from teambrain_cli._ui.queue import queue_view
    from teambrain_kit.paths import BrainLayout, machine_layout
    from teambrain_retrieval import brain_catalog, open_retriever
    from teambrain_schema.brain import load_brain

    layout = BrainLayout(repo)
    view = BrainView(layout, repo)
    rows: list[tuple[str, float]] = []
    rows.append(("baseline: the listing from every file (tb list --status all)",
                 median_of(lambda: list_memories(view, MemoryFilter(status="all")), 3)))  # fmt: skip
    some_id = list_memories(view, MemoryFilter()).memories[0].id[-6:]
    fast = browse_module._brain_for

    def whole(layout: BrainLayout, given: str) -> object:
        return load_brain(layout)

    new_show, old_show = [], []
    for _ in range(3):  # alternated: the pair sees the same load
        new_show.append(timed(lambda: show_memory(view, some_id)))
        browse_module._brain_for = whole  # type: ignore[assignment]
        try:
            old_show.append(timed(lambda: show_memory(view, some_id)))
        finally:
            browse_module._brain_for = fast
    rows.append(("baseline: tb show reading every file", statistics.median(old_show)))
    rows.append(("tb show: the id from file names, its files only", statistics.median(new_show)))

    machine, key = machine_layout(), repo_join_key(repo)
    for n in range(CANDIDATES):
        draft = {"class": "learning", "title": f"Checkout retries payments {n} times",
                 "body": f"`src/shop/checkout.py` retries a declined payment {n} times."}  # fmt: skip
        queue_candidate(draft, "agent", repo=key, machine=machine)
    retriever = open_retriever(layout)
    try:
        catalog = brain_catalog(retriever)

        def per_candidate() -> object:
            queued = read_queue(machine, key, statuses=("pending",))
            return [review_candidate(c, layout=layout) for c in queued.candidates]

        def shared() -> object:
            return queue_view(machine, layout, key, retriever=retriever, catalog=catalog)

        old_queue = [timed(per_candidate)]
        new_queue = [timed(shared)]
        old_queue.append(timed(per_candidate))
        new_queue.append(timed(shared))
    finally:
        retriever.close()
    rows.append((f"baseline: the queue's checks, a retriever and a brain read per candidate "
                 f"({CANDIDATES})", min(old_queue)))  # fmt: skip
    rows.append(("the queue's checks, one retriever and one read for all", min(new_queue)))
    return rows


def first_pages(repo: Path, env: dict[str, str]) -> list[tuple[str, float]]:
    """The installed tb ui over HTTP, and the baseline tb ui's first page right after."""
    rows = serve(BIN / "tb", repo, env, "tb ui", everything=True)
    baseline = os.environ.get("BENCH_UI_BASELINE_TB")
    if baseline:
        for label, seconds in serve(Path(baseline), repo, env, "baseline tb ui", everything=False):
            rows.append((label, seconds))
        rows += serve(BIN / "tb", repo, env, "tb ui (again, after the baseline)", everything=False)
    return rows


def serve(tb: Path, repo: Path, env: dict[str, str], name: str, *, everything: bool) -> list[tuple[str, float]]:  # fmt: skip
    rows: list[tuple[str, float]] = []
    launched = time.perf_counter()
    process = subprocess.Popen(
        [tb, "ui", "--no-browser"], cwd=repo, env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip()
        printed = time.perf_counter() - launched
        port = int(url.split(":")[2].split("/")[0])
        base = "/" + url.split("/")[3]
        first = time.perf_counter()
        status, body = get(port, f"{base}/brain")
        assert status == 200 and b"memory-row" in body, status
        served = time.perf_counter()
        rows.append((f"{name}: the first page, asked for at once (100 rows, facets)", served - first))  # fmt: skip
        rows.append((f"{name}: process start to the first page served", served - launched))
        rows.append((f"{name}: the brain page again", median_of(lambda: get(port, f"{base}/brain"))))  # fmt: skip
        if not everything:
            return rows
        rows.insert(0, (f"{name}: start to the address printed", printed))
        for label, path in (
            ("a filtered page (class=decision)", "/brain?class=decision"),
            ("page 50", "/brain?page=50"),
            ("a search (keywords)", "/brain?q=payment+retry+checkout"),
        ):
            rows.append((f"{name}: {label}", median_of(lambda p=path: get(port, base + p))))  # type: ignore[misc]
        for label, path in (
            (f"the review queue, first load ({CANDIDATES} candidates)", "/queue"),
            ("the stale view, first load", "/stale"),
            ("the usage view, first load", "/usage"),
            ("the sessions view, first load", "/sessions"),
            ("the stale filter, first time (all checked)", "/brain?stale=1"),
        ):
            once = time.perf_counter()
            assert get(port, base + path)[0] == 200, path
            rows.append((f"{name}: {label}", time.perf_counter() - once))
        some = get(port, f"{base}/brain")[1].split(b"/memory/")[1].split(b'"')[0].decode()
        rows.append((f"{name}: one memory in full (tb show's service)",
                     median_of(lambda: get(port, f"{base}/memory/{some}"), 3)))  # fmt: skip
    finally:
        process.terminate()
        process.communicate(timeout=60)
    return rows


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
