"""A stand-in for GitHub's ``gh`` CLI over a bare git repository on this machine.

It implements what teambrain and a team's maintainer call — ``gh auth status``, ``gh pr create``,
``gh pr list``, ``gh pr view``, ``gh pr merge --merge|--squash|--rebase [--delete-branch]``,
``gh pr close``, ``gh pr reopen`` and ``gh repo view`` — and merges for real, with git, into the
bare "remote", in each of GitHub's three styles:

* ``--merge``: a merge commit with the base and the head as parents;
* ``--squash``: one new commit on the base holding the whole pull request;
* ``--rebase``: every commit of the head replayed onto the base with new ids (GitHub always
  rewrites them, even when the head is already on top of the base).

A pull request that cannot merge cleanly is refused like GitHub refuses it ("not mergeable"),
and the conflict is recorded in the state file for the test to see. Pull requests live in a
small JSON file (``GH_STANDIN_STATE``), guarded by a lock, so several developers' processes can
call it at once. Every call is logged there too.

Forks, as GitHub has them: the state's ``repos`` maps ``owner/name`` to the bare repository of
each fork (``Team.add_fork_developer`` registers them). ``--repo [HOST/]OWNER/NAME`` picks the
repository a command acts on (default: the project, ``GH_STANDIN_REMOTE``); ``gh pr create
--head OWNER:BRANCH`` opens a pull request from a fork, whose head GitHub copies into the base
repository as ``refs/pull/<n>/head`` (again before each merge, so a force-push after review is
what merges). A ``--head`` without the owner names a branch of the base repository: a branch
only the fork has is refused as GitHub refuses it ("Head ref must be a branch").

Environment: ``GH_STANDIN_STATE`` (the JSON file; required), ``GH_STANDIN_REMOTE`` (the bare
repository; default: the ``origin`` URL of the current directory), ``GH_STANDIN_USER`` (the
login of whoever runs it). The harness (``teamharness.py``) installs it as ``gh`` on ``PATH``.
Standard library only: it runs with ``python -I -S``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FIELDS = (
    "number", "state", "title", "body", "url", "headRefName", "baseRefName", "headRefOid",
    "author", "createdAt", "closedAt", "mergedAt", "mergeCommit", "mergedBy", "isDraft",
    "mergeable", "mergeStyle", "id", "headRepositoryOwner", "isCrossRepository",
    "baseRepository",
)  # fmt: skip
BOT = {"GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}


class GhError(Exception):
    """A failure gh reports on stderr with exit code 1."""


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _git(remote: Path, *args: str, env: dict[str, str] | None = None, check: bool = True,
         cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_DIR")}
    base.pop("GIT_INDEX_FILE", None)
    base.pop("GIT_WORK_TREE", None)
    command = ["git", *args] if cwd is not None else ["git", "--git-dir", str(remote), *args]
    done = subprocess.run(
        command, cwd=cwd, env={**base, **(env or {})}, capture_output=True, text=True,
        input=input, check=False,
    )  # fmt: skip
    if check and done.returncode != 0:
        raise GhError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done


class Standin:
    """The state file, the remote and the user of one ``gh`` call."""

    def __init__(self) -> None:
        state = os.environ.get("GH_STANDIN_STATE")
        if not state:
            raise GhError("GH_STANDIN_STATE is not set")
        self.state_path = Path(state)
        self.user = os.environ.get("GH_STANDIN_USER") or os.environ.get("USER") or "someone"
        remote = os.environ.get("GH_STANDIN_REMOTE")
        if not remote:
            done = subprocess.run(["git", "remote", "get-url", "origin"], capture_output=True,
                                  text=True, check=False)  # fmt: skip
            remote = done.stdout.strip()
        if not remote:
            raise GhError("none of the git remotes configured for this repository point to a "
                          "known GitHub host")  # fmt: skip
        self.remote = Path(remote)
        self.project = self.remote  # the repository the team merges into
        self.data: dict[str, Any] = {}

    @contextlib.contextmanager
    def locked(self) -> Iterator[dict[str, Any]]:
        """The state, read and written back under an exclusive lock."""
        lock_path = self.state_path.with_suffix(".lock")
        with open(lock_path, "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                if self.state_path.is_file():
                    self.data = json.loads(self.state_path.read_text("utf-8"))
                self.data.setdefault("repo", "team/brain")
                self.data.setdefault("next_number", 1)
                self.data.setdefault("prs", [])
                self.data.setdefault("conflicts", [])
                self.data.setdefault("calls", [])
                self.data.setdefault("auth", True)
                self.data.setdefault("repos", {})
                try:
                    yield self.data
                finally:  # a refusal (GhError) is recorded too: conflicts, calls
                    temp = self.state_path.with_suffix(".tmp")
                    temp.write_text(json.dumps(self.data, indent=1), "utf-8")
                    temp.replace(self.state_path)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    # -- helpers -------------------------------------------------------------------------------

    def select_repo(self, options: dict[str, Any]) -> str:
        """Act on the repository ``--repo``/``-R`` names (``[HOST/]OWNER/NAME``); its slug."""
        raw = options.get("--repo") or options.get("-R")
        if not raw:
            return str(self.data["repo"])
        parts = raw.strip("/").split("/")
        slug = "/".join(parts[-2:])
        if len(parts) not in (2, 3) or not all(parts):
            raise GhError(f'expected the "[HOST/]OWNER/REPO" format, got "{raw}"')
        if slug != self.data["repo"] and slug not in self.data["repos"]:
            raise GhError(f"GraphQL: Could not resolve to a Repository with the name '{slug}'.")
        self.remote = self.repo_path(slug)
        return slug

    def repo_path(self, slug: str) -> Path:
        """The bare repository of ``owner/name``."""
        if slug == self.data["repo"]:
            return self.project
        return Path(self.data["repos"][slug])

    def fork_of(self, owner: str) -> str | None:
        """The slug of ``owner``'s fork of the repository acted on, if they have one."""
        name = str(self.data["repo"]).split("/")[1]
        slug = f"{owner}/{name}"
        return slug if slug in self.data["repos"] or slug == self.data["repo"] else None

    def head_sha(self, pr: dict[str, Any]) -> str | None:
        """The commit a pull request's head is now: its branch, or for a fork's, the fork's
        branch copied into ``refs/pull/<n>/head`` (as GitHub does on every push)."""
        fork = pr.get("headRepository")
        if not fork or fork == pr.get("baseRepository", self.data["repo"]):
            return self.ref(pr["headRefName"])
        where = self.repo_path(fork)
        ref = f"refs/pull/{pr['number']}/head"
        done = _git(self.remote, "fetch", "-q", "--no-tags", str(where),
                    f"+refs/heads/{pr['headRefName']}:{ref}", check=False)  # fmt: skip
        if done.returncode != 0:
            return None
        return _git(self.remote, "rev-parse", ref).stdout.strip() or None

    def default_branch(self) -> str:
        done = _git(self.remote, "symbolic-ref", "--short", "HEAD", check=False)
        return done.stdout.strip() or "main"

    def ref(self, branch: str) -> str | None:
        done = _git(self.remote, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}",
                    check=False)  # fmt: skip
        return done.stdout.strip() or None

    def find(self, selector: str | None, slug: str | None = None) -> dict[str, Any]:
        slug = slug or str(self.data["repo"])
        prs: list[dict[str, Any]] = [
            pr for pr in self.data["prs"] if pr.get("baseRepository", self.data["repo"]) == slug
        ]
        if selector is None:
            done = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"],
                                  capture_output=True, text=True, check=False)  # fmt: skip
            selector = done.stdout.strip()
            if not selector:
                raise GhError("could not determine the current branch")
        text = selector.rstrip("/").rsplit("/pull/", 1)[-1].lstrip("#")
        if text.isdigit():
            for pr in prs:
                if pr["number"] == int(text):
                    return pr
            raise GhError(f"GraphQL: Could not resolve to a PullRequest with the number of {text}.")
        matches = [pr for pr in prs if pr["headRefName"] == selector]
        open_ = [pr for pr in matches if pr["state"] == "OPEN"]
        if open_ or matches:
            return (open_ or matches)[-1]
        raise GhError(f'no pull requests found for branch "{selector}"')

    def mergeable(self, pr: dict[str, Any]) -> str:
        if pr["state"] != "OPEN":
            return "UNKNOWN"
        head, base = self.head_sha(pr), self.ref(pr["baseRefName"])
        if head is None or base is None:
            return "UNKNOWN"
        done = _git(self.remote, "merge-tree", "--write-tree", "--no-messages", base, head,
                    check=False)  # fmt: skip
        return "MERGEABLE" if done.returncode == 0 else "CONFLICTING"

    def view(self, pr: dict[str, Any], fields: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in fields:
            if name not in FIELDS:
                raise GhError(f'Unknown JSON field: "{name}"\nAvailable fields:\n  '
                              + "\n  ".join(sorted(FIELDS)))  # fmt: skip
            if name == "mergeable":
                out[name] = self.mergeable(pr)
            elif name == "author":
                out[name] = {"login": pr["author"]}
            elif name == "mergedBy":
                out[name] = {"login": pr["mergedBy"]} if pr.get("mergedBy") else None
            elif name == "mergeCommit":
                out[name] = {"oid": pr["mergeCommit"]} if pr.get("mergeCommit") else None
            elif name == "id":
                out[name] = f"PR_{pr['number']}"
            elif name == "headRepositoryOwner":
                owner = str(pr.get("headRepository") or self.data["repo"]).split("/")[0]
                out[name] = {"login": owner}
            elif name == "isCrossRepository":
                out[name] = bool(pr.get("headRepository")) and pr.get("headRepository") != pr.get(
                    "baseRepository", self.data["repo"]
                )
            elif name == "baseRepository":
                out[name] = {"nameWithOwner": pr.get("baseRepository", self.data["repo"])}
            else:
                out[name] = pr.get(name)
        return out

    # -- merging -------------------------------------------------------------------------------

    def _commits(self, base: str, head: str) -> list[str]:
        out = _git(self.remote, "rev-list", "--reverse", "--no-merges", f"{base}..{head}").stdout
        return out.split()

    def merge(self, pr: dict[str, Any], style: str, subject: str | None, body: str | None) -> str:
        """Merge ``pr`` into its base in ``style``; the new tip of the base, or GhError."""
        base_branch, head_branch = pr["baseRefName"], pr["headRefName"]
        base, head = self.ref(base_branch), self.head_sha(pr)
        if head is None:
            raise GhError(f"head branch {head_branch} of pull request #{pr['number']} is gone")
        if base is None:
            raise GhError(f"base branch {base_branch} does not exist")
        number, title = pr["number"], pr["title"]
        owner = str(pr.get("headRepository") or self.data["repo"]).split("/")[0]
        if style in ("merge", "squash"):
            done = _git(self.remote, "merge-tree", "--write-tree", "--name-only", "--no-messages", base,
                        head,
                        check=False)  # fmt: skip
            if done.returncode != 0:
                self._conflict(pr, style, done.stdout.splitlines()[1:])
            tree = done.stdout.split()[0]
            if style == "merge":
                message = subject or f"Merge pull request #{number} from {owner}/{head_branch}"
                message += "\n\n" + (body if body is not None else title)
                parents = ["-p", base, "-p", head]
                env = dict(BOT)
            else:
                commits = self._commits(base, head)
                messages = [
                    _git(self.remote, "log", "-1", "--format=%B", c).stdout.strip() for c in commits
                ]
                if body is None:
                    body = (
                        messages[0].partition("\n")[2].strip()
                        if len(messages) == 1
                        else ("\n\n".join("* " + m for m in messages))
                    )
                message = (subject or f"{title} (#{number})") + ("\n\n" + body if body else "")
                parents = ["-p", base]
                author = _git(self.remote, "log", "-1", "--format=%an%x00%ae", head).stdout
                name, _, email = author.strip().partition("\x00")
                env = {**BOT, "GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": email}
            new = _git(self.remote, "commit-tree", tree, *parents, "-F", "-", env=env,
                       input=message + "\n").stdout.strip()  # fmt: skip
        elif style == "rebase":
            new = self._rebase(pr, base, head)
        else:
            raise GhError(f"unknown merge style {style}")
        _git(self.remote, "update-ref", f"refs/heads/{base_branch}", new, base)
        return new

    def _rebase(self, pr: dict[str, Any], base: str, head: str) -> str:
        scratch = Path(tempfile.mkdtemp(prefix="gh-standin-rebase-"))
        tree = scratch / "tree"
        try:
            _git(self.remote, "worktree", "add", "--detach", "--quiet", str(tree), head)
            done = _git(self.remote, "rebase", "--force-rebase", "--quiet", base, env=BOT,
                        cwd=tree, check=False)  # fmt: skip
            if done.returncode != 0:
                conflicted = _git(self.remote, "diff", "--name-only", "--diff-filter=U", cwd=tree,
                                  check=False).stdout.splitlines()  # fmt: skip
                _git(self.remote, "rebase", "--abort", cwd=tree, check=False)
                self._conflict(pr, "rebase", conflicted)
            return _git(self.remote, "rev-parse", "HEAD", cwd=tree).stdout.strip()
        finally:
            _git(self.remote, "worktree", "remove", "--force", str(tree), check=False)
            shutil.rmtree(scratch, ignore_errors=True)
            _git(self.remote, "worktree", "prune", check=False)

    def _conflict(self, pr: dict[str, Any], style: str, files: list[str]) -> None:
        self.data["conflicts"].append(
            {"number": pr["number"], "style": style, "files": [f for f in files if f]}
        )
        raise GhError(
            f"X Pull request #{pr['number']} is not mergeable: the merge commit cannot be cleanly "
            f"created. ({style}; conflicts in {', '.join(f for f in files if f) or 'the tree'})"
        )

    def delete_remote_branch(self, branch: str, where: Path | None = None) -> None:
        _git(where or self.remote, "update-ref", "-d", f"refs/heads/{branch}", check=False)
        local = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        current = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"],
                                 capture_output=True, text=True, check=False).stdout.strip()  # fmt: skip
        if local.returncode == 0 and current != branch:  # as gh does: the local branch too
            subprocess.run(["git", "branch", "-D", branch], capture_output=True, check=False)


