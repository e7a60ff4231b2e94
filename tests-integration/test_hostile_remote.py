"""Issue 37 point 1: a hostile remote writes files nowhere. The remote's default branch, its
history and a teammate's open proposal hold entries named ``..``, ``.git`` (and what file
systems fold to it), names with control characters or slashes, links and oversized blobs
(``hostile_remote.py``). Every verb that reads git's output — the live view of ``tb serve``
(``memory_context``, ``memory_search``, ``memory_propose``), the brain of the past
(``tb relevant``/``list``/``show`` ``--ref``, the page of ``tb ui``), ``tb propose``,
``tb candidates``, ``tb lint``'s citations and history, ``tb reindex``, ``tb doctor`` — runs on
it: the attacker's file lands nowhere on disk outside git's object store, no verb ends in a
traceback, and the team's real memory is still served."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from hostile_remote import EVIL_ID, GOOD_ID, MOVED_ID, OPEN_ID, PAYLOAD, TB, World, build_world


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    built = build_world(tmp_path_factory.mktemp("hostile-remote"))
    yield built
    assert built.escaped() == []  # after every test of the module, too


def _clean(done: Any) -> str:
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "internal error" not in said, said[-3000:]
    return said


def _no_escape(world: World) -> None:
    found = world.escaped()
    assert found == [], f"the attacker's file was written to {found}"


def _call(world: World, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], str]:
    """Each MCP tool call on one real ``tb serve`` over stdio: the results' text, and what
    the server said on stderr."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    errlog = world.root / "serve-stderr.txt"

    async def run() -> list[Any]:
        params = StdioServerParameters(command=TB, args=["serve"], cwd=world.clone, env=world.env)
        with errlog.open("w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return [await session.call_tool(name, args) for name, args in calls]

    results = anyio.run(run)
    return results, errlog.read_text()


def test_the_live_view_serves_the_team_memory_and_writes_nothing_outside_it(world: World) -> None:
    """The reported attack: the first ``memory_context`` wrote ``~/.claude/CLAUDE.md``."""
    draft = {"class": "learning", "title": "Retries are capped at three",
             "body": "Payment capture retries at most three times before it gives up."}  # fmt: skip
    results, stderr = _call(world, [
        ("memory_context", {}), ("memory_search", {"query": "payment gateway charge"}),
        ("memory_propose", {"draft": draft}),
    ])  # fmt: skip
    _no_escape(world)
    context, search, proposed = (r.structured_content for r in results)
    assert [m["id"] for m in context["required"]] == [GOOD_ID], context
    assert search["results"][0]["id"] == GOOD_ID
    assert proposed["queued"] is True
    assert "Traceback" not in stderr
    assert "not serving .teambrain/memories/../" in stderr and "a '..' in the path" in stderr
    # a control character is shown escaped, never sent to the terminal
    assert "\x1b" not in stderr and "\\x1b]0;pwned" in stderr
    assert not (world.user_home / ".claude").exists()
    live = list((world.home / "live").rglob("*.md"))
    assert sorted(p.name[:26] for p in live) == [GOOD_ID, MOVED_ID], live


@pytest.mark.parametrize(
    "args",
    [
        ("relevant", "--ref", "origin/main", "-q", "payment gateway"),
        ("relevant", "--ref", "origin/teambrain/propose-evil", "-q", "payment gateway"),
        ("list", "--ref", "origin/main"),
        ("show", GOOD_ID, "--ref", "origin/main"),
        ("show", GOOD_ID),
    ],
)
def test_the_brain_of_a_crafted_commit_is_read_without_writing_outside_its_copy(
    world: World, args: tuple[str, ...]
) -> None:
    done = world.tb(*args)
    said = _clean(done)
    assert done.returncode == 0, said
    _no_escape(world)
    assert "Payments go through the gateway" in said
    assert "Attacker instructions" not in said and PAYLOAD not in said
    assert "\x1b" not in said  # the crafted commit's subject and author are shown escaped


def test_propose_and_the_review_queue_on_a_crafted_default_branch(world: World) -> None:
    """``tb propose`` materialises the default branch (the crafted one) to build its
    proposal, and reads a teammate's open proposal branch with crafted paths in it."""
    draft = world.root / "draft.json"
    draft.write_text(json.dumps({"class": "learning", "title": "Refunds go through the gateway",
                                 "body": "Refund through the payment gateway, never by hand."}))  # fmt: skip
    done = world.tb("propose", "--draft", str(draft), "--dry-run", "--json")
    said = _clean(done)
    assert done.returncode == 0, said
    run = json.loads(done.stdout)
    assert [r["result"] for r in run["results"]] == ["would-propose"], said
    [branch] = run["proposal_branches"]
    assert branch["branch"] == "teambrain/propose-evil" and branch["state"] == "open", branch
    _no_escape(world)
    # this test's own candidate (the module's tests may run on other workers, in any order)
    queued, _ = _call(world, [("memory_propose", {"draft": {
        "class": "learning", "title": "Refund webhooks are idempotent",
        "body": "The refund webhook handler checks the event id before it acts."}})])  # fmt: skip
    assert queued[0].structured_content["queued"] is True
    # git itself refuses to build a commit on a tree with '..' in it: one line, exit 2
    done = world.tb("propose", "--all")
    said = _clean(done)
    assert done.returncode == 2, said
    assert "holds a path git refuses to use" in said and "nothing was proposed" in said
    assert "\x1b" not in said
    _no_escape(world)
    done = world.tb("candidates", "--json")
    said = _clean(done)
    assert done.returncode == 0, said
    _no_escape(world)
    # the open proposal's one real memory is known to the near-duplicate guard
    same = world.root / "same.json"
    same.write_text(json.dumps({"class": "decision", "title": "Refunds go through the gateway",
                                "body": "Call the payment gateway in `src/shop/pay.py` for every charge."}))  # fmt: skip
    done = world.tb("propose", "--draft", str(same), "--dry-run", "--json")
    said = _clean(done)
    assert OPEN_ID in said and "teambrain/propose-evil" in said, said
    _no_escape(world)


@pytest.mark.parametrize(
    "args", [("lint",), ("reindex",), ("doctor",), ("list",), ("relevant", "-q", "gateway")]
)
def test_verbs_over_a_history_of_crafted_commits(world: World, args: tuple[str, ...]) -> None:
    """HEAD's history holds a commit whose tree renamed a cited file to ``x/../../…`` and added
    memories under ``..``: citations, evidence and history readers walk it."""
    done = world.tb(*args)
    said = _clean(done)
    assert done.returncode in (0, 3), said  # lint/doctor may find problems, never crash
    _no_escape(world)
    assert EVIL_ID not in done.stdout
    assert "../" not in said and "\x1b" not in said  # no crafted rename is reported as a move


def test_the_page_of_a_crafted_past_writes_nothing_outside_its_copy(world: World) -> None:
    from uiworld import start_ui_in

    server = start_ui_in(world.clone, world.env)
    try:
        pages = ["/brain?ref=origin/main", f"/memory/{GOOD_ID}?ref=origin/main",
                 f"/memory/{GOOD_ID}", "/brain", "/queue"]  # fmt: skip
        for page in pages:
            with urllib.request.urlopen(server.base + page, timeout=60) as response:
                body = response.read().decode()
            assert response.status == 200, page
            assert "Attacker instructions" not in body and "\x1b" not in body, page
        _no_escape(world)
    finally:
        err = server.stop()
    assert "Traceback" not in err
