"""What ``tb propose`` and ``tb retire`` share: opening the repository and the base a proposal
starts from, and telling the user where the proposal went."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from teambrain_schema import BRAIN_DIRNAME, EnvironmentProblem

from .._console.output import say

if TYPE_CHECKING:
    from collections.abc import Sequence

    from teambrain_sync import GitRepo, ProposalBranch, ReviewRequest, ReviewTarget


def open_target(
    base: str | None,
    start: Path | None = None,
    *,
    sending: bool = False,
    cache_dir: Path | None = None,
) -> tuple[GitRepo, ReviewTarget]:
    """The repository around ``start`` (default: the current directory) and the commit a
    proposal starts from — in a fork, the default branch of the repository the team merges
    into; exit 2 without git, outside a repository, or when that commit has no brain.

    ``sending`` (a run that pushes): the remote is asked whether its default branch moved
    (renamed), and the answer kept in ``cache_dir`` for ``tb doctor`` and ``tb serve``."""
    from teambrain_sync import choose_target, has_brain, no_brain_reason, open_repo

    repo = open_repo(start or Path.cwd())
    target = choose_target(repo, base, ask_remote=sending and base is None, cache_dir=cache_dir)
    for note in target.notes:
        say(f"note: {note}")
    if not has_brain(repo, target.base.sha):
        reason = no_brain_reason(repo, target.base)
        if reason is not None:
            raise EnvironmentProblem(reason)
        hint = "" if base else " or pass --base <branch>"
        raise EnvironmentProblem(
            f"no brain at {target.base.requested} (commit {target.base.short}): commit "
            f"{BRAIN_DIRNAME}/ there first (`tb init`, commit, push){hint}"
        )
    return repo, target


def target_json(target: ReviewTarget) -> dict[str, object]:
    """The base of a proposal as ``--json`` shows it."""
    return {
        "ref": target.base.requested,
        "commit": target.base.sha,
        "branch": target.base_branch,
        "remote": target.remote,
        "base_remote": target.base_remote,
        "notes": list(target.notes),
    }


def report_review(review: ReviewRequest, target: ReviewTarget) -> None:
    """Tell the user (on stderr) where the proposal is and what to do next."""
    short = review.commit[:12]
    say(f"Branch {review.branch} (commit {short}, based on {target.base.requested}).")
    if review.pr_url:
        say(f"Pull request: {review.pr_url}")
    elif review.pr_failed:
        say(f"Pushed to {review.remote}, but no pull request was opened: gh pr create failed: "
            f"{review.pr_error}")  # fmt: skip
        say(f"  Open one for {review.branch} yourself; `tb propose` also tries again.")
    elif review.pushed:
        say(f"Pushed to {review.remote}. Open a pull request for {review.branch} to review it.")
    elif review.push_error and "already exists on" in review.push_error:
        say(f"Push to {target.remote} failed: {review.push_error}")
        say(f"  Review that pull request instead; then delete this one: "
            f"git branch -D {review.branch}")  # fmt: skip
    elif review.push_error:
        first, *rest = review.push_error.splitlines() or [""]
        say(f"Push to {target.remote} failed: {first}")
        for line in rest:  # every line the server sent (a hook's reasons), as it sent them
            say(f"  {line}")
        say(f"  Run the same command again to send it, or push it yourself: "
            f"git push {target.remote} {review.branch}")  # fmt: skip
    else:
        say(f"Not pushed (no remote). Review it with: git show {review.branch}")
        into = target.base_branch or "your default branch"
        say(f"  Merging it into {into} makes it live.")
    if review.patch and not review.pr_url:
        say(f"Patch: {review.patch}")


def report_unsent(names: Sequence[str], remote: str | None) -> None:
    """Name the proposal branches committed here and kept local (``--no-push``): nothing sends
    them but the user."""
    for name in names:
        say(f"note: {name} is committed here and was never pushed (kept local with --no-push?):"
            f" send it with `git push {remote or '<remote>'} {name}`, or drop it with "
            f"`git branch -D {name}`")  # fmt: skip


def report_tidied(tidied: Sequence[ProposalBranch]) -> None:
    """Tell the user (on stderr) which local proposal branches were removed, and why."""
    for branch in tidied:
        say(f"Removed local branch {branch.name} ({branch.describe()}).")
