"""Agent instruction files as memory-sized pieces, one rule or decision each: front matter read
apart, the text split at its headings, and each section into its rules — a top-level bullet or
numbered item (with what is nested in it), a paragraph, a table, a code block (with the text it
illustrates). A lead-in ("Before merging:") goes with each item it introduces; a list of short
items ("Python 3.12", "dbt 1.8") and a numbered procedure under a heading or lead-in that names
one ("Setup", "To deploy:") stay one piece.

Pure functions over text from anyone's repository: they never raise on content (a property
test feeds them arbitrary text) and lose no word of it — every word outside the front matter,
the headings and the private spans lands in a piece's body.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A memory may hold 400 words; a rule longer than this is cut at line ends.
MAX_WORDS = 380
MAX_TITLE = 80
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
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
    """One memory-sized part of a section: its title, body and first line in the source; for
    each line of the body, the source line it came from (0: a line the splitter added)."""

    title: str
    body: str
    line: int
    headings: tuple[str, ...]
    lines: tuple[int, ...] = ()


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
        whole = "\n".join(buffer)
        text = whole.strip("\n")
        if text.strip():  # its line: the first one left once the blank lines above go
            skipped = whole[: len(whole) - len(whole.lstrip("\n"))].count("\n")
            found.append(Section(tuple(h for _, h in path), text, start + skipped))

    for number, line in enumerate(markdown.split("\n"), start=first_line):
        opening = _FENCE.match(line)
        if fence is not None:
            if _closes(line, fence):
                fence = None
            buffer.append(line)
            continue
        if opening:
            fence = opening.group(1)
            if not buffer:
                start = number
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


# A list item that starts a block: a bullet or a number, up to three spaces in (CommonMark).
_ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE = re.compile(r"^ {0,3}\|")
# A paragraph that is only emphasis ("**Performance**"): a heading in all but name.
_PSEUDO_HEADING = re.compile(r"^\s*(\*\*|__)[^*_\n]{1,80}\1:?\s*$")
# Headings and lead-ins that name a procedure: its numbered steps are one piece, in order.
_PROCEDURE = re.compile(
    r"\b(?:set ?up|install(?:ing|ation)?|steps?|getting started|quick ?start|workflow|process|"
    r"procedure|how to|release|releasing|deploy(?:ing|ment)?|onboarding|bootstrap|run(?:ning)? "
    r"(?:it )?locally|to (?:run|deploy|release|publish|build|start))\b",
    re.IGNORECASE,
)
# An item this short is a fact in a list ("Python 3.12", "Snowflake"), not a rule of its own.
SHORT_ITEM_WORDS = 6


@dataclass
class Block:
    """One block of a section: ``kind`` is para, item, fence, table or break; ``lines`` its
    (source line, text) pairs; ``ordered`` for a numbered item."""

    kind: str
    lines: list[tuple[int, str]]
    ordered: bool = False

    @property
    def text(self) -> str:
        return "\n".join(text for _, text in self.lines)

    @property
    def last_line(self) -> str:
        return next((t for _, t in reversed(self.lines) if t.strip()), "")


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a fence opened with ``fence``: a run of the same character, at
    least as long, and nothing else (a nested opening such as three backticks and a language
    does not close it)."""
    rest = line.strip()
    return len(rest) >= len(fence) and rest == fence[0] * len(rest)


def _fence_end(lines: list[tuple[int, str]], start: int, fence: str) -> int:
    """The index of the line closing the fence opened at ``start`` (the last line when none
    does: an unclosed fence runs to the end)."""
    for index in range(start + 1, len(lines)):
        if _closes(lines[index][1], fence):
            return index
    return len(lines) - 1


def _starts_block(text: str) -> bool:
    """Whether ``text`` interrupts a paragraph: an item, a fence, a table, a break."""
    return bool(_ITEM.match(text) or _FENCE.match(text) or _TABLE.match(text) or _BREAK.match(text))


def _interrupts(text: str) -> bool:
    """Whether ``text`` ends the paragraph above it without a blank line (a numbered item only
    when it is numbered 1, as in CommonMark: "2024. That year…" is prose)."""
    item = _ITEM.match(text)
    if item and item.group(2)[0].isdigit():
        return item.group(2)[:-1] == "1"
    return _starts_block(text)


def blocks(text: str, *, first_line: int = 1) -> list[Block]:
    """``text`` (a section, no headings) as its blocks: paragraphs, top-level list items with
    what is nested in them or continues them, fenced code, tables, thematic breaks."""
    lines = list(enumerate(text.split("\n"), start=first_line))
    out: list[Block] = []
    index = 0
    while index < len(lines):
        number, line = lines[index]
        if not line.strip():
            index += 1
            continue
        opening = _FENCE.match(line)
        if opening:
            end = _fence_end(lines, index, opening.group(1))
            out.append(Block("fence", lines[index : end + 1]))
            index = end + 1
            continue
        if _BREAK.match(line):
            out.append(Block("break", [(number, line)]))
            index += 1
            continue
        item = _ITEM.match(line)
        if item:
            end = _item_end(lines, index, len(item.group(0).expandtabs()))
            ordered = item.group(2)[0].isdigit()
            out.append(Block("item", lines[index : end + 1], ordered))
            index = end + 1
            continue
        kind = "table" if _TABLE.match(line) else "para"
        end = index
        while end + 1 < len(lines):
            following = lines[end + 1][1]
            if not following.strip():
                break
            if kind == "table" and not _TABLE.match(following):
                break
            if kind == "para" and _interrupts(following):
                break
            end += 1
        out.append(Block(kind, lines[index : end + 1]))
        index = end + 1
    return out


