"""Keeping the index in step with the memory files, without ``tb reindex``.

Before each answer the :class:`Refresher` checks the files' stamps (cheaply, and adaptively for
very large brains) and re-reads only what was added, changed, removed or retired; what it
remembers of each brain (its stamps, what the index holds) lives in a :class:`BrainSource`.
New texts are then embedded for a bounded time. Its bookkeeping tables are ``files`` (one stamp
per file) and ``scan_digests`` (a digest of all stamps, so a new process can skip the
comparison when another one already indexed these files).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from teambrain_kit.paths import MAX_BRAIN_FILES
from teambrain_schema import BRAIN_DIRNAME
from teambrain_schema.render import quote_path

from ._scan import (
    Signals,
    Stamp,
    change_signals,
    read_doc,
    read_note_doc,
    scan_stamps,
    stamps_digest,
    top_folders,
)
from ._worklock import WorkLocks

if TYPE_CHECKING:
    from pathlib import Path

    import apsw
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import IndexableDoc, Source

    from ._embedders import Embedder
    from ._embedding import Embeddings, Progress
    from ._store import DocStore

# Freshness checks may take at most ~2% of the time between them (large brains, hot loops).
_SCAN_SHARE = 50.0
_SCAN_FREE_S = 0.002
_SCAN_MAX_INTERVAL_S = 2.0
# Seconds an answer may spend embedding memories that are new since the last one (a pull of a
# few hundred); the rest is embedded by later answers or `tb reindex`.
ANSWER_EMBED_BUDGET_S = 2.0
# Unusable memory files read in one refresh before the rest are recorded unread.
MAX_UNUSABLE_FILES = 1_000
_NOT_READ = "not read: too many files of the brain cannot be used"
# With a server embedding in the background (``Refresher.embeds_in_background``), an answer
# embeds only this few itself (a small pull: a fraction of a second); more wait for it.
ANSWER_EMBED_MAX = 64
# How long a process waits for another one indexing the same brain's files (seconds of work
# even for tens of thousands of memories) before it indexes them itself.
INDEX_WAIT_S = 300.0


class IndexTarget(Protocol):
    """What the refresher writes through: the search backend over the same index (the
    SQLite one), seen from the index's side so this package never imports search."""

    @property
    def embedder(self) -> Embedder | None: ...
    @property
    def store(self) -> DocStore: ...
    @property
    def embeddings(self) -> Embeddings: ...
    def upsert(self, docs: Iterable[IndexableDoc], source: Source = "memory") -> int: ...
    def remove_paths(self, brain: str, paths: Iterable[str], source: str = "memory") -> int: ...
    def clear_brain(self, brain: str) -> None: ...
    def ensure_vectors(
        self,
        progress: Progress | None = None,
        *,
        budget_s: float | None = None,
        quiet: bool = False,
        max_docs: int | None = None,
    ) -> int: ...


@dataclass(frozen=True)
class RefreshReport:
    """What a refresh or rebuild did."""

    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    embedded: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    rebuilt: bool = False
    scanned: bool = True

    @property
    def touched(self) -> int:
        """Files whose documents were added, changed or removed."""
        return self.added + self.changed + self.removed

    def merged(self, other: RefreshReport) -> RefreshReport:
        """The sum of two reports (the brain and its org brain)."""
        return RefreshReport(
            self.added + other.added, self.changed + other.changed,
            self.removed + other.removed, self.unchanged + other.unchanged,
            self.embedded + other.embedded, [*self.problems, *other.problems],
            self.seconds + other.seconds, self.rebuilt or other.rebuilt,
            self.scanned or other.scanned,
        )  # fmt: skip


