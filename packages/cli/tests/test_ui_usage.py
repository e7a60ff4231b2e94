"""The usage page's charts show exactly what the digest's JSON report shows: a number where
the JSON has one, ``<5`` (and no bar) where it has the marker, and nothing the JSON lacks."""

from __future__ import annotations

import datetime as dt
from typing import Any

from digest_spool import IDS, NOW, session_strategy, summary_of
from hypothesis import given, settings, strategies as st
from teambrain_capture import FeedbackVote
from teambrain_cli._reports.cells import Audience
from teambrain_cli._reports.digest import SpoolScan, aggregate
from teambrain_cli._reports.window import resolve_window
from teambrain_cli._ui.charts import Bar, bar_from_json, column_chart
from teambrain_cli._ui.usage import UsagePage, usage_from_json

WINDOW = resolve_window("2026-07-01", "2026-07-07", now=NOW)


def page_for(data: dict[str, Any]) -> UsagePage:
    return usage_from_json(
        data, since="7d", repo=None, this_repo="r",
        titles_of=lambda ids: {i: f"title of {i}" for i in ids},
        link=lambda memory_id: f"/memory/{memory_id}",
    )  # fmt: skip


def report(specs: list[dict[str, Any]]) -> dict[str, Any]:
    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    votes = [
        FeedbackVote(t=dt.datetime(2026, 7, spec["day"], 13, tzinfo=dt.UTC), id=IDS[0],
                     useful=useful, sid=f"s{i}")
        for i, spec in enumerate(specs) for useful in spec["votes"]
    ]  # fmt: skip
    return aggregate(SpoolScan(sessions=sessions), WINDOW, votes, generated=NOW).to_json()


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _matches(bar: Bar, figure: Any) -> None:
    if figure == "<5":
        assert bar.suppressed and bar.text == "<5", bar
    else:
        assert bar.value == float(figure), (bar, figure)


@settings(max_examples=60, deadline=None)
@given(st.lists(session_strategy, max_size=40))
def test_every_bar_is_the_json_figure_or_the_marker(specs: list[dict[str, Any]]) -> None:
    data = report(specs)
    page = page_for(data)
    charts = {chart.key: chart for chart in page.charts}
    trend = data["sessions"]["trend"]
    for bar, bucket in zip(charts["sessions-per-day"].bars, trend, strict=True):
        _matches(bar, bucket["sessions"])
    for bar, bucket in zip(charts["retrievals-per-day"].bars, trend, strict=True):
        _matches(bar, bucket["retrievals"])
    memory = data["memory"]
    with_bar, without_bar = charts["with-without-memory"].bars
    _matches(with_bar, memory["sessions_with_memory"])
    _matches(without_bar, memory["sessions_without_memory"])
    for key, cells in (("retrievals-by-call", memory["retrievals_by_via"]),
                       ("by-tool", data["sessions"]["by_tool"]),
                       ("by-outcome", data["sessions"]["by_outcome"])):  # fmt: skip
        assert [b.label for b in charts[key].bars] == list(cells)
        for bar in charts[key].bars:
            _matches(bar, cells[bar.label])
    served = [(b.title, b.value) for b in charts["most-served"].bars]
    assert served == [(m["id"], float(m["sessions"])) for m in memory["top_memories"]]
    useful, not_useful = charts["feedback"].bars
    votes, pct = data["feedback"]["votes"], data["feedback"]["useful_pct"]
    if votes == "<5" or pct == "<5":
        assert useful.suppressed and not_useful.suppressed
    else:
        assert useful.value is not None and not_useful.value is not None
        assert useful.value + not_useful.value == votes
    # Nothing else: every number the page shows is a number of the JSON (the two feedback
    # bars are the JSON's votes split by its percentage, checked above).
    numbers = {
        float(x) for x in _leaves(data) if isinstance(x, (int, float)) and not isinstance(x, bool)
    }
    for chart in page.charts:
        for bar in chart.bars:
            if bar.value is not None and chart.key != "feedback":
                assert bar.value in numbers, (chart.key, bar)
    for figure in page.figures:
        for part in (
            figure.text.replace("·", " ").replace("with", " ").replace("without", " ").split()
        ):
            text = part.removesuffix("%").removesuffix(" min")
            if text.replace(".", "", 1).replace("-", "", 1).isdigit():
                assert float(text) in numbers, (figure, data)


