import datetime as dt
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from digest_spool import (
    IDS,
    NOW,
    SessionSpec,
    session_strategy,
    summary_of,
    write_session,
    write_sessions,
)
from hypothesis import given, settings, strategies as st
from teambrain_capture import (
    FeedbackVote,
    JoinKeys,
    SessionSummary,
    append_event,
    make_event,
    record_feedback,
    repo_join_key,
    summarise_session,
    user_dir,
)
from teambrain_cli._reports.cells import MIN_SESSIONS, OTHER_KEY, SUPPRESSED
from teambrain_cli._reports.digest import SpoolScan, aggregate, build_digest, scan_sessions
from teambrain_cli._reports.window import resolve_window
from teambrain_schema.paths import machine_layout

UTC = dt.UTC
WINDOW = resolve_window("2026-07-01", "2026-07-07", now=NOW)  # [Jul 1, Jul 8): 7 buckets


def day(d: int, hour: int = 10) -> dt.datetime:
    return dt.datetime(2026, 7, d, hour, tzinfo=UTC)


def known_specs() -> list[SessionSpec]:
    """15 sessions in the window (and two outside it) whose every figure is worked out below."""
    specs = [
        SessionSpec(
            f"a{i}", day(2, 9 + i), tool="claude-code", model="opus", outcome="committed",
            duration_s=300.0 * (i + 1), turns=4 + 2 * i, retrievals=[[IDS[0], IDS[1]]],
            token_estimate=400 + 100 * i, explore=1, tests=[0, 1], candidates=2 if i == 5 else 1,
        )
        for i in range(6)
    ]  # fmt: skip
    specs += [
        SessionSpec(
            f"b{i}", day(3, 9 + i), tool="cursor", model="sonnet", outcome="abandoned",
            duration_s=600.0, turns=20, explore=4, tests=[0],
        )
        for i in range(5)
    ]  # fmt: skip
    specs += [
        SessionSpec(
            f"c{i}", day(5, 9 + i), tool="codex", model="opus", outcome=None,
            retrievals=[[IDS[2]]], via="search", explore=2,
        )
        for i in range(3)
    ]  # fmt: skip
    specs.append(
        SessionSpec("d0", day(6), tool="windsurf", model="sonnet", outcome="unknown",
                    duration_s=60.0, turns=2)
    )  # fmt: skip
    # Outside the window: started the evening before (its events run into Jul 1), and after it.
    specs.append(SessionSpec("early", dt.datetime(2026, 6, 30, 23, 59, 50, tzinfo=UTC), explore=9))
    specs.append(SessionSpec("late", day(8, 1), explore=9))
    return specs


@pytest.fixture
def known_spool(teambrain_home: Path) -> Path:
    machine = machine_layout()
    write_sessions(machine, known_specs())
    with open(machine.session_file("a0"), "ab") as handle:
        handle.write(b'{"v":1,"sid":"a0","t":"2026-07-0')  # a writer killed mid-append
    bad_event = {"v": 1, "sid": "b0", "t": "2026-07-03T12:00:00Z", "tool": "cursor", "model": "sonnet",
                 "repo": "acme/shop", "branch": "main", "ev": "tool_use", "data": {"kind": "dance"}}  # fmt: skip
    with open(machine.session_file("b0"), "a") as handle:
        handle.write(json.dumps(bad_event) + "\n[1, 2]\n")
    machine.session_file("junk").write_bytes(b"\x00\xff garbage\nnot json either\n")
    old = machine.session_file("stale")
    old.write_text("torn but never read\n")
    os.utime(old, (WINDOW.since.timestamp() - 10, WINDOW.since.timestamp() - 10))
    for sid, useful in [("a0", True), ("a1", True), ("a2", True), ("a3", False), ("a4", True)]:
        record_feedback(IDS[0], useful, sid=sid)
    record_feedback(IDS[1], True)  # no session id: counts as one more voter
    feedback = user_dir() / "feedback.jsonl"
    lines = feedback.read_text().splitlines()
    # Give the votes in-window times, and add one vote from before the window.
    stamped = [json.loads(line) | {"t": "2026-07-04T10:00:00.000Z"} for line in lines]
    stamped.append({"t": "2026-06-20T10:00:00.000Z", "id": IDS[0], "useful": False, "sid": "b1"})
    feedback.write_text("".join(json.dumps(vote) + "\n" for vote in stamped))
    return teambrain_home


