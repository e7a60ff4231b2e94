"""Reading a repository's HEAD from its ``.git`` files, without starting git (stdlib only).

Shared by the capture hook (every agent tool call: spawning git costs more than the whole hook
may) and retrieval (before every answer). Handles a ``.git`` directory or a linked work tree's
``.git`` file, symbolic and detached HEADs, loose and packed refs, sha1 and sha256 ids. What it
cannot read (a reftable repository, an unreadable HEAD) is None; callers may ask git then.
"""

from __future__ import annotations

import os

__all__ = [
    "DEFAULT_BRANCH_NAMES",
    "DETACHED",
    "default_branch",
    "file_stamp",
    "find_git",
    "git_dirs_at",
    "git_state_stamps",
    "is_sha",
    "read_branch",
    "read_git_file",
    "read_head_sha",
    "read_ref_sha",
    "remote_default_branch",
    "remote_roles",
    "remote_slug",
]

DETACHED = "HEAD"  # what ``git rev-parse --abbrev-ref HEAD`` says for a detached HEAD
_HEX = frozenset("0123456789abcdef")


def read_git_file(path: str) -> str | None:
    """A small text file of the git directory (HEAD, a ref, config), or None if unreadable."""
    from .local_files import read_local_bytes

    try:
        return read_local_bytes(path, max_bytes=1024 * 1024).decode("utf-8", errors="replace")
    except OSError:
        return None


def is_sha(text: str) -> bool:
    """True for a full object id: 40 (sha1) or 64 (sha256) lower-case hex digits."""
    return len(text) in (40, 64) and all(char in _HEX for char in text)


def git_dirs_at(work_tree: str) -> tuple[str, str] | None:
    """``(git dir, common git dir)`` when ``work_tree`` itself holds ``.git`` (no walking up)."""
    dot_git = os.path.join(work_tree, ".git")
    if os.path.isdir(dot_git):
        git_dir = dot_git
    elif os.path.isfile(dot_git):  # a linked work tree or submodule: "gitdir: <path>"
        content = (read_git_file(dot_git) or "").strip()
        if not content.startswith("gitdir:"):
            return None
        git_dir = os.path.normpath(os.path.join(work_tree, content[7:].strip()))
    else:
        return None
    common = (read_git_file(os.path.join(git_dir, "commondir")) or "").strip()
    common_dir = os.path.normpath(os.path.join(git_dir, common)) if common else git_dir
    return git_dir, common_dir


Stamp = tuple[int, int, int] | None  # (mtime_ns, size, inode) of a file; None when missing


