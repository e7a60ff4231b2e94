"""Which agent session is running in which repository, so the MCP server can attach its events
to the session the hook opened. Stdlib only (written from the hook)."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from teambrain_kit.atomic import write_text_atomic
from teambrain_kit.local_files import read_json_file
from teambrain_kit.paths import MachineLayout

from ._spool import JoinKeys, ensure_private_dir

ACTIVE_DIRNAME = "active"
# Sessions silent for longer than this are not considered running any more.
STALE_AFTER_S = 12 * 3600


def _active_dir(machine: MachineLayout) -> Path:
    return machine.spool / ACTIVE_DIRNAME


def _repo_key(repo_root: Path) -> str:
    return hashlib.sha256(str(repo_root.resolve()).encode()).hexdigest()[:24]


def mark_session_active(machine: MachineLayout, repo_root: Path, keys: JoinKeys) -> None:
    """Record that session ``keys.sid`` runs in ``repo_root`` (called at session_start)."""
    directory = _active_dir(machine) / _repo_key(repo_root)
    ensure_private_dir(directory)
    write_text_atomic(directory / f"{keys.sid}.json", json.dumps(keys.as_dict()), mode=0o600)


def mark_session_ended(machine: MachineLayout, repo_root: Path, sid: str) -> None:
    """Forget session ``sid`` (called at session_end)."""
    (_active_dir(machine) / _repo_key(repo_root) / f"{sid}.json").unlink(missing_ok=True)


def find_active_session(
    machine: MachineLayout, repo_root: Path, *, sid: str | None = None, now: float | None = None
) -> JoinKeys | None:
    """The running session in ``repo_root``: ``sid`` when given and known, else the most
    recently active one; None when no hook has opened a session."""
    directory = _active_dir(machine) / _repo_key(repo_root)
    if not directory.is_dir():
        return None
    candidates = []
    for path in directory.glob("*.json"):
        try:
            keys = JoinKeys(**read_json_file(path, max_bytes=64 * 1024))
            started = path.stat().st_mtime
        except (OSError, ValueError, TypeError):
            continue
        session_file = machine.session_file(keys.sid)
        last = session_file.stat().st_mtime if session_file.exists() else started
        candidates.append((last, keys))
    if sid is not None:
        for _, keys in candidates:
            if keys.sid == sid:
                return keys
    reference = now if now is not None else time.time()
    live = [(last, keys) for last, keys in candidates if reference - last < STALE_AFTER_S]
    return max(live, key=lambda item: item[0])[1] if live else None