def test_a_suppressed_figure_is_an_outline_never_a_bar() -> None:
    bars = [bar_from_json("Jul 01", 12), bar_from_json("Jul 02", "<5"), bar_from_json("Jul 03", 0)]
    chart = column_chart("c", "Sessions", bars)
    shown, hidden, zero = chart.columns
    assert shown.height > 0 and hidden.height == 0 and zero.height == 0
    assert hidden.bar.suppressed and hidden.bar.text == "<5"
    assert not zero.bar.suppressed and zero.bar.text == "0"
    assert bar_from_json("x", True).suppressed  # a boolean is not a figure
    assert bar_from_json("x", 12.5, unit="%").text == "12.5%"


def test_least_served_is_drawn_only_when_it_differs_from_the_most_served() -> None:
    few = report([dict(s, retrieved=[IDS[0]], vias=["context"]) for s in _sessions(6)])
    assert "least-served" not in {c.key for c in page_for(few).charts}
    data = few
    data["memory"]["memories_served"] = 11
    data["memory"]["least_served"] = [{"id": IDS[1], "sessions": 5}]
    chart = {c.key: c for c in page_for(data).charts}["least-served"]
    assert [(b.title, b.value, b.href) for b in chart.bars] == [(IDS[1], 5.0, f"/memory/{IDS[1]}")]


def _sessions(count: int) -> list[dict[str, Any]]:
    base = {"tool": "codex", "model": "opus", "outcome": "committed", "day": 2, "duration": 60,
            "turns": 3, "retrieved": [], "vias": [], "tokens": [], "explore": 0, "tests": 0,
            "failures": 0, "candidates": 0, "votes": []}  # fmt: skip
    return [dict(base) for _ in range(count)]


def own_report(specs: list[dict[str, Any]]) -> dict[str, Any]:
    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    scan = SpoolScan(sessions=sessions)
    return aggregate(scan, WINDOW, [], generated=NOW, audience=Audience.OWN).to_json()


def _own_matches(bar: Bar, figure: Any) -> None:
    if isinstance(figure, dict):  # shown, marked as what a shared report hides
        assert bar.unshared_sessions == figure["sessions"], (bar, figure)
        if figure["value"] is None:
            assert bar.value is None and bar.text == "none"
        else:
            assert bar.value == float(figure["value"]) and not bar.suppressed
            assert bar.unshared and (
                f"{figure['sessions']} of 5 sessions needed to share" == bar.unshared
                or figure["sessions"] >= 5
            )
    else:
        assert bar.value == float(figure) and bar.unshared is None, (bar, figure)


@settings(max_examples=60, deadline=None)
@given(st.lists(session_strategy, max_size=30))
def test_the_own_view_draws_every_number_and_marks_what_sharing_hides(
    specs: list[dict[str, Any]],
) -> None:
    data = own_report(specs)
    page = page_for(data)
    assert page.own
    charts = {chart.key: chart for chart in page.charts}
    trend = data["sessions"]["trend"]
    for bar, bucket in zip(charts["sessions-per-day"].bars, trend, strict=True):
        _own_matches(bar, bucket["sessions"])
        assert not bar.suppressed  # no outline marked <5 in the own view
    for key, cells in (("by-tool", data["sessions"]["by_tool"]),
                       ("by-outcome", data["sessions"]["by_outcome"])):  # fmt: skip
        assert "(other)" not in cells  # each tool by its name
        for bar in charts[key].bars:
            _own_matches(bar, cells[bar.label])
    figures = {f.label: f for f in page.figures}
    total = data["sessions"]["total"]
    assert figures["sessions"].text == str(total if isinstance(total, int) else total["value"])
    assert bool(figures["sessions"].unshared) == isinstance(total, dict)
    assert "<5" not in " ".join(f.text for f in page.figures)


def test_a_solo_figure_says_how_many_of_five_sessions_it_rests_on() -> None:
    bar = bar_from_json("Jul 02", {"value": 3, "sessions": 3})
    assert (bar.value, bar.text, bar.unshared) == (3.0, "3", "3 of 5 sessions needed to share")
    assert bar.unshared_short == "3 of 5" and not bar.suppressed
    chart = column_chart("c", "Sessions", [bar, bar_from_json("Jul 03", 6)])
    assert chart.columns[0].height > 0  # drawn as a bar, not an outline
    protecting = bar_from_json("x", {"value": 7, "sessions": 7})
    assert protecting.unshared == "hidden when shared, to protect a smaller cell"
