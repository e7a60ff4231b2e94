"""The digest aggregator over a large spool, beside the cost of merely reading it.

Writes a month of synthetic sessions (default 1,000 sessions of ~60 events, about 60,000
events; BENCH_DIGEST_SESSIONS changes it) into a temporary TEAMBRAIN_HOME, then times, median
of several runs:

- baseline: reading every session file and parsing its JSON lines (``read_jsonl``), the least
  any aggregator must do;
- ``build_digest`` over a 30-day window (everything read, every event validated against the
  contract, every figure computed and suppressed);
- ``build_digest`` over a 7-day window (files last written before it are skipped unread).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SESSIONS = int(os.environ.get("BENCH_DIGEST_SESSIONS", "1000"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
IDS = [f"01KB2F0A1S9Y4Q7V3C8D5E6F{n:02d}" for n in range(1, 21)]


def _fill(home: Path, now: dt.datetime) -> int:
    from teambrain_capture import JoinKeys, append_event, make_event
    from teambrain_kit.paths import machine_layout

    rng = random.Random(11)
    machine = machine_layout(home)
    events = 0
    for index in range(SESSIONS):
        start = now - dt.timedelta(days=rng.uniform(0, 29.5))
        keys = JoinKeys(f"bench-{index:05d}", rng.choice(["claude-code", "cursor", "codex"]),
                        rng.choice(["opus", "sonnet", "gpt-5"]), "github.com/acme/shop", "main")  # fmt: skip
        records = [make_event("session_start", {}, keys, now=start)]
        records.append(make_event("memory_retrieved", {"ids": rng.sample(IDS, 4), "via": "context", "token_estimate": 700}, keys, now=start))  # fmt: skip
        for _ in range(rng.randint(30, 80)):
            kind = rng.choice(["explore", "explore", "edit", "command", "test"])
            records.append(make_event("tool_use", {"kind": kind, "path": "src/app.py", "exit_code": rng.choice([0, 0, 1])}, keys, now=start))  # fmt: skip
        end = {"outcome": "committed", "duration_s": 900.0, "turns": 12, "commit_shas": []}
        records.append(make_event("session_end", end, keys, now=start))
        for record in records:
            append_event(machine, record)
        path = machine.session_file(keys.sid)
        os.utime(path, (start.timestamp() + 900, start.timestamp() + 900))
        events += len(records)
    return events


def _median(action: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        os.environ["TEAMBRAIN_HOME"] = str(home)
        from teambrain_capture import read_jsonl, session_files
        from teambrain_cli._reports.digest import build_digest
        from teambrain_cli._reports.window import resolve_window
        from teambrain_kit.paths import machine_layout

        now = dt.datetime.now(dt.UTC)
        events = _fill(home, now)
        machine = machine_layout(home)
        month = resolve_window("30d", None, now=now)
        week = resolve_window("7d", None, now=now)

        def read_all() -> None:
            for path in session_files(machine):
                read_jsonl(path)

        baseline = _median(read_all)
        full = _median(lambda: build_digest(machine, month, now=now))
        recent = _median(lambda: build_digest(machine, week, now=now))
        print(f"spool: {SESSIONS} sessions, {events} events ({RUNS} runs each, median)")
        print(f"  baseline  read + parse every line     {baseline * 1000:8.1f} ms")
        print(f"  digest    30-day window (all read)    {full * 1000:8.1f} ms  ({full / baseline:.1f}× baseline, {full / events * 1e6:.1f} µs/event)")  # fmt: skip
        print(f"  digest    7-day window (older skipped) {recent * 1000:7.1f} ms  ({recent / baseline:.1f}× baseline)")  # fmt: skip


if __name__ == "__main__":
    main()
