"""Memories that don't rot, through the `tb` a user installs: the demo brain over the demo app is
fresh; once code moves, lint warns (failing only with --strict), relevant and the MCP server mark
the hit with the reason, doctor, metrics and digest count or list it, and
`tb propose --fix-citations` turns a rename into one reviewed edit."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAP_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F03"  # "Where checkout lives": cites src/shop/checkout/
PAYMENTS_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F01"  # cites tests/fakes.py and the gateway class
Run = Callable[..., Any]


@pytest.fixture
def shop(repo: Path, tb: Run, git_run: Callable[..., str]) -> Path:
    shutil.copytree(ROOT / "demo" / "app", repo, dirs_exist_ok=True)
    assert tb("init", cwd=repo).returncode == 0
    shutil.copytree(ROOT / "demo" / "brain" / "memories", repo / ".teambrain" / "memories",
                    dirs_exist_ok=True)  # fmt: skip
    assert tb("reindex", cwd=repo).returncode == 0  # INDEX.md current
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "shop and its brain", cwd=repo)
    return repo


def _stale(tb: Run, repo: Path, query: str) -> dict[str, list[str] | None]:
    done = tb("relevant", "--query", query, "--k", "7", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    return {item["id"]: item.get("stale") for item in json.loads(done.stdout)}


def test_the_demo_brain_cites_code_that_exists(shop: Path, tb: Run) -> None:
    done = tb("lint", "--strict", cwd=shop)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not any(_stale(tb, shop, "checkout payments tests redis migrations").values())


def test_moved_code_is_marked_everywhere_and_a_reviewed_fix_is_proposed(
    shop: Path, tb: Run, git_run: Callable[..., str]
) -> None:
    git_run("mv", "src/shop/checkout", "src/shop/basket", cwd=shop)
    git_run("mv", "tests/fakes.py", "tests/doubles.py", cwd=shop)
    git_run("commit", "-qm", "rename checkout to basket", cwd=shop)

    lint = tb("lint", "--json", cwd=shop)
    assert lint.returncode == 0, lint.stdout  # warnings only
    warned = [v for v in json.loads(lint.stdout)["violations"] if v["rule"] == "stale-citation"]
    assert {(MAP_ID in v["path"], "src/shop/basket/" in v["message"]) for v in warned} >= {
        (True, True)
    }
    assert all(v["severity"] == "warning" for v in warned)
    assert tb("lint", "--strict", cwd=shop).returncode == 3

    stale = _stale(tb, shop, "where does checkout live")
    assert stale[MAP_ID] == ["`src/shop/checkout/` no longer exists (moved to `src/shop/basket/`)"]
    text = tb("relevant", "--query", "where does checkout live", "--k", "1", cwd=shop)
    assert "may be stale: `src/shop/checkout/` no longer exists" in text.stdout

    doctor = tb("doctor", "--json", cwd=shop)
    note = next(f for f in json.loads(doctor.stdout)["findings"] if f["name"] == "citations")
    assert note["status"] == "note" and note["detail"].startswith("2 memories may be stale")
    metrics = json.loads(tb("metrics", "--json", cwd=shop).stdout)
    assert metrics["memories"]["stale"] == 2
    digest = json.loads(tb("digest", "--format", "json", cwd=shop).stdout)
    assert {item["id"] for item in digest["memory"]["stale"]} == {MAP_ID, PAYMENTS_ID}

    dry = tb("propose", "--fix-citations", "--dry-run", "--json", cwd=shop)
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["commit"] is None
    done = tb("propose", "--fix-citations", "--json", cwd=shop)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    moves = {(m["from"], m["to"]) for fix in outcome["fixes"] for m in fix["moves"]}
    assert moves == {
        ("src/shop/checkout/", "src/shop/basket/"),
        ("tests/fakes.py", "tests/doubles.py"),
    }
    branch = outcome["branch"]
    # Never a silent rewrite: the checkout is untouched, the edit waits on its branch.
    assert (
        "src/shop/checkout/"
        in next(shop.glob(f".teambrain/memories/map/{MAP_ID}-*.md")).read_text()
    )
    edited = git_run(
        "show",
        f"{branch}:{next(shop.glob(f'.teambrain/memories/map/{MAP_ID}-*.md')).relative_to(shop).as_posix()}",
        cwd=shop,
    )
    assert "`src/shop/basket/`" in edited and "src/shop/checkout" not in edited
    again = tb("propose", "--fix-citations", cwd=shop)
    assert again.returncode == 1 and "already proposed" in again.stderr

    git_run("merge", "-q", "--ff-only", branch, cwd=shop)
    assert tb("lint", "--strict", cwd=shop).returncode == 0
    assert not any(_stale(tb, shop, "checkout payments tests").values())


def test_a_symbol_gone_from_its_module_is_named_and_not_fixable(
    shop: Path, tb: Run, git_run: Callable[..., str]
) -> None:
    gateway = shop / "src" / "shop" / "payments" / "gateway.py"
    gateway.write_text(gateway.read_text().replace("PaymentGateway", "Gateway"))
    git_run("commit", "-qam", "rename the class", cwd=shop)
    stale = _stale(tb, shop, "payments gateway provider")
    assert stale[PAYMENTS_ID] == [
        "`PaymentGateway` no longer appears in `src/shop/payments/gateway.py`"
    ]
    done = tb("propose", "--fix-citations", cwd=shop)
    assert done.returncode == 0
    assert "no rename to follow" in done.stderr and "PaymentGateway" in done.stderr


BILLING = "def charge_card(card):\n    return card\n"
REFUND_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F07"


def _memory(commit: str) -> str:
    return (
        f"---\nid: {REFUND_ID}\nclass: learning\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Refunds are idempotent\ncreated: 2026-11-16\n"
        f"evidence:\n  sessions: []\n  commits: [{commit}]\n---\n\n"
        "`refund_card()` in `src/shop/billing.py` may run twice: it checks the ledger first.\n"
    )


def test_squash_merged_evidence_is_followed_and_a_renamed_function_is_stale(
    repo: Path, tb: Run, git_run: Callable[..., str]
) -> None:
    """Issue 27 point 3: the evidence commit of a squash-merged feature branch is not stale
    (lint notes what it became; --fix-citations cites that commit instead), and the function
    the memory names next to its file is flagged once it is renamed."""
    (repo / "src" / "shop").mkdir(parents=True)
    (repo / "src" / "shop" / "billing.py").write_text(BILLING)
    assert tb("init", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "shop", cwd=repo)
    git_run("checkout", "-qb", "feature/refunds", cwd=repo)
    billing = repo / "src" / "shop" / "billing.py"
    billing.write_text(BILLING + "\n\ndef refund_card(card):\n    return card\n")
    git_run("commit", "-qam", "refunds", cwd=repo)
    billing.write_text(billing.read_text() + "\n\nLEDGER = {}\n")
    git_run("commit", "-qam", "a ledger", cwd=repo)
    evidence = git_run("rev-parse", "HEAD~1", cwd=repo).strip()  # not the branch's tip
    git_run("checkout", "-q", "main", cwd=repo)
    memory = repo / ".teambrain" / "memories" / "learnings" / f"{REFUND_ID}-refunds.md"
    memory.write_text(_memory(evidence))
    assert tb("reindex", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teambrain: a memory, merged before its code", cwd=repo)
    git_run("merge", "-q", "--squash", "feature/refunds", cwd=repo)
    git_run("commit", "-qm", "Refunds (#12)\n\n* refunds\n\n* a ledger", cwd=repo)
    squash = git_run("rev-parse", "HEAD", cwd=repo).strip()
    git_run("branch", "-qD", "feature/refunds", cwd=repo)

    lint = tb("lint", "--strict", "--json", cwd=repo)
    assert lint.returncode == 0, lint.stdout  # a note never fails, not even --strict
    assert json.loads(lint.stdout)["violations"] == []
    found = [n for n in json.loads(lint.stdout)["notes"] if n["rule"] == "evidence-commit"]
    assert [(v["rule"], v["severity"]) for v in found] == [("evidence-commit", "note")]
    assert f"squash-merged as {squash[:12]} in pull request #12" in found[0]["message"]
    assert _stale(tb, repo, "refunds idempotent ledger") == {REFUND_ID: None}

    done = tb("propose", "--fix-citations", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    fix = json.loads(done.stdout)["fixes"][0]
    assert fix["evidence"] == [{"from": evidence, "to": squash, "how": "squash-merged in #12"}]
    edited = git_run(
        "show", f"{json.loads(done.stdout)['branch']}:{memory.relative_to(repo).as_posix()}",
        cwd=repo,
    )  # fmt: skip
    assert edited == _memory(squash)  # only the commit changed, every other byte as it was

    billing.write_text(billing.read_text().replace("refund_card", "refund_payment"))
    git_run("commit", "-qam", "rename refunds", cwd=repo)
    assert _stale(tb, repo, "refunds idempotent ledger") == {
        REFUND_ID: ["`refund_card` is no longer defined in `src/shop/billing.py`"]
    }
    lint = tb("lint", "--json", cwd=repo)
    assert any(
        v["rule"] == "stale-citation" and "refund_card" in v["message"]
        for v in json.loads(lint.stdout)["violations"]
    )


def test_a_cited_command_whose_file_moved_is_stale_and_fixed(
    repo: Path, tb: Run, git_run: Callable[..., str]
) -> None:
    """Issue 42 point 7: a memory citing `pytest -q tests/test_cart.py` is flagged when the
    file moves, says where it went, and the reviewed fix rewrites the command."""
    (repo / "tests").mkdir()
    (repo / "tests" / "test_cart.py").write_text("def test_total():\n    pass\n")
    assert tb("init", cwd=repo).returncode == 0
    memory_id = "01KB2F0A1S9Y4Q7V3C8D5E6F07"
    path = repo / ".teambrain" / "memories" / "conventions" / f"{memory_id}-cart-tests.md"
    path.write_text(
        f"---\nid: {memory_id}\nclass: convention\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Run the cart tests before touching the cart\n"
        "created: 2026-12-01\n---\n\nRun `pytest -q tests/test_cart.py` before touching the "
        "cart; `mkdir -p build/out` first.\n"
    )
    assert tb("reindex", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "cart and its memory", cwd=repo)
    assert tb("lint", "--strict", cwd=repo).returncode == 0  # nothing stale: mkdir makes build/

    (repo / "tests" / "unit").mkdir()
    git_run("mv", "tests/test_cart.py", "tests/unit/test_cart.py", cwd=repo)
    git_run("commit", "-qm", "tests by kind", cwd=repo)
    listed = json.loads(tb("list", "--stale", "--json", cwd=repo).stdout)["memories"]
    assert [(m["id"], m["stale"]) for m in listed] == [(memory_id, [
        "`pytest -q tests/test_cart.py`: `tests/test_cart.py` no longer exists "
        "(moved to `tests/unit/test_cart.py`)"
    ])]  # fmt: skip
    assert tb("lint", "--strict", cwd=repo).returncode == 3
    done = tb("propose", "--fix-citations", "--no-push", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    fix = json.loads(done.stdout)
    assert fix["fixes"][0]["moves"] == [
        {"from": "tests/test_cart.py", "to": "tests/unit/test_cart.py"}
    ]
    fixed = git_run("show", f"{fix['branch']}:{path.relative_to(repo).as_posix()}", cwd=repo)
    assert "Run `pytest -q tests/unit/test_cart.py` before touching the cart" in fixed
