import os
import time
from pathlib import Path

from teambrain_capture import (
    JoinKeys,
    append_event,
    audit_session,
    last_session,
    make_event,
    prune_spool,
)
from teambrain_capture._hook import state_path
from teambrain_kit.paths import machine_layout

KEYS = JoinKeys(sid="a-1", tool="cursor", model="gpt-5", repo="github.com/acme/shop", branch="main")


def test_a_session_is_summarised_and_checked(teambrain_home: Path) -> None:
    machine = machine_layout()
    append_event(machine, make_event("session_start", {}, KEYS))
    append_event(machine, make_event("intent", {"summary": "fix login"}, KEYS))
    append_event(machine, make_event("tool_use", {"kind": "explore", "path": "a.py"}, KEYS))
    append_event(machine, make_event("tool_use", {"kind": "edit", "path": "a.py"}, KEYS))
    append_event(machine, make_event("memory_retrieved", {"ids": []}, KEYS))
    append_event(
        machine, make_event("intent", {"summary": "token=" + "Zq8Lm2Xv9Rt4Wn6Kp1Bs"}, KEYS)
    )
    append_event(machine, {"v": 1, "sid": "a-1", "ev": "tool_use", "data": {"kind": "dance"}})
    with open(machine.session_file("a-1"), "ab") as handle:
        handle.write(b'{"torn')
    audit = audit_session(machine.session_file("a-1"))
    assert len(audit.records) == 7
    report = audit.to_json()
    assert (report["tool"], report["model"], report["status"], report["prompts"]) == (
        "cursor",
        "gpt-5",
        "open",
        2,
    )
    assert report["tool_uses"] == {"edit": 1, "explore": 1}
    assert report["events"]["tool_use"] == 3
    assert (report["torn_lines"], report["invalid_events"], report["secrets_found"]) == (1, 1, 1)
    end = {"outcome": "committed", "duration_s": 12.5, "turns": 2, "commit_shas": ["abcdef1"]}
    append_event(machine, make_event("session_end", end, KEYS))
    found = last_session(machine)
    assert found is not None
    report = found.to_json()
    assert (report["status"], report["outcome"], report["duration_s"], report["commit_shas"]) == (
        "ended",
        "committed",
        12.5,
        ["abcdef1"],
    )


def test_a_file_without_valid_events_is_still_reported(teambrain_home: Path) -> None:
    path = machine_layout().session_file("junk")
    path.parent.mkdir(parents=True)
    path.write_text('{"not": "an envelope"}\n')
    report = audit_session(path).to_json()
    assert (report["sid"], report["status"], report["invalid_events"]) == ("junk", "open", 1)


def test_pruning_removes_old_sessions_and_their_open_state(teambrain_home: Path) -> None:
    machine = machine_layout()
    old = JoinKeys(**{**KEYS.as_dict(), "sid": "old"})
    append_event(machine, make_event("session_start", {}, old))
    append_event(machine, make_event("session_start", {}, KEYS))
    state = Path(state_path(str(teambrain_home), "old"))
    state.parent.mkdir(parents=True)
    state.write_text("{}")
    orphan = state.parent / "orphan.json"
    orphan.write_text("{}")
    past = time.time() - 40 * 86400
    for path in (machine.session_file("old"), orphan):
        os.utime(path, (past, past))
    assert prune_spool(machine, 30) == 1
    assert not machine.session_file("old").exists() and not state.exists() and not orphan.exists()
    assert machine.session_file("a-1").exists()
    assert prune_spool(machine, 30) == 0
