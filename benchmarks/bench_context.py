"""What an agent is told first: ``memory_context()`` against labelled situations, with the real
``tb serve`` over stdio, beside ``tb relevant --paths <the files the situation touches>``.

context_world.py writes repositories of five kinds (a Python web shop, a TypeScript dashboard
monorepo, a Go ledger service; held out: a dbt/Airflow data pipeline and a Kotlin Android app),
each with a real git history by seven people whose last commits are in two "hot" areas, pushed
to a bare remote and cloned, and a brain of 520 memories written the way teams write them. Each
situation is something a person does before starting a session — edit, stage, add, rename,
delete, commit on a branch, name a branch after a topic, nothing at all — labelled with the
memories written *about* what it touches. After each situation the same server answers
``memory_context()`` and ``tb relevant --paths`` answers for the touched paths; then the clone
is reset.

Reported per set: top-3 hit rate (every expected memory among the first three relevant
memories; required memories are listed apart and never count) and MRR (1 / the rank of the
first expected memory). Sets: ``tuning`` (shop, dashboard, ledger; seed 1), ``held-out kinds``
(pipeline, mobile; seed 1) and ``held-out seeds`` (the tuning kinds, seed 2). The baseline, in
the same run: ``tb relevant --paths`` (situations with no touched path are left out of its
numbers, since it has nothing to go by).

Environment: ``BENCH_CONTEXT_SETS=tuning,held-out-kinds,held-out-seeds`` picks sets;
``BENCH_CONTEXT_BIN=/path/to/venv/bin`` measures another installation (e.g. the code before a
change); ``BENCH_CONTEXT_DETAIL=1`` prints each tuning situation's ranks (held-out sets are
only ever printed in aggregate); ``tuning-more`` (the tuning kinds, seed 3) is more situations
to tune on, not run by default. Embeddings are cached in benchmarks/.cache/context, so only
the first run pays ~5 minutes for them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_mcp_startup import RawClient
from context_projects import HELD_OUT, TUNING, Kind
from context_world import Memory, Situation, World, build_world, comment

HERE = Path(__file__).resolve().parent

BIN = Path(os.environ.get("BENCH_CONTEXT_BIN") or Path(sys.executable).parent)
CACHE = HERE / ".cache" / "context"
ME = ("Sam Doe", "sam@example.test")
CLASS_FOLDERS = {"decision": "decisions", "convention": "conventions", "map": "map",
                 "learning": "learnings"}  # fmt: skip


def _git(cwd: Path, env: dict[str, str], *args: str, who: tuple[str, str] | None = None,
         date: str | None = None) -> str:  # fmt: skip
    extra = dict(env)
    if who is not None:
        extra.update(GIT_AUTHOR_NAME=who[0], GIT_AUTHOR_EMAIL=who[1], GIT_COMMITTER_NAME=who[0],
                     GIT_COMMITTER_EMAIL=who[1])  # fmt: skip
    if date is not None:
        extra.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    done = subprocess.run(["git", *args], cwd=cwd, env=extra, capture_output=True, text=True,
                          check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _email(name: str) -> str:
    return name.split(maxsplit=1)[0].lower() + "@example.test"


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:50].strip("-") or "memory"


def _memory_file(m: Memory, created: str) -> str:
    return (
        f"---\nid: {m.id}\nclass: {m.cls}\nscope: team\nstatus: active\n"
        f"priority: {m.priority}\ntitle: {json.dumps(m.title)}\ncreated: {created}\n"
        f"supersedes: []\ntags: {json.dumps(m.tags)}\nttl_days: null\n---\n\n{m.body}\n"
    )


def _touch(path: Path, note: str) -> None:
    """Edit ``path`` the way a change would (a comment appended; JSON rewritten)."""
    text = comment(path.name, note)
    if not text:
        path.write_text(json.dumps({"note": note}) + "\n")
        return
    with path.open("a") as handle:
        handle.write(text)


def materialise(world: World, root: Path, env: dict[str, str]) -> Path:
    """The world's repository, pushed to a bare remote and cloned: the clone a person works in
    (it knows origin/HEAD, as a clone does)."""
    seed = root / "seed"
    seed.mkdir(parents=True)
    _git(seed, env, "init", "-q", "-b", "main")
    thirds = [world.memories[i::3] for i in range(3)]
    for index, commit in enumerate(world.history):
        who = (commit.author, _email(commit.author))
        if index == 0:
            for path, text in world.files.items():
                target = seed / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
        else:
            for path in commit.touched:
                _touch(seed / path, commit.subject)
        _git(seed, env, "add", "-A")
        _git(seed, env, "commit", "-q", "-m", commit.subject, who=who, date=commit.date)
        if index in world.brain_commits:
            batch = world.brain_commits.index(index)
            if batch == 0:
                subprocess.run([str(BIN / "tb"), "init"], cwd=seed, env=env, check=True,
                               capture_output=True)  # fmt: skip
            created = commit.date[:10]
            for memory in thirds[batch]:
                folder = seed / ".teambrain" / "memories" / CLASS_FOLDERS[memory.cls]
                (folder / f"{memory.id}-{_slug(memory.title)}.md").write_text(
                    _memory_file(memory, created)
                )
            _git(seed, env, "add", "-A")
            _git(seed, env, "commit", "-q", "-m", f"brain: add {len(thirds[batch])} memories",
                 who=who, date=commit.date)  # fmt: skip
    origin = root / "origin.git"
    _git(root, env, "clone", "-q", "--bare", str(seed), str(origin))
    work = root / "work"
    _git(root, env, "clone", "-q", str(origin), str(work))
    shutil.rmtree(seed)
    return work


def apply(situation: Situation, work: Path, env: dict[str, str]) -> None:
    """Put the clone in ``situation``."""
    if situation.branch is not None:
        _git(work, env, "checkout", "-q", "-b", situation.branch)
    for number, (subject, files) in enumerate(situation.commits):
        for path in files:
            _touch(work / path, subject)
        _git(work, env, "add", *files)
        _git(work, env, "commit", "-q", "-m", subject, who=ME,
             date=f"2026-07-{20 + number:02d}T10:00:00+00:00")  # fmt: skip
    for path in situation.modify:
        _touch(work / path, "work in progress")
    for path in situation.stage:
        _touch(work / path, "work in progress")
        _git(work, env, "add", path)
    for path in [*situation.add, *situation.add_staged]:
        target = work / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(comment(path, "new") or "{}\n")
    if situation.add_staged:
        _git(work, env, "add", *situation.add_staged)
    for old, new in situation.rename:
        _git(work, env, "mv", old, new)
    for old, new in situation.rename_unstaged:
        (work / old).rename(work / new)
    if situation.delete:
        _git(work, env, "rm", "-q", *situation.delete)
    for path in situation.delete_unstaged:
        (work / path).unlink()


def reset(situation: Situation, work: Path, env: dict[str, str]) -> None:
    _git(work, env, "checkout", "-q", "-f", "main")
    _git(work, env, "reset", "-q", "--hard", "origin/main")
    _git(work, env, "clean", "-q", "-fd")
    if situation.branch is not None:
        _git(work, env, "branch", "-q", "-D", situation.branch)


@dataclass
class Outcome:
    situation: str
    kind: str
    expected: list[str]
    context: list[str]  # relevant ids, in order
    paths: list[str] | None  # tb relevant --paths ids (required left out), None: no paths
    why: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def _call(client: RawClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = client.request("tools/call", {"name": tool, "arguments": arguments})
    if result.get("isError"):
        raise RuntimeError(f"{tool}: {result}")
    structured: dict[str, Any] = result["structuredContent"]
    return structured


def _settled(client: RawClient) -> None:
    """Call until an answer is complete (the model loaded, every memory embedded)."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        answer = _call(client, "memory_context", {})
        if answer.get("coverage") is None:
            return
        time.sleep(0.5)
    raise RuntimeError("the server never gave a complete answer")


