"""The candidate spool is machine-wide; each repository proposes only its own candidates."""

from __future__ import annotations

from pathlib import Path

from teambrain_capture import queue_candidate, repo_join_key
from teambrain_schema import machine_layout


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
