"""Reading a repository's HEAD commit without starting git (it runs before every search).

Handles a ``.git`` directory or a worktree's ``.git`` file, symbolic and detached HEADs, loose
and packed refs. Anything unusual falls back to ``git rev-parse`` (no shell).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def git_dir(repo_root: Path) -> Path | None:
    """The git directory of the work tree at ``repo_root`` (None when it is not one)."""
    dot_git = repo_root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        try:
            text = dot_git.read_text("utf-8").strip()
        except OSError:
            return None
        if text.startswith("gitdir:"):
            target = Path(text.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else (repo_root / target).resolve()
    return None


def _common_dir(gitdir: Path) -> Path:
    marker = gitdir / "commondir"
    if marker.is_file():
        try:
            target = Path(marker.read_text("utf-8").strip())
        except OSError:
            return gitdir
        return target if target.is_absolute() else (gitdir / target).resolve()
    return gitdir


def _resolve_ref(gitdir: Path, ref: str) -> str | None:
    for base in dict.fromkeys((gitdir, _common_dir(gitdir))):
        loose = base / ref
        if loose.is_file():
            try:
                value = loose.read_text("utf-8").strip()
            except OSError:
                continue
            if _SHA.match(value):
                return value
            if value.startswith("ref:"):
                return _resolve_ref(gitdir, value.removeprefix("ref:").strip())
        packed = base / "packed-refs"
        if packed.is_file():
            try:
                lines = packed.read_text("utf-8").splitlines()
            except OSError:
                continue
            for line in lines:
                parts = line.split(" ", 1)
                if len(parts) == 2 and parts[1] == ref and _SHA.match(parts[0]):
                    return parts[0]
    return None


def _rev_parse(repo_root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=repo_root, capture_output=True, text=True, timeout=5, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    value = done.stdout.strip()
    return value if done.returncode == 0 and _SHA.match(value) else None


def head_commit(repo_root: Path) -> str | None:
    """The commit HEAD points at, or None (no git, no commits yet)."""
    gitdir = git_dir(repo_root)
    if gitdir is None:
        return None
    try:
        head = (gitdir / "HEAD").read_text("utf-8").strip()
    except OSError:
        return _rev_parse(repo_root)
    if _SHA.match(head):
        return head
    if head.startswith("ref:"):
        ref = head.removeprefix("ref:").strip()
        found = _resolve_ref(gitdir, ref)
        if found is not None:
            return found
        # An unborn branch has neither a loose nor a packed ref; reftable repos need git.
        if (_common_dir(gitdir) / "reftable").is_dir():
            return _rev_parse(repo_root)
        return None
    return _rev_parse(repo_root)


def head_blobs(repo_root: Path, folder: str) -> dict[str, str]:
    """Path (relative to ``repo_root``) → blob id of every file under ``folder`` in HEAD's tree.

    One ``git ls-tree`` (no shell); empty when there is no git, no commit or git fails.
    """
    try:
        done = subprocess.run(
            ["git", "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", folder],
            cwd=repo_root, capture_output=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode != 0:
        return {}
    blobs: dict[str, str] = {}
    for record in done.stdout.split(b"\0"):
        meta, tab, path = record.partition(b"\t")
        parts = meta.split()
        if tab and len(parts) == 3 and parts[1] == b"blob":
            blobs[path.decode("utf-8", "surrogateescape")] = parts[2].decode("ascii")
    return blobs


def blob_id(data: bytes, *, sha256: bool = False) -> str:
    """The id git gives a file with these bytes (sha1, or sha256 in a sha256 repository)."""
    import hashlib

    header = b"blob %d\0" % len(data)
    digest = hashlib.sha256() if sha256 else hashlib.sha1(usedforsecurity=False)
    digest.update(header)
    digest.update(data)
    return digest.hexdigest()
