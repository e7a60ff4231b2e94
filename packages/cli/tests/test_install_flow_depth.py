"""``tb install``'s nesting guard (``_flow_depth``) visits only the characters that can change
its answer: it must answer exactly what a walk over every character answers, for any text."""

from __future__ import annotations

from hypothesis import example, given, settings, strategies as st
from teambrain_cli._agent_tools.install import _flow_depth


def every_character(text: str) -> int:
    """The guard as first written: one step per character (the reference)."""
    depth = deepest = 0
    quote = ""
    comment = escaped = False
    previous = "\n"
    for char in text:
        if comment:
            comment = char != "\n"
        elif quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and previous in " \t\n":
            comment = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
        previous = char
    return deepest


@settings(max_examples=1000)
@given(st.text(alphabet=st.sampled_from(list("[]{}'\"#\\\n \ta:-")) | st.characters(), max_size=80))
@example('"a\\"[" [')  # an escaped quote keeps the string open
@example('"\\\\" [')  # an escaped backslash does not escape the quote after it
@example("#[\n[")  # a comment ends at the line's end
@example('a#[ "b"')  # a hash inside a word starts no comment
def test_it_answers_what_a_walk_over_every_character_answers(text: str) -> None:
    assert _flow_depth(text) == every_character(text)
