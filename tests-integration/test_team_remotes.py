"""The team loop, round two (issue 39) on teamharness.py's team: forks in both layouts a
developer makes them, a default branch renamed on the remote, a repository whose remote
changes, a reverted memory, a push a server hook refuses, and proposals other verbs left
unsent — each through the installed ``tb`` and ``tb serve``, pull requests opened and merged
by the ``gh`` stand-in."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from teamharness import PROJECT, Developer, Team

TeamFactory = Callable[..., Team]


def _draft(title: str, body: str, memory_class: str = "learning") -> dict[str, Any]:
    return {"class": memory_class, "title": title, "body": body}


def _result(out: dict[str, Any]) -> dict[str, Any]:
    [result] = out["results"]
    return result


def _titles(dev: Developer, query: str) -> list[str]:
    found = dev.call_tool("memory_search", {"query": query, "k": 8})["results"]
    return [hit["title"] for hit in found]


def _create_call(team: Team, who: str) -> list[str]:
    return [c for c in team.gh_calls(who) if c[:2] == ["pr", "create"]][-1]


def _flag(call: list[str], name: str) -> str | None:
    return call[call.index(name) + 1] if name in call else None


@pytest.fixture(scope="module")
def shared(module_team_factory: TeamFactory) -> Team:
    """One team (keyword-only brain) for the tests below that each bring developers of their
    own: built once per test process, whatever order the tests run in."""
    return module_team_factory(("bob",), embedder="none")


def test_a_fork_is_served_and_proposed_against_the_project(shared: Team) -> None:
    """Point 1. Fay works from a fork laid out as `gh repo fork --clone` makes it (origin the
    fork, upstream the project), Gus with origin the project and `remote.pushDefault` his fork.
    Each agent is served the project's default branch — a teammate's memory merged there, and
    their own once merged — never the fork's stale one; each proposal starts from the project,
    is pushed to the fork and opened against the project (`--repo`, `--head <owner>:<branch>`)."""
    team, bob = shared, shared["bob"]
    fay = team.add_fork_developer("fay", layout="gh")
    gus = team.add_fork_developer("gus", layout="push-default")
    teammate = bob.propose(_draft("Queue workers ack after the write", "Ack a queue "
                                  "message only after its write committed."))  # fmt: skip
    team.merge(team.pr_for(teammate["branch"])["number"], "squash", check=True)
    lessons = {
        "fay": _draft("Feature flags are read once per request", "Read every feature flag once "
                      "per request and pass the value down; never re-read mid-request."),
        "gus": _draft("Cron schedules are written in UTC", "Write every cron schedule in UTC "
                      "and name the timezone in its comment."),
    }  # fmt: skip
    for dev, upstream, pushed_to in ((fay, "upstream", "origin"), (gus, "origin", "fork")):
        dev.fetch()
        assert "Queue workers ack after the write" in _titles(dev, "queue workers ack write")
        lesson = lessons[dev.name]
        out = dev.propose(lesson)
        assert out["base"]["ref"] == f"{upstream}/main", out["base"]
        assert (out["base"]["base_remote"], out["base"]["remote"]) == (upstream, pushed_to)
        assert out["base"]["commit"] == team.default_tip()
        branch = out["branch"]
        assert out["review"]["pushed"] and out["review"]["pr_url"], out["review"]
        assert dev.fork is not None
        assert dev.git("--git-dir", str(dev.fork), "rev-parse", branch).strip() == out["commit"]
        assert dev.git("--git-dir", str(team.remote), "rev-parse", "--verify", "-q", branch,
                       check=False) == ""  # fmt: skip
        pr = team.pr_for(branch)
        assert (pr["baseRepository"], pr["headRepository"], pr["baseRefName"]) == (
            PROJECT, f"{dev.name}/brain", "main",
        )  # fmt: skip
        create = _create_call(team, dev.name)  # a host off github.com is named, as gh takes it
        assert _flag(create, "--repo") == f"github.example/{PROJECT}"
        assert _flag(create, "--head") == f"{dev.name}:{branch}"

        team.merge(pr["number"], "rebase", check=True)
        dev.fetch()
        assert lesson["title"] in _titles(dev, lesson["title"].lower())
        again = dev.propose(_draft(f"{dev.name} sets a timeout per call", "Pass an explicit "
                                   "timeout to every outbound HTTP call."), "--dry-run")  # fmt: skip
        states = {b["branch"]: b["state"] for b in again["proposal_branches"]}
        assert states[branch] == "merged", again["proposal_branches"]
        listed = [c for c in team.gh_calls(dev.name) if c[:2] == ["pr", "list"]]
        assert listed and all(_flag(c, "--repo") == f"github.example/{PROJECT}" for c in listed)
    assert team.conflicts == []


def _serve_stderr(dev: Developer, query: str) -> tuple[list[str], str]:
    """The real `tb serve` over stdio, one `memory_search`: (titles found, what it logged)."""
    import subprocess

    from teamharness import tb_executable

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "team-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": query, "k": 8}}},
    ]  # fmt: skip
    with subprocess.Popen(
        [tb_executable(), "serve"], cwd=dev.clone, env=dev.env, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        answer: dict[str, Any] = {}
        for line in server.stdout:
            reply = json.loads(line)
            if reply.get("id") == 2:
                answer = reply["result"]["structuredContent"]
                break
        server.stdin.close()
        server.wait(60)
        assert server.stderr is not None
        logged = server.stderr.read()
    return [hit["title"] for hit in answer.get("results", [])], logged


def _finding(dev: Developer, name: str, *args: str) -> dict[str, Any]:
    done = dev.tb("doctor", "--json", *args)
    found = [f for f in json.loads(done.stdout)["findings"] if f["name"] == name]
    assert len(found) == 1, (name, done.stdout)
    return found[0]


def test_a_default_branch_renamed_on_the_remote_is_noticed_and_followed(
    team_factory: TeamFactory,
) -> None:
    """Point 2. The project renames main to trunk; Bob only runs `git fetch`, so his clone
    keeps a stale origin/main and an origin/HEAD naming it. `tb doctor --online` asks and says
    it with the fix; `tb propose` (which talks to the remote anyway) says it in one line,
    proposes on origin/trunk and opens its pull request against trunk; `tb serve` says it in
    its log; once Bob runs the fix, everything follows trunk. A pull request gh refuses to open
    is never exit 0."""
    team = team_factory(("ada", "bob"), embedder="none")
    ada, bob = team["ada"], team["bob"]
    team.rename_default_branch("trunk")
    ada.fetch()  # --prune: origin/main is gone, origin/HEAD dangles; trunk is found by name
    merged = ada.propose(_draft("Trunk builds are signed", "Sign every trunk build."))
    team.merge(team.pr_for(merged["branch"])["number"], "squash", check=True)
    bob.git("fetch", "-q", "origin")  # no --prune: origin/main stays, origin/HEAD names it
    assert bob.git("symbolic-ref", "refs/remotes/origin/HEAD").strip() == "refs/remotes/origin/main"

    fix = "git remote set-head origin --auto"
    online = _finding(bob, "default branch", "--online")
    assert online["status"] == "problem" and online["fix"] == fix, online
    assert "origin's default branch is now trunk" in online["detail"]

    done = bob.tb("propose", "--draft", str(bob.draft_file(_draft(
        "Release notes name the ticket", "Every release note line names its ticket."))),
        "--json")  # fmt: skip
    out = json.loads(done.stdout)
    assert done.returncode == 0, (done.stderr, out)
    assert out["base"]["ref"] == "origin/trunk" and out["base"]["commit"] == team.default_tip()
    said = [line for line in done.stderr.splitlines() if "default branch is now trunk" in line]
    assert len(said) == 1 and fix in said[0] and "proposing on origin/trunk" in said[0], said
    assert team.pr_for(out["branch"])["baseRefName"] == "trunk"

    # Offline, what propose learned is said by doctor and by the server's log.
    offline = _finding(bob, "default branch")
    assert offline["status"] == "problem" and offline["fix"] == fix
    titles, logged = _serve_stderr(bob, "trunk builds signed")
    assert "Trunk builds are signed" not in titles  # the stale main is what this clone follows
    assert "origin's default branch is now trunk" in logged and fix in logged, logged

    bob.git("remote", "set-head", "origin", "--auto")
    assert _finding(bob, "default branch")["status"] == "ok"
    titles, logged = _serve_stderr(bob, "trunk builds signed")
    assert "Trunk builds are signed" in titles and "default branch" not in logged

    # gh refuses the pull request (a base branch the remote does not have): exit 2, not 0.
    refused = bob.tb("propose", "--base", "origin/main", "--draft", str(bob.draft_file(_draft(
        "Hotfixes go to trunk first", "Land a hotfix on trunk, then cherry-pick it."))),
        "--json")  # fmt: skip
    result = json.loads(refused.stdout)
    assert refused.returncode == 2 and result["ok"] is False, (refused.returncode, result)
    assert result["review"]["pushed"] and result["review"]["pr_url"] is None
    assert "Base ref must be a branch" in result["review"]["pr_error"]


PAYMENTS = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
REDIS = "01KB2F0A1S9Y4Q7V3C8D5E6F07"
HOOK = """#!/bin/sh
echo "proposals need a ticket in the branch protection rules" >&2
printf 'see https://wiki.example/brain-pushes \\033[31mfor the rules\\033[0m\\n' >&2
exit 1
"""


def test_what_one_verb_left_unsent_the_next_sends_and_a_refusal_says_all_of_why(
    shared: Team,
) -> None:
    """Points 7 and 5. A retirement whose push failed offline is sent by the next `tb propose`
    (it sent every other queued proposal, not that one); a proposal a server hook refused says
    every `remote:` line the hook printed (the second is the actionable one) and is sent by the
    next `tb retire`; a branch kept local with --no-push is named, never sent behind the
    user's back."""
    team = shared
    cyd = team.add_developer("cyd")
    cyd.git("remote", "set-url", "origin", str(team.root / "offline.git"))
    offline = cyd.retire(REDIS, "the pool is sized by the platform now", codes=(2,))
    assert offline["ok"] is False and not offline["review"]["pushed"]
    retire_branch = offline["branch"]
    cyd.git("remote", "set-url", "origin", str(team.remote))

    out = cyd.propose(_draft("Cron jobs log their duration", "Log every cron job's duration "
                             "at info when it ends."))  # fmt: skip
    assert [r["branch"] for r in out["resent"]] == [retire_branch], out["resent"]
    assert out["resent"][0]["pushed"] and out["resent"][0]["pr_url"]
    assert team.pr_for(retire_branch)["state"] == "OPEN"

    hook = team.remote / "hooks" / "pre-receive"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    try:
        done = cyd.tb("propose", "--draft", str(cyd.draft_file(_draft(
            "Dashboards link their runbook", "Every dashboard panel links its runbook."))),
            "--json")  # fmt: skip
        human = cyd.tb("propose", "--all")  # sends it again: refused again, said in full
    finally:
        hook.unlink()
    refused = json.loads(done.stdout)
    assert done.returncode == 2 and refused["ok"] is False
    why = refused["review"]["push_error"].splitlines()
    assert why[0] == "[remote rejected] (pre-receive hook declined)", why
    assert why[1:] == ["remote: proposals need a ticket in the branch protection rules",
                       "remote: see https://wiki.example/brain-pushes for the rules"], why  # fmt: skip
    assert human.returncode == 2
    assert "Push to origin failed: [remote rejected] (pre-receive hook declined)" in human.stderr
    assert "\n  remote: proposals need a ticket in the branch protection rules\n" in human.stderr
    assert "\n  remote: see https://wiki.example/brain-pushes for the rules\n" in human.stderr
    assert "\x1b" not in human.stderr

    kept = cyd.propose(_draft("Alerts page one person", "Route each alert to exactly one "
                              "on-call person."), "--no-push")  # fmt: skip
    retired = cyd.tb("retire", PAYMENTS, "the gateway decision moved to the ADRs")
    assert retired.returncode == 0, retired.stderr
    assert team.pr_for(refused["branch"])["state"] == "OPEN"  # sent by the retirement
    assert f"{kept['branch']} is committed here and was never pushed" in retired.stderr
    assert cyd.git("ls-remote", "origin", kept["branch"]) == ""


