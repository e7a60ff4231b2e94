from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_schema import EnvironmentProblem
from teambrain_sync import GitFailed, git_env, open_repo


def test_open_repo_outside_a_repository_is_an_environment_problem(tmp_path: Path) -> None:
    with pytest.raises(EnvironmentProblem, match="not inside a git repository") as info:
        open_repo(tmp_path)
    assert info.value.exit_code == 2


def test_open_repo_without_git_on_path_says_so(
    tmp_path: Path, brain_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(EnvironmentProblem, match="git is not installed") as info:
        open_repo(brain_repo)
    assert info.value.exit_code == 2


def test_a_bare_repository_is_refused(tmp_path: Path, kit: SimpleNamespace) -> None:
    kit.git("init", "-q", "--bare", str(tmp_path / "bare.git"), cwd=tmp_path)
    with pytest.raises(EnvironmentProblem, match="bare"):
        open_repo(tmp_path / "bare.git")


def test_open_repo_from_a_subdirectory_finds_the_top(brain_repo: Path) -> None:
    repo = open_repo(brain_repo / ".teambrain" / "memories")
    assert repo.root == brain_repo.resolve()
    assert repo.git_dir == repo.common_dir == (brain_repo / ".git").resolve()
    assert repo.current_branch() == "main"


def test_a_linked_worktree_shares_the_common_dir(brain_repo: Path, kit: SimpleNamespace) -> None:
    linked = brain_repo.parent / "linked"
    kit.git("worktree", "add", "-q", "-b", "feature", str(linked), cwd=brain_repo)
    repo = open_repo(linked)
    assert repo.root == linked.resolve()
    assert repo.common_dir == (brain_repo / ".git").resolve()
    assert repo.git_dir != repo.common_dir
    assert repo.current_branch() == "feature"


def test_detached_head_has_no_branch_but_a_commit(brain_repo: Path, kit: SimpleNamespace) -> None:
    kit.git("checkout", "-q", "--detach", cwd=brain_repo)
    repo = open_repo(brain_repo)
    assert repo.current_branch() is None
    assert repo.head() == kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()


def test_inherited_repository_variables_cannot_redirect_git(
    brain_repo: Path, tmp_path: Path, kit: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As inside a git hook of another repository: GIT_DIR and GIT_INDEX_FILE point elsewhere.
    other = tmp_path / "other"
    other.mkdir()
    kit.git("init", "-q", cwd=other)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "foreign-index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    env = git_env()
    assert not {"GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"} & set(env)
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    assert env["GIT_AUTHOR_NAME"] == "Test Author"  # identity passes through
    repo = open_repo(brain_repo)
    assert repo.root == brain_repo.resolve()
    assert repo.head() is not None
    assert not (tmp_path / "foreign-index").exists()


def test_a_failing_command_names_git_and_its_reason(brain_repo: Path) -> None:
    repo = open_repo(brain_repo)
    with pytest.raises(GitFailed) as info:
        repo.git("cat-file", "-p", "no-such-object")
    assert info.value.exit_code == 2
    assert info.value.message.startswith("git cat-file -p failed:")
    assert repo.rev_parse("no-such-branch") is None
