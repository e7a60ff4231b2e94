"""Graph records: both edge forms, line numbers, bounded reads, and walking the graph."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_schema.graph import (
    Graph,
    RecordCache,
    load_graph,
    node_label,
    parse_record,
    path_covered,
)
from teambrain_schema.paths import BrainLayout

M1, M2, M3 = (
    "01JDQ8M6Z1V5K7G3X9T2B4N8RA",
    "01JDQ8M6Z1V5K7G3X9T2B4N8RB",
    "01JDQ8M6Z1V5K7G3X9T2B4N8RC",
)

PAYMENTS = f"""\
nodeKind: service
id: service:payments
attributes:
  title: Payments
  owners: [team:payments]
  paths: [src/payments/**]
edges:
  depends_on: [service:ledger]
  documented_by: {M1}
"""

LEDGER_LIST_FORM = """\
nodeKind: service
id: service:ledger
attributes: {title: Ledger, owners: team:payments}
edges:
  - kind: documented_by
    to: runbook:ledger-replay
  - {edgeKind: depends_on, target: service:db}
  - depends_on: service:auth
"""


def _record(text: str, relpath: str = ".teambrain/graph/x.yaml"):
    parsed = parse_record(relpath, text)
    assert parsed.record is not None, parsed.problems
    return parsed.record


def test_object_map_edges_with_their_lines() -> None:
    record = _record(PAYMENTS)
    assert (record.node_kind, record.id, record.title) == (
        "service",
        "service:payments",
        "Payments",
    )
    assert [(e.kind, e.target, e.line) for e in record.edges] == [
        ("depends_on", "service:ledger", 8),
        ("documented_by", M1, 9),
    ]
    assert record.paths == ("src/payments/**",)
    assert record.line("attributes.owners") == 5 and record.line("id") == 2


def test_list_form_edges_all_three_spellings() -> None:
    record = _record(LEDGER_LIST_FORM)
    assert [(e.kind, e.target, e.line) for e in record.edges] == [
        ("documented_by", "runbook:ledger-replay", 5),
        ("depends_on", "service:db", 7),
        ("depends_on", "service:auth", 8),
    ]


@pytest.mark.parametrize(
    ("text", "rule", "line"),
    [
        ("nodeKind: service\n", "graph-required", 1),
        ("id: service:x\n", "graph-required", 1),
        ("nodeKind: service\nid: 'has space'\n", "graph-id", 2),
        (f"nodeKind: service\nid: {M1}\n", "graph-id", 2),
        ("- a\n- b\n", "graph-record", 1),
        ("nodeKind: [a\n", "graph-record", 2),
        ("nodeKind: service\nid: s:x\nowner: me\n", "graph-record", 3),
        ("nodeKind: service\nid: s:x\nedges: 3\n", "graph-record", 3),
        ("nodeKind: service\nid: s:x\nedges:\n  - kind: a\n", "graph-record", 4),
        ("nodeKind: service\nid: s:x\nedges:\n  - {kind: a, to: b, via: c}\n", "graph-record", 4),
        ("nodeKind: service\nid: s:x\nedges:\n  owns: [1]\n", "graph-record", 4),
        ("nodeKind: service\nid: s:x\nattributes: [1]\n", "graph-record", 3),
        ("nodeKind: service\nid: &a s:x\n", "graph-record", 2),
    ],
)
def test_problems_name_their_line(text: str, rule: str, line: int) -> None:
    parsed = parse_record(".teambrain/graph/x.yaml", text)
    assert [(p.rule, p.line) for p in parsed.problems][:1] == [(rule, line)]


_yaml_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=12),
    st.sampled_from(["service:a", M1, "01", "a b", "*x", "&y", "!tag", "[", "{"]),
)  # fmt: skip
_yaml_values = st.recursive(
    _yaml_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["nodeKind", "id", "attributes", "edges", "other"]),
        _yaml_values,
        max_size=5,
    )
)
def test_any_mapping_parses_without_raising(data: dict[str, object]) -> None:
    from teambrain_schema.yaml import dump_yaml

    try:
        text = dump_yaml(data)
    except Exception:  # values ruamel cannot write are not our input
        return
    parsed = parse_record(".teambrain/graph/x.yaml", text)
    assert parsed.record is not None or parsed.problems
    for problem in parsed.problems:
        assert problem.line >= 1 and "\n" not in problem.message


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_parses_without_raising(text: str) -> None:
    parsed = parse_record(".teambrain/graph/x.yaml", text)
    assert parsed.record is not None or parsed.problems


def _graph() -> Graph:
    team = _record("nodeKind: team\nid: team:payments\nattributes: {title: Payments team}\n")
    ledger = _record(LEDGER_LIST_FORM)
    runbook = _record(
        "nodeKind: runbook\nid: runbook:ledger-replay\nattributes: {title: Replay the ledger}\n"
    )
    graph = Graph(
        [_record(PAYMENTS), ledger, team, runbook], reference_attributes={"owners": "team"}
    )
    graph.link_memories({M2: ["runbook:ledger-replay"], M3: ["team:payments", "unrelated"]})
    return graph


def test_routes_follow_edges_within_the_depth_and_say_how() -> None:
    graph = _graph()
    one = graph.reach_memories([("service:payments", "path")], depth=1)
    assert {m: r.describe() for m, r in one.items()} == {
        M1: "via service payments → documented_by",
    }
    two = graph.reach_memories([("service:payments", "path")], depth=2)
    assert {m: r.describe() for m, r in two.items()} == {
        M1: "via service payments → documented_by",
        M3: "via service payments → owners → team payments → tag",
    }
    three = graph.reach_memories([("service:payments", "path")], depth=3)
    assert three[M2].describe() == (
        "via service payments → depends_on → service ledger → documented_by → "
        "runbook ledger-replay → tag"
    )
    assert three[M2].depth == 3 and three[M2].nodes == (
        "service:payments", "service:ledger", "runbook:ledger-replay",
    )  # fmt: skip
    assert graph.reach_memories([("service:payments", "p")], depth=0) == {}
    assert graph.reach_memories([("no:such", "p")], depth=3) == {}


def test_walking_backwards_says_so() -> None:
    graph = _graph()
    routes = graph.reach_memories([("team:payments", "named")], depth=2)
    assert routes[M1].describe() == "via team payments ← owners ← service payments → documented_by"


def test_nodes_for_paths_and_names() -> None:
    graph = _graph()
    assert graph.nodes_for_paths(["src/payments/refunds/api.py"]) == [
        ("service:payments", "src/payments/refunds/api.py")
    ]
    assert graph.nodes_for_paths(["src/other.py"]) == []
    named = graph.nodes_named_in("How do I replay the ledger after payments failed?")
    assert [node for node, _ in named] == [
        "runbook:ledger-replay",
        "service:ledger",
        "service:payments",
        "team:payments",
    ]
    assert graph.nodes_named_in("service:ledger is slow")[0] == ("service:ledger", "service ledger")
    assert graph.nodes_named_in("ledgers everywhere") == []


@pytest.mark.parametrize(
    ("pattern", "path", "covered"),
    [
        ("src/payments/**", "src/payments/a.py", True),
        ("src/payments/**", "src/payments", True),
        ("src/payments/**", "src/payments/sub/**", True),
        ("src/payments/**", "src/paymentsx/a.py", False),
        ("src/payments/", "src/payments/a.py", True),
        ("src/payments", "src/payments", True),
        ("services/*/payments.py", "services/eu/payments.py", True),
        ("**", "anything/at/all.py", True),
        ("../**", "x.py", False),
    ],
)
def test_path_covered(pattern: str, path: str, covered: bool) -> None:
    assert path_covered(pattern, path) is covered