# -- the command line --------------------------------------------------------------------------


def data_repo(gh: Standin) -> str:
    """The slug of the project (the repository forks are made from)."""
    return str(gh.data["repo"])


def _options(
    args: list[str], flags: set[str], valued: set[str]
) -> tuple[dict[str, Any], list[str]]:
    """Parse ``--name value``, ``--name=value`` and boolean flags; returns (options, positionals)."""
    options: dict[str, Any] = {}
    positional: list[str] = []
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        if name in flags:
            options[name] = True
        elif name in valued:
            options[name] = value if eq else next(it, "")
        elif arg.startswith("-") and arg != "-":
            raise GhError(f"unknown flag: {arg}")
        else:
            positional.append(arg)
    return options, positional


def _fields(options: dict[str, Any]) -> list[str] | None:
    raw = options.get("--json")
    return None if raw is None else [f.strip() for f in raw.split(",") if f.strip()]


def pr_create(gh: Standin, args: list[str]) -> str:
    options, _ = _options(
        args, {"--draft", "--fill", "-d", "-f"},
        {"--head", "-H", "--base", "-B", "--title", "-t", "--body", "-b", "--body-file", "-F",
         "--repo", "-R", "--label", "--reviewer", "--assignee"},
    )  # fmt: skip
    head = options.get("--head") or options.get("-H")
    if not head:
        done = subprocess.run(["git", "symbolic-ref", "--quiet", "--short", "HEAD"],
                              capture_output=True, text=True, check=False)  # fmt: skip
        head = done.stdout.strip()
    title = options.get("--title") or options.get("-t")
    body = options.get("--body") or options.get("-b")
    body_file = options.get("--body-file") or options.get("-F")
    if body_file:
        body = sys.stdin.read() if body_file == "-" else Path(body_file).read_text("utf-8")
    if not title:
        raise GhError(
            "must provide `--title` and `--body` (or `--fill`) when not running interactively"
        )
    with gh.locked() as data:
        slug = gh.select_repo(options)
        base = options.get("--base") or options.get("-B") or gh.default_branch()
        owner, colon, branch = head.rpartition(":")
        fork = gh.fork_of(owner) if colon else slug
        if fork is None:
            raise GhError(f"pull request create failed: GraphQL: Head sha can't be blank, Head "
                          f"ref must be a branch ({head}: {owner} has no fork of {slug})")  # fmt: skip
        number = data["next_number"]
        pr = {
            "number": number, "state": "OPEN", "title": title, "body": body or "",
            "url": f"https://github.example/{slug}/pull/{number}", "headRefName": branch,
            "baseRefName": base, "headRefOid": None, "author": gh.user, "createdAt": _now(),
            "closedAt": None, "mergedAt": None, "mergeCommit": None, "mergedBy": None,
            "isDraft": bool(options.get("--draft") or options.get("-d")), "mergeStyle": None,
            "baseRepository": slug, "headRepository": fork,
        }  # fmt: skip
        head_sha, base_sha = gh.head_sha(pr), gh.ref(base)
        if head_sha is None:
            raise GhError(f"pull request create failed: GraphQL: Head sha can't be blank, Head "
                          f"ref must be a branch ({head})")  # fmt: skip
        if base_sha is None:
            raise GhError(
                f"pull request create failed: GraphQL: Base ref must be a branch ({base})"
            )
        for other in data["prs"]:
            if (other["headRefName"], other.get("headRepository", slug), other["baseRefName"],
                    other.get("baseRepository", data["repo"]), other["state"]) == (
                    branch, fork, base, slug, "OPEN"):  # fmt: skip
                raise GhError(f'a pull request for branch "{head}" into branch "{base}" already '
                              f"exists:\n{other['url']}")  # fmt: skip
        if not _git(gh.remote, "rev-list", f"{base_sha}..{head_sha}").stdout.strip():
            raise GhError(
                f"pull request create failed: GraphQL: No commits between {base} and {head}"
            )
        data["next_number"] = number + 1
        pr["headRefOid"] = head_sha
        data["prs"].append(pr)
    return pr["url"] + "\n"