@dataclass
class BrainSource:
    """One brain a retriever serves, and what it last saw of its files."""

    layout: BrainLayout
    brain_id: str
    display: str
    scopes: tuple[str, ...]
    stamps: dict[str, Stamp] | None = None
    last_scan: float = 0.0
    scan_cost: float = 0.0
    # The folders the last scan listed, and the change signals taken just before it.
    folders: list[str] = field(default_factory=list)
    signals: Signals | None = None
    # What the index holds for this brain, remembered between refreshes while no other
    # process has written to index.db (``data_version`` unchanged).
    known: dict[str, tuple[int, int, str, str | None]] | None = None
    indexed: set[str] | None = None
    data_version: int | None = None
    # The repository the brain belongs to, when its files are read elsewhere (a live view).
    root: Path | None = None
    # What its files are: memories (memories/ and retired/) or notes (notes/).
    kind: str = "memory"

    def forget(self) -> None:
        """Look at every file again next time (the index was rebuilt or replaced)."""
        self.stamps, self.known, self.indexed = None, None, None


class Refresher:
    """Brings ``backend`` up to date with the files of ``sources`` (see the module docstring).

    ``interval`` fixes how often the files are checked (None: every time for small brains,
    adaptively for very large ones).
    """

    def __init__(
        self,
        db: apsw.Connection,
        backend: IndexTarget,
        sources: list[BrainSource],
        *,
        warn: Callable[[str], None],
        interval: float | None = None,
        locks: WorkLocks | None = None,
        prepare: Callable[[], bool] | None = None,
    ) -> None:
        self.db = db
        self.backend = backend
        self.sources = sources
        self.interval = interval
        self._warn = warn
        self._capped: set[str] = set()  # brains whose walk stopped at its bound
        self._linked_out: set[str] = set()  # paths linked out of the brain, said once
        # Processes sharing index.db index a brain, and embed its texts, once (see _worklock).
        self.locks = locks
        # Called before each look at the files (a live view brings its files up to date); True
        # when the first source's files changed, so they are read at once.
        self.prepare = prepare
        # Set by a server that embeds between answers: an answer then embeds only a small
        # pull itself and leaves a large one (a first start) to the background.
        self.embeds_in_background = False

    def reattach(self, db: apsw.Connection, backend: IndexTarget) -> None:
        """Keep another index from now on (every file is looked at again next time)."""
        self.db, self.backend = db, backend
        for source in self.sources:
            source.forget()

    def reopen(self, db: apsw.Connection, backend: IndexTarget) -> None:
        """Index every file again into a new index (the old one was damaged)."""
        self.reattach(db, backend)
        # Index the files again now, so what the caller retries (stats, context) sees them.
        for source in self.sources:
            self._refresh_source(source, force=True)

    def working(
        self, name: str, *, wait_s: float | None, on_wait: Callable[[], None] | None = None
    ) -> contextlib.AbstractContextManager[bool]:
        """Hold the work lock ``name`` while the block runs (yields False: gave up waiting)."""
        if self.locks is None:
            return contextlib.nullcontext(True)
        return self.locks.hold(name, wait_s=wait_s, on_wait=on_wait)

    def embed_lock(self) -> str:
        embedder = self.backend.embedder
        return f"embed:{embedder.name if embedder else 'none'}"

    def _data_version(self) -> int:
        row = self.db.execute("PRAGMA data_version").fetchone()
        return int(row[0]) if row else 0

    def _due(self, source: BrainSource, now: float) -> bool:
        if source.stamps is None:
            return True
        if self.interval is not None:
            return now - source.last_scan >= self.interval
        if source.scan_cost <= _SCAN_FREE_S:
            return True
        # A large brain: a dozen stats say whether files were added, removed or renamed or
        # git moved (a pull is served on the very next call); files rewritten in place are
        # caught by a full scan every so often.
        if change_signals(source.layout, source.folders, source.kind) != source.signals:
            return True
        return now - source.last_scan >= min(_SCAN_MAX_INTERVAL_S, _SCAN_SHARE * source.scan_cost)

    def _refresh_source(self, source: BrainSource, *, force: bool) -> RefreshReport:
        started = time.perf_counter()
        # Signals taken before the scan: a change made while it runs is seen next time.
        signals = change_signals(source.layout, source.folders, source.kind)
        folders: list[str] = []
        stamps = scan_stamps(source.layout, folders, source.kind)
        root = str(source.layout.root)
        if len(stamps) >= MAX_BRAIN_FILES and root not in self._capped:  # said, never silent
            self._capped.add(root)
            self._warn(
                f"{quote_path(root)}: searching the first {MAX_BRAIN_FILES:,} memory files of "
                "the brain; the rest are left out (`tb lint` names where it stopped)"
            )
        self._say_linked_out(source)
        if folders != source.folders:
            source.folders = folders
            signals = change_signals(source.layout, folders, source.kind)
        source.signals = signals
        source.scan_cost = time.perf_counter() - started
        source.last_scan = time.monotonic()
        if not force and stamps == source.stamps:
            return RefreshReport(unchanged=len(stamps), seconds=source.scan_cost, scanned=True)
        digest = stamps_digest(stamps)
        if not force and source.known is None and self._digest_matches(source, digest):
            # A new process, and the index already matches these files (another process or
            # an earlier run indexed them): nothing to compare file by file.
            source.stamps = stamps
            return RefreshReport(
                unchanged=len(stamps), problems=self._stored_problems(source),
                seconds=time.perf_counter() - started,
            )  # fmt: skip
        with self.working(f"index:{source.brain_id}", wait_s=INDEX_WAIT_S):
            if not force and self._digest_matches(source, digest):
                # Another process indexed these very files while we waited: nothing to do.
                source.stamps, source.known = stamps, None
                return RefreshReport(
                    unchanged=len(stamps), problems=self._stored_problems(source),
                    seconds=time.perf_counter() - started,
                )  # fmt: skip
            report = self._apply_changes(source, stamps, force=force, digest=digest)
        source.stamps = stamps
        return RefreshReport(
            report.added, report.changed, report.removed, report.unchanged, report.embedded,
            report.problems, time.perf_counter() - started, report.rebuilt,
        )  # fmt: skip

    def _say_linked_out(self, source: BrainSource) -> None:
        """Say once that a ``memories/`` or ``retired/`` linked out of the brain is not served
        (the scan never walks it; ``tb lint`` reports it as rule ``symlink``)."""
        layout = source.layout
        for folder in top_folders(layout, source.kind):
            real = layout.leads_out(folder)
            if real is None:
                continue
            relpath = layout.relative(folder)
            if relpath not in self._linked_out:
                self._linked_out.add(relpath)
                self._warn(
                    f"not serving {quote_path(relpath)}: a symlink that leaves the brain "
                    f"({real}); nothing behind it is read (`tb lint` names it)"
                )

    def indexed_once(self, source: BrainSource) -> bool:
        """Whether a refresh of ``source`` finished in this index once (it is built, maybe
        behind its files)."""
        row = self.db.execute("SELECT 1 FROM brains WHERE brain = ?", (source.brain_id,))
        return row.fetchone() is not None

    def _digest_matches(self, source: BrainSource, digest: str) -> bool:
        row = self.db.execute(
            "SELECT digest FROM scan_digests WHERE brain = ?", (source.brain_id,)
        ).fetchone()
        return row is not None and row[0] == digest

    def _stored_problems(self, source: BrainSource) -> list[str]:
        rows = self.db.execute(
            "SELECT path, problem FROM files WHERE brain = ? AND problem IS NOT NULL ORDER BY path",
            (source.brain_id,),
        ).fetchall()
        found = [(str(path), str(problem)) for path, problem in rows]
        for path, problem in found:
            self._say_not_served(path, problem)
        return [f"{quote_path(path)}: {problem}" for path, problem in found]

    def _say_not_served(self, path: str, problem: str | None) -> None:
        """Say once per process that a file linked out of the brain is not served — also when
        an earlier process (``tb lint``, another agent's server) already indexed that verdict."""
        if not problem or "symlink" not in problem or path in self._linked_out:
            return
        self._linked_out.add(path)
        self._warn(f"not serving {quote_path(path)}: {problem}")

    def _apply_changes(
        self,
        source: BrainSource,
        stamps: dict[str, Stamp],
        *,
        force: bool = False,
        digest: str | None = None,
    ) -> RefreshReport:
        db = self.db
        previous: dict[str, Stamp] | None = None
        if (
            source.known is not None
            and source.indexed is not None
            and source.data_version == self._data_version()
        ):
            # Updated in place only after the writes below succeeded.
            known, indexed = source.known, source.indexed
            previous = None if force else source.stamps
        else:
            known = {
                path: (mtime, size, sha, problem)
                for path, mtime, size, sha, problem in db.execute(
                    "SELECT path, mtime_ns, size, sha256, problem FROM files WHERE brain = ?",
                    (source.brain_id,),
                )
            }
            indexed = {
                path
                for (path,) in db.execute(
                    "SELECT path FROM docs WHERE brain = ? AND source = ?",
                    (source.brain_id, source.kind),
                )
            }
        added = changed = unchanged = 0
        upserts: list[IndexableDoc] = []
        drop: list[str] = []
        file_rows: list[tuple[str, str, int, int, str, str | None]] = []
        problems: list[str] = []
        if previous is None:
            todo: Iterable[tuple[str, Stamp]] = stamps.items()
        else:
            # Nothing else wrote to the index since the last scan: only files whose stamp
            # moved since then can have changed (set operations, not a loop over every file).
            moved = {path for path, _ in stamps.items() - previous.items()}
            todo = [(path, stamps[path]) for path in sorted(moved)]
            unchanged = len(stamps) - len(moved)
            problems.extend(
                f"{quote_path(path)}: {entry[3]}"
                for path, entry in known.items()
                if entry[3] not in (None, _NOT_READ) and path not in moved and path in stamps
            )
        unreadable = 0  # files read in this pass that cannot be used
        for path, (mtime, size) in todo:
            if unreadable >= MAX_UNUSABLE_FILES:
                # A commit of 200,000 broken files had every search read them all (minutes):
                # past the bound they are recorded by stamp, unread, until they change.
                file_rows.append((source.brain_id, path, mtime, size, "", _NOT_READ))
                continue
            before = known.get(path)
            if (
                before is not None
                and before[:2] == (mtime, size)
                and (path in indexed or before[3] is not None)
            ):
                unchanged += 1
                if before[3] and before[3] != _NOT_READ:
                    problems.append(f"{quote_path(path)}: {before[3]}")
                    self._say_not_served(path, before[3])
                continue
            reader = read_note_doc if source.kind == "note" else read_doc
            result = reader(source.layout, path, source.brain_id)
            file_rows.append((source.brain_id, path, mtime, size, result.sha256, result.problem))
            if before is not None and before[2] == result.sha256 and path in indexed:
                unchanged += 1  # touched, not changed (a checkout, a save without edits)
                continue
            if result.doc is None:
                unreadable += 1
                problems.append(f"{quote_path(path)}: {result.problem}")
                self._say_not_served(path, result.problem)  # never served: say so
                if path in indexed:
                    drop.append(path)
                    changed += 1
                continue
            upserts.append(result.doc)
            if path in indexed:
                changed += 1
            else:
                added += 1
        left = sum(1 for row in file_rows if row[5] == _NOT_READ) + sum(
            1 for path, entry in known.items() if entry[3] == _NOT_READ and path in stamps
        )
        if left:
            problems.append(
                f"{BRAIN_DIRNAME}/memories: {left:,} files not read: more than "
                f"{MAX_UNUSABLE_FILES:,} files of the brain cannot be used"
            )
        gone = sorted(known.keys() - stamps.keys())
        removed_docs = [path for path in gone if path in indexed]
        orphan_docs = sorted(indexed - stamps.keys() - known.keys())
        self.backend.upsert(upserts)
        self.backend.remove_paths(
            source.brain_id, [*drop, *removed_docs, *orphan_docs], source.kind
        )
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO files(brain, path, mtime_ns, size, sha256, problem) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                file_rows,
            )
            db.executemany(
                "DELETE FROM files WHERE brain = ? AND path = ?",
                [(source.brain_id, path) for path in gone],
            )
            if digest is not None and not self._digest_matches(source, digest):
                # The files table now holds exactly these stamps (written only when it is
                # news: every write makes the other processes sharing index.db reload).
                db.execute(
                    "INSERT OR REPLACE INTO scan_digests(brain, digest) VALUES (?, ?)",
                    (source.brain_id, digest),
                )
        recorded = self.db.execute(
            "SELECT 1 FROM brains WHERE brain = ?", (source.brain_id,)
        ).fetchone()
        if file_rows or gone or orphan_docs or recorded is None:
            # Nothing to record when nothing changed: writing would make every other process
            # sharing index.db rebuild its caches.
            root = source.root or source.layout.repo_root
            self.backend.store.mark_indexed(source.brain_id, root.as_posix())
        for gone_path in gone:
            known.pop(gone_path, None)
        for _brain, path, mtime, size, sha, problem in file_rows:
            known[path] = (mtime, size, sha, problem)
        indexed.difference_update([*drop, *removed_docs, *orphan_docs])
        indexed.update(doc.path for doc in upserts)
        source.known, source.indexed = known, indexed
        source.data_version = self._data_version()
        return RefreshReport(
            added=added, changed=changed, removed=len(removed_docs) + len(orphan_docs),
            unchanged=unchanged, problems=problems,
        )  # fmt: skip

    def refresh(self, *, force: bool = False) -> RefreshReport:
        """Bring the index up to date with the memory files: only files added, changed,
        removed or retired since the last look are read again; new texts are embedded."""
        now = time.monotonic()
        report = RefreshReport(scanned=False)
        moved = self.prepare() if self.prepare is not None else False
        for index, source in enumerate(self.sources):
            if force or (moved and index == 0) or self._due(source, now):
                report = report.merged(self._refresh_source(source, force=force))
        embedded = 0
        # A server never makes an answer wait for its model to load: until it has, what is
        # not embedded is found by keywords, and its background thread embeds it.
        waits_for_model = self.embeds_in_background and not self.backend.embeddings.ready()
        if self.backend.embeddings.pending and not waits_for_model:
            # An answer never waits for another process's embedding: what is not embedded
            # yet is found by keywords meanwhile.
            with self.working(self.embed_lock(), wait_s=0) as free:
                if free:
                    embedded = self.backend.ensure_vectors(
                        budget_s=ANSWER_EMBED_BUDGET_S,
                        max_docs=ANSWER_EMBED_MAX if self.embeds_in_background else None,
                    )
        if embedded:
            report = report.merged(RefreshReport(embedded=embedded, scanned=False))
        return report

    def rebuild(self, progress: Progress | None = None) -> RefreshReport:
        """Forget everything indexed for these brains and index them again from the files.

        Cached embeddings are kept (they are keyed by content), so only new texts are embedded;
        ``progress(done, total)`` follows the embedding, the slow part.
        """
        started = time.perf_counter()
        report = RefreshReport()
        if self.prepare is not None:
            self.prepare()
        with contextlib.ExitStack() as locks:
            # Taken before the transaction (never wait for a lock while holding SQLite's).
            for source in self.sources:
                locks.enter_context(
                    self.working(
                        f"index:{source.brain_id}", wait_s=None,
                        on_wait=lambda: self._warn(
                            "waiting for another teambrain process that is indexing this brain"
                        ),
                    )
                )  # fmt: skip
            # One transaction: a rebuild that cannot finish (a full disk) leaves the index as
            # it was, not emptied. Embedding follows in batches that each commit.
            with self.db:
                for source in self.sources:
                    self.backend.clear_brain(source.brain_id)
                    self.db.execute("DELETE FROM files WHERE brain = ?", (source.brain_id,))
                    source.forget()
                    report = report.merged(self._refresh_source(source, force=True))
        # Another process embedding the same texts: wait for it, then embed what is left.
        with self.working(
            self.embed_lock(), wait_s=None,
            on_wait=lambda: self._warn(
                "waiting for another teambrain process that is embedding memories; "
                "what it embeds is not embedded again"
            ),
        ):  # fmt: skip
            embedded = self.backend.ensure_vectors(progress)
        return RefreshReport(
            report.added, report.changed, report.removed, report.unchanged, embedded,
            report.problems, time.perf_counter() - started, True,
        )  # fmt: skip
