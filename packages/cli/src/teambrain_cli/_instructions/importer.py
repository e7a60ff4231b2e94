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
    MARK_BEGIN,
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
# Headings that name a class of memory ("Decisions", "Gotchas", "Architecture") decide it for
# the pieces under them (weight 3); headings that name a topic ("Testing", "Deploying") only lean
# (weight 1). The nearest heading counts fully, the ones above it a third.
_HEADING_CLASSES: tuple[tuple[str, int, re.Pattern[str]], ...] = tuple(
    (name, weight, re.compile(rf"\b(?:{words})\b", re.IGNORECASE))
    for name, weight, words in (
        ("decision", 3, r"decisions?|decided|adrs?|rationale|why|trade-?offs?|choices|"
                        r"architecture decisions?"),
        ("learning", 3, r"gotchas?|pitfalls?|known (?:issues?|problems?)|lessons?(?: learned)?|"
                        r"learnings?|troubleshooting|debugging|caveats?|quirks?|common mistakes|"
                        r"notes?|active context|progress|current focus|faq"),
        ("map", 3, r"architecture|structure|layout|overview|director(?:y|ies)|folders?|"
                   r"codebase|(?:project|repo|code) map|tech(?:nology)? stack|stack|"
                   r"system patterns|project brief|tech context|key files|packages|services|"
                   r"data model|about|where things (?:are|live)|glossary"),
        ("convention", 3, r"conventions?|style|guidelines?|rules?|standards?|best practices|"
                          r"dos?|don'?ts?|naming|formatting"),
        ("convention", 1, r"testing|tests|commands?|workflow|git|commits?|pull requests?|prs?|"
                          r"reviews?|security|setup|deploy(?:ing|ment)?|releases?|ci|lint(?:ing)?|"
                          r"errors?|logging|instructions|environment|config(?:uration)?|"
                          r"variables|api|access|dependencies"),
    )
)  # fmt: skip
# What the text itself says: (class, weight, pattern) over the lower-cased body.
_TEXT_CUES: tuple[tuple[str, int, re.Pattern[str]], ...] = tuple(
    (name, weight, re.compile(pattern))
    for name, weight, pattern in (
        ("decision", 3, r"\bwe (?:chose|decided|picked|went with|moved|switched|stayed|kept|"
                        r"settled on|opted|standardi[sz]ed on)\b|\bdecided (?:to|against|on)\b|"
                        r"\bwe use \S+ (?:instead of|over|rather than)\b"),
        ("decision", 2, r"\bwe (?:use|run|host|store|deploy|build|keep|avoid|prefer)\b"),
        ("decision", 1, r"\binstead of\b|\brather than\b|\bbecause\b|\btrade-?off\b|"
                        r"\bin favou?r of\b|\bsince (?:the|we|our|\d{4})\b|\bover (?:the )?\w+ for\b"),
        ("learning", 2, r"\bgotcha\b|\bflaky\b|\bworkaround\b|\bturns out\b|\bif you see\b|"
                        r"\bwatch out\b|\bbeware\b|\bcaused by\b|\bout of memory\b|"
                        r"^(?:note|nb|heads up|careful)\b"),
        ("learning", 1, r"\bfails?\b|\bfailures?\b|\bbreaks?\b|\btimes? out\b|\btimeout\b|"
                        r"\bexhausts?\b|\bsilently\b|\bstale\b|\bbug\b|\bdiffer\b|"
                        r"\bcannot\b|\bcan't\b|\bslow\b|\bnothing says\b|\bretry\b"),
        ("map", 2, r"\blives? (?:in|under)\b|\bare in `|\bis in `|\bentry point\b|\blocated\b|"
                   r"\bmounted at\b|\btalks? to\b|\byou are working on\b|"
                   r"^(?:this|the) (?:repo|repository|project|monorepo|app|service|codebase)\b|"
                   r"(?:\bis |^)an? [\w+ .()-]{0,60}\b(?:app|application|service|library|monorepo|"
                   r"platform|shop|tool|api|website|site|backend|frontend|cli)\b"),
        ("map", 1, r"\bholds?\b|\bcontains?\b|\bruns? on\b"),
        ("convention", 2, r"^(?:use|never|always|don'?t|do not|avoid|prefer|keep|put|name|write|"
                          r"run|add|make sure|ensure|follow|format|wrap|stub|check|ask|read|raise|"
                          r"paginate|log|store|set|open|merge|wait|install|start|fix|every|no|"
                          r"only|plan|test|tag|document|commit|push|review|call|return|pass|"
                          r"validate|import|export|create|update|delete|remove)\b"),
        ("convention", 2, r"\b(?:must|should|never|always|do not|don't)\b"),
        ("convention", 2, r"\b(?:forbidden|not allowed|required|mandatory|enforced|lint error)\b"),
    )
)  # fmt: skip


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
    redacted: tuple[Redaction, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source.shown, "line": self.line, "title": self.title,
            "class": self.memory_class, "result": self.result, "reason": self.reason,
            "candidate_id": self.candidate_id, "tags": list(self.tags),
            "redacted": [r.to_json() for r in self.redacted],
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


def classify(headings: Sequence[str], body: str, tool: str, *, topic: str | None = None) -> str:
    """decision, convention, map or learning: what the nearest heading that names a class says
    (the ones above it, and a rule file's ``topic``, lean a little), weighed with what the text
    says (a choice and its reason, a place in the code, a trap, an instruction); convention
    when nothing says otherwise (most instructions are)."""
    scores = dict.fromkeys(("decision", "convention", "map", "learning"), 0.0)
    said = dict.fromkeys(scores, 0.0)  # by the text alone: it breaks a tie
    nearest = True
    for heading in reversed(headings):
        found = [
            (name, weight) for name, weight, words in _HEADING_CLASSES if words.search(heading)
        ]
        for name, weight in found[:1]:
            scores[name] += weight if nearest else weight / 3
        nearest = nearest and not found
    if topic and topic.casefold().replace(" ", "") not in {
        h.casefold().replace(" ", "") for h in headings
    }:  # a memory bank's "techContext.md" says what its "# Tech Context" says: once
        for name, weight, words in _HEADING_CLASSES:
            if words.search(topic):
                scores[name] += weight / 3
                break
    lines = [line.strip() for line in body.lower().split("\n") if line.strip()]
    text = " ".join(lines)
    starts = [re.sub(r"^(?:[-*+]|\d{1,9}[.)])?[^a-z0-9`]*", "", line) for line in lines]
    for name, weight, cue in _TEXT_CUES:
        if cue.pattern.startswith("^"):  # how a line starts: "Use …", "Never …", "Note: …"
            said[name] += weight * min(sum(1 for line in starts if cue.search(line)), 2)
        elif cue.pattern.startswith("(?:\\bis |^)"):
            said[name] += (
                weight if cue.search(starts[0] if starts else "") or cue.search(text) else 0
            )
        else:
            said[name] += weight * min(len(cue.findall(text)), 2)
    if tool == "claude-auto-memory":
        said["learning"] += 2  # what an agent noted while working
    for name in scores:
        scores[name] += said[name]
    best = max(scores, key=lambda name: (scores[name], said[name], name == "convention"))
    return best if scores[best] > 0 else "convention"


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


@dataclass(frozen=True)
class Redaction:
    """A secret found in a source: its line, the rule that found it, and the line as imported
    (the secret replaced by ``[REDACTED:<rule>]``: the rest of the rule is kept)."""

    line: int
    rule: str
    text: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "rule": self.rule, "text": self.text}


