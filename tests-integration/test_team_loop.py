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
        cyd.propose(
            _draft(
                "Cache misses are logged at debug level",
                "Log cache misses at debug level, never at info: they flood the logs under load.",
            )
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
    team = team_factory()
    numbers = _same_day_prs(team)
    saved = tmp_path / "saved"
    team.snapshot(saved)
    runs: list[tuple[list[int], list[MergeStyle]]] = []

    # Each example replays ten merges: generate only (a failure prints its order and styles;
    # shrinking one would replay hundreds of merges).
    @settings(max_examples=8, deadline=None, database=None, phases=[Phase.generate],
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


@pytest.mark.parametrize("style", STYLES)
def test_the_first_memories_of_a_new_brain_never_collide(
    team_factory: TeamFactory, style: MergeStyle
) -> None:
    team = team_factory(brain="empty")
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
    for out in reversed(outs):
        assert team.merge(team.pr_for(out["branch"])["number"], style).returncode == 0
        assert team.lint_default(in_process=True)["ok"]
    assert team.conflicts == []


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
    team = team_factory(("ada", "bob"))
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
