"""Context that follows the edges: from what a situation or a query touches to the memories
linked to it in the brain's graph (docs/graph.md#context-that-follows-the-edges).

A session's changed paths touch the nodes whose path globs cover them (a repository, a
service); a query touches the nodes it names (``service:payments``, ``payments``, a title).
From those nodes the walk follows edges either way, up to ``retrieval.graph_depth`` edges (2 by
default), to the memories linked to the nodes it passes: by an edge of their records
(``documented_by: <memory id>``) or by the memory's own tag naming the node. Each memory comes
with the route that reached it, said as ``via service payments → depends_on → service ledger →
tag``.

This module only answers "which memories, by which route"; :func:`merge_linked` decides where
they go among the direct hits: a memory the graph leads to ranks below the best direct hits
(:data:`GRAPH_AFTER`), the nearest first, at most :data:`GRAPH_SLOTS` of them there (one a
direct search ranked lower is moved up to its slot); the rest keep their direct place, or come
after every direct hit — all inside the same token budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._index._store import ids_in

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema.graph import Graph, Route

    from .._index._refresher import BrainSource
    from ._backend import SqliteBackend
    from ._policy import OrgPolicies

# Where memories reached only through the graph go among the direct hits: after the first
# GRAPH_AFTER direct hits, at most GRAPH_SLOTS of them (nearest first); the rest after every
# direct hit. Measured in benchmarks/bench_graph.py (docs/graph.md has the numbers).
GRAPH_AFTER = 2
GRAPH_SLOTS = 6
MAX_SEEDS = 12


@dataclass(frozen=True)
class Linked:
    """A memory reached through the graph: its id, the route, and the seed's reason (the
    path it covers, or the words that name it)."""

    memory_id: str
    route: Route
    via: str


class GraphLinks:
    """The graph of one brain, re-read only when a record file changed (a long-lived server
    pays for parsing once), joined with the memories that name nodes in their tags."""

    def __init__(
        self, layout: BrainLayout, allow_kind: Callable[[str], bool] | None = None
    ) -> None:
        from teambrain_schema.graph import RecordCache

        self.layout = layout
        # Which node kinds may be walked (an org brain's read policy); None: every kind.
        self.allow_kind = allow_kind
        self._cache = RecordCache()
        self._graph: Graph | None = None
        self._key: tuple[object, ...] | None = None

    def graph(self, tagged: Callable[[], dict[str, list[str]]]) -> Graph | None:
        """The graph with the memories ``tagged()`` gives (memory id → tags) linked; None
        without records (``tagged`` is then never called)."""
        from teambrain_schema.graph import Graph, graph_record_paths, load_graph
        from teambrain_schema.ontology import load_ontology

        paths, _ = graph_record_paths(self.layout)
        if not paths:
            return None
        stamps = []
        for path in paths:
            try:
                info = path.stat()
            except OSError:
                continue
            stamps.append((str(path), info.st_mtime_ns, info.st_size))
        tags = tagged()
        key = (tuple(stamps), json.dumps(tags, sort_keys=True))
        if self._graph is None or key != self._key:
            refs = load_ontology(self.layout).rules.reference_attributes
            graph = load_graph(self.layout, reference_attributes=refs, cache=self._cache)
            if self.allow_kind is not None:
                allowed = [r for r in graph.records if self.allow_kind(r.node_kind)]
                graph = Graph(allowed, reference_attributes=refs, problems=graph.problems)
            graph.link_memories(tags)
            self._graph, self._key = graph, key
        return self._graph

    def expand(
        self,
        tagged: Callable[[], dict[str, list[str]]],
        *,
        paths: Sequence[str] = (),
        text: str | None = None,
        depth: int = 2,
    ) -> list[Linked]:
        """The memories reached from the nodes ``paths`` cover and ``text`` names, within
        ``depth`` edges: nearest first, then in the order of the seeds (paths first, the more
        specific glob first; then names, longer first)."""
        if depth <= 0:
            return []
        graph = self.graph(tagged)
        if graph is None:
            return []
        seeds: list[tuple[str, str]] = []
        for node_id, path in graph.nodes_for_paths(paths):
            seeds.append((node_id, f"path {path}"))
        if text:
            seeds.extend(
                (node_id, f"named {words!r}") for node_id, words in graph.nodes_named_in(text)
            )
        unique: dict[str, str] = {}
        for node_id, why in seeds:
            unique.setdefault(node_id, why)
        routes = graph.reach_memories(list(unique.items())[:MAX_SEEDS], depth)
        kinds = graph.kinds()
        ordered = sorted(routes.items(), key=lambda item: item[1].depth)
        return [Linked(memory_id, route, route.describe(kinds)) for memory_id, route in ordered]


class GraphWalk:
    """The graphs one retriever follows: its own brain's (``layout``: the checkout's, also when a
    live view serves its memories), then the org brain's of each of ``sources`` after the first,
    as its read policy allows (none under ``reads_nothing`` or ``grep-only``; only the node kinds
    it allows), read on first use, up to ``depth`` edges (``retrieval.graph_depth``)."""

    def __init__(
        self,
        layout: BrainLayout,
        sources: Sequence[BrainSource],
        policies: OrgPolicies,
        depth: int,
    ) -> None:
        self.layout = layout
        self.sources = list(sources)
        self.policies = policies
        self.depth = depth
        self._links: list[GraphLinks] | None = None

    def _graphs(self) -> list[GraphLinks]:
        if self._links is None:
            self._links = [GraphLinks(self.layout)]
            for source in self.sources[1:]:  # an org brain's graph, as its policy allows
                policy = self.policies.policies.get(source.brain_id)
                if policy is not None and (
                    policy.reads_nothing or policy.query_mode == "grep-only"
                ):
                    continue
                allow = policy.allows_kind if policy is not None else None
                self._links.append(GraphLinks(source.layout, allow))
        return self._links

    def linked(
        self, backend: SqliteBackend, paths: Sequence[str], text: str | None
    ) -> tuple[list[tuple[int, float]], dict[str, str]]:
        """The rows the graph leads to from the nodes ``paths`` cover and ``text`` names,
        nearest first, and each memory's route (``via …``). Nothing when the brain has no
        graph records or the depth is 0."""
        if self.depth <= 0:
            return [], {}
        found = []
        for links in self._graphs():
            found += links.expand(
                lambda: tagged_memories(backend), paths=paths, text=text, depth=self.depth
            )
        found.sort(key=lambda link: link.route.depth)  # stable: this brain's first at each depth
        rows = live_rowids(backend, [link.memory_id for link in found])
        kept, seen = [], set()
        for link in found:  # a memory two graphs reach: its first (nearest) route
            if link.memory_id in rows and link.memory_id not in seen:
                seen.add(link.memory_id)
                kept.append(link)
        ranked = [(rows[link.memory_id], 1.0 / (1 + link.route.depth)) for link in kept]
        return ranked, {link.memory_id: link.via for link in kept}


def tagged_memories(backend: SqliteBackend) -> dict[str, list[str]]:
    """Live memories whose tags could name a node (they hold a ``:``), by id: the side of the
    links the memories keep. One query over the served brains."""
    found: dict[str, list[str]] = {}
    for memory_id, tags in backend.store.tagged_memories():
        found.setdefault(str(memory_id), [t for t in str(tags).split() if ":" in t])
    return found


def live_rowids(backend: SqliteBackend, memory_ids: Sequence[str]) -> dict[str, int]:
    """The served row of each memory id (live memories only: retired, superseded, expired or
    out-of-scope ones are never reached through the graph either)."""
    if not memory_ids:
        return {}
    docs = backend.live_docs(*ids_in(memory_ids), sources=["memory"])
    found: dict[str, int] = {}
    for doc in docs:
        found.setdefault(doc.id, doc.rowid)
    return found


def merge_linked(
    direct: Sequence[tuple[int, float]],
    linked: Sequence[tuple[int, float]],
    *,
    after: int = GRAPH_AFTER,
    slots: int = GRAPH_SLOTS,
) -> list[tuple[int, float]]:
    """``direct`` (best first) with ``linked`` (nearest first) placed: the first ``after``
    direct hits stay first; then the first ``slots`` linked rows not among them — moved up if a
    direct search ranked them lower; then the other direct hits in their order; then the
    remaining linked rows no direct search found."""
    head = list(direct[:after])
    taken = {rowid for rowid, _ in head}
    promoted = [(rowid, score) for rowid, score in linked if rowid not in taken][:slots]
    taken.update(rowid for rowid, _ in promoted)
    rest = [(rowid, score) for rowid, score in direct[after:] if rowid not in taken]
    taken.update(rowid for rowid, _ in rest)
    leftover = [(rowid, score) for rowid, score in linked if rowid not in taken]
    return [*head, *promoted, *rest, *leftover]


def fuse_linked(
    direct: Sequence[tuple[int, float]],
    linked: Sequence[tuple[int, float]],
    *,
    offset: int = GRAPH_AFTER,
    k: int = 60,
) -> list[tuple[int, float]]:
    """``direct`` and ``linked`` fused by reciprocal rank, the graph's ranking starting
    ``offset`` places down: a memory at position p of ``direct`` scores 1/(k+p), one at
    position q of ``linked`` 1/(k+offset+q), and a memory in both the sum — so the graph's
    nearest memory ranks below the best ``offset`` direct hits, and a direct hit the graph also
    leads to moves up."""
    scores: dict[int, float] = {}
    for position, (rowid, _) in enumerate(direct, start=1):
        scores.setdefault(rowid, 1.0 / (k + position))
    for position, (rowid, _) in enumerate(linked, start=1):
        scores[rowid] = scores.get(rowid, 0.0) + 1.0 / (k + offset + position)
    order = {rowid: index for index, rowid in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))
