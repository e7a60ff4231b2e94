"""No reader of the spool may crash on any JSON: every event type with arbitrary values in every
field (the contract's shapes, v1's shapes, and anything else) goes through audit, digest,
metrics, verify and the distiller's reader. A bad event is counted or skipped, never raised."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_kit.paths import MachineLayout
from teambrain_schema import EVENT_TYPES

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip
plausible = {
    "v": st.just(1) | json_values,
    "sid": st.sampled_from(["s1", "s2"]) | json_values,
    "t": st.sampled_from(["2026-12-01T10:00:00.000Z", "2026-12-01T11:30:00Z", "not a time"])
    | json_values,
    "tool": st.just("claude-code") | json_values,
    "model": st.just("m") | json_values,
    "repo": st.just("shop") | json_values,
    "branch": st.just("main") | json_values,
    "ev": st.sampled_from(sorted(EVENT_TYPES)) | json_values,
    "data": st.sampled_from(
        ["the password is hunter2-correct", {"summary": "fix the flaky test"}, {"ids": []},
         {"kind": "edit", "path": "a.py"}, {"outcome": "committed", "duration_s": 5, "turns": 1,
          "commit_shas": []}, "x" * 300]
    ) | json_values,
}  # fmt: skip


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    return {key: draw(strategy) for key, strategy in plausible.items() if draw(st.booleans())}


def _write_spool(home: Path, lines: list[Any]) -> MachineLayout:
    machine = MachineLayout(home)
    machine.sessions.mkdir(parents=True, exist_ok=True)
    for sid in ("s1", "s2"):
        path = machine.sessions / f"{sid}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines if line.get("sid") == sid)
                        + "{torn\n")  # fmt: skip
    (machine.sessions / "other.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines)
    )
    return machine


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(records(), max_size=12))
def test_every_spool_reader_survives_any_json(lines: list[dict[str, Any]], tmp_path_factory: Any) -> None:  # fmt: skip
    from teambrain_capture import audit_sessions
    from teambrain_cli._checks.verify import check_spool_privacy
    from teambrain_cli._reports.digest import aggregate, scan_sessions
    from teambrain_cli._reports.metrics import recent_activity
    from teambrain_cli._reports.window import resolve_window
    from teambrain_distill._sessions import read_session

    home = tmp_path_factory.mktemp("home")
    machine = _write_spool(home, lines)
    audits = audit_sessions(machine)
    for audit in audits:
        assert audit.sid  # every file is summarised, broken or not
    window = resolve_window("30d", now=dt.datetime(2026, 12, 3, tzinfo=dt.UTC))
    scan = scan_sessions(machine, window)
    aggregate(scan, window, [])
    recent_activity(machine, now=dt.datetime(2026, 12, 3, tzinfo=dt.UTC))
    result = check_spool_privacy(machine)
    assert result.status in ("PASS", "FAIL")
    for path in machine.sessions.glob("*.jsonl"):
        read_session(path)
