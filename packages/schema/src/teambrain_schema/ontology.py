"""The ontology a brain's graph records must satisfy: node kinds, edge kinds, controlled
vocabulary and validation rules, read from ``.teambrain/ontology/*.yaml`` (docs/graph.md).

Four files, each a YAML mapping with ``version: 1``:

- ``node-kinds.yaml``: ``nodeKinds: {<kind>: {description, aliases, required, paths}}``
- ``edge-kinds.yaml``: ``edgeKinds: {<edge>: {description, from, to, acyclic}}`` (``to`` may
  name ``memory``: the edge then points at a memory id)
- ``controlled-vocabulary.yaml``: ``vocabularies: {<name>: [value, ...]}``
- ``validation-rules.yaml``: ``requiredFields``, ``attributeVocabulary``, ``referenceAttributes``,
  ``acyclicEdges``, ``idPrefixMatchesKind``

Reading never raises on content: what cannot be used is an :class:`OntologyProblem` with its file
and line, and the rest of the ontology still applies. ``tb init`` writes :data:`STARTER_FILES`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .paths import BrainLayout

__all__ = [
    "MEMORY_TARGET",
    "ONTOLOGY_FILES",
    "STARTER_FILES",
    "EdgeKind",
    "NodeKind",
    "Ontology",
    "OntologyProblem",
    "ValidationRules",
    "kind_key",
    "load_ontology",
    "parse_ontology",
]

# The pseudo-kind an edge kind names in ``to`` when its edges point at memories.
MEMORY_TARGET = "memory"
ONTOLOGY_FILES = (
    "node-kinds.yaml",
    "edge-kinds.yaml",
    "controlled-vocabulary.yaml",
    "validation-rules.yaml",
)
MAX_ONTOLOGY_BYTES = 64 * 1024
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")


def kind_key(name: str) -> str:
    """How kind names are compared: case and separators ignored (``AgentPractice``,
    ``agent-practice`` and ``agent_practice`` are one kind)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


@dataclass(frozen=True)
class NodeKind:
    """A kind of node: its name, the attributes a record of it must carry, and whether its
    records may list the path globs they cover (``attributes.paths``)."""

    name: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    paths: bool = False


@dataclass(frozen=True)
class EdgeKind:
    """A kind of edge: which node kinds it may leave (``sources``) and reach (``targets``; empty:
    any), and whether its edges may form a cycle."""

    name: str
    description: str = ""
    sources: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    acyclic: bool = False

    def allows_memory(self) -> bool:
        """True when edges of this kind may point at memory ids."""
        return not self.targets or MEMORY_TARGET in self.targets


@dataclass(frozen=True)
class ValidationRules:
    """Rules over every record (``validation-rules.yaml``)."""

    required_fields: tuple[str, ...] = ("id", "nodeKind")
    attribute_vocabulary: dict[str, str] = field(default_factory=dict)
    reference_attributes: dict[str, str] = field(default_factory=dict)
    acyclic_edges: tuple[str, ...] = ()
    id_prefix_matches_kind: bool = False


@dataclass(frozen=True)
class OntologyProblem:
    """Why part of the ontology cannot be used: file, 1-based line, message."""

    relpath: str
    line: int
    message: str


