"""``tb lint``'s rules over the graph: every record against the ontology, and the ontology itself.

One :class:`~teambrain_schema.lint.Violation` per problem, with the file and line: unknown node
and edge kinds, an edge between kinds its kind does not join, missing required fields, edges to
nodes or memories that do not exist, values outside the controlled vocabulary, duplicate ids,
cycles of an acyclic edge kind, path globs where none belong — and secrets and prompt
injections in a record's text, as in a memory's. Linear in the number of records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._violation import Violation, cycle_members
from .ids import is_ulid
from .ontology import MEMORY_TARGET, NodeKind, Ontology, kind_key

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout

    from .brain import Brain
    from .graph import Graph, GraphEdge, GraphRecord

__all__ = ["GraphLint", "check_record", "lint_graph", "lint_records", "record_relpath"]


class GraphLint:
    """What graph lint found, and how many files it read."""

    def __init__(self) -> None:
        self.violations: list[Violation] = []
        self.files_checked = 0

    def add(self, path: str, line: int, rule: str, message: str, severity: str = "error") -> None:

        self.violations.append(Violation(path, line, rule, message, severity))  # type: ignore[arg-type]


def _value_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _kind_names(kind: NodeKind) -> set[str]:
    return {kind_key(name) for name in (kind.name, *kind.aliases)}


def _allowed(ontology: Ontology, names: tuple[str, ...], kind: NodeKind | None) -> bool:
    """Whether a node of ``kind`` is among ``names`` (empty: any kind)."""
    if not names or kind is None:
        return True
    return any(name != MEMORY_TARGET and ontology.node_kind(name) is kind for name in names)


def _required_present(record: GraphRecord, field: str) -> bool:
    if field in ("id", "nodeKind"):
        return True  # parse_record refuses a record without them
    name = field.removeprefix("attributes.")
    value = record.attributes.get(name)
    return value not in (None, "", [])


def _check_paths(record: GraphRecord, kind: NodeKind | None, out: GraphLint) -> None:
    if "paths" not in record.attributes:
        return
    line = record.line("attributes.paths")
    if kind is not None and not kind.paths:
        out.add(record.relpath, line, "graph-paths",
                f"paths: nodes of kind {kind.name} do not cover paths (set paths: true on the kind)")  # fmt: skip
        return
    value = record.attributes["paths"]
    if not isinstance(value, (str, list)):
        out.add(record.relpath, line, "graph-paths", "paths: a glob or a list of globs")
        return
    for pattern in _value_list(value):
        if not isinstance(pattern, str) or not pattern.strip():
            out.add(record.relpath, line, "graph-paths", "paths: each glob is text")
            continue
        parts = pattern.replace("\\", "/").split("/")
        if pattern.startswith(("/", "~")) or ".." in parts or any(ord(c) < 0x20 for c in pattern):
            out.add(record.relpath, line, "graph-paths",
                    f"paths: {pattern!r} is not a glob relative to the repository")  # fmt: skip


def _check_record(
    record: GraphRecord,
    ontology: Ontology,
    graph: Graph,
    memories: Mapping[str, str],
    out: GraphLint,
) -> None:
    rules = ontology.rules
    kind = ontology.node_kind(record.node_kind)
    path = record.relpath
    if kind is None and ontology.present:
        known = ", ".join(sorted(ontology.node_kinds)) or "none"
        out.add(path, record.line("nodeKind"), "graph-kind",
                f"unknown node kind {record.node_kind!r} (node-kinds.yaml has: {known})")  # fmt: skip
    if kind is not None and rules.id_prefix_matches_kind:
        prefix, sep, rest = record.id.partition(":")
        if not sep or not rest or kind_key(prefix) not in _kind_names(kind):
            out.add(path, record.line("id"), "graph-id",
                    f"id {record.id!r} must start with its kind ({kind.name}:…)")  # fmt: skip
    required = [*rules.required_fields, *(kind.required if kind is not None else ())]
    for field in dict.fromkeys(required):
        if not _required_present(record, field):
            why = (
                f" (required for {kind.name})"
                if kind is not None and field in kind.required
                else ""
            )
            name = (
                field
                if field.startswith("attributes.") or field in ("id", "nodeKind")
                else f"attributes.{field}"
            )
            out.add(path, record.line("attributes"), "graph-required", f"missing {name}{why}")
    for attribute, value in record.attributes.items():
        vocabulary = ontology.vocabulary_for(attribute)
        if vocabulary is None:
            continue
        name, allowed = vocabulary
        for item in _value_list(value):
            if str(item) not in allowed:
                out.add(path, record.line(f"attributes.{attribute}"), "graph-vocabulary",
                        f"{attribute}: {item!r} is not in vocabulary {name} ({', '.join(allowed)})")  # fmt: skip
    _check_paths(record, kind, out)
    for attribute, target_kind in rules.reference_attributes.items():
        if attribute not in record.attributes:
            continue
        line = record.line(f"attributes.{attribute}")
        for target in _value_list(record.attributes[attribute]):
            if not isinstance(target, str):
                out.add(path, line, "graph-record", f"{attribute}: each value is a node id")
                continue
            node = graph.nodes.get(target)
            wanted = ontology.node_kind(target_kind)
            if node is None:
                out.add(path, line, "graph-dangling", f"{attribute}: no node {target!r}")
            elif wanted is not None and ontology.node_kind(node.node_kind) is not wanted:
                out.add(path, line, "graph-edge-kind",
                        f"{attribute}: {target!r} is a {node.node_kind}, not a {wanted.name}")  # fmt: skip
    for edge in record.edges:
        _check_edge(edge, kind, ontology=ontology, graph=graph, memories=memories, out=out)
    _scan_text(record.relpath, record.text, out)


def _check_edge(
    edge: GraphEdge,
    kind: NodeKind | None,
    *,
    ontology: Ontology,
    graph: Graph,
    memories: Mapping[str, str],
    out: GraphLint,
) -> None:
    path, line = edge.relpath, edge.line
    edge_kind = ontology.edge_kind(edge.kind)
    if edge_kind is None and ontology.present:
        known = ", ".join(sorted(ontology.edge_kinds)) or "none"
        out.add(path, line, "graph-edge-kind",
                f"unknown edge kind {edge.kind!r} (edge-kinds.yaml has: {known})")  # fmt: skip
    elif edge_kind is not None and not _allowed(ontology, edge_kind.sources, kind):
        out.add(path, line, "graph-edge-kind",
                f"{edge.kind} cannot leave a {kind.name if kind else '?'} node "
                f"(from: {', '.join(edge_kind.sources)})")  # fmt: skip
    if is_ulid(edge.target):
        state = memories.get(edge.target)
        if state is None:
            out.add(path, line, "graph-dangling", f"{edge.kind}: no memory {edge.target}")
        elif state == "retired":
            out.add(path, line, "graph-dangling",
                    f"{edge.kind}: memory {edge.target} is retired (link its successor)", "warning")  # fmt: skip
        if edge_kind is not None and not edge_kind.allows_memory():
            out.add(path, line, "graph-edge-kind",
                    f"{edge.kind} cannot point at a memory (to: {', '.join(edge_kind.targets)})")  # fmt: skip
        return
    target = graph.nodes.get(edge.target)
    if target is None:
        out.add(path, line, "graph-dangling", f"{edge.kind}: no node {edge.target!r}")
        return
    if edge_kind is not None and edge_kind.targets:
        target_kind = ontology.node_kind(target.node_kind)
        if target_kind is not None and not _allowed(ontology, edge_kind.targets, target_kind):
            out.add(path, line, "graph-edge-kind",
                    f"{edge.kind} cannot reach a {target_kind.name} node "
                    f"(to: {', '.join(edge_kind.targets)})")  # fmt: skip


def _scan_text(relpath: str, text: str, out: GraphLint) -> None:
    """Secrets and prompt injections in a record's text, as in a memory's body."""
    from teambrain_kit.injection import find_injections
    from teambrain_kit.secrets import find_secrets

    for finding in find_secrets(text):
        out.add(relpath, finding.line, "secret", f"{finding.rule} in record")
    for injection in find_injections(text):
        out.add(relpath, injection.line, "injection", f"{injection.rule}: {injection.excerpt!r}")


def _check_duplicates(records: Iterable[GraphRecord], out: GraphLint) -> None:
    first: dict[str, str] = {}
    for record in records:
        if record.id in first:
            out.add(record.relpath, record.line("id"), "graph-duplicate-id",
                    f"id {record.id} is also used by {first[record.id]}")  # fmt: skip
        else:
            first[record.id] = record.relpath


def _check_cycles(graph: Graph, ontology: Ontology, out: GraphLint) -> None:
    by_kind: dict[str, dict[str, list[str]]] = {}
    first_edge: dict[tuple[str, str], GraphEdge] = {}
    for edge in graph.edges:
        if edge.origin != "edge" or not ontology.is_acyclic(edge.kind) or edge.to_memory:
            continue
        if edge.target not in graph.nodes:
            continue
        adjacency = by_kind.setdefault(edge.kind, {})
        adjacency.setdefault(edge.source, []).append(edge.target)
        adjacency.setdefault(edge.target, [])
        first_edge.setdefault((edge.kind, edge.source), edge)
    for kind, adjacency in sorted(by_kind.items()):
        members = set(cycle_members(adjacency))
        for node_id in sorted(members):
            found: GraphEdge | None = next(
                (e for e in graph.out.get(node_id, []) if e.kind == kind and e.target in members),
                first_edge.get((kind, node_id)),
            )
            where = (found.relpath, found.line) if found else (graph.nodes[node_id].relpath, 1)
            out.add(*where, "graph-cycle", f"{kind} edges form a cycle through {node_id}")


def _check_memory_tags(
    brain: Brain | None, graph: Graph, ontology: Ontology, out: GraphLint
) -> None:
    """A memory tag spelled like a node id of a known kind (``service:paymnts``) that names no
    node: the link it was meant to make is not there (a warning)."""
    if brain is None or not graph.nodes:
        return
    for brain_file in brain.active:
        document = brain_file.document
        if document is None:
            continue
        for tag in document.front.tags:
            prefix, sep, rest = tag.partition(":")
            if sep and rest and tag not in graph.nodes and ontology.node_kind(prefix) is not None:
                out.add(brain_file.relpath, document.field_line("tags"), "graph-dangling",
                        f"tag {tag} names no node of the graph", "warning")  # fmt: skip


def lint_records(
    graph: Graph,
    ontology: Ontology,
    memories: Mapping[str, str],
    *,
    brain: Brain | None = None,
) -> GraphLint:
    """Lint ``graph``'s records against ``ontology`` (``memories``: memory id → ``active`` or
    ``retired``, for edges to memories). Linear in records and edges."""
    out = GraphLint()
    for relpath, problem in graph.problems:
        out.add(relpath, problem.line, problem.rule, problem.message)
    for found in ontology.problems:
        out.add(found.relpath, found.line, "ontology", found.message)
    for record in graph.records:
        _check_record(record, ontology, graph, memories, out)
    _check_duplicates(graph.records, out)
    _check_cycles(graph, ontology, out)
    _check_memory_tags(brain, graph, ontology, out)
    return out


def lint_graph(layout: BrainLayout, brain: Brain) -> GraphLint:
    """Every rule over the brain's records and ontology (nothing when it has neither)."""
    from .graph import graph_record_paths, load_graph
    from .ontology import ONTOLOGY_FILES, load_ontology

    ontology = load_ontology(layout)
    paths, _ = graph_record_paths(layout)
    if not ontology.present and not paths:
        out = GraphLint()
        folder = layout.root / "graph"
        if folder.is_symlink():  # a graph/ linked out of the brain, with nothing to read
            graph = load_graph(layout, reference_attributes={})
            for relpath, record_problem in graph.problems:
                out.add(relpath, record_problem.line, record_problem.rule, record_problem.message)
        return out
    graph = load_graph(layout, reference_attributes=ontology.rules.reference_attributes)
    memories: dict[str, str] = {}
    for brain_file in brain.files:
        if brain_file.document is not None:
            state = "retired" if brain_file.location == "retired" else "active"
            memories.setdefault(brain_file.document.front.id, state)
    if paths and not ontology.present:
        graph_folder = layout.relative(layout.root / "graph")
        ontology = Ontology(present=False)
        out = lint_records(graph, ontology, memories, brain=brain)
        out.add(graph_folder, 1, "ontology",
                "graph records but no ontology/: run `tb init` to write the starter ontology")  # fmt: skip
    else:
        out = lint_records(graph, ontology, memories, brain=brain)
    out.files_checked = len(paths) + (len(ONTOLOGY_FILES) if ontology.present else 0)
    return out


