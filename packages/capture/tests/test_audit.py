import os
import time
from pathlib import Path

from teambrain_capture import (
    JoinKeys,
    append_event,
    last_session,
    make_event,
    prune_spool,
    summarise_session,
)
from teambrain_capture._hook import state_path
from teambrain_schema import machine_layout

KEYS = JoinKeys(
    sid="a-1", tool="cursor", model="unknown", repo="github.com/acme/shop", branch="main"
)


def test_a_session_is_summarised_and_checked(teambrain_home: Path) -> None:
    machine = machine_layout()
    append_event(machine, make_event("session_start", {}, KEYS))
    append_event(
        machine,
        make_event(
            "intent", {"summary": "fix login"}, JoinKeys(**{**KEYS.as_dict(), "model": "gpt-5"})
        ),
    )
    append_event(machine, make_event("tool_use", {"kind": "explore", "path": "a.py"}, KEYS))
    append_event(machine, make_event("tool_use", {"kind": "edit", "path": "a.py"}, KEYS))
    append_event(machine, make_event("memory_retrieved", {"ids": []}, KEYS))
    append_event(
        machine, make_event("intent", {"summary": "token=" + "Zq8Lm2Xv9Rt4Wn6Kp1Bs"}, KEYS)
    )
    append_event(machine, {"v": 1, "sid": "a-1", "ev": "tool_use", "data": {"kind": "dance"}})
    with open(machine.session_file("a-1"), "ab") as handle:
        handle.write(b'{"torn')
    summary, records = summarise_session(machine.session_file("a-1"))
    assert len(records) == 7
    report = summary.to_json()
    assert (report["tool"], report["model"], report["status"], report["turns"]) == (
        "cursor",
        "gpt-5",
        "open",
        2,
    )
    assert report["tool_uses"] == {"dance": 1, "edit": 1, "explore": 1}
    assert (report["torn_lines"], report["invalid_events"], report["secrets_found"]) == (1, 1, 1)
    append_event(
        machine,
        make_event(
            "session_end",
            {"outcome": "committed", "duration_s": 12.5, "turns": 2, "commit_shas": ["abcdef1"]},
            KEYS,
        ),
    )
    found = last_session(machine)
    assert found is not None
    report = found[0].to_json()
    assert (report["status"], report["outcome"], report["duration_s"], report["commit_shas"]) == (
        "ended",
        "committed",
        12.5,
        ["abcdef1"],
    )


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
