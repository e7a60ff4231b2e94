"""Edits a supersede hides: a memory edited while another one supersedes it.

Both changes merge cleanly — they touch different files — and the edit is never served again,
since a superseded memory is not. ``tb propose`` says so when it can see both (as last
fetched); this module finds what got past, from the history of the checkout, for ``tb lint``:

* on the first-parent line of HEAD (the default branch: every merge style leaves one commit
  per pull request there), an edit of a superseded memory merged **after** the memory that
  supersedes it;
* an edit merged **before** the supersede, when the supersede was written on a base without
  it: the base is the merge commit's (``git merge-base`` of its parents) or the one the
  proposal's commit names in its ``Teambrain-Base:`` trailer (kept by a rebase, and by a squash
  that keeps the commit message);
* when HEAD is a merge commit (CI's checkout of a pull request's merge result), a pull request
  that adds a supersede of a memory the default branch edited since the pull request's base.

Git is asked only when the brain holds a live memory superseded by another live one, and only
about their files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from teambrain_schema.git import GitFailed, git_path

from ._git import GitRepo


@dataclass(frozen=True)
class HiddenEdit:
    """A superseded memory's edit that is never served: where, which commits, what to do."""

    memory_id: str
    relpath: str
    superseded_by: str
    message: str


def hidden_edits(
    repo: GitRepo,
    supersedes: Mapping[str, Sequence[str]],
    relpaths: Mapping[str, str],
) -> list[HiddenEdit]:
    """The edits of superseded memories that no one will be served, for the live memories
    ``supersedes`` (superseding id → the live ids it supersedes) whose files are ``relpaths``
    (id → repository-relative path). Empty without history (a shallow clone, no commits)."""
    pairs = [
        (new, old) for new, olds in supersedes.items() for old in olds
        if new in relpaths and old in relpaths and new != old
    ]  # fmt: skip
    if not pairs:
        return []
    found = _in_this_merge(repo, pairs, relpaths)  # CI's merge result: said as this PR's
    seen = {(h.memory_id, h.superseded_by) for h in found}
    found += [
        h for h in _after_the_supersede(repo, pairs, relpaths)
        if (h.memory_id, h.superseded_by) not in seen
    ]  # fmt: skip
    return found


def _after_the_supersede(
    repo: GitRepo, pairs: list[tuple[str, str]], relpaths: Mapping[str, str]
) -> list[HiddenEdit]:
    paths = sorted({relpaths[i] for pair in pairs for i in pair})
    try:
        out = repo.git(
            "log", "--first-parent", "--no-renames", "--name-status", "-z",
            "--format=%x01%H", "HEAD", "--", *paths,
        ).stdout.decode("utf-8", "surrogateescape")  # fmt: skip
    except GitFailed:
        return []
    added: dict[str, tuple[int, str]] = {}  # path → (position, commit) of its oldest add
    edited: dict[str, tuple[int, str]] = {}  # path → (position, commit) of its newest edit
    for position, chunk in enumerate(c for c in out.split("\x01") if c.strip()):
        sha, _, rest = chunk.partition("\x00")
        tokens = rest.lstrip("\n").split("\x00")
        for raw_status, path in zip(tokens[::2], tokens[1::2], strict=False):
            status = raw_status.strip()
            if git_path(path) is None:
                continue  # the one check of a path from git
            if status == "A":
                added[path] = (position, sha.strip())
            elif status == "M" and path not in edited:
                edited[path] = (position, sha.strip())
    found = []
    for new, old in pairs:
        new_path, old_path = relpaths[new], relpaths[old]
        if new_path not in added or old_path not in edited:
            continue
        (added_at, added_by), (edited_at, edited_by) = added[new_path], edited[old_path]
        if edited_at < added_at:  # newer: the log lists the newest first
            found.append(
                HiddenEdit(
                    old, old_path, new,
                    f"edited ({edited_by[:12]}) after {new} superseded it ({added_by[:12]}): "
                    f"the edit is never served; fold it into {new}, or retire {old}",
                )
            )  # fmt: skip
            continue
        base = _written_on(repo, added_by)
        if base is not None and _edited_since(repo, base, added_by, old_path):
            found.append(
                HiddenEdit(
                    old, old_path, new,
                    f"edited ({edited_by[:12]}) before {new} superseded it ({added_by[:12]}), "
                    f"on the default branch after the commit {new} was proposed on "
                    f"({base[:12]}): the edit is never served; fold it into {new}, "
                    f"or retire {old}",
                )
            )  # fmt: skip
    return found


def _written_on(repo: GitRepo, commit: str) -> str | None:
    """The commit the change ``commit`` brought to the default branch was written on: the
    merge base of a merge commit's parents, else the commit its ``Teambrain-Base:`` trailer
    names (when this clone has it); None when history does not say."""
    import re

    from ._proposals import BASE_TRAILER

    try:
        parents = repo.text("rev-list", "--parents", "-n", "1", commit).split()[1:]
        if len(parents) >= 2:
            return repo.text("merge-base", parents[0], parents[1]) or None
        message = repo.text("log", "-1", "--format=%B", commit)
    except GitFailed:
        return None
    named = re.findall(rf"^{BASE_TRAILER}: ([0-9a-f]{{40}})\s*$", message, re.MULTILINE)
    if not named:
        return None
    return repo.rev_parse(f"{named[-1]}^{{commit}}")


def _edited_since(repo: GitRepo, base: str, commit: str, path: str) -> bool:
    """Whether the default branch changed ``path`` between ``base`` and ``commit``'s first
    parent (what the change was merged onto)."""
    try:
        changed = repo.text(
            "diff", "--name-only", "--no-renames", "--diff-filter=M", base, f"{commit}^1",
            "--", path,
        )  # fmt: skip
    except GitFailed:
        return False
    return any(git_path(line) is not None for line in changed.splitlines())


def _in_this_merge(
    repo: GitRepo, pairs: list[tuple[str, str]], relpaths: Mapping[str, str]
) -> list[HiddenEdit]:
    """A pull request's merge result (HEAD with two parents) that supersedes a memory the
    default branch edited since the pull request's base."""
    theirs = repo.rev_parse("HEAD^2")
    if theirs is None:
        return []
    try:
        base = repo.text("merge-base", "HEAD^1", "HEAD^2")
        added = _paths(repo.text(
            "diff", "--name-only", "--no-renames", "--diff-filter=A", base, theirs, "--",
            *sorted({relpaths[new] for new, _ in pairs}),
        ))  # fmt: skip
        edited = _paths(repo.text(
            "diff", "--name-only", "--no-renames", "--diff-filter=M", base, "HEAD^1", "--",
            *sorted({relpaths[old] for _, old in pairs}),
        ))  # fmt: skip
    except GitFailed:
        return []
    return [
        HiddenEdit(
            old,
            relpaths[old],
            new,
            f"edited on the default branch since this pull request's base ({base[:12]}), "
            f"which supersedes it with {new}: the edit is never served; fold it into {new}",
        )
        for new, old in pairs
        if relpaths[new] in added and relpaths[old] in edited
    ]


def _paths(listing: str) -> set[str]:
    """The paths of a ``git diff --name-only`` listing that pass the one check of git's paths."""
    return {line for line in listing.splitlines() if git_path(line) is not None}
