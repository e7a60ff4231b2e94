"""The write path and time travel: what a proposal, a retirement and a look into the past cost.

Each size is a real git repository with N memories, 3,000 unrelated source files (a temporary
index is loaded from the whole base tree, so repository size matters) and a 500-commit history.
Baselines from the same run: spawning git (`git rev-parse HEAD`), `git status`, `python -c pass`
and `tb --version` (the floor of any whole-process tb verb).

- materialise: `.teambrain/` of a commit copied out of git (time travel's first step);
- commit_at: the latest first-parent commit at or before a moment, over the history;
- propose / retire: a whole proposal in-process (workspace, new file or move, lint, plumbing
  commit) — dominated by reading every memory file, which lint must do;
- proposal branches (issue 27): what the open proposals bring, with B stale `teambrain/*`
  branches (half local, half remote-tracking) — against the named baseline, the code before
  issue 27 (one `git diff` per branch not merged into the base), cold and then warm (the same
  refs: `memory_propose` in a running server); and the whole `tb propose --dry-run` with them;
- whole-process `tb propose --draft … --dry-run`, `tb relevant`, and time travel both ways:
  `--ref HEAD` (the checkout holds that brain: its warm index answers) and `--at` a moment whose
  brain differs (materialised and indexed in memory; embeddings from the warm cache).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
BIN = Path(sys.executable).parent
SIZES = [int(n) for n in os.environ.get("BENCH_SYNC_SIZES", "100,1000").split(",")]
BRANCHES = [int(n) for n in os.environ.get("BENCH_SYNC_BRANCHES", "17,200,1000").split(",")]
WORDS = [
    "cache",
    "checkout",
    "payment",
    "gateway",
    "retry",
    "timeout",
    "clock",
    "fixture",
    "database",
    "migration",
    "index",
    "deploy",
    "release",
    "queue",
    "worker",
    "token",
    "session",
    "order",
    "cart",
    "invoice",
    "refund",
    "ledger",
    "report",
    "schema",
    "lint",
    "review",
    "branch",
    "merge",
    "commit",
    "test",
    "flaky",
    "load",
    "latency",
    "budget",
]


def log(message: str) -> None:
    print(f"  · {message}", flush=True)


def timed(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, p95) milliseconds of ``repeat`` runs."""
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    return done.stdout


def build_repo(root: Path, memories: int) -> Path:
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES, MemoryFrontMatter
    from teambrain_schema.frontmatter import new_memory_text
    from teambrain_schema.ids import new_ulid
    from teambrain_schema.lint import regenerate_index
    from teambrain_schema.slugs import slugify

    rng = random.Random(memories)
    repo = root / f"repo-{memories}"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    for index in range(3000):
        path = repo / "src" / f"pkg{index % 30}" / f"module_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"VALUE = {index}\n")
    layout = BrainLayout(repo)
    layout.root.mkdir()
    layout.brain_yaml.write_text(BRAIN_YAML_TEMPLATE)
    layout.retired.mkdir()
    (layout.retired / ".gitkeep").write_text("")
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True)
    for _ in range(memories):
        memory_class = rng.choice(MEMORY_CLASSES)
        title = " ".join(rng.choice(WORDS) for _ in range(6)).capitalize()
        body = " ".join(rng.choice(WORDS) for _ in range(60)) + "."
        front = MemoryFrontMatter.model_validate(
            {"id": new_ulid(), "class": memory_class, "scope": "team", "status": "active",
             "priority": "advisory", "title": title, "created": "2026-01-01"}
        )  # fmt: skip
        path = layout.memory_path(memory_class, front.id, slugify(title))
        path.write_text(new_memory_text(front, body))
    regenerate_index(layout)
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", "brain", cwd=repo, env=_date(0))
    # History: 500 commits touching a source file, one per hour.
    commands = []
    for i in range(500):
        message, content = f"history {i}\n", f"{i}\n"
        parent = "from refs/heads/main^0\n" if i == 0 else ""
        commands.append(
            f"commit refs/heads/main\ncommitter B <b@x> {1767225600 + 3600 * (i + 1)} +0000\n"
            f"data {len(message)}\n{message}{parent}"
            f"M 100644 inline src/history.txt\ndata {len(content)}\n{content}\n"
        )
    script = "".join(commands)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=script.encode(), check=True)
    git("reset", "-q", "--hard", "main", cwd=repo)
    # The brain changes after the history: a moment inside it needs a materialised copy.
    edited = sorted(layout.memories.rglob("*.md"))[0]
    edited.write_text(edited.read_text() + "\nEdited later.\n")
    git("commit", "-q", "-am", "edit a memory", cwd=repo, env=_date(600))
    return repo


