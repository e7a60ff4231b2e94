"""What became of a memory's evidence commits after the merge.

A memory names the commits it was learned from (``evidence.commits``): usually commits of a
feature branch. GitHub's squash and rebase merges put *other* commits on the default branch and
delete the branch, so the cited commit is then reachable from nothing — yet its change is there.
This module follows such a commit to what it became, cheapest evidence first, with a bounded
number of git processes per batch (never one per commit):

1. reachable from HEAD or the default branch as last fetched: nothing to follow;
2. a commit there with the same author, author date and subject: a rebase (or cherry-pick)
   rewrote it — rebases keep all three;
3. a commit there with the same ``git patch-id``: the same change (a single-commit squash, or a
   rebase that changed the author date);
4. a commit there whose message lists its subject as ``* subject`` (GitHub's squash message);
5. a commit there whose patch-id is that of the whole branch up to the evidence commit (or up to
   a branch that still contains it): the branch, squashed.

A commit not in this clone at all (a shallow clone, a branch deleted before it was fetched), or
found nowhere, is *unverifiable*: the memory may well hold, and nothing here calls it stale.
Stdlib only; git through the one runner.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .git import git_output, git_path

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "EvidenceFate",
]

FateState = Literal["reachable", "rewritten", "unverifiable"]

_PR = re.compile(r"\(#(\d+)\)\s*$|^Merge pull request #(\d+)\b")
_SLACK_S = 2 * 86_400  # author clocks drift; a rewrite is never much older than its original
_MAX_CANDIDATES = 2000  # commits of the default branch looked at, newest first
_MAX_BRANCH_DIFFS = 32  # whole-branch patch-ids computed per batch (two processes each)
_MAX_TIPS = 3  # branches still containing an evidence commit, tried as its branch's tip
_PATCH_IDS: dict[str, str | None] = {}  # commit id -> patch-id: facts that never change
_PATCH_ID_CACHE_MAX = 50_000
_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class EvidenceFate:
    """What became of one evidence commit: ``reachable`` (in the history served), ``rewritten``
    (``became`` carries its change on HEAD or the default branch; ``how`` says which merge
    rewrote it; ``pr`` names the pull request when the merge message does) or ``unverifiable``
    (``detail`` says why). Never a reason to call a memory stale."""

    sha: str
    state: FateState
    became: str | None = None
    how: str = ""
    pr: str | None = None
    detail: str = ""

    @property
    def note(self) -> str:
        """One line, as `tb lint` and `tb doctor` show it."""
        short = self.sha[:12]
        if self.state == "rewritten" and self.became:
            via = f" in pull request {self.pr}" if self.pr else ""
            return f"evidence commit {short} was {self.how} as {self.became[:12]}{via}"
        if self.state == "unverifiable":
            return f"evidence commit {short} is unverifiable: {self.detail}"
        return f"evidence commit {short} is in the history"


@dataclass
class _Commit:
    sha: str
    parents: int
    email: str
    time: int
    subject: str
    body: str
    files: frozenset[str]


def _git(root: Path, args: list[str], stdin: str | None = None) -> str | None:
    out = git_output(
        ["-c", "core.quotePath=false", *args], cwd=root, timeout=_TIMEOUT_S,
        input=stdin.encode("utf-8", "surrogateescape") if stdin is not None else None,
    )  # fmt: skip
    return None if out is None else out.decode("utf-8", "surrogateescape")


def _parse_log(text: str) -> list[_Commit]:
    """Records written with ``--format=%x1e%H%x1f%P%x1f%ae%x1f%at%x1f%s%x1f%b%x1d --name-only``."""
    commits = []
    for record in text.split("\x1e")[1:]:
        head, _, names = record.partition("\x1d")
        fields = head.split("\x1f")
        if len(fields) < 6:
            continue
        sha, parents, email, when, subject, body = fields[:6]
        try:
            at = int(when)
        except ValueError:
            at = 0
        # git ends each name with "\n" alone (not splitlines(): a U+2028 or U+0085 in a name
        # would cut it into two names, each of them a path that passes)
        files = frozenset(line for line in names.split("\n") if git_path(line) is not None)
        commits.append(_Commit(sha, len(parents.split()), email, at, subject, body, files))
    return commits


_LOG_FORMAT = "--format=%x1e%H%x1f%P%x1f%ae%x1f%at%x1f%s%x1f%b%x1d"


def _patch_ids(root: Path, commits: Sequence[str]) -> dict[str, str | None]:
    """``git patch-id --stable`` of each commit's own change (None for a merge or an empty
    change); two processes for all of them, and each commit's answer is kept for good."""
    todo = [sha for sha in dict.fromkeys(commits) if sha not in _PATCH_IDS]
    if todo:
        diff = _git(root, ["diff-tree", "-p", "--root", "--stdin"], "\n".join(todo) + "\n")
        ids = _git(root, ["patch-id", "--stable"], diff) if diff else ""
        found: dict[str, str] = {}
        for line in (ids or "").splitlines():
            patch_id, _, sha = line.partition(" ")
            if sha:
                found[sha.strip()] = patch_id
        if len(_PATCH_IDS) > _PATCH_ID_CACHE_MAX:
            _PATCH_IDS.clear()
        if ids is not None:
            for sha in todo:
                _PATCH_IDS[sha] = found.get(sha)
    return {sha: _PATCH_IDS.get(sha) for sha in commits}


