"""The team loop (issue 27) with several developers: clones with their own homes and identities,
one bare remote, pull requests merged by a ``gh`` stand-in with real git in GitHub's three
styles, and agents on the real ``tb serve`` (see teamharness.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from teambrain_schema.frontmatter import parse_memory
from teambrain_schema.index_md import parse_retirement_reasons
from teamharness import STYLES, Developer, MergeStyle, Team

TeamFactory = Callable[..., Team]
PAYMENTS = "01KB2F0A1S9Y4Q7V3C8D5E6F01"  # required decision
TESTS = "01KB2F0A1S9Y4Q7V3C8D5E6F02"  # required convention
CHECKOUT = "01KB2F0A1S9Y4Q7V3C8D5E6F03"  # map
FLAKY = "01KB2F0A1S9Y4Q7V3C8D5E6F04"  # learning
MIGRATIONS = "01KB2F0A1S9Y4Q7V3C8D5E6F05"  # convention
LOGGING = "01KB2F0A1S9Y4Q7V3C8D5E6F06"  # decision
REDIS = "01KB2F0A1S9Y4Q7V3C8D5E6F07"  # learning


def _draft(title: str, body: str, memory_class: str = "learning", **extra: Any) -> dict[str, Any]:
    return {"class": memory_class, "title": title, "body": body, **extra}


def _memory_file(dev: Developer, memory_id: str) -> Path:
    [path] = (dev.clone / ".teambrain").rglob(f"{memory_id}-*.md")
    return path


def _edit_pr(team: Team, dev: Developer, memory_id: str, sentence: str) -> int:
    """A human edit of a memory's body on a branch of its own, with a pull request."""
    branch = f"edit-{memory_id.lower()}-{dev.name}"
    dev.git("checkout", "-q", "-b", branch, "origin/main")
    path = _memory_file(dev, memory_id)
    path.write_text(path.read_text("utf-8").rstrip("\n") + f"\n\n{sentence}\n", "utf-8")
    dev.git("commit", "-q", "-am", f"Sharpen {memory_id}")
    dev.git("push", "-q", "origin", branch)
    dev.git("checkout", "-q", "main")
    done = team.gh("pr", "create", "--head", branch, "--title", f"Edit {memory_id}",
                   "--body", sentence, who=dev)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().rsplit("/", 1)[1])


def _agent_proposes(dev: Developer, draft: dict[str, Any]) -> dict[str, Any]:
    """The developer's agent calls `memory_propose` on `tb serve`; `tb propose --all` sends it."""
    queued = dev.call_tool("memory_propose", {"draft": draft})
    assert queued["queued"] is True
    out: dict[str, Any] = dev.tb_json("propose", "--all")
    assert [r["candidate_id"] for r in out["results"]] == [queued["candidate_id"]]
    return out


def _same_day_prs(team: Team) -> list[int]:
    """Proposals, retirements, supersedes and an edit, opened by three machines on the same base
    without anyone fetching in between: the morning of a busy day."""
    ada, bob, cyd = team["ada"], team["bob"], team["cyd"]
    made: list[dict[str, Any]] = [
        # Titles that sort next to each other, in two classes, and one in a third.
        ada.propose(
            _draft(
                "Cache keys carry the tenant id",
                "Prefix every cache key with "
                "the tenant id so tenants never read each other's entries.",
            )
        ),
        bob.propose(
            _draft(
                "Cache warm-up runs before load tests",
                "Warm `src/shop/cache.py` before a load test; a cold cache doubles p95 latency.",
            )
        ),
        # cyd's agent learned this one: queued through the real `tb serve`, then proposed.
        _agent_proposes(
            cyd,
            _draft(
                "Cache misses are logged at debug level",
                "Log cache misses at debug level, never at info: they flood the logs under load.",
            ),
        ),
        cyd.propose(
            _draft(
                "Refunds are idempotent by request id",
                "Every refund call carries the request id; the gateway drops repeats.",
                "decision",
            )
        ),
        # Retirements: the brain's first ones (its Retired section is empty).
        ada.retire(REDIS, "the pool is sized by the platform now"),
        bob.retire(LOGGING, "we log through OpenTelemetry instead"),
        # A supersede, by a third machine, of a memory a second one retires.
        cyd.propose(
            _draft(
                "Checkout lives in src/shop/checkout and its api",
                "Checkout is `src/shop/checkout/`: cart, flow and the HTTP api in `api.py`.",
                "map",
                supersedes=[CHECKOUT],
            )
        ),
        bob.propose(
            _draft(
                "Payments use the gateway interface, never a provider SDK",
                "Call `PaymentGateway`; provider SDKs stay behind it.",
                "decision",
                supersedes=[PAYMENTS],
                priority="required",
            )
        ),
    ]
    numbers = [team.pr_for(out["branch"])["number"] for out in made]
    numbers.append(_edit_pr(team, ada, FLAKY, "Pass `clock=fake_clock` explicitly."))
    numbers.append(_edit_pr(team, cyd, MIGRATIONS, "Review the generated SQL in the PR."))
    assert len(team.prs("OPEN")) == len(numbers)
    return numbers