def paths_ranking(
    work: Path, env: dict[str, str], paths: list[str], required: set[str]
) -> list[str]:
    done = subprocess.run(
        [str(BIN / "tb"), "relevant", "--paths", *paths, "--k", "50", "--json"],
        cwd=work, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"tb relevant --paths: {done.stderr.strip()}")
    return [m["id"] for m in json.loads(done.stdout) if m["id"] not in required]


def run_world(world: World, root: Path, env: dict[str, str]) -> list[Outcome]:
    work = materialise(world, root, env)
    subprocess.run([str(BIN / "tb"), "reindex"], cwd=work, env=env, check=True,
                   capture_output=True)  # fmt: skip
    required = set(world.required)
    outcomes = []
    client = RawClient([str(BIN / "tb"), "serve"], work, env)
    try:
        client.handshake_and_list()
        _settled(client)
        for situation in world.situations:
            apply(situation, work, env)
            try:
                started = time.perf_counter()
                answer = _call(client, "memory_context", {})
                seconds = time.perf_counter() - started
                relevant = [m["id"] for m in answer["relevant"]]
                why = {m["id"]: m.get("why") for m in answer["relevant"][:5]}
                touched = situation.touched()
                paths = paths_ranking(work, env, touched, required) if touched else None
                outcomes.append(Outcome(situation.name, situation.kind, situation.expected,
                                        relevant, paths, why, seconds))  # fmt: skip
            finally:
                reset(situation, work, env)
    finally:
        client.close()
    shutil.rmtree(root, ignore_errors=True)
    return outcomes


def ranks(expected: list[str], ranking: list[str]) -> list[int | None]:
    where = {memory_id: i for i, memory_id in enumerate(ranking, start=1)}
    return [where.get(memory_id) for memory_id in expected]


