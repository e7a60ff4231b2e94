"""The brain agents are served: the team's latest reviewed brain — the default branch as last
fetched (``origin/main``) — with this checkout's own memory changes on top.

A teammate's memory merged on the remote reaches a developer's agent as soon as their clone
has fetched, without merging the default branch into a long-lived feature branch. Their own
changes still count: every memory file this checkout added, edited, retired or deleted since it
branched off (committed on the branch, staged, or not yet) replaces the default branch's copy;
every other file is the default branch's, so a teammate's edit or retirement there applies.
Without a remote default branch, HEAD plays its part (the checkout as it is).

The view is materialised as plain files under ``$TEAMBRAIN_HOME/live/<key>/.teambrain/`` (derived,
safe to delete) and indexed like any brain; only files whose content changed are rewritten,
so the index notices exactly those. Each file records the commit it is served from (the
default branch's commit, HEAD for a committed change of this branch, none for an uncommitted
one): provenance names the commit actually served.

With a shared index followed (``retrieval.backend: postgres``, ``tb serve``: :attr:`LiveView.shared`),
the files the shared index holds at a commit newer than the default branch as last fetched
take the default branch's place: a merge is served as soon as CI filled the shared index,
before this clone fetches (:mod:`teambrain_retrieval._postgres._follow`).

Nothing here reaches the network: :func:`fetch_default_branch` does, and only when a caller
(``tb serve`` with a fetch interval set on this machine) asks.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from teambrain_kit.git import git_output, unsafe_git_path
from teambrain_kit.gitdir import default_branch
from teambrain_kit.paths import MAX_BRAIN_FILES, MAX_WALK_DEPTH, BrainLayout, MachineLayout
from teambrain_schema import BRAIN_DIRNAME

from .._git import blob_id, head_commit
from ._scan import MAX_FILE_BYTES, Signals, change_signals, scan_stamps

LIVE_SUFFIX = "#live"  # a live view is indexed as a brain of its own: "<repository>#live"
MEMORY_PATHS = (f"{BRAIN_DIRNAME}/memories", f"{BRAIN_DIRNAME}/retired")
_MANIFEST = "manifest.json"
_SCAN_EVERY_S = 2.0  # a file rewritten in place moves no signal: looked at this often
_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class SharedSnapshot:
    """A brain's memory files as the shared index holds them at ``commit``: path → (blob id,
    the file's bytes or None when this clone's git has that blob); read by
    :mod:`teambrain_retrieval._postgres._follow`, served by the view."""

    commit: str
    files: dict[str, tuple[str, bytes | None]]


@dataclass(frozen=True)
class LiveFile:
    """One file of the view: its blob id, the commit it is served from (None: uncommitted) and
    where it came from (``default``: the default branch; ``checkout``: this checkout's own;
    ``shared``: the shared index, ahead of the default branch as fetched)."""

    blob: str
    commit: str | None
    origin: str


class LiveView:
    """The default branch as last fetched with this checkout's memory changes on top, kept as
    files under ``home`` for the repository at ``repo_root`` (see the module docstring)."""

    def __init__(
        self, repo_root: Path, home: MachineLayout, *, warn: Callable[[str], None] | None = None
    ) -> None:
        self.repo_root = repo_root.resolve()
        key = hashlib.sha256(self.repo_root.as_posix().encode()).hexdigest()[:16]
        self.root = home.home / "live" / key
        self.layout = BrainLayout(self.root)
        self.checkout = BrainLayout(self.repo_root)
        self.files: dict[str, LiveFile] = {}
        # (ref, commit) of the default branch served; None: no remote default branch (HEAD's)
        self.default: tuple[str, str] | None = None
        self.base: str | None = None  # the commit the view starts from (default branch or HEAD)
        self._warn = warn or (lambda _message: None)
        self._inputs: tuple[object, ...] | None = None
        self._folders: list[str] = []
        self._signals: Signals | None = None
        self._last_scan = 0.0
        self._stamps: dict[str, tuple[int, int]] | None = None
        self._stamps_version = 0  # moves when a scan finds the checkout's files changed
        self._merge_bases: dict[tuple[str, str], str | None] = {}
        self._trees: dict[str, dict[str, str]] = {}
        self._ancestors: dict[tuple[str, str], bool] = {}
        # The shared index's latest snapshot of this brain, when a server follows it.
        self.shared: Callable[[], SharedSnapshot | None] | None = None
        self._load_manifest()

    # ------------------------------------------------------------------ what moved

    def _checkout_stamps(self) -> dict[str, tuple[int, int]]:
        """The checkout's memory files and their stamps; rescanned when a cheap signal moved
        (a file added or removed, git's index or HEAD) or every couple of seconds."""
        now = time.monotonic()
        if (
            self._stamps is not None
            and now - self._last_scan < _SCAN_EVERY_S
            and change_signals(self.checkout, self._folders) == self._signals
        ):
            return self._stamps
        folders: list[str] = []
        signals = change_signals(self.checkout, self._folders)
        stamps = scan_stamps(self.checkout, folders)
        if stamps != self._stamps:
            self._stamps = stamps
            self._stamps_version += 1
        self._folders, self._signals, self._last_scan = folders, signals, now
        return stamps

    def refresh(self) -> bool:
        """Bring the view up to date: cheap when nothing moved (a few ``stat`` calls and ref
        reads); otherwise a handful of git processes and only the changed files rewritten.
        True when any file of the view changed."""
        found = default_branch(str(self.repo_root))
        head = head_commit(self.repo_root)
        stamps = self._checkout_stamps()
        fetched = found[1] if found else head
        shared = self._shared_ahead(fetched)
        inputs = (found, head, self._stamps_version, shared.commit if shared else None)
        if inputs == self._inputs and self.layout.root.is_dir():
            return False
        self.default = found
        files = self._compute(fetched, head, stamps, shared)
        if files is None:
            return False  # git failed: keep serving what the view holds, try again next time
        changed = self._materialise(files)
        self.base = shared.commit if shared else fetched
        self._inputs = inputs
        self._save_manifest()
        return changed

    def _shared_ahead(self, fetched: str | None) -> SharedSnapshot | None:
        """The shared index's snapshot when it is ahead of ``fetched`` (the default branch as
        last fetched): a commit this clone lacks, or has but not in that branch's history."""
        snapshot = self.shared() if self.shared is not None else None
        if snapshot is None or snapshot.commit == fetched:
            return None
        if fetched is None:
            return snapshot
        key = (snapshot.commit, fetched)
        if key not in self._ancestors:
            if len(self._ancestors) > 64:
                self._ancestors.clear()
            out = self._git("merge-base", "--is-ancestor", snapshot.commit, fetched)
            self._ancestors[key] = out is not None
        return None if self._ancestors[key] else snapshot

    def commit_of(self, relpath: str) -> str | None:
        """The commit a served file is read from (None: an uncommitted change, or not served)."""
        entry = self.files.get(relpath)
        return entry.commit if entry else None

    # ------------------------------------------------------------------ what to serve

    def _git(self, *args: str) -> bytes | None:
        return git_output(["--literal-pathspecs", *args], cwd=self.repo_root, timeout=_TIMEOUT_S)

    def _tree(self, commit: str) -> dict[str, str] | None:
        """Memory file (``*.md``) → blob id in ``commit``'s tree (kept per commit: it never
        changes). A file larger than a memory file may be is left out, said once."""
        if commit not in self._trees:
            out = self._git("ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", *MEMORY_PATHS)
            if out is None:
                return None
            tree: dict[str, str] = {}
            for record in out.split(b"\0"):
                meta, tab, raw = record.partition(b"\t")
                parts = meta.split()
                path = raw.decode("utf-8", "surrogateescape")
                if not tab or len(parts) != 4 or parts[1] != b"blob" or not path.endswith(".md"):
                    continue
                if parts[0] not in (b"100644", b"100755"):
                    continue  # a link's target is a path on this machine, not a memory
                if not self._usable(path):
                    continue
                if not parts[3].isdigit() or int(parts[3]) > MAX_FILE_BYTES:
                    self._warn(f"not serving {path}: larger than {MAX_FILE_BYTES // 1024} KB")
                    continue
                tree[path] = parts[2].decode("ascii")
            if len(self._trees) > 8:
                self._trees.clear()
            self._trees[commit] = tree
        return self._trees[commit]

    def _usable(self, path: str) -> bool:
        """Whether ``path``, as git printed it, may be a file of the view: the one check of
        every path from git (a fetched tree may name ``..`` or ``.git``); said once when not."""
        problem = unsafe_git_path(path, self.root)
        if problem is None:
            return True
        from teambrain_schema.render import quote_path

        self._warn(f"not serving {quote_path(path)}: {problem} (a crafted commit?)")
        return False

    def _merge_base(self, head: str, base: str) -> str | None:
        if head == base:
            return head
        if (head, base) not in self._merge_bases:
            out = self._git("merge-base", head, base)
            value = out.decode("ascii", "replace").strip() if out else ""
            self._merge_bases[(head, base)] = value or None
        return self._merge_bases[(head, base)]

    def _own_changes(self, since: str | None) -> dict[str, str] | None:
        """This checkout's memory files that differ from ``since`` (committed on this branch,
        staged or not, and untracked ones), each ``A``/``M`` (served from the checkout) or ``D``
        (not served); everything when there is no commit to compare with."""
        changes: dict[str, str] = {}
        if since is not None:
            out = self._git(
                "diff", "--no-renames", "--no-ext-diff", "--name-status", "-z", since, "--",
                *MEMORY_PATHS,
            )  # fmt: skip
            if out is None:
                return None
            fields = out.decode("utf-8", "surrogateescape").split("\0")
            for status, path in zip(fields[0::2], fields[1::2], strict=False):
                if path and self._usable(path):
                    changes[path] = "D" if status.startswith("D") else "M"
            others = self._git(
                "ls-files", "-z", "--others", "--exclude-standard", "--", *MEMORY_PATHS
            )
        else:
            others = self._git("ls-files", "-z", "--cached", "--others", "--", *MEMORY_PATHS)
        if others is None:
            return None
        for path in others.decode("utf-8", "surrogateescape").split("\0"):
            if path.endswith(".md") and self._usable(path):
                changes[path] = "A"
        return changes

    def _compute(
        self,
        base: str | None,
        head: str | None,
        stamps: dict[str, tuple[int, int]],
        shared: SharedSnapshot | None = None,
    ) -> dict[str, tuple[LiveFile, bytes | None]] | None:
        """Every file of the view: its entry, and its bytes when they come from the checkout
        (or the shared index, when ``shared`` is ahead of ``base``)."""
        from teambrain_schema.brain import read_text_safely
        from teambrain_schema.frontmatter import FrontMatterError

        files: dict[str, tuple[LiveFile, bytes | None]] = {}
        since: str | None = None
        if base is not None:
            tree = self._tree(base)
            if tree is None:
                return None
            # The walk's bounds (teambrain_kit.paths): a commit of 200,000 files or 5,000
            # nested folders is not copied into the view (it took ~17 s per search); said.
            shallow = sorted(p for p in tree if p.count("/") <= MAX_WALK_DEPTH + 2)
            kept = shallow[:MAX_BRAIN_FILES]
            if len(shallow) < len(tree):
                self._warn(
                    f"not serving {len(tree) - len(shallow):,} memory file(s) of the default "
                    f"branch nested more than {MAX_WALK_DEPTH} folders deep (`tb lint` there "
                    "names them)"
                )
            if len(kept) < len(shallow):
                self._warn(
                    f"serving the first {MAX_BRAIN_FILES:,} of {len(shallow):,} memory files of "
                    "the default branch; the rest are left out (`tb lint` there says so)"
                )
            files = {path: (LiveFile(tree[path], base, "default"), None) for path in kept}
            since = self._merge_base(head, base) if head else None
            if head is not None and since is None:
                since = head  # unrelated histories: this checkout's own changes since HEAD
        if shared is not None:
            # The shared index is ahead: its files replace the default branch's; this
            # checkout's own changes (since it branched off what it fetched) still go on top.
            kept = sorted(p for p in shared.files if p.count("/") <= MAX_WALK_DEPTH + 2)
            files = {
                path: (LiveFile(shared.files[path][0], shared.commit, "shared"),
                       shared.files[path][1])
                for path in kept[:MAX_BRAIN_FILES]
            }  # fmt: skip
        changes = self._own_changes(since)
        if changes is None:
            return None
        head_tree = (self._tree(head) or {}) if head else {}
        for path, status in sorted(changes.items()):
            files.pop(path, None)
            if status == "D" or path not in stamps:
                continue  # deleted here, or not a memory file the checkout serves
            try:
                text = read_text_safely(
                    self.repo_root / path, self.repo_root, max_bytes=MAX_FILE_BYTES
                )
            except FrontMatterError as exc:
                self._warn(f"not serving {path}: {exc.message}")
                continue
            data = text.encode("utf-8", "surrogateescape")
            blob = blob_id(data, sha256=len(head_tree.get(path, "")) == 64)
            commit = head if head_tree.get(path) == blob else None
            files[path] = (LiveFile(blob, commit, "checkout"), data)
        return files

    # ------------------------------------------------------------------ the files on disk

    def _materialise(self, files: dict[str, tuple[LiveFile, bytes | None]]) -> bool:
        """Write the files whose content changed, remove those no longer served; True when
        anything was written or removed."""
        from teambrain_kit.atomic import write_bytes_atomic
        from teambrain_kit.private_dirs import ensure_private_dir

        for folder in MEMORY_PATHS:
            ensure_private_dir(self.root / folder)  # machine-local: private, like the index
        wanted = {
            entry.blob
            for path, (entry, data) in files.items()
            if data is None and not self._holds(path, entry.blob)
        }
        blobs = self._blobs(sorted(wanted))
        changed = False
        for path, (entry, data) in files.items():
            if not self._holds(path, entry.blob):
                content = data if data is not None else blobs.get(entry.blob)
                if content is None:
                    continue  # git could not read it: left out until the next refresh
                target = self.root / path
                ensure_private_dir(target.parent)
                write_bytes_atomic(target, content)
                changed = True
        for path in set(self.files) - set(files):
            try:
                (self.root / path).unlink()
                changed = True
            except FileNotFoundError:
                pass
        self.files = {path: entry for path, (entry, _data) in files.items()}
        return changed

    def _holds(self, path: str, blob: str) -> bool:
        entry = self.files.get(path)
        return entry is not None and entry.blob == blob and (self.root / path).is_file()

    def _blobs(self, blobs: list[str]) -> dict[str, bytes]:
        """The content of each blob id (none larger than a memory file may be)."""
        from teambrain_kit.git import read_git_blobs

        found = read_git_blobs(blobs, cwd=self.repo_root, max_bytes=MAX_FILE_BYTES,
                               timeout=_TIMEOUT_S)  # fmt: skip
        return {blob: data for blob, data in zip(blobs, found, strict=True) if data is not None}

    def _load_manifest(self) -> None:
        """What an earlier process left in the view (its files are reused, not rewritten)."""
        try:
            data = json.loads((self.root / _MANIFEST).read_text("utf-8"))
            self.files = {
                str(path): LiveFile(str(entry[0]), entry[1], str(entry[2]))
                for path, entry in data["files"].items()
                if unsafe_git_path(str(path), self.root) is None  # as every path from git
            }
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            self.files = {}

    def _save_manifest(self) -> None:
        from teambrain_kit.atomic import write_text_atomic

        data = {
            "repo": self.repo_root.as_posix(),
            "base": self.base,
            "default": list(self.default) if self.default else None,
            "files": {p: [e.blob, e.commit, e.origin] for p, e in sorted(self.files.items())},
        }
        try:
            write_text_atomic(self.root / _MANIFEST, json.dumps(data))
        except OSError:
            return  # a full disk: the next process rewrites the view once, no harm


DEFAULT_FETCH_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class LiveSettings:
    """This machine's serving settings (``$TEAMBRAIN_SERVE_FROM``, ``$TEAMBRAIN_FETCH_MINUTES``,
    ``$TEAMBRAIN_FETCH_TIMEOUT``; ``tb`` and ``tb serve`` set them from ``[serve]`` in
    ``user/config.toml``): serve the default branch live (the default) or the checkout; fetch
    the default branch every ``fetch_minutes`` (0, the default: never) within ``fetch_timeout_s``."""

    live: bool = True
    fetch_minutes: float = 0.0
    fetch_timeout_s: float = DEFAULT_FETCH_TIMEOUT_S
    problems: tuple[str, ...] = ()


def live_settings() -> LiveSettings:
    """The settings from the environment; a value that does not read is named in
    ``problems`` and its default used."""
    from teambrain_kit.home import FETCH_MINUTES_ENV, FETCH_TIMEOUT_ENV, SERVE_FROM_ENV

    problems: list[str] = []
    serve_from = os.environ.get(SERVE_FROM_ENV, "").strip() or "default-branch"
    if serve_from not in ("default-branch", "checkout"):
        problems.append(f'${SERVE_FROM_ENV} must be "default-branch" or "checkout"')
        serve_from = "default-branch"

    def number(name: str, default: float, low: float, high: float) -> float:
        raw = os.environ.get(name, "").strip()
        if not raw:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not low <= value <= high:
            problems.append(f"${name} must be a number from {low:g} to {high:g}")
            return default
        return value

    return LiveSettings(
        live=serve_from == "default-branch",
        fetch_minutes=number(FETCH_MINUTES_ENV, 0.0, 0.0, 24 * 60),
        fetch_timeout_s=number(FETCH_TIMEOUT_ENV, DEFAULT_FETCH_TIMEOUT_S, 1.0, 600.0),
        problems=tuple(problems),
    )


def fetch_default_branch(repo_root: Path, *, timeout: float) -> str | None:
    """``git fetch`` of the default branch alone from the remote the repository's own git
    config names (the one teambrain serves as the team's brain), within ``timeout`` seconds;
    None when it worked, else git's reason in one line. Never asks for a password."""
    from teambrain_kit.git import first_line, run_git
    from teambrain_schema import EnvironmentProblem

    found = default_branch(str(repo_root))
    if found is None:
        return "no default branch fetched yet (run `git fetch` once)"
    ref = found[0]  # refs/remotes/<remote>/<branch>
    remote, _, branch = ref.removeprefix("refs/remotes/").partition("/")
    # A committed agent config can set the environment of the server that runs this fetch:
    # its proxy variables are not used (an empty one is none to git); git's own configuration
    # (http.proxy) and this machine's proxy (`tb trust --proxy`) are.
    from teambrain_kit.egress import machine_proxy
    from teambrain_kit.outbound import ENV_PROXY_VARIABLES

    proxies = dict.fromkeys(ENV_PROXY_VARIABLES, machine_proxy(repo_root=repo_root) or "")
    try:
        done = run_git(
            ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
             f"+refs/heads/{branch}:{ref}"],
            cwd=repo_root, check=False, timeout=timeout,
            env={"GIT_SSH_COMMAND": os.environ.get("GIT_SSH_COMMAND", "ssh -o BatchMode=yes"),
                 **proxies},
        )  # fmt: skip
    except EnvironmentProblem as exc:
        return exc.message
    if done.returncode != 0:
        return first_line(done.stderr.decode("utf-8", "replace")) or f"exit {done.returncode}"
    return None
