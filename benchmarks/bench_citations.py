"""Citations against real git history: how many a memory has, how often a memory is called stale
when its code is fine (false-stale) or not called stale when it is broken (missed), whether
renames are followed, what a check costs, and what the check adds to a warm search at 1,000
memories against the same search without it (the baseline), in the same run.

Two repositories: the demo's (its app and brain, before and after the refactor `make demo`
makes), and one scripted here — 120 modules in 12 packages, 1,000 memories citing them (paths,
folders, globs, module.symbol names, make targets, evidence commits), then a history of
renames, deletions, symbol renames and a rebased-away commit with a known ground truth. And two
hand-labelled corpora: code names (names_corpus.py) and commands (commands_corpus.py), each
with its false-stale and missed rates.
"""

from __future__ import annotations

import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packages" / "retrieval" / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from teambrain_kit.citation_checker import CitationChecker  # noqa: E402
from teambrain_kit.citations import extract_citations  # noqa: E402
from teambrain_schema.ids import new_ulid  # noqa: E402


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def memory_file(memory_id: str, title: str, body: str, commits: list[str]) -> str:
    evidence = f"evidence:\n  commits: [{', '.join(commits)}]\n" if commits else ""
    return (
        f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
        f"priority: advisory\ntitle: {title}\ncreated: 2026-11-16\n{evidence}---\n\n{body}\n"
    )


# ---------------------------------------------------------------- the demo


def demo() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "shop"
        shutil.copytree(ROOT / "demo" / "app", repo)
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "app")
        bodies = [
            path.read_text("utf-8").split("---", 2)[2]
            for path in sorted((ROOT / "demo" / "brain" / "memories").rglob("*.md"))
        ]
        counts = [len(extract_citations(body)) for body in bodies]
        before = sum(bool(CitationChecker(repo).check(extract_citations(b))) for b in bodies)
        git(repo, "mv", "src/shop/checkout", "src/shop/basket")
        git(repo, "commit", "-qm", "refactor")
        checker = CitationChecker(repo)
        found = [checker.check(extract_citations(b)) for b in bodies]
        after = sum(bool(f) for f in found)
        followed = sum(1 for f in found for s in f if s.moved_to)
        print(
            f"demo brain ({len(bodies)} memories over demo/app): {statistics.mean(counts):.1f} "
            f"citations per memory ({sum(counts)} in all); stale before the refactor "
            f"{before}/{len(bodies)} (false-stale), after `git mv src/shop/checkout "
            f"src/shop/basket` {after} (the map memory; rename followed for {followed} citation)"
        )


# ---------------------------------------------------------------- a scripted history