@dataclass
class Ontology:
    """The four files, parsed. ``present`` is False when the brain has no ontology folder."""

    node_kinds: dict[str, NodeKind] = field(default_factory=dict)
    edge_kinds: dict[str, EdgeKind] = field(default_factory=dict)
    vocabularies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rules: ValidationRules = field(default_factory=ValidationRules)
    problems: list[OntologyProblem] = field(default_factory=list)
    present: bool = False
    # The line each kind, edge kind or vocabulary is defined on: "<file>#<name>" → (relpath, line)
    lines: dict[str, tuple[str, int]] = field(default_factory=dict)
    _aliases: dict[str, str] | None = field(default=None, repr=False, compare=False)

    def node_kind(self, name: str) -> NodeKind | None:
        """The node kind ``name`` names (its name or an alias, compared by :func:`kind_key`)."""
        key = kind_key(name)
        found = self._by_key().get(key)
        return self.node_kinds.get(found) if found else None

    def _by_key(self) -> dict[str, str]:
        """Every name and alias (by :func:`kind_key`) → its kind; built once per set of kinds
        (lint asks for every record and edge)."""
        if self._aliases is None or len(self._aliases) < len(self.node_kinds):
            table: dict[str, str] = {}
            for kind in self.node_kinds.values():
                for alias in (kind.name, *kind.aliases):
                    table.setdefault(kind_key(alias), kind.name)
            self._aliases = table
        return self._aliases

    def edge_kind(self, name: str) -> EdgeKind | None:
        """The edge kind ``name`` (exact name)."""
        return self.edge_kinds.get(name)

    def is_acyclic(self, edge: str) -> bool:
        """Whether edges of kind ``edge`` must not form a cycle."""
        kind = self.edge_kinds.get(edge)
        return edge in self.rules.acyclic_edges or (kind is not None and kind.acyclic)

    def vocabulary_for(self, attribute: str) -> tuple[str, tuple[str, ...]] | None:
        """(vocabulary name, allowed values) that ``attribute`` is held to, or None."""
        name = self.rules.attribute_vocabulary.get(attribute)
        if name is None or name not in self.vocabularies:
            return None
        return name, self.vocabularies[name]


class _Reader:
    """Collects problems of one ontology file while its mapping is read."""

    def __init__(self, ontology: Ontology, relpath: str) -> None:
        self.ontology = ontology
        self.relpath = relpath

    def problem(self, line: int | None, message: str) -> None:
        self.ontology.problems.append(OntologyProblem(self.relpath, line or 1, message))

    def line(self, mapping: Any, key: str, default: int = 1) -> int:
        from .yaml import key_line

        return key_line(mapping, key) or default

    def names(self, mapping: Any, key: str, value: Any, where: str) -> tuple[str, ...]:
        """``value`` as a list of names (a single string allowed)."""
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.problem(self.line(mapping, key), f"{where}.{key}: must be a list of names")
            return ()
        return tuple(str(v) for v in value)

    def flag(self, mapping: Any, key: str, where: str) -> bool:
        value = mapping.get(key, False)
        if not isinstance(value, bool):
            self.problem(self.line(mapping, key), f"{where}.{key}: must be true or false")
            return False
        return value

    def text(self, mapping: Any, key: str, where: str) -> str:
        value = mapping.get(key, "")
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problem(self.line(mapping, key), f"{where}.{key}: must be text")
            return ""
        return value

    def unknown_keys(self, mapping: Any, allowed: tuple[str, ...], where: str) -> None:
        for key in mapping:
            if key not in allowed:
                self.problem(
                    self.line(mapping, str(key)),
                    f"{where}: unknown key {str(key)!r} (allowed: {', '.join(allowed)})",
                )

    def section(self, data: Any, key: str) -> Any:
        """The mapping under ``key`` of the file's top level (None when absent or wrong)."""
        section = data.get(key)
        if section is None:
            self.problem(1, f"missing {key}:")
            return None
        if not isinstance(section, dict):
            self.problem(self.line(data, key), f"{key}: must be a mapping of names")
            return None
        return section

    def name_ok(self, mapping: Any, name: Any, what: str) -> bool:
        if isinstance(name, str) and _NAME.match(name):
            return True
        self.problem(
            self.line(mapping, str(name)),
            f"{what} {str(name)!r}: a name is a letter then letters, digits, - or _ (64 at most)",
        )
        return False