@dataclass(frozen=True)
class Prepared:
    """One piece of a source, ready for the checks: the piece, its class and tags, and the
    secrets redacted in it."""

    piece: Piece
    memory_class: str
    tags: tuple[str, ...]
    redactions: tuple[Redaction, ...] = ()


_PRIVATE_SPAN = re.compile(
    r"<private(?![\w-])[^>]*>.*?(?:</private[^>]*>|\Z)", re.IGNORECASE | re.S
)


def _blanked(text: str, start: int, end: int) -> str:
    """``text`` with ``[start, end)`` removed but its line breaks kept, so every line after it
    keeps its number (what ``tb import`` reports is the line in the file)."""
    return text[:start] + "\n" * text.count("\n", start, end) + text[end:]


def _without_private(text: str) -> str:
    """``text`` without its ``<private>`` spans (whole: no placeholder is worth a memory's
    words), line numbers kept; then schema's own rule, for anything shaped otherwise."""
    from teambrain_schema.scrub import PRIVATE_MARK, strip_private

    for match in reversed(list(_PRIVATE_SPAN.finditer(text))):
        text = _blanked(text, match.start(), match.end())
    return strip_private(text).replace(PRIVATE_MARK, "")


def _without_export(text: str) -> str:
    """``text`` without the section ``tb export`` wrote, line numbers kept."""
    rest = without_exported_section(text)
    if rest == text:
        return text
    start = text.find(MARK_BEGIN)
    return _blanked(text, start, start + len(text) - len(rest))


def redact_text(text: str, *, first_line: int = 1) -> tuple[str, list[Redaction]]:
    """``text`` with every secret replaced by ``[REDACTED:<rule>]`` (a secret over several
    lines keeps their breaks), and each one found: its line (``first_line`` is the first
    line's number) and that line as it now reads."""
    from teambrain_schema.secrets import REDACTION_TEMPLATE, find_secrets

    findings = find_secrets(text)
    if not findings:
        return text, []
    parts: list[str] = []
    cursor = 0
    for finding in findings:
        parts.append(text[cursor : finding.start])
        marker = REDACTION_TEMPLATE.format(rule=finding.rule)
        parts.append(marker + "\n" * text.count("\n", finding.start, finding.end))
        cursor = finding.end
    parts.append(text[cursor:])
    redacted = "".join(parts)
    lines = redacted.split("\n")
    found = [
        Redaction(first_line + f.line - 1, f.rule, lines[f.line - 1].strip()[:200])
        for f in findings
    ]
    return redacted, found


