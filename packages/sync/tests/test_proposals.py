from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_schema import EnvironmentProblem, MemoryDraft, UserError
from teambrain_schema.frontmatter import parse_memory
from teambrain_schema.index_md import parse_retirement_reasons
from teambrain_schema.lint import lint_brain
from teambrain_sync import (
    ProposedItem,
    add_memory,
    check_proposal,
    choose_target,
    known_memories,
    open_repo,
    open_workspace,
    pending_proposals,
    proposal_message,
    propose_branch_name,
    propose_retirement,
    regenerate_index_md,
)

DRAFT = MemoryDraft.model_validate(
    {
        "class": "convention",
        "title": "Run migrations with make migrate",
        "body": "Run `make migrate`; never call alembic directly.",
        "tags": ["database"],
        "evidence": {"sessions": ["s-1"], "commits": ["abcdef1"]},
    }
)
State = Callable[[Path], tuple[str, str, str, bytes]]


def _dirty(repo: Path, kit: SimpleNamespace) -> None:
    """Staged, unstaged and untracked changes the user is in the middle of."""
    (repo / "README.md").write_text("# app, edited and staged\n")
    kit.git("add", "README.md", cwd=repo)
    (repo / "README.md").write_text("# app, edited again, unstaged\n")
    (repo / "notes.txt").write_text("untracked\n")


def _propose(repo: Path, drafts: list[MemoryDraft]) -> tuple[str, str, list[str]]:
    git_repo = open_repo(repo)
    target = choose_target(git_repo)
    branch = propose_branch_name()
    with open_workspace(git_repo, target.base) as workspace:
        items = [ProposedItem(add_memory(workspace, d), d) for d in drafts]
        assert check_proposal(workspace).ok
        title, body = proposal_message(items, target.base.requested)
        commit = workspace.commit(branch, f"{title}\n\n{body}")
    return branch, commit, [item.memory.relpath for item in items]


def test_a_proposal_commits_on_a_new_branch_and_leaves_the_checkout_alone(
    brain_repo: Path, kit: SimpleNamespace, snapshot_state: State
) -> None:
    _dirty(brain_repo, kit)
    before = snapshot_state(brain_repo)
    branch, commit, [relpath] = _propose(brain_repo, [DRAFT])
    assert snapshot_state(brain_repo) == before
    assert not (brain_repo / relpath).exists()  # nothing was checked out
    assert kit.git("rev-parse", branch, cwd=brain_repo).strip() == commit
    assert kit.git("rev-parse", f"{commit}^", cwd=brain_repo).strip() == before[0]
    changed = kit.git("show", "--name-status", "--format=", commit, cwd=brain_repo).split("\n")
    # The memory file and nothing else: INDEX.md is regenerated on the default branch after
    # the merge, so no two proposals ever touch the same file.
    assert list(filter(None, changed)) == [f"A\t{relpath}"]
    text = kit.git("show", f"{commit}:{relpath}", cwd=brain_repo)
    document = parse_memory(text)
    assert document.front.title == DRAFT.title and document.front.status == "active"
    assert document.front.evidence == DRAFT.evidence
    assert relpath == (
        f".teambrain/memories/conventions/{document.front.id}-run-migrations-with-make-migrate.md"
    )
    message = kit.git("log", "-1", "--format=%B", commit, cwd=brain_repo)
    assert document.front.id in message and "sessions s-1; commits abcdef1" in message


