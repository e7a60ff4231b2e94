"""The importers' parsers on arbitrary text (hypothesis): they never raise, lose no word, and
every piece fits a memory; the export section round-trips inside any file."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import example, given, settings, strategies as st
from teambrain_cli._instructions.export import current_section, with_section
from teambrain_cli._instructions.markdown import (
    _BOILERPLATE,
    _HEADING,
    MAX_TITLE,
    MAX_WORDS,
    clean_heading,
    split_front_matter,
    split_pieces,
)
from teambrain_cli._instructions.sources import MARK_BEGIN, MARK_END, without_exported_section

LINES = st.sampled_from([
    "# Title", "## Commands", "### Deep heading ###", "- `make test` runs the suite",
    "* item two", "1. first step", "   - nested item", "```", "```python", "~~~", "    code",
    "Plain prose about `src/app/main.py` and the API.", "", "---", "description: x",
    "<private>secret thing</private>", "> quote", "#not-a-heading", "| a | b |",
])  # fmt: skip
TEXTS = st.one_of(
    st.lists(LINES, max_size=60).map("\n".join),
    st.text(max_size=3000),
    st.lists(st.sampled_from(["word", "two words", "`x.py`", "\n", "\n\n", "- ", "# H\n"]),
             max_size=800).map("".join),  # long sections that must be cut
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


@settings(max_examples=300, deadline=None)
@given(TEXTS)
@example("# H\n\n" + "word " * 2000)  # one paragraph longer than a memory
@example("```\n# not a heading\n" + "line\n" * 500)  # an unclosed fence
def test_pieces_lose_no_word_and_fit_a_memory(text: str) -> None:
    pieces = split_pieces(text)
    for piece in pieces:
        assert 1 <= len(piece.title) <= MAX_TITLE and "\n" not in piece.title
        assert piece.body.strip()
        assert len(piece.body.split()) <= 400
        assert piece.line >= 1
    # Every word of every line that is not a heading (nor the boilerplate line tools write atop
    # their files) is in some piece's body, as many times as the source has it.
    kept = Counter(w for p in pieces for w in _words(p.body))
    source = Counter(
        w
        for line in text.replace("\r\n", "\n").split("\n")
        if not _HEADING.match(line) and not _BOILERPLATE.match(line)
        for w in _words(line)
    )
    lost = {w: n - kept[w] for w, n in source.items() if n > kept[w]}
    assert not lost, list(lost.items())[:10]


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_long_sections_are_cut_into_pieces_of_at_most_max_words(text: str) -> None:
    for piece in split_pieces(text):
        assert len(piece.body.split()) <= MAX_WORDS + 40  # a packed piece: whole blocks


@given(st.text(max_size=500), st.text(max_size=500))
def test_front_matter_splits_back_into_the_text(front: str, rest: str) -> None:
    found, body, lines = split_front_matter(rest)
    if found is None:
        assert body == rest and lines == 0
    else:
        assert rest.split("\n")[lines:] == body.split("\n")


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=800),
    st.text(max_size=300).filter(lambda t: MARK_BEGIN not in t and MARK_END not in t),
)
def test_the_export_section_replaces_only_itself(around: str, inner: str) -> None:
    around = around.replace(MARK_BEGIN, "").replace(MARK_END, "")
    section = f"{MARK_BEGIN} generated -->\n{inner}\n{MARK_END}\n"
    once = with_section(around, section)
    assert current_section(once) == section
    assert with_section(once, section) == once  # writing it again changes nothing
    other = f"{MARK_BEGIN} generated -->\nnew\n{MARK_END}\n"
    twice = with_section(once, other)
    assert current_section(twice) == other
    assert twice.replace(other, "") == once.replace(section, "")  # the rest byte for byte
    assert without_exported_section(once).replace("\n", "") == around.replace("\n", "")


@pytest.mark.parametrize("unit", ["[", "[a](", "*a", "_a ", "[a]("])
def test_a_committed_heading_costs_linear_time(unit: str) -> None:
    """Issue 32 point 3: "[[[[…" of 48 KB took ~7 s (each "[" rescanned the line); growing the
    heading 16x costs about 16x (thread CPU time, so a loaded machine does not count)."""
    import time

    def cost(size: int) -> float:
        text = unit * (size // len(unit))
        best = float("inf")
        for _ in range(3):
            started = time.thread_time()
            clean_heading(text)
            best = min(best, time.thread_time() - started)
        return best

    small, large = cost(3_000), cost(48_000)
    assert large <= 64 * max(small, 0.005), (small, large)
