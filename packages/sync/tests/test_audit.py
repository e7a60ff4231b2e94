"""Sync cannot read ~/.teambrain/user/: every sync operation runs under an audit-hook watch of
that directory, and the watch itself is shown to catch real accesses."""

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_capture import user_dir
from teambrain_kit.paths import machine_layout
from teambrain_schema import MemoryDraft
from teambrain_sync import (
    UserDirTouched,
    add_memory,
    brain_at,
    check_proposal,
    choose_target,
    commit_at,
    open_repo,
    open_workspace,
    parse_timestamp,
    pending_proposals,
    propose_retirement,
    prove_user_dir_untouched,
    resolve_commit,
    send_for_review,
    watch_directory,
)


@pytest.fixture
def private_user_dir(teambrain_home: Path) -> Path:
    """The real user/ directory of this test's TEAMBRAIN_HOME, with files worth stealing."""
    path = user_dir()
    path.mkdir(parents=True)
    (path / "feedback.jsonl").write_text('{"id": "x", "useful": true}\n')
    (path / "config.toml").write_text("[capture]\nretention_days = 30\n")
    return path


def test_every_sync_operation_leaves_user_dir_alone(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path, private_user_dir: Path
) -> None:
    remote = tmp_path / "remote.git"
    kit.git("clone", "-q", "--bare", str(brain_repo), str(remote), cwd=tmp_path)
    kit.git("remote", "add", "origin", str(remote), cwd=brain_repo)
    kit.git("fetch", "-q", "origin", cwd=brain_repo)
    patches = machine_layout().proposals
    draft = MemoryDraft.model_validate(
        {"class": "learning", "title": "Warm the cache", "body": "Run `make warm` first."}
    )

    def everything() -> None:
        repo = open_repo(brain_repo)
        target = choose_target(repo)
        with open_workspace(repo, target.base) as workspace:
            add_memory(workspace, draft)
            check_proposal(workspace)
            commit = workspace.commit("teambrain/audit-test", "audit test")
        send_for_review(
            repo, target=target, branch="teambrain/audit-test", commit=commit,
            title="t", body="b", patch_dir=patches,
        )  # fmt: skip
        pending_proposals(repo, target.base.sha)
        propose_retirement(repo, kit.MEMORY_A, "obsolete", target=target, patch_dir=patches)
        with brain_at(repo, commit_at(repo, parse_timestamp("2030-01-01"))) as snapshot:
            list(snapshot.layout.memories.rglob("*.md"))
        with brain_at(repo, resolve_commit(repo, "HEAD")):
            pass

    prove_user_dir_untouched(private_user_dir, everything)
    assert kit.git("rev-parse", "--verify", "teambrain/audit-test", cwd=remote).strip()


@pytest.mark.parametrize(
    "access",
    [
        lambda d: (d / "feedback.jsonl").read_text(),
        lambda d: os.listdir(d),
        lambda d: list(d.iterdir()),
        lambda d: open(os.path.join(str(d), "..", d.name, "config.toml")).close(),
        lambda d: subprocess.run(["cat", str(d / "config.toml")], capture_output=True, check=False),
        lambda d: subprocess.run(
            ["true"], env={**os.environ, "GIT_INDEX_FILE": f"{d}/index"}, check=False
        ),
        lambda d: (d / "new.txt").write_text("x"),
    ],
)
def test_the_watch_catches_real_accesses(private_user_dir: Path, access: object) -> None:
    with pytest.raises(UserDirTouched) as info:
        prove_user_dir_untouched(private_user_dir, lambda: access(private_user_dir))  # type: ignore[operator]
    assert info.value.accesses
    assert str(private_user_dir) in str(info.value)


def test_the_watch_sees_through_symlinks(private_user_dir: Path, tmp_path: Path) -> None:
    alias = tmp_path / "innocent"
    alias.symlink_to(private_user_dir)
    with watch_directory(private_user_dir) as accesses:
        (alias / "feedback.jsonl").read_text()
    assert accesses


def test_the_watch_ignores_neighbours(private_user_dir: Path) -> None:
    neighbour = private_user_dir.parent / "user-not-really"
    neighbour.mkdir()
    (neighbour / "f").write_text("ok")
    assert prove_user_dir_untouched(private_user_dir, lambda: (neighbour / "f").read_text()) == "ok"
