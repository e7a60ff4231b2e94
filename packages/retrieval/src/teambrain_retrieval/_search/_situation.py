"""What an agent's session is working on, read from git: this session's own work first.

``memory_context()`` has no query argument; relevance comes from the situation, in three tiers:

1. **my changes** — files changed in the work tree (modified, staged, untracked; both paths of
   a rename, a deleted file's path) and on this branch since it left the default branch (every
   commit of the branch, not a fixed number), with the subjects of those commits;
2. **the branch name's words** (its last segment counts most: ``tom/`` or ``feature/`` is a
   namespace, ``zanzibar-refunds`` the work);
3. **recent history of the default branch** — other people's work — to be weighed with a
   decaying weight that never outranks tier 1.

The default branch is the one teambrain serves (:func:`teambrain_kit.gitdir.default_branch`:
the remote's HEAD as last fetched), else a local ``main``/``master``/``trunk``. A handful of
short git commands, no shell, each with a timeout; a missing git, a repository without commits,
a detached HEAD or no default branch give a smaller situation, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from teambrain_schema import BRAIN_DIRNAME

GIT_TIMEOUT_S = 3.0
MAX_SYMBOL_FILES = 40  # changed files whose definitions are read
MAX_SOURCE_BYTES = 256 * 1024
MAX_PATHS = 200  # this session's own changed paths
MAX_RECENT = 12  # commits of the default branch's recent history
MAX_SUBJECTS = MAX_RECENT  # kept for readers of the old name
MAX_OWN_SUBJECTS = 20
# Words of branch names and paths that say nothing about the work.
NOISE_WORDS = frozenset(
    {
        "feature", "features", "feat", "fix", "fixes", "bugfix", "hotfix", "chore", "wip",
        "main", "master", "trunk", "develop", "dev", "head", "refs", "heads", "src", "lib",
        "test", "tests", "py", "ts", "tsx", "js", "jsx", "go", "kt", "rs", "md", "txt", "json",
        "yaml", "yml", "toml", "index", "init", "the", "and", "patch", "tmp", "temp", "scratch",
        "spike", "try", "draft", "misc", "stuff", "work", "changes", "change", "update",
        "updates", "branch", "new", "refactor", "cleanup", "tidy", "release", "app", "pkg",
        "internal", "cmd", "java", "com", "sql", "v2", "add", "adds", "remove", "support",
        "implement", "improve", "use", "make", "allow", "enable", "disable", "bump", "set",
        "get", "move", "rename", "delete", "drop", "upgrade", "start", "finish",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+")
_TICKET = re.compile(r"^[A-Za-z][A-Za-z0-9]*-[0-9]+$")

# How a path changed, as the situation records it (and a memory's "why" says it).
MODIFIED = "modified"
STAGED = "staged"
UNTRACKED = "untracked"
DELETED = "deleted"
RENAMED_FROM = "renamed from"
RENAMED_TO = "renamed to"
COMMITTED = "committed on this branch"


@dataclass(frozen=True)
class RecentCommit:
    """A commit of the default branch's recent history (newest first in a situation)."""

    subject: str
    paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Situation:
    """A session's situation: repository, branch, the paths this session changed (work tree,
    index and the branch's own commits; ``changes`` says how each changed), the subjects of
    the branch's commits, and the default branch's recent history."""

    repo: str
    branch: str | None = None
    changed_paths: list[str] = field(default_factory=list)
    recent_subjects: list[str] = field(default_factory=list)
    branch_subjects: list[str] = field(default_factory=list)
    recent: list[RecentCommit] = field(default_factory=list)
    changes: dict[str, str] = field(default_factory=dict)
    default_branch: str | None = None
    # The names each changed source file defines (a deleted one's as it was): a memory citing
    # ``issue_refund`` or ``ledger.PostEntry`` is about the file that defines it.
    symbols: dict[str, frozenset[str]] = field(default_factory=dict)
    # Changed paths whose file name another tracked file also has (``limits.go`` twice): a
    # memory naming the file alone may mean the other one.
    ambiguous: frozenset[str] = frozenset()

    def branch_words(self) -> list[tuple[str, float]]:
        """The branch name's words with their weight: the last segment's 1.0, a namespace's
        (``feature/``, ``tom/``) 0.3; noise words and numbers left out."""
        if not self.branch:
            return []
        segments = [s for s in re.split(r"/", self.branch) if s]
        words: dict[str, float] = {}
        for index, segment in enumerate(segments):
            # a ticket id (SHOP-1432) names a project, not the work
            last = index == len(segments) - 1 and not _TICKET.match(segment)
            weight = 1.0 if last else 0.3
            for word in _WORD.findall(segment):
                low = word.lower()
                if low in NOISE_WORDS or word.isdigit() or len(word) < 2:
                    continue
                words[word] = max(words.get(word, 0.0), weight)
        return list(words.items())

    def path_words(self) -> list[str]:
        """Words of this session's changed paths (folders and file names)."""
        words: dict[str, None] = {}
        for path in self.changed_paths:
            for word in _WORD.findall(path):
                if word.lower() not in NOISE_WORDS and not word.isdigit() and len(word) > 1:
                    words.setdefault(word, None)
        return list(words)

    def query_text(self) -> str:
        """Search text for this session's own work: branch words, the branch's commit
        subjects, words of the changed paths (never other people's commits)."""
        parts = [" ".join(word for word, _ in self.branch_words()), *self.branch_subjects]
        parts.append(" ".join(self.path_words()))
        return " ".join(p for p in parts if p.strip())

    def is_empty(self) -> bool:
        """True when nothing about the session is known beyond the repository."""
        return not (
            self.branch or self.changed_paths or self.recent_subjects or self.recent
            or self.branch_subjects
        )  # fmt: skip


