"""Sending a proposal for review: which commit it is based on, pushing the branch when there is
a remote, a pull request through ``gh`` when it is installed and logged in, and always a patch
file, so a team without a forge (or without a network) can still review by email or by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from teambrain_schema import EnvironmentProblem, UserError
from teambrain_schema.atomic import write_bytes_atomic
from teambrain_schema.git import first_line, network_timeout
from teambrain_schema.gitdir import DEFAULT_BRANCH_NAMES, default_branch
from teambrain_schema.private_dirs import ensure_private_dir

from ._forge import review_link
from ._git import GitRepo
from ._snapshot import ResolvedCommit, resolve_commit

GH_TIMEOUT_S = 120.0
_GH_ENV = {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}


@dataclass(frozen=True)
class ReviewTarget:
    """Where a proposal starts and goes: the base commit, the branch a pull request would
    target (None when the base is not a branch) and the remote to push to (None: no remote)."""

    base: ResolvedCommit
    base_branch: str | None
    remote: str | None


@dataclass(frozen=True)
class ReviewRequest:
    """What happened when a proposal branch was sent for review."""

    branch: str
    commit: str
    remote: str | None
    pushed: bool
    push_error: str | None
    pr_url: str | None
    pr_error: str | None
    patch: Path | None
    # Without a pull request opened (no gh, or it failed): the forge's page that opens one for
    # the pushed branch, or the git commands a reviewer runs when the forge is not known.
    compare_url: str | None = None
    review_commands: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """Plain data for ``--json`` output."""
        return {
            "branch": self.branch,
            "commit": self.commit,
            "remote": self.remote,
            "pushed": self.pushed,
            "push_error": self.push_error,
            "pr_url": self.pr_url,
            "pr_error": self.pr_error,
            "patch": str(self.patch) if self.patch else None,
            "compare_url": self.compare_url,
            "review_commands": list(self.review_commands),
        }


def push_remote(repo: GitRepo) -> str | None:
    """The remote proposals go to: ``remote.pushDefault``, else ``origin``, else the only
    remote; None without remotes (or with several and no way to choose)."""
    remotes = repo.remotes()
    configured = repo.config("remote.pushDefault")
    if configured in remotes:
        return configured
    if "origin" in remotes:
        return "origin"
    return remotes[0] if len(remotes) == 1 else None


def choose_target(repo: GitRepo, base: str | None = None) -> ReviewTarget:
    """The base of a new proposal: ``base`` when given, else the remote's default branch as
    last fetched, else the local default branch, else HEAD (a detached HEAD included)."""
    remote = push_remote(repo)
    if base is not None:
        resolved = resolve_commit(repo, base)
        return ReviewTarget(resolved, _branch_name(repo, base, remote), remote)
    for candidate in _default_candidates(repo, remote):
        if repo.rev_parse(f"{candidate}^{{commit}}") is not None:
            resolved = resolve_commit(repo, candidate)
            return ReviewTarget(resolved, _branch_name(repo, candidate, remote), remote)
    if repo.head() is None:
        brain = "commit .teambrain/"
        if not (repo.root / ".teambrain").is_dir():
            brain = "run `tb init`, commit .teambrain/,"
        raise EnvironmentProblem(f"{repo.root} has no commits yet: {brain} then propose or retire")
    return ReviewTarget(resolve_commit(repo, "HEAD"), repo.current_branch(), remote)


def _default_candidates(repo: GitRepo, remote: str | None) -> list[str]:
    names: list[str] = []
    if remote is not None:
        done = repo.git("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD", check=False)
        target = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode == 0 and target:
            names.append(target.removeprefix("refs/remotes/"))
        names += [f"{remote}/{name}" for name in DEFAULT_BRANCH_NAMES]
        found = default_branch(str(repo.root))  # the rule agents are served by, remote HEAD unknown
        if found is not None and found[0].startswith(f"refs/remotes/{remote}/"):
            names.append(found[0].removeprefix("refs/remotes/"))
    local = [repo.config("init.defaultBranch"), "main", "master"]
    names += [name for name in local if name and repo.ref_exists(f"refs/heads/{name}")]
    return list(dict.fromkeys(names))


def _branch_name(repo: GitRepo, rev: str, remote: str | None) -> str | None:
    """The branch name a pull request would target for ``rev`` (``origin/main`` → ``main``)."""
    if (
        remote is not None
        and rev.startswith(f"{remote}/")
        and repo.ref_exists(f"refs/remotes/{rev}")
    ):
        return rev.removeprefix(f"{remote}/")
    if repo.ref_exists(f"refs/heads/{rev}"):
        return rev
    if rev == "HEAD":
        return repo.current_branch()
    return None


def write_patch(repo: GitRepo, commit: str, branch: str, patch_dir: Path) -> Path:
    """``git format-patch`` of ``commit`` written to ``patch_dir/<branch>.patch`` (private)."""
    data = repo.git("format-patch", "-1", "-M", "--stdout", commit).stdout
    path = patch_dir / (branch.replace("/", "-") + ".patch")
    ensure_private_dir(patch_dir)  # parents too: mkdir(mode=) gives them the umask's
    write_bytes_atomic(path, data, mode=0o600)
    return path


def push_branch(repo: GitRepo, remote: str, branch: str, commit: str) -> str | None:
    """Push ``commit`` to ``remote`` as ``branch``; None on success, else the reason (a branch
    of that name already on the remote, holding other commits, is said so).

    A pushed local branch of that name gets ``remote`` as its upstream, so that once the remote
    branch is deleted (the pull request merged or closed) git reports it gone and teambrain
    tells it from a branch that was never pushed."""
    try:
        done = repo.git(
            "push", "--porcelain", remote, f"{commit}:refs/heads/{branch}",
            timeout=network_timeout(), check=False,
        )  # fmt: skip
    except EnvironmentProblem as exc:
        return exc.message
    if done.returncode != 0:
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        if "[rejected]" in out and remote_has_branch(repo, remote, branch):
            return (
                f"a branch {branch} already exists on {remote} with other commits "
                "(the same change proposed from another machine?)"
            )
        return first_line(err) or f"exit code {done.returncode}"
    set_upstream(repo, remote, branch)
    return None


def set_upstream(repo: GitRepo, remote: str, branch: str) -> None:
    """Record ``remote``'s ``branch`` as the upstream of the local branch of that name (when
    there is one), as ``git push -u`` would."""
    if not repo.ref_exists(f"refs/heads/{branch}"):
        return
    for key, value in (("remote", remote), ("merge", f"refs/heads/{branch}")):
        repo.git("config", f"branch.{branch}.{key}", value, check=False)


def remote_has_branch(repo: GitRepo, remote: str, branch: str) -> bool:
    """True when ``remote`` has ``branch`` now (``git ls-remote``: asks the remote)."""
    try:
        done = repo.git(
            "ls-remote", "--heads", remote, f"refs/heads/{branch}",
            timeout=network_timeout(), check=False,
        )  # fmt: skip
    except EnvironmentProblem:
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


_gh_ready: dict[tuple[str, str], bool] = {}


def gh_ready(repo: GitRepo) -> bool:
    """True when ``gh`` is on PATH and logged in (``gh auth status`` succeeds; asked once per
    process for each repository and ``gh``)."""
    gh = shutil.which("gh")
    if gh is None:
        return False
    key = (str(repo.root), gh)
    if key not in _gh_ready:
        _gh_ready[key] = _gh_logged_in(gh, repo)
    return _gh_ready[key]


def _gh_logged_in(gh: str, repo: GitRepo) -> bool:
    try:
        done = subprocess.run(
            [gh, "auth", "status"], cwd=repo.root, env={**os.environ, **_GH_ENV},
            capture_output=True, timeout=GH_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def open_pull_request(
    repo: GitRepo, *, branch: str, base_branch: str | None, title: str, body: str
) -> tuple[str | None, str | None]:
    """``gh pr create`` for ``branch``; returns (url, None) or (None, gh's reason)."""
    gh = shutil.which("gh")
    if gh is None:
        return None, "gh is not installed"
    with tempfile.TemporaryDirectory(prefix="teambrain-pr-") as scratch:
        body_file = Path(scratch) / "body.md"
        body_file.write_text(body, "utf-8")
        args = [
            gh,
            "pr",
            "create",
            "--head",
            branch,
            "--title",
            title,
            "--body-file",
            str(body_file),
        ]
        if base_branch:
            args += ["--base", base_branch]
        try:
            done = subprocess.run(
                args, cwd=repo.root, env={**os.environ, **_GH_ENV}, capture_output=True,
                text=True, timeout=GH_TIMEOUT_S, check=False,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"gh pr create could not run: {exc}"
    if done.returncode != 0:
        return None, first_line(done.stderr) or f"gh pr create exited {done.returncode}"
    urls = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("http")]
    return (urls[-1] if urls else done.stdout.strip() or None), None


def send_for_review(
    repo: GitRepo,
    *,
    target: ReviewTarget,
    branch: str,
    commit: str,
    title: str,
    body: str,
    patch_dir: Path,
    push: bool = True,
) -> ReviewRequest:
    """Push ``branch`` (when there is a remote and ``push``), open a pull request with ``gh``
    (when pushed, installed and logged in) and write the patch to ``patch_dir``."""
    if not branch:
        raise UserError("no branch to send for review")
    patch = write_patch(repo, commit, branch, patch_dir)
    pushed, push_error, pr_url, pr_error = False, None, None, None
    if push and target.remote is not None:
        push_error = push_branch(repo, target.remote, branch, commit)
        pushed = push_error is None
    if pushed and gh_ready(repo):
        pr_url, pr_error = open_pull_request(
            repo, branch=branch, base_branch=target.base_branch, title=title, body=body
        )
    link = review_link(repo, target, branch) if pushed and pr_url is None else None
    return ReviewRequest(
        branch=branch,
        commit=commit,
        remote=target.remote if push else None,
        pushed=pushed,
        push_error=push_error,
        pr_url=pr_url,
        pr_error=pr_error,
        patch=patch,
        compare_url=link.url if link else None,
        review_commands=link.commands if link else (),
    )
