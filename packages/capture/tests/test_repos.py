"""One repository, one identity across remote changes (issue 39, point 3)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from teambrain_capture import RepoKeys, repo_keys
from teambrain_capture._repos import note_repo_key
from teambrain_kit.paths import MachineLayout


def test_keys_follow_a_first_remote_a_rename_and_a_move_said_once(
    repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    machine = MachineLayout(tmp_path / "home")
    said: list[str] = []
    first = repo_keys(repo, machine, say=said.append)
    assert first == RepoKeys("shop", frozenset()) and said == []
    git("remote", "add", "origin", "git@github.com:acme/shop.git", cwd=repo)
    added = repo_keys(repo, machine, say=said.append)
    assert added.key == "github.com/acme/shop" and added.holds("shop") and added.holds(None)
    [line] = said
    assert "'shop'" in line and "'github.com/acme/shop'" in line
    assert repo_keys(repo, machine, say=said.append).names == added.names
    assert len(said) == 1  # said once
    git("remote", "set-url", "origin", "https://gitlab.example/acme/shop-renamed", cwd=repo)
    renamed = repo_keys(repo, machine, say=said.append)
    assert renamed.names == {"shop", "github.com/acme/shop", "gitlab.example/acme/shop-renamed"}
    assert "'github.com/acme/shop'" in said[-1] and len(said) == 2
    assert not renamed.holds("github.com/other/shop")

    # Moved on disk (a new record) and renamed again: found by its root commit.
    moved = tmp_path / "elsewhere"
    shutil.move(str(repo), moved)
    git("remote", "set-url", "origin", "https://github.com/acme/shop-v2.git", cwd=moved)
    found = repo_keys(moved, machine)
    assert {"shop", "github.com/acme/shop", "gitlab.example/acme/shop-renamed"} <= found.names


def test_the_hook_records_the_key_a_session_is_filed_under(
    repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    machine = MachineLayout(tmp_path / "home")
    note_repo_key(machine, str(repo / ".git"), "shop")  # a session before the remote
    git("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    assert repo_keys(repo, machine).holds("shop")
    note_repo_key(machine, str(repo / ".git"), "shop")  # a known key: nothing written
    records = list((tmp_path / "home" / "repos").glob("*.json"))
    assert len(records) == 1 and oct(records[0].stat().st_mode & 0o777) == "0o600"


def test_an_unrelated_repository_of_the_same_folder_name_keeps_its_own_keys(
    repo: Path, git: Callable[..., str], tmp_path: Path
) -> None:
    machine = MachineLayout(tmp_path / "home")
    git("remote", "add", "origin", "https://github.com/acme/shop.git", cwd=repo)
    repo_keys(repo, machine)
    other = tmp_path / "other" / "app"
    other.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=other)
    (other / "b.py").write_text("b = 2\n")
    git("add", "b.py", cwd=other)
    git("commit", "-qm", "unrelated", cwd=other)
    git("remote", "add", "origin", "https://github.com/else/app.git", cwd=other)
    assert not repo_keys(other, machine).holds("github.com/acme/shop")


def test_outside_git_there_is_no_key(tmp_path: Path) -> None:
    keys = repo_keys(tmp_path, MachineLayout(tmp_path / "home"))
    assert keys.key is None and keys.holds(None) and not keys.holds("anything")