def test_every_figure_of_a_known_spool(known_spool: Path) -> None:
    report = build_digest(machine_layout(), WINDOW, now=NOW)
    data = report.to_json()
    assert data["window"] == {
        "since": "2026-07-01T00:00:00Z", "until": "2026-07-08T00:00:00Z", "repo": None,
        "days": 7, "bucket_days": 1,
    }  # fmt: skip
    assert data["suppression"] == {"min_sessions": 5, "marker": "<5", "audience": "shared"}
    # a0's torn line + junk's two lines; b0's invalid event and its non-object line ([1, 2]).
    assert data["spool"] == {"torn_lines": 4, "invalid_events": 1, "unreadable_files": 0}
    assert data["sessions"] == {
        "total": 15,
        # codex (3) + windsurf (1) hold 4 sessions: cursor (5) folds in with them.
        "by_tool": {"claude-code": 6, OTHER_KEY: 9},
        "by_model": {"opus": 9, "sonnet": 6},
        # no_end (3) + unknown (1) hold 4: abandoned (5) folds in.
        "by_outcome": {"committed": 6, OTHER_KEY: 9},
        # ended: 5,10,15,20,25,30 min (a), 10 ×5 (b), 1 (d) → middle pair 10, 10.
        "median_duration_min": 10.0,
        # 4..14 step 2 (a), 20 ×5 (b), 2 (d) → middle pair 12, 14.
        "median_turns": 13.0,
        # Jul 2: 6, Jul 3: 5, Jul 5: 3, Jul 6: 1 — the small days hold 4, so Jul 3 hides too.
        "trend": [
            {"start": f"2026-07-0{d}", "sessions": s, "retrievals": r}
            for d, s, r in [
                (1, "<5", "<5"),
                (2, 6, "<5"),
                (3, "<5", "<5"),
                (4, "<5", "<5"),
                (5, "<5", "<5"),
                (6, "<5", "<5"),
                (7, "<5", "<5"),
            ]
        ],
    }
    assert data["memory"] == {
        "sessions_with_memory": 9,
        "sessions_without_memory": 6,
        "retrievals": 9,
        # search (3 sessions) is small: context folds in with it.
        "retrievals_by_via": {OTHER_KEY: 9},
        "top_memories": [{"id": IDS[0], "sessions": 6}, {"id": IDS[1], "sessions": 6}],
        "least_served": [{"id": IDS[0], "sessions": 6}, {"id": IDS[1], "sessions": 6}],
        "memories_served": 2,
        "avg_context_tokens": 650.0,
        "stale": [],  # a fact of the brain, filled in by `tb digest` inside a repository
    }
    assert data["context_efficiency"] == {
        "explore_per_session_with_memory": 1.33,  # (6×1 + 3×2) / 9
        "explore_per_session_without_memory": 3.33,  # (5×4 + 0) / 6
        "explore_change_pct": -60.0,
    }
    assert data["feedback"] == {"votes": 6, "useful_pct": 83.3}
    assert data["candidates"] == {"proposed": 7, "sessions_proposing": 6}
    assert data["tests"] == {
        "runs": 17, "sessions_with_tests": 11, "failures": 6, "sessions_with_failures": 6,
    }  # fmt: skip


def test_sessions_are_filtered_by_repository(known_spool: Path) -> None:
    machine = machine_layout()
    write_session(machine, SessionSpec("other-repo", day(4), repo="acme/infra"))
    everything = build_digest(machine, WINDOW, now=NOW)
    shop = build_digest(machine, WINDOW, repo="acme/shop", now=NOW)
    infra = build_digest(machine, WINDOW, repo="acme/infra", now=NOW)
    assert (everything.sessions, shop.sessions, infra.sessions) == (16, 15, SUPPRESSED)
    # With a repository filter only votes from its sessions count (a0..a4: five voters).
    assert shop.to_json()["feedback"] == {"votes": 5, "useful_pct": 80.0}
    assert shop.to_json()["window"]["repo"] == "acme/shop"