def _range_patch_id(root: Path, base: str, tip: str) -> str | None:
    """The patch-id of everything ``tip`` changed since ``base`` (a branch, squashed)."""
    diff = _git(root, ["diff", "--no-color", "--no-ext-diff", base, tip])
    if not diff:
        return None
    out = _git(root, ["patch-id", "--stable"], f"commit {tip}\n{diff}")
    return (out or "").partition(" ")[0] or None


def _pr_of(commit: _Commit) -> str | None:
    match = _PR.search(commit.subject)
    return f"#{match.group(1) or match.group(2)}" if match else None


def evidence_fates(
    repo_root: Path, shas: Sequence[str], targets: Sequence[str]
) -> dict[str, EvidenceFate]:
    """What became of each evidence commit in ``shas`` (as the memories cite them), judged
    against ``targets``: the commits whose history counts (HEAD, the default branch as last
    fetched). At most a handful of git processes whatever the number of commits."""
    wanted = list(dict.fromkeys(shas))
    if not wanted:
        return {}
    fates: dict[str, EvidenceFate] = {}
    listed = _git(
        repo_root, ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
        "".join(f"{sha}^{{commit}}\n" for sha in wanted),
    )  # fmt: skip
    lines = (listed or "").splitlines()
    full: dict[str, str] = {}
    for index, sha in enumerate(wanted):
        line = lines[index] if index < len(lines) else ""
        name, _, kind = line.partition(" ")
        if kind.strip() == "commit":
            full[sha] = name
        else:
            detail = (
                "it is not in this clone (a shallow clone, or a branch deleted before it was "
                "fetched)"
            )
            fates[sha] = EvidenceFate(sha, "unverifiable", detail=detail)
    if not full:
        return fates
    if not targets:
        for sha in full:
            fates[sha] = EvidenceFate(
                sha, "unverifiable", detail="there is no commit to check against"
            )
        return fates
    ahead = _git(
        repo_root, ["rev-list", "--stdin"],
        "".join(f"{sha}\n" for sha in full.values()) + "".join(f"^{t}\n" for t in targets),
    )  # fmt: skip
    if ahead is None:
        return fates  # git failed: say nothing rather than something wrong
    unmerged = set(ahead.split())
    lost = {sha: commit for sha, commit in full.items() if commit in unmerged}
    for sha in full:
        if sha not in lost:
            fates[sha] = EvidenceFate(sha, "reachable")
    if lost:
        fates.update(_follow(repo_root, lost, targets))
    return fates


