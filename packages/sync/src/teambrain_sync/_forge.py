"""Where a reviewer opens a proposal without ``gh``: the forge's compare (or new merge request)
page for a pushed branch, from the remote's URL — GitHub, GitLab, Bitbucket Cloud, Gitea (and
Forgejo, Codeberg) — or, for a forge it cannot tell, the git commands a reviewer runs.

Pure functions over URLs and names (no network); :func:`review_link` reads the remotes' URLs
from the repository's config.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol
from urllib.parse import quote, urlencode, urlsplit

if TYPE_CHECKING:
    from ._git import GitRepo
    from ._snapshot import ResolvedCommit


class LinkTarget(Protocol):
    """Where a proposal goes, as far as its review page needs (``_review.ReviewTarget``; a
    protocol here so this module and that one do not import each other)."""

    @property
    def base(self) -> ResolvedCommit: ...
    @property
    def base_branch(self) -> str | None: ...
    @property
    def remote(self) -> str | None: ...
    @property
    def base_remote(self) -> str | None: ...


Forge = Literal["github", "gitlab", "bitbucket", "gitea"]
FORGES: tuple[Forge, ...] = ("github", "gitlab", "bitbucket", "gitea")
# `git config teambrain.forge gitlab`: a self-hosted forge whose name says nothing.
FORGE_CONFIG = "teambrain.forge"
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!/)(.+)$")  # git@host:owner/repo.git


@dataclass(frozen=True)
class RemoteRepository:
    """A repository on a forge, from a remote's URL: its host and path (``owner/repo``, or
    ``group/sub/repo`` on GitLab), and the address of its web pages."""

    host: str
    path: str

    @property
    def web(self) -> str:
        return f"https://{self.host}/{self.path}"

    @property
    def owner(self) -> str:
        return self.path.rsplit("/", 1)[0]


def parse_remote_url(url: str) -> RemoteRepository | None:
    """The repository a remote URL names (``https://``, ``ssh://``, ``git@host:owner/repo``,
    with or without ``.git``); None for a local path, a ``file://`` URL or anything else."""
    url = url.strip()
    if not url:
        return None
    if "://" in url:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http", "ssh", "git", "git+ssh", "ssh+git"):
            return None
        host = parts.hostname or ""
        if parts.scheme in ("https", "http") and parts.port and parts.port not in (80, 443):
            host = f"{host}:{parts.port}"  # a web port; an ssh port is not the web's
        path = parts.path
    else:
        found = _SCP.match(url)
        if found is None or url.startswith(("/", ".", "~")):
            return None
        host, path = found.group(1), found.group(2)
    path = path.strip("/").removesuffix(".git").strip("/")
    if not host or "/" not in path or any(not part for part in path.split("/")):
        return None
    if host.startswith(("ssh.", "altssh.")) and "github" in host:  # ssh.github.com:443
        host = host.split(".", 1)[1]
    return RemoteRepository(host.lower(), path)


def forge_of(host: str, configured: str | None = None) -> Forge | None:
    """Which forge serves ``host``: ``configured`` (``teambrain.forge``) when it names one, else
    the name in the host (github, gitlab, bitbucket; gitea, forgejo, codeberg are Gitea's);
    None when neither says."""
    if configured and configured.strip().lower() in FORGES:
        return configured.strip().lower()  # type: ignore[return-value]
    name = host.lower()
    for forge, marks in (
        ("github", ("github",)), ("gitlab", ("gitlab",)), ("bitbucket", ("bitbucket",)),
        ("gitea", ("gitea", "forgejo", "codeberg")),
    ):  # fmt: skip
        if any(mark in name for mark in marks):
            return forge  # type: ignore[return-value]
    return None


