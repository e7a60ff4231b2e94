"""The multi-developer harness itself: clones with their own homes and identities, and a ``gh``
stand-in that merges with real git in GitHub's three styles (teamharness.py, gh_standin.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from teamharness import STYLES, Developer, MergeStyle, Team

TeamFactory = Callable[..., Team]


def _branch_with(dev: Developer, branch: str, files: dict[str, str], message: str) -> str:
    """A branch off origin/main with ``files`` written and committed, pushed; its tip."""
    dev.git("checkout", "-q", "-b", branch, "origin/main")
    for name, text in files.items():
        path = dev.clone / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        dev.git("add", name)
    dev.git("commit", "-q", "-m", message)
    dev.git("push", "-q", "origin", branch)
    dev.git("checkout", "-q", "main")
    return dev.git("rev-parse", branch).strip()


def _open_pr(team: Team, dev: Developer, branch: str, title: str) -> int:
    done = team.gh("pr", "create", "--head", branch, "--base", "main", "--title", title,
                   "--body", "b", who=dev)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().rsplit("/", 1)[1])


def test_developers_have_their_own_clone_home_and_identity(team_factory: TeamFactory) -> None:
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    assert ada.clone != bob.clone and ada.home != bob.home
    assert ada.git("config", "user.email").strip() == "ada@team.example"
    assert bob.env["GIT_AUTHOR_EMAIL"] == "bob@team.example"
    assert ada.git("remote", "get-url", "origin").strip() == str(team.remote)
    assert (ada.clone / ".teambrain" / "INDEX.md").is_file()
    assert team.lint_default()["ok"]


@pytest.mark.parametrize("style", STYLES)
def test_gh_merges_in_each_github_style(team_factory: TeamFactory, style: MergeStyle) -> None:
    team = team_factory(("ada",), brain="empty")
    ada = team["ada"]
    base = team.default_tip()
    ada.git("checkout", "-q", "-b", "topic", "origin/main")
    for n in (1, 2):
        (ada.clone / f"f{n}.txt").write_text(f"{n}\n")
        ada.git("add", f"f{n}.txt")
        ada.git("commit", "-q", "-m", f"add f{n}")
    ada.git("push", "-q", "origin", "topic")
    head = ada.git("rev-parse", "topic").strip()
    ada.git("checkout", "-q", "main")
    number = _open_pr(team, ada, "topic", "Two files")
    team.merge(number, style, check=True)

    tip = team.default_tip()
    git = team.maintainer.git if team.maintainer else ada.git
    team.default_checkout()
    parents = git("log", "-1", "--format=%P", tip).split()
    own = git("rev-list", f"{base}..{tip}").split()
    assert git("show", f"{tip}:f2.txt") == "2\n"
    if style == "merge":
        assert parents == [base, head] and head in own
    elif style == "squash":
        assert parents == [base] and own == [tip] and tip != head
        assert git("log", "-1", "--format=%an", tip).strip() == "Ada"
    else:
        assert len(own) == 2 and head not in own and parents != [base]
        assert git("log", "-1", "--format=%cn", tip).strip() == "GitHub"
    [pr] = team.prs()
    assert pr["state"] == "MERGED" and pr["mergeCommit"] == tip and pr["mergeStyle"] == style
    # --delete-branch: gone from the remote
    assert git("ls-remote", "origin", "refs/heads/topic") == ""


@pytest.mark.parametrize("style", STYLES)
def test_a_conflict_is_refused_and_recorded(team_factory: TeamFactory, style: MergeStyle) -> None:
    team = team_factory(("ada", "bob"), brain="empty")
    ada, bob = team["ada"], team["bob"]
    _branch_with(ada, "one", {"README.md": "ada's\n"}, "ada edits")
    _branch_with(bob, "two", {"README.md": "bob's\n"}, "bob edits")
    first, second = _open_pr(team, ada, "one", "1"), _open_pr(team, bob, "two", "2")
    team.merge(first, style, check=True)
    tip = team.default_tip()
    done = team.merge(second, style)
    assert done.returncode == 1 and "not mergeable" in done.stderr
    assert team.default_tip() == tip
    assert team.conflicts == [{"number": second, "style": style, "files": ["README.md"]}]
    view = json.loads(team.gh("pr", "view", str(second), "--json", "state,mergeable").stdout)
    assert view == {"state": "OPEN", "mergeable": "CONFLICTING"}


def test_pr_list_view_close_and_auth(team_factory: TeamFactory) -> None:
    team = team_factory(("ada",), brain="empty")
    ada = team["ada"]
    _branch_with(ada, "teambrain/a", {"a.txt": "a\n"}, "a")
    _branch_with(ada, "teambrain/b", {"b.txt": "b\n"}, "b")
    a, b = _open_pr(team, ada, "teambrain/a", "A"), _open_pr(team, ada, "teambrain/b", "B")
    again = team.gh("pr", "create", "--head", "teambrain/a", "--title", "A", "--body", "", who=ada)
    assert again.returncode == 1 and "already exists" in again.stderr
    assert team.close(b, delete_branch=True).returncode == 0
    listed = json.loads(team.gh("pr", "list", "--state", "all", "--json",
                                "number,state,headRefName,url").stdout)  # fmt: skip
    assert [(p["number"], p["state"]) for p in listed] == [(b, "CLOSED"), (a, "OPEN")]
    assert listed[0]["url"].endswith(f"/pull/{b}")
    closed = json.loads(team.gh("pr", "list", "--state", "closed", "--json", "number").stdout)
    assert closed == [{"number": b}]
    view = json.loads(team.gh("pr", "view", "teambrain/a", "--json", "number,author").stdout)
    assert view == {"number": a, "author": {"login": "ada"}}
    assert team.gh("pr", "view", "1", "--json", "nonsense").returncode == 1
    assert team.gh("auth", "status").returncode == 0
    team.set_gh_auth(False)
    assert team.gh("auth", "status").returncode == 1
    assert ["pr", "close", str(b), "--delete-branch"] in team.gh_calls("maintainer")


def test_tb_opens_its_pull_request_through_the_stand_in(team_factory: TeamFactory) -> None:
    team = team_factory(("ada",))
    ada = team["ada"]
    draft = {"class": "learning", "title": "Warm the cache before load tests",
             "body": "Run `make warm` before `make loadtest`.", "tags": ["performance"]}  # fmt: skip
    out = ada.propose(draft)
    pr = team.pr_for(out["branch"])
    assert out["review"]["pr_url"] == pr["url"] and pr["author"] == "ada"
    assert pr["state"] == "OPEN" and pr["baseRefName"] == "main"
    team.merge(pr["number"], "squash", check=True)
    ada.pull()
    assert (ada.clone / out["results"][0]["path"]).is_file()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_agent_on_the_real_tb_serve_queues_in_its_own_home(
    team_factory: TeamFactory,
) -> None:
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    draft = {"class": "map", "title": "Refunds live in billing", "body": "See `src/shop/`."}
    async with ada.serve() as client:
        found = await client.call_tool("memory_search", {"query": "checkout", "k": 2})
        assert not found.is_error and found.structured_content["results"]
        queued = await client.call_tool("memory_propose", {"draft": draft})
        assert not queued.is_error
    from teambrain_capture import list_candidates

    [candidate] = list_candidates(ada.machine()).candidates
    assert queued.structured_content["candidate_id"] == candidate.candidate_id
    assert list_candidates(bob.machine()).candidates == []
    async with bob.serve() as client:
        context = await client.call_tool("memory_context", {})
        assert context.structured_content["required"]


def test_a_tool_call_from_synchronous_code(team_factory: TeamFactory) -> None:
    team = team_factory(("ada",))
    assert team["ada"].call_tool("memory_search", {"query": "flaky checkout test"})["results"]
