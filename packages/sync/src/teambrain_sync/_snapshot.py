"""Time travel: the brain as it was at a commit, a ref or a moment.

A snapshot copies ``.teambrain/`` of one commit out of git's object store (``ls-tree`` and one
``cat-file --batch``) into a private temporary directory, so anything that reads a brain from
disk (lint, retrieval) can read the past one. The user's work tree, index and HEAD are never
used.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from teambrain_schema import BRAIN_DIRNAME, UserError
from teambrain_schema.git import git_path, read_git_blobs, unsafe_git_path
from teambrain_schema.paths import BrainLayout

from ._git import GitRepo

REGULAR_FILE_MODES = ("100644", "100755")


@dataclass(frozen=True)
class ResolvedCommit:
    """A commit and what the user asked for to get it (a ref, a timestamp or both)."""

    sha: str
    requested: str
    committed_at: dt.datetime

    @property
    def short(self) -> str:
        return self.sha[:12]


@dataclass(frozen=True)
class BrainSnapshot:
    """The brain of one commit, materialised read-only-by-convention in a temporary directory."""

    commit: ResolvedCommit
    layout: BrainLayout


def parse_timestamp(value: str) -> dt.datetime:
    """``--at``: an ISO 8601 date or date-time, a span back from now (``7d``) or ``now``, as
    an aware UTC datetime (no zone given: UTC); the same forms as ``--since`` everywhere
    (:func:`teambrain_schema.moments.parse_moment`). A bare date is the start of that day:
    ``2026-05-08`` is ``2026-05-08T00:00:00Z``. Before 1970 is refused (exit 1).
    """
    from teambrain_schema.moments import parse_moment

    return parse_moment(value, option="--at")


def _commit_time(repo: GitRepo, sha: str) -> dt.datetime:
    seconds = int(repo.text("show", "-s", "--format=%ct", sha, "--"))
    return dt.datetime.fromtimestamp(seconds, tz=dt.UTC)


def resolve_commit(repo: GitRepo, ref: str = "HEAD") -> ResolvedCommit:
    """The commit ``ref`` (a sha, tag, branch or any git revision) names; unknown → exit 1."""
    if not ref or ref.startswith("-") or "\x00" in ref:
        raise UserError(f"--ref {ref!r}: not a git revision")
    sha = repo.rev_parse(f"{ref}^{{commit}}")
    if sha is None:
        raise UserError(f"--ref {ref!r}: no such commit, tag or branch in {repo.root}")
    return ResolvedCommit(sha=sha, requested=ref, committed_at=_commit_time(repo, sha))


def commit_at(repo: GitRepo, when: dt.datetime, ref: str = "HEAD") -> ResolvedCommit:
    """The latest commit at or before ``when`` on ``ref``'s first-parent line.

    Following first parents keeps to the commits of the branch itself (for ``main``: the
    moments reviewed proposals were merged), not the work-in-progress commits a merged
    branch carried. Committer dates decide, as in ``git rev-list --before``.
    """
    tip = resolve_commit(repo, ref)
    epoch = int(when.timestamp())
    stamp = when.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if epoch < 0:  # git reads a negative "@<epoch>" as no limit at all: HEAD, mislabelled
        raise UserError(f"--at {stamp}: before 1970; {ref} has no commit that old")
    out = repo.text("rev-list", "-1", "--first-parent", f"--before=@{epoch} +0000", tip.sha, "--")
    if not out:
        # Say why (a new repository has no past to travel to) and what would work instead.
        roots = repo.text("rev-list", "--first-parent", "--max-parents=0", tip.sha, "--").split()
        first = _commit_time(repo, roots[-1]).strftime("%Y-%m-%d %H:%M UTC") if roots else None
        since = f": its first commit is from {first}" if first else ""
        raise UserError(
            f"--at {stamp}: {ref} has no commit at or before that moment{since} "
            "(the brain has no history before it; give a later moment, or --ref)"
        )
    sha = out.strip()
    requested = stamp if ref == "HEAD" else f"{ref} at {stamp}"
    return ResolvedCommit(sha=sha, requested=requested, committed_at=_commit_time(repo, sha))


def _tree_entries(repo: GitRepo, sha: str) -> list[tuple[str, str, str]]:
    """(mode, blob id, repo-relative path) of every regular file under .teambrain/ at ``sha``."""
    out = repo.git("ls-tree", "-r", "-z", "--full-tree", sha, "--", BRAIN_DIRNAME).stdout
    entries: list[tuple[str, str, str]] = []
    for record in out.split(b"\x00"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, object_id = meta.decode("ascii").split(" ")
        # Symlinks and submodules are skipped: a brain holds regular files only, and a link's
        # target could point anywhere on this machine. A path with '..', '.git' or a control
        # character in it (a crafted tree) is skipped too: the one check of a path from git.
        path = git_path(raw_path)
        if kind == "blob" and mode in REGULAR_FILE_MODES and path is not None:
            entries.append((mode, object_id, path))
    return entries


# A memory file is at most 256 KB and INDEX.md of a large brain a few MB: a larger blob under
# .teambrain/ (a commit can hold one of gigabytes) is never read.
MAX_BLOB_BYTES = 16 * 1024 * 1024


def read_blobs(
    repo: GitRepo, names: list[str], *, max_bytes: int = MAX_BLOB_BYTES
) -> list[bytes | None]:
    """The contents of the objects ``names`` (ids or ``<rev>:<path>``) in order; None for a
    name that resolves to nothing, to no blob, or to one larger than ``max_bytes`` (see
    :func:`teambrain_schema.git.read_git_blobs`)."""
    return read_git_blobs(names, cwd=repo.root, max_bytes=max_bytes)


def has_brain(repo: GitRepo, sha: str) -> bool:
    """True when ``.teambrain/brain.yaml`` exists at commit ``sha``."""
    return repo.rev_parse(f"{sha}:{BRAIN_DIRNAME}/brain.yaml") is not None


def no_brain_reason(repo: GitRepo, commit: ResolvedCommit) -> str | None:
    """Why ``commit`` has no brain when something named ``.teambrain`` is there that teambrain
    cannot read from a commit (a git submodule, a link, a file, a folder without brain.yaml),
    in words for the user; None when nothing by that name is there."""
    where = f"{commit.requested} (commit {commit.short})"
    done = repo.git("ls-tree", "-z", "--full-tree", commit.sha, "--", BRAIN_DIRNAME, check=False)
    meta = done.stdout.split(b"\0", 1)[0].decode("utf-8", "replace").partition("\t")[0]
    mode, _, rest = meta.partition(" ")
    object_id = rest.partition(" ")[2]
    if mode == "160000":
        return (
            f"{BRAIN_DIRNAME} is a git submodule at {where}, pointing at commit {object_id[:12]} "
            f"of another repository: teambrain reads and proposes memories in this repository's "
            f"own tree, so make {BRAIN_DIRNAME}/ a folder of it (`git rm {BRAIN_DIRNAME}`, copy "
            "the brain's files in, commit), or share that brain as an org brain (`tb help config`)"
        )
    if mode == "120000":
        return f"{BRAIN_DIRNAME} is a symbolic link at {where}, not a folder: commit the folder"
    if mode.startswith("100"):
        return f"{BRAIN_DIRNAME} is a file at {where}, not a folder: `tb init` makes the brain"
    if mode == "040000":
        return f"{BRAIN_DIRNAME}/ has no brain.yaml at {where}: `tb init` writes one; commit it"
    return None


def checkout_matches(repo: GitRepo, sha: str) -> bool:
    """True when the work tree's ``.teambrain/`` is exactly the brain of commit ``sha``: the
    same tree at HEAD, and nothing changed or untracked under it. Then the brain of ``sha``
    can be read from the checkout (and its warm search index) instead of a copy."""
    tree = repo.rev_parse(f"{sha}:{BRAIN_DIRNAME}")
    if tree is None or repo.rev_parse(f"HEAD:{BRAIN_DIRNAME}") != tree:
        return False
    # GIT_OPTIONAL_LOCKS=0: status must not refresh (rewrite) the user's index.
    done = repo.git(
        "status", "--porcelain", "--untracked-files=all", "--", BRAIN_DIRNAME,
        env={"GIT_OPTIONAL_LOCKS": "0"},
    )  # fmt: skip
    return not done.stdout.strip()


def require_brain_at(repo: GitRepo, commit: ResolvedCommit) -> None:
    """Raise :class:`UserError` (why, in one line) unless the brain existed at ``commit``."""
    if not has_brain(repo, commit.sha):
        raise UserError(
            no_brain_reason(repo, commit)
            or f"no brain at {commit.requested} (commit {commit.short}): "
            f"{BRAIN_DIRNAME}/brain.yaml did not exist yet"
        )


def materialise_brain(repo: GitRepo, commit: ResolvedCommit, dest: Path) -> BrainLayout:
    """Write ``.teambrain/`` as it was at ``commit`` under ``dest`` and return its layout.

    Raises :class:`UserError` when the brain did not exist at that commit.
    """
    require_brain_at(repo, commit)
    entries = _tree_entries(repo, commit.sha)
    blobs = read_blobs(repo, [object_id for _, object_id, _ in entries])
    root = dest.resolve()
    for (mode, _, path), data in zip(entries, blobs, strict=True):
        if data is None:
            continue
        if unsafe_git_path(path, root) is not None:
            continue  # leads out of the snapshot (through a folder on disk)
        target = root.joinpath(*PurePosixPath(path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)
    layout = BrainLayout(root)
    for folder in (layout.memories, layout.retired):
        folder.mkdir(parents=True, exist_ok=True)  # git does not keep empty folders
    return layout


@contextlib.contextmanager
def brain_at(repo: GitRepo, commit: ResolvedCommit) -> Iterator[BrainSnapshot]:
    """The brain at ``commit``, in a temporary directory removed when the block ends (named
    like the repository's folder, so a brain's display name is the same in the past)."""
    scratch = Path(tempfile.mkdtemp(prefix="teambrain-snapshot-"))
    try:
        layout = materialise_brain(repo, commit, scratch / repo.root.name)
        yield BrainSnapshot(commit=commit, layout=layout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
