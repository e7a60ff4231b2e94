"""The brain's graph as people browse it: ``tb graph``, the nodes ``tb show`` lists for a memory,
and the neighbourhood ``tb ui`` draws (docs/graph.md)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from teambrain_schema import UserError

if TYPE_CHECKING:
    from teambrain_schema.brain import Brain
    from teambrain_schema.graph import Graph, GraphRecord, Route
    from teambrain_schema.paths import BrainLayout

MAX_BROWSE_DEPTH = 4


@dataclass(frozen=True)
class MemoryInfo:
    """What the graph view says of a memory: its title and whether it is live."""

    id: str
    title: str
    status: str
    path: str


@dataclass
class BrainGraph:
    """A brain's graph with its memories linked (by edges and by tags), for browsing."""

    layout: BrainLayout
    graph: Graph
    memories: dict[str, MemoryInfo] = field(default_factory=dict)


def load_brain_graph(layout: BrainLayout, brain: Brain | None = None) -> BrainGraph:
    """The graph of ``layout``'s brain and its memories (``brain``: already loaded)."""
    from teambrain_schema.brain import load_brain
    from teambrain_schema.graph import load_graph
    from teambrain_schema.ontology import load_ontology

    ontology = load_ontology(layout)
    graph = load_graph(layout, reference_attributes=ontology.rules.reference_attributes)
    brain = brain if brain is not None else load_brain(layout)
    memories: dict[str, MemoryInfo] = {}
    tags: dict[str, list[str]] = {}
    for brain_file in brain.files:
        document = brain_file.document
        if document is None:
            continue
        front = document.front
        status = "retired" if brain_file.location == "retired" else front.status
        memories.setdefault(front.id, MemoryInfo(front.id, front.title, status, brain_file.relpath))
        if status == "active":
            tags[front.id] = list(front.tags)
    graph.link_memories(tags, {m: info.path for m, info in memories.items()})
    return BrainGraph(layout, graph, memories)


@dataclass(frozen=True)
class Neighbour:
    """A node or memory near the one shown: how far, and the route to it."""

    id: str
    type: str  # "node" or "memory"
    kind: str | None
    title: str
    depth: int
    via: str
    path: str | None
    status: str | None = None
    hops: tuple[tuple[str, bool, str], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id, "type": self.type, "kind": self.kind, "title": self.title,
            "depth": self.depth, "via": self.via, "path": self.path, "status": self.status,
            "route": [{"edge": e, "forward": f, "to": n} for e, f, n in self.hops],
        }  # fmt: skip


@dataclass(frozen=True)
class NodeView:
    """One node: its record, and its neighbourhood to a depth."""

    record: GraphRecord
    depth: int
    neighbours: tuple[Neighbour, ...]

    def to_json(self) -> dict[str, object]:
        record = self.record
        return {
            "node": {
                "id": record.id, "kind": record.node_kind, "title": record.title,
                "attributes": record.attributes, "path": record.relpath,
                "line": record.line("id"),
            },
            "depth": self.depth,
            "neighbours": [n.to_json() for n in self.neighbours],
        }  # fmt: skip


def find_node(bg: BrainGraph, given: str) -> str:
    """The node ``given`` names: its id, or a name (the part after the id's prefix, or the
    title) that exactly one node has. A user error saying what is near otherwise."""
    nodes = bg.graph.nodes
    wanted = given.strip()
    if wanted in nodes:
        return wanted
    lowered = wanted.lower()
    named = [
        node_id for node_id, record in nodes.items()
        if node_id.lower() == lowered or node_id.partition(":")[2].lower() == lowered
        or record.title.lower() == lowered
    ]  # fmt: skip
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        raise UserError(
            f"{given!r} names {len(named)} nodes: {', '.join(sorted(named))}; give the id"
        )
    if not nodes:
        raise UserError(
            f"no node {given!r}: this brain has no graph records yet (.teambrain/graph/; `tb help graph-guide`)"
        )
    spellings: dict[str, list[str]] = {}
    for node_id in nodes:
        for spelling in (node_id, node_id.partition(":")[2]):
            if spelling:
                spellings.setdefault(spelling.lower(), []).append(node_id)
    close = difflib.get_close_matches(lowered, list(spellings), n=3, cutoff=0.7)
    near = list(dict.fromkeys(node_id for spelling in close for node_id in spellings[spelling]))[:3]
    hint = f" (did you mean {', '.join(near)}?)" if near else " (`tb graph` lists the nodes)"
    raise UserError(f"no node {given!r}{hint}")


def _neighbour(bg: BrainGraph, target: str, route: Route) -> Neighbour:
    hops = tuple((hop.edge, hop.forward, hop.node) for hop in route.hops)
    record = bg.graph.nodes.get(target)
    kinds = bg.graph.kinds()
    if record is not None:
        return Neighbour(target, "node", record.node_kind, record.title, route.depth,
                         route.describe(kinds), record.relpath, hops=hops)  # fmt: skip
    memory = bg.memories.get(target)
    return Neighbour(
        target, "memory", None, memory.title if memory else "(not in this brain)", route.depth,
        route.describe(kinds), memory.path if memory else None,
        memory.status if memory else None, hops,
    )  # fmt: skip


def node_view(bg: BrainGraph, given: str, depth: int = 1) -> NodeView:
    """The node ``given`` names (see :func:`find_node`) and what lies within ``depth`` edges."""
    if not 0 <= depth <= MAX_BROWSE_DEPTH:
        raise UserError(f"--depth must be between 0 and {MAX_BROWSE_DEPTH}, not {depth}")
    node_id = find_node(bg, given)
    around = bg.graph.neighbourhood(node_id, depth)
    return NodeView(bg.graph.nodes[node_id], depth, tuple(_neighbour(bg, t, r) for t, r in around))


@dataclass(frozen=True)
class NodeLink:
    """A node a memory is linked to, and by what: an edge kind of the node's record, or
    ``tag`` (the memory's tag names the node)."""

    id: str
    kind: str
    title: str
    edge: str
    path: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "kind": self.kind, "title": self.title, "edge": self.edge, "path": self.path}  # fmt: skip


def memory_nodes(layout: BrainLayout, memory_id: str, tags: list[str]) -> tuple[NodeLink, ...]:
    """The nodes memory ``memory_id`` (with ``tags``) is linked to, in record order; nothing
    when the brain has no graph. Only the records are read."""
    from teambrain_schema.graph import graph_record_paths, load_graph

    paths, _ = graph_record_paths(layout)
    if not paths:
        return ()
    graph = load_graph(layout, reference_attributes={})
    graph.link_memories({memory_id: tags})
    links = []
    for edge in graph.nodes_of_memory(memory_id):
        record = graph.nodes[edge.source]
        links.append(NodeLink(record.id, record.node_kind, record.title, edge.kind, record.relpath))
    return tuple(links)


def list_nodes(bg: BrainGraph) -> list[GraphRecord]:
    """Every node, by kind then id."""
    return sorted(bg.graph.nodes.values(), key=lambda r: (r.node_kind.lower(), r.id))
