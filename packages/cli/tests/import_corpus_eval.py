"""The labelled corpus of agent instruction files under ``import_corpus/`` and how well an
importer splits and classes it: pieces right, classes right, lines lost.

Each corpus file is an instruction file as teams write them, annotated by hand with lines
``%% <label>`` (removed before the importer sees the text) before each expected piece:

- ``%% decision`` / ``convention`` / ``map`` / ``learning``: a piece of that class starts on the
  next line and runs to the line before the next label or heading (blank lines trimmed);
- ``%% lead``: a lead-in ("Before merging:"), no piece of its own — its words go with the
  pieces after it;
- ``%% drop``: text that says nothing a memory should (the line tools write atop the file);
- ``%% skip``: a piece the checks must refuse (a prompt injection).

Labelled from what a reviewer would want as memories, not from what the importer does. Used by
``test_import_corpus.py`` (floors) and ``benchmarks/bench_import.py`` (the rates).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

CORPUS = Path(__file__).parent / "import_corpus"
CLASSES = ("decision", "convention", "map", "learning")
_LABEL = re.compile(r"^%% (decision|convention|map|learning|lead|drop|skip)\s*$")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]")
_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")


@dataclass(frozen=True)
class Expected:
    """One labelled span of a corpus file (1-based lines of the clean text, inclusive)."""

    start: int
    end: int
    label: str  # a class, or lead / drop / skip

    @property
    def is_piece(self) -> bool:
        return self.label in CLASSES


@dataclass(frozen=True)
class Case:
    """One corpus file: where it sits in a repository, its text without labels, its labels."""

    relpath: str
    text: str
    expected: tuple[Expected, ...]


@dataclass(frozen=True)
class Got:
    """What an importer made of one piece: its first source line, body, class, and whether the
    checks refused it (then nothing of it is imported)."""

    line: int
    body: str
    memory_class: str
    refused: bool = False


@dataclass
class Rates:
    expected_pieces: int = 0
    pieces_right: int = 0
    extra_pieces: int = 0  # pieces no label asked for (a lumped or cut piece)
    classes_right: int = 0  # of the expected pieces, by the class of the piece holding its start
    lines: int = 0  # lines of text a memory should keep (not headings, labels, dropped text)
    lines_lost: int = 0
    lost: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)

    def line(self, name: str) -> str:
        return (
            f"{name}: pieces right {self.pieces_right}/{self.expected_pieces} "
            f"({self.pieces_right / self.expected_pieces:.0%}), extra pieces {self.extra_pieces}, "
            f"classes right {self.classes_right}/{self.expected_pieces} "
            f"({self.classes_right / self.expected_pieces:.0%}), "
            f"lines lost {self.lines_lost}/{self.lines} ({self.lines_lost / self.lines:.1%})"
        )


def load_cases(root: Path = CORPUS) -> list[Case]:
    cases = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        case_dir = path.relative_to(root).parts[0]
        relpath = path.relative_to(root / case_dir).as_posix()
        clean: list[str] = []
        marks: list[tuple[int, str]] = []
        for raw in path.read_text("utf-8").split("\n"):
            label = _LABEL.match(raw)
            if label:
                marks.append((len(clean) + 1, label.group(1)))
            else:
                clean.append(raw)
        expected = []
        for index, (start, label) in enumerate(marks):
            limit = marks[index + 1][0] - 1 if index + 1 < len(marks) else len(clean)
            end = start
            for number in range(start, limit + 1):
                if _HEADING.match(clean[number - 1]):
                    break
                if clean[number - 1].strip():
                    end = number
            expected.append(Expected(start, end, label))
        cases.append(Case(f"{case_dir}/{relpath}", "\n".join(clean), tuple(expected)))
    return cases


def _norm(text: str) -> str:
    return " ".join(_MARKER.sub("", text).split())


def span_of(got: Got, lines: Sequence[str]) -> tuple[int, int]:
    """The first and last source line of ``got``'s own text: its body's lines found in order
    from its first line (lines the importer added, such as a lead-in, are not found there)."""
    cursor = got.line
    first = last = None
    for body_line in got.body.split("\n"):
        wanted = _norm(body_line)
        if not wanted:
            continue
        for number in range(cursor, len(lines) + 1):
            if _norm(lines[number - 1]) == wanted:
                first = number if first is None else first
                last = number
                cursor = number + 1
                break
    return (first or got.line, last or got.line)


def evaluate(
    importer: Callable[[str, str], list[Got]],
    cases: Sequence[Case] | None = None,
    redact: Callable[[str], str] | None = None,
) -> Rates:
    """Run ``importer(relpath, text)`` over the corpus and compare with the labels."""
    from teambrain_kit.secrets import redact_secrets

    redact = redact or redact_secrets
    rates = Rates()
    for case in cases if cases is not None else load_cases():
        lines = case.text.split("\n")
        relpath = case.relpath.split("/", 1)[1]
        got = importer(relpath, case.text)
        kept = [g for g in got if not g.refused]
        spans = [(span_of(g, lines), g) for g in kept]
        pieces = [e for e in case.expected if e.is_piece]
        rates.expected_pieces += len(pieces)
        matched = {(e.start, e.end) for e in pieces} & {span for span, _ in spans}
        rates.pieces_right += len(matched)
        rates.extra_pieces += sum(1 for span, _ in spans if span not in matched)
        for expected in pieces:
            holder = next((g for (start, end), g in spans if start <= expected.start <= end), None)
            if holder is not None and holder.memory_class == expected.label:
                rates.classes_right += 1
            else:
                shown = holder.memory_class if holder else "no piece"
                rates.wrong.append(f"{case.relpath}:{expected.start} {expected.label} → {shown}")
        # Lines lost: every line a memory should keep, found (secrets redacted) in a body.
        bodies = [_norm(g.body.replace("\n", " ")) for g in kept]
        not_kept = {
            number
            for e in case.expected
            if e.label in ("drop", "skip")
            for number in range(e.start, e.end + 1)
        }
        front = _front_matter_lines(lines)
        for number, text in enumerate(lines, start=1):
            if (
                number in not_kept
                or number <= front
                or not text.strip()
                or _HEADING.match(text)
                or not re.search(r"\w", text)
                or re.fullmatch(r"\s*(`{3,}|~{3,})\w*\s*", text)
            ):
                continue
            rates.lines += 1
            wanted = _norm(redact(text).replace("`", ""))
            if not any(wanted in body.replace("`", "") for body in bodies):
                rates.lines_lost += 1
                rates.lost.append(f"{case.relpath}:{number} {text.strip()[:70]}")
    return rates


def _front_matter_lines(lines: Sequence[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return index + 1
    return 0


def current_importer(relpath: str, text: str) -> list[Got]:
    """The importer of this checkout, with the checks ``tb import`` runs on each piece."""
    from teambrain_cli._instructions.importer import prepare_pieces
    from teambrain_cli._instructions.sources import Source, tool_for
    from teambrain_kit.injection import find_injections
    from teambrain_schema import ValidationFailure
    from teambrain_schema.drafts import validate_draft

    out = []
    source = Source(Path(relpath), relpath, tool_for(relpath))
    for prepared in prepare_pieces(source, text):
        piece = prepared.piece
        try:
            validate_draft({"class": prepared.memory_class, "title": piece.title,
                            "body": piece.body, "tags": list(prepared.tags)})  # fmt: skip
            refused = bool(find_injections(piece.title + "\n" + piece.body))
        except ValidationFailure:
            refused = True
        out.append(Got(piece.line, piece.body, prepared.memory_class, refused))
    return out
