"""The pull requests of proposal branches, from ``gh``, kept on this machine.

``tb propose`` and ``tb retire`` — which reach the remote anyway — ask ``gh`` once per run for
every pull request whose head is a ``teambrain/*`` branch (one ``gh pr list``), and keep the
answer in ``$TEAMBRAIN_HOME/proposals/pull-requests.json``. Whatever never reaches the network
(``memory_propose`` in ``tb serve``, a dry run, ``--no-push``) reads that file: a pull request
as last seen. Without ``gh`` there is no file, and branch states come from git alone.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
from pathlib import Path

from ._branches import PROPOSAL_PREFIX, PullRequest
from ._cachefile import keep_entry
from ._git import GitRepo
from ._remotes import remote_roles_of
from ._review import _GH_ENV, GH_TIMEOUT_S, gh_ready, gh_repo_args

CACHE_NAME = "pull-requests.json"
LIST_LIMIT = 500  # the newest 500 proposal pull requests; older ones are long decided
_FIELDS = "number,state,headRefName,url"


def fetch_pull_requests(repo: GitRepo) -> dict[str, PullRequest] | None:
    """Head branch → its pull request, from ``gh pr list``: every ``teambrain/*`` head in any
    state, and the open pull requests of other branches (which may edit a memory); None when
    ``gh`` is missing, logged out or fails. Of several pull requests from one branch, the open
    one wins, else the newest."""
    gh = shutil.which("gh")
    if gh is None or not gh_ready(repo):
        return None
    proposals = _gh_list(gh, repo, "--state", "all", "--search",
                         f"head:{PROPOSAL_PREFIX.rstrip('/')}")  # fmt: skip
    if proposals is None:
        return None
    others = _gh_list(gh, repo, "--state", "open") or []
    return {**_by_head(others, proposals_only=False), **_by_head(proposals)}


def _gh_list(gh: str, repo: GitRepo, *selection: str) -> list[object] | None:
    args = [gh, "pr", "list", *gh_repo_args(remote_roles_of(repo)), *selection, "--json",
            _FIELDS, "--limit", str(LIST_LIMIT)]  # fmt: skip
    try:
        done = subprocess.run(
            args, cwd=repo.root, env={**os.environ, **_GH_ENV}, capture_output=True,
            text=True, timeout=GH_TIMEOUT_S, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            return None
        rows = json.loads(done.stdout)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return rows if isinstance(rows, list) else None


def _by_head(rows: object, *, proposals_only: bool = True) -> dict[str, PullRequest]:
    found: dict[str, PullRequest] = {}
    if not isinstance(rows, list):
        return found
    for row in rows:
        if not isinstance(row, dict):
            continue
        head, number = row.get("headRefName"), row.get("number")
        state, url = str(row.get("state", "")).upper(), row.get("url")
        if isinstance(number, str) and number.isdecimal() and len(number) < 12:
            number = int(number)
        if not isinstance(head, str) or (proposals_only and not head.startswith(PROPOSAL_PREFIX)):
            continue
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            continue
        if state not in ("OPEN", "CLOSED", "MERGED"):
            continue
        pr = PullRequest(number, state, url if isinstance(url, str) else "")
        current = found.get(head)
        if current is None or (current.state != "OPEN" and (
            pr.state == "OPEN" or pr.number > current.number
        )):  # fmt: skip
            found[head] = pr
    return found


def _key(repo: GitRepo) -> str:
    return str(repo.common_dir)


def cached_pull_requests(cache_dir: Path, repo: GitRepo) -> dict[str, PullRequest]:
    """The pull requests as ``gh`` last reported them for this repository (empty when never
    asked, or the file is unreadable: it is only a cache)."""
    try:
        data = json.loads((cache_dir / CACHE_NAME).read_text("utf-8"))
        entry = data.get(_key(repo), {}) if isinstance(data, dict) else {}
        pulls = entry.get("pulls", {}) if isinstance(entry, dict) else {}
        rows = [
            {"headRefName": head, **value} for head, value in pulls.items()
            if isinstance(value, dict)
        ]  # fmt: skip
    except (OSError, ValueError, AttributeError):
        return {}
    return _by_head(rows, proposals_only=False)


def pull_requests(
    repo: GitRepo, cache_dir: Path | None, *, refresh: bool
) -> dict[str, PullRequest]:
    """The proposal branches' pull requests: asked of ``gh`` when ``refresh`` (and kept in
    ``cache_dir``), else as last kept; empty without either."""
    if refresh:
        fresh = fetch_pull_requests(repo)
        if fresh is not None:
            if cache_dir is not None:
                _save(cache_dir, repo, fresh)
            return fresh
    return cached_pull_requests(cache_dir, repo) if cache_dir is not None else {}


def _save(cache_dir: Path, repo: GitRepo, pulls: dict[str, PullRequest]) -> None:
    entry = {
        "fetched": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "pulls": {
            head: {"number": pr.number, "state": pr.state, "url": pr.url}
            for head, pr in sorted(pulls.items())
        },
    }
    keep_entry(cache_dir / CACHE_NAME, _key(repo), entry)