def test_a_reverted_memory_can_be_proposed_again_by_its_author(shared: Team) -> None:
    """Point 4. Ada's memory is merged, then the maintainer `git revert`s the merge on main.
    Her `tb propose <candidate>` said "already proposed as … (on branch …)"; the proposal
    state follows what the default branch holds now: proposed again, the revert named for
    the reviewer. A teammate's branch of the same memory, kept on the remote, reads merged
    and taken out — it holds nothing back."""
    team = shared
    ada, bob = team.add_developer("rex"), team.add_developer("ria")
    maintainer = team.maintainer
    assert maintainer is not None
    lesson = _draft("Migrations run before the deploy", "Run database migrations before the "
                    "new code is deployed, never after.")  # fmt: skip
    first = ada.propose(lesson)
    candidate = _result(first)["candidate_id"]
    memory_id = _result(first)["memory_id"]
    team.merge(team.pr_for(first["branch"])["number"], "squash", delete_branch=False, check=True)
    maintainer.pull()
    maintainer.git("revert", "--no-edit", "HEAD")
    maintainer.git("push", "-q", "origin", "HEAD:main")
    revert = maintainer.git("rev-parse", "HEAD").strip()
    ada.fetch()

    again = ada.tb_json("propose", candidate)
    result = _result(again)
    assert result["result"] == "proposed" and result["memory_id"] != memory_id, result
    [note] = result["notes"]
    assert f"memory {memory_id} was merged, then taken out of origin/main" in note
    assert revert[:12] in note
    assert note in ada.git("log", "-1", "--format=%B", again["commit"])  # for the reviewer
    states = {b["branch"]: (b["state"], b["why"]) for b in again["proposal_branches"]}
    state, why = states[first["branch"]]
    assert state == "merged" and f"taken out of the default branch since (commit {revert[:12]})" \
        in why, why  # fmt: skip
    assert team.pr_for(again["branch"])["state"] == "OPEN"

    bob.pull()  # a teammate sees the same: the old branch holds nothing back, the new one does
    told = bob.call_tool("memory_propose", {"draft": lesson})["note"]
    assert again["branch"] in told and first["branch"] not in told, told