def _item_end(lines: list[tuple[int, str]], start: int, indent: int) -> int:
    """The last line of the item starting at ``start`` whose text begins ``indent`` columns in:
    lines indented under it (nested items, its own paragraphs, its code), and lines that
    continue its paragraph without a blank line."""
    end = start
    index = start + 1
    blank = False
    inner = min(indent, 4)
    while index < len(lines):
        line = lines[index][1]
        if not line.strip():
            blank = True
            index += 1
            continue
        leading = len(line.expandtabs()) - len(line.expandtabs().lstrip())
        if leading >= max(inner, 2):
            opening = _FENCE.match(line.lstrip())
            if opening:  # a fence inside the item: through its closing line
                index = _fence_end(lines, index, opening.group(1))
            end = index
            blank = False
            index += 1
            continue
        if blank or _starts_block(line) or _HEADING.match(line):
            break
        end = index  # a lazy continuation of the item's paragraph
        index += 1
    return end


def _words(text: str) -> int:
    return len(text.split())


def _item_words(block: Block) -> int:
    """The words of an item's own first line (what is nested counts against being short)."""
    if len(block.lines) > 1:
        return SHORT_ITEM_WORDS + 1
    return _words(_ITEM.sub("", block.lines[0][1]))


def _unmarked(block: Block) -> list[tuple[int, str]]:
    """An item's lines as a memory's body: its marker gone, what is nested dedented."""
    first_number, first = block.lines[0]
    found = _ITEM.match(first)
    indent = len(found.group(0).expandtabs()) if found else 0
    out = [(first_number, first[found.end() :] if found else first.strip())]
    for number, line in block.lines[1:]:
        expanded = line.expandtabs()
        leading = len(expanded) - len(expanded.lstrip())
        out.append((number, expanded[min(leading, indent) :] if line.strip() else ""))
    return out


