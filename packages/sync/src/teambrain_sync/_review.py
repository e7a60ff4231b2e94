"""Sending a proposal for review: which commit it is based on, pushing the branch when there is
a remote, a pull request through ``gh`` when it is installed and logged in, and always a patch
file, so a team without a forge (or without a network) can still review by email or by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from teambrain_kit.atomic import write_bytes_atomic
from teambrain_kit.git import first_line, network_timeout
from teambrain_kit.gitdir import DEFAULT_BRANCH_NAMES
from teambrain_kit.private_dirs import ensure_private_dir
from teambrain_schema import EnvironmentProblem, UserError

from ._branches import ProposalBranch
from ._forge import review_link
from ._git import GitRepo
from ._remotes import RemoteRoles, check_remote_head, default_branch_name, remote_roles_of
from ._snapshot import ResolvedCommit, resolve_commit

GH_TIMEOUT_S = 120.0
_GH_ENV = {"GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "NO_COLOR": "1"}


@dataclass(frozen=True)
class ReviewTarget:
    """Where a proposal starts and goes: the base commit, the branch a pull request would
    target (None when the base is not a branch), the remote to push to (None: no remote) and
    the remote of the repository the team merges into (another one in a fork)."""

    base: ResolvedCommit
    base_branch: str | None
    remote: str | None
    base_remote: str | None = None
    # What the user should know about the base: the remote's default branch moved.
    notes: tuple[str, ...] = ()


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

    @property
    def pr_failed(self) -> bool:
        """True when the branch was pushed and ``gh``, logged in, did not open its pull request
        (a base branch the remote does not have, a fork it cannot see): not sent for review."""
        return self.pushed and self.pr_url is None and self.pr_error is not None

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
    """The remote proposals go to: ``remote.pushDefault``, else ``origin``, else the remote
    of the repository the team merges into (see :func:`remote_roles_of`); None without
    remotes (or with several and no way to choose)."""
    return remote_roles_of(repo).push


def choose_target(
    repo: GitRepo,
    base: str | None = None,
    *,
    ask_remote: bool = False,
    cache_dir: Path | None = None,
) -> ReviewTarget:
    """The base of a new proposal: ``base`` when given, else the default branch, as last
    fetched, of the repository the team merges into (``upstream`` in a fork), else the local
    default branch, else HEAD (a detached HEAD included).

    ``ask_remote`` (a run that reaches the remote anyway): ask that remote which branch is its
    default now; when it moved (``main`` renamed ``trunk``) and this clone has fetched the new
    one, start there and say so in ``notes``, else stop (:class:`EnvironmentProblem`) with the
    command that fixes it. The answer is kept in ``cache_dir`` for what stays offline."""
    roles = remote_roles_of(repo)
    remote, base_remote = roles.push, roles.base
    if base is not None:
        resolved = resolve_commit(repo, base)
        branch = _branch_name(repo, base, (base_remote, remote))
        return ReviewTarget(resolved, branch, remote, base_remote)
    notes: tuple[str, ...] = ()
    head = check_remote_head(repo, cache_dir, ask=True) if ask_remote else None
    if head is not None:
        if not head.fetched:
            raise EnvironmentProblem(head.message())
        notes = (head.message(f"proposing on {head.remote}/{head.branch}"),)
        resolved = resolve_commit(repo, f"{head.remote}/{head.branch}")
        return ReviewTarget(resolved, head.branch, remote, base_remote, notes)
    if base_remote not in (None, remote) and default_branch_name(repo, base_remote) is None:
        raise EnvironmentProblem(
            f"{base_remote}, the repository your team merges into, has not been fetched "
            f"here: run `git fetch {base_remote}`, then propose again"
        )
    for candidate in _default_candidates(repo, base_remote):
        if repo.rev_parse(f"{candidate}^{{commit}}") is not None:
            resolved = resolve_commit(repo, candidate)
            branch = _branch_name(repo, candidate, (base_remote, remote))
            return ReviewTarget(resolved, branch, remote, base_remote)
    if repo.head() is None:
        brain = "commit .teambrain/"
        if not (repo.root / ".teambrain").is_dir():
            brain = "run `tb init`, commit .teambrain/,"
        raise EnvironmentProblem(f"{repo.root} has no commits yet: {brain} then propose or retire")
    return ReviewTarget(resolve_commit(repo, "HEAD"), repo.current_branch(), remote, base_remote)


def _default_candidates(repo: GitRepo, remote: str | None) -> list[str]:
    names: list[str] = []
    if remote is not None:
        done = repo.git("symbolic-ref", "--quiet", f"refs/remotes/{remote}/HEAD", check=False)
        target = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode == 0 and target:
            names.append(target.removeprefix("refs/remotes/"))
        names += [f"{remote}/{name}" for name in DEFAULT_BRANCH_NAMES]
        found = default_branch_name(repo, remote)  # the rule agents are served by
        if found is not None:
            names.append(f"{remote}/{found}")
    local = [repo.config("init.defaultBranch"), "main", "master"]
    names += [name for name in local if name and repo.ref_exists(f"refs/heads/{name}")]
    return list(dict.fromkeys(names))


def _branch_name(repo: GitRepo, rev: str, remotes: tuple[str | None, ...]) -> str | None:
    """The branch name a pull request would target for ``rev`` (``origin/main`` → ``main``)."""
    for remote in remotes:
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
    of that name already on the remote, holding other commits, is said so). A push the server
    refused (a pre-receive hook, a protected branch) gives every ``remote:`` line it sent, in
    order, bounded (see :func:`push_refusal`): the actionable one is rarely the first.

    A pushed local branch of that name gets ``remote`` as its upstream, so that once the remote
    branch is deleted (the pull request merged or closed) git reports it gone and teambrain
    tells it from a branch that was never pushed."""
    try:
        done = repo.git(
            "push", "--porcelain", remote, f"{commit}:refs/heads/{branch}",
            timeout=network_timeout(), check=False,
        )  # fmt: skip
    except EnvironmentProblem as exc:
        mark_unsent(repo, branch, True)
        return exc.message
    if done.returncode != 0:
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        if "[rejected]" in out and remote_has_branch(repo, remote, branch):
            # A teammate's branch of the same change: sending this one again cannot work.
            return (
                f"a branch {branch} already exists on {remote} with other commits "
                "(the same change proposed from another machine?)"
            )
        mark_unsent(repo, branch, True)
        return push_refusal(out, err) or f"exit code {done.returncode}"
    mark_unsent(repo, branch, False)
    set_upstream(repo, remote, branch)
    return None


