"""Which remote is the team's and which one proposals are pushed to (issue 39, point 1), read
from ``.git/config`` as ``gh`` and ``git`` read it; a forge URL's owner and name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from teambrain_kit.gitdir import (
    config_remote_roles,
    default_branch,
    remote_roles,
    remote_slug,
)


@pytest.mark.parametrize(
    ("remotes", "push_default", "resolved", "expected"),
    [
        ([], None, {}, (None, None)),
        (["origin"], None, {}, ("origin", "origin")),
        (["mine"], None, {}, ("mine", "mine")),
        # gh repo fork --clone: origin is the fork, upstream the project
        (["origin", "upstream"], None, {}, ("upstream", "origin")),
        (["origin", "upstream"], None, {"upstream": "base"}, ("upstream", "origin")),
        # origin the project, pushing to a fork through remote.pushDefault
        (["origin", "fork"], "fork", {}, ("origin", "fork")),
        # gh repo set-default marked the fork itself: it is the base
        (["origin", "upstream"], None, {"origin": "base"}, ("origin", "origin")),
        # gh's order: upstream, github, origin
        (["origin", "github"], None, {}, ("github", "origin")),
        # two remotes named otherwise, pushDefault naming one: the other is the project
        (["mine", "project"], "mine", {}, ("project", "mine")),
        # several remotes and nothing to choose by
        (["a", "b", "c"], None, {}, (None, None)),
        # a pushDefault naming no remote is ignored
        (["origin"], "nowhere", {}, ("origin", "origin")),
    ],
)
def test_the_base_is_the_project_and_the_push_remote_is_yours(
    remotes: list[str],
    push_default: str | None,
    resolved: dict[str, str],
    expected: tuple[str | None, str | None],
) -> None:
    assert remote_roles(remotes, push_default, resolved) == expected


def test_gh_resolved_owner_and_name_picks_the_remote_with_that_url() -> None:
    urls = {"origin": "git@github.com:me/shop.git", "other": "https://github.com/Acme/shop"}
    assert remote_roles(["origin", "other"], None, {"origin": "acme/shop"}, urls)[0] == "other"


@pytest.mark.parametrize(
    ("url", "slug"),
    [
        ("https://github.com/acme/shop.git", ("github.com", "acme", "shop")),
        ("https://www.GitHub.com/acme/shop", ("github.com", "acme", "shop")),
        ("git@github.com:acme/shop.git", ("github.com", "acme", "shop")),
        ("ssh://git@ghe.example.com:2222/acme/shop", ("ghe.example.com", "acme", "shop")),
        ("https://token@github.com/acme/shop.git", ("github.com", "acme", "shop")),
        ("/srv/git/shop.git", None),
        ("file:///srv/acme/shop.git", None),
        ("https://gitlab.com/group/sub/shop.git", None),
        ("", None),
    ],
)
def test_a_forge_url_names_its_owner_and_repository(
    url: str, slug: tuple[str, str, str] | None
) -> None:
    assert remote_slug(url) == slug


@given(st.text(max_size=200))
def test_any_url_parses_to_a_slug_or_none(url: str) -> None:
    slug = remote_slug(url)
    if slug is not None:
        host, owner, name = slug
        assert host and owner and name and "/" not in owner + name


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def test_a_fork_clone_is_served_the_projects_default_branch(tmp_path: Path) -> None:
    """The layout `gh repo fork --clone` makes: origin (the fork) is stale, upstream (the
    project) moved on; the default branch is upstream's — and origin's until upstream is
    fetched."""
    repo = tmp_path / "clone"
    repo.mkdir()
    _git("init", "-q", "-b", "main", cwd=repo)
    _git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m",
         "one", cwd=repo)  # fmt: skip
    old = _git("rev-parse", "HEAD", cwd=repo).strip()
    _git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m",
         "two", cwd=repo)  # fmt: skip
    new = _git("rev-parse", "HEAD", cwd=repo).strip()
    _git("remote", "add", "origin", "https://github.com/me/shop.git", cwd=repo)
    _git("remote", "add", "upstream", "https://github.com/acme/shop.git", cwd=repo)
    _git("config", "remote.upstream.gh-resolved", "base", cwd=repo)
    _git("update-ref", "refs/remotes/origin/main", old, cwd=repo)
    assert config_remote_roles(str(repo / ".git")) == ("upstream", "origin")
    assert default_branch(str(repo)) == ("refs/remotes/origin/main", old)  # upstream unfetched
    _git("update-ref", "refs/remotes/upstream/main", new, cwd=repo)
    assert default_branch(str(repo)) == ("refs/remotes/upstream/main", new)