def _read_node_kinds(reader: _Reader, data: Any) -> None:
    section = reader.section(data, "nodeKinds")
    if section is None:
        return
    ontology = reader.ontology
    for name, value in section.items():
        if not reader.name_ok(section, name, "node kind"):
            continue
        where = f"nodeKinds.{name}"
        spec = {} if value is None else value
        if not isinstance(spec, dict):
            reader.problem(reader.line(section, name), f"{where}: must be a mapping")
            continue
        reader.unknown_keys(spec, ("description", "aliases", "required", "paths"), where)
        kind = NodeKind(
            name=name,
            description=reader.text(spec, "description", where),
            aliases=reader.names(spec, "aliases", spec.get("aliases"), where),
            required=reader.names(spec, "required", spec.get("required"), where),
            paths=reader.flag(spec, "paths", where),
        )
        clash = ontology.node_kind(name)
        if clash is not None:
            reader.problem(
                reader.line(section, name), f"node kind {name!r} is the same kind as {clash.name!r}"
            )
            continue
        ontology.node_kinds[name] = kind
        ontology._aliases = None
        ontology.lines[f"node:{name}"] = (reader.relpath, reader.line(section, name))


def _read_edge_kinds(reader: _Reader, data: Any) -> None:
    section = reader.section(data, "edgeKinds")
    if section is None:
        return
    ontology = reader.ontology
    for name, value in section.items():
        if not reader.name_ok(section, name, "edge kind"):
            continue
        where = f"edgeKinds.{name}"
        spec = {} if value is None else value
        if not isinstance(spec, dict):
            reader.problem(reader.line(section, name), f"{where}: must be a mapping")
            continue
        reader.unknown_keys(spec, ("description", "from", "to", "acyclic"), where)
        ontology.edge_kinds[name] = EdgeKind(
            name=name,
            description=reader.text(spec, "description", where),
            sources=reader.names(spec, "from", spec.get("from"), where),
            targets=reader.names(spec, "to", spec.get("to"), where),
            acyclic=reader.flag(spec, "acyclic", where),
        )
        ontology.lines[f"edge:{name}"] = (reader.relpath, reader.line(section, name))


def _read_vocabularies(reader: _Reader, data: Any) -> None:
    section = reader.section(data, "vocabularies")
    if section is None:
        return
    for name, values in section.items():
        if not reader.name_ok(section, name, "vocabulary"):
            continue
        if not isinstance(values, list) or not all(
            isinstance(v, (str, int)) and not isinstance(v, bool) for v in values
        ):
            reader.problem(
                reader.line(section, name), f"vocabularies.{name}: must be a list of values"
            )
            continue
        reader.ontology.vocabularies[name] = tuple(str(v) for v in values)
        reader.ontology.lines[f"vocabulary:{name}"] = (reader.relpath, reader.line(section, name))


def _string_map(reader: _Reader, data: Any, key: str) -> dict[str, str]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        reader.problem(reader.line(data, key), f"{key}: must map attribute names to names")
        return {}
    return {str(k): str(v) for k, v in value.items()}


def _read_rules(reader: _Reader, data: Any) -> None:
    reader.unknown_keys(
        data,
        ("version", "requiredFields", "attributeVocabulary", "referenceAttributes",
         "acyclicEdges", "idPrefixMatchesKind"),
        "validation-rules",
    )  # fmt: skip
    required = reader.names(data, "requiredFields", data.get("requiredFields"), "rules")
    reader.ontology.rules = ValidationRules(
        required_fields=tuple(dict.fromkeys(("id", "nodeKind", *required))),
        attribute_vocabulary=_string_map(reader, data, "attributeVocabulary"),
        reference_attributes=_string_map(reader, data, "referenceAttributes"),
        acyclic_edges=reader.names(data, "acyclicEdges", data.get("acyclicEdges"), "rules"),
        id_prefix_matches_kind=reader.flag(data, "idPrefixMatchesKind", "rules"),
    )
    reader.ontology.lines["rules"] = (reader.relpath, 1)


