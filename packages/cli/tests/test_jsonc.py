import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_cli._agent_tools.jsonc import MISSING, JsoncDocument, JsoncError, indent_unit, loads

keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32), st.text(max_size=12),
)  # fmt: skip
values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)
documents = st.dictionaries(keys, values, max_size=5)
indents = st.sampled_from([None, 2, 4, "\t"])


def _render(document: dict[str, Any], indent: int | str | None, comment: str | None) -> str:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    if comment is None:
        return text + "\n"
    return f"// {comment}\n{text}\n/* {comment} end */\n"


@settings(max_examples=300, deadline=None)
@given(documents, indents)
def test_parsing_agrees_with_json(document: dict[str, Any], indent: int | str | None) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    assert loads(text, comments=False) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(
    documents,
    indents,
    st.sampled_from([None, "keep this comment"]),
    st.lists(keys, min_size=1, max_size=3),
    values,
)
def test_set_changes_only_its_path_and_keeps_comments(
    document: dict[str, Any],
    indent: int | str | None,
    comment: str | None,
    path: list[str],
    value: Any,
) -> None:
    text = _render(document, indent, comment)
    edited = JsoncDocument(text, comments=True)
    expected = json.loads(json.dumps(document))
    node = expected
    for step in path[:-1]:  # only follow or create objects, like tb install does
        if not isinstance(node.get(step, {}), dict):
            return
        node = node.setdefault(step, {})
    node[path[-1]] = value
    edited.set(list(path), value)
    assert loads(edited.text) == expected
    if comment is not None:
        assert edited.text.count(comment) == 2
    if indent is not None:  # a pretty-printed file stays valid strict JSON without comments
        assert (
            loads(
                edited.text.replace(f"// {comment}\n", "").replace(f"/* {comment} end */\n", ""),
                comments=comment is not None,
            )
            == expected
        )


@settings(max_examples=200, deadline=None)
@given(st.lists(values, max_size=4), indents, values)
def test_append_adds_one_item_at_the_end(
    items: list[Any], indent: int | str | None, value: Any
) -> None:
    document = JsoncDocument(json.dumps({"hooks": {"Event": items}}, indent=indent), comments=False)
    document.append(["hooks", "Event"], value)
    assert loads(document.text, comments=False) == {
        "hooks": {"Event": [*json.loads(json.dumps(items)), json.loads(json.dumps(value))]}
    }


def test_edits_keep_formatting_comments_and_trailing_commas() -> None:
    text = '{\n    // mine\n    "a": {"x": 1}, // inline\n    "b": [\n        1,\n    ],\n}\n'
    document = JsoncDocument(text)
    document.set(["a", "y"], 2)
    document.append(["b"], {"k": "v"})
    document.set(["c"], True)
    assert document.text == (
        '{\n    // mine\n    "a": {"x": 1, "y": 2}, // inline\n    "b": [\n        1,\n'
        '        {\n            "k": "v"\n        }\n    ],\n    "c": true\n}\n'
    )
    assert document.get(["a", "y"]) == 2
    assert document.get(["nope"]) is MISSING


def test_tabs_are_kept() -> None:
    document = JsoncDocument('{\n\t"a": 1\n}\n', comments=False)
    document.set(["b", "c"], [1])
    assert document.text == '{\n\t"a": 1,\n\t"b": {\n\t\t"c": [\n\t\t\t1\n\t\t]\n\t}\n}\n'
    assert indent_unit(document.text) == "\t"


@pytest.mark.parametrize(
    ("text", "comments", "where"),
    [
        ('{\n  "a": 1 // no\n}', False, (2, 10)),
        ('{"a": 1,}', False, (1, 8)),
        ('{"a": 1', True, (1, 8)),
        ('{"a" 1}', True, (1, 6)),
        ("{'a': 1}", True, (1, 2)),
        ('{"a": 1} x', True, (1, 10)),
        ('{"a": "\n"}', True, (1, 7)),
        ("/* open", True, (1, 1)),
    ],
)
def test_errors_name_line_and_column(text: str, comments: bool, where: tuple[int, int]) -> None:
    with pytest.raises(JsoncError) as raised:
        loads(text, comments=comments)
    assert (raised.value.line, raised.value.column) == where


def test_creating_inside_a_non_object_is_refused() -> None:
    document = JsoncDocument('{"hooks": []}')
    with pytest.raises(TypeError):
        document.set(["hooks", "Event"], 1)