def compare_url(
    pushed_to: RemoteRepository,
    branch: str,
    base_branch: str,
    *,
    base: RemoteRepository | None = None,
    forge: Forge,
) -> str:
    """The page that opens a pull (merge) request of ``branch``, pushed to ``pushed_to``, into
    ``base_branch`` of ``base`` (default: the same repository; a fork's proposal goes to the
    repository the team merges into), as each forge documents it:

    - GitHub: ``<base>/compare/<base_branch>...<owner>:<branch>?expand=1`` (the owner only
      across forks);
    - GitLab: ``<pushed_to>/-/merge_requests/new?merge_request[source_branch]=…&
      merge_request[target_branch]=…`` (a fork's page targets the project it forked);
    - Bitbucket Cloud: ``<pushed_to>/pull-requests/new?source=<branch>&dest=<base path>:<base_branch>``;
    - Gitea and Forgejo: ``<base>/compare/<base_branch>...<owner/repo:><branch>``.
    """
    base = base or pushed_to
    across = base != pushed_to
    if forge == "github":
        head = f"{pushed_to.owner}:{branch}" if across else branch
        return (
            f"{base.web}/compare/{quote(base_branch, safe='/')}...{quote(head, safe='/:')}?expand=1"
        )
    if forge == "gitlab":
        query = urlencode({"merge_request[source_branch]": branch,
                           "merge_request[target_branch]": base_branch})  # fmt: skip
        return f"{pushed_to.web}/-/merge_requests/new?{query}"
    if forge == "bitbucket":
        query = urlencode({"source": branch, "dest": f"{base.path}:{base_branch}"})
        return f"{pushed_to.web}/pull-requests/new?{query}"
    head = f"{pushed_to.path}:{branch}" if across else branch
    return f"{base.web}/compare/{quote(base_branch, safe='/')}...{quote(head, safe='/:')}"


def reviewer_commands(
    pushed_to: str, branch: str, base_ref: str | None, base_branch: str | None,
    base_remote: str | None = None,
) -> list[str]:  # fmt: skip
    """What a reviewer runs when no forge page can be named: fetch the branch from where it was
    pushed, read what it changes against the base, merge it into the base branch and push."""
    base = base_ref or "HEAD"
    commands = [f"git fetch {pushed_to} {branch}", f"git diff {base}...FETCH_HEAD"]
    if base_branch:
        into = base_remote or pushed_to
        commands.append(
            f"git switch {base_branch} && git merge --no-ff FETCH_HEAD && git push {into} {base_branch}"
        )
    else:
        commands.append("git merge --no-ff FETCH_HEAD")
    return commands


def _remote_url(repo: GitRepo, remote: str) -> str | None:
    """The URL that names ``remote``'s repository on its forge: the fetch URL (``insteadOf``
    applied), not a ``pushInsteadOf`` rewrite to another transport of the same repository."""
    done = repo.git("remote", "get-url", remote, check=False)
    url = done.stdout.decode("utf-8", "replace").strip()
    return url if done.returncode == 0 and url else None


@dataclass(frozen=True)
class ReviewLink:
    """Where a pushed proposal is reviewed: the forge's page (``url``), or when the forge is not
    known, the commands a reviewer runs."""

    url: str | None
    commands: tuple[str, ...] = ()
    forge: Forge | None = None


def base_remote(repo: GitRepo, target: LinkTarget) -> str | None:
    """The remote whose branch a proposal is based on (``upstream`` for ``upstream/main``), else
    the remote it is pushed to."""
    if target.base_remote is not None:  # the project, in a fork (sync/_remotes)
        return target.base_remote
    requested = target.base.requested or ""
    for name in sorted(repo.remotes(), key=len, reverse=True):
        if requested.startswith(f"{name}/"):
            return name
    return target.remote


def review_link(repo: GitRepo, target: LinkTarget, branch: str) -> ReviewLink | None:
    """The review page of ``branch`` once pushed to ``target.remote``, into ``target.base_branch``
    of the repository the base comes from; the reviewer's git commands when the forge is not
    known; None without a remote or a base branch to name."""
    remote = target.remote
    if remote is None:
        return None
    pushed_url = _remote_url(repo, remote)
    pushed = parse_remote_url(pushed_url) if pushed_url else None
    origin = base_remote(repo, target)
    base_url = _remote_url(repo, origin) if origin and origin != remote else None
    base = parse_remote_url(base_url) if base_url else None
    forge = forge_of(pushed.host, repo.config(FORGE_CONFIG)) if pushed else None
    if pushed is None or forge is None or not target.base_branch:
        base_ref = target.base.requested if origin and target.base.requested else None
        commands = reviewer_commands(remote, branch, base_ref, target.base_branch, origin)
        return ReviewLink(None, tuple(commands))
    if base is not None and base.host != pushed.host:
        base = None  # another forge altogether: the page of the repository pushed to
    return ReviewLink(
        compare_url(pushed, branch, target.base_branch, base=base, forge=forge), (), forge
    )
