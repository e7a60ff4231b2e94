"""Work locks: one process at a time indexes a brain, and one embeds its texts.

Several processes share index.db (agent sessions' ``tb serve``, ``tb relevant``, ``tb
reindex``). Without coordination each one that finds the brain changed would index and embed
the same files at once: the work done four times over, and SQLite's single writer lock held in
turn for long stretches, so the rest die with "database is locked". A work lock is an
``flock`` on a small file under ``$TEAMBRAIN_HOME/locks/`` (private, never synced): who gets it
does the work; who waits for it finds the work done when it gets it, and skips it. A reader
that must not wait (an answer within its budget) only tries. The kernel drops the lock when a
process dies, so a killed process never leaves one behind.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

POLL_S = 0.05


@contextmanager
def work_lock(
    home: Path, name: str, *, wait_s: float | None, on_wait: Callable[[], None] | None = None
) -> Iterator[bool]:
    """Hold the work lock ``name`` while the block runs; yields whether it is held. Waits at
    most ``wait_s`` seconds (None: as long as it takes; 0: only tries), calling ``on_wait``
    once if it has to wait. A lock file that cannot be made (a full or read-only disk) yields
    True: there is nothing to coordinate through, and the work is done unlocked."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    path = home / "locks" / f"{digest}.lock"
    try:
        from teambrain_kit.private_dirs import ensure_private_dir

        ensure_private_dir(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        yield True
        return
    try:
        held = _acquire(fd, wait_s, on_wait)
        yield held
    finally:
        os.close(fd)  # releases the lock


def _acquire(fd: int, wait_s: float | None, on_wait: Callable[[], None] | None) -> bool:
    deadline = None if wait_s is None else time.monotonic() + wait_s
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:
            return True  # a file system without locks: nothing to coordinate through
        if deadline is not None and time.monotonic() >= deadline:
            return False
        if not told and on_wait is not None:
            told = True
            on_wait()
        time.sleep(POLL_S)


class WorkLocks:
    """The work locks of one retriever: each taken once (a rebuild's locks cover the refreshes
    it makes), and only when ``shared(name)`` says the work is shared with other processes (a
    private index in memory shares nothing)."""

    def __init__(self, home: Path, shared: Callable[[str], bool]) -> None:
        self.home = home
        self._shared = shared
        self._held: set[str] = set()

    @contextmanager
    def hold(
        self, name: str, *, wait_s: float | None, on_wait: Callable[[], None] | None = None
    ) -> Iterator[bool]:
        """Like :func:`work_lock`; yields True at once for a lock already held here."""
        if name in self._held or not self._shared(name):
            yield True
            return
        with work_lock(self.home, name, wait_s=wait_s, on_wait=on_wait) as held:
            if held:
                self._held.add(name)
            try:
                yield held
            finally:
                self._held.discard(name)
