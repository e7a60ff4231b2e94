"""Which remote is which: the repository the team merges into (the brain's source of truth, what
proposals start from and pull requests target) and the one proposal branches are pushed to —
the same remote in a shared repository, two in a fork — and what that repository's default
branch is now.

The roles follow ``gh`` and ``git`` (:func:`teambrain_kit.gitdir.remote_roles`), read here
through ``git config`` so that included and global files count. The remote's default branch is
asked with one ``git ls-remote --symref`` by the verbs that reach the remote anyway (``tb
propose`` and ``tb retire`` when they push, ``tb doctor --online``); the answer is kept in
``$TEAMBRAIN_HOME/proposals/remote-heads.json`` so that what stays offline (``tb doctor``, ``tb
serve``) can say it too.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from teambrain_kit.git import network_timeout
from teambrain_kit.gitdir import remote_default_branch, remote_roles, remote_slug
from teambrain_schema import EnvironmentProblem

from ._cachefile import keep_entry
from ._git import GitRepo

HEADS_CACHE = "remote-heads.json"
_MAX_CACHE_ENTRIES = 200


@dataclass(frozen=True)
class RemoteRoles:
    """The base remote (the repository the team merges into) and the push remote (where this
    machine's proposal branches go), with each remote's URL; None when there is no remote."""

    base: str | None
    push: str | None
    urls: dict[str, str]

    @property
    def fork(self) -> bool:
        """True when proposal branches go to another repository than the one they target."""
        return self.base is not None and self.push is not None and self.base != self.push

    def slug(self, remote: str | None) -> tuple[str, str, str] | None:
        """``(host, owner, name)`` of ``remote``'s URL, or None (a local path, no remote)."""
        return remote_slug(self.urls.get(remote, "")) if remote else None

    def gh_repo(self) -> str | None:
        """The base repository as ``gh --repo`` takes it (``owner/name``, ``host/owner/name``
        off github.com), or None when its URL does not name one."""
        slug = self.slug(self.base)
        if slug is None:
            return None
        host, owner, name = slug
        return f"{owner}/{name}" if host == "github.com" else f"{host}/{owner}/{name}"

    def gh_head(self, branch: str) -> str:
        """``branch`` as ``gh pr create --head`` takes it: ``owner:branch`` when it lives in a
        fork (another owner than the base's), else the branch alone."""
        base, push = self.slug(self.base), self.slug(self.push)
        if self.fork and push is not None and (base is None or push[1:] != base[1:]):
            return f"{push[1]}:{branch}"
        return branch


def remote_roles_of(repo: GitRepo) -> RemoteRoles:
    """The remotes' roles in ``repo`` (one ``git config`` call)."""
    done = repo.git("config", "--get-regexp", r"^remote\.", check=False)
    remotes: list[str] = []
    push_default: str | None = None
    resolved: dict[str, str] = {}
    urls: dict[str, str] = {}
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(" ")
        if key.lower() == "remote.pushdefault":
            push_default = value.strip()
            continue
        name, _, variable = key.removeprefix("remote.").rpartition(".")
        if not name:
            continue
        if variable.lower() in ("url", "fetch") and name not in remotes:
            remotes.append(name)
        if variable.lower() == "url":
            urls.setdefault(name, value.strip())
        elif variable.lower() == "gh-resolved":
            resolved[name] = value.strip()
    base, push = remote_roles(remotes, push_default, resolved, urls)
    return RemoteRoles(base, push, urls)


@dataclass(frozen=True)
class RemoteHead:
    """What a remote says its default branch is now, against what this clone has fetched."""

    remote: str
    branch: str  # the remote's HEAD now: trunk
    tracked: str | None  # the branch refs/remotes/<remote>/HEAD names here (main), if any
    fetched: bool  # refs/remotes/<remote>/<branch> exists here

    @property
    def moved(self) -> bool:
        """True when this clone still names another branch the default."""
        return self.tracked is not None and self.tracked != self.branch

    @property
    def fix(self) -> str:
        """The command that makes this clone follow the remote's default branch."""
        fix = f"git remote set-head {self.remote} --auto"
        return fix if self.fetched else f"git fetch {self.remote} && {fix}"

    def what(self) -> str:
        """What moved: ``origin's default branch is now trunk, but this clone still …``."""
        return (
            f"{self.remote}'s default branch is now {self.branch}, but this clone still takes "
            f"{self.remote}/{self.tracked} for it"
        )

    def message(self, doing: str | None = None) -> str:
        """One line: what moved, what is done about it (``doing``), and the fix."""
        return f"{self.what()}: " + (f"{doing}; " if doing else "") + f"run `{self.fix}`"

    def to_json(self) -> dict[str, object]:
        return {"remote": self.remote, "branch": self.branch, "tracked": self.tracked}


def default_branch_name(repo: GitRepo, remote: str) -> str | None:
    """The branch this clone takes for ``remote``'s default as last fetched (``main``): what
    its ``<remote>/HEAD`` names, else ``main``, ``master``, ``trunk`` or its only branch."""
    found = remote_default_branch(str(repo.git_dir), str(repo.common_dir), remote)
    return found[0].removeprefix(f"refs/remotes/{remote}/") if found else None


def tracked_head(repo: GitRepo, remote: str) -> str | None:
    """The branch ``refs/remotes/<remote>/HEAD`` names in this clone (``main``), or None."""
    done = repo.git("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD", check=False)
    target = done.stdout.decode("utf-8", "replace").strip()
    prefix = f"refs/remotes/{remote}/"
    return (
        target.removeprefix(prefix) if done.returncode == 0 and target.startswith(prefix) else None
    )


def ask_remote_head(repo: GitRepo, remote: str, *, assumed: str | None = None) -> RemoteHead | None:
    """Ask ``remote`` which branch its HEAD is now (``git ls-remote --symref``: one round
    trip); None when it cannot be asked (offline, no such remote, a HEAD that names nothing).
    ``assumed``: the default branch this clone would use when it has no ``<remote>/HEAD``."""
    try:
        done = repo.git(
            "ls-remote", "--symref", remote, "HEAD", timeout=min(network_timeout(), 30.0),
            check=False,
        )  # fmt: skip
    except EnvironmentProblem:
        return None
    if done.returncode != 0:
        return None
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        ref, _, name = line.partition("\t")
        if name.strip() == "HEAD" and ref.startswith("ref: refs/heads/"):
            branch = ref.removeprefix("ref: refs/heads/").strip()
            if not branch:
                return None
            tracked = tracked_head(repo, remote) or assumed
            fetched = repo.ref_exists(f"refs/remotes/{remote}/{branch}")
            return RemoteHead(remote, branch, tracked, fetched)
    return None


def _key(repo: GitRepo) -> str:
    return str(repo.common_dir)


def remember_remote_head(cache_dir: Path, repo: GitRepo, head: RemoteHead) -> None:
    """Keep what ``remote`` said (see :func:`known_remote_head`); a cache: failures are quiet."""
    entry = {
        "remote": head.remote,
        "branch": head.branch,
        "asked": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    keep_entry(cache_dir / HEADS_CACHE, _key(repo), entry, max_entries=_MAX_CACHE_ENTRIES)


def known_remote_head(cache_dir: Path, repo: GitRepo) -> RemoteHead | None:
    """The base remote's default branch as last asked from this machine, against what this
    clone names now (no network); None when never asked or the base remote changed since."""
    try:
        data = json.loads((cache_dir / HEADS_CACHE).read_text("utf-8"))
        entry = data.get(_key(repo)) if isinstance(data, dict) else None
        if not isinstance(entry, dict):
            return None
        remote, branch = entry.get("remote"), entry.get("branch")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(remote, str) or not isinstance(branch, str) or not branch:
        return None
    if remote != remote_roles_of(repo).base:
        return None
    tracked = tracked_head(repo, remote) or default_branch_name(repo, remote)
    return RemoteHead(remote, branch, tracked, repo.ref_exists(f"refs/remotes/{remote}/{branch}"))


def check_remote_head(
    repo: GitRepo | Path, cache_dir: Path | None = None, *, ask: bool
) -> RemoteHead | None:
    """The base remote's default branch when it is not the one this clone follows: asked of
    the remote when ``ask`` (and kept in ``cache_dir``), else as last asked; None when nothing
    moved or nobody knows. ``repo`` may be the work tree's path: offline, with nothing ever
    asked from this machine, no git process runs (``tb serve`` asks at start)."""
    if not ask and (cache_dir is None or not (cache_dir / HEADS_CACHE).is_file()):
        return None
    if isinstance(repo, Path):
        from ._git import open_repo

        repo = open_repo(repo)
    roles = remote_roles_of(repo)
    if roles.base is None:
        return None
    if ask:
        head = ask_remote_head(repo, roles.base, assumed=default_branch_name(repo, roles.base))
        if head is not None and cache_dir is not None:
            remember_remote_head(cache_dir, repo, head)
    else:
        head = known_remote_head(cache_dir, repo) if cache_dir is not None else None
    return head if head is not None and head.moved else None