def test_node_label() -> None:
    assert node_label("service:payments") == "service payments"
    assert node_label("payments", "Service") == "service payments"


def _brain(tmp_path: Path) -> BrainLayout:
    (tmp_path / ".git").mkdir()
    layout = BrainLayout(tmp_path)
    (layout.root / "graph" / "services").mkdir(parents=True)
    return layout


def test_load_graph_reads_records_and_refuses_what_memory_files_refuse(tmp_path: Path) -> None:
    layout = _brain(tmp_path)
    (layout.root / "graph" / "services" / "payments.yaml").write_text(PAYMENTS)
    (layout.root / "graph" / "README.md").write_text("not a record")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.yaml"
    outside.write_text(LEDGER_LIST_FORM)
    (layout.root / "graph" / "services" / "ledger.yaml").symlink_to(outside)
    os.mkfifo(layout.root / "graph" / "services" / "fifo.yaml")
    graph = load_graph(layout, reference_attributes={})
    assert list(graph.nodes) == ["service:payments"]
    rules = sorted((relpath.rsplit("/", 1)[-1], p.rule) for relpath, p in graph.problems)
    assert rules == [("fifo.yaml", "read"), ("ledger.yaml", "symlink")]


def test_a_graph_folder_linked_out_of_the_brain_is_not_walked(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    layout = BrainLayout(tmp_path)
    layout.root.mkdir()
    away = tmp_path.parent / f"{tmp_path.name}-away"
    away.mkdir()
    (away / "x.yaml").write_text(PAYMENTS)
    (layout.root / "graph").symlink_to(away)
    graph = load_graph(layout, reference_attributes={})
    assert graph.nodes == {}
    assert [p.rule for _, p in graph.problems] == ["symlink"]


def test_the_cache_parses_a_file_again_only_when_it_changed(tmp_path: Path) -> None:
    layout = _brain(tmp_path)
    path = layout.root / "graph" / "services" / "payments.yaml"
    path.write_text(PAYMENTS)
    cache = RecordCache()
    first = load_graph(layout, reference_attributes={}, cache=cache)
    again = load_graph(layout, reference_attributes={}, cache=cache)
    assert again.nodes["service:payments"] is first.nodes["service:payments"]
    path.write_text(PAYMENTS.replace("title: Payments", "title: Payments API"))
    changed = load_graph(layout, reference_attributes={}, cache=cache)
    assert changed.nodes["service:payments"].title == "Payments API"


_plain_pool = st.sampled_from(
    ["service:payments", "team:a", "src/payments/**", "01KB2F0A1S9Y4Q7V3C8D5E6F04", "Payments",
     "Payments team", "'quoted text'", "sev1", "active"]
)  # fmt: skip
_tricky_pool = st.sampled_from(
    ["yes", "no", "null", "~", "12", "012", "1.5", "2026-01-02", "a b", "a: b", "a #c", "*x",
     "&y", "!t", "'q'", '"d"', "'it''s'", '"a\\"b"', "[x]", "{x: 1}", "a,b", "-", "- x", "?",
     "x:", ":x", "@x", "`x`", "|", ">", "%x", "a\tb", "\u00e9t\u00e9", "x*", "./a", ".hidden"]
)  # fmt: skip
_scalar_text = st.one_of(*[_plain_pool] * 5, _tricky_pool)
_list_text = st.lists(_scalar_text, max_size=3).map(lambda items: "[" + ", ".join(items) + "]")
_value_text = st.one_of(_scalar_text, _list_text, _list_text, st.just(""))


def _children(keys: list[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(
        st.tuples(st.sampled_from(keys), _value_text), max_size=4, unique_by=lambda kv: kv[0]
    ).map(lambda pairs: [f"  {k}: {v}".rstrip() for k, v in pairs])


_group = st.one_of(
    st.tuples(st.sampled_from(["nodeKind", "id", "extra"]), _value_text).map(
        lambda kv: (kv[0], [f"{kv[0]}: {kv[1]}".rstrip()])
    ),
    _children(["title", "owners", "paths", "status", "1"]).map(
        lambda lines: ("attributes", ["attributes:", *lines])
    ),
    _children(["depends_on", "owns", "documented_by", "to"]).map(
        lambda lines: ("edges", ["edges:", *lines])
    ),
    st.sampled_from(
        [
            ("#", ["# comment"]),
            ("-", ["  - kind: a"]),
            ("edges", ["edges:", "  - kind: a", "    to: b"]),
            ("", [""]),
        ]
    ),
)
_record_text = st.tuples(
    st.sampled_from(["nodeKind: service\nid: service:x\n", "nodeKind: team\nid: team:y\n", ""]),
    st.lists(
        _group.filter(lambda g: g[0] not in ("nodeKind", "id")),
        max_size=5,
        unique_by=lambda g: g[0],
    ),
).map(lambda t: t[0] + "".join(line + "\n" for _, lines in t[1] for line in lines))


@settings(max_examples=600, deadline=None)
@given(_record_text)
def test_the_fast_reader_reads_a_record_as_ruamel_does(text: str) -> None:
    fast = parse_record(".teambrain/graph/x.yaml", text)
    slow = parse_record(".teambrain/graph/x.yaml", text, fast=False)
    assert fast == slow


def test_the_fast_reader_takes_the_plain_shape_and_leaves_the_rest() -> None:
    from teambrain_schema._fastrecords import record_mapping

    assert record_mapping(PAYMENTS) is not None
    assert record_mapping(LEDGER_LIST_FORM) is None  # a block list: ruamel's
    assert record_mapping("nodeKind: service # a comment\nid: s:x\n") is None
    assert record_mapping("nodeKind: service\nid: &a s:x\n") is None
