import subprocess
from pathlib import Path

from teambrain_retrieval import Situation, gather_situation


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_no_git_gives_an_empty_situation(tmp_path: Path) -> None:
    situation = gather_situation(tmp_path)
    assert situation == Situation(repo=tmp_path.name)
    assert situation.is_empty()


def test_a_repository_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "feature/payments-retry")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "payments.py").write_text("x = 1\n")
    situation = gather_situation(tmp_path)
    assert situation.branch == "feature/payments-retry"
    assert situation.changed_paths == ["src"]  # an untracked folder, as git reports it
    assert situation.recent_subjects == []


def test_branch_changes_and_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "app.py").write_text("a\n")
    (tmp_path / ".teambrain").mkdir()
    (tmp_path / ".teambrain" / "brain.yaml").write_text("version: 1\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "Add the checkout retry loop")
    git(tmp_path, "checkout", "-qb", "fix/redis-pool")
    (tmp_path / "app.py").write_text("b\n")
    (tmp_path / "new file.py").write_text("c\n")
    situation = gather_situation(tmp_path)
    assert situation.branch == "fix/redis-pool"
    assert situation.changed_paths[:2] == ["app.py", "new file.py"]
    assert not any(p.startswith(".teambrain") for p in situation.changed_paths)
    assert situation.recent_subjects == ["Add the checkout retry loop"]
    text = situation.query_text()
    assert "redis" in text and "pool" in text and "checkout retry" in text
    assert "fix" not in text.split()


def test_detached_head(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "first")
    git(tmp_path, "checkout", "-q", "--detach")
    situation = gather_situation(tmp_path)
    assert situation.branch is None and situation.recent_subjects == ["first"]


def test_recently_committed_names_with_accents_are_not_quoted(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "café menu.md").write_text("a\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "Menu")
    assert gather_situation(tmp_path).changed_paths == ["docs/café menu.md"]
