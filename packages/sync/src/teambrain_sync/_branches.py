"""Proposal branches and what became of them: open, merged, closed, or never pushed.

Every ``teambrain/*`` branch — local, or remote-tracking as last fetched — is one proposal.
What it still brings is judged **by content** against the base, so a proposal merged with any of
GitHub's three styles counts as merged (a merge keeps its commits, but squash and rebase give
them new ids): a memory it adds is in the brain (active or since retired), a memory it retires
is in ``retired/``, a file it edits holds its text. When something is left, the pull request
decides (``gh``, as :mod:`._pulls` last asked it), else a remote branch deleted since it was
pushed means closed, else it is open.

The cost does not grow with each branch: one ``git for-each-ref``, one ``git ls-tree`` of the
base's brain and one ``git log`` over every branch's own commits (``--source`` attributes each
commit to its branch), whatever the number of branches — and the result is kept per process for
as long as neither the base nor any branch moves (``memory_propose`` asks on every call).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from teambrain_schema import BRAIN_DIRNAME
from teambrain_schema.git import git_path

from ._git import GitRepo

BranchState = Literal["open", "unpushed", "merged", "closed"]
PROPOSAL_PREFIX = "teambrain/"
_LOCAL = "refs/heads/"
_REMOTES = "refs/remotes/"
_CACHE_SIZE = 8
_ULID_CHARS = frozenset("0123456789ABCDEFGHJKMNPQRSTVWXYZ")


@dataclass(frozen=True)
class PullRequest:
    """A pull request of a proposal branch, as ``gh`` last reported it."""

    number: int
    state: str  # OPEN | CLOSED | MERGED
    url: str

    def to_json(self) -> dict[str, object]:
        return {"number": self.number, "state": self.state, "url": self.url}


@dataclass(frozen=True)
class BranchChange:
    """One file a branch changes under ``.teambrain/memories``, ``retired``, ``graph`` or
    ``notes``:
    ``A`` added, ``M`` modified or ``D`` deleted, with the blob it leaves (zeros for ``D``)."""

    status: str
    path: str
    blob: str

    @property
    def memory_id(self) -> str | None:
        """The memory id in the file's name (``<ULID>-<slug>.md``), or None."""
        name = self.path.rsplit("/", 1)[-1]
        head = name[:26]
        return head if len(head) == 26 and set(head) <= _ULID_CHARS else None

    @property
    def folder(self) -> str:
        """``memories`` or ``retired``."""
        return self.path.removeprefix(f"{BRAIN_DIRNAME}/").split("/", 1)[0]


@dataclass
class ProposalBranch:
    """One proposal branch: where it is, what it still brings and what became of it."""

    name: str  # teambrain/propose-…, without refs/heads/ or refs/remotes/<remote>/
    tips: dict[str, str]  # full ref → commit
    local: bool
    remote: str | None  # the remote that had it when last fetched
    pushed_before: bool  # the local branch has an upstream: it was pushed from here
    checked_out: bool  # a worktree has the local branch checked out
    # False for any other branch on a remote (a feature branch): only its edits of memories
    # are looked at, so that a supersede can say it hides them.
    proposal: bool = True
    changes: tuple[BranchChange, ...] = ()  # its own changes (commits not on the base)
    pending: tuple[BranchChange, ...] = ()  # of those, what the base does not hold yet
    state: BranchState = "open"
    pr: PullRequest | None = None
    why: str = ""

    def describe(self) -> str:
        """Where it stands, in a few words: ``open: PR #7 https://…``."""
        return f"{self.state}: {self.why}" if self.why else self.state

    def to_json(self) -> dict[str, object]:
        return {
            "branch": self.name,
            "state": self.state,
            "why": self.why,
            "remote": self.remote,
            "local": self.local,
            "pr": self.pr.to_json() if self.pr else None,
        }