def _date(hours: int) -> dict[str, str]:
    stamp = f"@{1767225600 + 3600 * hours} +0000"
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def bench_size(root: Path, memories: int, home: Path) -> None:
    from teambrain_schema import MemoryDraft
    from teambrain_sync import (
        add_memory,
        brain_at,
        check_proposal,
        choose_target,
        commit_at,
        open_repo,
        open_workspace,
        parse_timestamp,
        propose_retirement,
        resolve_commit,
    )

    started = time.perf_counter()
    repo_path = build_repo(root, memories)
    log(
        f"{memories} memories, 3000 source files, 501 commits (built in {time.perf_counter() - started:.1f} s)"
    )
    repo = open_repo(repo_path)
    head = resolve_commit(repo, "HEAD")
    rows: list[tuple[str, float, float]] = []
    rows.append(
        (
            "baseline: git rev-parse HEAD (spawn)",
            *timed(lambda: git("rev-parse", "HEAD", cwd=repo_path), 20),
        )
    )
    rows.append(
        (
            "baseline: git status --porcelain",
            *timed(lambda: git("status", "--porcelain", cwd=repo_path), 10),
        )
    )

    def materialise() -> None:
        with brain_at(repo, head):
            pass

    rows.append(("materialise .teambrain/ of a commit", *timed(materialise, 10)))
    moment = parse_timestamp("2026-01-10T12:00:00Z")
    rows.append(("commit_at over 501 commits", *timed(lambda: commit_at(repo, moment), 20)))

    draft = MemoryDraft.model_validate(
        {"class": "learning", "title": "Benchmark proposal", "body": "Run the benchmark first."}
    )
    counter = iter(range(10_000))

    def propose() -> None:
        target = choose_target(repo)
        with open_workspace(repo, target.base) as workspace:
            add_memory(workspace, draft)
            assert check_proposal(workspace).ok
            workspace.commit(f"teambrain/bench-{next(counter)}", "bench")

    rows.append(("propose one memory (in-process, whole)", *timed(propose, 5)))
    victims = [
        p.name.split("-", 1)[0] for p in sorted((repo_path / ".teambrain/memories").rglob("*.md"))
    ]

    def retire() -> None:
        propose_retirement(
            repo, victims.pop(), "benchmark", target=choose_target(repo), patch_dir=home / "p"
        )

    rows.append(("retire one memory (in-process, whole)", *timed(retire, 5)))

    tb = str(BIN / "tb")
    git("reset", "-q", "--hard", "main", cwd=repo_path)
    draft_file = root / "draft.md"
    draft_file.write_text("---\nclass: learning\ntitle: Whole process\n---\nRun it whole.\n")
    env = {**os.environ, "TEAMBRAIN_HOME": str(home)}

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([tb, *args], cwd=repo_path, env=env, capture_output=True, check=False)

    rows.append(
        (
            "baseline: python -c pass",
            *timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), 5),
        )
    )
    rows.append(("baseline: tb --version", *timed(lambda: run("--version"), 5)))
    dry_run = ("propose", "--draft", str(draft_file), "--dry-run")
    query = ("relevant", "--query", "checkout payment retry", "--k", "5")
    # Every memory embedded first: an answer embeds at most ~2 s worth of memories and serves
    # the rest by keywords, so without this each timed run embedded another batch (2.8 s for
    # `tb relevant` at 1,000 memories, of which ~2 s was embedding).
    assert run("reindex").returncode == 0
    for warm in (dry_run, query, (*query, "--at", "2026-01-02")):
        run(*warm)
    rows.append(
        ("tb propose --draft … --dry-run (whole process)", *timed(lambda: run(*dry_run), 3))
    )
    rows.append(("tb relevant (now, warm index)", *timed(lambda: run(*query), 3)))
    rows.append(
        (
            "tb relevant --ref HEAD (checkout holds it)",
            *timed(lambda: run(*query, "--ref", "HEAD"), 3),
        )
    )
    rows.append(
        (
            "tb relevant --at … (materialised, warm cache)",
            *timed(lambda: run(*query, "--at", "2026-01-02"), 3),
        )
    )
    width = max(len(name) for name, *_ in rows)
    print(f"  {'N = ' + str(memories):<{width}}  {'median ms':>10}  {'p95 ms':>8}")
    for name, median, p95 in rows:
        print(f"  {name:<{width}}  {median:>10.1f}  {p95:>8.1f}")


