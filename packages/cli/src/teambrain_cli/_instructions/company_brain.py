"""``tb import --company-brain DIR``: an existing company-brain folder (seed 003's layout) as
candidates and records to review — nothing in the repository changes until ``tb propose``.

- ``graph/**/*.yaml`` → graph records, checked together against this brain's ontology and
  graph, queued as record candidates (``spool/records/``);
- Markdown records with front-matter — ``pages/``, ``runbooks/``, ``decisions/``,
  ``incidents/``, ``repositories/`` — → memory candidates, split to memory size, classed by
  their folder, tagged with the node their front-matter ``id`` names when the graph has it, and
  put through every check a candidate faces (schema, secrets, injection, already in the brain);
- ``notes/``, ``meetings/``, ``scratch/`` → notes to add under ``.teambrain/notes/`` (queued
  like records), scanned for secrets and injection first;
- ``ontology/``, ``indexes/`` and anything else → not imported (this brain keeps its own
  ontology; indexes are derived), and said so.

Every file is read within the folder (never through a link out of it, never a FIFO or a
device, bounded in size and number), like the brain's own files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from teambrain_schema import UserError

from .importer import Imported, ImportRun, Prepared, _check_and_queue, _tags, classify
from .markdown import Piece, split_front_matter, split_pieces
from .sources import Source

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout, MachineLayout

MARKDOWN_FOLDERS = {
    "decisions": "decision",
    "runbooks": "convention",
    "incidents": "learning",
    "repositories": "map",
    "pages": None,  # classed by its words, as instruction files are
}
NOTE_FOLDERS = ("notes", "meetings", "scratch")
SKIPPED_FOLDERS = {
    "ontology": "this brain keeps its own ontology (.teambrain/ontology/); kinds it lacks are named below",
    "indexes": "derived, rebuilt from the files",
}
MAX_FILES = 5_000
MAX_FILE_BYTES = 256 * 1024

Outcome = Literal["queued", "would-queue", "already-queued", "skipped"]


@dataclass(frozen=True)
class ImportedFile:
    """What became of one record or note of the folder."""

    kind: Literal["record", "note"]
    path: str  # in the folder
    result: Outcome
    target: str  # the node id, or where the note goes under .teambrain/notes/
    reason: str | None = None
    candidate_id: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind, "path": self.path, "result": self.result, "target": self.target,
            "reason": self.reason, "candidate_id": self.candidate_id,
        }  # fmt: skip


@dataclass
class CompanyImport:
    """A whole import: memory pieces (as ``tb import`` reports them), records, notes, and the
    folders and files left out."""

    root: Path
    memories: ImportRun
    files: list[ImportedFile] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def to_json(self) -> dict[str, object]:
        return {
            "company_brain": str(self.root),
            **self.memories.to_json(),
            "records": [f.to_json() for f in self.files if f.kind == "record"],
            "notes": [f.to_json() for f in self.files if f.kind == "note"],
            "left_out": [{"path": p, "reason": r} for p, r in self.left_out],
        }


def company_root(given: str) -> Path:
    """The company-brain folder ``given`` names: itself, or its ``.company-brain/``."""
    path = Path(given).expanduser()
    if not path.is_dir():
        raise UserError(f"--company-brain {given!r}: no such folder")
    inner = path / ".company-brain"
    root = inner if inner.is_dir() and not inner.is_symlink() else path
    if not any((root / name).is_dir() for name in ("graph", *MARKDOWN_FOLDERS, *NOTE_FOLDERS)):
        raise UserError(
            f"--company-brain {given!r}: no graph/, pages/, runbooks/, decisions/, incidents/, "
            "repositories/ or notes/ folder there (the company-brain layout: `tb help graph-guide#importing-a-company-brain`)"
        )
    return root


def _files(
    root: Path, folder: str, suffixes: tuple[str, ...], left_out: list[tuple[str, str]]
) -> list[Path]:
    from teambrain_kit.paths import MAX_WALK_DEPTH
    from teambrain_schema.brain import iter_tree

    top = root / folder
    if not top.is_dir():
        return []
    if top.is_symlink():
        left_out.append((folder, "a symbolic link: not followed"))
        return []
    found = []
    for where, _dirs, names in iter_tree(top, MAX_WALK_DEPTH):
        for name in names:
            path = Path(where) / name
            if name.endswith(suffixes) and not name.startswith("."):
                found.append(path)
    return found


def _read(path: Path, root: Path) -> str:
    from teambrain_kit.local_files import read_file_within

    data = read_file_within(path, root, max_bytes=MAX_FILE_BYTES)
    if b"\x00" in data:
        raise ValueError("binary content")
    return data.decode("utf-8")


def _pieces(
    text: str, memory_class: str | None, graph_ids: set[str]
) -> tuple[list[tuple[Piece, str, tuple[str, ...]]], int]:
    """The memory-sized pieces of one Markdown record, with class and tags (the node its
    front-matter ``id`` names, when the graph has it)."""
    from teambrain_kit.yaml import YamlProblem, load_yaml, to_plain

    front, rest, skipped = split_front_matter(text.replace("\r\n", "\n"))
    meta: dict[str, Any] = {}
    if front:
        try:
            loaded = to_plain(load_yaml(front))
            meta = loaded if isinstance(loaded, dict) else {}
        except YamlProblem:
            meta = {}
    title = meta.get("title") if isinstance(meta.get("title"), str) else None
    extra = [str(meta["id"])] if isinstance(meta.get("id"), str) and meta["id"] in graph_ids else []
    tags = meta.get("tags")
    if isinstance(tags, list):
        extra += [str(t) for t in tags if isinstance(t, str)]
    out = []
    for piece in split_pieces(rest, first_line=skipped + 1):
        headings = ((title,) if title else ()) + piece.headings
        name = piece.title if piece.headings or not title else title
        cls = memory_class or classify(headings, piece.body, "company-brain")
        out.append(
            (
                Piece(name, piece.body, piece.line, headings),
                cls,
                _tags(headings, "company-brain", extra),
            )
        )
    return out, skipped


def import_company_brain(
    layout: BrainLayout, machine: MachineLayout, given: str, *, dry_run: bool = False
) -> CompanyImport:
    """Queue the folder ``given`` names as candidates, records and notes to review (see the
    module docstring); with ``dry_run``, say what would be queued."""
    from teambrain_capture import repo_join_key
    from teambrain_schema import EnvironmentProblem
    from teambrain_sync import open_repo

    root = company_root(given)
    run = CompanyImport(root, ImportRun(dry_run=dry_run))
    repo_key = repo_join_key(layout.repo_root)
    try:
        repo = open_repo(layout.repo_root)
    except EnvironmentProblem:
        repo = None
    for name in sorted(os.listdir(root)):
        if (root / name).is_dir() and name in SKIPPED_FOLDERS:
            run.left_out.append((name, SKIPPED_FOLDERS[name]))
        elif (root / name).is_dir() and name not in ("graph", *MARKDOWN_FOLDERS, *NOTE_FOLDERS):
            run.left_out.append(
                (
                    name,
                    "not part of what is imported (graph, pages, runbooks, decisions, incidents, repositories, notes)",
                )
            )
    graph_ids = _import_records(layout, machine, root, run, repo_key=repo_key, dry_run=dry_run)
    budget = [MAX_FILES]
    for folder, memory_class in MARKDOWN_FOLDERS.items():
        for path in _files(root, folder, (".md",), run.left_out):
            budget[0] -= 1
            if budget[0] < 0:
                run.left_out.append(
                    (folder, f"more than {MAX_FILES:,} files: the rest were not read")
                )
                break
            shown = path.relative_to(root).as_posix()
            source = Source(path, shown, "company-brain")
            try:
                text = _read(path, root)
            except (OSError, ValueError) as exc:
                run.memories.unreadable.append(
                    (shown, str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)
                )
                continue
            run.memories.sources.append(source)
            pieces, _ = _pieces(text, memory_class, graph_ids)
            for piece, cls, tags in pieces:
                item: Imported = _check_and_queue(
                    Prepared(piece, cls, tags), source, commit=None, repo=repo, layout=layout,
                    machine=machine, repo_key=repo_key, dry_run=dry_run,
                )  # fmt: skip
                run.memories.items.append(item)
    _import_notes(machine, root, run, repo_key, dry_run)
    return run


def _import_records(
    layout: BrainLayout, machine: MachineLayout, root: Path, run: CompanyImport, *,
    repo_key: str | None, dry_run: bool,
) -> set[str]:  # fmt: skip
    """Queue the folder's graph records that the ontology accepts, checked all together with
    this brain's graph (an edge to another imported node is not dangling); the node ids."""
    from teambrain_capture import queue_record
    from teambrain_schema import RecordDraft, ValidationFailure
    from teambrain_schema.graph import Graph, load_graph, parse_record
    from teambrain_schema.graph_lint import lint_records, record_relpath
    from teambrain_schema.ontology import load_ontology

    ontology = load_ontology(layout)
    existing = load_graph(layout, reference_attributes=ontology.rules.reference_attributes)
    parsed: list[tuple[str, Any]] = []
    for path in _files(root, "graph", (".yaml", ".yml"), run.left_out):
        shown = path.relative_to(root).as_posix()
        try:
            text = _read(path, root)
        except (OSError, ValueError) as exc:
            run.files.append(ImportedFile("record", shown, "skipped", "?", f"cannot read: {exc}"))
            continue
        record = parse_record(shown, text)
        if record.record is None:
            first = record.problems[0]
            run.files.append(
                ImportedFile(
                    "record",
                    shown,
                    "skipped",
                    "?",
                    f"{shown}:{first.line}: {first.rule}: {first.message}",
                )
            )
            continue
        parsed.append((shown, record.record))
    records = [r for _, r in parsed]
    ids = {r.id for r in records}
    combined = Graph(
        [*(r for r in existing.records if r.id not in ids), *records],
        reference_attributes=ontology.rules.reference_attributes,
    )
    memories: dict[str, str] = {}
    problems: dict[str, list[str]] = {}
    for violation in lint_records(combined, ontology, memories).violations:
        if violation.severity == "error" and violation.path in {s for s, _ in parsed}:
            problems.setdefault(violation.path, []).append(violation.format())
    unknown = sorted({r.node_kind for r in records if ontology.node_kind(r.node_kind) is None})
    if unknown:
        run.left_out.append(
            (
                "ontology",
                f"node kinds this brain's ontology lacks: {', '.join(unknown)} (add them to .teambrain/ontology/node-kinds.yaml to import those records)",
            )
        )
    for shown, record in parsed:
        target = record.id
        if shown in problems:
            run.files.append(ImportedFile("record", shown, "skipped", target, problems[shown][0]))
            continue
        draft = RecordDraft.model_validate(_draft_data(record))
        if dry_run:
            run.files.append(ImportedFile("record", shown, "would-queue", target,
                                          f"to {record_relpath(existing, record.id, record.node_kind, layout)}"))  # fmt: skip
            continue
        try:
            candidate, created = queue_record(draft, "human", repo=repo_key, machine=machine,
                                              reason=f"imported from {root / shown}"[:500])  # fmt: skip
        except ValidationFailure as exc:  # too large to read back from the queue
            run.files.append(ImportedFile("record", shown, "skipped", target, exc.message))
            continue
        run.files.append(ImportedFile("record", shown, "queued" if created else "already-queued",
                                      target, None, candidate.candidate_id))  # fmt: skip
    return ids | set(existing.nodes)