@pytest.mark.parametrize("n", [4, 5])
def test_suppression_at_four_and_five(teambrain_home: Path, n: int) -> None:
    machine = machine_layout()
    for i in range(n):
        write_session(
            machine,
            SessionSpec(f"s{i}", day(2, 8 + i), tool="cursor", retrievals=[[IDS[0]]], explore=3,
                        tests=[1], candidates=1, duration_s=120.0, turns=6),
        )  # fmt: skip
        record_feedback(IDS[0], True, sid=f"s{i}")
    window = resolve_window("2026-07-01", None, now=dt.datetime.now(UTC))
    data = build_digest(machine, window).to_json()
    shown = n >= MIN_SESSIONS

    def expect(value: Any) -> Any:
        return value if shown else "<5"

    assert data["sessions"]["total"] == expect(n)
    assert data["sessions"]["by_tool"] == ({"cursor": n} if shown else {OTHER_KEY: "<5"})
    assert data["sessions"]["by_outcome"] == ({"committed": n} if shown else {OTHER_KEY: "<5"})
    assert data["sessions"]["median_duration_min"] == expect(2.0)
    assert data["sessions"]["median_turns"] == expect(6.0)
    assert data["memory"]["sessions_with_memory"] == expect(n)
    assert data["memory"]["sessions_without_memory"] == "<5"  # zero sessions
    assert data["memory"]["retrievals"] == expect(n)
    assert data["memory"]["top_memories"] == ([{"id": IDS[0], "sessions": n}] if shown else [])
    assert data["memory"]["avg_context_tokens"] == expect(500.0)
    assert data["context_efficiency"]["explore_per_session_with_memory"] == expect(3.0)
    assert data["context_efficiency"]["explore_change_pct"] == "<5"  # no group without memory
    assert data["feedback"] == {"votes": expect(n), "useful_pct": expect(100.0)}
    assert data["candidates"] == {"proposed": expect(n), "sessions_proposing": expect(n)}
    assert data["tests"] == {
        "runs": expect(n), "sessions_with_tests": expect(n),
        "failures": expect(n), "sessions_with_failures": expect(n),
    }  # fmt: skip
    text = json.dumps(data)
    if not shown:
        assert '"sessions": 4' not in text and ": 4," not in text and ": 4}" not in text


def test_an_empty_or_missing_spool_is_a_report_of_nothing(teambrain_home: Path) -> None:
    data = build_digest(machine_layout(), WINDOW, now=NOW).to_json()
    assert data["sessions"]["total"] == "<5"
    assert data["sessions"]["by_tool"] == {}
    assert data["memory"]["top_memories"] == []
    assert data["spool"] == {"torn_lines": 0, "invalid_events": 0, "unreadable_files": 0}
    assert [bucket["sessions"] for bucket in data["sessions"]["trend"]] == ["<5"] * 7


