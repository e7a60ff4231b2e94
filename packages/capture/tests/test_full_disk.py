"""The capture hook on a full disk: it still exits 0, leaves no empty or half-written file,
and once the disk takes writes again its log says how many events were dropped and when.

Two ways in: ENOSPC injected into the hook's writes (every write, or only the n-th), and a real
filesystem of a few hundred KB (a tmpfs, mounted when this runs as root; a test that needs the
mount says so rather than passing)."""

from __future__ import annotations

import errno
import io
import json
import os
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_capture import read_jsonl, run_capture_hook
from teambrain_capture._lite import append_line


def _hook(tool: str, payload: dict[str, Any]) -> None:
    raw = json.dumps(payload).encode()
    assert run_capture_hook([tool], io.BytesIO(raw), io.StringIO(), {}) == 0


def _claude(repo: Path, event: str, sid: str, **fields: object) -> dict[str, object]:
    return {"session_id": sid, "cwd": str(repo), "hook_event_name": event, **fields}


def _files(home: Path) -> list[Path]:
    return sorted(p for p in home.rglob("*") if p.is_file())


def _no_empty_or_torn_file(home: Path) -> None:
    for path in _files(home):
        if "dropped" in path.parts:
            continue  # the markers are empty on purpose: their names say what was dropped
        data = path.read_bytes()
        assert data, f"empty file left behind: {path}"
        if path.suffix in (".jsonl", ".log"):
            assert data.endswith(b"\n"), f"a torn line left in {path}: {data[-80:]!r}"
        if path.suffix == ".jsonl":
            assert read_jsonl(path).torn == 0, path


class Disk:
    """os.write that fails with ENOSPC, from the ``fail_from``-th call on (after writing
    ``partial`` bytes of that call, as a filesystem filling up mid-write does)."""

    def __init__(self, fail_from: int, partial: int = 0) -> None:
        self.calls = 0
        self.fail_from = fail_from
        self.partial = partial
        self.full = True
        self._write = os.write

    def write(self, fd: int, data: Any) -> int:
        self.calls += 1
        if self.full and self.calls >= self.fail_from:
            if self.partial and self.calls == self.fail_from:
                return self._write(fd, bytes(data)[: self.partial])
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._write(fd, data)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(fail_from=st.integers(1, 12), partial=st.integers(0, 40))
def test_whichever_write_fails_nothing_is_left_half_written_and_the_drop_is_logged_later(
    repo: Path, teambrain_home: Path, monkeypatch: pytest.MonkeyPatch, fail_from: int,
    partial: int,
) -> None:  # fmt: skip
    sid = f"s-{uuid.uuid4().hex[:8]}"
    before = {p: p.read_bytes() for p in _files(teambrain_home)}
    disk = Disk(fail_from, partial)
    monkeypatch.setattr(os, "write", disk.write)
    _hook("demo-claude", _claude(repo, "SessionStart", sid, source="startup"))
    _hook("demo-claude", _claude(repo, "PostToolUse", sid, tool_name="Read",
                                 tool_input={"file_path": str(repo / "a.py")}))  # fmt: skip
    _no_empty_or_torn_file(teambrain_home)
    for path, data in before.items():  # nothing already written was lost
        assert path.read_bytes().startswith(data), path
    dropped = len(list((teambrain_home / "spool" / "dropped").glob(f"*-{sid}")))
    disk.full = False
    _hook("demo-claude", _claude(repo, "PostToolUse", sid, tool_name="Bash",
                                 tool_input={"command": "make test"}))  # fmt: skip
    _no_empty_or_torn_file(teambrain_home)
    if dropped:  # the log says so, and how many, once the disk takes writes again
        log = (teambrain_home / "logs" / "capture.log").read_text()
        assert f"{dropped} event(s) of session {sid} were dropped" in log, log
        assert not list((teambrain_home / "spool" / "dropped").glob(f"*-{sid}"))
    events = read_jsonl(teambrain_home / "spool" / "sessions" / f"{sid}.jsonl").records
    assert events[0]["ev"] == "session_start"  # reopened once writes work
    assert events[-1]["ev"] == "tool_use"


def test_a_writer_waiting_on_a_file_another_removed_writes_to_the_path_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first appender created the file and failed (removing it); one that opened the same
    file meanwhile must not write into the removed file."""
    path = tmp_path / "s.jsonl"
    real_open = os.open
    opened: list[int] = []

    def open_then_lose_the_file(name: Any, flags: int, mode: int = 0o777) -> int:
        fd = real_open(name, flags, mode)
        if str(name) == str(path) and not opened:
            opened.append(fd)
            os.unlink(path)  # as if the writer before us removed it after a failed write
        return fd

    monkeypatch.setattr(os, "open", open_then_lose_the_file)
    append_line(str(path), b'{"a":1}\n')
    assert path.read_bytes() == b'{"a":1}\n'


# ------------------------------------------------------------------ a real full filesystem


def test_on_a_real_full_filesystem_the_hook_leaves_no_empty_files_and_logs_the_drop_later(
    repo: Path, small_filesystem: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = small_filesystem.root / "home"
    monkeypatch.setenv("TEAMBRAIN_HOME", str(home))
    _hook("demo-claude", _claude(repo, "SessionStart", "kept", source="startup"))
    kept = (home / "spool" / "sessions" / "kept.jsonl").read_bytes()
    free = small_filesystem.fill()
    for sid in ("kept", "new-1", "new-2"):
        for _ in range(3):
            _hook("demo-claude", _claude(repo, "PostToolUse", sid, tool_name="Read",
                                         tool_input={"file_path": str(repo / "a.py")}))  # fmt: skip
    # Appends that fit in the file's last allocated page may still succeed; nothing is lost.
    assert (home / "spool" / "sessions" / "kept.jsonl").read_bytes().startswith(kept)
    assert not (home / "spool" / "sessions" / "new-1.jsonl").exists()
    _no_empty_or_torn_file(home)
    markers = {sid: len(list((home / "spool" / "dropped").glob(f"*-{sid}")))
               for sid in ("kept", "new-1", "new-2")}  # fmt: skip
    assert markers["new-1"] == markers["new-2"] == 3, markers
    free()
    _hook("demo-claude", _claude(repo, "PostToolUse", "kept", tool_name="Bash",
                                 tool_input={"command": "ls"}))  # fmt: skip
    log = (home / "logs" / "capture.log").read_text()
    for sid, count in markers.items():
        if count:
            assert f"{count} event(s) of session {sid} were dropped" in log, log
    assert not list((home / "spool" / "dropped").iterdir())
    _no_empty_or_torn_file(home)
    for path in (home, home / "spool", home / "spool" / "sessions"):
        assert path.stat().st_mode & 0o777 == 0o700, path