def record_relpath(graph: Graph, node_id: str, node_kind: str, layout: BrainLayout) -> str:
    """Where a proposed record of ``node_id`` goes: the file of the record with that id when
    there is one (a change), else ``graph/<kind>s/<name>.yaml`` (a new file, never another
    record's)."""
    import re

    existing = graph.nodes.get(node_id)
    if existing is not None:
        return existing.relpath
    folder = re.sub(r"[^a-z0-9]+", "-", node_kind.lower()).strip("-") or "nodes"
    folder = (
        folder
        if folder.endswith("s")
        else (folder[:-1] + "ies" if folder.endswith("y") else folder + "s")
    )
    name = node_id.partition(":")[2] or node_id
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80] or "node"
    taken = {record.relpath for record in graph.records}
    base = f"{layout.relative(layout.root / 'graph')}/{folder}/{stem}"
    relpath, number = f"{base}.yaml", 2
    while relpath in taken or (layout.repo_root / relpath).exists():
        relpath, number = f"{base}-{number}.yaml", number + 1
    return relpath


def check_record(
    layout: BrainLayout, text: str, *, relpath: str | None = None
) -> tuple[str, list[Violation]]:
    """Where the record ``text`` would be written in the brain at ``layout`` and the problems
    it would bring — its own, and any the graph would have with it that it has not now (a
    cycle it closes, an id it duplicates) — against the brain's ontology. Nothing is written."""
    from .brain import load_brain
    from .graph import Graph, load_graph, parse_record
    from .ontology import load_ontology

    ontology = load_ontology(layout)
    graph = load_graph(layout, reference_attributes=ontology.rules.reference_attributes)
    first = parse_record(relpath or f"{layout.relative(layout.root / 'graph')}/new.yaml", text)
    if first.record is None:
        out = GraphLint()
        for problem in first.problems:
            out.add(first.relpath, problem.line, problem.rule, problem.message)
        return first.relpath, out.violations
    where = relpath or record_relpath(graph, first.record.id, first.record.node_kind, layout)
    parsed = parse_record(where, text)
    assert parsed.record is not None
    brain = load_brain(layout)
    memories: dict[str, str] = {}
    for brain_file in brain.files:
        if brain_file.document is not None:
            memories.setdefault(
                brain_file.document.front.id,
                "retired" if brain_file.location == "retired" else "active",
            )
    refs = ontology.rules.reference_attributes
    before = {v.format() for v in lint_records(graph, ontology, memories).violations}
    others = [r for r in graph.records if r.relpath != where and r.id != parsed.record.id]
    after = Graph([*others, parsed.record], reference_attributes=refs)
    found = lint_records(after, ontology, memories)
    if not ontology.present:
        found.add(
            where,
            1,
            "ontology",
            "the brain has no ontology/: run `tb init` to write the starter ontology",
        )
    own = [v for v in found.violations if v.format() not in before]
    for problem in parsed.problems:
        lines = {(v.line, v.rule) for v in own if v.path == where}
        if (problem.line, problem.rule) not in lines:
            out = GraphLint()
            out.add(where, problem.line, problem.rule, problem.message)
            own.extend(out.violations)
    return where, sorted(own, key=lambda v: (v.path != where, v.path, v.line, v.rule))