_READERS = {
    "node-kinds.yaml": (_read_node_kinds, ("version", "nodeKinds")),
    "edge-kinds.yaml": (_read_edge_kinds, ("version", "edgeKinds")),
    "controlled-vocabulary.yaml": (_read_vocabularies, ("version", "vocabularies")),
    "validation-rules.yaml": (_read_rules, None),
}


def parse_ontology(texts: dict[str, str | None], folder: str = ".teambrain/ontology") -> Ontology:
    """The ontology of the four files' ``texts`` (by file name; None: the file is missing),
    their paths shown under ``folder``. Cross-references are checked last: an edge kind's
    ``from``/``to`` naming an unknown node kind, a rule naming an unknown edge kind or
    vocabulary."""
    from .yaml import YamlProblem, load_yaml

    ontology = Ontology(present=True)
    for name in ONTOLOGY_FILES:
        relpath = f"{folder}/{name}"
        reader = _Reader(ontology, relpath)
        text = texts.get(name)
        if text is None:
            reader.problem(1, "missing: `tb init` writes the starter ontology")
            continue
        try:
            data = load_yaml(text, max_chars=MAX_ONTOLOGY_BYTES)
        except YamlProblem as exc:
            reader.problem(exc.line, exc.message)
            continue
        if not isinstance(data, dict):
            reader.problem(1, "must be a YAML mapping")
            continue
        if data.get("version", 1) != 1:
            reader.problem(reader.line(data, "version"), "version: must be 1")
        read, allowed = _READERS[name]
        if allowed is not None:
            reader.unknown_keys(data, allowed, name.removesuffix(".yaml"))
        read(reader, data)
    _check_references(ontology)
    return ontology


def _check_references(ontology: Ontology) -> None:
    def where(key: str) -> tuple[str, int]:
        return ontology.lines.get(key, (ontology.lines.get("rules", ("", 1))[0], 1))

    for edge in ontology.edge_kinds.values():
        for name in (*edge.sources, *edge.targets):
            if name != MEMORY_TARGET and ontology.node_kind(name) is None:
                relpath, line = where(f"edge:{edge.name}")
                ontology.problems.append(
                    OntologyProblem(
                        relpath, line, f"edge kind {edge.name!r} names unknown node kind {name!r}"
                    )
                )
    rules = ontology.rules
    relpath, _ = ontology.lines.get("rules", (".teambrain/ontology/validation-rules.yaml", 1))
    for edge_name in rules.acyclic_edges:
        if edge_name not in ontology.edge_kinds:
            ontology.problems.append(
                OntologyProblem(relpath, 1, f"acyclicEdges names unknown edge kind {edge_name!r}")
            )
    for attribute, vocabulary in rules.attribute_vocabulary.items():
        if vocabulary not in ontology.vocabularies:
            ontology.problems.append(
                OntologyProblem(
                    relpath, 1,
                    f"attributeVocabulary.{attribute} names unknown vocabulary {vocabulary!r}",
                )
            )  # fmt: skip
    for attribute, kind in rules.reference_attributes.items():
        if ontology.node_kind(kind) is None:
            ontology.problems.append(
                OntologyProblem(
                    relpath, 1, f"referenceAttributes.{attribute} names unknown node kind {kind!r}"
                )
            )