def file_stamp(path: str) -> Stamp:
    """``path``'s (mtime_ns, size, inode), or None when it cannot be stat-ed."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size, stat.st_ino)


def git_state_stamps(work_tree: str) -> tuple[Stamp, ...]:
    """The stamps of git's ``index`` and ``HEAD`` for the work tree at ``work_tree`` (empty
    outside git): any commit, pull, checkout, merge, reset or ``git add`` moves one of them."""
    found = git_dirs_at(work_tree)
    if found is None:
        return ()
    return (file_stamp(os.path.join(found[0], "index")), file_stamp(os.path.join(found[0], "HEAD")))


def find_git(start: str) -> tuple[str, str, str] | None:
    """``(work tree root, git dir, common git dir)`` of the repository enclosing ``start``."""
    current = os.path.realpath(start)
    while True:
        found = git_dirs_at(current)
        if found is not None:
            return current, found[0], found[1]
        if os.path.exists(os.path.join(current, ".git")):
            return None  # a .git file that names no git dir
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read_branch(git_dir: str) -> str:
    """The checked-out branch (``feature/x``), ``HEAD`` when detached."""
    head = (read_git_file(os.path.join(git_dir, "HEAD")) or "").strip()
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref.removeprefix("refs/heads/") or DETACHED
    return DETACHED


def _packed_ref(common_dir: str, ref: str) -> str | None:
    for line in (read_git_file(os.path.join(common_dir, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref and is_sha(sha):
            return sha
    return None


def read_head_sha(git_dir: str, common_dir: str) -> str | None:
    """The commit HEAD points at, or None (no commit yet, or unreadable)."""
    return _resolve(
        git_dir, common_dir, (read_git_file(os.path.join(git_dir, "HEAD")) or "").strip()
    )


def read_ref_sha(git_dir: str, common_dir: str, ref: str) -> str | None:
    """The object ``ref`` (``refs/remotes/origin/main``) points at, loose or packed, following
    symbolic refs; None when it does not exist or cannot be read."""
    return _resolve(git_dir, common_dir, f"ref: {ref}")


def _resolve(git_dir: str, common_dir: str, value: str) -> str | None:
    for _ in range(5):  # symbolic refs may chain; a loop is a broken repository
        if is_sha(value):
            return value
        if not value.startswith("ref:"):
            return None
        ref = value[4:].strip()
        if ".." in ref.split("/") or not ref.startswith(("refs/", "HEAD")):
            return None
        loose = read_git_file(os.path.join(git_dir, ref))
        if loose is None and common_dir != git_dir:
            loose = read_git_file(os.path.join(common_dir, ref))
        value = loose.strip() if loose is not None else (_packed_ref(common_dir, ref) or "")
    return None


def _config_remotes(
    common_dir: str,
) -> tuple[list[str], str | None, dict[str, str], dict[str, str]]:
    """What ``config`` says of the remotes: their names (``[remote "origin"]``, in order),
    ``remote.pushDefault``, each remote's ``gh-resolved`` (``gh repo set-default``) and URL."""
    import re

    remotes: list[str] = []
    push_default = None
    resolved: dict[str, str] = {}
    urls: dict[str, str] = {}
    section, name = "", ""
    for raw in (read_git_file(os.path.join(common_dir, "config")) or "").splitlines():
        line = raw.strip()
        header = re.match(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]', line)
        if header:
            section, name = header.group(1).lower(), ""
            if section == "remote" and header.group(2) is not None:
                name = header.group(2)
                remotes.append(name)
                section = "remote."
            line = line[header.end() :].strip()
        if "=" not in line or line.startswith(("#", ";")):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip().lower(), value.strip().strip('"')
        if section == "remote" and key == "pushdefault":
            push_default = value
        elif section == "remote." and key == "gh-resolved":
            resolved[name] = value
        elif section == "remote." and key == "url":
            urls.setdefault(name, value)  # git uses the first url to fetch
    return list(dict.fromkeys(remotes)), push_default, resolved, urls


def remote_slug(url: str) -> tuple[str, str, str] | None:
    """``(host, owner, name)`` of a forge repository URL, as ``gh`` reads a remote:
    ``https://github.com/acme/shop.git``, ``git@github.com:acme/shop.git`` and
    ``ssh://git@github.com/acme/shop`` are all ``("github.com", "acme", "shop")``. None for a
    local path or anything that is not ``host/owner/name``."""
    text = url.strip()
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme.lower() == "file":
            return None
        authority, _, path = rest.partition("/")
        host = authority.rpartition("@")[2].partition(":")[0]
    elif ":" in text.partition("/")[0]:  # scp-like [user@]host:owner/name
        authority, _, path = text.partition(":")
        host = authority.rpartition("@")[2]
    else:
        return None
    parts = path.strip("/").split("/")
    if not host or len(parts) != 2:
        return None
    owner, name = parts[0], parts[1].removesuffix(".git")
    if not owner or not name or any(c in owner + name for c in " \t\n\\"):
        return None
    return host.lower().removeprefix("www."), owner, name


# gh's order of preference for the repository a fork is made from (cli/cli context/remote.go).
BASE_REMOTE_NAMES = ("upstream", "github", "origin")