def pr_list(gh: Standin, args: list[str]) -> str:
    options, _ = _options(
        args, {"--web", "-w", "--draft"},
        {"--state", "-s", "--head", "-H", "--base", "-B", "--author", "-A", "--limit", "-L",
         "--json", "--search", "-S", "--repo", "-R", "--label", "-l", "--jq", "-q",
         "--template", "-t"},
    )  # fmt: skip
    state = (options.get("--state") or options.get("-s") or "open").lower()
    wanted = {"open": {"OPEN"}, "closed": {"CLOSED", "MERGED"}, "merged": {"MERGED"},
              "all": {"OPEN", "CLOSED", "MERGED"}}.get(state)  # fmt: skip
    if wanted is None:
        raise GhError(f'invalid argument "{state}" for "-s, --state" flag')
    head = options.get("--head") or options.get("-H")
    base = options.get("--base") or options.get("-B")
    author = options.get("--author") or options.get("-A")
    # GitHub's search: `head:NAME` matches the branches whose names begin with NAME.
    search = (options.get("--search") or options.get("-S") or "").split()
    heads = [term.removeprefix("head:") for term in search if term.startswith("head:")]
    limit = int(options.get("--limit") or options.get("-L") or 30)
    if limit < 1:
        raise GhError(f"invalid value for --limit: {limit}")
    with gh.locked() as data:
        slug = gh.select_repo(options)
        prs = [
            pr for pr in reversed(data["prs"])
            if pr.get("baseRepository", data["repo"]) == slug
            and pr["state"] in wanted and (head is None or pr["headRefName"] == head)
            and (base is None or pr["baseRefName"] == base)
            and (author is None or pr["author"] == author)
            and all(pr["headRefName"].startswith(h) for h in heads)
        ][:limit]  # fmt: skip
        fields = _fields(options)
        if fields is not None:
            return json.dumps([gh.view(pr, fields) for pr in prs]) + "\n"
    return "".join(
        f"#{pr['number']}\t{pr['title']}\t{pr['headRefName']}\t{pr['state']}\n" for pr in prs
    )


