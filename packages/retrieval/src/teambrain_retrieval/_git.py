"""Git facts retrieval needs: the HEAD commit (read from ``.git`` files, before every answer)
and the blob ids of HEAD's tree (for provenance). Anything the files cannot tell (a reftable
repository, an unreadable HEAD) falls back to ``git rev-parse`` (no shell).
"""

from __future__ import annotations

import os
from pathlib import Path

from teambrain_schema.git import git_output, git_path
from teambrain_schema.gitdir import git_dirs_at, is_sha, read_head_sha


def _rev_parse(repo_root: Path) -> str | None:
    out = git_output(["rev-parse", "--verify", "--quiet", "HEAD"], cwd=repo_root, timeout=5)
    value = out.decode("ascii", "replace").strip() if out is not None else ""
    return value if is_sha(value) else None


def head_commit(repo_root: Path) -> str | None:
    """The commit HEAD of the work tree at ``repo_root`` points at, or None (no git, no
    commits yet)."""
    found = git_dirs_at(str(repo_root))
    if found is None:
        return None
    git_dir, common_dir = found
    head = read_head_sha(git_dir, common_dir)
    if head is not None:
        return head
    if not os.path.isfile(os.path.join(git_dir, "HEAD")) or os.path.isdir(
        os.path.join(common_dir, "reftable")
    ):
        return _rev_parse(repo_root)
    return None  # an unborn branch: no commit yet


def head_blobs(repo_root: Path, *paths: str) -> dict[str, str]:
    """Path (relative to ``repo_root``) → blob id in HEAD's tree of each file named by
    ``paths`` (files, or folders: every file under them), taken literally.

    One ``git ls-tree`` (no shell); empty when there is no git, no commit or git fails.
    """
    if not paths:
        return {}
    out = git_output(
        ["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", *paths],
        cwd=repo_root, timeout=10,
    )  # fmt: skip
    if out is None:
        return {}
    blobs: dict[str, str] = {}
    for record in out.split(b"\0"):
        meta, tab, path = record.partition(b"\t")
        parts = meta.split()
        name = git_path(path) if tab else None  # the one check of a path from git
        if name is not None and len(parts) == 3 and parts[1] == b"blob":
            blobs[name] = parts[2].decode("ascii")
    return blobs


def blob_id(data: bytes, *, sha256: bool = False) -> str:
    """The id git gives a file with these bytes (sha1, or sha256 in a sha256 repository)."""
    import hashlib

    header = b"blob %d\0" % len(data)
    digest = hashlib.sha256() if sha256 else hashlib.sha1(usedforsecurity=False)
    digest.update(header)
    digest.update(data)
    return digest.hexdigest()
