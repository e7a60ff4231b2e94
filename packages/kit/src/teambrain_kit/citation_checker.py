"""Whether the code still says what a memory's citations say: :class:`CitationChecker` checks
them against the repository — its working tree, or one commit — and names what no longer holds:
a path or glob that matches nothing (and where git's rename detection says it went), a symbol
absent from the module it names, a function or method renamed or removed from the file it is
cited next to, a ``make`` target no Makefile defines. Evidence commits are never stale: what a
squash or rebase merge made of them is followed (:meth:`CitationChecker.evidence`). Stdlib
only; git through the one runner (:mod:`teambrain_kit.git`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from .citations import _SHA, Citation, _is_code_file, extract_citations
from .code_names import defines, mentions
from .evidence import EvidenceFate, evidence_fates
from .git import git_output, git_path, read_git_blobs
from .globmatch import glob_matcher
from .local_files import read_file_within
from .paths import composed_form

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["CitationChecker", "StaleCitation"]

_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.%/-]+(?:[ \t]+[A-Za-z0-9_.%/-]+)*)[ \t]*::?(?!=)")
_FILES_TTL_S = 2.0
_NAMES = ("member", "name")
_MAX_GREP_REVS = 16  # old commits searched at once for a class no file defines any more
_BLOB_CACHE_MAX = 4096
# A cited file is read up to 1 MB (the working tree's first 1 MB; a larger file at a commit is not
# read): a commit can hold a file of gigabytes.
_MAX_CITED_BYTES = 1 << 20


@dataclass(frozen=True)
class StaleCitation:
    """A citation that no longer holds, why (one line), and where a moved path went."""

    citation: Citation
    reason: str
    moved_to: str | None = None


@dataclass
class _HistoryFacts:
    """What is known of commits while HEAD and the default branch stay where they are (git's
    index and the working tree may move): kept across snapshots."""

    targets: tuple[str, ...]
    commits: dict[str, EvidenceFate] = field(default_factory=dict)  # evidence commit -> fate
    ancestors: dict[str, bool] = field(default_factory=dict)  # commit -> in the served past
    # memory file -> (commit, time) of the commits that wrote it, newest first
    history: dict[str, tuple[tuple[str, int], ...]] | None = None
    # file -> (since, [(commit time, lines removed)]) in the history served
    removed: dict[str, tuple[int, list[tuple[int, str]]]] = field(default_factory=dict)


@dataclass
class _Snapshot:
    files: frozenset[str]
    dirs: frozenset[str]
    names: frozenset[str]
    taken: float
    key: tuple[object, ...]
    cost: float = 0.0
    renames: list[tuple[str, str]] | None = None
    texts: dict[str, str | None] = field(default_factory=dict)
    makefiles: dict[str, frozenset[str] | None] = field(default_factory=dict)
    python: dict[str, list[str]] | None = None
    packages: frozenset[str] | None = None  # names of folders that hold Python files
    by_name: dict[str, list[str]] | None = None
    reasons: dict[tuple[str, tuple[str, ...], str | None], tuple[str, ...]] = field(
        default_factory=dict
    )
    facts: _HistoryFacts = field(default_factory=lambda: _HistoryFacts(()))
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> defining files
    class_index: dict[str, list[str]] | None = None  # class-like name -> files that may define it
    # files, dirs and names in Unicode's composed form (NFC), built when a citation needs it
    composed: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None
    # every path's tails ("api/tests/x.py" → "tests/x.py", "x.py"): where a command run in a
    # subfolder finds what it names; built when a command's argument needs it
    tails: frozenset[str] | None = None


def _composed(snap: _Snapshot) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The snapshot's names compared in composed form: a file macOS created holds "é" as "e"
    plus a combining accent, a memory typed elsewhere the single character (and both look
    alike), so comparing the stored bytes called a file that is there missing."""
    if snap.composed is None:
        snap.composed = (
            frozenset(map(composed_form, snap.files)),
            frozenset(map(composed_form, snap.dirs)),
            frozenset(map(composed_form, snap.names)),
        )
    return snap.composed