def add_stale_branches(repo: Path, start: int, stop: int) -> None:
    """Proposal branches ``start``…``stop``-1 off main, each adding one memory: even ones local,
    odd ones remote-tracking only (as a fetch leaves a teammate's), made by one fast-import."""
    base = git("rev-parse", "main", cwd=repo).strip()
    commands = []
    for n in range(start, stop):
        memory_id = f"01KD{n:022d}"
        text = (
            f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: Stale lesson {n}\ncreated: 2026-01-01\n---\n\n"
            f"Lesson {n}: {' '.join(WORDS[(n + k) % len(WORDS)] for k in range(20))}.\n"
        )
        ref = (f"refs/heads/teambrain/propose-bench-{n:05d}" if n % 2 == 0
               else f"refs/remotes/origin/teambrain/propose-bench-{n:05d}")  # fmt: skip
        message = f"lesson {n}\n"
        commands.append(
            f"commit {ref}\ncommitter B <b@x> {1767225600 + n} +0000\n"
            f"data {len(message)}\n{message}from {base}\n"
            f"M 100644 inline .teambrain/memories/learnings/{memory_id}-stale-lesson-{n}.md\n"
            f"data {len(text.encode())}\n{text}\n"
        )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input="".join(commands).encode(),
                   check=True)  # fmt: skip


def baseline_pending(repo_path: Path, base: str) -> int:
    """The code before issue 27: `git for-each-ref --no-merged`, then one `git diff` per
    proposal branch for the memories it adds, then one `git cat-file --batch` of them."""
    out = git("for-each-ref", "--format=%(refname)%00%(objectname)", f"--no-merged={base}",
              "refs/heads/teambrain/", "refs/remotes/", cwd=repo_path)  # fmt: skip
    names = []
    for line in out.splitlines():
        ref, _, sha = line.partition("\x00")
        if "/teambrain/" not in ref:
            continue
        added = git("diff", "--name-only", "-z", "--no-renames", "--diff-filter=A",
                    f"{base}...{sha}", "--", ".teambrain/memories", cwd=repo_path)  # fmt: skip
        names += [f"{sha}:{path}" for path in added.split("\x00") if path]
    subprocess.run(["git", "cat-file", "--batch"], cwd=repo_path, capture_output=True,
                   input="".join(f"{n}\n" for n in names).encode(), check=True)  # fmt: skip
    return len(names)


def bench_branches(root: Path, home: Path) -> None:
    """What the open proposals bring as stale branches pile up: before and after issue 27."""
    import teambrain_sync._branches as branch_cache  # the per-process cache, emptied for "cold"
    from teambrain_sync import open_proposals, open_repo

    repo_path = build_repo(root, 100)
    repo_path = repo_path.rename(root / "repo-branches")
    repo = open_repo(repo_path)
    base = git("rev-parse", "main", cwd=repo_path).strip()
    draft_file = root / "draft-branches.md"
    draft_file.write_text("---\nclass: learning\ntitle: Branches\n---\nMany branches.\n")
    env = {**os.environ, "TEAMBRAIN_HOME": str(home)}
    dry_run = [str(BIN / "tb"), "propose", "--draft", str(draft_file), "--dry-run", "--no-push"]

    def whole() -> None:
        subprocess.run(dry_run, cwd=repo_path, env=env, capture_output=True, check=True)

    whole()  # embeddings cached, as on a machine that has proposed before
    rows: list[tuple[str, float, float]] = [
        ("whole tb propose --dry-run, no branch", *timed(whole, 3))
    ]
    made = 0
    for count in BRANCHES:
        add_stale_branches(repo_path, made, count)
        made = count
        assert baseline_pending(repo_path, base) == count

        def cold(expected: int = count) -> None:
            branch_cache._cache.clear()
            assert len(open_proposals(repo, base).open) == expected

        rows.append((f"baseline: a git diff per branch, B={count}",
                     *timed(lambda: baseline_pending(repo_path, base), 3)))  # fmt: skip
        rows.append((f"open_proposals, B={count} (cold)", *timed(cold, 3)))
        rows.append((f"open_proposals, B={count} (warm: same refs)",
                     *timed(lambda: open_proposals(repo, base), 5)))  # fmt: skip
        rows.append((f"whole tb propose --dry-run, B={count}", *timed(whole, 3)))
    width = max(len(name) for name, *_ in rows)
    print(f"  {'proposal branches':<{width}}  {'median ms':>10}  {'p95 ms':>8}")
    for name, median, p95 in rows:
        print(f"  {name:<{width}}  {median:>10.1f}  {p95:>8.1f}")


def main() -> int:
    root = Path(tempfile.mkdtemp(prefix="bench-sync-"))
    home = root / "home"
    os.environ["TEAMBRAIN_HOME"] = str(home)
    for key, value in {
        "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.test",
        "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.test",
        "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(root / "gitconfig"),
    }.items():  # fmt: skip
        os.environ[key] = value
    (root / "gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    print(f"  started {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M:%S} UTC, {os.cpu_count()} CPUs")
    try:
        bench_branches(root, home)
        for size in SIZES:
            bench_size(root, size, home)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