def load_ontology(layout: BrainLayout) -> Ontology:
    """The ontology of the brain at ``layout`` (``present`` False, empty, when it has no
    ``ontology/`` folder). Files are read like memory files: never through a link that leaves
    the brain, never a FIFO or device, at most 64 KB each."""
    import os

    from .brain import read_text_safely
    from .frontmatter import FrontMatterError

    folder = layout.root / "ontology"
    relfolder = layout.relative(folder)
    if not os.path.lexists(folder):
        return Ontology(present=False)
    away = layout.leads_out(folder)
    if away is not None:
        ontology = Ontology(present=True)
        ontology.problems.append(
            OntologyProblem(relfolder, 1, f"a symlink that leaves the brain ({away}): not read")
        )
        return ontology
    texts: dict[str, str | None] = {}
    unreadable: list[OntologyProblem] = []
    for name in ONTOLOGY_FILES:
        path = folder / name
        if not os.path.lexists(path):
            texts[name] = None
            continue
        try:
            texts[name] = read_text_safely(path, layout.repo_root, max_bytes=MAX_ONTOLOGY_BYTES)
        except FrontMatterError as exc:
            texts[name] = ""
            unreadable.append(OntologyProblem(f"{relfolder}/{name}", exc.line or 1, exc.message))
    ontology = parse_ontology(texts, relfolder)
    if unreadable:
        bad = {p.relpath for p in unreadable}
        ontology.problems = [p for p in ontology.problems if p.relpath not in bad] + unreadable
    return ontology


STARTER_FILES: dict[str, str] = {
    "node-kinds.yaml": """\
# The kinds of node this brain's graph records may have (docs/graph.md). Reviewed like code:
# add a kind here before the first record of it. `required` lists the attributes every record
# of the kind carries; `paths: true` lets its records list the path globs they cover.
version: 1
nodeKinds:
  team:
    description: A group of people who own repositories, services and runbooks.
    required: [title]
  repository:
    description: A code repository; `paths` are the globs of it this brain speaks for.
    required: [title]
    paths: true
  service:
    description: A deployed service; `paths` are the globs of the code it is built from.
    required: [title, owners]
    paths: true
  runbook:
    description: How to operate something, step by step.
    required: [title]
  decision:
    description: A decision and why it was taken.
    required: [title]
  incident:
    description: Something that went wrong, and what was learned.
    required: [title, severity]
  practice:
    description: How agents and people work here (the seed's AgentPractice).
    aliases: [AgentPractice, agent-practice]
    required: [title]
""",
    "edge-kinds.yaml": """\
# The kinds of edge between nodes (docs/graph.md). `from`/`to` list the node kinds an edge may
# leave and reach (`memory`: a memory id); `acyclic: true` forbids cycles of that kind.
version: 1
edgeKinds:
  owns:
    description: A team owns a repository, service, runbook or practice.
    from: [team]
    to: [repository, service, runbook, practice]
  depends_on:
    description: A service or repository needs another to work.
    from: [service, repository]
    to: [service, repository]
    acyclic: true
  documented_by:
    description: Where to read about a node (a runbook, a decision, a memory).
    from: [team, repository, service, incident, practice]
    to: [runbook, decision, memory]
  applies_to:
    description: A practice, decision, runbook or incident concerns a team, repository or service.
    from: [practice, decision, runbook, incident]
    to: [team, repository, service]
  supersedes:
    description: A decision replaces an older one.
    from: [decision]
    to: [decision]
    acyclic: true
""",
    "controlled-vocabulary.yaml": """\
# The values some attributes may take (validation-rules.yaml says which attribute uses which).
version: 1
vocabularies:
  status: [active, planned, deprecated, retired]
  tier: [critical, standard, internal]
  severity: [sev1, sev2, sev3, sev4]
""",
    "validation-rules.yaml": """\
# Rules every graph record meets, checked by `tb lint` (docs/graph.md#the-ontology).
version: 1
# Fields every record has, besides id and nodeKind (dotted: attributes.<name>).
requiredFields: [attributes.title]
# Attributes whose values come from a vocabulary of controlled-vocabulary.yaml.
attributeVocabulary:
  status: status
  tier: tier
  severity: severity
# Attributes whose values are ids of nodes of a kind (they are edges too).
referenceAttributes:
  owners: team
# Edge kinds that may never form a cycle (besides those marked acyclic).
acyclicEdges: [depends_on, supersedes]
# A record's id starts with its kind: service:payments, team:platform.
idPrefixMatchesKind: true
""",
}