@dataclass
class _Listing:
    """What git says about the proposal branches of a base (the expensive part, cached)."""

    branches: list[ProposalBranch]
    base_blobs: dict[str, str]  # path → blob, under memories/ and retired/ at the base
    base_ids: dict[str, set[str]] = field(default_factory=dict)  # memory id → folders
    # Memory ids a proposal adds that the base held once and no longer does (a `git revert` of
    # the merge): memory id → the commit of the base that removed it.
    removed_ids: dict[str, str] = field(default_factory=dict)


_cache: dict[tuple[str, str, str], _Listing] = {}
_cache_lock = threading.Lock()


def _classify(ref: str) -> tuple[str, str | None, bool] | None:
    """(branch name, remote or None, is a proposal) of a local proposal branch or any
    remote-tracking branch; None for anything else."""
    if ref.startswith(_LOCAL + PROPOSAL_PREFIX):
        return ref.removeprefix(_LOCAL), None, True
    parts = ref.split("/", 3)  # refs/remotes/<remote>/<name>
    if len(parts) == 4 and ref.startswith(_REMOTES) and parts[3] != "HEAD":
        return parts[3], parts[2], parts[3].startswith(PROPOSAL_PREFIX)
    return None


def proposal_branches(
    repo: GitRepo, base_sha: str, pulls: Mapping[str, PullRequest] | None = None
) -> list[ProposalBranch]:
    """Every proposal branch, local or remote-tracking (as last fetched), with its state
    against the base commit ``base_sha`` and the pull requests ``pulls`` (head branch → PR, as
    ``gh`` last said; None or empty: judged without them)."""
    return [b for b in all_branches(repo, base_sha, pulls) if b.proposal]


def all_branches(
    repo: GitRepo, base_sha: str, pulls: Mapping[str, PullRequest] | None = None
) -> list[ProposalBranch]:
    """:func:`proposal_branches`, and every other branch of a remote (``proposal`` False)
    with the changes to memories it brings, judged by content alone."""
    listing = _listing(repo, base_sha)
    judged = [replace(branch) for branch in listing.branches]  # the cached ones stay as git said
    for branch in judged:
        _judge(branch, listing, (pulls or {}).get(branch.name))
    return judged


def _judge(branch: ProposalBranch, listing: _Listing, pr: PullRequest | None) -> None:
    branch.pending = tuple(c for c in branch.changes if not _on_base(c, listing))
    branch.pr = pr
    branch.state, branch.why = _state(branch, branch.pending, pr)
    reverted = sorted({
        listing.removed_ids[c.memory_id][:12] for c in branch.changes
        if c.status == "A" and c.memory_id in listing.removed_ids
    })  # fmt: skip
    if branch.state == "merged" and reverted:
        out = f"taken out of the default branch since (commit {', '.join(reverted)})"
        merged = f"{branch.why}; " if pr is not None and pr.state == "MERGED" else "merged, "
        branch.why = merged + out


def _state(
    branch: ProposalBranch, pending: Sequence[BranchChange], pr: PullRequest | None
) -> tuple[BranchState, str]:
    label = f"PR #{pr.number} {pr.url}" if pr else ""
    if not branch.proposal:
        if not pending:
            return "merged", ""
        return "open", label if pr is not None and pr.state == "OPEN" else f"on {branch.remote}"
    if pr is not None and pr.state == "MERGED":
        return "merged", f"{label} was merged"
    if not pending:
        return "merged", "its changes are on the default branch"
    if pr is not None and pr.state == "CLOSED":
        return "closed", f"{label} was closed without merging"
    if branch.remote is None and branch.pushed_before:
        return "closed", "its remote branch was deleted without a merge"
    if branch.remote is None:
        return "unpushed", "committed here, not pushed yet"
    if pr is not None:
        return "open", label
    return "open", f"pushed to {branch.remote}, no pull request known"


