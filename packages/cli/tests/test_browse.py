"""The browsing services: which rows a filter keeps, which id a short id names."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, strategies as st
from teambrain_cli._browse import MemoryFilter, MemorySummary
from teambrain_cli._console.ids import resolve_id
from teambrain_schema import MEMORY_CLASSES, UserError
from teambrain_schema.ids import new_ulid

TAGS = ["payments", "Testing", "ci", "db"]


def _summary(**fields: object) -> MemorySummary:
    base: dict[str, object] = {
        "id": new_ulid(), "title": "A title", "memory_class": "decision", "scope": "team",
        "status": "active", "priority": "advisory", "tags": (), "created": dt.date(2026, 1, 1),
        "path": ".teambrain/memories/decisions/x.md",
    }  # fmt: skip
    return MemorySummary(**{**base, **fields})  # type: ignore[arg-type]


summaries = st.builds(
    _summary,
    memory_class=st.sampled_from(MEMORY_CLASSES),
    scope=st.sampled_from(["team", "org"]),
    status=st.sampled_from(["active", "retired"]),
    priority=st.sampled_from(["required", "advisory"]),
    tags=st.lists(st.sampled_from(TAGS), unique=True).map(tuple),
    stale=st.lists(st.just("`x.py` no longer exists"), max_size=1).map(tuple),
)
filters = st.builds(
    MemoryFilter,
    classes=st.lists(st.sampled_from(MEMORY_CLASSES), unique=True, max_size=2).map(tuple),
    tags=st.lists(st.sampled_from([t.upper() for t in TAGS]), unique=True, max_size=2).map(tuple),
    scopes=st.lists(st.sampled_from(["team", "org"]), unique=True, max_size=1).map(tuple),
    priorities=st.lists(st.sampled_from(["required", "advisory"]), unique=True, max_size=1).map(
        tuple
    ),
    status=st.sampled_from(["active", "retired", "all"]),
    stale=st.sampled_from([None, True, False]),
)


@given(summaries, filters)
def test_a_filter_keeps_exactly_what_every_condition_allows(
    memory: MemorySummary, wanted: MemoryFilter
) -> None:
    expected = (
        wanted.status in ("all", memory.status)
        and (not wanted.classes or memory.memory_class in wanted.classes)
        and (not wanted.scopes or memory.scope in wanted.scopes)
        and (not wanted.priorities or memory.priority in wanted.priorities)
        and all(tag.lower() in {t.lower() for t in memory.tags} for tag in wanted.tags)
        and (wanted.stale is None or bool(memory.stale) == wanted.stale)
    )
    assert wanted.matches(memory) == expected


@given(st.lists(st.builds(new_ulid), min_size=1, max_size=30, unique=True), st.data())
def test_an_id_is_named_by_itself_or_any_unshared_prefix_or_suffix(
    ids: list[str], data: st.DataObject
) -> None:
    target = data.draw(st.sampled_from(ids))
    assert resolve_id(ids, target.lower(), what="memory", listing="tb list") == target
    size = data.draw(st.integers(min_value=4, max_value=26))
    prefix, suffix = target[:size], target[-size:]
    starting = [i for i in ids if i.startswith(prefix)]
    if len(starting) == 1:
        assert resolve_id(ids, prefix, what="memory", listing="tb list") == target
    else:  # ULIDs of one millisecond share their first ten characters
        with pytest.raises(UserError, match=f"matches {len(starting)} memory ids"):
            resolve_id(ids, prefix, what="memory", listing="tb list")
    ending = [i for i in ids if i.endswith(suffix)]
    if len(ending) == 1 and not any(i.startswith(suffix) for i in ids):
        assert resolve_id(ids, suffix, what="memory", listing="tb list") == target
    try:  # whatever it names, it names by that text
        found = resolve_id(ids, suffix, what="memory", listing="tb list")
    except UserError:
        return
    assert found.startswith(suffix) or found.endswith(suffix)


def test_short_or_unknown_ids_are_user_errors() -> None:
    ids = [new_ulid() for _ in range(3)]
    for given_id in ("", "   ", ids[0][-3:], "ZZZZZZZZ"):
        with pytest.raises(UserError):
            resolve_id(ids, given_id, what="memory", listing="tb list")


def test_a_too_short_part_of_an_id_says_how_many_characters_it_takes() -> None:
    ids = ["01KB2F0A1S9Y4Q7V3C8D5E6F01", "01KB2F0A1S9Y4Q7V3C8D5E6F03"]
    with pytest.raises(UserError, match="at least 4 characters") as caught:
        resolve_id(ids, "F01", what="memory", listing="tb list")
    assert "6F01" in caught.value.message  # the one it would have named, in full enough
    with pytest.raises(UserError, match="at least 4 characters"):
        resolve_id(ids, "01K", what="memory", listing="tb list")  # both start so: no suggestion
    with pytest.raises(UserError, match="no memory 'XYZ' here"):
        resolve_id(ids, "XYZ", what="memory", listing="tb list")  # matches none: unknown
