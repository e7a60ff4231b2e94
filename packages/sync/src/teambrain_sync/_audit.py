"""Proof that sync never reads the user's private directory: a ``sys.addaudithook`` watch.

Sync's path API cannot name ``~/.teambrain/user/`` (schema's MachineLayout has no such
directory, and sync may not import capture, which owns it). This module turns that design into
evidence: while an operation runs, every audited file-system event (``open``, ``os.*``,
``shutil.*``, ``glob``, ``pathlib``) whose path lies under the watched directory, and every
subprocess or exec whose arguments, working directory or environment mention it, is recorded.
The directory to watch is a parameter: sync itself still never names it. ``tb verify`` and the
tests pass ``teambrain_capture.user_dir()``.

Audit hooks cannot be removed, so one hook is installed per process and does nothing (one list
check) while no watch is active.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
_PATH_EVENT_PREFIXES = ("open", "os.", "shutil.", "glob.", "pathlib.", "tempfile.", "sqlite3.")
_COMMAND_EVENTS = ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system")
_MAX_ARG_CHARS = 8192


@dataclass
class _Watch:
    roots: tuple[str, ...]  # absolute and real forms of the watched directory, with a trailing sep
    bare: tuple[str, ...]  # the same without the separator (the directory itself)
    accesses: list[str] = field(default_factory=list)


class UserDirTouched(Exception):
    """An operation opened, listed or passed to a subprocess a path under the watched dir."""

    def __init__(self, watched: Path, accesses: list[str]) -> None:
        self.watched = watched
        self.accesses = accesses
        shown = "; ".join(accesses[:5]) + (" …" if len(accesses) > 5 else "")
        super().__init__(f"{len(accesses)} access(es) under {watched}: {shown}")


_watches: list[_Watch] = []
_lock = threading.Lock()
_busy = threading.local()
_installed: list[bool] = []  # non-empty once the hook is in (hooks cannot be removed)


def _candidate_strings(value: Any) -> Iterator[str]:
    if isinstance(value, (str, bytes, os.PathLike)):
        try:
            text = os.fsdecode(value)
        except (TypeError, ValueError):
            return
        if len(text) <= _MAX_ARG_CHARS:
            yield text
    elif isinstance(value, (list, tuple)):
        for item in value[:256]:
            yield from _candidate_strings(item)
    elif isinstance(value, dict):
        for item in list(value.values())[:512]:
            yield from _candidate_strings(item)


def _hits(watch: _Watch, event: str, args: tuple[Any, ...]) -> list[str]:
    found: list[str] = []
    is_command = event.startswith(_COMMAND_EVENTS)
    for text in (s for arg in args for s in _candidate_strings(arg)):
        if is_command:
            # Any mention counts: `--git-dir=<watched>/…`, `GIT_INDEX_FILE=<watched>/…`.
            if any(root in text or text in watch.bare for root in (*watch.roots, *watch.bare)):
                found.append(f"{event}: {text[:200]}")
            continue
        absolute = os.path.abspath(text) if "\x00" not in text else text
        for form in {absolute, os.path.realpath(absolute)}:
            if form in watch.bare or form.startswith(watch.roots):
                found.append(f"{event}: {form}")
                break
    return found


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if not _watches or getattr(_busy, "active", False):
        return
    if not event.startswith(_PATH_EVENT_PREFIXES) and not event.startswith(_COMMAND_EVENTS):
        return
    _busy.active = True  # realpath and friends must not re-enter the hook
    try:
        for watch in list(_watches):
            watch.accesses.extend(_hits(watch, event, args))
    finally:
        _busy.active = False


def _ensure_hook() -> None:
    with _lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed.append(True)


@contextlib.contextmanager
def watch_directory(directory: Path) -> Iterator[list[str]]:
    """Record every audited access under ``directory`` while the block runs; yields the list
    of accesses (``"<event>: <path>"``), filled in as they happen."""
    _ensure_hook()
    absolute = os.path.abspath(directory)
    real = os.path.realpath(absolute)
    bare = tuple(dict.fromkeys((absolute, real)))
    watch = _Watch(roots=tuple(form.rstrip(os.sep) + os.sep for form in bare), bare=bare)
    _watches.append(watch)
    try:
        yield watch.accesses
    finally:
        _watches.remove(watch)


def prove_user_dir_untouched(user_dir: Path, operation: Callable[[], T]) -> T:
    """Run ``operation`` under an audit-hook watch of ``user_dir`` and return its result;
    raise :class:`UserDirTouched` listing the accesses if it opened, listed, changed or handed
    to a subprocess anything under ``user_dir``."""
    with watch_directory(user_dir) as accesses:
        result = operation()
    if accesses:
        raise UserDirTouched(user_dir, list(accesses))
    return result
