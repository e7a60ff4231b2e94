"""The brain view's facets: for each dimension, the values among the memories every other
filter keeps, counted in one pass — checked against the definition on random brains."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter

from hypothesis import given, settings, strategies as st
from teambrain_cli._browse import MemoryFilter, MemorySummary
from teambrain_cli._ui.brain import _facets, wanted_from
from teambrain_schema import MEMORY_CLASSES
from teambrain_schema.ids import new_ulid

TAGS = ["payments", "testing", "ci", "db"]

rows = st.lists(
    st.builds(
        MemorySummary, id=st.builds(new_ulid), title=st.just("t"),
        memory_class=st.sampled_from(MEMORY_CLASSES), scope=st.sampled_from(["team", "org"]),
        status=st.sampled_from(["active", "retired"]), priority=st.sampled_from(["required", "advisory"]),
        tags=st.lists(st.sampled_from(TAGS), unique=True).map(tuple), created=st.just(dt.date(2026, 1, 1)),
        path=st.just("p"), stale=st.lists(st.just("x"), max_size=1).map(tuple),
    ),
    max_size=30,
)  # fmt: skip
filters = st.builds(
    MemoryFilter,
    classes=st.lists(st.sampled_from(MEMORY_CLASSES), max_size=1).map(tuple),
    tags=st.lists(st.sampled_from(TAGS), max_size=1).map(tuple),
    scopes=st.lists(st.sampled_from(["team", "org"]), max_size=1).map(tuple),
    priorities=st.lists(st.sampled_from(["required", "advisory"]), max_size=1).map(tuple),
    status=st.sampled_from(["active", "retired", "all"]),
    stale=st.sampled_from([None, True]),
)


@given(rows, filters)
def test_each_facet_counts_what_the_other_filters_keep(
    found: list[MemorySummary], wanted: MemoryFilter
) -> None:
    facets, tags_left_out = _facets(found, wanted, [r for r in found if wanted.matches(r)])
    replace = dataclasses.replace
    keep_tags = replace(wanted, tags=())
    present = {t for r in found if keep_tags.matches(r) for t in r.tags}
    assert tags_left_out == len(present - {f.value for f in facets["tag"]})  # said, not hidden
    for name, field, pick in (
        ("class", {"classes": ()}, lambda r: [r.memory_class]),
        ("priority", {"priorities": ()}, lambda r: [r.priority]),
        ("scope", {"scopes": ()}, lambda r: [r.scope]),
        ("tag", {"tags": ()}, lambda r: list(r.tags)),
    ):
        keep = replace(wanted, **field)  # type: ignore[arg-type]
        expected = Counter(v for r in found if keep.matches(r) for v in pick(r))
        chosen = getattr(wanted, next(iter(field)))  # shown even when it keeps nothing
        assert {f.value: f.count for f in facets[name]} == {**dict.fromkeys(chosen, 0), **expected}
        assert {f.value for f in facets[name] if f.chosen} == set(chosen)
    by_status = Counter(r.status for r in found if replace(wanted, status="all").matches(r))
    assert [(f.value, f.count, f.chosen) for f in facets["status"]] == [
        ("active", by_status["active"], wanted.status == "active"),
        ("retired", by_status["retired"], wanted.status == "retired"),
        ("all", by_status["active"] + by_status["retired"], wanted.status == "all"),
    ]


def test_a_query_string_becomes_the_filter_tb_list_takes() -> None:
    wanted = wanted_from({"class": "decision", "tag": "payments", "status": "all", "stale": "1"})
    assert wanted == MemoryFilter(
        classes=("decision",), tags=("payments",), status="all", stale=True
    )
    assert wanted_from({"status": "bogus", "class": " "}) == MemoryFilter()


def test_tags_past_the_facet_cap_are_counted_not_hidden() -> None:
    """Issue 37 point 8: only the 40 most used tags are offered as facets; the rest are said."""
    many = [
        MemorySummary(id=new_ulid(), title="t", memory_class="learning", scope="team",
                      status="active", priority="advisory", tags=(f"tag{i:02d}",),
                      created=dt.date(2026, 1, 1), path="p", stale=())
        for i in range(55)
    ]  # fmt: skip
    wanted = wanted_from({})
    facets, left_out = _facets(many, wanted, many)
    assert len(facets["tag"]) == 40 and left_out == 15


@settings(max_examples=300)
@given(st.text(max_size=600), st.text(max_size=40))
def test_a_snippet_is_a_piece_of_the_body_with_the_searched_words_marked(body: str, query: str) -> None:  # fmt: skip
    from teambrain_cli._ui.brain import SNIPPET_CHARS, snippet

    pieces = snippet(body, query)
    text = "".join(t for t, _ in pieces).removeprefix("…").removesuffix("…")
    folded = " ".join(body.replace("`", "").replace("**", "").split())
    assert text in folded and len(text) <= SNIPPET_CHARS
    assert all(hot is False or t.strip() for t, hot in pieces)


def test_a_snippet_starts_near_the_first_word_searched_for() -> None:
    from teambrain_cli._ui.brain import snippet

    body = "filler " * 80 + "Payments go through `PaymentGateway`; refunds too. " + "tail " * 80
    pieces = snippet(body, "how do payments work")
    assert pieces[0] == ("…", False) and pieces[-1] == ("…", False)
    assert [t for t, hot in pieces if hot] == ["Payments", "PaymentGateway"]
    assert snippet("short body", "") == [("short body", False)]