def prepare_pieces(source: Source, text: str) -> list[Prepared]:
    """Each piece of ``text`` (the source's content), one rule or decision each, with its class
    and tags: the front matter read for hints (a rule file's description titles it when it
    holds one rule; the files it applies to come first), the exported section and ``<private>``
    spans removed, and every secret redacted where it is — only that value, on that line; the
    rest of the rule is kept."""
    from teambrain_schema.secrets import redact_secrets

    front, rest, skipped = split_front_matter(text.replace("\r\n", "\n"))
    description, applies = _front_matter_hints(front)
    description = redact_secrets(description) if description else None
    rest, redactions = redact_text(_without_private(_without_export(rest)), first_line=skipped + 1)
    topic = description
    if topic is None and source.tool in ("cursor", "windsurf", "cline", "copilot",
                                         "cline-memory-bank"):  # fmt: skip
        stem = source.path.name.split(".")[0]
        topic = " ".join(re.split(r"[-_]|(?<=[a-z])(?=[A-Z])", stem)).strip().capitalize() or None
    pieces = split_pieces(rest, first_line=skipped + 1)
    out = []
    for piece in pieces:
        title = (
            description if description and len(pieces) == 1 and not piece.headings else piece.title
        )
        body = "\n\n".join([*applies, piece.body]) if applies else piece.body
        headings = ((topic,) if topic else ()) + piece.headings
        memory_class = classify(piece.headings, body, source.tool, topic=topic)
        tags = _tags(headings, source.tool)
        own = set(piece.lines)
        mine = tuple(r for r in redactions if r.line in own)
        out.append(
            Prepared(
                Piece(title[:80], body, piece.line, headings, piece.lines), memory_class, tags, mine
            )
        )
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
        pieces = prepare_pieces(source, text)
        if new >= MAX_PIECES:  # the cap was hit: this file is only counted, and said
            run.left_out.append((source.shown, len(pieces)))
            continue
        commit = _last_commit(repo_root, source)
        for index, prepared in enumerate(pieces):
            if new >= MAX_PIECES:
                run.left_out.append((source.shown, len(pieces) - index))
                break
            item = _check_and_queue(
                prepared, source, commit=commit, repo=repo, layout=layout,
                machine=machine, repo_key=repo_key, dry_run=dry_run,
            )  # fmt: skip
            run.items.append(item)
            new += item.result in ("queued", "would-queue")
    return run


def _injection_line(piece: Piece) -> tuple[int, str] | None:
    """The source line of the first prompt injection in ``piece`` and what it says."""
    from teambrain_schema.injection import find_injections

    for text, offset in ((piece.title, None), (piece.body, 0)):
        found = find_injections(text)
        if found:
            first = found[0]
            index = first.line - 1
            line = piece.line
            if offset is not None and index < len(piece.lines) and piece.lines[index]:
                line = piece.lines[index]
            return line, f"{first.rule}: {first.excerpt!r}"
    return None


def _check_and_queue(
    prepared: Prepared, source: Source, *,
    commit: str | None, repo: GitRepo | None, layout: BrainLayout, machine: MachineLayout,
    repo_key: str | None, dry_run: bool,
) -> Imported:  # fmt: skip
    """One piece through the gates of ``memory_propose`` and, when it passes, into the spool
    (its secrets were redacted on their lines already: what is left is checked as is)."""
    from teambrain_capture import queue_candidate, save_candidate
    from teambrain_schema.drafts import validate_draft
    from teambrain_schema.secrets import redact_secrets
    from teambrain_sync import check_draft

    piece, memory_class, tags = prepared.piece, prepared.memory_class, prepared.tags
    where = f"{source.shown} line {piece.line}"
    shown = redact_secrets(piece.title)  # a title with a secret in it is reported, never printed

    def outcome(
        result: Result, reason: str | None = None, candidate: str | None = None
    ) -> Imported:
        return Imported(
            source, piece.line, shown, memory_class, result, reason, candidate, tags,
            prepared.redactions,
        )  # fmt: skip

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
        found = _injection_line(piece)
        if found is not None:
            line, what = found
            return outcome(
                "skipped", f"{source.shown} line {line}: looks like a prompt injection ({what})"
            )
        return outcome("skipped", f"{where}: looks like a prompt injection: {verdict.injection}")
    if verdict.holder is not None:
        return outcome("in-brain", verdict.note())
    if dry_run:
        return outcome("would-queue")
    proposer: Proposer = "agent" if source.personal else "human"
    candidate, created = queue_candidate(draft, proposer, repo=repo_key, machine=machine)
    if created:
        note = f"imported from {where}"
        if prepared.redactions:
            lines = ", ".join(str(r.line) for r in prepared.redactions)
            note += f"; a secret redacted on line {lines}: check the redacted value is not needed"
        note = note[:500]
        save_candidate(candidate.model_copy(update={"note": note}), machine=machine)
    return outcome("queued" if created else "already-queued", None, candidate.candidate_id)