def test_unreadable_files_are_counted_not_raised(
    known_spool: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import teambrain_cli._reports.digest as digest_module

    real = digest_module.read_jsonl

    def flaky(path: Path) -> Any:
        if path.name == "b1.jsonl":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(digest_module, "read_jsonl", flaky)
    scan = scan_sessions(machine_layout(), WINDOW)
    assert scan.unreadable_files == 1
    assert "b1" not in {s.sid for s in scan.sessions} and len(scan.sessions) == 14


def test_a_session_is_summarised_from_its_valid_events_only() -> None:
    keys = {"v": 1, "sid": "x", "tool": "t", "model": "m", "repo": "r", "branch": "b"}
    records = [
        keys | {"t": "2026-07-02T10:00:05Z", "ev": "tool_use", "data": {"kind": "test", "exit_code": 2}},
        keys | {"t": "2026-07-02T10:00:00Z", "ev": "session_start", "data": {}},
        keys | {"t": "2026-07-02T10:00:09Z", "ev": "tool_use", "data": {"kind": "test"}},
        keys | {"t": "not a time", "ev": "session_start", "data": {}},
        keys | {"t": "2026-07-02T10:01:00Z", "ev": "memory_retrieved", "data": {"ids": []}},
    ]  # fmt: skip
    summary, invalid = summarise_session(records)
    assert invalid == 1
    assert summary is not None
    assert summary.started == day(2)  # the earliest event, whatever the line order
    assert (summary.tool_uses["test"], summary.test_failures) == (2, 1)
    # A retrieval that returned nothing is a call, but the session did not get memory.
    assert (summary.retrievals, summary.has_memory, summary.outcome) == (1, False, "no_end")
    assert summarise_session([{"ev": "nonsense"}]) == (None, 1)


# --- property: the JSON report shows a number only for a group of at least five sessions ----


def _numeric_leaves(node: Any, path: str = "") -> list[tuple[str, float]]:
    if isinstance(node, dict):
        return [
            leaf for key, value in node.items() for leaf in _numeric_leaves(value, f"{path}/{key}")
        ]
    if isinstance(node, list):
        return [
            leaf for i, value in enumerate(node) for leaf in _numeric_leaves(value, f"{path}/{i}")
        ]
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return [(path, node)]
    return []


@settings(max_examples=250, deadline=None)
@given(st.lists(session_strategy, max_size=40))
def test_json_shows_numbers_only_for_groups_of_five(specs: list[dict[str, Any]]) -> None:
    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    votes = [
        FeedbackVote(day(spec["day"], 13), IDS[0], useful, f"s{i}")
        for i, spec in enumerate(specs)
        for useful in spec["votes"]
    ]
    data = aggregate(SpoolScan(sessions=sessions), WINDOW, votes, generated=NOW).to_json()

    def group(predicate: Any) -> set[str]:
        return {s.sid for s in sessions if predicate(s)}

    ended = group(lambda s: s.outcome != "no_end")
    with_memory = group(lambda s: s.has_memory)
    without_memory = group(lambda s: not s.has_memory)
    bases: dict[str, set[str]] = {
        "/sessions/median_duration_min": ended,
        "/sessions/median_turns": ended,
        "/memory/retrievals": group(lambda s: s.retrievals),
        "/memory/avg_context_tokens": group(lambda s: s.context_tokens),
        "/context_efficiency/explore_per_session_with_memory": with_memory,
        "/context_efficiency/explore_per_session_without_memory": without_memory,
        "/context_efficiency/explore_change_pct": (
            with_memory if len(with_memory) < len(without_memory) else without_memory
        ),
        "/feedback/votes": {v.sid for v in votes if v.sid},
        "/feedback/useful_pct": {v.sid for v in votes if v.sid},
        "/candidates/proposed": group(lambda s: s.candidates),
        "/tests/runs": group(lambda s: s.tool_uses["test"]),
        "/tests/failures": group(lambda s: s.test_failures),
    }
    # Figures whose value is itself a number of sessions.
    counts = (
        "/sessions/total", "/sessions/by_", "/sessions/trend/", "/memory/sessions_with",
        "/memory/top_memories/", "/memory/least_served/", "/candidates/sessions_proposing",
        "/tests/sessions_with",
    )  # fmt: skip
    for path, value in _numeric_leaves(data):
        if path.startswith(("/window/", "/suppression/", "/spool/", "/version")):
            continue
        if path.endswith("/retrievals") and "/trend/" in path:
            bucket = data["sessions"]["trend"][int(path.split("/")[3])]["start"]
            basis = group(lambda s, b=bucket: s.retrievals and s.started.date().isoformat() == b)
            assert len(basis) >= MIN_SESSIONS, path
        elif path == "/memory/memories_served":  # a count of ids, each shown in 5+ sessions
            shown = Counter(m for s in sessions for m in set(s.memory_ids))
            assert value == sum(n >= MIN_SESSIONS for n in shown.values()), path
        elif path.startswith(counts):
            assert value >= MIN_SESSIONS, (path, value)
        elif path.startswith("/memory/retrievals_by_via/"):
            via = path.rsplit("/", 1)[1]
            named = set(data["memory"]["retrievals_by_via"]) - {OTHER_KEY}
            basis = group(
                lambda s, v=via, n=named: s.retrievals_by_via[v] if v != OTHER_KEY
                else set(s.retrievals_by_via) - n
            )  # fmt: skip
            assert len(basis) >= MIN_SESSIONS, path
        else:
            assert path in bases, f"unchecked figure {path}: add its group to this test"
            assert len(bases[path]) >= MIN_SESSIONS, (path, value)
    # Breakdowns cannot be undone by subtraction: hidden cells hold none or five-plus sessions.
    total = len(sessions)
    if total >= MIN_SESSIONS:
        trend = data["sessions"]["trend"]
        per_day = Counter(s.started.date().isoformat() for s in sessions)
        hidden = sum(per_day[b["start"]] for b in trend if b["sessions"] == "<5")
        assert hidden == 0 or hidden >= MIN_SESSIONS
        for key in ("by_tool", "by_model", "by_outcome"):
            shown = sum(v for k, v in data["sessions"][key].items() if k != OTHER_KEY)
            assert total - shown == 0 or total - shown >= MIN_SESSIONS


def test_the_repo_join_key_of_a_checkout_is_what_capture_records(tmp_path: Path) -> None:
    import subprocess

    checkout = tmp_path / "Shop"
    (checkout / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    assert repo_join_key(checkout / "src") == "Shop"  # no remote: the folder name
    subprocess.run(
        ["git", "-C", str(checkout), "remote", "add", "origin", "git@github.com:Acme/Shop.git"],
        check=True,
    )
    assert repo_join_key(checkout) == "github.com/acme/shop"
    assert repo_join_key(Path("/")) is None


def test_lifecycle_only_records_are_not_sessions(teambrain_home: Path) -> None:
    # What `claude mcp list` left in spools before tb-capture ignored a lone SessionEnd: a
    # session_start and a 0-second, 0-turn session_end. Five real ones, so counts show.
    machine = machine_layout()
    for i in range(5):
        write_session(machine, SessionSpec(f"real{i}", day(2, 8 + i), model="unknown"))
    for i in range(4):
        keys = JoinKeys(sid=f"phantom{i}", tool="claude-code", model="unknown", repo="acme/shop", branch="main")  # fmt: skip
        append_event(machine, make_event("session_start", {}, keys, now=day(3, 9 + i)))
        end = {"outcome": "unknown", "duration_s": 0.0, "turns": 0, "commit_shas": []}
        append_event(machine, make_event("session_end", end, keys, now=day(3, 9 + i)))
    data = build_digest(machine, WINDOW, now=NOW).to_json()
    assert data["sessions"]["total"] == 5
    assert data["sessions"]["by_tool"] == {"claude-code": 5}
    assert data["sessions"]["median_turns"] == 10.0


def test_a_session_takes_the_first_model_it_learns() -> None:
    # Claude Code's headless sessions learn their model from the transcript after starting.
    keys = {"v": 1, "sid": "x", "tool": "claude-code", "repo": "r", "branch": "b"}
    records = [
        {**keys, "model": "unknown", "t": "2026-07-02T10:00:00Z", "ev": "session_start", "data": {}},
        {**keys, "model": "unknown", "t": "2026-07-02T10:00:01Z", "ev": "intent", "data": {"summary": "go"}},
        {**keys, "model": "opus", "t": "2026-07-02T10:00:02Z", "ev": "tool_use", "data": {"kind": "explore"}},
    ]  # fmt: skip
    summary, invalid = summarise_session(records)
    assert invalid == 0 and summary is not None
    assert (summary.model, summary.activity, summary.is_empty) == ("opus", 2, False)


def test_least_served_lists_the_memories_shown_in_fewest_sessions_of_five_or_more() -> None:
    """Twelve memories shown in 5..16 sessions, one in 4: the top ten, the least ten (fewest
    first, none under five), and how many were shown in five or more."""
    ids = [f"01JDQ8M6Z1V5K7G3X9T2B4N{n:03d}" for n in range(13)]
    sessions = []
    for index in range(16):
        shown = {ids[m] for m in range(12) if index < 5 + m} | ({ids[12]} if index < 4 else set())
        sessions.append(
            SessionSummary(
                sid=f"s{index}", tool="codex", model="opus", repo="r", branch="b",
                started=day(2), retrievals=1, retrievals_by_via=Counter(context=1),
                memory_ids=shown, activity=1,
            )
        )  # fmt: skip
    data = aggregate(SpoolScan(sessions=sessions), WINDOW, [], generated=NOW).to_json()
    memory = data["memory"]
    assert memory["memories_served"] == 12
    assert [m["sessions"] for m in memory["top_memories"]] == list(range(16, 6, -1))
    assert memory["least_served"] == [{"id": ids[m], "sessions": 5 + m} for m in range(10)]
    assert ids[12] not in str(memory)  # shown in four sessions: never named
