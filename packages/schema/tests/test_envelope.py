import datetime as dt
import json

import pytest
from hypothesis import given, settings, strategies as st
from pydantic import ValidationError
from teambrain_schema import ENVELOPE_ADAPTER, EVENT_TYPES, dump_event, parse_event

KEYS = {
    "v": 1,
    "sid": "abc-123",
    "t": "2026-12-02T10:00:00Z",
    "tool": "claude-code",
    "model": "claude-x",
    "repo": "acme/shop",
    "branch": "main",
}
DRAFT = {
    "class": "learning",
    "title": "Run the slow tests with -m slow",
    "body": "Use `pytest -m slow`.",
}
PAYLOADS = {
    "session_start": {},
    "intent": {"summary": "fix the flaky checkout test"},
    "memory_retrieved": {
        "ids": ["01JDQ8M6Z1V5K7G3X9T2B4N8RC"],
        "commit": "deadbeef",
        "via": "context",
    },
    "tool_use": {"kind": "explore", "path": "src/app.py"},
    "plan_revision": {"items": 3},
    "candidate_proposed": {"draft": DRAFT, "candidate_id": "01JDQ8M6Z1V5K7G3X9T2B4N8RD"},
    "session_end": {
        "outcome": "committed",
        "duration_s": 12.5,
        "turns": 4,
        "commit_shas": ["0123abc"],
    },
}


def test_every_event_type_has_a_payload_example() -> None:
    assert set(PAYLOADS) == set(EVENT_TYPES)


@pytest.mark.parametrize("ev", EVENT_TYPES)
def test_each_event_parses_and_round_trips(ev: str) -> None:
    line = json.dumps({**KEYS, "ev": ev, "data": PAYLOADS[ev]})
    event = parse_event(line)
    assert event.ev == ev
    assert parse_event(dump_event(event)) == event


@pytest.mark.parametrize(
    ("ev", "data", "needle"),
    [
        ("intent", {"summary": "x" * 201}, "200"),
        ("intent", {"summary": "ok", "prompt": "raw prompt"}, "Extra inputs"),
        ("tool_use", {"kind": "delete"}, "kind"),
        ("session_end", {"outcome": "won", "duration_s": 1, "turns": 1}, "outcome"),
        ("session_end", {"outcome": "committed", "duration_s": -1, "turns": 1}, "duration_s"),
        ("memory_retrieved", {"ids": ["not-a-ulid"]}, "ids"),
        ("teleport", {}, "teleport"),
    ],
)
def test_invalid_events_are_rejected(ev: str, data: dict[str, object], needle: str) -> None:
    with pytest.raises(ValidationError, match=needle):
        parse_event(json.dumps({**KEYS, "ev": ev, "data": data}))


def test_unknown_envelope_field_and_naive_time_are_rejected() -> None:
    with pytest.raises(ValidationError):
        parse_event(json.dumps({**KEYS, "ev": "session_start", "data": {}, "cwd": "/home/me"}))
    with pytest.raises(ValidationError):
        parse_event(
            json.dumps({**KEYS, "t": "2026-12-02T10:00:00", "ev": "session_start", "data": {}})
        )


join = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30)
sids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,40}", fullmatch=True)
times = st.datetimes(
    min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)
)
datas = st.one_of(
    st.builds(lambda: ("session_start", {})),
    st.builds(lambda s: ("intent", {"summary": s}), st.text(min_size=1, max_size=200).filter(lambda s: "\x00" not in s)),
    st.builds(lambda k, p, c: ("tool_use", {"kind": k, "path": p, "exit_code": c}),
              st.sampled_from(["edit", "command", "test", "explore"]), st.none() | st.text(min_size=1, max_size=50), st.none() | st.integers(-255, 255)),
    st.builds(lambda o, d, n: ("session_end", {"outcome": o, "duration_s": d, "turns": n, "commit_shas": []}),
              st.sampled_from(["committed", "abandoned", "unknown"]), st.floats(0, 1e7, allow_nan=False), st.integers(0, 10_000)),
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(sid=sids, t=times, tool=join, model=join, repo=join, branch=join, payload=datas)
def test_envelope_json_round_trip(
    sid: str,
    t: dt.datetime,
    tool: str,
    model: str,
    repo: str,
    branch: str,
    payload: tuple[str, dict[str, object]],
) -> None:
    ev, data = payload
    raw = {
        "v": 1,
        "sid": sid,
        "t": t.isoformat(),
        "tool": tool,
        "model": model,
        "repo": repo,
        "branch": branch,
        "ev": ev,
        "data": {k: v for k, v in data.items() if v is not None},
    }
    event = ENVELOPE_ADAPTER.validate_python(raw)
    line = dump_event(event)
    assert "\n" not in line
    assert parse_event(line) == event
