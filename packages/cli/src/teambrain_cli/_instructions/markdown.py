"""Agent instruction files as memory-sized pieces: front matter read apart, ``<private>`` spans
removed, the text split at its headings, and a section too long for one memory packed into
pieces of whole paragraphs, list items and code blocks.

Pure functions over text from anyone's repository: they never raise on content (a property
test feeds them arbitrary text) and lose no word of it — every word outside the front matter
and the private spans lands in a piece's title or body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A memory may hold 400 words; an imported piece aims well below it, so each stays one idea a
# reviewer can judge (and an agent's context pays for what it needs).
TARGET_WORDS = 150
MAX_WORDS = 380
MAX_TITLE = 80
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# A top-level list item (a nested one, indented, stays with its parent).
_LIST_ITEM = re.compile(r"^ ?(?:[-*+]|\d{1,9}[.)])[ \t]+")
# Emphasis around words (*x*, **x**, _x_ — not the underscores inside snake_case names). The
# emphasised text is bounded: "_a _a _a …" never closes, and each "_" rescanned the rest of the
# line (48 KB: 7 s).
_INLINE_MARKUP = re.compile(
    r"\*{1,3}(?=\S)(.{1,256}?)(?<=\S)\*{1,3}|(?<!\w)_{1,3}(?=\S)(.{1,256}?)(?<=\S)_{1,3}(?!\w)"
)


@dataclass(frozen=True)
class Section:
    """The text under one heading (``headings``: the path of headings above it, outermost
    first; empty for the text before the first heading), and the 1-based line it starts on."""

    headings: tuple[str, ...]
    text: str
    line: int


@dataclass(frozen=True)
class Piece:
    """One memory-sized part of a section: its title, body and first line in the source."""

    title: str
    body: str
    line: int
    headings: tuple[str, ...]


def split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(the YAML front matter's text or None, the rest, how many lines the front matter took)."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None, text, 0
    for index in range(1, len(lines)):
        if lines[index].strip() in ("---", "..."):
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :]), index + 1
    return None, text, 0  # never closed: not front matter


# A link's text and target stop at the next bracket or parenthesis: "[[[[…" or "[a]([a](…" of a
# committed file no longer rescan the rest of the line from each "[" (issue 32 point 3).
_LINK = re.compile(r"\[([^\[\]]*)\]\([^()]*\)")


def clean_heading(text: str) -> str:
    """A heading as a title: one line, emphasis markers and links' brackets gone."""
    text = _INLINE_MARKUP.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _LINK.sub(r"\1", text)
    return " ".join(text.split())


def sections(markdown: str, *, first_line: int = 1) -> list[Section]:
    """``markdown`` split at its ATX headings (``#`` … ``######``, not inside fenced code);
    sections with no text of their own are left out (their heading still heads the ones
    below it)."""
    found: list[Section] = []
    path: list[tuple[int, str]] = []
    buffer: list[str] = []
    start = first_line
    fence: str | None = None

    def flush() -> None:
        text = "\n".join(buffer).strip("\n")
        if text.strip():
            found.append(Section(tuple(h for _, h in path), text, start))

    for number, line in enumerate(markdown.split("\n"), start=first_line):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            buffer.append(line)
            continue
        if opening:
            fence = opening.group(1)
            buffer.append(line)
            continue
        heading = _HEADING.match(line)
        if heading is None:
            if not buffer:
                start = number
            buffer.append(line)
            continue
        flush()
        buffer = []
        level = len(heading.group(1))
        while path and path[-1][0] >= level:
            path.pop()
        title = clean_heading(heading.group(2))
        if title:
            path.append((level, title))
        start = number + 1
    flush()
    return found


def blocks(text: str) -> list[tuple[str, int]]:
    """``text`` as its blocks (paragraphs, top-level list items with what is nested in them,
    fenced code blocks), each with its 0-based line offset: the units a long section is cut
    between, never inside."""
    out: list[tuple[str, int]] = []
    current: list[str] = []
    offset = 0
    fence: str | None = None

    def close() -> None:
        if current and "\n".join(current).strip():
            out.append(("\n".join(current).strip("\n"), offset))

    for number, line in enumerate(text.split("\n")):
        opening = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        starts = not line.strip() or _LIST_ITEM.match(line) is not None or opening is not None
        if starts:
            close()
            current, offset = [], number
        if opening:
            fence = opening.group(1)
        if line.strip():
            if not current:
                offset = number
            current.append(line)
    close()
    return out


def _words(text: str) -> int:
    return len(text.split())