def pr_view(gh: Standin, args: list[str]) -> str:
    options, positional = _options(args, {"--web", "-w", "--comments", "-c"},
                                   {"--json", "--repo", "-R", "--jq", "-q", "--template", "-t"})  # fmt: skip
    with gh.locked():
        pr = gh.find(positional[0] if positional else None, gh.select_repo(options))
        fields = _fields(options)
        if fields is not None:
            return json.dumps(gh.view(pr, fields)) + "\n"
        return f"title:\t{pr['title']}\nstate:\t{pr['state']}\nurl:\t{pr['url']}\n\n{pr['body']}\n"


def pr_merge(gh: Standin, args: list[str]) -> str:
    options, positional = _options(
        args,
        {"--merge", "-m", "--squash", "-s", "--rebase", "-r", "--delete-branch", "-d", "--auto",
         "--admin"},
        {"--subject", "-t", "--body", "-b", "--body-file", "-F", "--repo", "-R",
         "--match-head-commit"},
    )  # fmt: skip
    styles = [s for s, flags in (("merge", ("--merge", "-m")), ("squash", ("--squash", "-s")),
              ("rebase", ("--rebase", "-r"))) if any(options.get(f) for f in flags)]  # fmt: skip
    if len(styles) != 1:
        raise GhError("--merge, --rebase, or --squash required when not running interactively")
    body = options.get("--body") or options.get("-b")
    if options.get("--body-file") or options.get("-F"):
        body = Path(options.get("--body-file") or options["-F"]).read_text("utf-8")
    with gh.locked():
        pr = gh.find(positional[0] if positional else None, gh.select_repo(options))
        if pr["state"] != "OPEN":
            raise GhError(f"X Pull request #{pr['number']} was already {pr['state'].lower()}")
        expected = options.get("--match-head-commit")
        if expected and expected != gh.head_sha(pr):
            raise GhError("X Head branch was modified. Review and try the merge again.")
        new = gh.merge(pr, styles[0], options.get("--subject") or options.get("-t"), body)
        pr.update(state="MERGED", mergedAt=_now(), closedAt=_now(), mergeCommit=new,
                  mergedBy=gh.user, mergeStyle=styles[0],
                  headRefOid=gh.head_sha(pr) or pr["headRefOid"])  # fmt: skip
        deleted = bool(options.get("--delete-branch") or options.get("-d"))
        if deleted:
            gh.delete_remote_branch(pr["headRefName"], gh.repo_path(pr.get("headRepository")
                                                                     or data_repo(gh)))  # fmt: skip
        verb = {"merge": "Merged", "squash": "Squashed and merged", "rebase": "Rebased and merged"}
        note = f"\n✓ Deleted branch {pr['headRefName']}" if deleted else ""
        return f"✓ {verb[styles[0]]} pull request #{pr['number']} ({pr['title']}){note}\n"


