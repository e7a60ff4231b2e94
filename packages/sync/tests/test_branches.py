"""Proposal branches and what became of them, judged by content (issue 27 point 2), and the
pull requests ``gh`` reported, read back from this machine's cache."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from hypothesis import given, settings, strategies as st
from teambrain_schema import MemoryDraft
from teambrain_sync import (
    PullRequest,
    add_memory,
    cached_pull_requests,
    choose_target,
    open_proposals,
    open_repo,
    open_workspace,
    proposal_branches,
    tidy_branches,
)

DRAFT = MemoryDraft.model_validate(
    {"class": "learning", "title": "Warm the cache first", "body": "Warm it before load tests."}
)


def _proposal(repo_path: Path, branch: str, draft: MemoryDraft = DRAFT) -> str:
    repo = open_repo(repo_path)
    with open_workspace(repo, choose_target(repo).base) as workspace:
        add_memory(workspace, draft)
        return workspace.commit(branch, "propose")


def test_squash_and_rebase_merges_count_as_merged_by_content(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    repo = open_repo(brain_repo)
    _proposal(brain_repo, "teambrain/propose-a")
    other = MemoryDraft.model_validate({**DRAFT.model_dump(by_alias=True), "title": "Other"})
    _proposal(brain_repo, "teambrain/propose-b", other)
    base = kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    states = {b.name: b.state for b in proposal_branches(repo, base)}
    assert states == {"teambrain/propose-a": "unpushed", "teambrain/propose-b": "unpushed"}
    # Squash one (a new commit, new id) and cherry-pick the other (a rebase does the same).
    kit.git("merge", "-q", "--squash", "teambrain/propose-a", cwd=brain_repo)
    kit.git("commit", "-q", "-m", "squashed", cwd=brain_repo)
    kit.git("cherry-pick", "teambrain/propose-b", cwd=brain_repo)
    head = kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    branches = proposal_branches(repo, head)
    assert {b.name: b.state for b in branches} == {
        "teambrain/propose-a": "merged", "teambrain/propose-b": "merged",
    }  # fmt: skip
    assert open_proposals(repo, head).open == {}
    # A pull request gh calls merged or closed wins over content still pending.
    pulls = {"teambrain/propose-a": PullRequest(3, "CLOSED", "https://x/pull/3")}
    pending = {b.name: b.state for b in proposal_branches(repo, base, pulls)}
    assert pending["teambrain/propose-a"] == "closed"
    removed = tidy_branches(repo, branches)
    assert sorted(b.name for b in removed) == ["teambrain/propose-a", "teambrain/propose-b"]
    assert kit.git("branch", "--list", "teambrain/*", cwd=brain_repo).strip() == ""


def test_a_checked_out_proposal_branch_is_never_deleted(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    repo = open_repo(brain_repo)
    commit = _proposal(brain_repo, "teambrain/propose-a")
    kit.git("merge", "-q", "--ff-only", commit, cwd=brain_repo)
    linked = brain_repo.parent / "linked"
    kit.git("worktree", "add", "-q", str(linked), "teambrain/propose-a", cwd=brain_repo)
    branches = proposal_branches(repo, commit)
    assert [(b.state, b.checked_out) for b in branches] == [("merged", True)]
    assert tidy_branches(repo, branches) == []
    assert kit.git("rev-parse", "teambrain/propose-a", cwd=brain_repo).strip() == commit


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(data=_json)
def test_the_pull_request_cache_reads_anything_without_raising(data: object) -> None:
    """The cache is a file on the machine: whatever it holds, it is read as some pull requests
    or none, never a crash."""
    import tempfile

    from teambrain_sync import GitRepo

    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        repo = GitRepo(root=where, git_dir=where / ".git", common_dir=where / ".git")
        (where / "pull-requests.json").write_text(
            json.dumps({str(repo.common_dir): {"pulls": data}}), "utf-8"
        )
        found = cached_pull_requests(where, repo)
        assert all(isinstance(pr, PullRequest) for pr in found.values())
        (where / "pull-requests.json").write_text(json.dumps(data), "utf-8")
        cached_pull_requests(where, repo)
        (where / "pull-requests.json").write_bytes(b"\xff\x00not json")
        assert cached_pull_requests(where, repo) == {}
