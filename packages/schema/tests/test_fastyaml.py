"""The fast front-matter reader agrees with ruamel wherever it answers, and answers for what
teambrain writes."""

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from pydantic import ValidationError
from teambrain_kit.yaml import YamlProblem, load_yaml, to_plain
from teambrain_schema import MemoryFrontMatter, frontmatter as _frontmatter
from teambrain_schema._fastyaml import simple_mapping
from teambrain_schema.frontmatter import (
    FrontMatterError,
    new_memory_text,
    parse_memory,
    serialise_memory,
    split_front_matter,
)

DEMO = Path(__file__).resolve().parents[3] / "demo" / "brain" / "memories"


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type spelled out (``True == 1`` must not pass)."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


def _ruamel(text: str) -> Any:
    try:
        return load_yaml(text)
    except YamlProblem:
        return YamlProblem


def _agrees(text: str) -> dict[str, Any] | None:
    fast = simple_mapping(text)
    if fast is not None:
        slow = _ruamel(text)
        assert slow is not YamlProblem, text
        assert isinstance(slow, dict), text
        assert _typed(fast) == _typed(to_plain(slow)), text
    return fast


KEYS = ["id", "title", "tags", "evidence", "sessions", "null", "true", "True", "y", "yes",
        "NULL", "a-b", "x_1", "<<", "key with space", "é", "1", "on"]  # fmt: skip
VALUES = [
    "", " ", "null", "~", "Null", "NULL", "true", "True", "false", "yes", "no", "on", "y", "1",
    "0", "01", "-1", "+1", "1_000", "0x1F", "0o17", "1e5", "1.5", ".5", ".inf", "NaN", "12:30",
    "2026-11-01", "2026-13-01", "2026-02-30", "2026-11-01T10:00:00Z", "2026-11-01 10:00",
    "[a, b]", "[a,b]", "[]", "[ ]", "['a', \"b\"]", "[a, ]", "[1, 2]", "[a b]", "[true]",
    "[null]", "[2026-11-01]", "['it''s', x]", "[\"a,b\", c]", "[[a]]", "[a] b", "{a: 1}", "{}",
    "'it''s'", "'unclosed", "\"q\\\"x\"", "\"plain\"", "\"tab\\tx\"", "\"\"", "''",
    "a: b", "a #c", "a#c", "C#", "x:", "x:y", "a - b", "|", ">", "|-", "&a x", "*a", "!tag x",
    "!!str 1", "-x", "- x", "? x", "%x", "@x", "`x`", "é", "Ünïcode", "a\tb", "emoji 😀",
    "trailing   ", "Use uv, not pip", "don't", "say \"hi\"", "01KB2F0A1S9Y4Q7V3C8D5E6F01",
    "1a2b3c4", "1234567", "s-1", "a\x07b", "a\u2028b", "a\x85b", "\ufeffx", "a\rb",
]  # fmt: skip
line = st.one_of(
    st.tuples(
        st.sampled_from(["", "", "", " ", "  ", "    ", "- ", "# "]),
        st.one_of(st.sampled_from(KEYS), st.text(max_size=6)),
        st.sampled_from([": ", ":", ":  ", " : ", ": "]),
        st.one_of(st.sampled_from(VALUES), st.text(max_size=12)),
    ).map("".join),
    st.sampled_from(["", "# comment", "---", "...", "- item", "%YAML 1.1", "  - x"]),
)
documents = st.lists(line, min_size=1, max_size=8).map("\n".join)
# Mostly well-formed mappings, so that the fast reader answers often and is checked where it
# does: distinct keys, tricky values (the list above and free text), a nested block now and then.
printable = st.characters(codec="utf-8", exclude_categories=["Cc", "Cs", "Co", "Cn", "Zl", "Zp"])
free = st.one_of(
    st.text(printable, max_size=16),
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\n")),
)
plain_words = st.text(st.sampled_from("abcXYZ019 _-.,'\"#:@[]é—"), max_size=12)
value = st.one_of(
    st.sampled_from(VALUES), free, free.map("a{}".format), plain_words.map("a{}".format),
    plain_words.map("'{}'".format), plain_words.map('"{}"'.format),
    st.lists(plain_words, max_size=3).map(lambda items: "[" + ", ".join(items) + "]"),
)  # fmt: skip
good_key = st.sampled_from(
    ["id", "title", "tags", "evidence", "sessions", "x_1", "a-b", "yes", "y"]
)
key = st.one_of(good_key, good_key, good_key, st.sampled_from(KEYS))
child_block = st.dictionaries(key, value, max_size=3).map(
    lambda pairs: "".join(f"\n  {name}: {item}" for name, item in pairs.items())
)
mappings = st.dictionaries(
    key, st.one_of(value.map(" {}".format), child_block), min_size=1, max_size=4
).map(lambda entries: "\n".join(f"{key}:{rest}" for key, rest in entries.items()))


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(documents, mappings, mappings.map(lambda t: t + "\n"), st.text(max_size=80)))
def test_whenever_it_answers_it_agrees_with_ruamel(text: str) -> None:
    _agrees(text)