def _draft_data(record: Any) -> dict[str, Any]:
    edges: dict[str, list[str]] = {}
    for edge in record.edges:
        edges.setdefault(edge.kind, []).append(edge.target)
    return {
        "nodeKind": record.node_kind,
        "id": record.id,
        "attributes": record.attributes,
        "edges": edges,
    }


def _import_notes(
    machine: MachineLayout, root: Path, run: CompanyImport, repo_key: str | None, dry_run: bool
) -> None:
    """Queue the folder's notes, with the scans every note gets."""
    from pydantic import ValidationError
    from teambrain_capture import queue_note
    from teambrain_kit.injection import find_injections
    from teambrain_kit.secrets import find_secrets
    from teambrain_schema import NoteDraft

    for folder in NOTE_FOLDERS:
        for path in _files(root, folder, (".md",), run.left_out):
            shown = path.relative_to(root).as_posix()
            inside = shown.removeprefix("notes/")
            try:
                text = _read(path, root)
            except (OSError, ValueError) as exc:
                run.files.append(
                    ImportedFile("note", shown, "skipped", inside, f"cannot read: {exc}")
                )
                continue
            secrets = find_secrets(text)
            injections = find_injections(text)
            if secrets or injections:
                why = (f"{secrets[0].rule} at line {secrets[0].line}" if secrets
                       else f"looks like a prompt injection at line {injections[0].line}")  # fmt: skip
                run.files.append(ImportedFile("note", shown, "skipped", inside, why))
                continue
            try:
                note = NoteDraft(path=inside, text=text)
            except ValidationError as exc:
                reason = exc.errors()[0].get("msg", "not a note")
                run.files.append(ImportedFile("note", shown, "skipped", inside, str(reason)))
                continue
            if dry_run:
                run.files.append(ImportedFile("note", shown, "would-queue", inside))
                continue
            candidate, created = queue_note(note, "human", repo=repo_key, machine=machine,
                                            reason=f"imported from {root / shown}"[:500])  # fmt: skip
            run.files.append(ImportedFile("note", shown, "queued" if created else "already-queued",
                                          inside, None, candidate.candidate_id))  # fmt: skip
