import json
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_sync import (
    choose_target,
    open_repo,
    propose_retirement,
    push_remote,
)

FAKE_GH = """#!/bin/sh
# A stand-in for GitHub's CLI: records every call, answers like gh would.
printf '%s\\n' "$@" > "$GH_LOG_DIR/call-$(ls "$GH_LOG_DIR" | wc -l | tr -d ' ')"
if [ "$1" = auth ]; then exit "${GH_AUTH_EXIT:-0}"; fi
if [ "$1" = pr ] && [ "$2" = create ]; then
  echo "Creating pull request for branch" >&2
  echo "https://github.example/acme/shop/pull/42"
  exit 0
fi
exit 1
"""


def _clone_with_remote(brain_repo: Path, kit: SimpleNamespace, tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    kit.git("clone", "-q", "--bare", str(brain_repo), str(remote), cwd=tmp_path)
    clone = tmp_path / "clone"
    kit.git("clone", "-q", str(remote), str(clone), cwd=tmp_path)
    return remote, clone


def _install_fake_gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, auth_exit: int = 0) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(gh.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "gh-calls"
    log.mkdir()
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("GH_LOG_DIR", str(log))
    monkeypatch.setenv("GH_AUTH_EXIT", str(auth_exit))
    return log


def _calls(log: Path) -> list[list[str]]:
    return [
        p.read_text().splitlines()
        for p in sorted(log.iterdir(), key=lambda p: int(p.name.split("-")[1]))
    ]


def test_without_a_remote_the_base_is_the_local_default_branch(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    kit.git("checkout", "-q", "-b", "feature", cwd=brain_repo)
    (brain_repo / "feature.txt").write_text("wip")
    kit.git("add", "feature.txt", cwd=brain_repo)
    kit.git("commit", "-q", "-m", "feature work", cwd=brain_repo)
    target = choose_target(open_repo(brain_repo))
    assert target.remote is None and target.base_branch == "main"
    assert target.base.sha == kit.git("rev-parse", "main", cwd=brain_repo).strip()


def test_with_a_remote_the_base_is_its_default_branch(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    _, clone = _clone_with_remote(brain_repo, kit, tmp_path)
    kit.git("checkout", "-q", "--detach", cwd=clone)
    repo = open_repo(clone)
    target = choose_target(repo)
    assert (target.remote, target.base_branch, target.base.requested) == (
        "origin",
        "main",
        "origin/main",
    )
    explicit = choose_target(repo, "main")
    assert explicit.base_branch == "main" and explicit.base.requested == "main"


def test_push_remote_prefers_push_default_then_origin_then_the_only_one(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    repo = open_repo(brain_repo)
    assert push_remote(repo) is None
    kit.git("remote", "add", "upstream", "/nowhere/a.git", cwd=brain_repo)
    assert push_remote(repo) == "upstream"
    kit.git("remote", "add", "origin", "/nowhere/b.git", cwd=brain_repo)
    assert push_remote(repo) == "origin"
    kit.git("config", "remote.pushDefault", "upstream", cwd=brain_repo)
    assert push_remote(repo) == "upstream"


def test_push_then_pull_request_through_gh(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, clone = _clone_with_remote(brain_repo, kit, tmp_path)
    log = _install_fake_gh(tmp_path, monkeypatch)
    repo = open_repo(clone)
    outcome = propose_retirement(
        repo, kit.MEMORY_B, "we moved to adapters", target=choose_target(repo),
        patch_dir=tmp_path / "patches",
    )  # fmt: skip
    review = outcome.review
    assert review is not None and review.pushed and review.push_error is None
    assert review.pr_url == "https://github.example/acme/shop/pull/42"
    assert kit.git("rev-parse", outcome.branch, cwd=remote).strip() == outcome.commit
    calls = _calls(log)
    # Logged in? (asked once) The proposal branches' pull requests, then the new one.
    assert calls[0] == ["auth", "status"] and calls.count(["auth", "status"]) == 1
    assert calls[1][:4] == ["pr", "list", "--state", "all"]
    create = calls[2]  # (this gh cannot list: pull requests unknown, nothing else asked)
    assert create[:2] == ["pr", "create"]
    assert create[create.index("--head") + 1] == outcome.branch
    assert create[create.index("--base") + 1] == "main"
    assert create[create.index("--title") + 1].startswith(f"teambrain: retire {kit.MEMORY_B}")
    assert json.loads(json.dumps(review.to_json()))["pr_url"].endswith("/42")


def test_gh_not_logged_in_means_branch_and_patch_only(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, clone = _clone_with_remote(brain_repo, kit, tmp_path)
    log = _install_fake_gh(tmp_path, monkeypatch, auth_exit=1)
    repo = open_repo(clone)
    outcome = propose_retirement(
        repo, kit.MEMORY_B, "obsolete", target=choose_target(repo), patch_dir=tmp_path / "p"
    )
    assert outcome.review is not None and outcome.review.pushed
    assert outcome.review.pr_url is None
    assert _calls(log) == [["auth", "status"]]
    patch = outcome.review.patch
    assert patch is not None and patch.parent == tmp_path / "p"
    assert oct(patch.stat().st_mode & 0o777) == "0o600"
    assert "rename to .teambrain/retired/" in patch.read_text()


def test_a_failed_push_keeps_the_branch_and_says_why(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    kit.git("remote", "add", "origin", str(tmp_path / "missing.git"), cwd=brain_repo)
    repo = open_repo(brain_repo)
    outcome = propose_retirement(
        repo, kit.MEMORY_B, "obsolete", target=choose_target(repo), patch_dir=tmp_path / "p"
    )
    assert outcome.review is not None and not outcome.review.pushed
    assert outcome.review.push_error
    assert kit.git("rev-parse", outcome.branch, cwd=brain_repo).strip() == outcome.commit


def test_no_push_keeps_everything_local(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    remote, clone = _clone_with_remote(brain_repo, kit, tmp_path)
    repo = open_repo(clone)
    outcome = propose_retirement(
        repo, kit.MEMORY_B, "obsolete", target=choose_target(repo), patch_dir=tmp_path, push=False
    )
    assert outcome.review is not None and not outcome.review.pushed
    assert outcome.review.remote is None
    assert outcome.branch not in kit.git("branch", "--list", cwd=remote)


def test_patches_and_the_pull_request_cache_make_private_folders_whatever_the_umask(
    brain_repo: Path, tmp_path: Path
) -> None:
    """A patch or the pull-request cache written where no folder exists yet (a fresh
    ``$TEAMBRAIN_HOME`` under umask 000): every folder made on the way is 0700, the file 0600."""
    import os

    from teambrain_sync._pulls import _save
    from teambrain_sync._review import write_patch

    repo = open_repo(brain_repo)
    commit = repo.git("rev-parse", "HEAD").stdout.strip()
    old = os.umask(0)
    try:
        patch = write_patch(repo, commit, "teambrain/p", tmp_path / "a" / "home" / "proposals")
        _save(tmp_path / "b" / "home" / "proposals", repo, {})
    finally:
        os.umask(old)
    made = [p for top in ("a", "b") for p in [tmp_path / top, *(tmp_path / top).rglob("*")]]
    loose = [f"{stat.S_IMODE(p.stat().st_mode):o} {p}" for p in made if p.stat().st_mode & 0o077]
    assert patch.is_file() and loose == []
