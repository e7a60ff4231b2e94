"""``tb import``: the instructions a team already wrote for its agent tools, as memory-sized
candidates in the review queue — split, classed, tagged, checked like any candidate, proposed
only through ``tb propose``. The source files are read, never written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from teambrain_schema import UserError, ValidationFailure

from .markdown import Piece, split_front_matter, split_pieces
from .sources import (
    MAX_SOURCE_BYTES,
    Source,
    claude_auto_memory,
    discover,
    tool_for,
    without_exported_section,
)

if TYPE_CHECKING:
    from teambrain_schema import Proposer
    from teambrain_schema.paths import BrainLayout, MachineLayout
    from teambrain_sync import GitRepo

Result = Literal["queued", "would-queue", "already-queued", "in-brain", "skipped"]
# New candidates one run queues (or would queue): the review queue stays one people can get
# through. Pieces already queued, in the brain or skipped do not count, so running again
# after a review takes the rest.
MAX_PIECES = 500
_WORD = re.compile(r"[a-z][a-z0-9]+")
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "our",
        "this",
        "that",
        "your",
        "you",
        "are",
        "use",
        "using",
        "how",
        "what",
        "when",
        "where",
        "which",
        "from",
        "into",
        "about",
        "all",
        "any",
        "not",
        "never",
        "always",
        "don't",
        "dont",
        "code",
        "project",
        "notes",
        "note",
        "rules",
        "rule",
        "guide",
        "guidelines",
        "instructions",
        "general",
        "important",
    ]
)
# Words that say which class a piece is, looked for in its headings (weighing triple) and body.
_CLASS_WORDS: dict[str, tuple[str, ...]] = {
    "map": ("architecture", "structure", "layout", "overview", "directory", "directories",
            "folders", "modules", "codebase", "components", "where things", "lives in",
            "project brief", "tech context", "system patterns", "entry point"),
    "decision": ("decision", "decided", "we chose", "we use", "rationale", "why we",
                 "instead of", "trade-off", "tradeoff", "adr", "must not use", "prefer "),
    "learning": ("gotcha", "pitfall", "known issue", "lesson", "learned", "troubleshoot",
                 "debug", "workaround", "flaky", "caveat", "beware", "watch out", "progress",
                 "active context", "fails when", "breaks when"),
}  # fmt: skip


@dataclass(frozen=True)
class Imported:
    """What became of one piece of one source."""

    source: Source
    line: int
    title: str
    memory_class: str
    result: Result
    reason: str | None = None
    candidate_id: str | None = None
    tags: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source.shown, "line": self.line, "title": self.title,
            "class": self.memory_class, "result": self.result, "reason": self.reason,
            "candidate_id": self.candidate_id, "tags": list(self.tags),
        }  # fmt: skip


@dataclass
class ImportRun:
    """A whole ``tb import``: the sources read, each piece's fate, the sources that could not
    be read, and personal sources found but not asked for."""

    sources: list[Source] = field(default_factory=list)
    items: list[Imported] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    personal_available: list[Source] = field(default_factory=list)
    dry_run: bool = False
    # Pieces not checked once MAX_PIECES were queued: (source, how many), in order.
    left_out: list[tuple[str, int]] = field(default_factory=list)

    def left_out_note(self) -> str | None:
        """What the cap left out and how to get it, in one line; None when nothing was."""
        if not self.left_out:
            return None
        total = sum(n for _, n in self.left_out)
        files = ", ".join(f"{shown}: {n}" for shown, n in self.left_out)
        how = (
            "a run without --dry-run queues the first ones; run it again after reviewing them"
            if self.dry_run
            else "review these with `tb candidates`, then run `tb import` again"
        )
        return (
            f"stopped at {MAX_PIECES} new candidates, the most one `tb import` queues: "
            f"{total} more piece(s) were not checked ({files}); {how} — what is already "
            "queued or in the brain is skipped and does not count"
        )

    def count(self, result: Result) -> int:
        return sum(1 for item in self.items if item.result == result)

    def to_json(self) -> dict[str, object]:
        return {
            "dry_run": self.dry_run,
            "sources": [s.to_json() for s in self.sources],
            "results": [i.to_json() for i in self.items],
            "unreadable": [{"path": p, "reason": r} for p, r in self.unreadable],
            "personal_available": [s.to_json() for s in self.personal_available],
            "left_out": [{"source": shown, "pieces": n} for shown, n in self.left_out],
        }


def classify(headings: Sequence[str], body: str, tool: str) -> str:
    """decision, convention, map or learning, from the words of the headings (weighing triple)
    and the body; convention when nothing says otherwise (most instructions are)."""
    head = " ".join(headings).lower()
    text = body.lower()
    scores = {
        name: 3 * sum(head.count(word) for word in words) + sum(text.count(word) for word in words)
        for name, words in _CLASS_WORDS.items()
    }
    if tool == "claude-auto-memory":
        scores["learning"] += 2  # what an agent noted while working
    best = max(scores, key=lambda name: scores[name])
    return best if scores[best] >= 2 else "convention"


def _tags(headings: Sequence[str], tool: str, extra: Sequence[str] = ()) -> tuple[str, ...]:
    words = [w for w in _WORD.findall(" ".join(headings[-2:]).lower()) if w not in _STOP]
    tags = ["imported", f"from:{tool}", *extra, *dict.fromkeys(words)]
    clean = [t[:40].rstrip("-.:/") for t in tags if t]
    return tuple(
        dict.fromkeys(t for t in clean if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:/\-]*", t))
    )[:8]


def _front_matter_hints(front: str | None) -> tuple[str | None, list[str]]:
    """(a heading from ``description``, lines to put first: the files it applies to) from a
    Cursor ``.mdc`` or Copilot ``.instructions.md`` front matter."""
    if not front:
        return None, []
    from teambrain_schema.yaml import YamlProblem, load_yaml

    try:
        data: Any = load_yaml(front)
    except (YamlProblem, ValueError):
        return None, []
    if not isinstance(data, dict):
        return None, []
    description = data.get("description")
    globs = data.get("globs") or data.get("applyTo")
    if isinstance(globs, str):
        globs = [g.strip() for g in globs.split(",") if g.strip()]
    applies = [g for g in globs if isinstance(g, str)] if isinstance(globs, list) else []
    lines = [f"Applies to {', '.join(f'`{g}`' for g in applies[:10])}."] if applies else []
    return (str(description).strip() or None) if description else None, lines


def _read(source: Source, repo: Path) -> str:
    from teambrain_schema.local_files import read_file_within, read_local_text

    if source.personal:
        return read_local_text(source.path, max_bytes=MAX_SOURCE_BYTES)
    return read_file_within(source.path, repo, max_bytes=MAX_SOURCE_BYTES).decode("utf-8")


def source_pieces(source: Source, text: str) -> list[tuple[Piece, str, tuple[str, ...]]]:
    """Each piece of ``text`` (the source's content) with its class and tags: front matter read
    for hints, the exported section and ``<private>`` spans removed first."""
    from teambrain_schema.scrub import PRIVATE_MARK, strip_private

    front, rest, skipped = split_front_matter(text.replace("\r\n", "\n"))
    heading, applies = _front_matter_hints(front)
    # A private span is removed whole: no "[private]" placeholder is worth a memory's words.
    rest = strip_private(without_exported_section(rest)).replace(PRIVATE_MARK, "")
    stem = source.path.name.split(".")[0]
    if heading is None and source.tool in (
        "cursor",
        "windsurf",
        "cline",
        "copilot",
        "cline-memory-bank",
    ):
        heading = " ".join(re.split(r"[-_]|(?<=[a-z])(?=[A-Z])", stem)).strip().capitalize() or None
    out = []
    for piece in split_pieces(rest, first_line=skipped + 1):
        headings = ((heading,) if heading else ()) + piece.headings
        title = piece.title if piece.headings or not heading else heading
        body = "\n\n".join([*applies, piece.body]) if applies else piece.body
        memory_class = classify(headings, body, source.tool)
        tags = _tags(headings, source.tool)
        out.append((Piece(title, body, piece.line, headings), memory_class, tags))
    return out


def _last_commit(repo: Path, source: Source) -> str | None:
    """The commit that last changed a tracked, unmodified source: its evidence."""
    if source.personal:
        return None
    from teambrain_schema.git import git_output

    relpath = source.path.relative_to(repo).as_posix()
    dirty = git_output(["status", "--porcelain", "--", relpath], cwd=repo)
    if dirty is None or dirty.strip():
        return None
    out = git_output(["log", "-1", "--format=%H", "--", relpath], cwd=repo)
    sha = out.decode("ascii", "replace").strip() if out else ""
    return sha or None


def choose_sources(
    repo: Path, paths: Sequence[str], *, auto_memory: bool
) -> tuple[list[Source], list[Source]]:
    """(the sources to read, personal ones found but not asked for): the files given (inside the
    repository), else every known one; Claude Code's auto memory only with ``auto_memory``."""
    personal = claude_auto_memory(repo)
    if paths:
        chosen = []
        for given in paths:
            path = (Path.cwd() / given).resolve() if not Path(given).is_absolute() else Path(given)
            if not path.is_file():
                raise UserError(f"{given}: no such file")
            if not path.is_relative_to(repo.resolve()):
                raise UserError(
                    f"{given}: not inside this repository (use --auto-memory for Claude Code's)"
                )
            rel = path.relative_to(repo.resolve()).as_posix()
            chosen.append(Source(repo / rel, rel, tool_for(rel)))
    else:
        chosen = discover(repo)
    if auto_memory:
        return chosen + personal, []
    return chosen, personal


def import_instructions(
    layout: BrainLayout,
    machine: MachineLayout,
    *,
    paths: Sequence[str] = (),
    auto_memory: bool = False,
    dry_run: bool = False,
) -> ImportRun:
    """Split the instruction files into candidates and queue the ones every check lets
    through (with ``dry_run``, only say what would be queued). Each piece is validated (schema,
    secrets), scanned for prompt injection and compared with the brain and the open proposals,
    exactly as ``memory_propose`` does; the spool notes where each came from."""
    from teambrain_capture import repo_join_key
    from teambrain_schema import EnvironmentProblem
    from teambrain_sync import open_repo

    repo_root = layout.repo_root
    sources, personal = choose_sources(repo_root, paths, auto_memory=auto_memory)
    run = ImportRun(sources=[], personal_available=personal, dry_run=dry_run)
    repo: GitRepo | None
    try:
        repo = open_repo(repo_root)
    except EnvironmentProblem:  # no git: the brain in the checkout is still compared
        repo = None
    repo_key = repo_join_key(repo_root)
    new = 0
    for source in sources:
        try:
            text = _read(source, repo_root)
        except (OSError, ValueError) as exc:
            run.unreadable.append(
                (source.shown, str(exc).splitlines()[0] if str(exc) else exc.__class__.__name__)
            )
            continue
        run.sources.append(source)
        pieces = source_pieces(source, text)
        if new >= MAX_PIECES:  # the cap was hit: this file is only counted, and said
            run.left_out.append((source.shown, len(pieces)))
            continue
        commit = _last_commit(repo_root, source)
        for index, (piece, memory_class, tags) in enumerate(pieces):
            if new >= MAX_PIECES:
                run.left_out.append((source.shown, len(pieces) - index))
                break
            item = _check_and_queue(
                piece, memory_class, tags, source, commit=commit, repo=repo, layout=layout,
                machine=machine, repo_key=repo_key, dry_run=dry_run,
            )  # fmt: skip
            run.items.append(item)
            new += item.result in ("queued", "would-queue")
    return run


def _check_and_queue(
    piece: Piece, memory_class: str, tags: tuple[str, ...], source: Source, *,
    commit: str | None, repo: GitRepo | None, layout: BrainLayout, machine: MachineLayout,
    repo_key: str | None, dry_run: bool,
) -> Imported:  # fmt: skip
    """One piece through the gates of ``memory_propose`` and, when it passes, into the spool."""
    from teambrain_capture import queue_candidate, save_candidate
    from teambrain_schema.drafts import validate_draft
    from teambrain_schema.secrets import redact_secrets
    from teambrain_sync import check_draft

    where = f"{source.shown} line {piece.line}"
    shown = redact_secrets(piece.title)  # a title with a secret in it is reported, never printed

    def outcome(
        result: Result, reason: str | None = None, candidate: str | None = None
    ) -> Imported:
        return Imported(source, piece.line, shown, memory_class, result, reason, candidate, tags)

    data: dict[str, Any] = {
        "class": memory_class, "title": piece.title, "body": piece.body, "tags": list(tags),
        "evidence": {"sessions": [], "commits": [commit]} if commit else None,
    }  # fmt: skip
    try:
        draft = validate_draft(data)
    except ValidationFailure as exc:
        return outcome("skipped", f"{where}: {exc.message}")
    verdict = check_draft(repo, layout, draft)
    if verdict.injection:
        return outcome("skipped", f"{where}: looks like a prompt injection: {verdict.injection}")
    if verdict.holder is not None:
        return outcome("in-brain", verdict.note())
    if dry_run:
        return outcome("would-queue")
    proposer: Proposer = "agent" if source.personal else "human"
    candidate, created = queue_candidate(draft, proposer, repo=repo_key, machine=machine)
    if created:
        note = f"imported from {where}"[:500]
        save_candidate(candidate.model_copy(update={"note": note}), machine=machine)
    return outcome("queued" if created else "already-queued", None, candidate.candidate_id)
