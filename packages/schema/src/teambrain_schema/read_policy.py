"""What a repository's agents may read from the org brain: read policies in the company-brain
design's ``AgentMemorySource`` terms, kept in the org brain under ``.teambrain/sources/*.yaml``
and reviewed there (docs/graph.md#read-policies-for-the-org-brain)::

    kind: AgentMemorySource
    spec:
      appliesTo:
        repositories: [shop]          # the repositories it is for ("*": every one)
      include:
        graphKinds: [Service, Runbook, Decision]
        paths: [memories/**, graph/services/**]   # under the org brain's .teambrain/
      exclude:
        paths: [memories/learnings/*security*]
      defaultQueryMode: graph-and-grep  # graph-and-grep | graph-only | grep-only
      maxContextBytes: 128000

An org brain without sources serves every org-scoped memory to every repository (as before).
Once it has one, a repository reads what the sources naming it allow — their includes added
up, their excludes too, the smallest byte cap — and nothing when none names it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .paths import BrainLayout

__all__ = [
    "QUERY_MODES",
    "PolicyProblem",
    "PolicySource",
    "ReadPolicy",
    "load_read_policy",
    "load_sources",
    "parse_source",
    "source_files",
]

QUERY_MODES = ("graph-and-grep", "graph-only", "grep-only")
MAX_SOURCE_BYTES = 64 * 1024
MAX_SOURCES = 200
_SPEC_KEYS = (
    "repositoryRef",
    "appliesTo",
    "include",
    "exclude",
    "defaultQueryMode",
    "maxContextBytes",
)


@dataclass(frozen=True)
class PolicyProblem:
    """Why a source file cannot be used: file, 1-based line, message."""

    relpath: str
    line: int
    message: str


@dataclass(frozen=True)
class PolicySource:
    """One ``AgentMemorySource`` as read."""

    relpath: str
    repositories: tuple[str, ...] = ()
    include_paths: tuple[str, ...] = ()
    exclude_paths: tuple[str, ...] = ()
    graph_kinds: tuple[str, ...] = ()
    query_mode: str = "graph-and-grep"
    max_context_bytes: int | None = None

    def applies_to(self, repository: str) -> bool:
        return "*" in self.repositories or repository.lower() in {
            r.lower() for r in self.repositories
        }


@dataclass(frozen=True)
class ReadPolicy:
    """What one repository may read from the org brain (``sources``: the files that say so;
    none: the repository is named by no source, and reads nothing)."""

    repository: str
    sources: tuple[str, ...] = ()
    include_paths: tuple[str, ...] = ()  # empty: every path
    exclude_paths: tuple[str, ...] = ()
    graph_kinds: tuple[str, ...] = ()  # empty: every kind
    query_mode: str = "graph-and-grep"
    max_context_bytes: int | None = None

    @property
    def reads_nothing(self) -> bool:
        return not self.sources

    def allows_path(self, relpath: str) -> bool:
        """Whether the org brain's file at ``relpath`` (repository-relative, under
        ``.teambrain/``, or already relative to it) may be read."""
        from .graph import path_covered

        if self.reads_nothing:
            return False
        inner = relpath.split("/", 1)[1] if relpath.startswith(".teambrain/") else relpath
        if self.include_paths and not any(path_covered(p, inner) for p in self.include_paths):
            return False
        return not any(path_covered(p, inner) for p in self.exclude_paths)

    def allows_kind(self, kind: str) -> bool:
        """Whether graph records of node kind ``kind`` may be read (names compared as the
        ontology compares them)."""
        from .ontology import kind_key

        if self.reads_nothing:
            return False
        return not self.graph_kinds or kind_key(kind) in {kind_key(k) for k in self.graph_kinds}

    def describe(self) -> str:
        """One line: what this repository reads from the org brain."""
        if self.reads_nothing:
            return f"no read policy names {self.repository}: nothing of the org brain is served"
        parts = [
            "paths " + (", ".join(self.include_paths) or "all"),
            *(["not " + ", ".join(self.exclude_paths)] if self.exclude_paths else []),
            "node kinds " + (", ".join(self.graph_kinds) or "all"),
            self.query_mode,
            f"at most {self.max_context_bytes:,} bytes per answer"
            if self.max_context_bytes
            else "no byte cap",
        ]
        return f"{', '.join(parts)} (from {', '.join(self.sources)})"


def _names(
    value: Any, where: str, line: int, relpath: str, problems: list[PolicyProblem]
) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append(PolicyProblem(relpath, line, f"{where}: must be a list of names"))
        return ()
    return tuple(v.strip() for v in value)


def parse_source(relpath: str, text: str) -> tuple[PolicySource | None, list[PolicyProblem]]:
    """One source file's ``text`` (never raises on content)."""
    from .yaml import YamlProblem, key_line, load_yaml, to_plain

    problems: list[PolicyProblem] = []
    try:
        data = load_yaml(text, max_chars=MAX_SOURCE_BYTES)
    except YamlProblem as exc:
        return None, [PolicyProblem(relpath, exc.line or 1, exc.message)]
    if not isinstance(data, dict):
        return None, [PolicyProblem(relpath, 1, "a read policy is a YAML mapping")]
    for key in data:
        if key not in ("kind", "apiVersion", "metadata", "spec"):
            problems.append(
                PolicyProblem(relpath, key_line(data, str(key)) or 1, f"unknown key {str(key)!r}")
            )
    if data.get("kind") != "AgentMemorySource":
        problems.append(
            PolicyProblem(relpath, key_line(data, "kind") or 1, "kind: must be AgentMemorySource")
        )
        return None, problems
    spec = data.get("spec")
    if not isinstance(spec, dict):
        problems.append(
            PolicyProblem(relpath, key_line(data, "spec") or 1, "spec: must be a mapping")
        )
        return None, problems

    def line(mapping: Any, key: str) -> int:
        return key_line(mapping, key) or key_line(data, "spec") or 1

    for key in spec:
        if key not in _SPEC_KEYS:
            problems.append(
                PolicyProblem(relpath, line(spec, str(key)), f"spec: unknown key {str(key)!r}")
            )
    plain = to_plain(spec)
    sections: dict[str, dict[str, Any]] = {}
    for name in ("appliesTo", "include", "exclude"):
        value = plain.get(name) or {}
        if not isinstance(value, dict):
            problems.append(
                PolicyProblem(relpath, line(spec, name), f"spec.{name}: must be a mapping")
            )
            value = {}
        sections[name] = value
    applies = sections["appliesTo"]
    repositories = _names(
        applies.get("repositories"),
        "spec.appliesTo.repositories",
        line(spec, "appliesTo"),
        relpath,
        problems,
    )
    include_paths = _names(
        sections["include"].get("paths"),
        "spec.include.paths",
        line(spec, "include"),
        relpath,
        problems,
    )
    kinds = _names(
        sections["include"].get("graphKinds"),
        "spec.include.graphKinds",
        line(spec, "include"),
        relpath,
        problems,
    )
    exclude_paths = _names(
        sections["exclude"].get("paths"),
        "spec.exclude.paths",
        line(spec, "exclude"),
        relpath,
        problems,
    )
    for pattern in (*include_paths, *exclude_paths):
        if pattern.startswith(("/", "~")) or ".." in pattern.split("/"):
            problems.append(
                PolicyProblem(
                    relpath,
                    line(spec, "include"),
                    f"{pattern!r}: paths are relative to the org brain's .teambrain/",
                )
            )
    mode = plain.get("defaultQueryMode", "graph-and-grep")
    if mode not in QUERY_MODES:
        problems.append(
            PolicyProblem(
                relpath,
                line(spec, "defaultQueryMode"),
                f"defaultQueryMode: one of {', '.join(QUERY_MODES)}",
            )
        )
        mode = "graph-and-grep"
    cap = plain.get("maxContextBytes")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        problems.append(
            PolicyProblem(
                relpath,
                line(spec, "maxContextBytes"),
                "maxContextBytes: a number of bytes (1 or more)",
            )
        )
        cap = None
    if not repositories:
        problems.append(
            PolicyProblem(
                relpath, line(spec, "appliesTo"), "spec.appliesTo.repositories: names no repository"
            )
        )
    source = PolicySource(
        relpath, repositories, include_paths, exclude_paths, kinds, str(mode), cap
    )
    return source, problems