def pr_close(gh: Standin, args: list[str]) -> str:
    options, positional = _options(args, {"--delete-branch", "-d"},
                                   {"--comment", "-c", "--repo", "-R"})  # fmt: skip
    with gh.locked():
        pr = gh.find(positional[0] if positional else None, gh.select_repo(options))
        if pr["state"] != "OPEN":
            raise GhError(f"! Pull request #{pr['number']} is already {pr['state'].lower()}")
        pr.update(state="CLOSED", closedAt=_now())
        if options.get("--delete-branch") or options.get("-d"):
            gh.delete_remote_branch(pr["headRefName"], gh.repo_path(pr.get("headRepository")
                                                                     or data_repo(gh)))  # fmt: skip
        return f"✓ Closed pull request #{pr['number']} ({pr['title']})\n"


def pr_reopen(gh: Standin, args: list[str]) -> str:
    options, positional = _options(args, set(), {"--comment", "-c", "--repo", "-R"})
    with gh.locked():
        pr = gh.find(positional[0] if positional else None, gh.select_repo(options))
        if pr["state"] != "CLOSED":
            raise GhError(f"! Pull request #{pr['number']} is {pr['state'].lower()}")
        if gh.head_sha(pr) is None:
            raise GhError(
                f"X Could not reopen pull request #{pr['number']}: the head branch is gone"
            )
        pr.update(state="OPEN", closedAt=None)
        return f"✓ Reopened pull request #{pr['number']} ({pr['title']})\n"


