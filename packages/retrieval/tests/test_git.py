import subprocess
from pathlib import Path

from teambrain_retrieval._git import head_commit


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def commit(root: Path, message: str) -> str:
    (root / "f.txt").write_text(message)
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD")


def test_no_repository_and_no_commits(tmp_path: Path) -> None:
    assert head_commit(tmp_path) is None
    git(tmp_path, "init", "-q", "-b", "main")
    assert head_commit(tmp_path) is None


def test_loose_packed_detached_and_worktree_heads(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    first = commit(repo, "one")
    assert head_commit(repo) == first
    git(repo, "pack-refs", "--all")
    assert not (repo / ".git/refs/heads/main").exists()
    assert head_commit(repo) == first
    second = commit(repo, "two")
    git(repo, "checkout", "-q", "--detach", first)
    assert head_commit(repo) == first
    git(repo, "checkout", "-q", "main")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side", first)
    assert head_commit(tmp_path / "wt") == first
    assert head_commit(repo) == second
