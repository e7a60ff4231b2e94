import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hypothesis import given, settings, strategies as st
from teambrain_capture import (
    JoinKeys,
    append_event,
    make_event,
    prune_sessions,
    read_jsonl,
    safe_sid,
    session_files,
)
from teambrain_schema import ENVELOPE_ADAPTER
from teambrain_schema.paths import machine_layout

KEYS = JoinKeys(sid="s-1", tool="claude-code", model="m", repo="acme/shop", branch="main")


def test_events_validate_against_the_schema(teambrain_home: Path) -> None:
    machine = machine_layout()
    append_event(machine, make_event("session_start", {}, KEYS))
    append_event(machine, make_event("tool_use", {"kind": "edit", "path": "src/a.py"}, KEYS))
    read = read_jsonl(machine.session_file("s-1"))
    assert read.torn == 0
    assert [ENVELOPE_ADAPTER.validate_python(r).ev for r in read.records] == [
        "session_start",
        "tool_use",
    ]
    assert oct(machine.session_file("s-1").stat().st_mode & 0o777) == "0o600"
    assert oct(machine.sessions.stat().st_mode & 0o777) == "0o700"


def test_a_torn_last_line_is_skipped_and_never_swallows_the_next_event(
    teambrain_home: Path,
) -> None:
    machine = machine_layout()
    append_event(machine, make_event("session_start", {}, KEYS))
    with open(machine.session_file("s-1"), "ab") as handle:
        handle.write(b'{"v":1,"sid":"s-1","t":"2026-')  # a writer killed mid-append
    assert read_jsonl(machine.session_file("s-1")).torn == 1
    append_event(machine, make_event("intent", {"summary": "fix login"}, KEYS))
    read = read_jsonl(machine.session_file("s-1"))
    assert [r["ev"] for r in read.records] == ["session_start", "intent"]
    assert read.torn == 1


def _writer(home: str, worker: int, count: int) -> None:
    os.environ["TEAMBRAIN_HOME"] = home
    machine = machine_layout()
    keys = JoinKeys(sid="shared", tool="t", model="m", repo="r", branch="b")
    for index in range(count):
        append_event(
            machine,
            make_event(
                "tool_use", {"kind": "command", "path": f"w{worker}/{index}/" + "x" * 300}, keys
            ),
        )


def test_concurrent_writers_lose_and_tear_nothing(teambrain_home: Path) -> None:
    workers, count = 8, 500
    context = multiprocessing.get_context("spawn")
    processes = [
        context.Process(target=_writer, args=(str(teambrain_home), w, count))
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    read = read_jsonl(machine_layout().session_file("shared"))
    assert read.torn == 0
    paths = [r["data"]["path"] for r in read.records]
    assert len(paths) == workers * count
    assert len(set(paths)) == workers * count
    for worker in range(workers):  # each writer's own events stay in order
        mine = [int(p.split("/")[1]) for p in paths if p.startswith(f"w{worker}/")]
        assert mine == sorted(mine)


KILL_SCRIPT = """
import os, sys
os.environ["TEAMBRAIN_HOME"] = sys.argv[1]
from teambrain_capture import JoinKeys, append_event, make_event
from teambrain_schema.paths import machine_layout
keys = JoinKeys(sid="killed", tool="t", model="m", repo="r", branch="b")
machine = machine_layout()
i = 0
while True:
    append_event(machine, make_event("tool_use", {"kind": "edit", "path": str(i) + "y" * 900}, keys))
    i += 1
"""


def test_a_writer_killed_mid_append_never_damages_earlier_lines(teambrain_home: Path) -> None:
    spool = machine_layout().session_file("killed")
    for _ in range(3):
        written = spool.stat().st_size if spool.exists() else 0
        process = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(teambrain_home)])
        # Killed once it is appending (some 20 lines on), however long a loaded machine took
        # to start it: a fixed sleep killed a writer that had not written a line yet.
        started = time.monotonic()
        while not (spool.exists() and spool.stat().st_size > written + 20_000):
            assert process.poll() is None, "the writer stopped by itself"
            assert time.monotonic() - started < 120, "the writer wrote nothing in 120 s"
            time.sleep(0.005)
        process.send_signal(signal.SIGKILL)
        process.wait()
    read = read_jsonl(spool)
    assert read.torn <= 3  # at most one torn fragment per kill
    indices = [int(r["data"]["path"].rstrip("y")) for r in read.records]
    assert len(indices) > 10
    for record in read.records:
        ENVELOPE_ADAPTER.validate_python(record)


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_safe_sid_is_a_safe_stable_file_name(raw: str) -> None:
    sid = safe_sid(raw)
    assert sid == safe_sid(raw)
    assert "/" not in sid and sid not in (".", "..") and 0 < len(sid) <= 128
    assert sid[0].isalnum()


def test_prune_removes_only_old_sessions(teambrain_home: Path) -> None:
    machine = machine_layout()
    append_event(machine, make_event("session_start", {}, KEYS))
    old_keys = JoinKeys(sid="old", tool="t", model="m", repo="r", branch="b")
    append_event(machine, make_event("session_start", {}, old_keys))
    past = time.time() - 31 * 86400
    os.utime(machine.session_file("old"), (past, past))
    removed = prune_sessions(machine, 30)
    assert [p.name for p in removed] == ["old.jsonl"]
    assert [p.name for p in session_files(machine)] == ["s-1.jsonl"]


def test_garbage_lines_are_counted_not_raised(teambrain_home: Path) -> None:
    path = machine_layout().session_file("garbage")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'[1,2]\n\xff\xfe\n{"ok": 1}\nnot json\n')
    read = read_jsonl(path)
    assert read.records == [{"ok": 1}] and read.torn == 3
    assert json.dumps(read.records)