def _hard_split(block: str) -> list[str]:
    """A block longer than a memory may be, cut at line ends (else word ends) into parts of at
    most :data:`MAX_WORDS` words."""
    parts: list[str] = []
    current: list[str] = []
    count = 0
    units = block.split("\n") if "\n" in block.strip() else block.split(" ")
    joiner = "\n" if "\n" in block.strip() else " "
    for unit in units:
        size = _words(unit)
        if size > MAX_WORDS:  # one enormous line: by words
            words = unit.split()
            for i in range(0, len(words), MAX_WORDS):
                if current:
                    parts.append(joiner.join(current))
                    current, count = [], 0
                parts.append(" ".join(words[i : i + MAX_WORDS]))
            continue
        if count + size > MAX_WORDS and current:
            parts.append(joiner.join(current))
            current, count = [], 0
        current.append(unit)
        count += size
    if current and joiner.join(current).strip():
        parts.append(joiner.join(current))
    return [p for p in parts if p.strip()]


def pack(text: str) -> list[tuple[str, int]]:
    """``text`` as one piece when it is short enough, else whole blocks packed into pieces of
    about :data:`TARGET_WORDS` words (a block longer than a memory is cut at line ends); each
    with the 0-based line offset of its first block."""
    if _words(text) <= TARGET_WORDS:
        return [(text.strip("\n"), 0)]
    pieces: list[tuple[str, int]] = []
    current: list[str] = []
    first = 0
    count = 0
    for block, offset in blocks(text):
        for part in _hard_split(block) if _words(block) > MAX_WORDS else [block]:
            size = _words(part)
            if current and count + size > TARGET_WORDS:
                pieces.append(("\n\n".join(current), first))
                current, count = [], 0
            if not current:
                first = offset
            current.append(part)
            count += size
    if current:
        pieces.append(("\n\n".join(current), first))
    return pieces


def _first_words(text: str, limit: int) -> str:
    """The start of ``text`` as a title: markup stripped, one line, cut at a word to ``limit``."""
    line = next((ln for ln in text.split("\n") if ln.strip() and not _FENCE.match(ln)), "")
    line = _LIST_ITEM.sub("", line).strip().lstrip("#>").strip()
    line = clean_heading(line.replace("`", ""))
    line = re.split(r"(?<=[.!?:])\s", line, maxsplit=1)[0].rstrip(".:")
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] if " " in line[: limit - 1] else line[: limit - 1]
    return cut.rstrip(" ,;-") + "…"


def make_title(headings: tuple[str, ...], body: str, *, part: int, parts: int) -> str:
    """A title of at most 80 characters: the heading (with its parent when the heading alone
    says little), or the body's first words; a heading of a word or two ("Commands") is
    followed by the body's first words, and so is each piece of a section cut into several."""
    heading = headings[-1] if headings else ""
    if heading and len(headings) > 1 and len(heading.split()) <= 2:
        heading = f"{headings[-2]}: {heading}"
    if not heading:
        title = _first_words(body, MAX_TITLE)
    elif parts > 1 or len(heading.split()) <= 2:
        room = MAX_TITLE - len(heading) - 2
        start = _first_words(body, room) if room >= 12 else ""
        title = f"{heading}: {start}" if start else f"{heading} ({part} of {parts})"
    else:
        title = heading
    title = " ".join(title.split())
    if len(title) > MAX_TITLE:
        title = title[: MAX_TITLE - 1].rstrip() + "…"
    return title or "Imported instructions"


# The sentence tools write atop their instruction files ("This file provides guidance to Claude
# Code … when working with code in this repository."): it says nothing a memory should.
_BOILERPLATE = re.compile(
    r"^\s*this file (?:provides|gives|contains) (?:guidance|instructions|context)\b[^\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
# Titles that only name the file: "CLAUDE.md", "AGENTS.md", "Agent instructions".
_FILE_TITLE = re.compile(
    r"^(?:[\w.-]+\.mdc?|agents?|agent instructions|instructions|rules|memory)$", re.IGNORECASE
)


def split_pieces(markdown: str, *, first_line: int = 1) -> list[Piece]:
    """Every memory-sized piece of ``markdown`` (private spans already removed by the caller),
    in source order; a heading that only names the file is left out of titles, and the
    boilerplate sentence tools write atop such files is dropped."""
    out: list[Piece] = []
    for found in sections(markdown, first_line=first_line):
        headings = tuple(h for h in found.headings if not _FILE_TITLE.match(h))
        text = _BOILERPLATE.sub("", found.text)
        if not text.strip():
            continue
        section = Section(headings, text.strip("\n"), found.line)
        packed = pack(section.text)
        for number, (body, offset) in enumerate(packed, start=1):
            title = make_title(section.headings, body, part=number, parts=len(packed))
            out.append(Piece(title, body.strip("\n"), section.line + offset, section.headings))
    return out
