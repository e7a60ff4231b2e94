"""The distiller's machine-local state under ``$TEAMBRAIN_HOME/distill/``: the watermark
(which sessions were distilled, up to which event) and a lock against concurrent runs.

Never in the repository: which sessions a person ran is nobody else's business.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from teambrain_capture import ensure_private_dir
from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.local_files import read_json_file
from teambrain_kit.paths import MachineLayout
from teambrain_schema import EnvironmentProblem

from ._sessions import SessionFacts

WATERMARK_VERSION = 1


def state_dir(machine: MachineLayout) -> Path:
    """``$TEAMBRAIN_HOME/distill``."""
    return machine.home / "distill"


class Watermark:
    """sid → how many events of that session were distilled, and when."""

    def __init__(self, path: Path, sessions: dict[str, dict[str, Any]]) -> None:
        self.path = path
        self.sessions = sessions

    @classmethod
    def load(cls, machine: MachineLayout) -> Watermark:
        """The watermark (empty when none was written yet); unreadable → exit 2 with the fix."""
        path = state_dir(machine) / "watermark.json"
        if not path.exists():
            return cls(path, {})
        try:
            data = read_json_file(path, max_bytes=64 * 1024 * 1024)
            sessions = data["sessions"]
            if data.get("v") != WATERMARK_VERSION or not isinstance(sessions, dict):
                raise ValueError("unknown format")
            for entry in sessions.values():
                if not isinstance(entry, dict) or not isinstance(entry.get("events"), int):
                    raise ValueError("sessions: entries need an integer events count")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise EnvironmentProblem(
                f"{path}: unreadable ({exc}); delete it to distill every session again"
            ) from None
        return cls(path, sessions)

    def is_distilled(self, facts: SessionFacts) -> bool:
        """True when every event the session has now was distilled before."""
        entry = self.sessions.get(facts.sid)
        return entry is not None and facts.events <= int(entry["events"])

    def mark(self, facts: SessionFacts, *, now: dt.datetime, outcome: str) -> None:
        """Remember that ``facts`` was distilled (``outcome``: distilled or skipped:<why>)."""
        self.sessions[facts.sid] = {
            "events": facts.events,
            "at": now.astimezone(dt.UTC).isoformat(timespec="seconds"),
            "outcome": outcome,
        }

    def save(self, keep: set[str]) -> None:
        """Write atomically (mode 0600), forgetting sessions whose spool file is gone."""
        self.sessions = {sid: e for sid, e in self.sessions.items() if sid in keep}
        ensure_private_dir(self.path.parent)
        text = json.dumps(
            {"v": WATERMARK_VERSION, "sessions": self.sessions}, indent=1, sort_keys=True
        )
        write_text_atomic(self.path, text + "\n", mode=0o600)


@contextlib.contextmanager
def run_lock(machine: MachineLayout) -> Iterator[None]:
    """Hold the distill lock for the duration; a concurrent run fails at once (exit 2)."""
    directory = state_dir(machine)
    ensure_private_dir(directory)
    fd = os.open(directory / "run.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EnvironmentProblem(
                "another `tb distill` is running on this machine; wait for it to finish"
            ) from None
        yield
    finally:
        os.close(fd)