MAX_REMOTE_LINES = 20
MAX_REMOTE_LINE_CHARS = 300


def _printable(text: str) -> str:
    """``text`` without control characters (a server's ANSI colours, a stray carriage return):
    what a remote sends is printed on the user's terminal."""
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", text)  # CSI sequences (colours)
    return "".join(ch if ch.isprintable() or ch == "\t" else " " for ch in text).strip()


def push_refusal(stdout: str, stderr: str) -> str:
    """Why a push failed, from git's output: every ``remote:`` line the server sent (at most
    :data:`MAX_REMOTE_LINES`, each cut to :data:`MAX_REMOTE_LINE_CHARS` characters, control
    characters removed), then git's own reason (``! [remote rejected] … (pre-receive hook
    declined)``); empty when git said nothing."""
    said: list[str] = []
    reason = ""
    dropped = 0
    for raw in stderr.replace("\r", "\n").splitlines():
        line = _printable(raw)
        if line.startswith("remote:"):
            text = _printable(line.removeprefix("remote:"))
            if not text:
                continue
            if len(said) < MAX_REMOTE_LINES:
                cut = (
                    text
                    if len(text) <= MAX_REMOTE_LINE_CHARS
                    else text[: MAX_REMOTE_LINE_CHARS - 1] + "…"
                )
                said.append(f"remote: {cut}")
            else:
                dropped += 1
        elif not reason and line and not line.startswith(("To ", "hint:")):
            reason = line.removeprefix("fatal: ").removeprefix("error: ")
    if dropped:
        said.append(f"remote: … ({dropped} more line{'s' if dropped != 1 else ''})")
    for raw in stdout.splitlines():  # --porcelain: "!\t<src>:<dst>\t[remote rejected] (why)"
        fields = raw.split("\t")
        if len(fields) >= 3 and fields[0] == "!":
            reason = _printable(fields[2])[:MAX_REMOTE_LINE_CHARS]
            break
    first = reason or (said[0] if said else "")
    rest = [line for line in said if line != first]
    return "\n".join([first, *rest]) if first else ""


