import datetime as dt
import string

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_schema import Evidence, MemoryFrontMatter
from teambrain_schema.frontmatter import (
    FrontMatterError,
    new_memory_text,
    parse_memory,
    serialise_memory,
)

ULID_CHARS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ulids = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("01234567"),
    st.text(ULID_CHARS, min_size=25, max_size=25),
)
# Titles: any printable single-line text, including YAML-significant characters.
title_chars = st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Zl", "Zp", "Co", "Cn"))
titles = st.text(title_chars, min_size=1, max_size=80).map(str.strip).filter(bool)
tags = st.text(string.ascii_letters + string.digits + "-_.:/", min_size=1, max_size=40).filter(
    lambda t: t[0].isalnum()
)
bodies = (
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12).filter(
            lambda w: w.strip()
        ),
        min_size=1,
        max_size=50,
    )
    .map(" ".join)
    .filter(lambda b: b.strip() and "\x00" not in b)
)
evidence = st.none() | st.builds(
    Evidence,
    sessions=st.lists(
        st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,20}", fullmatch=True), max_size=3
    ),
    commits=st.lists(st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True), max_size=3),
)
fronts = st.builds(
    lambda **kw: MemoryFrontMatter(
        **{"class": kw.pop("cls")},
        **{**kw, "supersedes": [s for s in kw["supersedes"] if s != kw["id"]]},
    ),
    id=ulids,
    cls=st.sampled_from(["decision", "convention", "map", "learning"]),
    scope=st.sampled_from(["team", "org"]),
    status=st.sampled_from(["active", "retired"]),
    priority=st.sampled_from(["required", "advisory"]),
    title=titles,
    created=st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2100, 12, 31)),
    evidence=evidence,
    supersedes=st.lists(ulids, max_size=3),
    tags=st.lists(tags, max_size=5),
    ttl_days=st.none() | st.integers(min_value=1, max_value=36500),
)


@settings(max_examples=300, deadline=None)
@given(front=fronts, body=bodies)
def test_model_to_text_to_model_round_trip(front: MemoryFrontMatter, body: str) -> None:
    text = new_memory_text(front, body)
    document = parse_memory(text)
    assert document.front == front
    assert document.body == body.strip()
    # An unchanged document serialises to exactly the bytes it was read from.
    assert serialise_memory(document) == text


@settings(max_examples=200, deadline=None)
@given(front=fronts, body=bodies, new_title=titles)
def test_changed_document_reparses_to_the_change(
    front: MemoryFrontMatter, body: str, new_title: str
) -> None:
    document = parse_memory(new_memory_text(front, body))
    changed = document.replace(
        front=front.model_copy(update={"title": new_title, "status": "retired"})
    )
    reparsed = parse_memory(serialise_memory(changed))
    assert reparsed.front.title == new_title
    assert reparsed.front.status == "retired"
    assert reparsed.front.id == front.id
    assert reparsed.body == body.strip()


HAND_WRITTEN = """\
---
# Decided in the 2026-11 architecture review.
id: 01JDQ8M6Z1V5K7G3X9T2B4N8RC
class: decision
scope: team     # everyone in the team
status: active
priority: required
title: "Use uv workspaces for every package"
created: 2026-11-20
tags:
  - build
  - python
---

Use one uv workspace; each package keeps its own version.
"""


def test_hand_written_file_is_byte_identical_and_changes_keep_comments() -> None:
    document = parse_memory(HAND_WRITTEN)
    assert serialise_memory(document) == HAND_WRITTEN
    retired = serialise_memory(
        document.replace(front=document.front.model_copy(update={"status": "retired"}))
    )
    assert "# Decided in the 2026-11 architecture review." in retired
    assert "scope: team     # everyone in the team" in retired
    assert "status: retired" in retired
    assert 'title: "Use uv workspaces for every package"' in retired
    assert retired.endswith("\nUse one uv workspace; each package keeps its own version.\n")


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("no front matter\n", 1, "must start"),
        ("---\nid: x\n", 1, "not closed"),
        ("---\nid: [unclosed\n---\nbody\n", 3, "invalid YAML"),
        ("---\n- a list\n---\nbody\n", 2, "mapping"),
        (HAND_WRITTEN.replace("class: decision", "class: opinion"), 4, "class"),
        (
            HAND_WRITTEN.replace("scope: team", "colour: blue\nscope: team"),
            5,
            "colour: unknown field",
        ),
        (
            HAND_WRITTEN.replace(
                'title: "Use uv workspaces for every package"', "title: " + "x" * 81
            ),
            8,
            "title",
        ),
        (HAND_WRITTEN.replace("created: 2026-11-20", "created: yesterday"), 9, "created"),
        (
            HAND_WRITTEN.replace("created: 2026-11-20", "created: 86400"),
            9,
            "created: must be an ISO date",
        ),
        (
            HAND_WRITTEN.replace("created: 2026-11-20", "created: 2026-02-30"),
            9,
            "day is out of range",
        ),
        (
            HAND_WRITTEN.replace("created: 2026-11-20", "created: 2026-11-20T10:00:00"),
            9,
            "without a time",
        ),
        (
            HAND_WRITTEN.replace(
                "id: 01JDQ8M6Z1V5K7G3X9T2B4N8RC", "id: 01jdq8m6z1v5k7g3x9t2b4n8rc"
            ),
            3,
            "id",
        ),
    ],
)
def test_bad_files_name_line_and_field(text: str, line: int, needle: str) -> None:
    with pytest.raises(FrontMatterError) as info:
        parse_memory(text)
    assert needle in info.value.message
    assert info.value.line == line


def test_missing_required_field_is_named() -> None:
    with pytest.raises(FrontMatterError) as info:
        parse_memory(HAND_WRITTEN.replace("priority: required\n", ""))
    assert info.value.field == "priority"
    assert "required field is missing" in info.value.message


@pytest.mark.parametrize(
    "title",
    ["null", "yes", "No", "123", "1e3", "0x1F", "- dash", "# hash", "a: b", "'quoted'", '"dq"', "[x]",
     "{x}", "@at", "`tick`", "~", "2026-01-01", "*star", "&amp", "!bang", "%pct", "|pipe", ">gt",
     "é ü 中文 🎉", "trailing colon:", "a #b", "…"],
)  # fmt: skip
def test_yaml_significant_titles_survive(title: str) -> None:
    front = MemoryFrontMatter.model_validate(
        {"id": "01JDQ8M6Z1V5K7G3X9T2B4N8RC", "class": "map", "scope": "team", "status": "active",
         "priority": "advisory", "title": title, "created": "2026-01-02"}
    )  # fmt: skip
    assert parse_memory(new_memory_text(front, "b")).front.title == title


def test_serialising_a_changed_document_twice_gives_the_same_text_and_leaves_it_alone() -> None:
    from teambrain_kit.yaml import to_plain

    document = parse_memory(HAND_WRITTEN)
    parsed = to_plain(document.data)
    changed = document.replace(front=document.front.model_copy(update={"status": "retired"}))
    first = serialise_memory(changed)
    assert to_plain(document.data) == parsed
    assert serialise_memory(changed) == first
    assert serialise_memory(document) == HAND_WRITTEN
    other = document.replace(front=document.front.model_copy(update={"priority": "advisory"}))
    assert "status: active" in serialise_memory(other)
