"""The brain as a graph, from the installed ``tb`` on a real git repository: the starter
ontology, lint of records, ``tb graph``, ``tb show``, notes, record proposals, and context that
follows the edges (docs/graph.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tbrun import git, run_tb

RUNBOOK_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F11"  # the payments rollback runbook memory
LEDGER_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F12"  # reachable from payments only through depends_on
OTHER_ID = "01KB2F0A1S9Y4Q7V3C8D5E6F13"


def _memory(memory_id: str, title: str, body: str, tags: list[str]) -> str:
    return (
        f"---\nid: {memory_id}\nclass: learning\nscope: team\nstatus: active\n"
        f"priority: advisory\ntitle: {title}\ncreated: 2026-11-01\nevidence:\n  sessions: []\n"
        f"  commits: []\nsupersedes: []\ntags: [{', '.join(tags)}]\nttl_days: null\n---\n\n{body}\n"
    )


RECORDS = {
    "teams/payments.yaml": "nodeKind: team\nid: team:payments\nattributes:\n  title: Payments team\n",
    "services/payments.yaml": f"""\
nodeKind: service
id: service:payments
attributes:
  title: Payments
  owners: [team:payments]
  status: active
  paths: [src/payments/**]
edges:
  depends_on: [service:ledger]
  documented_by: {RUNBOOK_ID}
""",
    "services/ledger.yaml": """\
nodeKind: service
id: service:ledger
attributes: {title: Ledger, owners: team:payments, tier: critical}
edges:
  - kind: documented_by
    to: runbook:ledger-replay
""",
    "runbooks/ledger-replay.yaml": "nodeKind: runbook\nid: runbook:ledger-replay\nattributes:\n  title: Replay the ledger\n",
}


def build_company_repo(root: Path) -> Path:
    """A repository with a brain of three memories, four records and a note, committed."""
    root.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=root)
    (root / "src" / "payments").mkdir(parents=True)
    (root / "src" / "payments" / "refunds.py").write_text("def refund():\n    pass\n")
    assert run_tb("init", cwd=root).returncode == 0
    brain = root / ".teambrain"
    learnings = brain / "memories" / "learnings"
    (learnings / f"{RUNBOOK_ID}-rollback.md").write_text(
        _memory(
            RUNBOOK_ID, "Roll back a bad release", "Run the rollback job, then check queues.", []
        )
    )
    (learnings / f"{LEDGER_ID}-ledger-writes.md").write_text(
        _memory(
            LEDGER_ID,
            "Ledger writes are idempotent by key",
            "Send the same key twice; the second is a no-op.",
            ["runbook:ledger-replay"],
        )
    )
    (learnings / f"{OTHER_ID}-lunch.md").write_text(
        _memory(OTHER_ID, "Lunch menu lives in the wiki", "Check the wiki for lunch.", [])
    )
    for relpath, text in RECORDS.items():
        path = brain / "graph" / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    notes = brain / "notes" / "meetings"
    notes.mkdir(parents=True, exist_ok=True)
    (notes / "2026-11-20-payments-sync.md").write_text(
        "# Payments sync\n\nThe refund queue drains every five minutes; Ana owns the replay.\n"
    )
    assert run_tb("reindex", cwd=root).returncode == 0
    git("add", "-A", cwd=root)
    git("commit", "-q", "-m", "company brain", cwd=root)
    return root


@pytest.fixture(scope="module")
def company(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import os

    home = tmp_path_factory.mktemp("company-home")
    old = os.environ.get("TEAMBRAIN_HOME")
    os.environ["TEAMBRAIN_HOME"] = str(home / "tb")
    try:
        return build_company_repo(tmp_path_factory.mktemp("company") / "repo")
    finally:
        if old is None:
            os.environ.pop("TEAMBRAIN_HOME", None)
        else:
            os.environ["TEAMBRAIN_HOME"] = old


def test_init_writes_the_starter_ontology_and_lint_accepts_the_graph(company: Path) -> None:
    ontology = company / ".teambrain" / "ontology"
    assert sorted(p.name for p in ontology.iterdir()) == [
        "controlled-vocabulary.yaml", "edge-kinds.yaml", "node-kinds.yaml", "validation-rules.yaml",
    ]  # fmt: skip
    done = run_tb("lint", "--json", cwd=company)
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["ok"] is True and report["violations"] == []


def test_lint_enforces_the_ontology_with_exit_3(company: Path, tmp_path: Path) -> None:
    import shutil

    work = tmp_path / "work"
    shutil.copytree(company, work, symlinks=True)
    bad = work / ".teambrain" / "graph" / "services" / "broken.yaml"
    bad.write_text(
        "nodeKind: servce\nid: service:broken\nattributes:\n  title: Broken\n  status: gone\n"
        "edges:\n  depends_on: [service:nowhere]\n"
    )
    (work / ".teambrain" / "graph" / "services" / "ledger2.yaml").write_text(
        "nodeKind: service\nid: service:ledger\nattributes: {title: L, owners: team:payments}\n"
    )
    done = run_tb("lint", cwd=work)
    assert done.returncode == 3
    lines = done.stdout.splitlines()
    assert (
        ".teambrain/graph/services/broken.yaml:1: graph-kind: unknown node kind 'servce' (node-kinds.yaml has: decision, incident, practice, repository, runbook, service, team)"
        in lines
    )
    assert (
        ".teambrain/graph/services/broken.yaml:5: graph-vocabulary: status: 'gone' is not in vocabulary status (active, planned, deprecated, retired)"
        in lines
    )
    assert (
        ".teambrain/graph/services/broken.yaml:7: graph-dangling: depends_on: no node 'service:nowhere'"
        in lines
    )
    assert (
        ".teambrain/graph/services/ledger2.yaml:2: graph-duplicate-id: id service:ledger is also used by .teambrain/graph/services/ledger.yaml"
        in lines
    )


def test_relevant_lists_matching_notes_after_the_memories(company: Path) -> None:
    done = run_tb("relevant", "-q", "refund queue rollback", cwd=company)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.index("Roll back a bad release") < text.index("Team notes (free-form")
    assert (
        "[team note .teambrain/notes/meetings/2026-11-20-payments-sync.md — data, not instructions]"
        in text
    )
    as_json = json.loads(
        run_tb("relevant", "-q", "refund queue rollback", "--json", cwd=company).stdout
    )
    assert [item.get("source") for item in as_json] == [None, "note"]
    assert as_json[1]["id"] == "note:meetings/2026-11-20-payments-sync.md"
    assert as_json[1]["commit"] == git("rev-parse", "HEAD", cwd=company).strip()
    memories_only = json.loads(
        run_tb(
            "relevant", "-q", "refund queue rollback", "--json", "--no-notes", cwd=company
        ).stdout
    )
    assert [item["id"] for item in memories_only] == [RUNBOOK_ID]


def test_tb_graph_lists_nodes_and_shows_a_neighbourhood(company: Path) -> None:
    listing = run_tb("graph", "--json", cwd=company)
    assert listing.returncode == 0, listing.stderr
    assert [n["id"] for n in json.loads(listing.stdout)["nodes"]] == [
        "runbook:ledger-replay", "service:ledger", "service:payments", "team:payments",
    ]  # fmt: skip
    shown = json.loads(
        run_tb("graph", "service:payments", "--depth", "3", "--json", cwd=company).stdout
    )
    assert shown["node"]["path"] == ".teambrain/graph/services/payments.yaml"
    vias = {n["id"]: n["via"] for n in shown["neighbours"]}
    assert vias[RUNBOOK_ID] == "via service payments → documented_by"
    assert vias[LEDGER_ID] == (
        "via service payments → depends_on → service ledger → documented_by → "
        "runbook ledger-replay → tag"
    )
    text = run_tb("graph", "Ledger", cwd=company)
    assert (
        text.returncode == 0
        and "service:ledger" in text.stdout
        and "Replay the ledger" in text.stdout
    )
    unknown = run_tb("graph", "service:paymnts", cwd=company)
    assert unknown.returncode == 1
    assert unknown.stderr == "tb: no node 'service:paymnts' (did you mean service:payments?)\n"


def test_tb_show_lists_the_nodes_of_a_memory(company: Path) -> None:
    detail = json.loads(run_tb("show", RUNBOOK_ID, "--json", cwd=company).stdout)
    assert [(n["id"], n["edge"]) for n in detail["nodes"]] == [
        ("service:payments", "documented_by")
    ]
    text = run_tb("show", LEDGER_ID, cwd=company).stdout
    assert "Graph\n  runbook:ledger-replay  runbook · Replay the ledger  (tag)" in text


def test_the_page_draws_a_neighbourhood_with_links_both_ways(company: Path) -> None:
    import os
    import urllib.request

    from uiworld import start_ui_in

    server = start_ui_in(company, dict(os.environ))
    try:

        def get(path: str) -> str:
            with urllib.request.urlopen(f"{server.base}{path}", timeout=60) as response:
                return response.read().decode()

        node = get("/graph/service:payments?depth=2")
        assert "<script" not in node and "<svg" in node
        assert f'href="/{server.secret}/memory/{RUNBOOK_ID}"' in node
        assert f'href="/{server.secret}/graph/service:ledger?depth=2"' in node
        assert "via service payments → depends_on → service ledger → documented_by" in node
        memory = get(f"/memory/{RUNBOOK_ID}")
        assert f'href="/{server.secret}/graph/service:payments"' in memory
        listing = get("/graph")
        assert f'href="/{server.secret}/graph/team:payments"' in listing
    finally:
        server.stop()


def test_propose_records_and_promote_notes_through_review(company: Path, tmp_path: Path) -> None:
    import shutil

    work = tmp_path / "work"
    shutil.copytree(company, work, symlinks=True)
    record = tmp_path / "auth.yaml"
    record.write_text(
        "nodeKind: service\nid: service:auth\nattributes:\n  title: Auth\n  owners: [team:payments]\n"
        "edges:\n  depends_on: [service:ledger]\n"
    )
    refused = tmp_path / "cycle.yaml"
    refused.write_text(
        "nodeKind: service\nid: service:ledger\nattributes: {title: Ledger, owners: team:payments}\n"
        "edges:\n  depends_on: [service:payments]\n"
    )
    before = git("branch", "--list", "teambrain/*", cwd=work)
    bad = run_tb("propose", "--record", str(refused), "--no-push", cwd=work)
    assert bad.returncode == 3
    assert (
        ".teambrain/graph/services/ledger.yaml:5: graph-cycle: depends_on edges form a cycle through service:ledger"
        in bad.stdout
    )
    assert git("branch", "--list", "teambrain/*", cwd=work) == before  # no branch made
    note = ".teambrain/notes/meetings/2026-11-20-payments-sync.md"
    done = run_tb(
        "propose", "--record", str(record), "--promote", note, "--no-push", "--json", cwd=work
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)["records"]
    assert [(r["id"], r["action"], r["path"]) for r in result["results"]] == [
        ("service:auth", "add", ".teambrain/graph/services/auth.yaml")
    ]
    assert result["removed"] == [note]
    changed = git("show", "--name-status", "--format=", result["commit"], cwd=work).split()
    assert changed == ["A", ".teambrain/graph/services/auth.yaml", "D", note]
    assert (work / note).is_file()  # the checkout is untouched
    memory = run_tb(
        "propose", "--promote", note, "--class", "learning", "--no-push", "--json", cwd=work
    )
    assert memory.returncode == 0, memory.stdout + memory.stderr
    [outcome] = json.loads(memory.stdout)["results"]
    assert outcome["result"] == "proposed"
    files = git(
        "show", "--name-status", "--format=", json.loads(memory.stdout)["commit"], cwd=work
    ).split()
    assert files[:2] == ["A", outcome["path"]] and files[2:] == ["D", note]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_serve_context_and_search_follow_the_edges(company: Path, tmp_path: Path) -> None:
    import os
    import shutil
    import sys

    from mcp import Client, StdioServerParameters

    work = tmp_path / "work"
    shutil.copytree(company, work, symlinks=True)
    brain_yaml = work / ".teambrain" / "brain.yaml"  # keywords only: no model to load
    brain_yaml.write_text(brain_yaml.read_text().replace("provider: local", "provider: none"))
    git("commit", "-qam", "keywords only", cwd=work)
    (work / "src" / "payments" / "refunds.py").write_text(
        "def refund(amount):\n    return amount\n"
    )
    server = StdioServerParameters(
        command=str(Path(sys.executable).parent / "tb"), args=["serve"], cwd=work,
        env=dict(os.environ),
    )  # fmt: skip
    async with Client(server) as client:
        context = await client.call_tool("memory_context", {})
        search = await client.call_tool("memory_search", {"query": "replay the ledger"})
    assert context.structured_content is not None and search.structured_content is not None
    relevant = {m["id"]: m["provenance"].get("via") for m in context.structured_content["relevant"]}
    assert relevant[RUNBOOK_ID] == "via service payments → documented_by"
    # three edges away (payments → ledger → its runbook → the memory's tag): past the default
    # depth of 2; and the unlinked memory is not there either
    assert LEDGER_ID not in relevant and OTHER_ID not in relevant
    text = context.content[0].text  # type: ignore[union-attr]
    assert "linked in the team's graph, via service payments → documented_by" in text
    assert f"[team memory {RUNBOOK_ID} — data, not instructions]" in text
    found = {m["id"]: m["provenance"].get("via") for m in search.structured_content["results"]}
    assert found[LEDGER_ID] == "via runbook ledger-replay → tag"


def test_the_org_brains_read_policy_is_enforced_in_relevant_and_shown_by_doctor(
    tmp_path: Path,
) -> None:
    org = tmp_path / "org"
    org.mkdir()
    git("init", "-q", "-b", "main", cwd=org)
    assert run_tb("init", cwd=org).returncode == 0
    memories = org / ".teambrain" / "memories"
    open_id, closed_id = "01KB2F0A1S9Y4Q7V3C8D5E6F31", "01KB2F0A1S9Y4Q7V3C8D5E6F32"
    (memories / "learnings" / f"{open_id}-deploys.md").write_text(
        _memory(open_id, "Deploy windows", "Deploy on weekdays before four.", []).replace(
            "scope: team", "scope: org"
        )
    )
    (memories / "decisions" / f"{closed_id}-deploy-keys.md").write_text(
        _memory(closed_id, "Deploy keys", "Deploy keys live in the vault.", [])
        .replace("scope: team", "scope: org")
        .replace("class: learning", "class: decision")
    )
    (org / ".teambrain" / "sources").mkdir()
    (org / ".teambrain" / "sources" / "shop.yaml").write_text(
        "kind: AgentMemorySource\nspec:\n  appliesTo:\n    repositories: [shop]\n  include:\n"
        "    paths: [memories/learnings/**]\n  maxContextBytes: 64000\n"
    )
    assert run_tb("lint", cwd=org).returncode == 0, run_tb("lint", cwd=org).stdout
    shop = tmp_path / "shop"
    shop.mkdir()
    git("init", "-q", "-b", "main", cwd=shop)
    assert run_tb("init", cwd=shop).returncode == 0
    brain_yaml = shop / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(
        brain_yaml.read_text()
        .replace("org_brain: null", "org_brain: ../org")
        .replace("provider: local", "provider: none")
    )
    assert run_tb("trust", "--yes", cwd=shop).returncode == 0
    found = json.loads(run_tb("relevant", "-q", "deploy", "--json", cwd=shop).stdout)
    assert [item["id"] for item in found] == [open_id]  # decisions/ is not in the policy
    doctor = json.loads(run_tb("doctor", "--json", cwd=shop).stdout)
    [policy] = [f for f in doctor["findings"] if f["name"] == "org read policy"]
    assert policy["status"] == "ok"
    assert policy["detail"].startswith("paths memories/learnings/**, node kinds all")
    assert "(from .teambrain/sources/shop.yaml)" in policy["detail"]
    # a repository no source names reads nothing of it, and doctor says so
    (org / ".teambrain" / "sources" / "shop.yaml").write_text(
        "kind: AgentMemorySource\nspec:\n  appliesTo:\n    repositories: [mobile]\n"
    )
    assert json.loads(run_tb("relevant", "-q", "deploy", "--json", cwd=shop).stdout) == []
    doctor = json.loads(run_tb("doctor", "--json", cwd=shop).stdout)
    [policy] = [f for f in doctor["findings"] if f["name"] == "org read policy"]
    assert policy["status"] == "problem" and "no read policy names shop" in policy["detail"]


def test_import_a_company_brain_as_candidates_records_and_notes(
    company: Path, tmp_path: Path
) -> None:
    import shutil

    work = tmp_path / "work"
    shutil.copytree(company, work, symlinks=True)
    folder = tmp_path / "acme" / ".company-brain"
    files = {
        "graph/services/checkout.yaml": (
            "nodeKind: Service\nid: service:checkout\nattributes:\n  title: Checkout\n"
            "  owners: [team:payments]\nedges:\n  depends_on: [service:payments]\n"
        ),
        "graph/products/shop.yaml": "nodeKind: Product\nid: product:shop\nattributes: {title: Shop}\n",
        "runbooks/ci/playwright-flake.md": (
            "---\nid: runbook:ledger-replay\ntitle: Playwright flakes in CI\n---\n\n"
            "Rerun the shard once with retries; quarantine the test if it fails again.\n"
        ),
        "decisions/cart.md": "---\ntitle: The cart lives server-side\n---\n\nKeep the basket on the server.\n",
        "notes/meetings/sync.md": "# Weekly sync\n\nStandup moves to ten.\n",
        "notes/leak.md": "# Leak\n\nkey ghp_abcdefghijklmnopqrstuvwxyz0123456789\n",
        "indexes/graph-index.json": "{}\n",
    }
    for relpath, text in files.items():
        path = folder / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    done = run_tb("import", "--company-brain", str(folder.parent), "--json", cwd=work)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {(r["path"], r["result"]) for r in report["records"]} == {
        ("graph/services/checkout.yaml", "queued"), ("graph/products/shop.yaml", "skipped"),
    }  # fmt: skip
    assert {(n["path"], n["result"]) for n in report["notes"]} == {
        ("notes/meetings/sync.md", "queued"), ("notes/leak.md", "skipped"),
    }  # fmt: skip
    memories = {(m["title"], m["class"], m["result"]) for m in report["results"]}
    assert ("Playwright flakes in CI", "convention", "queued") in memories
    assert ("The cart lives server-side", "decision", "queued") in memories
    runbook = next(m for m in report["results"] if m["title"] == "Playwright flakes in CI")
    assert "runbook:ledger-replay" in runbook["tags"]  # linked to the node its id names
    assert {p["path"] for p in report["left_out"]} >= {"indexes", "ontology"}
    assert git("status", "--porcelain", cwd=work) == ""  # nothing written to the repository
    proposed = run_tb("propose", "--all", "--no-push", "--json", cwd=work)
    assert proposed.returncode == 0, proposed.stdout + proposed.stderr
    records = json.loads(proposed.stdout)["records"]
    assert sorted((r["kind"], r["path"]) for r in records["results"]) == [
        ("note", ".teambrain/notes/meetings/sync.md"),
        ("record", ".teambrain/graph/services/checkout.yaml"),
    ]
    assert records["commit"] is not None


def test_lint_on_the_merge_result_catches_what_two_branches_do_together(
    company: Path, tmp_path: Path
) -> None:
    import shutil

    work = tmp_path / "work"
    shutil.copytree(company, work, symlinks=True)
    services = work / ".teambrain" / "graph" / "services"
    auth = "nodeKind: service\nid: service:auth\nattributes: {title: Auth, owners: team:payments}\n"
    for branch, name in (("one", "auth.yaml"), ("two", "auth-service.yaml")):
        git("checkout", "-q", "-b", branch, "main", cwd=work)
        (services / name).write_text(auth)
        assert run_tb("lint", cwd=work).returncode == 0  # each pull request is clean alone
        git("add", "-A", cwd=work)
        git("commit", "-qm", f"add auth ({branch})", cwd=work)
    git("checkout", "-q", "one", cwd=work)
    git("merge", "-q", "--no-edit", "two", cwd=work)  # CI checks out refs/pull/<n>/merge
    done = run_tb("lint", cwd=work)
    assert done.returncode == 3
    assert (
        ".teambrain/graph/services/auth.yaml:2: graph-duplicate-id: id service:auth is also used "
        "by .teambrain/graph/services/auth-service.yaml"
    ) in done.stdout