def test_it_answers_for_the_forms_teambrain_writes() -> None:
    text = (
        "id: 01KB2F0A1S9Y4Q7V3C8D5E6F01\nclass: decision\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: 'Use: uv, \"now\" — ok'\ncreated: 2026-11-01\n"
        "evidence:\n  sessions: [s-1, 2b]\n  commits: [1a2b3c4, '1234567']\n"
        "supersedes: [01KB2F0A1S9Y4Q7V3C8D5E6F02]\ntags: [a, b]\nttl_days: 30\n"
    )
    assert _agrees(text) == {
        "id": "01KB2F0A1S9Y4Q7V3C8D5E6F01", "class": "decision", "scope": "team",
        "status": "active", "priority": "advisory", "title": 'Use: uv, "now" — ok',
        "created": dt.date(2026, 11, 1),
        "evidence": {"sessions": ["s-1", "2b"], "commits": ["1a2b3c4", "1234567"]},
        "supersedes": ["01KB2F0A1S9Y4Q7V3C8D5E6F02"], "tags": ["a", "b"], "ttl_days": 30,
    }  # fmt: skip


def test_every_demo_memory_takes_the_fast_path() -> None:
    files = sorted(DEMO.rglob("*.md"))
    assert files
    for path in files:
        yaml_text, _, _ = split_front_matter(path.read_text("utf-8"))
        assert _agrees(yaml_text) is not None, path


ULID = st.from_regex(r"\A01[0-9A-HJKMNP-TV-Z]{24}\Z")
words = st.from_regex(r"\A[a-z][a-z0-9-]{0,11}\Z")
fronts = st.fixed_dictionaries(
    {
        "id": ULID,
        "class": st.sampled_from(["decision", "convention", "map", "learning"]),
        "scope": st.sampled_from(["team", "org"]),
        "status": st.sampled_from(["active", "retired"]),
        "priority": st.sampled_from(["required", "advisory"]),
        "title": st.text(
            st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), min_size=1, max_size=80
        ),
        "created": st.dates(dt.date(2020, 1, 1), dt.date(2030, 12, 31)),
        "tags": st.lists(words, max_size=4, unique=True),
        "supersedes": st.lists(ULID, max_size=2, unique=True),
        "ttl_days": st.one_of(st.none(), st.integers(1, 3650)),
        "evidence": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "sessions": st.lists(words, max_size=3),
                    "commits": st.lists(st.from_regex(r"\A[0-9a-f]{7,12}\Z"), max_size=3),
                }
            ),
        ),
    }
)


def _front(data: dict[str, Any]) -> MemoryFrontMatter:
    try:
        return MemoryFrontMatter.model_validate(data)
    except ValidationError:
        assume(False)
        raise


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=fronts,
    body=st.text(st.characters(codec="utf-8", exclude_categories=["Cc", "Cs"]), max_size=60),
)
def test_a_written_memory_reads_back_the_same_either_way(data: dict[str, Any], body: str) -> None:
    text = new_memory_text(_front(data), body)
    yaml_text, _, _ = split_front_matter(text)
    _agrees(yaml_text)
    fast = parse_memory(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_frontmatter, "simple_mapping", lambda _text: None)
        slow = parse_memory(text)
    assert fast == slow
    # Edits keep the file's own YAML (order, quoting) whichever reader took it.
    retired = fast.front.model_copy(update={"status": "retired"})
    assert serialise_memory(fast.replace(front=retired)) == serialise_memory(
        slow.replace(front=retired)
    )


def test_a_schema_error_names_the_same_line_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (
        "---\nid: 01KB2F0A1S9Y4Q7V3C8D5E6F01\nclass: decision\nscope: team\nstatus: active\n"
        "priority: urgent\ntitle: Use uv\ncreated: 2026-11-01\n---\n\nbody\n"
    )
    with pytest.raises(FrontMatterError) as fast:
        parse_memory(text)
    monkeypatch.setattr(_frontmatter, "simple_mapping", lambda _text: None)
    with pytest.raises(FrontMatterError) as slow:
        parse_memory(text)
    assert (fast.value.message, fast.value.line, fast.value.field) == (
        slow.value.message, slow.value.line, slow.value.field,
    )  # fmt: skip
    assert fast.value.line == 6 and fast.value.field == "priority"
