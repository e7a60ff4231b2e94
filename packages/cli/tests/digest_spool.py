"""Writing synthetic spool sessions of known content for the digest tests."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from teambrain_capture import JoinKeys, SessionSummary, append_event, make_event
from teambrain_kit.paths import MachineLayout

NOW = dt.datetime(2026, 7, 8, 12, 0, tzinfo=dt.UTC)
IDS = [f"01JDQ8M6Z1V5K7G3X9T2B4N8R{c}" for c in "ABCDEFGHJK"]


@dataclass
class SessionSpec:
    """One synthetic session: what it did, so a test knows every figure it should produce."""

    sid: str
    start: dt.datetime
    tool: str = "claude-code"
    model: str = "opus"
    repo: str = "acme/shop"
    outcome: str | None = "committed"  # None: no session_end
    duration_s: float = 600.0
    turns: int = 10
    retrievals: Sequence[Sequence[str]] = ()  # ids of each memory_retrieved event
    via: str | None = "context"
    token_estimate: int | None = 500
    explore: int = 0
    edits: int = 0
    tests: Sequence[int | None] = ()  # exit code of each test run
    candidates: int = 0
    extra: list[dict[str, object]] = field(default_factory=list)


def write_session(machine: MachineLayout, spec: SessionSpec) -> None:
    """Append ``spec``'s events to the spool, a few seconds apart."""
    keys = JoinKeys(sid=spec.sid, tool=spec.tool, model=spec.model, repo=spec.repo, branch="main")
    moment = spec.start

    def emit(ev: str, data: dict[str, object]) -> None:
        nonlocal moment
        append_event(machine, make_event(ev, data, keys, now=moment))
        moment += dt.timedelta(seconds=5)

    emit("session_start", {})
    emit("intent", {"summary": "fix the checkout flow"})
    for ids in spec.retrievals:
        data: dict[str, object] = {"ids": list(ids)}
        if spec.via:
            data["via"] = spec.via
        if spec.via == "context" and spec.token_estimate is not None:
            data["token_estimate"] = spec.token_estimate
        emit("memory_retrieved", data)
    for _ in range(spec.explore):
        emit("tool_use", {"kind": "explore", "path": "src/app.py"})
    for _ in range(spec.edits):
        emit("tool_use", {"kind": "edit", "path": "src/app.py"})
    for code in spec.tests:
        emit("tool_use", {"kind": "test"} if code is None else {"kind": "test", "exit_code": code})
    for index in range(spec.candidates):
        draft = {
            "class": "learning",
            "title": f"Learning {index}",
            "body": "Run the fake clock in checkout tests.",
        }
        emit("candidate_proposed", {"draft": draft})
    if spec.outcome is not None:
        emit(
            "session_end",
            {
                "outcome": spec.outcome,
                "duration_s": spec.duration_s,
                "turns": spec.turns,
                "commit_shas": [],
            },
        )


def write_sessions(machine: MachineLayout, specs: Sequence[SessionSpec]) -> None:
    for spec in specs:
        write_session(machine, spec)


def at(days_ago: float, hour: int = 10) -> dt.datetime:
    """A start time ``days_ago`` days before NOW's date, at ``hour`` UTC."""
    return NOW.replace(hour=hour, minute=0) - dt.timedelta(days=days_ago)


# Random sessions for property tests (summaries, not files: fast enough for many examples).
OUTCOMES = ["committed", "abandoned", "unknown", "no_end"]
session_strategy = st.builds(
    dict,
    tool=st.sampled_from(["claude-code", "cursor", "codex"]),
    model=st.sampled_from(["opus", "sonnet"]),
    outcome=st.sampled_from(OUTCOMES),
    day=st.integers(min_value=1, max_value=7),
    duration=st.integers(min_value=0, max_value=7200),
    turns=st.integers(min_value=0, max_value=60),
    retrieved=st.lists(st.sampled_from(IDS[:4]), max_size=3),
    vias=st.lists(st.sampled_from(["context", "search", "unspecified"]), max_size=3),
    tokens=st.lists(st.integers(min_value=0, max_value=2000), max_size=2),
    explore=st.integers(min_value=0, max_value=9),
    tests=st.integers(min_value=0, max_value=3),
    failures=st.integers(min_value=0, max_value=3),
    candidates=st.integers(min_value=0, max_value=2),
    votes=st.lists(st.booleans(), max_size=2),
)


def summary_of(index: int, spec: dict[str, Any]) -> SessionSummary:
    """A session summary drawn by :data:`session_strategy` (in the window 2026-07-01..07)."""
    ended = spec["outcome"] != "no_end"
    return SessionSummary(
        sid=f"s{index}", tool=spec["tool"], model=spec["model"], repo="r", branch="b",
        started=dt.datetime(2026, 7, spec["day"], 12, tzinfo=dt.UTC), outcome=spec["outcome"],
        duration_s=float(spec["duration"]) if ended else None, turns=spec["turns"] if ended else None,
        retrievals=len(spec["vias"]), retrievals_by_via=Counter(spec["vias"]),
        memory_ids=set(spec["retrieved"]) if spec["vias"] else set(),
        context_tokens=spec["tokens"] if "context" in spec["vias"] else [],
        tool_uses=Counter(explore=spec["explore"], test=spec["tests"]),
        test_failures=min(spec["failures"], spec["tests"]), candidates=spec["candidates"],
    )  # fmt: skip