def _git(repo_root: Path, *args: str) -> str | None:
    from teambrain_kit.git import git_output

    out = git_output(["-c", "core.quotePath=false", *args], cwd=repo_root, timeout=GIT_TIMEOUT_S)
    return out.decode("utf-8", "replace") if out is not None else None


def _keep_path(path: str) -> bool:
    from teambrain_kit.git import git_path

    # The one check of a path from git: a name with a control character or a '..' from a
    # fetched commit never becomes part of a query or a path.
    return git_path(path) is not None and not path.startswith(f"{BRAIN_DIRNAME}/")


def _status(repo_root: Path, changes: dict[str, str]) -> None:
    """The work tree's and the index's changes (``git status``), with how each changed."""
    status = _git(repo_root, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
    if not status:
        return
    entries = status.split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        old = None
        if "R" in code or "C" in code:
            old = entries[index] if index < len(entries) else None
            index += 1  # the next entry is the original path of a rename/copy
        if code == "??":
            how = UNTRACKED
        elif old is not None:
            how = RENAMED_TO
        elif "D" in code:
            how = DELETED
        elif code[1] == " ":
            how = STAGED
        else:
            how = MODIFIED
        for name, what in ((path, how), (old, RENAMED_FROM)):
            key = (name if what == UNTRACKED else name.rstrip("/")) if name else None
            if key and key.rstrip("/") and _keep_path(key.rstrip("/")):
                changes.setdefault(key, what)


def _default_branch(repo_root: Path) -> tuple[str, str] | None:
    """``(name, sha)`` of the default branch: the one teambrain serves from (the remote's, as
    last fetched), else a local ``main``, ``master`` or ``trunk``."""
    from teambrain_kit.gitdir import (
        DEFAULT_BRANCH_NAMES,
        default_branch,
        find_git,
        read_ref_sha,
    )

    found = default_branch(str(repo_root))
    if found is not None:
        return found[0].removeprefix("refs/remotes/"), found[1]
    dirs = find_git(str(repo_root))
    if dirs is None:
        return None
    for name in DEFAULT_BRANCH_NAMES:
        sha = read_ref_sha(dirs[1], dirs[2], f"refs/heads/{name}")
        if sha is not None:
            return name, sha
    return None


def _branch_work(repo_root: Path, base: str, changes: dict[str, str]) -> list[str]:
    """The paths the branch's own commits changed since ``base`` (into ``changes``) and their
    subjects, newest first."""
    diff = _git(repo_root, "diff", "--name-status", "-z", "-M", "--no-ext-diff", base, "HEAD")
    if diff:
        fields = diff.split("\0")
        index = 0
        while index < len(fields):
            status = fields[index]
            index += 1
            if not status:
                continue
            count = 2 if status[:1] in ("R", "C") else 1
            names = fields[index : index + count]
            index += count
            if count == 2 and names and _keep_path(names[0]):
                changes.setdefault(names[0], f"{RENAMED_FROM} ({COMMITTED})")
            for name in names[-1:]:
                if _keep_path(name):
                    changes.setdefault(name, COMMITTED)
    log = _git(repo_root, "log", f"-n{MAX_OWN_SUBJECTS}", "--no-merges", "--format=%s",
               f"{base}..HEAD")  # fmt: skip
    return [line.strip()[:200] for line in (log or "").splitlines() if line.strip()]


def _recent(repo_root: Path, rev: str) -> list[RecentCommit]:
    """The last commits of ``rev`` (the default branch), newest first, with their paths."""
    log = _git(repo_root, "log", f"-n{MAX_RECENT}", "--no-merges", "--format=%x1e%s",
               "--name-only", rev, "--")  # fmt: skip
    commits: list[RecentCommit] = []
    for record in (log or "").split("\x1e"):
        lines = [line for line in record.splitlines() if line.strip()]
        if not lines:
            continue
        paths = tuple(p.strip() for p in lines[1:] if _keep_path(p.strip()))
        commits.append(RecentCommit(lines[0].strip()[:200], paths))
    return commits


def file_symbols(
    repo_root: Path, paths: list[str], revisions: tuple[str, ...] = ("HEAD",)
) -> dict[str, frozenset[str]]:
    """The names each of ``paths`` defines (see ``defined_symbols``): read from the work tree,
    or, for a file no longer there (deleted, renamed), from the first of ``revisions`` that
    holds it (one ``git cat-file`` for all of them). Binary, huge or unreadable files define
    nothing."""
    from teambrain_kit.local_files import read_local_bytes

    from .._pathmatch import defined_symbols

    found: dict[str, frozenset[str]] = {}
    missing: list[str] = []
    root = repo_root.resolve()
    for path in paths[:MAX_SYMBOL_FILES]:
        if path.endswith("/") or "\0" in path:
            continue
        try:
            target = (root / path).resolve()
        except (OSError, ValueError, RuntimeError):  # a loop of links, an odd name
            continue
        if not target.is_relative_to(root):
            continue
        try:
            data = read_local_bytes(str(target), max_bytes=MAX_SOURCE_BYTES, truncate=True)
        except OSError:
            if not target.exists():
                missing.append(path)
            continue
        if b"\0" not in data[:8192]:
            found[path] = defined_symbols(data.decode("utf-8", "replace"), path)
    if missing and revisions:
        found.update(_symbols_in_git(repo_root, missing, revisions))
    return {path: names for path, names in found.items() if names}


def _symbols_in_git(
    repo_root: Path, paths: list[str], revisions: tuple[str, ...]
) -> dict[str, frozenset[str]]:
    from teambrain_kit.git import git_output

    from .._pathmatch import defined_symbols

    asked = [(path, rev) for path in paths for rev in revisions if "\n" not in path]
    request = "".join(f"{rev}:{path}\n" for path, rev in asked).encode("utf-8", "surrogateescape")
    out = git_output(["cat-file", "--batch"], cwd=repo_root, input=request, timeout=GIT_TIMEOUT_S)
    found: dict[str, frozenset[str]] = {}
    if not out:
        return found
    position = 0
    for path, _rev in asked:
        end = out.find(b"\n", position)
        if end < 0:
            break
        header = out[position:end].split()
        position = end + 1
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            continue  # "<object> missing", or not a file
        size = int(header[2])
        data = out[position : position + size]
        position += size + 1
        if path not in found and size <= MAX_SOURCE_BYTES and b"\0" not in data[:8192]:
            found[path] = defined_symbols(data.decode("utf-8", "replace"), path)
    return found


_NAMES_CACHE: dict[str, tuple[object, tuple[dict[str, int], frozenset[str]]]] = {}


def tracked_names(repo_root: Path) -> tuple[dict[str, int], frozenset[str]]:
    """How many tracked files bear each file name, and the tracked paths (``git ls-files``),
    kept while git's index is unchanged."""
    from teambrain_kit.gitdir import git_state_stamps

    key = str(repo_root.resolve())
    stamp = git_state_stamps(key)
    cached = _NAMES_CACHE.get(key)
    if cached is not None and cached[0] == stamp and stamp:
        return cached[1]
    out = _git(repo_root, "ls-files", "-z")
    counts: dict[str, int] = {}
    paths = frozenset(path for path in (out or "").split("\0") if path)
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        counts[name] = counts.get(name, 0) + 1
    if len(_NAMES_CACHE) > 8:
        _NAMES_CACHE.clear()
    _NAMES_CACHE[key] = (stamp, (counts, paths))
    return counts, paths


def ambiguous_paths(repo_root: Path, paths: list[str]) -> frozenset[str]:
    """Those of ``paths`` whose file name another tracked file also bears."""
    counts, tracked = tracked_names(repo_root)
    found = set()
    for path in paths:
        name = path.rstrip("/").rsplit("/", 1)[-1]
        if counts.get(name, 0) - (1 if path in tracked else 0) >= 1:
            found.add(path)
    return frozenset(found)


@dataclass(frozen=True)
class _History:
    """What git's history says of a HEAD: the branch's own changes and commit subjects since
    the default branch, the default branch's recent commits (kept while neither moves)."""

    base: str | None
    committed: dict[str, str]
    subjects: list[str]
    recent: list[RecentCommit]


_HISTORY_CACHE: dict[tuple[str, str, tuple[str, str] | None], _History] = {}


def _head(repo_root: Path) -> tuple[str | None, str | None]:
    """(branch, HEAD's commit), from git's files; git is asked only when they cannot be read
    (a reftable repository). The branch is None when HEAD is detached."""
    from teambrain_kit.gitdir import DETACHED, find_git, read_branch, read_head_sha

    dirs = find_git(str(repo_root))
    if dirs is not None:
        branch = read_branch(dirs[1])
        head = read_head_sha(dirs[1], dirs[2])
        if head is not None or branch != DETACHED:
            return (None if branch == DETACHED else branch), head
    branch_out = _git(repo_root, "symbolic-ref", "--short", "-q", "HEAD")
    head_out = _git(repo_root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
    return (branch_out or "").strip() or None, (head_out or "").strip() or None


def _history(repo_root: Path, head: str | None, default: tuple[str, str] | None) -> _History:
    key = (str(repo_root.resolve()), head or "", default)
    cached = _HISTORY_CACHE.get(key) if head else None
    if cached is not None:
        return cached
    committed: dict[str, str] = {}
    subjects: list[str] = []
    base = None
    if default is not None and head:
        base_out = _git(repo_root, "merge-base", "HEAD", default[1])
        base = base_out.strip() if base_out else None
        if base:
            subjects = _branch_work(repo_root, base, committed)
    # Without a default branch, HEAD's own history is all there is to go by.
    recent = _recent(repo_root, default[1] if default else "HEAD") if head else []
    found = _History(base, committed, subjects, recent)
    if head:
        if len(_HISTORY_CACHE) > 16:
            _HISTORY_CACHE.clear()
        _HISTORY_CACHE[key] = found
    return found


def gather_situation(repo_root: Path) -> Situation:
    """The situation of the work tree at ``repo_root`` (see :class:`Situation`): ``git
    status`` on every call; what the history says is kept while HEAD and the default branch
    stay where they are."""
    repo = repo_root.resolve().name
    branch, head = _head(repo_root)
    changes: dict[str, str] = {}
    _status(repo_root, changes)
    default = _default_branch(repo_root)
    history = _history(repo_root, head, default)
    for path, how in history.committed.items():
        changes.setdefault(path, how)
    changed = list(changes)[:MAX_PATHS]
    revisions = ("HEAD", history.base) if history.base else ("HEAD",)
    return Situation(
        repo=repo,
        branch=branch,
        changed_paths=changed,
        recent_subjects=[c.subject for c in history.recent],
        branch_subjects=list(history.subjects),
        recent=list(history.recent),
        changes={p: changes[p] for p in changed},
        default_branch=default[0] if default else None,
        symbols=file_symbols(repo_root, changed, revisions) if head else {},
        ambiguous=ambiguous_paths(repo_root, changed) if changed else frozenset(),
    )
