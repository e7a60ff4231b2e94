"""Context that follows the edges: the memories a situation or a query reaches through the
graph, where they rank among direct hits, and the route shown in provenance."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import given, strategies as st
from teambrain_kit.paths import BrainLayout
from teambrain_retrieval import Retriever, Situation
from teambrain_retrieval._search._graphlinks import GRAPH_AFTER, GRAPH_SLOTS, merge_linked
from teambrain_schema import BrainConfig
from teambrain_schema.ontology import STARTER_FILES

ROLLBACK, LEDGER, LUNCH, OLD = (
    "01KB2F0A1S9Y4Q7V3C8D5E6F11",
    "01KB2F0A1S9Y4Q7V3C8D5E6F12",
    "01KB2F0A1S9Y4Q7V3C8D5E6F13",
    "01KB2F0A1S9Y4Q7V3C8D5E6F14",
)
RECORDS = {
    "teams/payments.yaml": "nodeKind: team\nid: team:payments\nattributes: {title: Payments team}\n",
    "services/payments.yaml": (
        "nodeKind: service\nid: service:payments\nattributes:\n  title: Payments\n"
        "  owners: [team:payments]\n  paths: [src/payments/**]\nedges:\n"
        f"  depends_on: [service:ledger]\n  documented_by: [{ROLLBACK}, {OLD}]\n"
    ),
    "services/ledger.yaml": (
        "nodeKind: service\nid: service:ledger\nattributes: {title: Ledger, owners: team:payments}\n"
    ),
}


def _graph_brain(layout: BrainLayout, make_memory: Callable[..., Path]) -> None:
    (layout.root / "ontology").mkdir()
    for name, text in STARTER_FILES.items():
        (layout.root / "ontology" / name).write_text(text)
    for relpath, text in RECORDS.items():
        path = layout.root / "graph" / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    make_memory(
        "Roll back a bad release",
        "Run the rollback job, then watch the queues.",
        memory_id=ROLLBACK,
    )
    make_memory("Writes are idempotent by key", "Send the same key twice; the second is a no-op.",
                memory_id=LEDGER, tags=["service:ledger"])  # fmt: skip
    make_memory("Lunch menu", "Tacos on Thursdays.", memory_id=LUNCH)
    make_memory("Old rollback", "Call ops.", memory_id=OLD, retired=True)


def test_a_changed_path_brings_the_memories_of_its_service_and_what_it_depends_on(
    layout: BrainLayout,
    make_memory: Callable[..., Path],
    open_test_retriever: Callable[..., Retriever],
) -> None:
    _graph_brain(layout, make_memory)
    retriever = open_test_retriever(layout)
    pack = retriever.context(Situation(repo="repo", changed_paths=["src/payments/refunds.py"]))
    via = {hit.id: hit.provenance.via for hit in pack.relevant}
    assert via[ROLLBACK] == "via service payments → documented_by"
    assert via[LEDGER] == "via service payments → depends_on → service ledger → tag"
    assert LUNCH not in via and OLD not in via  # unlinked; retired
    assert all(
        hit.to_result().body.startswith(f"[team memory {hit.id} — ") for hit in pack.relevant
    )
    assert pack.to_result().relevant[0].provenance.via is not None
    # depth 1: only what the service itself links
    shallow = BrainConfig.model_validate({"retrieval": {"graph_depth": 1}})
    near = open_test_retriever(layout, config=shallow).context(
        Situation(repo="repo", changed_paths=["src/payments/refunds.py"])
    )
    assert [hit.id for hit in near.relevant] == [ROLLBACK]
    # 0 turns it off: nothing in the situation's words matches these memories
    off = BrainConfig.model_validate({"retrieval": {"graph_depth": 0}})
    none = open_test_retriever(layout, config=off).context(
        Situation(repo="repo", changed_paths=["src/payments/refunds.py"])
    )
    assert none.relevant == []


def test_a_query_naming_a_node_reaches_its_memories_below_direct_hits(
    layout: BrainLayout,
    make_memory: Callable[..., Path],
    open_test_retriever: Callable[..., Retriever],
) -> None:
    _graph_brain(layout, make_memory)
    make_memory("Ledger replay", "To replay the ledger, run replay with the day's key.")
    retriever = open_test_retriever(layout)
    hits = retriever.search("how do I replay the ledger", 5)
    ids = [hit.id for hit in hits]
    assert ids[0] not in (ROLLBACK, LEDGER)  # the direct hit leads
    assert hits[0].provenance.via is None
    linked = {hit.id: hit.provenance.via for hit in hits if hit.provenance.via}
    assert linked[LEDGER] == "via service ledger → tag"
    assert linked[ROLLBACK] == "via service ledger ← depends_on ← service payments → documented_by"
    assert retriever.search("lunch", 5)[0].id == LUNCH  # no node named: as before
    assert all(hit.provenance.via is None for hit in retriever.search("lunch", 5))


def test_a_brain_without_graph_answers_exactly_as_before(
    layout: BrainLayout,
    make_memory: Callable[..., Path],
    open_test_retriever: Callable[..., Retriever],
) -> None:
    make_memory("Roll back a bad release", "Run the rollback job.", memory_id=ROLLBACK)
    retriever = open_test_retriever(layout)
    assert [h.id for h in retriever.search("rollback job", 5)] == [ROLLBACK]
    assert retriever.answers.graph.linked(retriever.backend, ["src/x.py"], "rollback") == ([], {})


@given(
    st.lists(st.integers(0, 30), unique=True, max_size=12),
    st.lists(st.integers(0, 30), unique=True, max_size=12),
)
def test_merge_keeps_the_best_direct_hits_first_then_the_nearest_linked(
    direct: list[int], linked: list[int]
) -> None:
    merged = [r for r, _ in merge_linked([(r, 1.0) for r in direct], [(r, 0.5) for r in linked])]
    assert len(merged) == len(set(merged)) == len(set(direct) | set(linked))
    head = direct[:GRAPH_AFTER]
    assert merged[: len(head)] == head
    promoted = [r for r in linked if r not in head][:GRAPH_SLOTS]
    assert merged[len(head) : len(head) + len(promoted)] == promoted
    rest = merged[len(head) + len(promoted) :]
    others = [r for r in direct if r not in head and r not in promoted]
    assert rest[: len(others)] == others  # the other direct hits keep their order
    assert set(rest[len(others) :]) == set(linked) - set(direct) - set(promoted)
