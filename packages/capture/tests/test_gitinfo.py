import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_capture._gitinfo import (
    DETACHED,
    commits_between,
    find_git,
    normalise_remote,
    read_branch,
    read_head_sha,
    repo_identity,
)

Git = Callable[..., str]


def test_branch_and_head_match_git(repo: Path, git: Git) -> None:
    (repo / "sub").mkdir()
    found = find_git(str(repo / "sub"))
    assert found is not None
    root, git_dir, common = found
    assert root == str(repo.resolve())
    assert read_branch(git_dir) == "main"
    assert read_head_sha(git_dir, common) == git("rev-parse", "HEAD", cwd=repo)
    git("checkout", "-qb", "feature/login", cwd=repo)
    assert read_branch(git_dir) == "feature/login"
    git("checkout", "-q", "--detach", cwd=repo)
    assert read_branch(git_dir) == DETACHED
    assert read_head_sha(git_dir, common) == git("rev-parse", "HEAD", cwd=repo)


def test_packed_refs_and_worktrees(repo: Path, tmp_path: Path, git: Git) -> None:
    git("pack-refs", "--all", cwd=repo)
    found = find_git(str(repo))
    assert found is not None
    assert read_head_sha(found[1], found[2]) == git("rev-parse", "HEAD", cwd=repo)
    git("worktree", "add", "-q", "-b", "wip", str(tmp_path / "wt"), cwd=repo)
    (tmp_path / "wt" / "b.txt").write_text("b\n")
    git("add", "b.txt", cwd=tmp_path / "wt")
    git("commit", "-qm", "two", cwd=tmp_path / "wt")
    root, git_dir, common = find_git(str(tmp_path / "wt")) or ("", "", "")
    assert root == str((tmp_path / "wt").resolve())
    assert read_branch(git_dir) == "wip"
    assert read_head_sha(git_dir, common) == git("rev-parse", "HEAD", cwd=tmp_path / "wt")
    assert common == str((repo / ".git").resolve())


def test_no_repository_and_no_commit(tmp_path: Path, git: Git) -> None:
    assert find_git(str(tmp_path)) is None or find_git(str(tmp_path))[0] != str(tmp_path)  # type: ignore[index]
    empty = tmp_path / "empty"
    empty.mkdir()
    git("init", "-q", "-b", "main", cwd=empty)
    found = find_git(str(empty))
    assert found is not None
    assert read_branch(found[1]) == "main"
    assert read_head_sha(found[1], found[2]) is None


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("git@github.com:Acme/Shop.git", "github.com/acme/shop"),
        ("https://github.com/acme/shop", "github.com/acme/shop"),
        ("https://x-access-token:ghp_secret@github.com/acme/shop.git/", "github.com/acme/shop"),
        ("ssh://git@gitlab.example.com:2222/team/sub/shop.git", "gitlab.example.com/team/sub/shop"),
        ("/srv/git/shop.git", "local/shop"),
        ("file:///srv/git/shop.git", "local/shop"),
        ("", None),
    ],
)
def test_remotes_are_normalised(url: str, name: str | None) -> None:
    assert normalise_remote(url) == name


@given(
    st.text(min_size=1, max_size=20, alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-"),
    st.text(min_size=8, max_size=30, alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789"),
)
def test_credentials_never_reach_the_repo_key(user: str, secret: str) -> None:
    for url in (
        f"https://{user}:{secret}@host.example/org/repo.git",
        f"ssh://{user}:{secret}@host.example/org/repo",
    ):
        name = normalise_remote(url)
        assert name == "host.example/org/repo"
        assert secret.lower() not in name


def test_repo_identity_prefers_origin(repo: Path, git: Git) -> None:
    found = find_git(str(repo))
    assert found is not None
    assert repo_identity(found[0], found[2]) == "shop"
    git("remote", "add", "origin", "git@github.com:acme/shop.git", cwd=repo)
    git("remote", "add", "upstream", "git@github.com:other/shop.git", cwd=repo)
    assert repo_identity(found[0], found[2]) == "github.com/acme/shop"


def test_commits_between_lists_new_commits_only(repo: Path, git: Git) -> None:
    start = git("rev-parse", "HEAD", cwd=repo)
    since = time.time() - 5
    for name in ("b", "c"):
        (repo / name).write_text(name)
        git("add", name, cwd=repo)
        git("commit", "-qm", name, cwd=repo)
    end = git("rev-parse", "HEAD", cwd=repo)
    commits = commits_between(str(repo), start, end, since)
    assert commits == git("rev-list", f"{start}..{end}", cwd=repo).split()
    assert len(commits) == 2
    assert commits_between(str(repo), None, end, time.time() + 3600) == []
    assert commits_between(str(repo / "nowhere"), start, end, since) == [end]