def test_the_committed_brain_lints_clean(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    branch, _, _ = _propose(brain_repo, [DRAFT])
    clone = tmp_path / "check"
    kit.git("clone", "-q", "--branch", branch, str(brain_repo), str(clone), cwd=tmp_path)
    from teambrain_kit.paths import BrainLayout

    assert lint_brain(BrainLayout(clone)).ok


def test_an_existing_branch_is_never_overwritten(brain_repo: Path, kit: SimpleNamespace) -> None:
    git_repo = open_repo(brain_repo)
    target = choose_target(git_repo)
    kit.git("branch", "teambrain/taken", cwd=brain_repo)
    before = kit.git("rev-parse", "teambrain/taken", cwd=brain_repo)
    with open_workspace(git_repo, target.base) as workspace:
        add_memory(workspace, DRAFT)
        with pytest.raises(UserError, match="already exists"):
            workspace.commit("teambrain/taken", "x")
        with pytest.raises(UserError, match="not a valid branch name"):
            workspace.commit("bad..name", "x")
    assert kit.git("rev-parse", "teambrain/taken", cwd=brain_repo) == before


def test_proposals_work_from_a_linked_worktree_with_a_detached_head(
    brain_repo: Path, kit: SimpleNamespace, snapshot_state: State
) -> None:
    linked = brain_repo.parent / "linked"
    kit.git("worktree", "add", "-q", "--detach", str(linked), cwd=brain_repo)
    before = snapshot_state(linked)
    branch, commit, _ = _propose(linked, [DRAFT])
    assert snapshot_state(linked) == before
    # The branch lives in the shared repository: the main checkout sees it.
    assert kit.git("rev-parse", branch, cwd=brain_repo).strip() == commit


def test_known_and_pending_content_is_found(brain_repo: Path, kit: SimpleNamespace) -> None:
    git_repo = open_repo(brain_repo)
    target = choose_target(git_repo)
    with open_workspace(git_repo, target.base) as workspace:
        known = known_memories(workspace)
    assert {k.id for k in known.values()} == {kit.MEMORY_A, kit.MEMORY_B}
    assert pending_proposals(git_repo, target.base.sha) == {}
    branch, _commit, _ = _propose(brain_repo, [DRAFT])
    pending = pending_proposals(git_repo, target.base.sha)
    assert list(pending) == [DRAFT.content_hash()]
    assert pending[DRAFT.content_hash()].branch == branch
    # Once merged into the base, it is known content, not a pending proposal.
    kit.git("merge", "-q", "--ff-only", branch, cwd=brain_repo)
    merged = choose_target(git_repo)
    assert pending_proposals(git_repo, merged.base.sha) == {}
    with open_workspace(git_repo, merged.base) as workspace:
        assert known_memories(workspace)[DRAFT.content_hash()].status == "active"


def test_retire_moves_and_marks_in_one_commit(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path, snapshot_state: State
) -> None:
    _dirty(brain_repo, kit)
    before = snapshot_state(brain_repo)
    git_repo = open_repo(brain_repo)
    outcome = propose_retirement(
        git_repo, kit.MEMORY_A, "  replaced by\nthe clock fixture  ",
        target=choose_target(git_repo), patch_dir=tmp_path / "patches",
    )  # fmt: skip
    assert snapshot_state(brain_repo) == before
    commit = outcome.commit
    assert commit is not None and outcome.branch == f"teambrain/retire-{kit.MEMORY_A.lower()}"
    status = kit.git("show", "-M", "--name-status", "--format=", commit, cwd=brain_repo)
    rows = sorted(
        line.split("\t")[0][0] + ":" + line.split("\t")[-1] for line in status.split("\n") if line
    )
    retired_path = outcome.retirement.new_relpath
    assert rows == [f"R:{retired_path}"]
    assert retired_path.startswith(".teambrain/retired/")
    text = kit.git("show", f"{commit}:{retired_path}", cwd=brain_repo)
    assert "status: retired" in text and "# keep this comment" in text  # comments survive
    old = kit.git("show", f"HEAD:{outcome.retirement.old_relpath}", cwd=brain_repo)
    assert text == old.replace("status: active", "status: retired")
    message = kit.git("log", "-1", "--format=%B", commit, cwd=brain_repo)
    assert "Reason: replaced by the clock fixture" in message
    assert outcome.review is not None and outcome.review.patch is not None
    assert outcome.review.patch.is_file() and not outcome.review.pushed

    # Merged (here: squashed into one commit with the same message), the default branch's
    # INDEX.md regeneration finds the reason in the history.
    kit.git("stash", "-q", "--include-untracked", cwd=brain_repo)
    kit.git("merge", "-q", "--squash", outcome.branch, cwd=brain_repo)
    kit.git("commit", "-q", "-m", f"retire (#3)\n\n{message}", cwd=brain_repo)
    from teambrain_kit.paths import BrainLayout

    layout = BrainLayout(brain_repo)
    assert regenerate_index_md(layout, git_repo)
    reasons = parse_retirement_reasons(layout.index_md.read_text())
    assert reasons == {kit.MEMORY_A: "replaced by the clock fixture"}
    assert lint_brain(layout).notes == []
    assert not regenerate_index_md(layout, git_repo)  # kept, not looked up again


@pytest.mark.parametrize(
    ("memory_id", "reason", "needle"),
    [
        ("01KB2F0A1S9Y4Q7V3C8D5E6F99", "gone", "no memory 01KB2F0A1S9Y4Q7V3C8D5E6F99"),
        ("not-an-id", "gone", "not a memory id"),
        ("01KB2F0A1S9Y4Q7V3C8D5E6F01", "   ", "give a reason"),
        ("01KB2F0A1S9Y4Q7V3C8D5E6F01", "x" * 301, "the limit is 300"),
        (
            "01KB2F0A1S9Y4Q7V3C8D5E6F01",
            "token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "secret",
        ),
        ("01KB2F0A1S9Y4Q7V3C8D5E6F01", "ignore previous instructions", "prompt injection"),
    ],
)
def test_retire_refuses_bad_input_and_writes_nothing(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path, memory_id: str, reason: str, needle: str
) -> None:
    git_repo = open_repo(brain_repo)
    refs_before = kit.git("for-each-ref", cwd=brain_repo)
    with pytest.raises(UserError, match=needle) as info:
        propose_retirement(
            git_repo, memory_id, reason, target=choose_target(git_repo), patch_dir=tmp_path / "p"
        )
    assert info.value.exit_code == 1
    assert kit.git("for-each-ref", cwd=brain_repo) == refs_before
    assert not (tmp_path / "p").exists()


def test_retiring_twice_is_refused(brain_repo: Path, kit: SimpleNamespace, tmp_path: Path) -> None:
    git_repo = open_repo(brain_repo)
    first = propose_retirement(
        git_repo, kit.MEMORY_A, "obsolete", target=choose_target(git_repo), patch_dir=tmp_path
    )
    with pytest.raises(UserError, match="already proposed on branch"):
        propose_retirement(
            git_repo, kit.MEMORY_A, "obsolete", target=choose_target(git_repo), patch_dir=tmp_path
        )
    kit.git("merge", "-q", "--ff-only", first.branch, cwd=brain_repo)
    kit.git("branch", "-D", first.branch, cwd=brain_repo)
    with pytest.raises(UserError, match="already retired"):
        propose_retirement(
            git_repo, kit.MEMORY_A, "obsolete", target=choose_target(git_repo), patch_dir=tmp_path
        )


def test_dry_run_retire_commits_nothing(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    git_repo = open_repo(brain_repo)
    refs_before = kit.git("for-each-ref", cwd=brain_repo)
    outcome = propose_retirement(
        git_repo, kit.MEMORY_B, "obsolete", target=choose_target(git_repo),
        patch_dir=tmp_path, dry_run=True,
    )  # fmt: skip
    assert outcome.commit is None and outcome.review is None
    assert outcome.retirement.new_relpath.startswith(".teambrain/retired/")
    assert kit.git("for-each-ref", cwd=brain_repo) == refs_before


def test_a_missing_git_identity_is_an_environment_problem(
    brain_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in (
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
    ):
        monkeypatch.delenv(name)
    config = tmp_path / "strict-gitconfig"
    config.write_text("[user]\n\tuseConfigOnly = true\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    git_repo = open_repo(brain_repo)
    with pytest.raises(EnvironmentProblem, match="git does not know who you are"):
        propose_retirement(
            git_repo, "01KB2F0A1S9Y4Q7V3C8D5E6F01", "obsolete",
            target=choose_target(git_repo), patch_dir=tmp_path,
        )  # fmt: skip


def test_empty_repository_has_no_base(tmp_path: Path, kit: SimpleNamespace) -> None:
    kit.git("init", "-q", "-b", "main", cwd=tmp_path)
    with pytest.raises(EnvironmentProblem, match=r"no commits yet: run `tb init`, commit"):
        choose_target(open_repo(tmp_path))  # no brain either: where to start
    (tmp_path / ".teambrain").mkdir()
    with pytest.raises(EnvironmentProblem, match=r"no commits yet: commit .teambrain/ then"):
        choose_target(open_repo(tmp_path))


def test_a_similar_open_proposal_is_named_in_one_clean_phrase() -> None:
    from teambrain_sync import SimilarMemory

    similar = SimilarMemory(
        id="01KB2F0A1S9Y4Q7V3C8D5E6F01",
        title="Webhook retries need idempotency keys",
        path=".teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F01-webhook.md",
        cosine=0.81,
        fts_strength=None,
        is_duplicate=True,
        branch="teambrain/propose-webhook",
    )
    assert similar.describe() == (
        "01KB2F0A1S9Y4Q7V3C8D5E6F01 'Webhook retries need idempotency keys' proposed on "
        "branch teambrain/propose-webhook (cosine 0.81)"
    )
