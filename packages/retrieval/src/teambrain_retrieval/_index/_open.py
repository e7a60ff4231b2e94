"""index.db for one retriever: opened (which migrates it), a damaged one moved aside and rebuilt,
and an index in memory instead when the file cannot be written (a full disk, a read-only home).

:class:`IndexDatabase` holds the connection; :meth:`IndexDatabase.run` runs one call of the
facade and recovers from what the file did to it: rebuilt once and retried when damaged,
answered from memory (said once) when it cannot be written — except a rebuild, whose job is to
write it: that is a one-line :class:`EnvironmentProblem` (exit 2), the index left as it was.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import apsw

from ._db import IndexCorrupt, connect, is_damage, move_aside, storage_trouble

R = TypeVar("R")

# SQLite waits BUSY_TIMEOUT_MS for another process's write transaction; past that, the call is
# tried again a few times (the work locks keep long writes rare, but several brains share
# index.db) before its BusyError is treated like any other write failure.
BUSY_RETRIES = 4


def patiently(call: Callable[..., R], *args: Any) -> R:
    """``call(*args)``, tried again a few times while another process holds the write lock."""
    for attempt in range(BUSY_RETRIES):
        try:
            return call(*args)
        except apsw.BusyError:
            if attempt == BUSY_RETRIES - 1:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


class IndexDatabase:
    """The connection a retriever indexes into and reads from (see the module docstring).

    ``ephemeral`` keeps the index in memory with index.db attached as the embedding cache
    (time travel); ``embedder`` names whose cached vectors are copied into an index in memory.
    ``lock`` is the retriever's: the connection is swapped under it.
    """

    def __init__(
        self,
        path: Path,
        *,
        ephemeral: bool,
        embedder: str | None,
        warn: Callable[[str], None],
        lock: threading.RLock,
    ) -> None:
        self.path = path
        self.ephemeral = ephemeral
        self._embedder = embedder
        self._warn = warn
        self._lock = lock
        # Why this process indexes in memory instead of in index.db (None: it does not).
        self.in_memory: str | None = None
        self._memory_said = False
        self.vectors_table = "vectors"
        self.db: apsw.Connection = self._open()

    def _open(self) -> apsw.Connection:
        if self.ephemeral:
            db = connect(None)
            self.vectors_table = "vectors"
            try:
                connect(self.path).close()
                db.execute("ATTACH DATABASE ? AS cache", (str(self.path),))
                self.vectors_table = "cache.vectors"
            except (IndexCorrupt, OSError, apsw.Error) as exc:
                self._warn(f"embedding cache unavailable ({exc}); embedding from scratch")
            return db
        self.vectors_table = "vectors"
        try:
            try:
                # Opening migrates: on a fresh home every process starting at once writes.
                return patiently(connect, self.path)
            except IndexCorrupt:
                self._recover_file()
                return connect(self.path)
        except (OSError, apsw.Error) as exc:
            # An unwritable home must not stop search: index in memory for this process.
            trouble = storage_trouble(exc, self.path)
            self.in_memory = trouble or f"cannot use {self.path} ({exc})"
            db = connect(None)
            self._copy_vectors(None, db)
            return db

    def run(self, call: Callable[[], R], *, writes: bool, reattach: Callable[[bool], None]) -> R:
        """``call()``; if index.db turns out to be damaged, rebuild it once and retry; if it
        cannot be written, answer from an index in memory (``writes``: refuse instead, see the
        module docstring). ``reattach(reopened)`` rebuilds what reads the connection after a swap
        (``reopened``: a new, empty index.db to fill again; else an index in memory)."""
        try:
            self._say_in_memory(writes)
            return patiently(call)
        except apsw.Error as exc:
            if is_damage(exc):
                self._recover(str(exc), reattach)
                return call()
            trouble = storage_trouble(exc, self.path)
            if trouble is None or self.in_memory is not None:
                raise
            self._use_memory(trouble, reattach)
            self._say_in_memory(writes)
            return call()

    def shares_work(self, lock: str) -> bool:
        """Whether work lock ``lock`` coordinates with other processes: not for a private
        index in memory, nor for indexing an ephemeral one (an old commit's brain)."""
        return self.in_memory is None and not (self.ephemeral and lock.startswith("index:"))

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    # ------------------------------------------------------------------ recovery

    def _recover_file(self) -> None:
        moved = move_aside(self.path)
        self._warn(f"{self.path} was damaged; moved it to {moved.name} and rebuilt it")

    def _recover(self, reason: str, reattach: Callable[[bool], None]) -> None:
        with self._lock:
            if self.ephemeral:
                raise IndexCorrupt(reason)
            with contextlib.suppress(Exception):  # a damaged file may not close cleanly
                self.db.close()
            self._recover_file()
            self.db = connect(self.path)
            reattach(True)

    def _use_memory(self, trouble: str, reattach: Callable[[bool], None]) -> None:
        """Index in memory from now on (index.db cannot be written): what is in index.db stays
        as it was; cached embeddings are copied over, so nothing is embedded again."""
        with self._lock:
            self.in_memory = trouble
            db = connect(None)
            self._copy_vectors(self.db, db)
            with contextlib.suppress(Exception):
                self.db.close()
            self.db, self.vectors_table = db, "vectors"
            reattach(False)

    def _copy_vectors(self, source: apsw.Connection | None, target: apsw.Connection) -> None:
        """The cached embeddings of this embedder from index.db (``source``, or a read-only
        look at the file) into the in-memory ``target`` (best effort: without them, texts are
        embedded again)."""
        if self._embedder is None:
            return
        table = self.vectors_table if source is not None else "vectors"
        with contextlib.suppress(apsw.Error, OSError):
            if source is None:
                path = self.path
                wal = path.with_name(path.name + "-wal")
                # A full disk may have no room for the shared-memory file a WAL reader needs;
                # with nothing left in the WAL, the file alone is the whole database.
                settled = not wal.exists() or wal.stat().st_size == 0
                source = apsw.Connection(
                    f"file:{path}?mode=ro{'&immutable=1' if settled else ''}",
                    flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI,
                )
            rows = source.execute(
                f"SELECT embedder, key, dim, vec FROM {table} WHERE embedder = ?",  # noqa: S608 - our table name
                (self._embedder,),
            ).fetchall()
            with target:
                target.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)", rows)

    def _say_in_memory(self, writes: bool) -> None:
        """Once answers come from memory: say so once, or, for a rebuild (whose job is to write
        index.db), stop with a one-line environment error before doing any work."""
        if self.in_memory is None:
            return
        if writes:
            from teambrain_schema import EnvironmentProblem

            raise EnvironmentProblem(
                f"the search index could not be written: {self.in_memory}; it is as it was "
                f"before this run ({self._in_memory_fix()}, then run `tb reindex` again)"
            )
        if not self._memory_said:
            self._memory_said = True
            self._warn(
                f"cannot update the search index: {self.in_memory}; answering from a temporary "
                f"index in memory (nothing is lost: {self._in_memory_fix()}, then run `tb reindex`)"
            )

    def _in_memory_fix(self) -> str:
        """What a person does about ``in_memory``: room on a full disk, else a usable home."""
        reason = self.in_memory or ""
        if " is full" in reason:
            return "free some space"
        if "read-only" in reason:
            return f"make {self.path.parent} writable"
        if "locked by another process" in reason:
            return "nothing to fix: another teambrain process was busy writing it"
        return "check TEAMBRAIN_HOME"
