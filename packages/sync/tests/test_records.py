"""Proposing graph records: checked against the ontology before any branch exists, committed
with the notes they promote, and never mistaken for merged while under review."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_schema.ontology import STARTER_FILES
from teambrain_sync import (
    RecordSubmission,
    choose_target,
    open_repo,
    proposal_branches,
    propose_records,
    tidy_branches,
)

TEAM = "nodeKind: team\nid: team:payments\nattributes:\n  title: Payments team\n"
SERVICE = (
    "nodeKind: service\nid: service:payments\nattributes:\n  title: Payments\n"
    "  owners: [team:payments]\nedges:\n  depends_on: [service:ledger]\n"
)
LEDGER = (
    "nodeKind: service\nid: service:ledger\nattributes:\n  title: Ledger\n"
    "  owners: [team:payments]\n"
)


@pytest.fixture
def graph_repo(brain_repo: Path, kit: SimpleNamespace) -> Path:
    ontology = brain_repo / ".teambrain" / "ontology"
    ontology.mkdir()
    for name, text in STARTER_FILES.items():
        (ontology / name).write_text(text)
    (brain_repo / ".teambrain" / "graph" / "teams").mkdir(parents=True)
    (brain_repo / ".teambrain" / "graph" / "teams" / "payments.yaml").write_text(TEAM)
    (brain_repo / ".teambrain" / "notes").mkdir()
    (brain_repo / ".teambrain" / "notes" / "ledger.md").write_text("# Ledger\nthe ledger service\n")
    kit.commit_all(brain_repo, "graph")
    return brain_repo


def _propose(repo_path: Path, tmp_path: Path, *texts: str, **kwargs: object):  # type: ignore[no-untyped-def]
    repo = open_repo(repo_path)
    return propose_records(
        repo, [RecordSubmission(t, f"r{i}") for i, t in enumerate(texts)],
        target=choose_target(repo), patch_dir=tmp_path / "patches", push=False, **kwargs,  # type: ignore[arg-type]
    )  # fmt: skip


def test_a_record_the_ontology_refuses_makes_no_branch(
    graph_repo: Path, tmp_path: Path, kit: SimpleNamespace
) -> None:
    run = _propose(graph_repo, tmp_path, SERVICE)  # depends_on a node nobody defined
    assert run.failed and run.commit is None and run.branch is None
    assert run.records[0].problems == [
        ".teambrain/graph/services/payments.yaml:7: graph-dangling: depends_on: no node 'service:ledger'"
    ]
    assert kit.git("branch", "--list", "teambrain/*", cwd=graph_repo).strip() == ""


def test_records_and_the_note_they_promote_are_one_reviewed_commit(
    graph_repo: Path, tmp_path: Path, kit: SimpleNamespace
) -> None:
    run = _propose(graph_repo, tmp_path, LEDGER, SERVICE, removals=[".teambrain/notes/ledger.md"])
    assert not run.failed, run.records
    assert [(r.node_id, r.action, r.relpath) for r in run.records] == [
        ("service:ledger", "add", ".teambrain/graph/services/ledger.yaml"),
        ("service:payments", "add", ".teambrain/graph/services/payments.yaml"),
    ]
    assert run.branch is not None and run.commit is not None
    changed = kit.git("show", "--name-status", "--format=", run.commit, cwd=graph_repo).split("\n")
    assert sorted(line for line in changed if line) == [
        "A\t.teambrain/graph/services/ledger.yaml",
        "A\t.teambrain/graph/services/payments.yaml",
        "D\t.teambrain/notes/ledger.md",
    ]
    # the checkout is untouched
    assert not (graph_repo / ".teambrain" / "graph" / "services").exists()
    # under review, the branch is not merged, so nothing tidies it away
    repo = open_repo(graph_repo)
    head = kit.git("rev-parse", "HEAD", cwd=graph_repo).strip()
    branches = proposal_branches(repo, head)
    assert [(b.name, b.state) for b in branches] == [(run.branch, "unpushed")]
    assert tidy_branches(repo, branches) == []
    # changing a record rewrites its own file
    again = _propose(graph_repo, tmp_path, TEAM.replace("Payments team", "Payments squad"))
    assert [(r.action, r.relpath) for r in again.records] == [
        ("change", ".teambrain/graph/teams/payments.yaml")
    ]
    # merged, it is tidied like any proposal
    kit.git("merge", "-q", "--ff-only", run.branch, cwd=graph_repo)
    merged = proposal_branches(repo, kit.git("rev-parse", "HEAD", cwd=graph_repo).strip())
    assert {b.name: b.state for b in merged}[run.branch] == "merged"


def test_a_record_closing_a_cycle_is_refused_with_both_lines(
    graph_repo: Path, tmp_path: Path, kit: SimpleNamespace
) -> None:
    first = _propose(graph_repo, tmp_path, LEDGER, SERVICE)
    assert first.branch is not None
    kit.git("merge", "-q", "--ff-only", first.branch, cwd=graph_repo)
    cycle = LEDGER + "edges:\n  depends_on: [service:payments]\n"
    run = _propose(graph_repo, tmp_path, cycle)
    assert run.failed and run.commit is None
    assert run.records[0].problems == [
        ".teambrain/graph/services/ledger.yaml:7: graph-cycle: depends_on edges form a cycle through service:ledger",
        ".teambrain/graph/services/payments.yaml:7: graph-cycle: depends_on edges form a cycle through service:payments",
    ]