def _active_and_retired(dev: Developer) -> tuple[set[str], set[str]]:
    brain = dev.clone / ".teambrain"
    ids = {p.name[:26] for p in (brain / "memories").rglob("*.md")}
    return ids, {p.name[:26] for p in (brain / "retired").glob("*.md")}


def test_a_busy_day_merges_in_any_order_and_style_without_a_conflict(
    team_factory: TeamFactory, tmp_path: Path
) -> None:
    """Issue 27 point 1: every proposal, retirement, supersede and edit opened on one base
    merges in any order with any of the three styles, with no conflict, and `tb lint` is clean
    on the default branch after every merge; after the post-merge step INDEX.md is current."""
    team = team_factory(embedder="none")
    numbers = _same_day_prs(team)
    saved = tmp_path / "saved"
    team.snapshot(saved)
    runs: list[tuple[list[int], list[MergeStyle]]] = []

    # Each example replays ten merges: generate only (a failure prints its order and styles;
    # shrinking one would replay hundreds of merges).
    @settings(max_examples=5, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(
        order=st.permutations(numbers),
        styles=st.lists(st.sampled_from(STYLES), min_size=len(numbers), max_size=len(numbers)),
    )
    def merge_all(order: list[int], styles: list[MergeStyle]) -> None:
        team.restore(saved)
        runs.append((order, styles))
        for number, style in zip(order, styles, strict=True):
            done = team.merge(number, style)
            assert done.returncode == 0, (order, styles, number, style, done.stderr)
            report = team.lint_default(in_process=True)
            assert report["ok"] and report["violations"] == [], (order, styles, report)
        assert team.conflicts == []

    merge_all()
    assert len(runs) >= 2
    # The last run as a user sees it: the real `tb lint`, then the post-merge step.
    report = team.lint_default()
    assert report["ok"] and [n["rule"] for n in report["notes"]] == ["index"]
    checkout = team.default_checkout()
    maintainer = team.maintainer
    assert maintainer is not None
    done = maintainer.tb("reindex", "--index-md-only")
    assert done.returncode == 0 and "INDEX.md regenerated" in done.stdout, done.stderr
    after = json.loads(maintainer.tb("lint", "--json").stdout)
    assert after["ok"] and after["violations"] == [] and after["notes"] == []
    active, retired = _active_and_retired(maintainer)
    assert {REDIS, LOGGING} <= retired and CHECKOUT in active and PAYMENTS in active
    index = (checkout / ".teambrain" / "INDEX.md").read_text("utf-8")
    assert parse_retirement_reasons(index) == {
        REDIS: "the pool is sized by the platform now",
        LOGGING: "we log through OpenTelemetry instead",
    }
    for memory_id in active:
        assert f"`{memory_id}`" in index
    edited = parse_memory(_memory_file(maintainer, FLAKY).read_text("utf-8"))
    assert "clock=fake_clock" in edited.body


def test_the_first_memories_of_a_new_brain_never_collide(
    team_factory: TeamFactory, tmp_path: Path
) -> None:
    """On a new brain every class is empty: the first memory of each, proposed by three
    machines at once, used to collide on INDEX.md's placeholders."""
    team = team_factory(brain="empty", embedder="none")
    outs = [
        team[name].propose(_draft(title, body, memory_class))
        for name, title, body, memory_class in (
            ("ada", "Use uv for every environment", "Create environments with `uv sync`.",
             "decision"),
            ("bob", "Use ruff for linting", "Run `ruff check` before you push.", "convention"),
            ("cyd", "Use pytest fixtures for temp dirs", "Use `tmp_path`, never `/tmp`.",
             "convention"),
        )
    ]  # fmt: skip
    saved = tmp_path / "saved"
    team.snapshot(saved)
    for style in STYLES:
        team.restore(saved)
        for out in reversed(outs):
            assert team.merge(team.pr_for(out["branch"])["number"], style).returncode == 0
            assert team.lint_default(in_process=True)["ok"]
        assert team.conflicts == [], style


def _move_checkout_code(team: Team) -> None:
    """The maintainer renames the checkout package on the default branch: the memories that
    cite it are now stale, and `tb propose --fix-citations` can follow the rename."""
    maintainer = team.maintainer
    assert maintainer is not None
    maintainer.pull()
    maintainer.git("mv", "src/shop/checkout", "src/shop/basket")
    maintainer.git("commit", "-q", "-m", "Rename checkout to basket")
    maintainer.git("push", "-q", "origin", "HEAD:main")


def test_fix_citations_fails_like_any_push_and_knows_a_teammates_branch(
    team_factory: TeamFactory,
) -> None:
    """Issue 27 point 6: a failed push exits 2 with ok false (it said ok, exit 0); the same fix
    already pushed by a teammate is recognised, before and after the push; a branch whose push
    failed is sent again by the next run."""
    team = team_factory(("ada", "bob"), embedder="none")
    ada, bob = team["ada"], team["bob"]
    _move_checkout_code(team)
    ada.pull()
    bob.pull()
    first = ada.tb_json("propose", "--fix-citations")
    assert first["ok"] and first["review"]["pushed"] and first["review"]["pr_url"]
    branch = first["branch"]

    # Bob has not fetched: the same edits make the same branch name; his push is refused.
    done = bob.tb("propose", "--fix-citations", "--json")
    out = json.loads(done.stdout)
    assert done.returncode == 2 and out["ok"] is False, (done.returncode, done.stdout)
    assert out["branch"] == branch and not out["review"]["pushed"]
    assert f"a branch {branch} already exists on origin" in out["review"]["push_error"]
    human = bob.tb("propose", "--fix-citations")  # tries its unpushed branch again
    assert human.returncode == 2 and "already exists on origin" in human.stderr
    assert "Review that pull request instead" in human.stderr
    # Once fetched, the teammate's branch is recognised before anything is sent.
    bob.fetch()
    known = bob.tb("propose", "--fix-citations")
    assert known.returncode == 1 and f"already proposed on origin/{branch}" in known.stderr
    assert "the edit of these citations is already proposed" in known.stderr
    assert len(team.prs()) == 1

    # A push that cannot reach the remote: exit 2, and the next run sends the branch again.
    cyd = team.add_developer("cyd")
    cyd.git("remote", "set-url", "origin", str(team.root / "nowhere.git"))
    team.close(team.pr_for(branch)["number"], delete_branch=True)
    cyd.git("update-ref", "-d", f"refs/remotes/origin/{branch}")
    failed = cyd.tb("propose", "--fix-citations", "--json")
    assert failed.returncode == 2 and json.loads(failed.stdout)["ok"] is False
    assert cyd.git("rev-parse", "--verify", "-q", branch, check=False).strip()
    cyd.git("remote", "set-url", "origin", str(team.remote))
    again = cyd.tb_json("propose", "--fix-citations")
    assert again["ok"] and again["review"]["pushed"] and again["branch"] == branch
    assert team.pr_for(branch)["state"] == "OPEN" and team.pr_for(branch)["author"] == "cyd"


def _git_counter(dev: Developer) -> Path:
    """Put a ``git`` on the developer's PATH that logs each call and runs the real one."""
    import shutil

    real = shutil.which("git")
    assert real is not None
    bin_dir = dev.home.parent / "git-bin"
    bin_dir.mkdir(exist_ok=True)
    log = dev.home.parent / "git-calls.log"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    dev.env["PATH"] = f"{bin_dir}:{dev.env['PATH']}"
    return log


def _stale_branches(dev: Developer, start: int, stop: int) -> None:
    """Proposal branches ``start`` to ``stop``, each adding one memory, pushed and fetched."""
    base = dev.git("rev-parse", "origin/main").strip()
    for n in range(start, stop):
        memory_id = f"01KC{n:022d}"
        path = f".teambrain/memories/learnings/{memory_id}-stale-{n}.md"
        text = (
            f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
            f"priority: advisory\ntitle: Stale lesson number {n}\ncreated: 2026-01-01\n---\n\n"
            f"Lesson {n} about subsystem {n * 7919 % 104729}.\n"
        )
        blob = dev.git("hash-object", "-w", "--stdin", input=text).strip()
        index_env = {"GIT_INDEX_FILE": str(dev.home.parent / f"index-{n}")}
        dev.git("read-tree", base, env=index_env)
        dev.git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index_env)
        tree = dev.git("write-tree", env=index_env).strip()
        commit = dev.git("commit-tree", tree, "-p", base, "-m", f"lesson {n}").strip()
        dev.git("update-ref", f"refs/heads/teambrain/propose-stale-{n:03d}", commit)
    dev.git("push", "-q", "origin", "refs/heads/teambrain/*:refs/heads/teambrain/*")
    dev.fetch()