UNSENT_KEY = "teambrain-unsent"


def mark_unsent(repo: GitRepo, branch: str, unsent: bool) -> None:
    """Record on the local proposal branch ``branch`` (when there is one) that it did not reach
    review — its push, or its pull request, failed — so that the next verb that reaches the
    remote sends it (see :func:`unsent_branches`); cleared once it is pushed (and its pull
    request opened, when ``gh`` is logged in)."""
    if not repo.ref_exists(f"refs/heads/{branch}"):
        return
    key = f"branch.{branch}.{UNSENT_KEY}"
    if unsent:
        repo.git("config", key, "true", check=False)
    elif repo.config(key) is not None:
        repo.git("config", "--unset-all", key, check=False)


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
    """``gh pr create`` for ``branch``, against the repository the team merges into (``--repo``
    and ``--head owner:branch`` when the branch was pushed to a fork); returns (url, None) or
    (None, gh's reason). A pull request of ``branch`` that is already open is its URL."""
    gh = shutil.which("gh")
    if gh is None:
        return None, "gh is not installed"
    roles = remote_roles_of(repo)
    with tempfile.TemporaryDirectory(prefix="teambrain-pr-") as scratch:
        body_file = Path(scratch) / "body.md"
        body_file.write_text(body, "utf-8")
        args = [gh, "pr", "create", *gh_repo_args(roles), "--head", roles.gh_head(branch),
                "--title", title, "--body-file", str(body_file)]  # fmt: skip
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
        if "already exists" in done.stderr:
            urls = [w for w in done.stderr.split() if w.startswith(("https://", "http://"))]
            if urls:
                return urls[-1], None
        return None, _printable(first_line(done.stderr)) or f"gh pr create exited {done.returncode}"
    urls = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("http")]
    return (urls[-1] if urls else done.stdout.strip() or None), None


def gh_repo_args(roles: RemoteRoles) -> list[str]:
    """``["--repo", "owner/name"]`` naming the repository the team merges into, when a fork
    makes it worth saying and its URL names it; else nothing (gh resolves it the same way)."""
    repo = roles.gh_repo() if roles.fork else None
    return ["--repo", repo] if repo else []


def unsent_branches(
    repo: GitRepo, branches: Sequence[ProposalBranch]
) -> tuple[list[str], list[str]]:
    """The proposal branches committed on this machine that never reached review: (those whose
    push, or pull request, failed — the next verb that reaches the remote sends them, whichever
    verb made them —, those never pushed otherwise: kept local on purpose, ``--no-push``, named
    but not sent)."""
    marked = set()
    done = repo.git("config", "--get-regexp", rf"^branch\..*\.{UNSENT_KEY}$", check=False)
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        key = line.partition(" ")[0]
        marked.add(key.removeprefix("branch.").removesuffix(f".{UNSENT_KEY}"))
    send, name = [], []
    for branch in branches:
        if not (branch.proposal and branch.local):
            continue
        if branch.name in marked and (
            branch.state == "unpushed" or (branch.state == "open" and branch.pr is None)
        ):
            send.append(branch.name)
        elif branch.state == "unpushed":
            name.append(branch.name)
    return send, name


def send_branches(
    repo: GitRepo, target: ReviewTarget, names: Sequence[str], patch_dir: Path
) -> list[ReviewRequest]:
    """Push each local proposal branch of ``names`` (and open its pull request), as it was
    committed: its commit message is the pull request's title and body."""
    sent = []
    for branch in names:
        commit = repo.rev_parse(f"refs/heads/{branch}^{{commit}}")
        if commit is None:  # deleted meanwhile
            continue
        message = repo.text("log", "-1", "--format=%B", commit)
        title, _, body = message.partition("\n\n")
        review = send_for_review(
            repo, target=target, branch=branch, commit=commit, title=title.strip(), body=body,
            patch_dir=patch_dir, push=True,
        )  # fmt: skip
        sent.append(review)
    return sent


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
        if pr_url is None:  # pushed, not in review: the next verb that sends tries again
            mark_unsent(repo, branch, True)
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
