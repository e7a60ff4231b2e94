"""The own view of a report (issue 42 point 4): the person at this machine sees their own
numbers, marked where a shared report hides them; the shared formats keep suppressing and
refuse an own report outright."""

import datetime as dt
import json
from typing import Any
from unittest import mock

import pytest
from digest_spool import IDS, NOW, SessionSpec, session_strategy, summary_of, write_sessions
from hypothesis import given, settings, strategies as st
from teambrain_capture import FeedbackVote
from teambrain_cli._reports import cells
from teambrain_cli._reports.cells import (
    OTHER_KEY,
    SUPPRESSED,
    Audience,
    Unshared,
    figure,
    fold_small_cells,
    hide_small_cells,
)
from teambrain_cli._reports.digest import SpoolScan, aggregate, build_digest
from teambrain_cli._reports.metrics import MetricsSnapshot, render_metrics_text
from teambrain_cli._reports.render import (
    format_figure,
    render_digest,
    render_digest_json,
    render_digest_markdown,
    slack_text,
)
from teambrain_cli._reports.window import resolve_window
from teambrain_schema.paths import machine_layout

WINDOW = resolve_window("2026-07-01", "2026-07-07", now=NOW)
OWN = Audience.OWN


def group(prefix: str, size: int) -> frozenset[str]:
    return frozenset(f"{prefix}-{i}" for i in range(size))


def test_an_own_figure_is_the_number_marked_with_its_sessions() -> None:
    assert figure(9, 2, audience=OWN) == Unshared(9, 2)
    assert figure(12, 5, audience=OWN) == 12  # five sessions: as a shared report shows it
    assert figure(12.345, 3, digits=1, audience=OWN) == Unshared(12.3, 3)
    assert figure(9, 2) is SUPPRESSED  # shared, the default
    assert format_figure(Unshared(9, 2)) == "9 [2 of 5]"
    assert format_figure(Unshared(7, 6), " min") == "7 min [hidden when shared]"
    assert format_figure(Unshared(None, 0)) == "none"
    assert format_figure(SUPPRESSED) == "<5"


def test_own_breakdowns_hide_nothing_and_mark_what_a_shared_one_hides() -> None:
    cells_ = [(10, group("a", 10)), (3, group("b", 3)), (6, group("c", 6))]
    assert hide_small_cells(cells_) == [10, SUPPRESSED, SUPPRESSED]
    assert hide_small_cells(cells_, OWN) == [10, Unshared(3, 3), Unshared(6, 6)]
    tools = {
        "claude-code": (20, group("cc", 20)),
        "cursor": (3, group("cu", 3)),
        "codex": (2, group("co", 2)),
    }
    assert fold_small_cells(tools) == {"claude-code": 20, OTHER_KEY: 5}
    assert fold_small_cells(tools, OWN) == {
        "claude-code": 20, "cursor": Unshared(3, 3), "codex": Unshared(2, 2),
    }  # fmt: skip


def _flat(node: Any) -> Any:
    """A report's JSON with every own-view mark replaced by its number."""
    if isinstance(node, dict):
        if set(node) == {"value", "sessions"}:
            return node["value"]
        return {k: _flat(v) for k, v in node.items() if k != "audience"}
    if isinstance(node, list):
        return [_flat(v) for v in node]
    return node


def _marks(node: Any, path: str = "") -> dict[str, Any]:
    """Every leaf of a report's JSON by path (a mark counts as one leaf)."""
    if isinstance(node, dict) and set(node) != {"value", "sessions"}:
        return {p: v for k, value in node.items() for p, v in _marks(value, f"{path}/{k}").items()}
    if isinstance(node, list):
        return {p: v for i, value in enumerate(node) for p, v in _marks(value, f"{path}/{i}").items()}  # fmt: skip
    return {path: node}