def test_stale_branches_cost_a_bounded_number_of_git_calls(team_factory: TeamFactory) -> None:
    """Issue 27 point 2: every open or stale branch cost a `git diff` on every `tb propose`
    (17 after a simulated week); now the number of git processes does not grow with them."""
    team = team_factory(("ada",), gh=False, embedder="none")
    ada = team["ada"]
    log = _git_counter(ada)
    draft = _draft("Retry the gateway twice", "Retry `PaymentGateway.charge` twice, then fail.")
    calls = []
    for start, stop in ((0, 2), (2, 40)):
        _stale_branches(ada, start, stop)
        log.write_text("")
        ada.propose(draft, "--dry-run")
        calls.append(log.read_text().split())
    few, many = calls
    assert many.count("diff") == few.count("diff") == 0
    assert len(many) == len(few), (few, many)


def _result(out: dict[str, Any]) -> dict[str, Any]:
    [result] = out["results"]
    return result


def _states(out: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {b["branch"]: (b["state"], b["why"]) for b in out["proposal_branches"]}


def test_merged_in_any_style_closed_and_open_branches_are_told_apart(
    team_factory: TeamFactory,
) -> None:
    """Issue 27 point 2: squash- and rebase-merged branches count as merged (by content), a
    closed pull request no longer blocks its content on any machine and is called closed, and
    the local copies of merged and closed branches are cleaned up."""
    team = team_factory(("ada", "bob", "cyd", "dan"), embedder="none")
    ada, bob, cyd, dan = (team[n] for n in ("ada", "bob", "cyd", "dan"))
    drafts = {
        "ada": _draft("Feature flags live in flags.yaml", "Add every flag to `flags.yaml`."),
        "bob": _draft(
            "Invoices are immutable once sent",
            "Correct a sent invoice with a credit note; never edit it.",
            "decision",
        ),
        "cyd": _draft(
            "Prefer httpx over requests", "Use httpx for new HTTP clients.", "convention"
        ),
        "dan": _draft(
            "The staging database is reset nightly",
            "Do not keep data you need in staging past midnight UTC.",
        ),
    }
    outs = {name: team[name].propose(draft) for name, draft in drafts.items()}
    prs = {name: team.pr_for(out["branch"])["number"] for name, out in outs.items()}
    team.merge(prs["ada"], "squash", check=True)  # branch deleted
    team.merge(prs["bob"], "rebase", delete_branch=False, check=True)  # branch kept
    team.merge(prs["dan"], "merge", check=True)
    assert team.close(prs["cyd"]).returncode == 0  # rejected in review, branch kept

    # Everyone has fetched; eve is new and has never proposed anything.
    for dev in (ada, bob, cyd, dan):
        dev.fetch()
    eve = team.add_developer("eve")
    again = eve.propose(drafts["cyd"])  # the closed PR's content: proposed again, and said so
    result = _result(again)
    assert result["result"] == "proposed", result
    assert any(f"PR #{prs['cyd']}" in note and "closed without merging" in note
               for note in result["notes"]), result  # fmt: skip
    states = _states(again)
    assert outs["ada"]["branch"] not in states  # deleted by the merge: eve never saw it
    assert states[outs["bob"]["branch"]][0] == "merged"  # rebase-merged, branch still there
    assert states[outs["cyd"]["branch"]][0] == "closed"
    assert f"PR #{prs['cyd']}" in states[outs["cyd"]["branch"]][1]
    message = eve.git("log", "-1", "--format=%B", again["commit"])
    assert "closed without merging" in message  # the reviewer sees the history too

    # Each author's next run tidies their own local branch away: merged or closed, never open.
    for name in ("ada", "bob", "cyd", "dan"):
        out = team[name].propose(_draft(f"{name} learned one more thing",
                                        f"Something only {name} knows about deploys."))  # fmt: skip
        tidied = {b["branch"]: b["state"] for b in out["tidied"]}
        expected = "closed" if name == "cyd" else "merged"
        assert tidied == {outs[name]["branch"]: expected}, (name, out["tidied"])
        assert not team[name].git("branch", "--list", outs[name]["branch"]).strip()
    assert team.conflicts == []


def test_without_gh_a_deleted_remote_branch_means_closed(team_factory: TeamFactory) -> None:
    """No forge CLI: a pushed proposal whose remote branch was deleted without its content
    reaching the default branch is closed, said so, and tidied away; until then it is open."""
    team = team_factory(("ada", "cyd"), gh=False, embedder="none")
    ada, cyd = team["ada"], team["cyd"]
    maintainer = team.maintainer
    assert maintainer is not None
    draft = _draft("Use UTC in every log line", "Log timestamps in UTC, ISO 8601.", "convention")
    first = ada.propose(draft)
    branch = first["branch"]
    assert first["review"]["pushed"] and first["review"]["pr_url"] is None
    cyd.fetch()
    held = _result(cyd.propose(draft))
    assert held["result"] == "already-proposed"
    assert f"on branch {branch} (open: pushed to origin, no pull request known)" in held["reason"]
    maintainer.git("push", "-q", "origin", "--delete", branch)  # closed in review
    ada.fetch()
    out = ada.propose(_draft("Rotate the signing key yearly", "Rotate `SIGNING_KEY` each "
                             "January; the old one verifies for a month."))  # fmt: skip
    assert [(b["branch"], b["state"]) for b in out["tidied"]] == [(branch, "closed")]
    assert "its remote branch was deleted without a merge" in out["tidied"][0]["why"]
    dan = team.add_developer("dan")
    assert _result(dan.propose(draft))["result"] == "proposed"


def test_an_open_pull_request_catches_identical_and_reworded_proposals(
    team_factory: TeamFactory,
) -> None:
    """Issue 27 point 4: a teammate's open proposal (as last fetched) blocks the same content
    and refuses a reworded near-duplicate, naming the pull request, from `tb propose` and from
    an agent's `memory_propose`; what gets past (nobody fetched) merges cleanly and `tb lint` on
    the merge result names it."""
    team = team_factory(("ada", "bob", "cyd"))
    ada, bob, cyd = team["ada"], team["bob"], team["cyd"]
    original = _draft("Cart totals are computed in integer cents", "Compute cart totals in "
                      "integer cents and convert to a decimal amount only for display.",
                      "convention")  # fmt: skip
    first = ada.propose(original)
    number = team.pr_for(first["branch"])["number"]
    bob.fetch()
    same = _result(bob.propose(original))
    assert same["result"] == "already-proposed"
    assert f"open: PR #{number} " in same["reason"] and first["branch"] in same["reason"]

    reworded = _draft("Cart totals are always computed in integer cents", "Always compute "
                      "the cart totals in integer cents; convert to a decimal amount only "
                      "for display.", "convention")  # fmt: skip
    refused = _result(bob.propose(reworded, codes=(3,)))
    assert (refused["result"], refused["rule"]) == ("rejected", "near-duplicate"), refused
    assert f"PR #{number}" in refused["reason"] and first["branch"] in refused["reason"]
    [similar] = refused["similar"]
    assert similar["branch"] == first["branch"] and similar["pr"]["number"] == number
    assert similar["id"] == _result(first)["memory_id"]

    # An agent on bob's machine is told too, without the server touching the network: the
    # pull request comes from what bob's `tb propose` last asked gh.
    calls = len(team.gh_calls())
    told = bob.call_tool("memory_propose", {"draft": original})
    assert f"PR #{number}" in told["note"] and told["duplicate_of"] == similar["id"]
    assert len(team.gh_calls()) == calls

    # Cyd never fetched: both proposals go through review, merge cleanly, and CI's lint on the
    # result names the duplicate.
    third = cyd.propose(original)
    team.merge(number, "squash", check=True)
    team.merge(team.pr_for(third["branch"])["number"], "rebase", check=True)
    report = team.lint_default()
    assert not report["ok"]
    assert {v["rule"] for v in report["violations"]} == {"duplicate-content"}
    assert team.conflicts == []


def test_a_supersede_of_a_memory_a_teammate_edits_is_said_where_it_is_seen(
    team_factory: TeamFactory,
) -> None:
    """Issue 27 point 5: one developer edits a memory while another supersedes it; both merge
    cleanly and the edit is never served. Whoever comes second (as last fetched) is told —
    by `tb propose`, `tb propose --fix-citations`, `tb retire` and an agent's
    `memory_propose` — and the pull request says it for the reviewer."""
    team = team_factory(("ada", "bob", "cyd", "dan"), embedder="none")
    ada, bob, cyd, dan = (team[n] for n in ("ada", "bob", "cyd", "dan"))
    edit = _edit_pr(team, ada, FLAKY, "Pass `clock=fake_clock` to `checkout()` explicitly.")
    edit_branch = team.prs()[-1]["headRefName"]
    bob.fetch()
    superseding = _draft("Checkout tests always run on the fake clock", "Run every checkout "
                         "test with the `fake_clock` fixture; the real clock flakes.",
                         supersedes=[FLAKY])  # fmt: skip
    agent = bob.call_tool("memory_propose", {"draft": superseding})
    assert edit_branch in agent["note"] and "never served" in agent["note"]
    out = bob.propose(superseding)
    [note] = _result(out)["notes"]
    assert f"supersedes {FLAKY}, which branch {edit_branch}" in note
    assert f"PR #{edit}" in note and "never served" in note
    assert note in bob.git("log", "-1", "--format=%B", out["commit"])  # the reviewer sees it
    supersede_pr = team.pr_for(out["branch"])["number"]

    # The other way round: a citation fix of a memory an open proposal supersedes.
    _move_checkout_code(team)
    replacing = bob.propose(_draft("Checkout is the basket package", "Checkout code lives in "
                                   "`src/shop/basket/`.", "map", supersedes=[CHECKOUT]))  # fmt: skip
    cyd.pull()
    fixed = cyd.tb_json("propose", "--fix-citations")
    assert any(CHECKOUT in n and replacing["branch"] in n and "never served" in n
               for n in fixed["notes"]), fixed["notes"]  # fmt: skip
    # Retiring the edited memory says the edit goes with it.
    dan.fetch()
    retired = dan.retire(FLAKY, "the fake clock is the default now", "--dry-run")
    assert any(edit_branch in n and "edits it" in n for n in retired["notes"]), retired

    # Both merge cleanly; the edit is in the file but never served, and `tb lint` says so.
    team.merge(supersede_pr, "squash", check=True)
    team.merge(edit, "rebase", check=True)
    report = team.lint_default()
    assert team.conflicts == [] and report["ok"]
    [hidden] = [v for v in report["violations"] if v["rule"] == "superseded-edit"]
    assert hidden["severity"] == "warning" and FLAKY in hidden["path"]
    assert "never served" in hidden["message"]

    # Nobody fetched: the edit merges first, then CI lints the supersede's merge result (a
    # merge commit, as GitHub checks out a pull request) and says it.
    cyd_edit = _edit_pr(team, cyd, MIGRATIONS, "Name the migration after the ticket.")
    late = dan.propose(_draft("Migrations are generated, reviewed and named by ticket",
                              "Generate migrations with `make migration NAME=<ticket>`.",
                              "convention", supersedes=[MIGRATIONS]))  # fmt: skip
    assert _result(late)["notes"] == []  # dan could not know
    team.merge(cyd_edit, "squash", check=True)
    maintainer = team.maintainer
    assert maintainer is not None
    team.default_checkout()
    maintainer.git("fetch", "-q", "origin", late["branch"])
    maintainer.git("merge", "-q", "--no-ff", "-m", "CI's merge result", "FETCH_HEAD")
    ci = json.loads(maintainer.tb("lint", "--json").stdout)
    [caught] = [
        v for v in ci["violations"] if v["rule"] == "superseded-edit" and MIGRATIONS in v["path"]
    ]
    assert "since this pull request's base" in caught["message"]


@pytest.mark.parametrize("style", STYLES)
def test_an_edit_merged_before_the_supersede_is_said_on_the_default_branch(
    team_factory: TeamFactory, style: MergeStyle
) -> None:
    """Issue 27 point 5, the order CI's merge result alone caught: an edit merges first, then
    a supersede proposed before it (its author could not know). `tb lint` on the default
    branch says it after the merge and after the INDEX.md commit that follows — from the merge
    commit's parents, or, rebased or squashed (GitHub keeps a one-commit pull request's
    message), from the base the proposal's commit names."""
    team = team_factory(("ada", "bob"), embedder="none")
    ada, bob = team["ada"], team["bob"]
    late = bob.propose(_draft("Migrations are generated, reviewed and named by ticket",
                              "Generate migrations with `make migration NAME=<ticket>`.",
                              "convention", supersedes=[MIGRATIONS]))  # fmt: skip
    edit = _edit_pr(team, ada, MIGRATIONS, "Name the migration after the ticket.")
    team.merge(edit, "squash", check=True)
    team.merge(team.pr_for(late["branch"])["number"], style, check=True)
    checkout = team.default_checkout()
    maintainer = team.maintainer
    assert maintainer is not None
    assert maintainer.tb("reindex", "--index-md-only").returncode == 0  # CI's step
    maintainer.git("commit", "-q", "-m", "teambrain: regenerate INDEX.md", "--",
                   str(checkout / ".teambrain" / "INDEX.md"))  # fmt: skip
    report = json.loads(maintainer.tb("lint", "--json").stdout)
    hidden = [v for v in report["violations"] if v["rule"] == "superseded-edit"]
    assert [MIGRATIONS in v["path"] for v in hidden] == [True], report
    assert "never served" in hidden[0]["message"]


def test_a_teammates_open_proposal_said_in_other_words_is_caught_and_a_neighbour_is_not(
    team_factory: TeamFactory,
) -> None:
    """Issue 27 point 4 with a real paraphrase: a teammate's open proposal said in other words
    (the local model's cosine 0.77, half the words shared) is a near-duplicate, from `tb
    propose` and from the live brain once merged; a memory on the same subject that says
    something else (a refund next to a charge) is not. Cosine ≥ 0.88 alone let it through."""
    team = team_factory(("ada", "bob"))
    ada, bob = team["ada"], team["bob"]
    first = ada.propose(_draft(
        "Webhook retries need idempotency keys",
        "The payment provider retries webhooks up to five times; store the event id and ignore "
        "repeats so orders are not charged twice.",
    ))  # fmt: skip
    number = team.pr_for(first["branch"])["number"]
    bob.fetch()
    paraphrase = _draft(
        "Deduplicate provider webhooks by event id",
        "Webhooks from the payment provider can arrive several times (it retries up to five "
        "times). Keep the event id and drop duplicates, otherwise an order is charged twice.",
    )
    refused = _result(bob.propose(paraphrase, codes=(3,)))
    assert (refused["result"], refused["rule"]) == ("rejected", "near-duplicate"), refused
    assert f"PR #{number}" in refused["reason"] and first["branch"] in refused["reason"]
    assert len(team.prs()) == 1

    team.merge(number, "squash", check=True)
    bob.pull()
    live = _result(bob.propose(paraphrase, "--dry-run", codes=(3,)))
    assert live["rule"] == "near-duplicate" and live["similar"][0]["branch"] is None, live

    # The demo brain's "Payments go through the PaymentGateway interface" is its neighbour.
    neighbour = _draft("Refunds go through PaymentGateway", "Call `PaymentGateway.refund` for "
                       "refunds; provider SDKs stay behind the gateway.", "decision")  # fmt: skip
    kept = _result(bob.propose(neighbour, "--dry-run"))
    assert kept["result"] == "would-propose", kept
