"""Which repository, branch and commit a session works in, read from ``.git`` files directly.

Spawning ``git`` costs more than the whole hook is allowed to, so the hot path reads ``HEAD``
and refs (``teambrain_kit.gitdir``, shared with retrieval) and ``config`` itself. Only :func:`commits_between`,
called once when a session ends and only when HEAD moved, runs ``git``.
"""

from __future__ import annotations

import os

from teambrain_kit.gitdir import (
    DETACHED,
    find_git,
    is_sha,
    read_branch,
    read_git_file,
    read_head_sha,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING would import typing on the hook's path
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [  # the HEAD readers are re-exported: the hook and the digest read them from here
    "DETACHED", "GIT_TIMEOUT_S", "MAX_COMMITS", "NO_BRANCH", "commits_between", "find_git",
    "normalise_remote", "origin_url", "read_branch", "read_head_sha", "repo_identity",
]  # fmt: skip

GIT_TIMEOUT_S = 2.0
MAX_COMMITS = 100
NO_BRANCH = "none"  # not in a git repository


def origin_url(common_dir: str) -> str | None:
    """``remote.origin.url`` from the repository's own config file."""
    in_origin = False
    for raw in (read_git_file(os.path.join(common_dir, "config")) or "").splitlines():
        line = raw.strip()
        if line.startswith("["):
            in_origin = line.replace(" ", "").lower() == '[remote"origin"]'
            continue
        if in_origin:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "url":
                return value.strip().strip('"') or None
    return None


def normalise_remote(url: str) -> str | None:
    """A stable, credential-free name for a remote: ``github.com/acme/shop`` for
    ``git@github.com:acme/shop.git`` and ``https://token@github.com/acme/shop``; a local path
    becomes ``local/<name>``. None when ``url`` says nothing usable."""
    url = url.strip()
    if not url:
        return None
    if "://" in url:
        scheme, _, rest = url.partition("://")
        if scheme.lower() == "file":
            return _local_name(rest)
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2].partition(":")[0]  # drop user:password@ and :port
    elif ":" in url.partition("/")[0]:  # scp-like user@host:path
        authority, _, path = url.partition(":")
        host = authority.rpartition("@")[2]
    else:
        return _local_name(url)
    path = path.strip("/").removesuffix(".git").strip("/")
    if not host or not path:
        return None
    return f"{host}/{path}".lower()


def _local_name(path: str) -> str | None:
    name = os.path.basename(path.rstrip("/")).removesuffix(".git")
    return f"local/{name}".lower() if name else None


def repo_identity(root: str, common_dir: str | None) -> str:
    """The ``repo`` join key: the normalised origin remote, else the work tree's folder name."""
    url = origin_url(common_dir) if common_dir else None
    name = normalise_remote(url) if url else None
    return (name or os.path.basename(root.rstrip("/")) or "unknown")[:256]


def commits_between(root: str, start: str | None, end: str, since_epoch: float) -> list[str]:
    """Commits reachable from ``end`` but not ``start`` and committed after ``since_epoch``
    (newest first); ``[end]`` when git cannot tell us."""
    from teambrain_kit.git import git_output

    revs = [end] if start is None else [f"{start}..{end}"]
    out = git_output(
        ["rev-list", f"--max-count={MAX_COMMITS}", f"--since={int(since_epoch)}", *revs],
        cwd=root, timeout=GIT_TIMEOUT_S,
    )  # fmt: skip
    if out is None:
        return [end]
    return [line for line in out.decode("ascii", "replace").split() if is_sha(line)]


def repo_join_key(start: Path | str) -> str | None:
    """The ``repo`` join key capture records for sessions in the repository enclosing ``start``
    (the normalised origin remote, else the folder name); None outside a git repository."""
    found = find_git(str(start))
    if found is None:
        return None
    root, _git_dir, common_dir = found
    return repo_identity(root, common_dir)
