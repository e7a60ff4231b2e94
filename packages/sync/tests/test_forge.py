"""The forge page a pushed proposal is reviewed on, without gh (issue 42 point 6): remote URLs
read in every form git accepts, each forge's documented compare / new-merge-request URL, the
fork's proposal aimed at the repository the team merges into, and the reviewer's git commands
when the forge is not known."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_sync import RemoteRepository, compare_url, forge_of, parse_remote_url


@pytest.mark.parametrize(
    ("url", "host", "path"),
    [
        ("https://github.com/acme/shop.git", "github.com", "acme/shop"),
        ("https://github.com/acme/shop", "github.com", "acme/shop"),
        ("git@github.com:acme/shop.git", "github.com", "acme/shop"),
        ("ssh://git@github.com/acme/shop.git", "github.com", "acme/shop"),
        ("ssh://git@ssh.github.com:443/acme/shop.git", "github.com", "acme/shop"),
        ("https://gitlab.com/group/sub/shop.git", "gitlab.com", "group/sub/shop"),
        ("git@gitlab.example.org:group/sub/shop.git", "gitlab.example.org", "group/sub/shop"),
        ("https://user:token@bitbucket.org/team/shop.git", "bitbucket.org", "team/shop"),
        ("https://git.example.com:3000/acme/shop.git", "git.example.com:3000", "acme/shop"),
        ("ssh://git@codeberg.org:2222/acme/shop.git", "codeberg.org", "acme/shop"),
    ],
)
def test_remote_urls_in_every_form(url: str, host: str, path: str) -> None:
    assert parse_remote_url(url) == RemoteRepository(host, path)


@pytest.mark.parametrize(
    "url", ["", "/srv/git/shop.git", "../shop", "file:///srv/git/shop.git", "~/shop.git",
            "https://github.com/", "https://github.com/justone", "C:\\repos\\shop"],
)  # fmt: skip
def test_what_is_no_forge_repository(url: str) -> None:
    assert parse_remote_url(url) is None


def test_the_forge_from_the_host_or_the_configuration() -> None:
    assert forge_of("github.com") == "github" and forge_of("github.acme.corp") == "github"
    assert forge_of("gitlab.com") == "gitlab" and forge_of("bitbucket.org") == "bitbucket"
    assert forge_of("codeberg.org") == "gitea" and forge_of("forgejo.example.com") == "gitea"
    assert forge_of("git.acme.corp") is None
    assert forge_of("git.acme.corp", "GitLab") == "gitlab"
    assert forge_of("git.acme.corp", "sourcehut") is None


SHOP = RemoteRepository("github.com", "acme/shop")
FORK = RemoteRepository("github.com", "ada/shop")
BRANCH = "teambrain/propose-01KBX9V8M2Q4RZ7T5W3Y6N1D8C"


def test_each_forges_documented_page() -> None:
    assert compare_url(SHOP, BRANCH, "main", forge="github") == (
        f"https://github.com/acme/shop/compare/main...{BRANCH}?expand=1"
    )
    assert compare_url(FORK, BRANCH, "main", base=SHOP, forge="github") == (
        f"https://github.com/acme/shop/compare/main...ada:{BRANCH}?expand=1"
    )
    lab = RemoteRepository("gitlab.com", "group/sub/shop")
    url = compare_url(lab, BRANCH, "main", forge="gitlab")
    assert url.startswith("https://gitlab.com/group/sub/shop/-/merge_requests/new?")
    assert parse_qs(urlsplit(url).query) == {
        "merge_request[source_branch]": [BRANCH], "merge_request[target_branch]": ["main"],
    }  # fmt: skip
    bucket = RemoteRepository("bitbucket.org", "team/shop")
    url = compare_url(bucket, BRANCH, "main", forge="bitbucket")
    assert url.startswith("https://bitbucket.org/team/shop/pull-requests/new?")
    assert parse_qs(urlsplit(url).query) == {"source": [BRANCH], "dest": ["team/shop:main"]}
    tea = RemoteRepository("codeberg.org", "acme/shop")
    assert compare_url(tea, BRANCH, "trunk", forge="gitea") == (
        f"https://codeberg.org/acme/shop/compare/trunk...{BRANCH}"
    )
    fork = RemoteRepository("codeberg.org", "ada/shop")
    assert compare_url(fork, BRANCH, "trunk", base=tea, forge="gitea") == (
        f"https://codeberg.org/acme/shop/compare/trunk...ada/shop:{BRANCH}"
    )


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_any_remote_url_is_read_without_raising(url: str) -> None:
    found = parse_remote_url(url)
    if found is not None:
        assert "/" in found.path and not found.path.endswith(".git")
        assert found.web.startswith("https://") and " " not in found.host


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[a-z0-9][a-z0-9._-]{0,20}", fullmatch=True),
       st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,30}", fullmatch=True),
       st.sampled_from(["github", "gitlab", "bitbucket", "gitea"]))  # fmt: skip
def test_the_branch_and_base_are_in_every_page(owner: str, branch: str, forge: str) -> None:
    from urllib.parse import unquote

    pushed = RemoteRepository(f"{forge}.example.com", f"{owner}/repo")
    url = unquote(compare_url(pushed, branch, "main", forge=forge))  # type: ignore[arg-type]
    assert branch in url and "main" in url and url.startswith(f"https://{forge}.example.com/")