def repo_view(gh: Standin, args: list[str]) -> str:
    options, positional = _options(args, {"--web", "-w"},
                                   {"--json", "--jq", "-q", "--template", "-t"})  # fmt: skip
    with gh.locked():
        slug = gh.select_repo({"--repo": positional[0]} if positional else {})
        info = {"nameWithOwner": slug, "url": f"https://github.example/{slug}",
                "defaultBranchRef": {"name": gh.default_branch()},
                "isFork": slug != gh.data["repo"]}  # fmt: skip
    fields = _fields(options)
    if fields is None:
        return f"name:\t{slug}\n"
    return json.dumps({k: info.get(k) for k in fields}) + "\n"


def auth_status(gh: Standin, args: list[str]) -> str:
    with gh.locked() as data:
        logged_in = bool(data["auth"])
    if not logged_in:
        raise GhError("You are not logged into any GitHub hosts. To log in, run: gh auth login")
    return f"github.example\n  ✓ Logged in to github.example account {gh.user}\n"


COMMANDS = {
    ("pr", "create"): pr_create, ("pr", "list"): pr_list, ("pr", "view"): pr_view,
    ("pr", "merge"): pr_merge, ("pr", "close"): pr_close, ("pr", "reopen"): pr_reopen,
    ("repo", "view"): repo_view, ("auth", "status"): auth_status,
}  # fmt: skip


def main(argv: list[str]) -> int:
    try:
        gh = Standin()
        with gh.locked() as data:
            data["calls"].append({"argv": argv, "user": gh.user, "cwd": os.getcwd()})
        handler = COMMANDS.get(tuple(argv[:2]))  # type: ignore[arg-type]
        if handler is None:
            raise GhError(f"unknown command {' '.join(argv[:2])!r} for gh (stand-in)")
        sys.stdout.write(handler(gh, argv[2:]))
    except GhError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