def _on_base(change: BranchChange, listing: _Listing) -> bool:
    """True when the base already holds what ``change`` does."""
    memory_id = change.memory_id
    if change.status == "A" and memory_id is not None:
        # A new memory is merged once its id is in the brain, in whatever state since, or was
        # there and was taken out again (a revert: the proposal is over); a retirement once
        # the id is in retired/.
        folders = listing.base_ids.get(memory_id, set())
        if change.folder == "memories":
            return bool(folders) or memory_id in listing.removed_ids
        return "retired" in folders
    if change.status == "D":
        return change.path not in listing.base_blobs
    return listing.base_blobs.get(change.path) == change.blob


def _listing(repo: GitRepo, base_sha: str) -> _Listing:
    refs = repo.text(
        "for-each-ref",
        "--format=%(refname)%00%(objectname)%00%(upstream)%00%(worktreepath)",
        _LOCAL + PROPOSAL_PREFIX, _REMOTES,
    )  # fmt: skip
    key = (str(repo.common_dir), base_sha, refs)
    with _cache_lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    branches: dict[tuple[str, bool], ProposalBranch] = {}
    for line in refs.splitlines():
        ref, sha, upstream, worktree = [*line.split("\x00"), "", "", ""][:4]
        found = _classify(ref)
        if found is None:
            continue
        name, remote, proposal = found
        branch = branches.get((name, proposal)) or ProposalBranch(
            name, {}, local=False, remote=None, pushed_before=False, checked_out=False,
            proposal=proposal,
        )  # fmt: skip
        branches[name, proposal] = branch
        branch.tips[ref] = sha
        if remote is None:
            branch.local, branch.pushed_before = True, bool(upstream)
            branch.checked_out = bool(worktree)
        elif branch.remote is None:
            branch.remote = remote
    listing = _Listing(list(branches.values()), {})
    if branches:
        listing.base_blobs = _base_blobs(repo, base_sha)
        for path in listing.base_blobs:
            change = BranchChange("A", path, "")
            if change.memory_id is not None:
                listing.base_ids.setdefault(change.memory_id, set()).add(change.folder)
        oldest = _own_changes(repo, base_sha, listing.branches)
        added = {
            c.memory_id for b in listing.branches for c in b.changes
            if c.status == "A" and c.folder == "memories" and c.memory_id is not None
            and c.memory_id not in listing.base_ids
        }  # fmt: skip
        if added and oldest is not None:
            removed = removed_memories(
                repo, base_sha, since=oldest - CLOCK_SKEW_S, present=listing.base_ids
            )
            listing.removed_ids = {i: removed[i] for i in added if i in removed}
    with _cache_lock:
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = listing
    return listing


def _brain_paths() -> list[str]:
    # graph/ and notes/ too: a record proposal (and a note it promotes) brings no memory file,
    # and judged on memories alone it looked merged at once and was tidied away unreviewed.
    return [f"{BRAIN_DIRNAME}/{folder}" for folder in ("memories", "retired", "graph", "notes")]


def _base_blobs(repo: GitRepo, base_sha: str) -> dict[str, str]:
    out = repo.git("ls-tree", "-r", "-z", "--full-tree", base_sha, "--", *_brain_paths()).stdout
    blobs: dict[str, str] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\x00"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob" and git_path(path) is not None:
            blobs[path] = parts[2]
    return blobs


