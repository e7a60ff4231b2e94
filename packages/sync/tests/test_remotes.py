"""Issue 39 in sync: remote roles read through git config, the remote's default branch, every
line of a refused push, branches other verbs left unsent, and reverted memories."""

from __future__ import annotations

import string
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, strategies as st
from teambrain_schema import EnvironmentProblem
from teambrain_sync import (
    check_remote_head,
    choose_target,
    open_repo,
    proposal_branches,
    propose_retirement,
    push_refusal,
    remote_roles_of,
    unsent_branches,
)
from teambrain_sync._branches import removed_memories


def _bare_clone(brain_repo: Path, kit: SimpleNamespace, tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    kit.git("clone", "-q", "--bare", str(brain_repo), str(remote), cwd=tmp_path)
    clone = tmp_path / "clone"
    kit.git("clone", "-q", str(remote), str(clone), cwd=tmp_path)
    return remote, clone


def test_roles_come_from_git_config_including_included_files(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    kit.git("remote", "add", "origin", "https://github.com/me/app.git", cwd=brain_repo)
    kit.git("remote", "add", "upstream", "https://github.com/acme/app.git", cwd=brain_repo)
    roles = remote_roles_of(open_repo(brain_repo))
    assert (roles.base, roles.push, roles.fork) == ("upstream", "origin", True)
    assert roles.gh_repo() == "acme/app" and roles.gh_head("b") == "me:b"
    extra = tmp_path / "extra.config"
    extra.write_text("[remote]\n\tpushDefault = upstream\n")
    kit.git("config", "include.path", str(extra), cwd=brain_repo)
    roles = remote_roles_of(open_repo(brain_repo))
    assert (roles.base, roles.push, roles.fork) == ("upstream", "upstream", False)
    assert roles.gh_head("b") == "b"


def test_a_fork_whose_project_was_never_fetched_says_how(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    _remote, clone = _bare_clone(brain_repo, kit, tmp_path)
    kit.git("remote", "add", "upstream", str(tmp_path / "project.git"), cwd=clone)
    with pytest.raises(EnvironmentProblem, match=r"run `git fetch upstream`"):
        choose_target(open_repo(clone))


def test_a_renamed_default_branch_is_followed_when_fetched_and_refused_when_not(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    remote, clone = _bare_clone(brain_repo, kit, tmp_path)
    kit.git("branch", "-m", "main", "trunk", cwd=remote)
    kit.git("symbolic-ref", "HEAD", "refs/heads/trunk", cwd=remote)
    repo = open_repo(clone)
    cache = tmp_path / "proposals"
    with pytest.raises(EnvironmentProblem, match=r"git fetch origin && git remote set-head"):
        choose_target(repo, ask_remote=True, cache_dir=cache)
    kit.git("fetch", "-q", "origin", cwd=clone)  # no --prune: origin/main stays
    target = choose_target(repo, ask_remote=True, cache_dir=cache)
    assert (target.base.requested, target.base_branch) == ("origin/trunk", "trunk")
    [note] = target.notes
    assert "origin's default branch is now trunk" in note and "origin/main" in note
    assert check_remote_head(repo, cache, ask=False) is not None  # kept for doctor and serve
    assert choose_target(repo).base.requested == "origin/main"  # offline: as fetched
    kit.git("remote", "set-head", "origin", "--auto", cwd=clone)
    assert check_remote_head(repo, cache, ask=False) is None
    assert choose_target(repo, ask_remote=True, cache_dir=cache).notes == ()


HOOK_STDERR = (
    "remote: proposals need a ticket        \n"
    "remote: \x1b[31msee https://wiki.example/rules\x1b[0m        \n"
    "To /srv/remote.git\n"
    " ! [remote rejected] abc -> teambrain/x (pre-receive hook declined)\n"
    "error: failed to push some refs to '/srv/remote.git'\n"
)
HOOK_STDOUT = (
    "To /srv/remote.git\n"
    "!\tabc:refs/heads/teambrain/x\t[remote rejected] (pre-receive hook declined)\nDone\n"
)


def test_a_refused_push_says_every_remote_line() -> None:
    assert push_refusal(HOOK_STDOUT, HOOK_STDERR).splitlines() == [
        "[remote rejected] (pre-receive hook declined)",
        "remote: proposals need a ticket",
        "remote: see https://wiki.example/rules",
    ]
    offline = "fatal: '/nowhere' does not appear to be a git repository\nfatal: Could not read\n"
    assert push_refusal("", offline) == "'/nowhere' does not appear to be a git repository"


@given(st.lists(st.text(alphabet=string.printable + "\x1b\x07\x00é€", max_size=400),
                max_size=60))  # fmt: skip
def test_what_a_server_says_is_bounded_and_printable(lines: list[str]) -> None:
    said = push_refusal("", "".join(f"remote: {line}\n" for line in lines))
    out = said.splitlines()
    assert len(out) <= 22 and all(len(line) <= 310 for line in out)  # reason, 20, "… more"
    assert all(ch.isprintable() or ch == "\t" for line in out for ch in line)


def test_a_retirement_whose_push_failed_is_sent_by_the_next_verb(
    brain_repo: Path, kit: SimpleNamespace, tmp_path: Path
) -> None:
    remote, clone = _bare_clone(brain_repo, kit, tmp_path)
    repo = open_repo(clone)
    kit.git("remote", "set-url", "origin", str(tmp_path / "offline.git"), cwd=clone)
    failed = propose_retirement(
        repo, kit.MEMORY_A, "obsolete", target=choose_target(repo), patch_dir=tmp_path / "p"
    )
    assert failed.review is not None and failed.review.push_error
    kit.git("remote", "set-url", "origin", str(remote), cwd=clone)
    kept = propose_retirement(
        repo, kit.MEMORY_B, "moved", target=choose_target(repo), patch_dir=tmp_path / "p",
        push=False,
    )  # fmt: skip
    branches = proposal_branches(repo, choose_target(repo).base.sha)
    assert unsent_branches(repo, branches) == ([failed.branch], [kept.branch])
    # A third verb that pushes (here a retirement again, of what the first one retired) sends
    # the failed one — and never the one kept local.
    again = propose_retirement(
        repo, kit.MEMORY_A, "obsolete", target=choose_target(repo), patch_dir=tmp_path / "p"
    )
    assert again.review is not None and again.review.pushed
    assert kit.git("ls-remote", str(remote), kept.branch, cwd=clone) == ""
    assert unsent_branches(repo, proposal_branches(repo, choose_target(repo).base.sha))[0] == []


def test_a_memory_merged_then_reverted_is_found_with_the_revert(
    brain_repo: Path, kit: SimpleNamespace
) -> None:
    memory = "01KB2F0A1S9Y4Q7V3C8D5E6F09"
    kit.write_memory(brain_repo, memory, "Ship on Tuesdays", "Release on Tuesdays only.")
    kit.commit_all(brain_repo, "merge the memory")
    kit.git("revert", "--no-edit", "HEAD", cwd=brain_repo)
    revert = kit.git("rev-parse", "HEAD", cwd=brain_repo).strip()
    repo = open_repo(brain_repo)
    assert removed_memories(repo, revert, present={kit.MEMORY_A, kit.MEMORY_B}) == {memory: revert}
    # a memory the base holds (retired, say) is never one it took out
    assert removed_memories(repo, revert, present={memory}) == {}