def remote_roles(
    remotes: list[str],
    push_default: str | None,
    resolved: dict[str, str] | None = None,
    urls: dict[str, str] | None = None,
) -> tuple[str | None, str | None]:
    """``(base, push)``: the remote of the repository the team merges into — the brain's source
    of truth, what is served and what proposals start from — and the remote proposal branches
    are pushed to. They differ in a fork: ``gh repo fork`` makes ``origin`` the fork and
    ``upstream`` the project; others keep ``origin`` for the project and push to their fork with
    ``remote.pushDefault``.

    The base, as ``gh`` resolves it: the remote ``gh repo set-default`` marked
    (``remote.<name>.gh-resolved``), else ``upstream``, ``github``, ``origin``, else the only
    remote, else — two remotes and ``remote.pushDefault`` naming one — the other. The push
    remote, as ``git push`` chooses: ``remote.pushDefault``, else ``origin``, else the base.
    Either is None when nothing decides it."""
    resolved, urls = resolved or {}, urls or {}
    base = None
    for name in remotes:
        mark = resolved.get(name, "")
        if mark == "base":
            base = name
            break
        if "/" in mark:  # "owner/name": the remote whose URL is that repository
            owner, _, repo = mark.partition("/")
            for other in remotes:
                slug = remote_slug(urls.get(other, ""))
                if slug and (slug[1].lower(), slug[2].lower()) == (owner.lower(), repo.lower()):
                    base = other
                    break
            if base is not None:
                break
    if base is None:
        base = next((name for name in BASE_REMOTE_NAMES if name in remotes), None)
    if base is None and len(remotes) == 1:
        base = remotes[0]
    if base is None and len(remotes) == 2 and push_default in remotes:
        base = next(name for name in remotes if name != push_default)
    if push_default in remotes:
        push: str | None = push_default
    elif "origin" in remotes:
        push = "origin"
    else:
        push = base
    return base, push


# Names a team's default branch has when the clone does not know the remote's HEAD (a clone
# made with `git init`, `git remote add` and `git fetch`, as CI and existing checkouts are).
DEFAULT_BRANCH_NAMES = ("main", "master", "trunk")


def _remote_branches(common_dir: str, base: str) -> list[str]:
    """Every ref under ``base`` (``refs/remotes/origin/``), loose or packed, except ``HEAD``."""
    found: set[str] = set()
    top = os.path.join(common_dir, *base.rstrip("/").split("/"))
    for folder, _dirs, files in os.walk(top):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), top).replace(os.sep, "/")
            found.add(base + rel)
    for line in (read_git_file(os.path.join(common_dir, "packed-refs")) or "").splitlines():
        sha, _, name = line.partition(" ")
        if is_sha(sha) and name.strip().startswith(base):
            found.add(name.strip())
    found.discard(base + "HEAD")
    return sorted(found)


def default_branch(work_tree: str) -> tuple[str, str] | None:
    """``(ref, sha)`` of the team's default branch as last fetched — ``refs/remotes/<remote>/HEAD``'s
    target, else ``<remote>/main``, ``master`` or ``trunk``, else the remote's only branch that
    is not a ``teambrain/`` proposal — for the remote of the repository the team merges into
    (:func:`remote_roles`: in a fork, ``upstream``, not the fork), or, before that one is
    fetched, the remote proposals are pushed to. None without a remote or before its first
    fetch. Read from ``.git`` files: no git process (retrieval asks before every answer)."""
    found = find_git(work_tree)
    if found is None:
        return None
    _root, git_dir, common_dir = found
    remotes, push_default, resolved, urls = _config_remotes(common_dir)
    base, push = remote_roles(remotes, push_default, resolved, urls)
    for remote in dict.fromkeys(r for r in (base, push) if r is not None):
        branch = remote_default_branch(git_dir, common_dir, remote)
        if branch is not None:
            return branch
    return None


def remote_default_branch(git_dir: str, common_dir: str, remote: str) -> tuple[str, str] | None:
    """``(ref, sha)`` of ``remote``'s default branch as last fetched (see
    :func:`default_branch`), or None when it has no branch fetched that could be it."""
    if "/" in remote or remote.startswith(".") or not remote:
        return None
    base = f"refs/remotes/{remote}/"
    names = []
    head = (read_git_file(os.path.join(common_dir, base + "HEAD")) or "").strip()
    if head.startswith(f"ref: {base}"):
        names.append(head[5:].strip())
    names += [base + name for name in DEFAULT_BRANCH_NAMES]
    for ref in names:
        sha = read_ref_sha(git_dir, common_dir, ref)
        if sha is not None:
            return ref, sha
    others = [
        ref for ref in _remote_branches(common_dir, base)
        if not ref.startswith(base + "teambrain/")
    ]  # fmt: skip
    if len(others) == 1:
        sha = read_ref_sha(git_dir, common_dir, others[0])
        if sha is not None:
            return others[0], sha
    return None


def config_remote_roles(common_dir: str) -> tuple[str | None, str | None]:
    """:func:`remote_roles` of the repository whose common git directory is ``common_dir``,
    from its ``config`` file (no git process)."""
    return remote_roles(*_config_remotes(common_dir))