def summary(outcomes: list[Outcome], which: str) -> tuple[int, int, float]:
    """(situations with every expected memory in the top 3, situations counted, MRR)."""
    hits, counted, reciprocal = 0, 0, 0.0
    for outcome in outcomes:
        ranking = outcome.context if which == "context" else outcome.paths
        if ranking is None:
            continue
        found = ranks(outcome.expected, ranking)
        counted += 1
        hits += all(r is not None and r <= 3 for r in found)
        best = min((r for r in found if r is not None), default=None)
        reciprocal += 1.0 / best if best else 0.0
    return hits, counted, (reciprocal / counted if counted else 0.0)


def forget_documents(index_db: Path) -> None:
    """Drop the cached index's documents (the repositories are written anew each run) and keep
    its embeddings: each run indexes the brains as a new machine would, without re-embedding
    texts it has seen."""
    if not index_db.exists():
        return
    import apsw

    db = apsw.Connection(str(index_db))
    try:
        with db:
            for table in ("docs", "files", "brains", "scan_digests"):
                with contextlib.suppress(apsw.SQLError):  # an older index without that table
                    db.execute(f"DELETE FROM {table}")
    finally:
        db.close()
    shutil.rmtree(index_db.parent / "cache", ignore_errors=True)


def sets() -> dict[str, list[tuple[Kind, int]]]:
    wanted = os.environ.get("BENCH_CONTEXT_SETS", "tuning,held-out-kinds,held-out-seeds")
    every = {
        "tuning": [(kind, 1) for kind in TUNING],
        "held-out-kinds": [(kind, 1) for kind in HELD_OUT],
        "held-out-seeds": [(kind, 2) for kind in TUNING],
        "tuning-more": [(kind, 3) for kind in TUNING],  # more to tune on, never the held out
    }
    return {name: every[name] for name in wanted.split(",") if name in every}


def main() -> int:
    CACHE.mkdir(parents=True, exist_ok=True)
    tag = re.sub(r"[^A-Za-z0-9]+", "-", str(BIN.resolve()))[-60:]
    home = CACHE / f"home-{tag}"
    base = {**os.environ, "TEAMBRAIN_HOME": str(home), "HOME": str(CACHE / "user-home"),
            "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    base.pop("TEAMBRAIN_DEBUG", None)
    (CACHE / "user-home").mkdir(exist_ok=True)
    forget_documents(home / "index.db")
    detail = os.environ.get("BENCH_CONTEXT_DETAIL") == "1"
    print(f"memory_context on labelled situations ({BIN / 'tb'}); top-3 = every expected memory "
          "among the first three relevant ones")  # fmt: skip
    results: dict[str, list[Outcome]] = {}
    for set_name, worlds in sets().items():
        outcomes: list[Outcome] = []
        for kind, seed in worlds:
            world = build_world(kind, seed)
            root = CACHE / "repos" / tag / f"{kind.name}-{seed}"  # two installations at once
            shutil.rmtree(root, ignore_errors=True)
            started = time.perf_counter()
            found = run_world(world, root, base)
            outcomes += found
            hits, counted, mrr = summary(found, "context")
            print(f"  {set_name:<15} {kind.name:<10} seed {seed}: {len(world.memories)} memories, "
                  f"{len(found)} situations, memory_context top-3 {hits}/{counted}, MRR {mrr:.2f} "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)  # fmt: skip
            if detail and set_name.startswith("tuning"):
                titles = {m.id: m.title for m in world.memories}
                for outcome in found:
                    print(f"      {outcome.situation:<28} context {ranks(outcome.expected, outcome.context)} "
                          f"paths {ranks(outcome.expected, outcome.paths) if outcome.paths is not None else '-'}")  # fmt: skip
                    if not all(
                        r is not None and r <= 3 for r in ranks(outcome.expected, outcome.context)
                    ):
                        for memory_id in outcome.context[:3]:
                            print(
                                f"          got {titles.get(memory_id, memory_id)[:60]!r} why={outcome.why.get(memory_id)}"
                            )
                        for memory_id in outcome.expected:
                            print(f"          want {titles.get(memory_id, memory_id)[:60]!r}")
        results[set_name] = outcomes
    print()
    print(
        f"  {'set':<15} {'situations':>10}  {'memory_context top-3':>21} {'MRR':>5}   "
        f"{'baseline: tb relevant --paths top-3':>36} {'MRR':>5}"
    )
    for set_name, outcomes in results.items():
        c_hits, c_n, c_mrr = summary(outcomes, "context")
        p_hits, p_n, p_mrr = summary(outcomes, "paths")
        print(f"  {set_name:<15} {len(outcomes):>10}  {c_hits:>4}/{c_n:<3} = {c_hits / max(c_n, 1):4.2f}"
              f"      {c_mrr:5.2f}   {p_hits:>19}/{p_n:<3} = {p_hits / max(p_n, 1):4.2f}"
              f"       {p_mrr:5.2f}")  # fmt: skip
    every = [o for outcomes in results.values() for o in outcomes]
    if every:
        print(
            f"  memory_context over stdio, warm: median {statistics.median(o.seconds for o in every) * 1000:.0f} ms per call"
        )
    print(json.dumps({name: {"context": summary(o, "context"), "paths": summary(o, "paths")}
                      for name, o in results.items()}), file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