def _own_changes(repo: GitRepo, base_sha: str, branches: Iterable[ProposalBranch]) -> int | None:
    """Each branch's own changes (its commits not on the base), from one ``git log``; the
    commit time of the oldest of those commits (None: none)."""
    by_ref = {ref: branch for branch in branches for ref in branch.tips}
    keyed = {id(branch): branch for branch in by_ref.values()}
    stdin = "".join(f"{ref}\n" for ref in by_ref) + f"^{base_sha}\n"
    out = repo.git(
        "log", "--stdin", "--no-merges", "--source", "--raw", "-z", "--no-renames",
        "--no-abbrev", "--format=%x01%H %ct %S", "--", *_brain_paths(),
        input=stdin.encode("utf-8"),
    ).stdout.decode("utf-8", "surrogateescape")  # fmt: skip
    seen: dict[int, dict[str, BranchChange]] = {}
    added: dict[int, set[str]] = {}
    oldest: int | None = None
    for chunk in out.split("\x01"):
        header, _, rest = chunk.partition("\x00")
        _sha, _, rest_of_header = header.strip().partition(" ")
        when, _, source = rest_of_header.partition(" ")
        branch = by_ref.get(source)
        if branch is None:
            continue
        if when.isdecimal():
            oldest = int(when) if oldest is None else min(oldest, int(when))
        tokens = rest.lstrip("\n").split("\x00")
        for meta, path in zip(tokens[::2], tokens[1::2], strict=False):
            fields = meta.split()
            if len(fields) < 5 or not meta.startswith(":") or git_path(path) is None:
                continue  # a crafted name ('..', '.git', a control character): never a path
            status, blob = fields[4][:1], fields[3]
            mine = seen.setdefault(id(branch), {})
            if status == "A":
                added.setdefault(id(branch), set()).add(path)
            if path not in mine:  # newest first: the first entry is what the branch leaves
                mine[path] = BranchChange(status, path, blob)
    for branch in keyed.values():
        changes = []
        for path, newest in seen.get(id(branch), {}).items():
            was_added = newest.status != "D" and path in added.get(id(branch), set())
            changes.append(BranchChange("A", path, newest.blob) if was_added else newest)
        branch.changes = tuple(sorted(changes, key=lambda c: c.path))
    return oldest


# A proposal's commit is made on its author's machine; the base's commits that merge it, on
# the forge or a maintainer's. Their clocks may disagree by this much.
CLOCK_SKEW_S = 2 * 86_400


def removed_memories(
    repo: GitRepo, base_sha: str, *, since: int | None = None, present: Iterable[str] = ()
) -> dict[str, str]:
    """Memory id → the commit of the base's history that took its file out of the brain
    without retiring it (a ``git revert`` of its merge, a deletion), for the memories the base
    held once and holds no more (``present``: the ids it holds); one ``git log`` of the brain's
    folders (``since``: commit time, seconds since the epoch, before which nothing is read)."""
    args = ["log", "--no-renames", "--name-status", "-z", "--format=%x01%H", base_sha]
    if since is not None:
        args.insert(1, f"--since={max(since, 0)}")
    out = repo.git(*args, "--", *_brain_paths(), check=False).stdout
    held = set(present)
    removed: dict[str, str] = {}
    for chunk in out.decode("utf-8", "surrogateescape").split("\x01"):
        sha, _, rest = chunk.partition("\x00")
        tokens = rest.lstrip("\n").split("\x00")
        for status, path in zip(tokens[::2], tokens[1::2], strict=False):
            memory_id = BranchChange("D", path, "").memory_id
            if memory_id is None or memory_id in held:
                continue
            if status.strip() == "D":  # newest first: the removal the base ends with
                removed.setdefault(memory_id, sha.strip())
    return removed


def tidy_branches(repo: GitRepo, branches: Sequence[ProposalBranch]) -> list[ProposalBranch]:
    """Delete the local copies of merged and closed proposal branches (never one checked out
    in a worktree); the ones deleted. Remote branches are the remote's: ``gh pr merge
    --delete-branch`` and ``git fetch --prune`` clean those."""
    done = [
        b for b in branches
        if b.proposal and b.local and not b.checked_out and b.state in ("merged", "closed")
    ]  # fmt: skip
    if not done:
        return []
    result = repo.git("branch", "-D", "--", *[b.name for b in done], check=False)
    if result.returncode != 0:  # one of them could not go: keep only what did
        remaining = set(repo.text("for-each-ref", "--format=%(refname:short)",
                                  _LOCAL + PROPOSAL_PREFIX).splitlines())  # fmt: skip
        done = [b for b in done if b.name not in remaining]
    return done