def source_files(layout: BrainLayout) -> list[str]:
    """The source files of the org brain at ``layout`` (repository-relative), sorted."""
    folder = layout.root / "sources"
    if not os.path.isdir(folder) or layout.leads_out(folder) is not None:
        return []
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))
    except OSError:
        return []
    return [layout.relative(folder / name) for name in names[:MAX_SOURCES]]


def load_sources(layout: BrainLayout) -> tuple[list[PolicySource], list[PolicyProblem]]:
    """Every source of the org brain at ``layout``, read like its memory files."""
    from .brain import read_text_safely
    from .frontmatter import FrontMatterError

    sources: list[PolicySource] = []
    problems: list[PolicyProblem] = []
    folder = layout.root / "sources"
    if os.path.lexists(folder) and layout.leads_out(folder) is not None:
        problems.append(
            PolicyProblem(layout.relative(folder), 1, "a symlink that leaves the brain: not read")
        )
        return sources, problems
    for relpath in source_files(layout):
        try:
            text = read_text_safely(
                layout.repo_root / relpath, layout.repo_root, max_bytes=MAX_SOURCE_BYTES
            )
        except FrontMatterError as exc:
            problems.append(PolicyProblem(relpath, exc.line or 1, exc.message))
            continue
        source, found = parse_source(relpath, text)
        problems.extend(found)
        if source is not None:
            sources.append(source)
    return sources, problems


def load_read_policy(
    org: BrainLayout, repository: str
) -> tuple[ReadPolicy | None, list[PolicyProblem]]:
    """The policy ``repository`` reads the org brain ``org`` under: None when the org brain has
    no sources (everything org-scoped is served); one naming no source when none names it
    (nothing is); else the sources that name it, added up."""
    sources, problems = load_sources(org)
    if not sources and not problems:
        return None, problems
    mine = [s for s in sources if s.applies_to(repository)]
    if not mine:
        return ReadPolicy(repository), problems
    caps = [s.max_context_bytes for s in mine if s.max_context_bytes]
    modes = {s.query_mode for s in mine}
    mode = "graph-and-grep" if len(modes) > 1 else modes.pop()
    unrestricted_paths = any(not s.include_paths for s in mine)
    unrestricted_kinds = any(not s.graph_kinds for s in mine)
    return ReadPolicy(
        repository=repository,
        sources=tuple(s.relpath for s in mine),
        include_paths=()
        if unrestricted_paths
        else tuple(dict.fromkeys(p for s in mine for p in s.include_paths)),
        exclude_paths=tuple(dict.fromkeys(p for s in mine for p in s.exclude_paths)),
        graph_kinds=()
        if unrestricted_kinds
        else tuple(dict.fromkeys(k for s in mine for k in s.graph_kinds)),
        query_mode=mode,
        max_context_bytes=min(caps) if caps else None,
    ), problems