def scripted(memories: int = 1000, seed: int = 7) -> None:
    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench-citations-"))
    try:
        repo = tmp / "repo"
        packages = [f"pkg{p}" for p in range(12)]
        modules = [(pkg, f"mod{m}") for pkg in packages for m in range(10)]
        for pkg, mod in modules:
            folder = repo / "src" / "app" / pkg
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "__init__.py").touch()
            (folder / f"{mod}.py").write_text(module_text(pkg, mod), "utf-8")
        (repo / "Makefile").write_text(
            "test:\n\tpytest\nlint:\n\truff .\nbuild:\n\tpython -m build\n"
        )
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "code")
        dropped_commit = None
        (repo / "NOTES").write_text("x\n")
        git(repo, "add", "NOTES")
        git(repo, "commit", "-qm", "a commit that a rebase will drop")
        dropped_commit = git(repo, "rev-parse", "HEAD")
        kept_commit = git(repo, "rev-parse", "HEAD~1")

        # Memories: each cites 1-4 things; the ground truth is computed from the history below.
        specs = []
        for _ in range(memories):
            cites: list[tuple[str, tuple[str, ...]]] = []
            for _cite in range(rng.randint(1, 4)):
                pkg, mod = rng.choice(modules)
                kind = rng.choice(KINDS)
                cites.append(
                    (
                        kind,
                        (
                            pkg,
                            mod,
                            str(rng.randrange(5)),
                            rng.choice(["test", "lint", "build"]),
                        ),
                    )
                )
            commits = (
                [dropped_commit if rng.random() < 0.02 else kept_commit]
                if rng.random() < 0.3
                else []
            )
            specs.append((new_ulid(), cites, commits))

        bodies = []
        for memory_id, cites, commits in specs:
            body = "Notes: " + "; ".join(text_of(k, v) for k, v in cites) + "."
            bodies.append((memory_id, body, commits, cites))
        counts = [len(extract_citations(body, commits)) for _, body, commits, _ in bodies]
        # The memories are committed before the code changes: what they cite was there then.
        folder = repo / ".teambrain" / "memories" / "learnings"
        folder.mkdir(parents=True)
        paths = {}
        for memory_id, body, commits, _ in bodies:
            paths[memory_id] = f".teambrain/memories/learnings/{memory_id}-note.md"
            (repo / paths[memory_id]).write_text(
                memory_file(memory_id, f"Note {memory_id[-6:]}", body, commits), "utf-8"
            )
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "memories")
        # Code merged after the memories that describe it (their PR merged first, and they
        # name no evidence commit): `late_<mod>()`, removed again below from some modules.
        for pkg, mod in modules:
            path = repo / "src" / "app" / pkg / f"{mod}.py"
            path.write_text(path.read_text() + f"\n\ndef late_{pkg}_{mod}():\n    return 9\n")
        git(repo, "commit", "-qam", "late code")

        # History: rename 2 packages, move 10 modules, delete 6, rename 8 functions, 6 methods
        # and 2 classes, drop the build target, and rebase away one commit.
        renamed_pkgs = {packages[0]: "renamed0", packages[1]: "renamed1"}
        for old, new in renamed_pkgs.items():
            git(repo, "mv", f"src/app/{old}", f"src/app/{new}")
        live = [(p, m) for p, m in modules if p not in renamed_pkgs]
        moved = dict.fromkeys(rng.sample(live, 10))
        for pkg, mod in moved:
            git(repo, "mv", f"src/app/{pkg}/{mod}.py", f"src/app/{pkg}/{mod}_v2.py")
        deleted = set(rng.sample([m for m in live if m not in moved], 6))
        for pkg, mod in deleted:
            git(repo, "rm", "-q", f"src/app/{pkg}/{mod}.py")
        untouched = [m for m in live if m not in moved and m not in deleted]
        renamed_fns = {}
        for pkg, mod in rng.sample(untouched, 8):
            path = repo / "src" / "app" / pkg / f"{mod}.py"
            path.write_text(
                path.read_text().replace(f"def {pkg}_{mod}_f0(", f"def {pkg}_{mod}_g0(")
            )
            renamed_fns[(pkg, mod)] = f"{pkg}_{mod}_f0"
        late_removed = set(rng.sample(untouched, 20))
        for pkg, mod in late_removed:
            path = repo / "src" / "app" / pkg / f"{mod}.py"
            path.write_text(
                path.read_text().replace(f"def late_{pkg}_{mod}():\n    return 9\n", "")
            )
        renamed_methods = set(rng.sample(untouched, 6))
        for pkg, mod in renamed_methods:
            path = repo / "src" / "app" / pkg / f"{mod}.py"
            path.write_text(path.read_text().replace("def run_0(", "def execute_0("))
        renamed_classes = set(rng.sample([m for m in untouched if m not in renamed_methods], 2))
        for pkg, mod in renamed_classes:
            path = repo / "src" / "app" / pkg / f"{mod}.py"
            path.write_text(path.read_text().replace(service(pkg, mod), f"Renamed{pkg}{mod}"))
        (repo / "Makefile").write_text("test:\n\tpytest\nlint:\n\truff .\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "refactor")
        git(repo, "reset", "-q", "--soft", "HEAD~1")  # rebase the refactor onto the base…
        git(repo, "stash", "-q")
        git(repo, "reset", "-q", "--hard", "HEAD~3")  # …dropping the NOTES commit
        for commit in ("stash@{0}^1~1", "stash@{0}^1"):  # the memories and the late code again
            git(repo, "cherry-pick", git(repo, "rev-parse", commit))
        git(repo, "stash", "pop", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "refactor (rebased)")

        def broken(kind: str, values: tuple[str, ...]) -> bool:
            pkg, mod, index, target = values
            gone = pkg in renamed_pkgs or (pkg, mod) in moved or (pkg, mod) in deleted
            if kind == "make":
                return target == "build"
            if kind in ("folder", "glob"):
                return pkg in renamed_pkgs
            if kind in ("file", "prose", "symbol"):
                return gone or (
                    kind == "symbol" and renamed_fns.get((pkg, mod)) == f"{pkg}_{mod}_f{index}"
                )
            if kind == "name":  # `fn()` next to its file
                return gone or renamed_fns.get((pkg, mod)) == f"{pkg}_{mod}_f{index}"
            if kind == "late":  # a name added after the memory, then removed
                return gone or (pkg, mod) in late_removed
            if kind == "method":  # `Class.run_i` next to its file
                return (
                    gone
                    or (index == "0" and (pkg, mod) in renamed_methods)
                    or ((pkg, mod) in renamed_classes)
                )
            if kind == "member":  # `Class.run_i` with no file: found wherever the class is
                return (
                    ((pkg, mod) in deleted)
                    or (index == "0" and (pkg, mod) in renamed_methods)
                    or ((pkg, mod) in renamed_classes)
                )
            if kind == "inherited":  # `Class.model_dump`: the class can go, the method never was
                return gone or (pkg, mod) in renamed_classes
            # Never definitions of the cited file: a library's function it calls, a setting.
            # Stale only through the file citation beside them.
            return gone if kind in ("called", "setting") else False

        def path_broken(values: tuple[str, ...]) -> bool:
            pkg, mod = values[0], values[1]
            return pkg in renamed_pkgs or (pkg, mod) in moved or (pkg, mod) in deleted

        checker = CitationChecker(repo)
        false_stale = missed = truly_stale = flagged = 0
        names = {"false": 0, "missed": 0, "stale": 0, "fresh": 0}
        moves_found = moves_expected = 0
        started = time.perf_counter()
        results = checker.check_all(
            [(extract_citations(body, commits), paths[memory_id])
             for memory_id, body, commits, _ in bodies]
        )  # fmt: skip
        cold_ms = (time.perf_counter() - started) * 1000 / len(bodies)
        for (_id, _body, _commits, cites), found in zip(bodies, results, strict=True):
            truth = any(broken(k, v) for k, v in cites)  # evidence commits are never stale
            truly_stale += truth
            flagged += bool(found)
            false_stale += bool(found) and not truth
            missed += truth and not found
            name_kinds = [(k, v) for k, v in cites if k in NAME_KINDS]
            if name_kinds:
                name_truth = any(broken(k, v) and not path_broken(v) for k, v in name_kinds)
                name_found = any(s.citation.kind in ("name", "member") for s in found)
                if name_truth:
                    names["stale"] += 1
                    names["missed"] += not name_found
                    if not name_found and DEBUG:
                        print(
                            "MISSED", _body, [(k, v) for k, v in name_kinds if broken(k, v)], found
                        )
                elif not any(path_broken(v) for _, v in name_kinds):
                    names["fresh"] += 1
                    names["false"] += name_found
                    if name_found and DEBUG:
                        print("FALSE", _body, found)
            for kind, values in cites:
                pkg, mod = values[0], values[1]
                if kind in ("file", "folder") and pkg in renamed_pkgs:
                    moves_expected += 1
                    moves_found += any(
                        s.moved_to and renamed_pkgs[pkg] in s.moved_to for s in found
                    )

        fresh = len(bodies) - truly_stale
        asked = [(body, commits, paths[memory_id]) for memory_id, body, commits, _ in bodies]
        checker.stale_reasons(asked)
        checker.stale_reasons(asked)
        started = time.perf_counter()
        for _ in range(5):
            checker.stale_reasons(asked)
        warm_us = (time.perf_counter() - started) * 1e6 / (5 * len(bodies))
        print(
            f"scripted history ({len(bodies)} memories, {len(modules)} modules; renamed 2 packages, "
            f"moved 10 modules, deleted 6, renamed 8 functions, 6 methods and 2 classes, removed "
            f"20 functions merged after the memories citing them, dropped a make target and "
            f"rebased away an evidence commit): {statistics.mean(counts):.2f} "
            f"citations per memory; stale {truly_stale}, fresh {fresh}; flagged {flagged}: "
            f"false-stale {false_stale}/{fresh} ({false_stale / max(1, fresh):.1%}), missed "
            f"{missed}/{truly_stale} ({missed / max(1, truly_stale):.1%}); renames followed for "
            f"{moves_found}/{moves_expected} path citations into a renamed package"
        )
        print(
            f"names as people cite them (`fn()`, `Class.method` next to its file or alone, with "
            f"library calls, inherited methods and settings that were never defined there), in "
            f"memories whose files still exist: false-stale {names['false']}/{names['fresh']} "
            f"({names['false'] / max(1, names['fresh']):.1%}), missed {names['missed']}/"
            f"{names['stale']} ({names['missed'] / max(1, names['stale']):.1%})"
        )
        print(
            f"time per check: {cold_ms:.2f} ms per memory cold (extraction, stats, git's rename "
            "log, the memories' history and old file versions once, in batches), "
            f"{warm_us:.1f} µs per memory served again (cached until git's index or HEAD moves)"
        )
        overhead(repo, bodies)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


DEBUG = False
KINDS = [
    "file", "folder", "symbol", "glob", "make", "prose", "name", "method", "member", "called",
    "inherited", "setting", "late",
]  # fmt: skip
NAME_KINDS = ("name", "method", "member", "called", "inherited", "setting", "late")


def service(pkg: str, mod: str) -> str:
    return f"{pkg.capitalize()}{mod.capitalize()}Service"


def module_text(pkg: str, mod: str) -> str:
    functions = "".join(f"def {pkg}_{mod}_f{i}():\n    return {i}\n\n\n" for i in range(5))
    methods = "".join(f"    def run_{i}(self):\n        return {i}\n\n" for i in range(5))
    return (
        f"# {pkg}.{mod}\nfrom shared.money import format_cents\n\n\n{functions}"
        f"class {service(pkg, mod)}(BaseModel):\n{methods}\n"
        f"def total():\n    return format_cents({pkg}_{mod}_f1())\n"
    )


def text_of(kind: str, values: tuple[str, ...]) -> str:
    pkg, mod, index, target = values
    file = f"`src/app/{pkg}/{mod}.py`"
    return {
        "file": file,
        "folder": f"`src/app/{pkg}/`",
        "symbol": f"`app.{pkg}.{mod}.{pkg}_{mod}_f{index}`",
        "glob": f"`src/app/{pkg}/*.py`",
        "make": f"`make {target}`",
        "prose": f"the code in src/app/{pkg}/{mod}.py",
        "name": f"`{pkg}_{mod}_f{index}()` in {file}",
        "method": f"`{service(pkg, mod)}.run_{index}` ({file})",
        "member": f"`{service(pkg, mod)}.run_{index}`",
        "called": f"{file} calls `format_cents()`",
        "inherited": f"`{service(pkg, mod)}.model_dump` in {file}",
        "setting": f"`max_retry_count` for {file}",
        "late": f"`late_{pkg}_{mod}()` in {file}",
    }[kind]


def overhead(repo: Path, bodies: list[tuple[str, str, list[str], object]]) -> None:
    """Warm in-process search at 1,000 memories with the citation check, against the same
    retriever with the check switched off (the baseline), alternating, same queries."""
    from teambrain_kit.paths import MachineLayout
    from teambrain_retrieval import HashEmbedder, RetrieverOptions, open_retriever
    from teambrain_retrieval._search._hits import HitBuilder
    from teambrain_schema import BRAIN_YAML_TEMPLATE

    from conftest import memory_text  # the retrieval tests' memory writer

    brain = repo / ".teambrain"
    (brain / "memories" / "learnings").mkdir(parents=True, exist_ok=True)
    (brain / "retired").mkdir(exist_ok=True)
    (brain / "brain.yaml").write_text(BRAIN_YAML_TEMPLATE, "utf-8")
    for memory_id, body, _, _ in bodies:
        (brain / "memories" / "learnings" / f"{memory_id}-note.md").write_text(
            memory_text(memory_id, f"Note {memory_id[-6:]}", body), "utf-8"
        )
    home = MachineLayout(repo.parent / "home")
    from teambrain_kit.paths import BrainLayout

    options = RetrieverOptions(
        embedder=HashEmbedder(), warn=lambda _m: None, refresh_interval=3600.0
    )
    retriever = open_retriever(BrainLayout(repo), options, home=home)
    retriever.rebuild()
    queries = [f"notes code pkg{p} mod{m}" for p in range(12) for m in range(10)][:60]
    cold = []
    for query in queries[:20]:  # a new checker each time: what a new process pays once
        retriever._checker = None
        started = time.perf_counter()
        retriever.search(query, 8)
        cold.append((time.perf_counter() - started) * 1000)
    for query in queries:  # every memory the timed searches return, checked once
        retriever.search(query, 8)
    original = HitBuilder._with_staleness
    timings: dict[str, list[float]] = {"with": [], "without": []}
    for round_ in range(3):
        for mode in ("with", "without") if round_ % 2 == 0 else ("without", "with"):
            if mode == "without":
                HitBuilder._with_staleness = lambda self, hits, own: hits  # type: ignore[method-assign]
            else:
                HitBuilder._with_staleness = original  # type: ignore[method-assign]
            for query in queries:
                started = time.perf_counter()
                retriever.search(query, 8)
                timings[mode].append((time.perf_counter() - started) * 1000)
    HitBuilder._with_staleness = original  # type: ignore[method-assign]
    with_ms, without_ms = statistics.median(timings["with"]), statistics.median(timings["without"])
    print(
        f"warm search at 1,000 memories: {with_ms:.2f} ms p50 with the citation check vs "
        f"{without_ms:.2f} ms without (baseline): +{with_ms - without_ms:.2f} ms (target ≤ 1 ms); "
        f"the first search of a new checker (files listed, renames, the memories' history and "
        f"old file versions read): {statistics.median(cold):.1f} ms p50"
    )
    retriever.close()


def evidence(branches: int = 60, seed: int = 11) -> None:
    """A team's month: feature branches merged with each of GitHub's three styles (and some
    abandoned), each cited as evidence by a memory; the feature branches deleted after merging,
    as GitHub does. How many evidence commits are followed to what they became, how many are
    unverifiable, how many the old check called stale (all but the merge commits'), and what
    following them costs."""
    from teambrain_kit import evidence as _evidence

    rng = random.Random(seed)
    tmp = Path(tempfile.mkdtemp(prefix="bench-evidence-"))
    try:
        repo = tmp / "repo"
        (repo / "src").mkdir(parents=True)
        for index in range(40):
            (repo / "src" / f"m{index}.py").write_text(f"V = {index}\n", "utf-8")
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "code")
        styles = ["merge", "squash-listed", "squash", "rebase", "abandoned"]
        cited: list[tuple[str, str, bool]] = []  # (commit, style, is the branch tip)
        for number in range(branches):
            style = rng.choice(styles)
            git(repo, "checkout", "-qb", f"f{number}", "main")
            commits = []
            for step in range(rng.randint(1, 3)):
                path = repo / "src" / f"m{rng.randrange(40)}.py"
                path.write_text(path.read_text() + f"W{number}_{step} = 1\n", "utf-8")
                git(repo, "commit", "-qam", f"feature {number} step {step}")
                commits.append(git(repo, "rev-parse", "HEAD"))
            git(repo, "checkout", "-q", "main")
            if rng.random() < 0.5:  # main moves on in between
                (repo / "src" / f"main{number}.py").write_text("X = 1\n", "utf-8")
                git(repo, "add", "-A")
                git(repo, "commit", "-qm", f"main {number}")
            if style == "merge":
                git(
                    repo,
                    "merge",
                    "-q",
                    "--no-ff",
                    "-m",
                    f"Merge pull request #{number}",
                    f"f{number}",
                )
            elif style.startswith("squash"):
                git(repo, "merge", "-q", "--squash", f"f{number}")
                listed = "".join(f"\n\n* feature {number} step {i}" for i in range(len(commits)))
                git(
                    repo,
                    "commit",
                    "-qm",
                    f"Feature {number} (#{number})" + (listed if style == "squash-listed" else ""),
                )
            elif style == "rebase":
                git(repo, "rebase", "-q", "main", f"f{number}")
                git(repo, "checkout", "-q", "main")
                git(repo, "merge", "-q", "--ff-only", f"f{number}")
            git(repo, "branch", "-qD", f"f{number}")
            pick = rng.randrange(len(commits))
            cited.append((commits[pick], style, pick == len(commits) - 1))
        missing = [f"{rng.getrandbits(160):040x}" for _ in range(10)]
        head = git(repo, "rev-parse", "HEAD")
        shas = [sha for sha, _, _ in cited] + missing
        old_stale = sum(
            subprocess.run(
                ["git", "merge-base", "--is-ancestor", sha, "HEAD"], cwd=repo, capture_output=True,
                check=False,
            ).returncode != 0
            for sha in shas
        )  # fmt: skip
        calls = 0
        original = _evidence.git_output

        def counting(*args: object, **kwargs: object) -> bytes | None:
            nonlocal calls
            calls += 1
            return original(*args, **kwargs)  # type: ignore[arg-type]

        _evidence.git_output = counting  # type: ignore[assignment]
        _evidence._PATCH_IDS.clear()
        started = time.perf_counter()
        fates = _evidence.evidence_fates(repo, shas, [head])
        cold_ms = (time.perf_counter() - started) * 1000
        _evidence.git_output = original  # type: ignore[assignment]
        by_style: dict[str, list[str]] = {}
        for sha, style, tip in cited:
            key = f"{style}{'' if tip or not style.startswith('squash') else ' (not the tip)'}"
            by_style.setdefault(key, []).append(fates[sha].state)
        by_style["not in this clone"] = [fates[sha].state for sha in missing]
        parts = []
        for style, states in sorted(by_style.items()):
            counted = {state: states.count(state) for state in dict.fromkeys(states)}
            parts.append(f"{style}: " + ", ".join(f"{n} {state}" for state, n in counted.items()))
        print(
            f"evidence after merges ({len(cited)} feature branches, deleted after merging, + 10 "
            f"commits never fetched): " + "; ".join(parts)
        )
        rewritten = sum(f.state == "rewritten" for f in fates.values())
        expected = sum(
            1 for sha, style, tip in cited
            if fates[sha].state != "reachable"
            and (style in ("rebase", "squash-listed") or (style == "squash" and tip))
        )  # fmt: skip
        print(
            f"followed {rewritten}/{expected} rewritten commits a tip or a listing identifies; "
            f'stale now 0 (the old check: {old_stale} of {len(shas)} "not reachable"/"not in '
            f'the repository"); {calls} git processes and {cold_ms:.0f} ms for all '
            f"{len(shas)} at once, cold"
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def labelled() -> None:
    """The hand-labelled corpus (benchmarks/names_corpus.py): each memory written against the
    file before a change, checked after it; false-stale and missed rates, and the cases."""
    from names_corpus import CASES

    false_stale: list[str] = []
    missed: list[str] = []
    stale = sum(1 for case in CASES if case[5])
    with tempfile.TemporaryDirectory() as tmp:
        for number, (label, path, before, after, body, truth) in enumerate(CASES):
            repo = Path(tmp) / f"r{number}"
            (repo / path).parent.mkdir(parents=True)
            (repo / path).write_text(before, "utf-8")
            subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", "code")
            memory = ".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F03-m.md"
            (repo / memory).parent.mkdir(parents=True)
            (repo / memory).write_text(memory_file("01KB2F0A1S9Y4Q7V3C8D5E6F03", "m", body, []))
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", "memory")
            (repo / path).write_text(after, "utf-8")
            git(repo, "commit", "-qam", "change")
            found = CitationChecker(repo).check(extract_citations(body), memory)
            if found and not truth:
                false_stale.append(f"{label}: {found[0].reason}")
            if truth and not found:
                missed.append(label)
    fresh = len(CASES) - stale
    print(
        f"hand-labelled names ({len(CASES)} memories over Python, TypeScript, Go, Java, Ruby, "
        f"shell and Rust: renames and removals, and edits that must not count — a signature "
        f"wrapped, a decorator, a definition moved and imported, a library's function, an "
        f"inherited method, a setting): false-stale {len(false_stale)}/{fresh} "
        f"({len(false_stale) / max(1, fresh):.1%}), missed {len(missed)}/{stale} "
        f"({len(missed) / max(1, stale):.1%})"
        + "".join(f"\n  false-stale: {line}" for line in false_stale)
        + "".join(f"\n  missed: {line}" for line in missed)
    )


def commands() -> None:
    """The hand-labelled corpus of commands (benchmarks/commands_corpus.py): each memory checked
    before its repository changes and after; false-stale and missed rates of this checker, and
    of the baseline measured in the same run — the citations of the same memories without the
    files commands read (the checker before issue 42 point 7)."""
    from commands_corpus import CASES
    from teambrain_kit.citations import _without_fences

    def baseline(body: str) -> list[object]:
        return [c for c in extract_citations(_without_fences(body)) if c.kind != "argument"]

    results: dict[str, tuple[list[str], list[str]]] = {"commands cited": ([], []),
                                                        "baseline": ([], [])}  # fmt: skip
    stale = sum(1 for case in CASES if case[4])
    with tempfile.TemporaryDirectory() as tmp:
        for number, (label, files, change, body, truth) in enumerate(CASES):
            repo = Path(tmp) / f"c{number}"
            for path in files:
                (repo / path).parent.mkdir(parents=True, exist_ok=True)
                (repo / path).write_text(f"# {path}\n", "utf-8")
            (repo / "package.json").write_text('{"scripts": {"test": "jest"}}\n')
            (repo / "Makefile").write_text("test:\n\tpytest\n")
            subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", "code")
            found_before = {
                name: CitationChecker(repo).check(extract(body))  # type: ignore[arg-type]
                for name, extract in (("commands cited", extract_citations), ("baseline", baseline))
            }
            for step in change:
                if step[0] == "mv":
                    (repo / step[2]).parent.mkdir(parents=True, exist_ok=True)
                    git(repo, "mv", step[1], step[2])
                else:
                    git(repo, "rm", "-rq", step[1])
            if change:
                git(repo, "commit", "-qm", "change")
            for name, extract in (("commands cited", extract_citations), ("baseline", baseline)):
                false_stale, missed = results[name]
                found = CitationChecker(repo).check(extract(body))  # type: ignore[arg-type]
                if found_before[name]:
                    false_stale.append(
                        f"{label} (before the change): {found_before[name][0].reason}"
                    )
                elif found and not truth:
                    false_stale.append(f"{label}: {found[0].reason}")
                if truth and not found:
                    missed.append(label)
    fresh = len(CASES) - stale
    for name, (false_stale, missed) in results.items():
        print(
            f"hand-labelled commands, {name} ({len(CASES)} memories citing commands in backticks "
            f"and fenced blocks: files moved or deleted, and what need not exist — outputs, build "
            f"folders, new files, subprojects, examples): false-stale {len(false_stale)}/{fresh} "
            f"({len(false_stale) / max(1, fresh):.1%}), missed {len(missed)}/{stale} "
            f"({len(missed) / max(1, stale):.1%})"
            + "".join(f"\n  false-stale: {line}" for line in false_stale)
            + ("".join(f"\n  missed: {line}" for line in missed) if name != "baseline" else "")
        )


def main() -> None:
    demo()
    scripted()
    labelled()
    commands()
    evidence()


if __name__ == "__main__":
    main()
