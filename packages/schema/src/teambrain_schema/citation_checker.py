"""Whether the code still says what a memory's citations say: :class:`CitationChecker` checks
them against the repository — its working tree, or one commit — and names what no longer holds:
a path or glob that matches nothing (and where git's rename detection says it went), a symbol
absent from the module it names, a ``make`` target no Makefile defines, an evidence commit HEAD
cannot reach. Stdlib only; git through the one runner (:mod:`teambrain_schema.git`).
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

from .citations import Citation, extract_citations
from .git import git_output
from .paths import composed_form

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["CitationChecker", "StaleCitation"]

_MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.%/-]+(?:[ \t]+[A-Za-z0-9_.%/-]+)*)[ \t]*::?(?!=)")
_FILES_TTL_S = 2.0


@dataclass(frozen=True)
class StaleCitation:
    """A citation that no longer holds, why (one line), and where a moved path went."""

    citation: Citation
    reason: str
    moved_to: str | None = None


def _glob_regex(pattern: str) -> re.Pattern[str]:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        out.append({"*": "[^/]*", "?": "[^/]"}.get(char) or re.escape(char))
        index += 1
    return re.compile("".join(out) + "/?$")


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
    commits: dict[str, str | None] = field(default_factory=dict)
    python: dict[str, list[str]] | None = None
    packages: frozenset[str] | None = None  # names of folders that hold Python files
    by_name: dict[str, list[str]] | None = None
    reasons: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = field(default_factory=dict)
    # files, dirs and names in Unicode's composed form (NFC), built when a citation needs it
    composed: tuple[frozenset[str], frozenset[str], frozenset[str]] | None = None


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

    # ------------------------------------------------------------------ what the repository holds

    def _key(self) -> tuple[object, ...]:
        from .gitdir import git_state_stamps

        return git_state_stamps(str(self.repo_root))

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
        return self._snapshot

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
            return frozenset(n for n in out.decode("utf-8", "surrogateescape").split("\0") if n)
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
            if name:
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
                try:
                    with open(self.repo_root / path, "rb") as handle:
                        data = handle.read(1 << 20)
                except OSError:
                    data = None
            else:
                data = git_output(["show", f"{self.commit}:{path}"], cwd=self.repo_root, timeout=10)
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
                    if status[0] == "R":
                        pairs.append((fields[index + 1], fields[index + 2]))
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

    def check(self, citations: Iterable[Citation]) -> list[StaleCitation]:
        """The citations that no longer hold (empty when none, or when there is no git)."""
        snap = self._current()
        return [] if snap is None else self._check(snap, citations)

    def _check(self, snap: _Snapshot, citations: Iterable[Citation]) -> list[StaleCitation]:
        stale: list[StaleCitation] = []
        for citation in citations:
            found = getattr(self, f"_check_{citation.kind}")(snap, citation)
            if found is not None:
                stale.append(found)
        return stale

    def stale_reasons(self, memories: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[str, ...]]:
        """For each (body, evidence commits): why the memory may be out of date, one line per
        citation that no longer holds (empty when all do). Cached per text until the
        repository moves: the cost of serving a memory already checked is a lookup."""
        snap = self._current()
        if snap is None:
            return [() for _ in memories]
        out = []
        for body, commits in memories:
            key = (body, tuple(commits))
            reasons = snap.reasons.get(key)
            if reasons is None:
                found = self._check(snap, extract_citations(body, commits))
                reasons = tuple(item.reason for item in found)
                snap.reasons[key] = reasons
            out.append(reasons)
        return out

    def _check_path(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        if self._exists(snap, citation.target):
            return None
        moved = self._moved_to(snap, citation.target)
        reason = f"`{citation.target}` no longer exists"
        return StaleCitation(citation, reason + (f" (moved to `{moved}`)" if moved else ""), moved)

    def _check_glob(self, snap: _Snapshot, citation: Citation) -> StaleCitation | None:
        pattern = citation.target
        regex = _glob_regex(composed_form(pattern))
        files, dirs, names = (
            (snap.files, snap.dirs, snap.names) if pattern.isascii() else _composed(snap)
        )
        pool: Iterable[str] = chain(files, dirs) if "/" in pattern else names
        if any(regex.match(name) for name in pool):
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
        sha = citation.target
        if sha not in snap.commits:
            head = self.commit or "HEAD"
            exists = git_output(
                ["cat-file", "-e", f"{sha}^{{commit}}"], cwd=self.repo_root, timeout=10
            )
            if exists is None:
                snap.commits[sha] = f"evidence commit {sha[:12]} is not in the repository"
            else:
                reachable = git_output(
                    ["merge-base", "--is-ancestor", sha, head], cwd=self.repo_root, timeout=10
                )
                snap.commits[sha] = (
                    None
                    if reachable is not None
                    else f"evidence commit {sha[:12]} is not reachable from {head[:12]}"
                )
        reason = snap.commits[sha]
        return StaleCitation(citation, reason) if reason else None
