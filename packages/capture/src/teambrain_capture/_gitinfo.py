"""Which repository, branch and commit a session works in, read from ``.git`` files directly.

Spawning ``git`` costs more than the whole hook is allowed to, so the hot path reads ``HEAD``,
refs and ``config`` itself (work trees and packed refs included). Only :func:`commits_between`,
called once when a session ends and only when HEAD moved, runs ``git``.
"""

from __future__ import annotations

import os

GIT_TIMEOUT_S = 2.0
MAX_COMMITS = 100
NO_BRANCH = "none"  # not in a git repository
DETACHED = "HEAD"  # what ``git rev-parse --abbrev-ref HEAD`` says for a detached HEAD
_HEX = frozenset("0123456789abcdef")


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def find_git(start: str) -> tuple[str, str, str] | None:
    """``(work tree root, git dir, common git dir)`` of the repository enclosing ``start``."""
    current = os.path.realpath(start)
    while True:
        dot_git = os.path.join(current, ".git")
        if os.path.isdir(dot_git):
            git_dir = dot_git
            break
        if os.path.isfile(dot_git):  # a linked work tree or submodule: "gitdir: <path>"
            content = (_read(dot_git) or "").strip()
            if not content.startswith("gitdir:"):
                return None
            git_dir = os.path.normpath(os.path.join(current, content[7:].strip()))
            break
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    common = (_read(os.path.join(git_dir, "commondir")) or "").strip()
    common_dir = os.path.normpath(os.path.join(git_dir, common)) if common else git_dir
    return current, git_dir, common_dir


def read_branch(git_dir: str) -> str:
    """The checked-out branch (``feature/x``), ``HEAD`` when detached."""
    head = (_read(os.path.join(git_dir, "HEAD")) or "").strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref.removeprefix("refs/heads/") or DETACHED
    return DETACHED


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(char in _HEX for char in text)


def _packed_ref(common_dir: str, ref: str) -> str | None:
    for line in (_read(os.path.join(common_dir, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref and _is_sha(sha):
            return sha
    return None


def read_head_sha(git_dir: str, common_dir: str) -> str | None:
    """The commit HEAD points at, or None (no commit yet, or unreadable)."""
    value = (_read(os.path.join(git_dir, "HEAD")) or "").strip()
    for _ in range(5):  # symbolic refs may chain; a loop is a broken repository
        if _is_sha(value):
            return value
        if not value.startswith("ref:"):
            return None
        ref = value[4:].strip()
        loose = _read(os.path.join(git_dir, ref))
        if loose is None and common_dir != git_dir:
            loose = _read(os.path.join(common_dir, ref))
        value = loose.strip() if loose is not None else (_packed_ref(common_dir, ref) or "")
    return None


def origin_url(common_dir: str) -> str | None:
    """``remote.origin.url`` from the repository's own config file."""
    in_origin = False
    for raw in (_read(os.path.join(common_dir, "config")) or "").splitlines():
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
    import subprocess

    revs = [end] if start is None else [f"{start}..{end}"]
    try:
        done = subprocess.run(
            ["git", "rev-list", f"--max-count={MAX_COMMITS}", f"--since={int(since_epoch)}", *revs],
            cwd=root, capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return [end]
    if done.returncode != 0:
        return [end]
    return [line for line in done.stdout.split() if _is_sha(line)]