def _hook_session(dev: Developer, sid: str) -> None:
    """One agent session through the real `tb-capture` hook in the developer's clone."""
    import shutil
    import subprocess

    from teamharness import BIN

    hook = shutil.which("tb-capture", path=str(BIN))
    assert hook is not None
    base = {"session_id": sid, "transcript_path": str(dev.clone / "t.jsonl"),
            "cwd": str(dev.clone), "permission_mode": "default"}  # fmt: skip
    for payload in (
        {"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-5"},
        {"hook_event_name": "PostToolUse", "tool_name": "Read",
         "tool_input": {"file_path": str(dev.clone / "README.md")}, "tool_response": {}},
        {"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
    ):  # fmt: skip
        done = subprocess.run(
            [hook, "claude-code"], input=json.dumps({**base, **payload}), cwd=dev.clone,
            env=dev.env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 0 and done.stderr == "", done.stderr


def _ui_sessions(dev: Developer) -> str:
    import http.client

    from uiworld import start_ui

    server = start_ui(dev)
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        connection.request("GET", f"/{server.secret}/sessions")
        page = connection.getresponse().read().decode()
        connection.close()
    finally:
        said = server.stop()
    return page + said


SIDS = ("1a1a1a1a-0000-4000-8000-000000000001", "2b2b2b2b-0000-4000-8000-000000000002",
        "3c3c3c3c-0000-4000-8000-000000000003")  # fmt: skip


def test_a_repository_keeps_its_queue_and_sessions_when_its_remote_changes(
    shared: Team,
) -> None:
    """Point 3. Gil starts without a remote (an agent session, a queued candidate), adds the
    team's remote (another session and candidate), then the repository is renamed and moves
    host (a third session). `tb propose --all` said "leaving 2 pending candidate(s) of other
    repositories alone" and proposed nothing, `tb ui` showed 1 of 3 sessions; now both
    candidates are proposed and the three sessions are this repository's, said once."""
    team = shared
    gil = team.add_developer("gil")
    gil.git("remote", "remove", "origin")
    _hook_session(gil, SIDS[0])
    first = gil.call_tool("memory_propose", {"draft": _draft(
        "Builds cache the wheel directory", "Cache `~/.cache/pip/wheels` between CI runs.")})  # fmt: skip
    gil.git("remote", "add", "origin", f"https://github.example/{PROJECT}.git")
    gil.git("fetch", "-q", "origin")
    gil.git("remote", "set-head", "origin", "--auto")
    _hook_session(gil, SIDS[1])
    second = gil.call_tool("memory_propose", {"draft": _draft(
        "Nightly jobs run in UTC", "Schedule every nightly job in UTC, never local time.")})  # fmt: skip
    # The project is renamed and moves to another host; the old address keeps working here.
    moved = "https://git.example/acme/brain-renamed.git"
    with open(gil.env["GIT_CONFIG_GLOBAL"], "a", encoding="utf-8") as config:
        config.write(f'[url "{team.remote}"]\n\tinsteadOf = {moved}\n')
    gil.git("remote", "set-url", "origin", moved)
    _hook_session(gil, SIDS[2])

    done = gil.tb("propose", "--all", "--json")
    out = json.loads(done.stdout)
    assert done.returncode == 0, (done.stderr, out)
    assert {r["candidate_id"] for r in out["results"] if r["result"] == "proposed"} == {
        first["candidate_id"], second["candidate_id"]}, out["results"]  # fmt: skip
    assert "other repositories" not in done.stderr
    [said] = [line for line in done.stderr.splitlines() if "before its remote changed" in line]
    assert "'clone'" in said and f"'github.example/{PROJECT}'" in said, said
    assert "'git.example/acme/brain-renamed'" in said
    page = _ui_sessions(gil)
    assert all(sid[:8] in page for sid in SIDS), page
    assert "before its remote changed" not in page  # said once


def test_a_paraphrase_proposed_without_fetching_is_shown_to_the_reviewer(
    team_factory: TeamFactory,
) -> None:
    """Point 6. Ada and Bob propose the same lesson in other words, neither having fetched
    the other's branch: both pull requests merge cleanly. CI's `tb lint` on the second one's
    merge result warns that it says the same as a live memory (the rule `tb propose` refuses
    near-duplicates by), so the reviewer sees it; a neighbour on the same subject is not
    flagged, and identical content stays `duplicate-content`'s."""
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    first = ada.propose(_draft(
        "Webhook retries need idempotency keys",
        "The payment provider retries webhooks up to five times; store the event id and ignore "
        "repeats so orders are not charged twice.",
    ))  # fmt: skip
    second = bob.propose(_draft(
        "Deduplicate provider webhooks by event id",
        "Webhooks from the payment provider can arrive several times (it retries up to five "
        "times). Keep the event id and drop duplicates, otherwise an order is charged twice.",
    ))  # fmt: skip
    neighbour = bob.propose(_draft("Refunds go through PaymentGateway", "Call "
                                   "`PaymentGateway.refund` for refunds; provider SDKs stay "
                                   "behind the gateway.", "decision"))  # fmt: skip
    team.merge(team.pr_for(first["branch"])["number"], "squash", check=True)
    team.merge(team.pr_for(neighbour["branch"])["number"], "rebase", check=True)
    maintainer = team.maintainer
    assert maintainer is not None
    team.default_checkout()  # CI checks out the second pull request's merge result
    maintainer.git("fetch", "-q", "origin", second["branch"])
    maintainer.git("merge", "-q", "--no-ff", "-m", "CI's merge result", "FETCH_HEAD")
    ci = json.loads(maintainer.tb("lint", "--json").stdout)
    found = [v for v in ci["violations"] if v["rule"] == "near-duplicate"]
    [warning] = found
    assert warning["severity"] == "warning" and ci["ok"], ci
    assert _result(second)["memory_id"] in warning["path"]
    assert _result(first)["memory_id"] in warning["message"]
    assert "cosine" in warning["message"] and "keywords" in warning["message"]