def _follow(
    repo_root: Path, lost: dict[str, str], targets: Sequence[str]
) -> dict[str, EvidenceFate]:
    """Fates of commits present here but reachable from none of ``targets``."""
    info = {
        c.sha: c
        for c in _parse_log(
            _git(
                repo_root, ["log", "--no-walk=unsorted", "--stdin", _LOG_FORMAT, "--name-only"],
                "".join(f"{commit}\n" for commit in lost.values()),
            ) or ""
        )
    }  # fmt: skip
    since = min((c.time for c in info.values()), default=0) - _SLACK_S
    candidates = [
        c
        for c in _parse_log(
            _git(
                repo_root,
                ["log", _LOG_FORMAT, "--name-only", f"--since=@{max(since, 0)}",
                 f"--max-count={_MAX_CANDIDATES}", *targets],
            ) or ""
        )
        if c.parents <= 1
    ]  # fmt: skip
    by_identity = {(c.email, c.time, c.subject): c for c in candidates}
    by_sha = {c.sha: c for c in candidates}

    def rewritten(sha: str, commit: _Commit, how: str) -> EvidenceFate:
        return EvidenceFate(sha, "rewritten", became=commit.sha, how=how, pr=_pr_of(commit))

    fates: dict[str, EvidenceFate] = {}
    pending: dict[str, _Commit] = {}
    for sha, commit in lost.items():
        mine = info.get(commit)
        if mine is None:
            fates[sha] = EvidenceFate(sha, "unverifiable", detail="git could not read it")
            continue
        same = by_identity.get((mine.email, mine.time, mine.subject))
        if same is not None:
            fates[sha] = rewritten(sha, same, "rebased")
        else:
            pending[sha] = mine
    if not pending:
        return fates
    touching = {c.sha for c in candidates if any(c.files & mine.files for mine in pending.values())}
    ids = _patch_ids(repo_root, [*(m.sha for m in pending.values()), *touching])
    by_patch: dict[str, _Commit] = {}
    for sha in touching:
        patch_id = ids.get(sha)
        if patch_id and patch_id not in by_patch:
            by_patch[patch_id] = by_sha[sha]
    branch_diffs = 0
    for sha, mine in pending.items():
        patch_id = ids.get(mine.sha)
        if patch_id and patch_id in by_patch:
            fates[sha] = rewritten(sha, by_patch[patch_id], "merged with the same change")
            continue
        listed = {f"* {mine.subject}", f"- {mine.subject}"}
        squash = next(
            (
                c
                for c in candidates
                if c.files & mine.files
                and any(line.strip() in listed for line in c.body.splitlines())
            ),
            None,
        )
        if squash is not None:
            fates[sha] = rewritten(sha, squash, "squash-merged")
            continue
        found = None
        if branch_diffs < _MAX_BRANCH_DIFFS and by_patch:
            branch_diffs += 1
            found = _squashed_branch(repo_root, mine.sha, targets[0], by_patch)
        if found is not None:
            fates[sha] = rewritten(sha, found, "squash-merged")
        else:
            fates[sha] = EvidenceFate(
                sha, "unverifiable",
                detail="it is on no branch merged here and no commit here carries its change",
            )  # fmt: skip
    return fates


def _squashed_branch(
    repo_root: Path, commit: str, target: str, by_patch: dict[str, _Commit]
) -> _Commit | None:
    """The commit of ``by_patch`` that holds the whole branch ``commit`` was on, squashed: the
    branch up to ``commit`` itself, or up to a branch that still contains it."""
    base = (_git(repo_root, ["merge-base", commit, target]) or "").strip()
    if not base:
        return None
    tips = [commit]
    refs = _git(
        repo_root,
        ["for-each-ref", f"--contains={commit}", f"--count={_MAX_TIPS}", "--format=%(objectname)",
         "refs/heads", "refs/remotes"],
    )  # fmt: skip
    tips += [line.strip() for line in (refs or "").splitlines() if line.strip()]
    for tip in dict.fromkeys(tips):
        patch_id = _range_patch_id(repo_root, base, tip)
        if patch_id and patch_id in by_patch:
            return by_patch[patch_id]
    return None