class CitationChecker:
    """Checks citations against the repository at ``repo_root``: its working tree as git sees
    it (tracked files not deleted, untracked ones it does not ignore), or, with ``commit``,
    that commit's tree. What it reads and finds is kept until git's index or HEAD moves or a
    file appears or disappears (looked at again at most every ~2 s)."""

    def __init__(self, repo_root: Path, commit: str | None = None) -> None:
        self.repo_root = repo_root
        self.commit = commit
        self._snapshot: _Snapshot | None = None
        self._blob_cache: dict[tuple[str, str], str | None] = {}
        self._facts: _HistoryFacts | None = None

    # ------------------------------------------------------------------ what the repository holds

    def _key(self) -> tuple[object, ...]:
        from .gitdir import default_branch, git_state_stamps

        # The default branch as last fetched counts too: a fetch can bring the merge that
        # carried an evidence commit.
        return (*git_state_stamps(str(self.repo_root)), default_branch(str(self.repo_root)))

    def _current(self) -> _Snapshot | None:
        now = time.monotonic()
        snap = self._snapshot
        # Listing a large repository again takes at most ~2% of the time (2 s at least).
        fresh_for = max(_FILES_TTL_S, 50 * snap.cost) if snap is not None else 0.0
        if snap is not None and (
            self.commit is not None or (now - snap.taken < fresh_for and snap.key == self._key())
        ):
            return snap
        key = self._key() if self.commit is None else ()
        started = time.perf_counter()
        files = self._list_files()
        cost = time.perf_counter() - started
        if files is None:
            self._snapshot = None
            return None
        if snap is not None and snap.key == key and snap.files == files:
            snap.taken, snap.cost = now, cost  # nothing moved: keep what was read and checked
            return snap
        dirs: set[str] = set()
        for name in files:
            parent = name.rpartition("/")[0]
            while parent and parent not in dirs:
                dirs.add(parent)
                parent = parent.rpartition("/")[0]
        names = frozenset(name.rpartition("/")[2] for name in files)
        self._snapshot = _Snapshot(files, frozenset(dirs), names, now, key, cost=cost)
        self._share_history_facts(self._snapshot)
        return self._snapshot

    def _share_history_facts(self, snap: _Snapshot) -> None:
        """Facts about commits (what became of an evidence commit, which commits wrote a
        memory, which are in the past) depend on HEAD and the default branch only: kept
        while those stay, however often git's index or the working tree moves."""
        targets = tuple(self._targets())
        if self._facts is None or self._facts.targets != targets:
            self._facts = _HistoryFacts(targets)
        snap.facts = self._facts

    def _list_files(self) -> frozenset[str] | None:
        """The files of the working tree as git sees them (tracked and not deleted, plus
        untracked ones it does not ignore), or of the commit."""
        if self.commit is not None:
            out = git_output(
                ["ls-tree", "-r", "-z", "--name-only", "--full-tree", self.commit],
                cwd=self.repo_root, timeout=10,
            )  # fmt: skip
            if out is None:
                return None
            names = out.decode("utf-8", "surrogateescape").split("\0")
            return frozenset(n for n in names if n and git_path(n) is not None)
        out = git_output(
            ["ls-files", "-z", "-t", "--cached", "--deleted", "--others", "--exclude-standard"],
            cwd=self.repo_root, timeout=10,
        )  # fmt: skip
        if out is None:
            return None
        present: set[str] = set()
        deleted: set[str] = set()
        for entry in out.decode("utf-8", "surrogateescape").split("\0"):
            tag, _, name = entry.partition(" ")
            if name and git_path(name) is not None:  # the one check of a path from git
                (deleted if tag == "R" else present).add(name)
        return frozenset(present - deleted)

    def _exists(self, snap: _Snapshot, path: str) -> bool:
        bare = path.rstrip("/")
        if "/" not in bare:
            if bare in snap.names or bare in snap.dirs:
                return True
        elif bare in snap.files or bare in snap.dirs:
            return True
        elif self.commit is None and os.path.lexists(self.repo_root / bare):
            return True  # an ignored file (build output, a local .env) exists in the tree too
        if bare.isascii():
            return False
        # "café" typed (composed) for a file macOS named decomposed, or the other way round.
        files, dirs, names = _composed(snap)
        bare = composed_form(bare)
        return (
            (bare in names or bare in dirs) if "/" not in bare else (bare in files or bare in dirs)
        )

    def _text(self, snap: _Snapshot, path: str) -> str | None:
        if path not in snap.texts:
            data: bytes | None
            if self.commit is None:
                try:  # a cited file may be a committed link to /dev/stdin or a FIFO
                    data = read_file_within(
                        self.repo_root / path,
                        self.repo_root,
                        max_bytes=_MAX_CITED_BYTES,
                        truncate=True,
                    )
                except OSError:
                    data = None
            else:
                [data] = read_git_blobs(
                    [f"{self.commit}:{path}"], cwd=self.repo_root, max_bytes=_MAX_CITED_BYTES,
                    timeout=10,
                )  # fmt: skip
            snap.texts[path] = data.decode("utf-8", "replace") if data is not None else None
        return snap.texts[path]

    def _renames(self, snap: _Snapshot) -> list[tuple[str, str]]:
        """(old, new) paths git's rename detection finds in HEAD's recent history, oldest first."""
        if snap.renames is None:
            rev = self.commit or "HEAD"
            # -z: names as they are (without it git quotes any name with a non-ASCII byte).
            out = git_output(
                ["log", "-M", "--diff-filter=R", "--name-status", "--format=", "-z", "-n", "500",
                 rev],
                cwd=self.repo_root, timeout=10,
            )  # fmt: skip
            fields = (out or b"").decode("utf-8", "surrogateescape").split("\0")
            pairs = []
            index = 0
            while index < len(fields):  # status, then one name (two for a rename or copy)
                status = fields[index].strip()
                if not status:
                    index += 1
                elif status[0] in "RC" and index + 2 < len(fields):
                    was, now = fields[index + 1], fields[index + 2]
                    if status[0] == "R" and git_path(was) and git_path(now) is not None:
                        pairs.append((was, now))
                    index += 3
                else:
                    index += 2
            snap.renames = list(reversed(pairs))
        return snap.renames

    def moved_to(self, path: str) -> str | None:
        """Where git says ``path`` (a file, or a folder with or without its trailing slash)
        went, when it exists there now; None when git has no such rename."""
        snap = self._current()
        return None if snap is None else self._moved_to(snap, path)

    def _moved_to(self, snap: _Snapshot, path: str) -> str | None:
        folder = path.endswith("/")
        current = path.rstrip("/")
        for was, new in self._renames(snap):
            old, here = composed_form(was), composed_form(current)
            if old == here:
                current = new
            elif old.startswith(here + "/"):
                rest = old[len(here) + 1 :]
                parts = new.split("/")
                depth = rest.count("/") + 1
                if len(parts) > depth and composed_form("/".join(parts[-depth:])) == rest:
                    current = "/".join(parts[:-depth])  # spelled as git has it
        unmoved = composed_form(current) == composed_form(path.rstrip("/"))
        if unmoved or not self._exists(snap, current):
            return None
        return current + "/" if folder else current

    # ------------------------------------------------------------------ checks

    def check(
        self, citations: Iterable[Citation], memory_path: str | None = None
    ) -> list[StaleCitation]:
        """The citations that no longer hold (empty when none, or when there is no git).
        ``memory_path`` (the memory file, relative to the repository) lets a cited name be
        compared with the code as it was when the memory was written."""
        snap = self._current()
        return [] if snap is None else self._check_all(snap, [(list(citations), memory_path)])[0]

    def check_all(
        self, memories: Sequence[tuple[Sequence[Citation], str | None]]
    ) -> list[list[StaleCitation]]:
        """:meth:`check` for many memories at once: what they need from git's history (old
        versions of cited files, where classes are defined) is read in a few batches."""
        snap = self._current()
        if snap is None:
            return [[] for _ in memories]
        return self._check_all(snap, [(list(c), path) for c, path in memories])

    def evidence(self, commits: Iterable[str]) -> list[EvidenceFate]:
        """What became of each evidence commit that is not simply in the history: followed to
        the commit a squash or rebase merge made of it, or unverifiable. Never stale."""
        snap = self._current()
        if snap is None:
            return []
        wanted = [sha for sha in commits if _SHA.match(sha)]
        self._resolve_commits(snap, wanted)
        fates = (snap.facts.commits.get(sha) for sha in dict.fromkeys(wanted))
        return [fate for fate in fates if fate is not None and fate.state != "reachable"]

    def prepare(self, commits: Iterable[str]) -> None:
        """Follow all these evidence commits at once (a few git processes for any number),
        before checking the memories that cite them one by one."""
        snap = self._current()
        if snap is not None:
            self._resolve_commits(snap, [sha for sha in commits if _SHA.match(sha)])

    def _targets(self) -> list[str]:
        """The commits whose history counts for evidence: the default branch as last fetched
        (where merges land), then HEAD; the commit asked for when there is one."""
        if self.commit is not None:
            return [self.commit]
        from .gitdir import default_branch, find_git, read_head_sha

        root = str(self.repo_root)
        found = default_branch(root)
        targets = [found[1]] if found else []
        dirs = find_git(root)
        head = read_head_sha(dirs[1], dirs[2]) if dirs else None
        if head is None:  # a reftable repository: ask git
            out = git_output(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd=root)
            head = out.decode().strip() if out and out.strip() else None
        if head:
            targets.append(head)
        return list(dict.fromkeys(targets))

    def _resolve_commits(self, snap: _Snapshot, shas: Sequence[str]) -> None:
        todo = [sha for sha in dict.fromkeys(shas) if sha not in snap.facts.commits]
        if todo:
            snap.facts.commits.update(evidence_fates(self.repo_root, todo, self._targets()))

    def _check_all(
        self, snap: _Snapshot, memories: list[tuple[list[Citation], str | None]]
    ) -> list[list[StaleCitation]]:
        """Each memory's stale citations. Names (``Class.method``, ``charge_card``) that the
        code does not define now are compared with the code as it was: those are collected
        first, and the old files read in one batch for all the memories."""
        self._find_classes(snap, memories)
        pending = [
            (index, citation)
            for index, (citations, _path) in enumerate(memories)
            for citation in citations
            if citation.kind in _NAMES and not self._name_holds(snap, citation, citations)
        ]
        verdicts: dict[tuple[int, Citation], StaleCitation | None] = {}
        if pending:
            verdicts = self._names_then(snap, memories, pending)
        out: list[list[StaleCitation]] = []
        for index, (citations, _path) in enumerate(memories):
            stale: list[StaleCitation] = []
            for citation in citations:
                if citation.kind in _NAMES:
                    found = verdicts.get((index, citation))
                else:
                    found = getattr(self, f"_check_{citation.kind}")(snap, citation)
                if found is not None and all(s.reason != found.reason for s in stale):
                    stale.append(found)  # a class gone is one reason, however many members
            out.append(stale)
        return out

    def _check(self, snap: _Snapshot, citations: Iterable[Citation]) -> list[StaleCitation]:
        return self._check_all(snap, [(list(citations), None)])[0]

    def stale_reasons(
        self, memories: Sequence[tuple[str, Sequence[str]] | tuple[str, Sequence[str], str | None]]
    ) -> list[tuple[str, ...]]:
        """For each (body, evidence commits[, memory file path]): why the memory may be out of
        date, one line per citation that no longer holds (empty when all do). Cached per text
        until the repository moves: the cost of serving a memory already checked is a lookup."""
        snap = self._current()
        if snap is None:
            return [() for _ in memories]
        keys = []
        todo: dict[tuple[str, tuple[str, ...], str | None], list[Citation]] = {}
        for memory in memories:
            body, commits = memory[0], memory[1]
            path = memory[2] if len(memory) > 2 else None
            key = (body, tuple(commits), path)
            keys.append(key)
            if key not in snap.reasons and key not in todo:
                todo[key] = extract_citations(body, commits)
        if todo:
            found = self._check_all(snap, [(citations, key[2]) for key, citations in todo.items()])
            for key, stale in zip(todo, found, strict=True):
                snap.reasons[key] = tuple(item.reason for item in stale)
        return [snap.reasons[key] for key in keys]

    # ------------------------------------------------------------------ names next to files

    def _context_files(
        self, snap: _Snapshot, citations: Sequence[Citation]
    ) -> list[tuple[str, str]]:
        """The code files a memory cites, as (path now, path as cited): where a memory names a
        function or a class, these are the files it says the name lives in."""
        out: list[tuple[str, str]] = []
        for citation in citations:
            target = citation.target
            if citation.kind not in ("path", "argument") or not _is_code_file(
                target.rpartition("/")[2]
            ):
                continue
            if "/" not in target:
                out += [(path, path) for path in self._files_named(snap, target)]
            elif target in snap.files:
                out.append((target, target))
            else:
                moved = self._moved_to(snap, target)
                if moved is not None and moved in snap.files:
                    out.append((moved, target))
        return list(dict.fromkeys(out))

    def _name_files(
        self, snap: _Snapshot, citation: Citation, citations: Sequence[Citation]
    ) -> list[tuple[str, str]]:
        """Where to look for a cited name: the code files the memory cites; for a
        ``Class.method``, those of them that define the class, else wherever the repository
        defines it now (empty when nowhere)."""
        files = self._context_files(snap, citations)
        if citation.kind == "name":
            return files
        cls = citation.target.partition(".")[0]
        defining = [(f, then) for f, then in files if defines(self._text(snap, f) or "", cls, f)]
        return defining or [(path, path) for path in snap.classes.get(cls, ())]

    def _name_holds(
        self, snap: _Snapshot, citation: Citation, citations: Sequence[Citation]
    ) -> bool:
        """True when the files the memory points at still name it (or when there is no file
        to look in: a bare name alone is not checked). Loose on purpose: a definition wrapped
        over lines, or moved and imported, still holds; only a name gone from the file is
        compared with the code as it was."""
        files = self._context_files(snap, citations)
        if citation.kind == "name":
            name = citation.target
            return not files or any(mentions(self._text(snap, f) or "", name) for f, _ in files)
        cls, _, attr = citation.target.partition(".")
        if self._python_files(snap, cls):  # `Gateway.charge` where `Gateway.py` is a module
            return self._check_symbol(snap, citation) is None
        for path, _ in files:
            text = self._text(snap, path) or ""
            if mentions(text, cls) and mentions(text, attr):
                return True
        return any(
            mentions(self._text(snap, path) or "", attr) for path in snap.classes.get(cls, ())
        )

    def _find_classes(
        self, snap: _Snapshot, memories: list[tuple[list[Citation], str | None]]
    ) -> None:
        """Where the classes of ``Class.method`` citations that no cited file defines are
        defined now: one ``git grep`` for all of them, kept for the snapshot."""
        wanted: set[str] = set()
        for citations, _ in memories:
            files: list[tuple[str, str]] | None = None
            for citation in citations:
                cls = citation.target.partition(".")[0]
                if citation.kind != "member" or cls in snap.classes or cls in wanted:
                    continue
                files = self._context_files(snap, citations) if files is None else files
                if not any(defines(self._text(snap, f) or "", cls, f) for f, _ in files):
                    wanted.add(cls)
        if not wanted:
            return
        if snap.class_index is None:  # every class-like definition of the tree, once
            found = self._grep_classes(None, [self.commit] if self.commit else [])
            snap.class_index = {
                name: [place.partition(":")[2] if self.commit else place for place in places]
                for name, places in found.items()
            }
        for name in wanted:
            paths = snap.class_index.get(name, [])
            snap.classes[name] = tuple(
                sorted(path for path in paths if defines(self._text(snap, path) or "", name, path))
            )

    def _grep_classes(self, names: list[str] | None, revs: list[str]) -> dict[str, list[str]]:
        """For each class name (each of ``names``, or any), the files (``rev:path`` when
        searching commits; the tracked files of the working tree without ``revs``) whose text
        has a line that may define it, the brain's own files left out; each is confirmed by
        reading it."""
        from .paths import BRAIN_DIRNAME

        alternatives = (
            "|".join(re.escape(name) for name in names) if names else "[A-Za-z_][A-Za-z0-9_]*"
        )
        pattern = (
            r"(class|struct|interface|trait|type|enum|object|record|protocol|impl|module)"
            rf"[[:space:]]+({alternatives})([^[:alnum:]_]|$)"
        )
        out = git_output(
            ["-c", "core.quotePath=false", "grep", "-z", "-I", "-E", "-o", "--no-color", "-e", pattern,
             *revs, "--", ".", f":(exclude){BRAIN_DIRNAME}"],
            cwd=self.repo_root, timeout=20,
        )  # fmt: skip
        found: dict[str, list[str]] = {}
        for line in (out or b"").decode("utf-8", "surrogateescape").splitlines():
            # path NUL match, or rev:path NUL match when searching commits
            where, _, match = line.partition("\0")
            if git_path(where.partition(":")[2] if revs else where) is None:
                continue  # the one check of a path from git
            name = re.sub(r"^\w+\s+", "", match).rstrip(" \t({:<;,")
            name = re.split(r"[^\w]", name, maxsplit=1)[0]
            if (names is None or name in names) and where not in found.setdefault(name, []):
                found[name].append(where)
        return found

    def _memory_history(self, snap: _Snapshot) -> dict[str, tuple[tuple[str, int], ...]]:
        """Each memory file's (commit, commit time) in the history served, newest first (one
        ``git log``)."""
        if snap.facts.history is None:
            from .paths import BRAIN_DIRNAME

            out = git_output(
                ["-c", "core.quotePath=false", "log", "--format=%x00%H %ct", "--name-only",
                 "--no-renames", self.commit or "HEAD", "--", f"{BRAIN_DIRNAME}/memories"],
                cwd=self.repo_root, timeout=20,
            )  # fmt: skip
            history: dict[str, list[tuple[str, int]]] = {}
            for record in (out or b"").decode("utf-8", "surrogateescape").split("\0")[1:]:
                head, _, names = record.partition("\n")
                sha, _, when = head.strip().partition(" ")
                for name in names.split("\n"):  # not splitlines(): see evidence._parse_log
                    if name.strip() and git_path(name) is not None:
                        history.setdefault(name, []).append((sha, int(when or 0)))
            snap.facts.history = {name: tuple(commits) for name, commits in history.items()}
        return snap.facts.history

    def _removed_lines(
        self, snap: _Snapshot, paths: set[str], since: int
    ) -> dict[str, list[tuple[int, str]]]:
        """For each of ``paths``, (commit time, lines removed) of every commit of the history
        served since ``since`` that removed lines from it: one ``git log -p`` for all of them,
        at most 2,000 commits back. A definition among them was renamed or removed — also one
        added after the memory was written (its pull request merged after the memory's)."""
        removed = snap.facts.removed
        todo = sorted(p for p in paths if p not in removed or removed[p][0] > since)
        if todo:
            out = git_output(
                ["-c", "core.quotePath=false", "log", "-p", "-U0", "--no-color", "--no-ext-diff",
                 "--no-renames", "--format=%x00%ct", f"--since=@{max(since - 1, 0)}",
                 "--max-count=2000", self.commit or "HEAD", "--", *todo],
                cwd=self.repo_root, timeout=30,
            )  # fmt: skip
            found: dict[str, list[tuple[int, str]]] = {path: [] for path in todo}
            for record in (out or b"").decode("utf-8", "replace").split("\0")[1:]:
                lines = record.split("\n")
                when = int(lines[0].strip() or 0)
                path, header = "", False
                gone: list[str] = []
                for line in [*lines[1:], "diff --git"]:
                    if line.startswith("diff --git"):
                        if path in found and gone:
                            found[path].append((when, "\n".join(gone)))
                        path, header, gone = "", True, []
                    elif (header and line.startswith("--- a/")) or (
                        header and line.startswith("+++ b/") and not path
                    ):
                        path = line[6:]
                    elif line.startswith("@@"):
                        header = False
                    elif not header and line.startswith("-"):
                        gone.append(line[1:])
            for path in todo:
                removed[path] = (since, found[path])
        return {path: removed[path][1] for path in paths}

    def _in_past(self, snap: _Snapshot, commits: list[str]) -> list[str]:
        """The commits of ``commits`` that are in the history served (ancestors of HEAD or of
        the commit asked for): an evidence commit of a branch not merged yet is the code's
        future, not its past."""
        todo = [c for c in dict.fromkeys(commits) if c not in snap.facts.ancestors]
        if todo:
            base = self.commit or "HEAD"
            out = git_output(
                ["rev-list", "--stdin"], cwd=self.repo_root, timeout=20,
                input="".join(f"{c}\n" for c in todo).encode() + f"^{base}\n".encode(),
            )  # fmt: skip
            ahead = set((out or b"").decode().split())
            for commit in todo:
                snap.facts.ancestors[commit] = out is not None and commit not in ahead
        return [c for c in commits if snap.facts.ancestors.get(c)]

    def _references(
        self, snap: _Snapshot, citations: Sequence[Citation], memory_path: str | None
    ) -> list[str]:
        """The commits whose code the memory described: the commits that wrote it, its
        evidence commits (or what a merge made of them) when they are in the history served,
        and HEAD for a working tree (an edit not committed yet)."""
        written = self._memory_history(snap).get(memory_path or "", ())
        refs = list(dict.fromkeys([written[-1][0], written[0][0]])) if written else []
        evidence = [c.target for c in citations if c.kind == "commit"]
        if evidence:
            self._resolve_commits(snap, evidence)
            found = []
            for sha in evidence:
                fate = snap.facts.commits.get(sha)
                if fate is not None and fate.state == "reachable":
                    found.append(sha)
                elif fate is not None and fate.became:
                    found.append(fate.became)
            refs += self._in_past(snap, found)
        if self.commit is None:
            refs.append("HEAD")
        return list(dict.fromkeys(refs))

    def _blobs(self, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """The text of each (commit, path), read in two git processes; kept for good (a
        commit's files never change). A file larger than 1 MB is not read (None)."""
        todo = [pair for pair in dict.fromkeys(wanted) if pair not in self._blob_cache]
        todo = [(rev, path) for rev, path in todo if "\n" not in path]
        if todo:
            if len(self._blob_cache) > _BLOB_CACHE_MAX:
                self._blob_cache.clear()
            found = read_git_blobs(
                [f"{rev}:{path}" for rev, path in todo], cwd=self.repo_root,
                max_bytes=_MAX_CITED_BYTES, timeout=30,
            )  # fmt: skip
            for pair, content in zip(todo, found, strict=True):
                self._blob_cache[pair] = (
                    content.decode("utf-8", "replace") if content is not None else None
                )
        return {pair: self._blob_cache.get(pair) for pair in wanted}

    def _names_then(
        self,
        snap: _Snapshot,
        memories: list[tuple[list[Citation], str | None]],
        pending: list[tuple[int, Citation]],
    ) -> dict[tuple[int, Citation], StaleCitation | None]:
        """Which pending names the code *did* define where the memory says, when it was
        written: those were renamed or removed since (the others the memory never pointed at
        a definition of, and are left alone)."""
        plans: dict[tuple[int, Citation], tuple[list[str], list[tuple[str, str]]]] = {}
        lost_classes: dict[str, list[str]] = {}
        since: dict[int, int] = {}  # memory -> when it was written
        for index, citation in pending:
            citations, path = memories[index]
            refs = self._references(snap, citations, path)
            files = self._name_files(snap, citation, citations)
            plans[(index, citation)] = (refs, files)
            written = self._memory_history(snap).get(path or "")
            if written and files:
                since[index] = written[-1][1]
            if not files and citation.kind == "member":
                lost_classes.setdefault(citation.target.partition(".")[0], []).extend(refs)
        then_classes: dict[str, list[tuple[str, str]]] = {}
        if lost_classes:
            revs = list(dict.fromkeys(r for refs in lost_classes.values() for r in refs))
            found = self._grep_classes(sorted(lost_classes), revs[:_MAX_GREP_REVS])
            for name, places in found.items():
                for place in places:
                    rev, _, path = place.partition(":")
                    then_classes.setdefault(name, []).append((rev, path))
        wanted = [
            (rev, then) for refs, files in plans.values() for rev in refs for _, then in files
        ] + [pair for pairs in then_classes.values() for pair in pairs]
        texts = self._blobs(wanted)
        removals: dict[str, list[tuple[int, str]]] = {}
        if since:
            paths = {
                p
                for (index, _), (_, files) in plans.items()
                if index in since
                for pair in files
                for p in pair
            }
            removals = self._removed_lines(snap, paths, min(since.values()))
        verdicts: dict[tuple[int, Citation], StaleCitation | None] = {}
        for (index, citation), (refs, files) in plans.items():
            verdict = self._name_verdict(
                snap, citation, refs=refs, files=files, texts=texts, then_classes=then_classes
            )
            if verdict is None and index in since:
                verdict = self._removed_verdict(citation, files, removals, since[index])
            verdicts[(index, citation)] = verdict
        return verdicts

    @staticmethod
    def _removed_verdict(
        citation: Citation,
        files: list[tuple[str, str]],
        removals: dict[str, list[tuple[int, str]]],
        since: int,
    ) -> StaleCitation | None:
        """Stale when a commit since the memory was written removed the name's definition
        from a file it points at."""
        name = citation.target.partition(".")[2] or citation.target
        for now, then in files:
            for when, gone in [*removals.get(then, ()), *removals.get(now, ())]:
                if when >= since and defines(gone, name, then):
                    if citation.kind == "member":
                        reason = f"`{citation.target}`: `{name}` is no longer defined in `{now}`"
                    else:
                        reason = f"`{name}` is no longer defined in `{now}`"
                    return StaleCitation(citation, reason)
        return None

    def _name_verdict(
        self,
        snap: _Snapshot,
        citation: Citation,
        *,
        refs: list[str],
        files: list[tuple[str, str]],
        texts: dict[tuple[str, str], str | None],
        then_classes: dict[str, list[tuple[str, str]]],
    ) -> StaleCitation | None:
        if citation.kind == "name":
            name = citation.target
            for rev in refs:
                for now, then in files:
                    if defines(texts.get((rev, then)) or "", name, then):
                        return StaleCitation(citation, f"`{name}` is no longer defined in `{now}`")
            return None
        cls, _, attr = citation.target.partition(".")
        for rev in refs:
            for now, then in files:
                text = texts.get((rev, then)) or ""
                if defines(text, cls, then) and defines(text, attr, then):
                    current = self._text(snap, now) or ""
                    if defines(current, cls, now):
                        reason = f"`{citation.target}`: `{attr}` is no longer defined in `{now}`"
                    else:
                        reason = f"`{cls}` is no longer defined in `{now}`"
                    return StaleCitation(citation, reason)
        if not files:
            for rev, then in then_classes.get(cls, ()):
                if rev in refs and defines(texts.get((rev, then)) or "", cls, then):
                    return StaleCitation(
                        citation, f"`{cls}` is no longer defined anywhere (it was in `{then}`)"
                    )
        return None

    def _check_path(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        if self._exists(snap, citation.target):
            return None
        moved = self._moved_to(snap, citation.target)
        reason = f"`{citation.target}` no longer exists"
        return StaleCitation(citation, reason + (f" (moved to `{moved}`)" if moved else ""), moved)

    def _check_argument(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        """A file a cited command reads (``pytest -q tests/test_cart.py``, ``python manage.py
        migrate``): there from the repository's root; else stale when git saw it move (the
        command no longer runs as written), else fine when a folder of the repository has it
        (commands are run in subprojects: "in services/api, `pytest tests/test_x.py`")."""
        bare = citation.target.rstrip("/")
        if bare in snap.files or bare in snap.dirs:
            return None
        if self.commit is None and os.path.lexists(self.repo_root / bare):
            return None  # an ignored file of the working tree
        if not bare.isascii() and "/" in bare and self._exists(snap, bare):
            return None  # typed composed, stored decomposed (or the other way round)
        moved = self._moved_to(snap, citation.target)
        if moved is None:
            if snap.tails is None:
                tails: set[str] = set()
                for path in chain(snap.files, snap.dirs):
                    parts = path.split("/")
                    tails.update("/".join(parts[i:]) for i in range(1, len(parts)))
                snap.tails = frozenset(tails)
            if bare in snap.tails:
                return None
        reason = f"`{citation.text}`: `{citation.target}` no longer exists"
        return StaleCitation(citation, reason + (f" (moved to `{moved}`)" if moved else ""), moved)

    def _check_glob(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        pattern = citation.target
        matches = glob_matcher(composed_form(pattern), segments=True)
        files, dirs, names = (
            (snap.files, snap.dirs, snap.names) if pattern.isascii() else _composed(snap)
        )
        pool: Iterable[str] = chain(files, dirs) if "/" in pattern else names
        if any(matches(name) for name in pool):
            return None
        return StaleCitation(citation, f"`{pattern}` matches no file")

    def _python_files(self, snap: _Snapshot, module: str) -> list[str]:
        """Files that are module ``a/b/c`` of this repository: ``…/a/b/c.py`` or
        ``…/a/b/c/__init__.py`` (under any source root such as ``src/``)."""
        if snap.python is None:
            tails: dict[str, list[str]] = {}
            packages: set[str] = set()
            for name in snap.files:
                if not name.endswith(".py"):
                    continue
                parts = name[:-3].split("/")
                packages.update(parts[:-1])
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                for start in range(len(parts)):
                    tails.setdefault("/".join(parts[start:]), []).append(name)
            snap.python = tails
            snap.packages = frozenset(packages)
        return sorted(snap.python.get(module, ()))

    def _check_symbol(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        parts = citation.target.split(".")
        if self._python_files(snap, "/".join(parts)):
            return None  # the dotted name is a module itself (``shop.payments.refunds``)
        for cut in range(len(parts) - 1, 0, -1):
            files = self._python_files(snap, "/".join(parts[:cut]))
            if not files:
                continue
            symbol = parts[cut]
            word = re.compile(rf"(?<!\w){re.escape(symbol)}(?!\w)")
            if any(word.search(self._text(snap, name) or "") for name in files):
                return None
            return StaleCitation(citation, f"`{symbol}` no longer appears in `{files[0]}`")
        # No module of it is a file here. When its first name is a folder of Python code in
        # this repository (``app`` of ``app.billing.invoice``) the module went away; otherwise
        # it is a library's name (``structlog.get_logger``) and not checked.
        if parts[0] in (snap.packages or ()):
            return StaleCitation(
                citation, f"`{citation.target}` names no module of this repository any more"
            )
        return None

    def _files_named(self, snap: _Snapshot, *names: str) -> list[str]:
        """The repository's files called one of ``names`` (``Makefile``, ``package.json``),
        sorted; the files are grouped by name once per snapshot."""
        if snap.by_name is None:
            snap.by_name = {}
            for path in sorted(snap.files):
                snap.by_name.setdefault(path.rpartition("/")[2], []).append(path)
        return sorted(path for name in names for path in snap.by_name.get(name, ()))

    def _makefile_targets(self, snap: _Snapshot, path: str) -> frozenset[str] | None:
        if path not in snap.makefiles:
            text = self._text(snap, path)
            targets: set[str] = set()
            for line in (text or "").splitlines():
                match = _MAKE_TARGET.match(line)
                if match:
                    targets.update(match.group(1).split())
            snap.makefiles[path] = frozenset(targets) if text is not None else None
        return snap.makefiles[path]

    def _check_command(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        makefiles = self._files_named(snap, "Makefile", "makefile", "GNUmakefile")
        if not makefiles:
            return StaleCitation(citation, f"`{citation.text}`: the repository has no Makefile")
        for name in makefiles:
            targets = self._makefile_targets(snap, name) or frozenset()
            if citation.target in targets or any("%" in t for t in targets):
                return None
        return StaleCitation(
            citation, f"`{citation.text}`: no Makefile defines `{citation.target}`"
        )

    def _check_script(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        import json

        manifests = self._files_named(snap, "package.json")
        if not manifests:
            return StaleCitation(citation, f"`{citation.text}`: the repository has no package.json")
        for name in manifests:
            try:
                scripts = json.loads(self._text(snap, name) or "{}").get("scripts") or {}
            except (ValueError, AttributeError):
                continue
            if isinstance(scripts, dict) and citation.target in scripts:
                return None
        return StaleCitation(
            citation, f"`{citation.text}`: no package.json defines the script `{citation.target}`"
        )

    def _check_module(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        """``python -m a.b``: a module of this repository must still be there (one of a
        library, such as ``python -m pytest``, is not checked)."""
        module = citation.target.replace(".", "/")
        if self._python_files(snap, module) or self._python_files(snap, f"{module}/__main__"):
            return None
        first = citation.target.split(".", 1)[0]
        if first in (snap.packages or ()):
            return StaleCitation(
                citation,
                f"`{citation.text}`: `{citation.target}` is no module of this repository any more",
            )
        return None

    def _check_commit(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        """An evidence commit is never a reason to call a memory stale: the history it was in
        may have been squashed or rebased (see :meth:`evidence` for what became of it)."""
        return None
