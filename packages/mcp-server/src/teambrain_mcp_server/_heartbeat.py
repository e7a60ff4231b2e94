"""``$TEAMBRAIN_HOME/logs/heartbeat.json``: which servers run, and how fresh their brain is.

Several agent tools may each run a server at the same time, so the file holds one entry per
server process. Writers update only their own entry under a lock and replace the file
atomically; readers (``tb metrics``, ``tb doctor``) never see a partial file and never fail.

Stdlib only: readers must not pay for the MCP SDK.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.local_files import read_json_file
from teambrain_kit.paths import MachineLayout, machine_layout
from teambrain_kit.private_dirs import ensure_private_dir

HEARTBEAT_VERSION = 1
# Finished or vanished servers stay listed this long, so doctor can say when one last ran.
KEEP_ENDED_S = 24 * 3600
MAX_ENTRIES = 32

State = Literal["serving", "stopped", "gone"]


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _iso(moment: dt.datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parse_time(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


def pid_alive(pid: int) -> bool:
    """True when a process with ``pid`` exists (it may belong to another user)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


@dataclass(frozen=True)
class ServerHeartbeat:
    """One server's entry: who it is, what it serves, when it last answered."""

    pid: int
    started: dt.datetime
    status: Literal["serving", "stopped"]
    repo: str | None = None
    brain_commit: str | None = None
    last_request: dt.datetime | None = None
    requests: int = 0
    index: dict[str, Any] | None = None
    stopped: dt.datetime | None = None
    version: str | None = None
    updated: dt.datetime | None = None

    @property
    def state(self) -> State:
        """``serving`` (process alive), ``stopped`` (clean exit) or ``gone`` (died unannounced)."""
        if self.status == "stopped":
            return "stopped"
        return "serving" if pid_alive(self.pid) else "gone"

    @property
    def alive(self) -> bool:
        return self.state == "serving"

    def to_json(self) -> dict[str, Any]:
        """The entry as stored (ISO times, ``Z``), plus the computed ``state``."""
        return {
            "pid": self.pid,
            "started": _iso(self.started),
            "status": self.status,
            "state": self.state,
            "repo": self.repo,
            "brain_commit": self.brain_commit,
            "last_request": _iso(self.last_request),
            "requests": self.requests,
            "index": self.index,
            "stopped": _iso(self.stopped),
            "version": self.version,
            "updated": _iso(self.updated),
        }

    @classmethod
    def from_json(cls, data: Any) -> ServerHeartbeat | None:
        """Parse a stored entry; None when it is not one."""
        if not isinstance(data, dict):
            return None
        pid, started, status = data.get("pid"), _parse_time(data.get("started")), data.get("status")
        if not isinstance(pid, int) or isinstance(pid, bool) or started is None:
            return None
        if status not in ("serving", "stopped"):
            return None
        requests = data.get("requests", 0)
        index = data.get("index")
        return cls(
            pid=pid,
            started=started,
            status=status,
            repo=data.get("repo") if isinstance(data.get("repo"), str) else None,
            brain_commit=(
                data.get("brain_commit") if isinstance(data.get("brain_commit"), str) else None
            ),
            last_request=_parse_time(data.get("last_request")),
            requests=requests
            if isinstance(requests, int) and not isinstance(requests, bool)
            else 0,
            index=index if isinstance(index, dict) else None,
            stopped=_parse_time(data.get("stopped")),
            version=data.get("version") if isinstance(data.get("version"), str) else None,
            updated=_parse_time(data.get("updated")),
        )


def _stored(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if key != "state"}


def _load_entries(path: Path) -> list[ServerHeartbeat]:
    try:
        document = read_json_file(path, max_bytes=4 * 1024 * 1024)
    except (OSError, ValueError):
        return []
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, list):
        return []
    return [entry for entry in map(ServerHeartbeat.from_json, servers) if entry is not None]


def read_heartbeat(machine: MachineLayout | None = None) -> list[ServerHeartbeat]:
    """Every server listed in ``logs/heartbeat.json``, most recently active first. A missing or
    corrupt file reads as no servers; this never raises."""
    path = (machine or machine_layout()).heartbeat
    entries = _load_entries(path)
    return sorted(
        entries,
        key=lambda entry: entry.updated or entry.last_request or entry.started,
        reverse=True,
    )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    ensure_private_dir(path.parent)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass
class HeartbeatWriter:
    """Keeps this process's entry current: ``touch`` after each request, ``observe`` when the
    brain was read. Request-only updates are throttled; brain changes are written at once."""

    machine: MachineLayout
    repo: str | None = None
    version: str | None = None
    min_interval_s: float = 1.0
    pid: int = field(default_factory=os.getpid)
    started: dt.datetime = field(default_factory=_now)
    _brain_commit: str | None = field(default=None, init=False)
    _index: dict[str, Any] | None = field(default=None, init=False)
    _last_request: dt.datetime | None = field(default=None, init=False)
    _requests: int = field(default=0, init=False)
    _written_at: float | None = field(default=None, init=False)
    _stopped: bool = field(default=False, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def start(self) -> None:
        """Announce this server (status ``serving``)."""
        with self._lock:
            self._stopped = False
            self._write()

    def touch(self) -> None:
        """Record one answered request. The first is written at once, later ones at most once
        per ``min_interval_s``."""
        with self._lock:
            self._requests += 1
            self._last_request = _now()
            due = (
                self._requests == 1
                or self._written_at is None
                or time.monotonic() - self._written_at >= self.min_interval_s
            )
            if due and not self._stopped:
                self._write()

    def observe(
        self, *, brain_commit: str | None = None, index: dict[str, Any] | None = None
    ) -> None:
        """Record what the brain and its index looked like when last read; a change is written
        at once."""
        with self._lock:
            changed = False
            for name, value in (("_brain_commit", brain_commit), ("_index", index)):
                if value is not None and getattr(self, name) != value:
                    setattr(self, name, value)
                    changed = True
            if changed and not self._stopped:
                self._write()

    def stop(self) -> None:
        """Mark this server stopped (clean exit). Idempotent."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
            self._write()

    def entry(self) -> ServerHeartbeat:
        """This server's entry as it stands."""
        return ServerHeartbeat(
            pid=self.pid,
            started=self.started,
            status="stopped" if self._stopped else "serving",
            repo=self.repo,
            brain_commit=self._brain_commit,
            last_request=self._last_request,
            requests=self._requests,
            index=self._index,
            stopped=_now() if self._stopped else None,
            version=self.version,
            updated=_now(),
        )

    def _write(self) -> None:
        path = self.machine.heartbeat
        mine = self.entry()
        try:
            with _locked(path):
                others = [
                    entry for entry in _load_entries(path) if self._keep(entry, exclude=mine.pid)
                ]
                servers = sorted(
                    [mine, *others],
                    key=lambda e: e.updated or e.started,
                    reverse=True,
                )[:MAX_ENTRIES]
                document = {
                    "v": HEARTBEAT_VERSION,
                    "servers": [_stored(entry.to_json()) for entry in servers],
                }
                write_text_atomic(path, json.dumps(document, indent=2) + "\n", mode=0o600)
        except OSError:
            # A heartbeat that cannot be written must never take the server down with it.
            return
        self._written_at = time.monotonic()

    @staticmethod
    def _keep(entry: ServerHeartbeat, *, exclude: int) -> bool:
        if entry.pid == exclude:
            return False
        if entry.state == "serving":
            return True
        ended = entry.stopped or entry.updated or entry.last_request or entry.started
        return (_now() - ended).total_seconds() < KEEP_ENDED_S
