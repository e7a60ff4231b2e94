"""Reading a model's JSON out of the text it sent: fences, prose, thinking, and anything else
(hypothesis: any JSON object embedded in brace-free prose is found; any text is answered with
a value or NotJSON, quickly, never another exception)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_distill._extract import MAX_FENCES, MAX_OPENINGS, NotJSON, preview, read_json

ANSWER = {"candidates": [{"title": "Use the fake clock", "tags": ["testing"]}]}
TEXT = json.dumps(ANSWER)


@pytest.mark.parametrize(
    "wrapped",
    [
        TEXT,
        f"```json\n{TEXT}\n```",
        f"```JSON\r\n{TEXT}\r\n```\n",
        f"Here is what I learned:\n\n```\n{TEXT}\n```\n\nHope this helps!",
        f"Sure. {TEXT} That is all.",
        f"<think>The session used {{a clock}} and [brackets].</think>\n{TEXT}",
        "<think>unclosed thoughts { }\n",  # nothing but thinking: no answer
        f"  \n{TEXT}\n  ",
        f"{TEXT}\n\nNote: I kept {{braces}} out.",
        # the template opened <think> in the prompt (DeepSeek-R1, QwQ): only the closing tag,
        # and more braces in the thinking than openings are tried
        'Okay, {a} {b} {c} {d} {e} {f} {g} {h} [S1] {"candidates": []} no.\n</think>\n\n' + TEXT,
        f"<think>first</think> more thoughts {{x}} </think>{TEXT}",
    ],
)
def test_the_answer_is_found_where_models_put_it(wrapped: str) -> None:
    if wrapped.startswith("<think>unclosed"):
        with pytest.raises(NotJSON, match="empty"):
            read_json(wrapped)
        return
    assert read_json(wrapped) == ANSWER


def test_a_bare_list_is_returned_as_a_list() -> None:
    assert read_json('Answer: [{"a": 1}]') == [{"a": 1}]


@pytest.mark.parametrize(
    "text", ["", "   ", "no json here", "{broken", "42", '"just a string"', "null"]
)
def test_text_without_an_object_is_not_json(text: str) -> None:
    with pytest.raises(NotJSON):
        read_json(text)


def test_the_reason_quotes_a_clean_start_of_the_text() -> None:
    with pytest.raises(NotJSON) as caught:
        read_json("I cannot help with that\u202e request\x00 today.")
    assert "\u202e" not in str(caught.value) and "\x00" not in str(caught.value)
    assert preview("a\u202eb\nc") == "a b c"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
prose = st.text(
    alphabet=st.characters(blacklist_characters="{}[]`<>", blacklist_categories=("Cs",)),
    max_size=200,
)


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4),
       before=prose, after=prose, fenced=st.booleans())  # fmt: skip
def test_any_object_in_brace_free_prose_is_found(value, before, after, fenced) -> None:
    body = json.dumps(value, ensure_ascii=False)
    text = f"{before}\n```json\n{body}\n```\n{after}" if fenced else f"{before} {body} {after}"
    assert read_json(text) == value


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=2_000))
def test_any_text_gives_a_value_or_not_json(text: str) -> None:
    try:
        value = read_json(text)
    except NotJSON:
        return
    assert isinstance(value, dict | list)


@pytest.mark.parametrize(
    "hostile",
    ["{" * 200_000, '{"a":[' * 40_000, "```\n" * 50_000, "<think>" * 40_000, "[" * 200_000],
)
def test_hostile_answers_are_decoded_a_bounded_number_of_times(hostile: str, monkeypatch) -> None:
    """Each decode is linear; the reader makes a fixed number of them whatever the text, so a
    hostile answer costs a few passes, never one per brace."""
    calls = {"loads": 0, "raw_decode": 0}
    loads, raw_decode = json.loads, json.JSONDecoder.raw_decode

    def counted_loads(*args, **kwargs):
        calls["loads"] += 1
        return loads(*args, **kwargs)

    def counted_raw_decode(self, *args, **kwargs):
        calls["raw_decode"] += 1
        return raw_decode(self, *args, **kwargs)

    monkeypatch.setattr(json, "loads", counted_loads)
    monkeypatch.setattr(json.JSONDecoder, "raw_decode", counted_raw_decode)
    with pytest.raises(NotJSON):
        read_json(hostile)
    assert calls["loads"] <= 1 + MAX_FENCES + 1
    assert calls["raw_decode"] <= MAX_OPENINGS + calls["loads"]


def test_raw_line_breaks_inside_strings_are_read() -> None:
    """Models write a body's line breaks raw; the fields' own rules judge them after."""
    assert read_json('{"body": "line one\nline two\ttabbed"}') == {
        "body": "line one\nline two\ttabbed"
    }