def _trimmed(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    while lines and not lines[0][1].strip():
        lines = lines[1:]
    while lines and not lines[-1][1].strip():
        lines = lines[:-1]
    return lines


@dataclass
class _Draft:
    """A piece being assembled: its lead-in lines, its own lines, how its title is made."""

    own: list[tuple[int, str]]
    lead: list[tuple[int, str]] = field(default_factory=list)
    titled_by: str | None = None  # a title given (a lead-in or heading), else from the text

    def add_block(self, lines: list[tuple[int, str]]) -> None:
        self.own = [*self.own, (0, ""), *lines]


# A lead-in goes with every item it introduces: a long one is a paragraph of its own.
MAX_LEAD_WORDS = 60


def _is_lead(block: Block) -> bool:
    text = block.text.strip()
    if not text or _words(text) > MAX_LEAD_WORDS:
        return False
    return text.endswith(":") or bool(_PSEUDO_HEADING.match(text))


def _group_list(run: list[Block], lead: Block | None, headings: tuple[str, ...]) -> bool:
    """Whether a run of items is one piece: a numbered procedure (its heading or lead-in names
    one), or a list of short facts."""
    if len(run) < 2:
        return False
    named = " ".join([*headings[-1:], lead.text if lead else ""])
    if all(block.ordered for block in run) and _PROCEDURE.search(named):
        return True
    return all(_item_words(block) <= SHORT_ITEM_WORDS for block in run)


def rule_drafts(text: str, headings: tuple[str, ...], *, first_line: int) -> list[_Draft]:
    """The pieces of one section's ``text``, one rule each, before titles are made."""
    found = blocks(text, first_line=first_line)
    drafts: list[_Draft] = []
    lead: Block | None = None
    last_was: str | None = None  # what made the last draft: "para", "item" or None
    index = 0
    while index < len(found):
        block = found[index]
        following = found[index + 1] if index + 1 < len(found) else None
        if block.kind == "break":
            lead, last_was = None, None
            index += 1
            continue
        if (
            block.kind == "para"
            and _is_lead(block)
            and following is not None
            and (
                following.kind == "item"
                or (_PSEUDO_HEADING.match(block.text) is not None and following.kind == "para")
            )
        ):
            lead = block
            index += 1
            continue
        if block.kind == "item":
            run = [block]
            while (
                index + len(run) < len(found)
                and found[index + len(run)].kind == "item"
                and found[index + len(run)].ordered == block.ordered
            ):
                run.append(found[index + len(run)])
            lead_lines = list(lead.lines) if lead else []
            if _group_list(run, lead, headings):
                lines = [line for item in run for line in item.lines]
                title = _lead_title(lead) if lead else (headings[-1] if headings else None)
                drafts.append(_Draft(lines, [], title))
                if lead:  # the lead-in heads the list it introduces, once
                    drafts[-1].own = [*lead_lines, (0, ""), *lines]
            else:
                for item in run:
                    drafts.append(_Draft(_unmarked(item), lead_lines))
            lead, last_was = None, "item"
            index += len(run)
            continue
        if block.kind in ("fence", "table"):
            previous = drafts[-1] if drafts else None
            ends_with_colon = previous is not None and previous.own[-1][1].rstrip().endswith(":")
            if previous is not None and (
                last_was == "para" or (last_was == "item" and ends_with_colon)
            ):
                previous.add_block(block.lines)
            else:
                title = _lead_title(lead) if lead else None
                if title is None and headings:
                    title = headings[-1]
                    first_code = next(
                        (t.strip() for _, t in block.lines[1:] if t.strip()), ""
                    ) if block.kind == "fence" else ""  # fmt: skip
                    if first_code and not _FENCE.match(first_code):
                        title = f"{title}: {first_code}"
                drafts.append(_Draft(list(block.lines), list(lead.lines) if lead else [], title))
            lead, last_was = None, None
            index += 1
            continue
        drafts.append(_Draft(list(block.lines), list(lead.lines) if lead else []))
        lead, last_was = None, "para"
        index += 1
    if lead is not None:  # a lead-in with nothing after it is a paragraph of its own
        drafts.append(_Draft(list(lead.lines)))
    return drafts


def _lead_title(lead: Block | None) -> str | None:
    if lead is None:
        return None
    return clean_heading(lead.text.strip().rstrip(":").strip()) or None


_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.$", re.IGNORECASE)


def first_sentence(text: str, limit: int = MAX_TITLE) -> str:
    """The first sentence of ``text``'s first line of prose as a title: markup stripped, one
    line, cut at a word to ``limit`` characters."""
    line = next((ln for ln in text.split("\n") if ln.strip() and not _FENCE.match(ln)), "")
    line = _ITEM.sub("", line).strip().lstrip("#>").strip()
    line = clean_heading(line.replace("`", ""))
    sentence = line
    for match in re.finditer(r"[.!?](?=\s)", line):
        if not _ABBREVIATION.search(line[: match.end()]):
            sentence = line[: match.start()]
            break
    sentence = sentence.rstrip(" .:;,")
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return cut.rstrip(" ,;:-") + "…"


def _fit_title(title: str) -> str:
    title = " ".join(title.split())
    if len(title) > MAX_TITLE:
        title = title[: MAX_TITLE - 1].rstrip() + "…"
    return title


def _cut(lines: list[tuple[int, str]], most: int = MAX_WORDS) -> list[list[tuple[int, str]]]:
    """``lines`` in parts of at most ``most`` words, cut at line ends (a line longer than that
    by words)."""
    if _words(" ".join(t for _, t in lines)) <= most:
        return [lines]
    parts: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    count = 0
    for number, text in lines:
        size = _words(text)
        if size > most:
            words = text.split()
            for start in range(0, len(words), most):
                if current:
                    parts.append(current)
                    current, count = [], 0
                parts.append([(number, " ".join(words[start : start + most]))])
            continue
        if current and count + size > most:
            parts.append(current)
            current, count = [], 0
        current.append((number, text))
        count += size
    if current:
        parts.append(current)
    return [p for p in (_trimmed(part) for part in parts) if p]


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
    """Every piece of ``markdown`` (private spans already removed by the caller), one rule or
    decision each, in source order; a heading that only names the file is left out, and the
    boilerplate sentence tools write atop such files is dropped."""
    out: list[Piece] = []
    for found in sections(markdown, first_line=first_line):
        headings = tuple(h for h in found.headings if not _FILE_TITLE.match(h))
        text = _BOILERPLATE.sub("", found.text)
        if not text.strip():
            continue
        for draft in rule_drafts(text, headings, first_line=found.line):
            own = _trimmed(draft.own)
            if not own:
                continue
            lead = _trimmed(draft.lead)
            parts = _cut(own, MAX_WORDS - _words(" ".join(t for _, t in lead)))
            for number, part in enumerate(parts, start=1):
                lines = [*lead, (0, ""), *part] if lead else part
                body = "\n".join(text for _, text in lines).strip("\n")
                if not body.strip():
                    continue
                title = draft.titled_by or first_sentence("\n".join(t for _, t in part))
                if not title:
                    title = headings[-1] if headings else "Imported instructions"
                if len(parts) > 1:
                    title = f"{first_sentence(title, MAX_TITLE - 10)} ({number} of {len(parts)})"
                start = next((n for n, t in part if n and t.strip()), found.line)
                out.append(
                    Piece(_fit_title(title), body, start, headings, tuple(n for n, _ in lines))
                )
    return out
