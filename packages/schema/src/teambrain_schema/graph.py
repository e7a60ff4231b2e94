"""The brain as a typed graph: records under ``.teambrain/graph/**/*.yaml`` (docs/graph.md).

A record is one YAML mapping in the company-brain shape::

    nodeKind: service
    id: service:payments
    attributes:
      title: Payments
      owners: [team:payments]          # a reference attribute: an edge too
      paths: [src/payments/**]         # the code it covers (kinds with paths: true)
    edges:                             # object-map form: edge kind -> target(s)
      depends_on: [service:ledger]
      documented_by: 01KB2F0A1S9Y4Q7V3C8D5E6F04   # a memory id

or with ``edges`` as a list: ``- {kind: depends_on, to: service:ledger}``. Memories link to
nodes from their side through their existing ``tags``: a tag equal to a node id
(``service:payments``) is an edge ``tag`` from that node to the memory. The memory file schema
does not change.

Parsing never raises on content (a :class:`RecordProblem` says what is wrong, with its line);
the ontology is judged by :mod:`teambrain_schema.graph_lint`. :class:`Graph` answers what
retrieval and ``tb graph`` ask: which nodes cover a path or are named in a text, and which
memories are reached from them within a number of edges, by which route.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .ids import is_ulid

if TYPE_CHECKING:
    from pathlib import Path

    from .paths import BrainLayout

__all__ = [
    "DEFAULT_DEPTH",
    "MAX_DEPTH",
    "MAX_RECORD_BYTES",
    "NODE_ID_PATTERN",
    "TAG_EDGE",
    "Graph",
    "GraphEdge",
    "GraphRecord",
    "Hop",
    "RecordCache",
    "RecordProblem",
    "Route",
    "graph_record_paths",
    "load_graph",
    "node_label",
    "parse_record",
]

MAX_RECORD_BYTES = 64 * 1024
DEFAULT_DEPTH = 2
MAX_DEPTH = 4
TAG_EDGE = "tag"  # a memory's tag naming a node: an edge from that node to the memory
RECORD_KEYS = ("nodeKind", "id", "attributes", "edges")
NODE_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:/@+\-]{0,127}"
_NODE_ID = re.compile(NODE_ID_PATTERN)
_EDGE_KIND_KEYS = ("kind", "edgeKind", "type")
_EDGE_TARGET_KEYS = ("to", "target")
RECORD_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class RecordProblem:
    """What is wrong with a record file: 1-based line, rule, message."""

    line: int
    rule: str
    message: str


@dataclass(frozen=True)
class GraphEdge:
    """An edge: from node ``source`` to ``target`` (a node id or a memory id), declared at
    ``relpath``:``line``. ``origin`` says how: ``edge`` (the record's edges), ``attribute`` (a
    reference attribute such as ``owners``) or ``tag`` (a memory's tag)."""

    kind: str
    source: str
    target: str
    relpath: str
    line: int
    origin: str = "edge"

    @property
    def to_memory(self) -> bool:
        return is_ulid(self.target)


@dataclass(frozen=True)
class GraphRecord:
    """One parsed record file."""

    relpath: str
    node_kind: str
    id: str
    attributes: dict[str, Any]
    edges: tuple[GraphEdge, ...]
    lines: dict[str, int] = field(default_factory=dict)
    text: str = ""

    @property
    def title(self) -> str:
        title = self.attributes.get("title")
        return title if isinstance(title, str) and title.strip() else self.id

    @property
    def paths(self) -> tuple[str, ...]:
        """The path globs the node covers (``attributes.paths``)."""
        value = self.attributes.get("paths")
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            return ()
        return tuple(v for v in value if isinstance(v, str) and v.strip())

    def line(self, what: str) -> int:
        """The line of ``what`` (``id``, ``attributes.title``, ``edges``…), else the first."""
        return self.lines.get(what) or self.lines.get(what.split(".", maxsplit=1)[0]) or 1


@dataclass(frozen=True)
class ParsedRecord:
    """A record file read: the record (None when it cannot be used) and its problems."""

    relpath: str
    record: GraphRecord | None
    problems: tuple[RecordProblem, ...] = ()


def _line(mapping: Any, key: str) -> int | None:
    from .yaml import key_line

    return key_line(mapping, key)


def _item_line(sequence: Any, index: int, default: int) -> int:
    try:
        return int(sequence.lc.item(index)[0]) + 1
    except (AttributeError, KeyError, TypeError, IndexError):
        return default


def _targets(
    value: Any, line: int, where: str, problems: list[RecordProblem]
) -> list[tuple[str, int]]:
    """``value`` as (target, line) pairs: one id, or a list of ids."""
    if isinstance(value, str):
        return [(value.strip(), line)]
    if isinstance(value, list):
        found = []
        for index, item in enumerate(value):
            item_line = _item_line(value, index, line)
            if isinstance(item, str):
                found.append((item.strip(), item_line))
            else:
                problems.append(
                    RecordProblem(item_line, "graph-record", f"{where}: a target is an id (text)")
                )
        return found
    problems.append(RecordProblem(line, "graph-record", f"{where}: must be an id or a list of ids"))
    return []


def _edges(data: Any, source: str, relpath: str, problems: list[RecordProblem]) -> list[GraphEdge]:
    edges_value = data.get("edges")
    base = _line(data, "edges") or 1
    out: list[GraphEdge] = []
    if edges_value is None:
        return out
    if isinstance(edges_value, dict):  # object-map form
        for kind, value in edges_value.items():
            line = _line(edges_value, str(kind)) or base
            if not isinstance(kind, str):
                problems.append(RecordProblem(line, "graph-record", "edges: a key is an edge kind"))
                continue
            for target, target_line in _targets(value, line, f"edges.{kind}", problems):
                out.append(GraphEdge(kind, source, target, relpath, target_line))
        return out
    if not isinstance(edges_value, list):
        problems.append(
            RecordProblem(base, "graph-record", "edges: a mapping of edge kinds or a list of edges")
        )
        return out
    for index, item in enumerate(edges_value):  # list form
        line = _item_line(edges_value, index, base)
        if not isinstance(item, dict):
            problems.append(
                RecordProblem(line, "graph-record", "edges: each item is {kind: …, to: …}")
            )
            continue
        kind_key = next((k for k in _EDGE_KIND_KEYS if k in item), None)
        target_key = next((k for k in _EDGE_TARGET_KEYS if k in item), None)
        if kind_key is None and target_key is None and len(item) == 1:
            ((kind, value),) = item.items()  # shorthand: - depends_on: service:ledger
            if isinstance(kind, str):
                for target, target_line in _targets(value, line, f"edges.{kind}", problems):
                    out.append(GraphEdge(kind, source, target, relpath, target_line))
                continue
        unknown = [str(k) for k in item if k not in (*_EDGE_KIND_KEYS, *_EDGE_TARGET_KEYS)]
        if unknown or kind_key is None or target_key is None:
            why = f"unknown key {unknown[0]!r}" if unknown else "needs a kind and a target (to:)"
            problems.append(RecordProblem(line, "graph-record", f"edges[{index}]: {why}"))
            continue
        kind = item[kind_key]
        if not isinstance(kind, str) or not kind.strip():
            problems.append(
                RecordProblem(line, "graph-record", f"edges[{index}].{kind_key}: an edge kind")
            )
            continue
        for target, target_line in _targets(item[target_key], line, f"edges[{index}]", problems):
            out.append(GraphEdge(kind.strip(), source, target, relpath, target_line))
    return out


def parse_record(relpath: str, text: str, *, fast: bool = True) -> ParsedRecord:
    """Read one record file's ``text`` (never raises on content). A record in the plain shape
    is read by a fast reader that gives what ruamel gives (``fast=False``: ruamel always)."""
    from ._fastrecords import record_mapping
    from .yaml import YamlProblem, load_yaml, to_plain

    problems: list[RecordProblem] = []
    try:
        found = record_mapping(text) if fast and len(text) <= MAX_RECORD_BYTES else None
        data = found if found is not None else load_yaml(text, max_chars=MAX_RECORD_BYTES)
    except YamlProblem as exc:
        return ParsedRecord(
            relpath, None, (RecordProblem(exc.line or 1, "graph-record", exc.message),)
        )
    if not isinstance(data, dict):
        return ParsedRecord(
            relpath, None, (RecordProblem(1, "graph-record", "a record is a YAML mapping"),)
        )
    lines: dict[str, int] = {}
    for key in data:
        line = _line(data, str(key)) or 1
        lines[str(key)] = line
        if key not in RECORD_KEYS:
            problems.append(
                RecordProblem(
                    line, "graph-record",
                    f"unknown key {str(key)!r} (a record has {', '.join(RECORD_KEYS)})",
                )
            )  # fmt: skip
    node_id = data.get("id")
    node_kind = data.get("nodeKind")
    if node_id is None or node_kind is None:
        missing = "id" if node_id is None else "nodeKind"
        problems.append(RecordProblem(1, "graph-required", f"missing {missing}"))
        return ParsedRecord(relpath, None, tuple(problems))
    if not isinstance(node_kind, str) or not node_kind.strip():
        problems.append(RecordProblem(lines["nodeKind"], "graph-record", "nodeKind: a kind name"))
        return ParsedRecord(relpath, None, tuple(problems))
    if not isinstance(node_id, str) or not _NODE_ID.fullmatch(node_id):
        problems.append(
            RecordProblem(
                lines["id"], "graph-id",
                "id: letters, digits and . _ : / @ + - (128 at most), such as service:payments",
            )
        )  # fmt: skip
        return ParsedRecord(relpath, None, tuple(problems))
    if is_ulid(node_id):
        problems.append(
            RecordProblem(lines["id"], "graph-id", "id: a ULID is a memory's id; name the node")
        )
        return ParsedRecord(relpath, None, tuple(problems))
    attributes_value = data.get("attributes")
    attributes: dict[str, Any] = {}
    if attributes_value is not None and not isinstance(attributes_value, dict):
        problems.append(
            RecordProblem(lines.get("attributes", 1), "graph-record", "attributes: a mapping")
        )
    elif isinstance(attributes_value, dict):
        for key in attributes_value:
            lines[f"attributes.{key}"] = _line(attributes_value, str(key)) or lines["attributes"]
        attributes = {str(k): v for k, v in to_plain(attributes_value).items()}
    edges = _edges(data, node_id, relpath, problems)
    record = GraphRecord(relpath, node_kind.strip(), node_id, attributes, tuple(edges), lines, text)
    return ParsedRecord(relpath, record, tuple(problems))


def node_label(node_id: str, kind: str | None = None) -> str:
    """How a node is named in a route: ``service payments`` for ``service:payments``."""
    prefix, sep, rest = node_id.partition(":")
    if sep and rest:
        return f"{prefix} {rest}"
    return f"{kind.lower()} {node_id}" if kind else node_id


@dataclass(frozen=True)
class Hop:
    """One step of a route: along an edge of kind ``edge``, forwards (from its source to its
    target) or backwards, arriving at ``node`` (a node id, or a memory id on the last step)."""

    edge: str
    forward: bool
    node: str


@dataclass(frozen=True)
class Route:
    """How a memory is reached: from the node ``seed`` (touched by the situation or named in
    the query, for ``reason``) along ``hops``; the last hop arrives at the memory."""

    seed: str
    hops: tuple[Hop, ...]
    reason: str = ""

    @property
    def depth(self) -> int:
        return len(self.hops)

    @property
    def nodes(self) -> tuple[str, ...]:
        """The nodes on the way: the seed and each node passed (the memory excluded)."""
        return (self.seed, *(hop.node for hop in self.hops[:-1]))

    def describe(self, kinds: Mapping[str, str] | None = None) -> str:
        """``via service payments → depends_on → service ledger → documented_by``: the path
        of edges, one line (``kinds``: node id → kind, for nodes named without a prefix)."""
        kinds = kinds or {}
        parts = [f"via {node_label(self.seed, kinds.get(self.seed))}"]
        for index, hop in enumerate(self.hops):
            arrow = "→" if hop.forward else "←"
            parts.append(f"{arrow} {hop.edge}")
            if index < len(self.hops) - 1:
                parts.append(f"{arrow} {node_label(hop.node, kinds.get(hop.node))}")
        return " ".join(parts)


_GLOB_CHARS = frozenset("*?[")
_WORDS = re.compile(r"[^\W_]+")


def _glob_base(pattern: str) -> str:
    """The literal folder a glob starts with (``src/payments`` of ``src/payments/**``)."""
    parts = []
    for part in pattern.split("/"):
        if _GLOB_CHARS & set(part):
            break
        parts.append(part)
    return "/".join(p for p in parts if p)


def _clean_path(path: str) -> str:
    path = path.strip().replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def path_covered(pattern: str, path: str) -> bool:
    """Whether the node glob ``pattern`` covers ``path`` (a file, a folder or a query glob): the
    glob matches it, or it lies inside the folder the pattern names."""
    from .globmatch import glob_matcher

    pattern, path = _clean_path(pattern), _clean_path(path)
    if not pattern or not path or ".." in pattern.split("/"):
        return False
    if not _GLOB_CHARS & set(pattern):
        return path == pattern or path.startswith(pattern + "/")
    if not _GLOB_CHARS & set(path) and glob_matcher(pattern, segments=True)(path):
        return True
    base = _glob_base(pattern)
    if pattern.endswith("/**") or pattern == "**":
        inner = _glob_base(path)
        return not base or inner == base or inner.startswith(base + "/")
    return False


def _phrase(text: str) -> str:
    return " ".join(word.lower() for word in _WORDS.findall(text))


class Graph:
    """Nodes and edges of a brain's records, plus memory links (see the module docstring).

    ``reference_attributes`` (attribute → node kind, from the ontology's rules) turns
    attributes such as ``owners`` into edges. The first record of an id wins (lint reports the
    others)."""

    def __init__(
        self,
        records: Iterable[GraphRecord],
        *,
        reference_attributes: Mapping[str, str] | None = None,
        problems: Sequence[tuple[str, RecordProblem]] = (),
    ) -> None:
        self.records: list[GraphRecord] = list(records)
        self.problems = list(problems)
        self.nodes: dict[str, GraphRecord] = {}
        for record in self.records:
            self.nodes.setdefault(record.id, record)
        self.out: dict[str, list[GraphEdge]] = {}
        self.into: dict[str, list[GraphEdge]] = {}
        self.edges: list[GraphEdge] = []
        refs = reference_attributes or {}
        for record in self.nodes.values():
            for edge in record.edges:
                self._add(edge)
            for attribute in refs:
                value = record.attributes.get(attribute)
                values = [value] if isinstance(value, str) else value
                if not isinstance(values, list):
                    continue
                for target in values:
                    if isinstance(target, str) and target.strip():
                        line = record.line(f"attributes.{attribute}")
                        edge = GraphEdge(
                            attribute, record.id, target.strip(), record.relpath, line, "attribute"
                        )
                        self._add(edge)
        self._names: dict[str, list[str]] | None = None

    def _add(self, edge: GraphEdge) -> None:
        self.edges.append(edge)
        self.out.setdefault(edge.source, []).append(edge)
        self.into.setdefault(edge.target, []).append(edge)

    def link_memories(
        self, tags_by_memory: Mapping[str, Iterable[str]], relpaths: Mapping[str, str] | None = None
    ) -> None:
        """Add a ``tag`` edge from each node to every memory tagged with its id."""
        for memory_id, tags in tags_by_memory.items():
            for tag in tags:
                if tag in self.nodes:
                    where = (relpaths or {}).get(memory_id, "")
                    self._add(GraphEdge(TAG_EDGE, tag, memory_id, where, 1, "tag"))

    def kinds(self) -> dict[str, str]:
        """Node id → node kind as written."""
        return {node_id: record.node_kind for node_id, record in self.nodes.items()}

    def memories_of(self, node_id: str) -> list[GraphEdge]:
        """Edges between ``node_id`` and memories (either way round)."""
        return [e for e in self.out.get(node_id, []) if e.to_memory]

    def nodes_of_memory(self, memory_id: str) -> list[GraphEdge]:
        """The edges that link memory ``memory_id`` to nodes (each edge's source is a node)."""
        return [e for e in self.into.get(memory_id, []) if e.source in self.nodes]

    # ------------------------------------------------------------------ what a situation touches

    def nodes_for_paths(self, paths: Iterable[str]) -> list[tuple[str, str]]:
        """(node id, the path it covers) for every node whose path globs cover one of
        ``paths``, in record order; more specific globs (longer literal folders) first."""
        wanted = [p for p in paths if p and p.strip()]
        found: list[tuple[int, int, str, str]] = []
        if not wanted:
            return []
        for order, (node_id, record) in enumerate(self.nodes.items()):
            best: tuple[int, str] | None = None
            for pattern in record.paths:
                for path in wanted:
                    if path_covered(pattern, path):
                        specificity = len(_glob_base(_clean_path(pattern)))
                        if best is None or specificity > best[0]:
                            best = (specificity, path)
                        break
            if best is not None:
                found.append((-best[0], order, node_id, best[1]))
        return [(node_id, path) for _, _, node_id, path in sorted(found)]

    def _name_table(self) -> dict[str, list[str]]:
        if self._names is None:
            table: dict[str, list[str]] = {}
            for node_id, record in self.nodes.items():
                names = {_phrase(node_id)}
                _prefix, sep, rest = node_id.partition(":")
                if sep and len(rest) >= 3:
                    names.add(_phrase(rest))
                if len(record.title) >= 4:
                    names.add(_phrase(record.title))
                for name in names:
                    if name:
                        table.setdefault(name, []).append(node_id)
            self._names = table
        return self._names

    def nodes_named_in(self, text: str, *, max_words: int = 6) -> list[tuple[str, str]]:
        """(node id, the words that name it) for nodes a text names: by id (``service:payments``),
        by the name after the id's prefix (``payments``) or by title, as whole words; longer
        names first."""
        words = _phrase(text).split()
        if not words or not self.nodes:
            return []
        table = self._name_table()
        found: dict[str, tuple[int, int, str]] = {}
        for size in range(min(max_words, len(words)), 0, -1):
            for start in range(len(words) - size + 1):
                phrase = " ".join(words[start : start + size])
                for node_id in table.get(phrase, ()):
                    if node_id not in found:
                        found[node_id] = (-size, start, phrase)
        return [
            (node_id, found[node_id][2]) for node_id in sorted(found, key=lambda n: found[n][:2])
        ]

    # ------------------------------------------------------------------ walking

    def _steps(self, node_id: str) -> list[tuple[GraphEdge, bool, str]]:
        """Edges at ``node_id``: (edge, forward, the other end), outgoing first, in order."""
        steps = [(edge, True, edge.target) for edge in self.out.get(node_id, [])]
        steps += [(edge, False, edge.source) for edge in self.into.get(node_id, [])]
        return steps

    def reach_memories(
        self, seeds: Sequence[tuple[str, str]], depth: int = DEFAULT_DEPTH
    ) -> dict[str, Route]:
        """Every memory reached from ``seeds`` ((node id, reason), strongest first) within
        ``depth`` edges — a memory linked to a seed is at depth 1, one linked to a neighbour
        of a seed at depth 2 — each with its shortest route (the first seed wins ties)."""
        depth = max(0, min(depth, MAX_DEPTH))
        routes: dict[str, Route] = {}
        if depth == 0:
            return routes
        frontier: list[tuple[str, str, str, tuple[Hop, ...]]] = []
        seen: set[str] = set()
        for node_id, reason in seeds:
            if node_id in self.nodes and node_id not in seen:
                seen.add(node_id)
                frontier.append((node_id, node_id, reason, ()))
        for level in range(1, depth + 1):
            following: list[tuple[str, str, str, tuple[Hop, ...]]] = []
            for node_id, seed, reason, hops in frontier:
                for edge, forward, other in self._steps(node_id):
                    if is_ulid(other):
                        if forward and other not in routes:
                            routes[other] = Route(
                                seed, (*hops, Hop(edge.kind, True, other)), reason
                            )
                        continue
                    if level < depth and other in self.nodes and other not in seen:
                        seen.add(other)
                        following.append(
                            (other, seed, reason, (*hops, Hop(edge.kind, forward, other)))
                        )
            frontier = following
        return routes

    def neighbourhood(self, node_id: str, depth: int = 1) -> list[tuple[str, Route]]:
        """Nodes and memories within ``depth`` edges of ``node_id`` (either direction), each with
        the route to it, nearest first."""
        depth = max(0, min(depth, MAX_DEPTH))
        out: list[tuple[str, Route]] = []
        if node_id not in self.nodes:
            return out
        seen = {node_id}
        frontier: list[tuple[str, tuple[Hop, ...]]] = [(node_id, ())]
        for _level in range(depth):
            following = []
            for current, hops in frontier:
                for edge, forward, other in self._steps(current):
                    if other in seen:
                        continue
                    seen.add(other)
                    route = Route(node_id, (*hops, Hop(edge.kind, forward, other)))
                    out.append((other, route))
                    if other in self.nodes:
                        following.append((other, route.hops))
            frontier = following
        return out


# ---------------------------------------------------------------------- reading from a brain


def _graph_folder(layout: BrainLayout) -> Path:
    return layout.root / "graph"


def graph_record_paths(layout: BrainLayout) -> tuple[list[Path], list[tuple[str, RecordProblem]]]:
    """Every record file under ``graph/`` (``*.yaml``, ``*.yml``) by name, within the walk
    bounds of the memory files; and what was not walked (a folder linked out of the brain, one
    nested too deep, the file budget spent), as problems."""
    from pathlib import Path

    from .brain import iter_tree
    from .paths import MAX_BRAIN_FILES, MAX_WALK_DEPTH

    folder = _graph_folder(layout)
    problems: list[tuple[str, RecordProblem]] = []
    if not os.path.lexists(folder):
        return [], problems
    away = layout.leads_out(folder)
    if away is not None:
        problems.append(
            (layout.relative(folder),
             RecordProblem(1, "symlink", f"a symlink that leaves the brain ({away}): not read"))
        )  # fmt: skip
        return [], problems
    found: list[Path] = []
    for root, dirs, files in iter_tree(folder, MAX_WALK_DEPTH):
        depth = len(Path(root).relative_to(folder).parts)
        if depth == MAX_WALK_DEPTH - 1 and dirs:
            problems.append(
                (layout.relative(Path(root)),
                 RecordProblem(1, "read", f"folders nested more than {MAX_WALK_DEPTH} deep: not read"))
            )  # fmt: skip
        for name in files:
            if not name.endswith(RECORD_SUFFIXES):
                continue
            if len(found) >= MAX_BRAIN_FILES:
                problems.append(
                    (layout.relative(folder),
                     RecordProblem(1, "read", f"more than {MAX_BRAIN_FILES:,} records: the rest were not read"))
                )  # fmt: skip
                return found, problems
            found.append(Path(root) / name)
    return found, problems


Stamp = tuple[int, int, int]


class RecordCache:
    """Parsed records kept between reads by file stamp (mtime, size, inode): a long-lived
    reader (the MCP server) parses a record again only when its file changed."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[Stamp, ParsedRecord]] = {}

    def read(self, path: Path, layout: BrainLayout) -> ParsedRecord:
        from .brain import read_text_safely
        from .frontmatter import FrontMatterError

        relpath = layout.relative(path)
        try:
            info = path.stat()
            stamp: Stamp | None = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            stamp = None
        cached = self.entries.get(relpath)
        if stamp is not None and cached is not None and cached[0] == stamp:
            return cached[1]
        try:
            text = read_text_safely(path, layout.repo_root, max_bytes=MAX_RECORD_BYTES)
        except FrontMatterError as exc:
            parsed = ParsedRecord(
                relpath, None, (RecordProblem(exc.line or 1, exc.rule, exc.message),)
            )
        else:
            parsed = parse_record(relpath, text)
        if stamp is not None:
            self.entries[relpath] = (stamp, parsed)
        return parsed


def load_graph(
    layout: BrainLayout,
    *,
    reference_attributes: Mapping[str, str] | None = None,
    cache: RecordCache | None = None,
) -> Graph:
    """The graph of the brain at ``layout`` (empty without a ``graph/`` folder). Records are
    read like memory files: never through a link that leaves the brain, never a FIFO or a
    device, at most 64 KB each, within the brain's walk bounds. ``reference_attributes``
    default to the ontology's (read when not given)."""
    paths, problems = graph_record_paths(layout)
    if reference_attributes is None:
        if paths:
            from .ontology import load_ontology

            reference_attributes = load_ontology(layout).rules.reference_attributes
        else:
            reference_attributes = {}
    cache = cache if cache is not None else RecordCache()
    records = []
    for path in paths:
        parsed = cache.read(path, layout)
        problems.extend((parsed.relpath, problem) for problem in parsed.problems)
        if parsed.record is not None:
            records.append(parsed.record)
    if cache is not None and len(cache.entries) > len(paths) * 2 + 64:
        keep = {layout.relative(p) for p in paths}
        cache.entries = {k: v for k, v in cache.entries.items() if k in keep}
    return Graph(records, reference_attributes=reference_attributes, problems=problems)