OPEN = ("/sessions/by_tool/", "/sessions/by_model/", "/sessions/by_outcome/", "/memory/retrievals_by_via/")  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(session_strategy, max_size=40))
def test_own_and_shared_reports_tell_the_same_story(specs: list[dict[str, Any]]) -> None:
    """Where a shared report shows a number the own view shows the same one; where it shows
    <5 the own view shows the true value, marked; and the own view's numbers are the true
    ones (the same report with no threshold at all)."""
    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    votes = [
        FeedbackVote(dt.datetime(2026, 7, spec["day"], 13, tzinfo=dt.UTC), IDS[0], useful, f"s{i}")
        for i, spec in enumerate(specs)
        for useful in spec["votes"]
    ]
    scan = SpoolScan(sessions=sessions)
    shared = aggregate(scan, WINDOW, votes, generated=NOW).to_json()
    own = aggregate(scan, WINDOW, votes, generated=NOW, audience=OWN).to_json()
    with mock.patch.object(cells, "MIN_SESSIONS", 0):  # every figure stands: the truth
        truth = aggregate(scan, WINDOW, votes, generated=NOW, audience=OWN).to_json()
    assert _flat(own) == _flat(truth)
    assert "{'value'" not in repr(shared) and shared["suppression"]["audience"] == "shared"
    own_leaves, shared_leaves = _marks(own), _marks(shared)
    for path, value in shared_leaves.items():
        if path.startswith(("/generated", "/suppression/", "/memory/top_memories/", "/memory/least_served/", "/memory/memories_served")):  # fmt: skip
            continue
        if path.startswith(OPEN) and path.endswith(f"/{OTHER_KEY}"):
            continue  # the fold: the own view names each member instead
        mine = own_leaves[path]
        if value == "<5":
            assert isinstance(mine, dict), (path, mine)
        else:
            assert mine == value, (path, mine, value)
    for path, mine in own_leaves.items():
        if isinstance(mine, dict) and not path.startswith(("/memory/top_memories/", "/memory/least_served/")):  # fmt: skip
            folded = path.startswith(OPEN) and path not in shared_leaves
            assert folded or shared_leaves.get(path) == "<5", (path, mine)
    # Memories named in a shared report are those shown in 5+ sessions: the own view's
    # unmarked entries, the same ones in the same order.
    plain = [m for m in own["memory"]["top_memories"] if not isinstance(m["sessions"], dict)]
    assert plain == shared["memory"]["top_memories"]


def test_shared_formats_refuse_an_own_report(teambrain_home: Any) -> None:
    write_sessions(machine_layout(), [SessionSpec("solo", dt.datetime(2026, 7, 2, 9, tzinfo=dt.UTC))])  # fmt: skip
    report = build_digest(machine_layout(), WINDOW, now=NOW, audience=OWN)
    for render in (render_digest_json, render_digest_markdown, slack_text):
        with pytest.raises(ValueError, match="never rendered to share"):
            render(report)
    with pytest.raises(ValueError, match="never rendered to share"):
        render_digest(report, "markdown")
    assert "1 [1 of 5]" in render_digest(report, "text")


def test_a_solo_users_first_week_reads_as_numbers(teambrain_home: Any) -> None:
    """Nine candidates proposed in three sessions: the own view says 9, marked; a shared
    report still says <5."""
    day = dt.datetime(2026, 7, 3, 9, tzinfo=dt.UTC)
    specs = [
        SessionSpec(f"solo{i}", day + dt.timedelta(hours=i), candidates=3, retrievals=[[IDS[0]]],
                    token_estimate=700, explore=2, tests=[0, 1])
        for i in range(3)
    ]  # fmt: skip
    write_sessions(machine_layout(), specs)
    own = build_digest(machine_layout(), WINDOW, now=NOW, audience=OWN)
    text = render_digest(own, "text")
    assert "Sessions             3 [3 of 5]" in text
    assert "proposed 9 [3 of 5] in 3 [3 of 5] sessions" in text
    assert "avg context size   700 tokens [3 of 5]" in text
    assert "3 [3 of 5] sessions  " + IDS[0] in text  # the memory it was shown, named
    assert "Your own numbers" in text and "<5" not in text
    shared = build_digest(machine_layout(), WINDOW, now=NOW)
    assert json.loads(render_digest_json(shared))["candidates"]["proposed"] == "<5"
    assert "<5 candidates proposed" in slack_text(shared)


def test_metrics_text_is_own_and_its_json_is_shared(teambrain_home: Any) -> None:
    from teambrain_cli._reports.metrics import ComponentStatus, recent_activity

    now = dt.datetime.now(dt.UTC)
    write_sessions(machine_layout(), [SessionSpec("m1", now - dt.timedelta(hours=2), retrievals=[[IDS[0]]])])  # fmt: skip
    status = ComponentStatus("fresh", "ok")

    def snapshot(audience: Audience) -> MetricsSnapshot:
        return MetricsSnapshot(
            generated=now, brain=None, memories=None, index=status, serve=status,
            embedder=status, recent=recent_activity(machine_layout(), now=now, audience=audience),
        )  # fmt: skip

    text = render_metrics_text(snapshot(OWN))
    assert "Last 7 days  1 [1 of 5] sessions · 1 [1 of 5] with memory" in text
    with pytest.raises(ValueError):
        snapshot(OWN).to_json()
    assert snapshot(Audience.SHARED).to_json()["last_7_days"]["sessions"] == "<5"
