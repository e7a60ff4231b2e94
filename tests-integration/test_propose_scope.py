"""The candidate spool is machine-wide; each repository proposes only its own candidates."""

from __future__ import annotations

from pathlib import Path

from teambrain_capture import queue_candidate, repo_join_key
from teambrain_kit.paths import machine_layout


def _brain_repo(path: Path, tb, git_run) -> Path:
    path.mkdir()
    git_run("init", "-q", "-b", "main", cwd=path)
    assert tb("init", cwd=path).returncode == 0
    git_run("add", "-A", cwd=path)
    git_run("commit", "-qm", "brain", cwd=path)
    return path


def test_propose_all_takes_only_this_repositorys_candidates(tmp_path: Path, tb, git_run) -> None:
    shop = _brain_repo(tmp_path / "shop", tb, git_run)
    billing = _brain_repo(tmp_path / "billing", tb, git_run)
    draft = {
        "class": "learning",
        "title": "Shop carts expire after a day",
        "body": "Carts expire after 24 hours.",
    }
    candidate, _ = queue_candidate(
        draft, "agent", repo=repo_join_key(shop), machine=machine_layout()
    )
    elsewhere = tb("propose", "--all", "--dry-run", cwd=billing)
    assert candidate.candidate_id not in elsewhere.stdout + elsewhere.stderr
    assert "other repositories" in elsewhere.stderr
    here = tb("propose", "--all", "--dry-run", cwd=shop)
    assert here.returncode == 0, here.stderr
    assert candidate.candidate_id in here.stdout


def test_the_same_draft_can_be_pending_for_two_repositories(tmp_path: Path) -> None:
    draft = {"class": "learning", "title": "Use the fake clock", "body": "Never sleep in tests."}
    first, created_first = queue_candidate(draft, "agent", repo="local/a", machine=machine_layout())
    second, created_second = queue_candidate(
        draft, "agent", repo="local/b", machine=machine_layout()
    )
    again, created_again = queue_candidate(draft, "agent", repo="local/a", machine=machine_layout())
    assert created_first and created_second and not created_again
    assert first.candidate_id != second.candidate_id and again.candidate_id == first.candidate_id


def test_two_proposals_and_a_retirement_from_one_base_merge_without_conflict(
    repo: Path, tb, git_run
) -> None:
    import json
    import shutil

    demo = Path(__file__).resolve().parents[1] / "demo" / "brain" / "memories"
    assert tb("init", cwd=repo).returncode == 0
    shutil.copytree(demo, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    assert tb("reindex", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    draft = repo.parent / "draft.json"
    draft.write_text(json.dumps({"class": "learning", "title": "Webhooks retry for three days",
                                 "body": "Stripe retries failed webhooks for three days; make handlers idempotent."}))  # fmt: skip
    proposed = tb("propose", "--draft", str(draft), "--no-push", "--json", cwd=repo)
    assert proposed.returncode == 0, proposed.stderr
    second = repo.parent / "second.json"
    second.write_text(json.dumps({"class": "learning", "title": "Migrations lock the orders table",
                                  "body": "Adding an index to orders locks it; use CREATE INDEX CONCURRENTLY."}))  # fmt: skip
    proposed = tb("propose", "--draft", str(second), "--no-push", "--json", cwd=repo)
    assert proposed.returncode == 0, proposed.stderr
    retired = tb(
        "retire",
        "01KB2F0A1S9Y4Q7V3C8D5E6F06",
        "we moved to OpenTelemetry logs",
        "--no-push",
        cwd=repo,
    )
    assert retired.returncode == 0, retired.stderr
    branches = git_run("branch", "--format=%(refname:short)", cwd=repo).split()
    for branch in sorted(b for b in branches if b.startswith("teambrain/")):
        git_run("merge", "-q", "--no-edit", branch, cwd=repo)  # fails the test on a conflict
    assert tb("lint", cwd=repo).returncode == 0
