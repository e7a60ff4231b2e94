"""The facade the CLI and the MCP server use: a fresh, filtered, hybrid view of one brain.

``open_retriever(layout)`` gives a :class:`Retriever` for the brain of one repository (plus
the org brain named in its brain.yaml). Every read first checks the memory files' stamps and
re-reads only what was added, changed, removed or retired, so answers follow the working tree
without ``tb reindex``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import apsw

from ._backend import DocRow, Progress, ServedBrain, SqliteBackend, embed_text, say_once
from ._db import IndexCorrupt, connect, is_damage, move_aside, storage_trouble
from ._duplicates import is_near_duplicate, term_overlap
from ._embedders import Embedder, EmbedderUnavailable, embedder_egress, make_embedder
from ._fusion import CANDIDATES, RRF_K, fuse_rrf
from ._git import blob_id, head_blobs, head_commit
from ._numpy import prepare_numpy
from ._pathmatch import path_score
from ._query import query_terms
from ._scan import Signals, Stamp, change_signals, read_doc, scan_stamps, stamps_digest
from ._situation import Situation
from ._trim import effective_budget, trim_to_budget

if TYPE_CHECKING:
    from teambrain_schema import (
        BrainConfig,
        IndexableDoc,
        IndexStats,
        Memory,
        MemoryContextResult,
        MemoryResult,
        Provenance,
    )
    from teambrain_schema.citation_checker import CitationChecker
    from teambrain_schema.egress import Approvals, Egress
    from teambrain_schema.paths import BrainLayout, MachineLayout

# Freshness checks may take at most ~2% of the time between them (large brains, hot loops).
_SCAN_SHARE = 50.0
_SCAN_FREE_S = 0.002
_SCAN_MAX_INTERVAL_S = 2.0
_MEMORY_CACHE = 4096
# Seconds an answer may spend embedding memories that are new since the last one (a pull of a
# few hundred); the rest is embedded by later answers or `tb reindex`.
ANSWER_EMBED_BUDGET_S = 2.0

TRUST_HINT = "`tb trust` shows it and asks"
ORG_BRAIN_SENDS = "its org-scoped memories, served to this repository's agents"

P = ParamSpec("P")
R = TypeVar("R")


def brain_id_for(repo_root: Path) -> str:
    """The id of the brain in the repository at ``repo_root``: its resolved path."""
    return repo_root.resolve().as_posix()


def org_brain_root(config: BrainConfig, repo_root: Path) -> Path | None:
    """The repository of the org brain ``config`` names (relative to ``repo_root``), or None
    when it names none or does not serve the org scope."""
    from teambrain_schema import BRAIN_DIRNAME

    if not config.org_brain or "org" not in config.scopes:
        return None
    path = Path(config.org_brain).expanduser()
    if not path.is_absolute():
        path = repo_root / path
    return path.parent if path.name == BRAIN_DIRNAME else path


def org_brain_egress(config: BrainConfig, repo_root: Path) -> Egress | None:
    """The org brain as a destination to approve: memories from outside the repository
    reach this repository's agents (None when it names none, or one inside the repository,
    whose memories the repository already holds)."""
    from teambrain_schema.egress import Egress

    path = org_brain_root(config, repo_root)
    if path is None:
        return None
    resolved = path.resolve()
    if resolved.is_relative_to(repo_root.resolve()):
        return None
    return Egress("org_brain", ORG_BRAIN_SENDS, resolved.as_posix())


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


@dataclass(frozen=True)
class Hit:
    """A served memory, its score and where it was read."""

    memory: Memory
    score: float
    provenance: Provenance
    # Why the memory may be out of date: citations the repository no longer bears out.
    stale: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.memory.id

    def to_result(self) -> MemoryResult:
        """The memory as an agent receives it (body inside the rendering rule's fence)."""
        from teambrain_schema import MemoryResult
        from teambrain_schema.render import render_memory

        front = self.memory.front
        return MemoryResult(
            id=front.id,
            title=front.title,
            body=render_memory(front.id, self.memory.body),
            class_=front.class_,
            provenance=self.provenance,
            priority=front.priority,
            tags=list(front.tags),
            stale=list(self.stale) or None,
        )


@dataclass(frozen=True)
class Similar:
    """A live memory close to a draft: cosine (None without vectors), term overlap and the
    verdict of the near-duplicate guard."""

    hit: Hit
    cosine: float | None
    fts_strength: float
    is_duplicate: bool


@dataclass(frozen=True)
class ContextPack:
    """What ``memory_context()`` returns: required memories, then relevant ones, within budget."""

    required: list[Hit]
    relevant: list[Hit]
    token_estimate: int
    budget: int
    over_budget: bool = False
    notes: list[str] = field(default_factory=list)

    def to_result(self) -> MemoryContextResult:
        """The MCP result model."""
        from teambrain_schema import MemoryContextResult

        return MemoryContextResult(
            required=[hit.to_result() for hit in self.required],
            relevant=[hit.to_result() for hit in self.relevant],
            token_estimate=self.token_estimate,
            budget=self.budget,
            over_budget=self.over_budget,
            notes=list(self.notes),
        )


@dataclass
class _BrainSource:
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


def _recovering(method: Callable[P, R]) -> Callable[P, R]:
    """Run ``method``; if index.db turns out to be damaged, rebuild it once and retry. If it
    cannot be written (a full disk, read-only), answer from a temporary index in memory,
    said once — except for :meth:`Retriever.rebuild`, whose job is to write it: that is a
    one-line :class:`EnvironmentProblem` (exit 2), the index left as it was."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        retriever = args[0]
        assert isinstance(retriever, Retriever)
        writes = method.__name__ == "rebuild"
        try:
            retriever._say_in_memory(writes)
            return method(*args, **kwargs)
        except apsw.Error as exc:
            if is_damage(exc):
                retriever._recover(str(exc))
                return method(*args, **kwargs)
            trouble = storage_trouble(exc, retriever.home.index_db)
            if trouble is None or retriever.in_memory is not None:
                raise
            retriever._use_memory(trouble)
            retriever._say_in_memory(writes)
            return method(*args, **kwargs)

    return wrapper


class Retriever:
    """Search, context and near-duplicate checks over one brain (and its org brain).

    Build it with :func:`open_retriever`. Thread-safe; one per process and brain is enough.
    """

    def __init__(
        self,
        layout: BrainLayout,
        config: BrainConfig,
        home: MachineLayout,
        *,
        ephemeral: bool = False,
        commit: str | None = None,
        brain_id: str | None = None,
        embedder: Embedder | str | None = "config",
        warn: Callable[[str], None] | None = None,
        today: Callable[[], dt.date] | None = None,
        refresh_interval: float | None = None,
        trust_root: Path | None = None,
        approvals: Approvals | None = None,
    ) -> None:
        self.layout = layout
        # The repository whose approvals apply (a brain materialised from an old commit is
        # still that repository's) and this machine's approvals, read once per retriever.
        self.trust_root = trust_root or layout.repo_root
        self._approvals_read = approvals
        self.config = config
        self.home = home
        self.ephemeral = ephemeral
        self.brain_id = brain_id or brain_id_for(layout.repo_root)
        self._commit_override = commit
        self._warn = warn or say_once
        self._today = today
        self._refresh_interval = refresh_interval
        self._lock = threading.RLock()
        # Parsed memories by stored row: validating front-matter again on every answer is the
        # slowest part of turning hits into results.
        self._memories: dict[tuple[int, str, str, str], Memory] = {}
        # Blob ids in HEAD's tree of the files answers cited, by (brain, HEAD commit); None for
        # a path HEAD does not hold. Looked up for the hits of each answer only, in one git call.
        self._head_blobs: dict[tuple[str, str], dict[str, str | None]] = {}
        self._checker: CitationChecker | None = None
        self._embedder_reason = "none: keyword search only (retrieval.embedder.provider: none)"
        self._embedder = self._choose_embedder(embedder)
        self._sources = [self._main_source(), *self._org_sources()]
        # Why this process indexes in memory instead of in index.db (None: it does not).
        self.in_memory: str | None = None
        self._memory_said = False
        self.db: apsw.Connection = self._open_db()
        self.backend = self._make_backend()

    # ------------------------------------------------------------------ set-up

    def _approvals(self) -> Approvals:
        if self._approvals_read is None:
            from teambrain_schema.egress import load_approvals

            self._approvals_read = load_approvals(self.home, self.trust_root)
        return self._approvals_read

    def _approved(self, egress: Egress | None) -> bool:
        """Whether what ``egress`` describes may be used: nothing leaves, or this machine
        approved exactly that destination and credential for this repository."""
        return egress is None or self._approvals().is_approved(self.trust_root, egress)

    def _choose_embedder(self, embedder: Embedder | str | None) -> Embedder | None:
        if embedder != "config":
            if embedder is None:
                self._embedder_reason = "none: keyword search only"
            return embedder if not isinstance(embedder, str) else None
        egress = embedder_egress(self.config.retrieval.embedder, self.layout.repo_root)
        if not self._approved(egress):
            assert egress is not None
            changed = self._approvals().state(self.trust_root, egress) == "changed"
            why = (
                "changed since this machine approved it"
                if changed
                else "not approved on this machine"
            )
            self._embedder_reason = f"none: {egress.describe()}: {why} ({TRUST_HINT})"
            self._warn(
                f"semantic search is off, using keyword search only: brain.yaml's "
                f"{egress.describe()}: {why} ({TRUST_HINT})"
            )
            return None
        try:
            return make_embedder(self.config.retrieval.embedder, self.layout.repo_root)
        except EmbedderUnavailable as exc:
            self._embedder_reason = f"none: {exc.reason}"
            self._warn(f"semantic search is off, using keyword search only: {exc.reason}")
            return None

    def _main_source(self) -> _BrainSource:
        name = self.config.name or self.layout.repo_root.resolve().name
        return _BrainSource(self.layout, self.brain_id, name, tuple(self.config.scopes))

    def _org_sources(self) -> list[_BrainSource]:
        from teambrain_schema.paths import BrainLayout

        path = org_brain_root(self.config, self.layout.repo_root)
        if path is None:
            return []
        org = BrainLayout(path)
        if not org.root.is_dir():
            self._warn(f"org_brain {self.config.org_brain}: no .teambrain/ there; not served")
            return []
        if org.repo_root.resolve() == self.layout.repo_root.resolve():
            return []
        egress = org_brain_egress(self.config, self.layout.repo_root)
        if not self._approved(egress):
            assert egress is not None
            self._warn(
                f"org_brain {egress.destination} is outside this repository and not approved "
                f"on this machine: not served ({TRUST_HINT})"
            )
            return []
        org_id = (
            brain_id_for(org.repo_root)
            if not self.ephemeral
            else f"{brain_id_for(org.repo_root)}#org-of:{self.brain_id}"
        )
        return [_BrainSource(org, org_id, org.repo_root.resolve().name, ("org",))]

    def _open_db(self) -> apsw.Connection:
        if self.ephemeral:
            db = connect(None)
            self._vectors_table = "vectors"
            try:
                connect(self.home.index_db).close()
                db.execute("ATTACH DATABASE ? AS cache", (str(self.home.index_db),))
                self._vectors_table = "cache.vectors"
            except (IndexCorrupt, OSError, apsw.Error) as exc:
                self._warn(f"embedding cache unavailable ({exc}); embedding from scratch")
            return db
        self._vectors_table = "vectors"
        try:
            try:
                return connect(self.home.index_db)
            except IndexCorrupt:
                self._recover_file()
                return connect(self.home.index_db)
        except (OSError, apsw.Error) as exc:
            # An unwritable home must not stop search: index in memory for this process.
            trouble = storage_trouble(exc, self.home.index_db)
            self.in_memory = trouble or f"cannot use {self.home.index_db} ({exc})"
            db = connect(None)
            self._copy_vectors(None, db)
            return db

    def _use_memory(self, trouble: str) -> None:
        """Index in memory from now on (index.db cannot be written): what is in index.db stays
        as it was; cached embeddings are copied over, so nothing is embedded again."""
        with self._lock:
            self.in_memory = trouble
            db = connect(None)
            self._copy_vectors(self.db, db)
            with contextlib.suppress(Exception):
                self.db.close()
            self.db, self._vectors_table = db, "vectors"
            self.backend = self._make_backend()
            for source in self._sources:
                source.stamps, source.known, source.indexed = None, None, None

    def _copy_vectors(self, source: apsw.Connection | None, target: apsw.Connection) -> None:
        """The cached embeddings of this embedder from index.db (``source``, or a read-only
        look at the file) into the in-memory ``target`` (best effort: without them, texts are
        embedded again)."""
        if self._embedder is None:
            return
        table = self._vectors_table if source is not None else "vectors"
        with contextlib.suppress(apsw.Error, OSError):
            if source is None:
                path = self.home.index_db
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
                (self._embedder.name,),
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
                f"cannot write the search index: {self.in_memory}; it is as it was before this "
                "run (free some space, then run `tb reindex` again)"
            )
        if not self._memory_said:
            self._memory_said = True
            self._warn(
                f"cannot update the search index: {self.in_memory}; answering from a temporary "
                "index in memory (nothing is lost: free some space, then run `tb reindex`)"
            )

    def _recover_file(self) -> None:
        moved = move_aside(self.home.index_db)
        self._warn(f"{self.home.index_db} was damaged; moved it to {moved.name} and rebuilt it")

    def _recover(self, reason: str) -> None:
        with self._lock:
            if self.ephemeral:
                raise IndexCorrupt(reason)
            with contextlib.suppress(Exception):  # a damaged file may not close cleanly
                self.db.close()
            self._recover_file()
            self.db = connect(self.home.index_db)
            self.backend = self._make_backend()
            for source in self._sources:
                source.stamps, source.known, source.indexed = None, None, None
            # Index the files again now, so what the caller retries (stats, context) sees them.
            for source in self._sources:
                self._refresh_source(source, force=True)

    def _make_backend(self) -> SqliteBackend:
        served = [ServedBrain(s.brain_id, s.scopes) for s in self._sources]
        return SqliteBackend(
            self.db,
            served,
            self._embedder,
            vectors_table=self._vectors_table,
            warn=self._warn,
            today=self._today,
            no_embedder_reason=self._embedder_reason,
            matrix_cache=None if self.ephemeral or self.in_memory else self.home.home / "cache",
        )

    # ------------------------------------------------------------------ freshness

    @property
    def commit(self) -> str | None:
        """The brain commit answers are read at: the repository's HEAD (None before a commit)."""
        if self._commit_override is not None:
            return self._commit_override
        return head_commit(self.layout.repo_root)

    def _data_version(self) -> int:
        row = self.db.execute("PRAGMA data_version").fetchone()
        return int(row[0]) if row else 0

    def _due(self, source: _BrainSource, now: float) -> bool:
        if source.stamps is None:
            return True
        if self._refresh_interval is not None:
            return now - source.last_scan >= self._refresh_interval
        if source.scan_cost <= _SCAN_FREE_S:
            return True
        # A large brain: a dozen stats say whether files were added, removed or renamed or
        # git moved (a pull is served on the very next call); files rewritten in place are
        # caught by a full scan every so often.
        if change_signals(source.layout, source.folders) != source.signals:
            return True
        return now - source.last_scan >= min(_SCAN_MAX_INTERVAL_S, _SCAN_SHARE * source.scan_cost)

    def _refresh_source(self, source: _BrainSource, *, force: bool) -> RefreshReport:
        started = time.perf_counter()
        # Signals taken before the scan: a change made while it runs is seen next time.
        signals = change_signals(source.layout, source.folders)
        folders: list[str] = []
        stamps = scan_stamps(source.layout, folders)
        if folders != source.folders:
            source.folders = folders
            signals = change_signals(source.layout, folders)
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
        report = self._apply_changes(source, stamps, force=force, digest=digest)
        source.stamps = stamps
        return RefreshReport(
            report.added, report.changed, report.removed, report.unchanged, report.embedded,
            report.problems, time.perf_counter() - started, report.rebuilt,
        )  # fmt: skip

    def _digest_matches(self, source: _BrainSource, digest: str) -> bool:
        row = self.db.execute(
            "SELECT digest FROM scan_digests WHERE brain = ?", (source.brain_id,)
        ).fetchone()
        return row is not None and row[0] == digest

    def _stored_problems(self, source: _BrainSource) -> list[str]:
        return [
            f"{path}: {problem}"
            for path, problem in self.db.execute(
                "SELECT path, problem FROM files WHERE brain = ? AND problem IS NOT NULL "
                "ORDER BY path",
                (source.brain_id,),
            )
        ]

    def _apply_changes(
        self,
        source: _BrainSource,
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
                    "SELECT path FROM docs WHERE brain = ? AND source = 'memory'",
                    (source.brain_id,),
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
                f"{path}: {entry[3]}"
                for path, entry in known.items()
                if entry[3] is not None and path not in moved and path in stamps
            )
        for path, (mtime, size) in todo:
            before = known.get(path)
            if (
                before is not None
                and before[:2] == (mtime, size)
                and (path in indexed or before[3] is not None)
            ):
                unchanged += 1
                if before[3]:
                    problems.append(f"{path}: {before[3]}")
                continue
            result = read_doc(source.layout, path, source.brain_id)
            file_rows.append((source.brain_id, path, mtime, size, result.sha256, result.problem))
            if before is not None and before[2] == result.sha256 and path in indexed:
                unchanged += 1  # touched, not changed (a checkout, a save without edits)
                continue
            if result.doc is None:
                problems.append(f"{path}: {result.problem}")
                if result.problem and "symlink" in result.problem:  # never served: say so
                    self._warn(f"not serving {path}: {result.problem}")
                if path in indexed:
                    drop.append(path)
                    changed += 1
                continue
            upserts.append(result.doc)
            if path in indexed:
                changed += 1
            else:
                added += 1
        gone = sorted(known.keys() - stamps.keys())
        removed_docs = [path for path in gone if path in indexed]
        orphan_docs = sorted(indexed - stamps.keys() - known.keys())
        self.backend.upsert(upserts)
        self.backend.remove_paths(source.brain_id, [*drop, *removed_docs, *orphan_docs])
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
            self.backend.mark_indexed(source.brain_id, source.layout.repo_root.as_posix())
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

    @_recovering
    def refresh(self, *, force: bool = False) -> RefreshReport:
        """Bring the index up to date with the memory files: only files added, changed,
        removed or retired since the last look are read again; new texts are embedded."""
        with self._lock:
            now = time.monotonic()
            report = RefreshReport(scanned=False)
            for source in self._sources:
                if force or self._due(source, now):
                    report = report.merged(self._refresh_source(source, force=force))
            embedded = (
                self.backend.ensure_vectors(budget_s=ANSWER_EMBED_BUDGET_S)
                if self.backend.vectors_pending
                else 0
            )
            if embedded:
                report = report.merged(RefreshReport(embedded=embedded, scanned=False))
            return report

    @_recovering
    def rebuild(self, progress: Progress | None = None) -> RefreshReport:
        """Forget everything indexed for these brains and index them again from the files.

        Cached embeddings are kept (they are keyed by content), so only new texts are embedded;
        ``progress(done, total)`` follows the embedding, the slow part.
        """
        with self._lock:
            started = time.perf_counter()
            report = RefreshReport()
            # One transaction: a rebuild that cannot finish (a full disk) leaves the index as
            # it was, not emptied. Embedding follows in batches that each commit.
            with self.db:
                for source in self._sources:
                    self.backend.clear_brain(source.brain_id)
                    self.db.execute("DELETE FROM files WHERE brain = ?", (source.brain_id,))
                    source.stamps, source.known, source.indexed = None, None, None
                    report = report.merged(self._refresh_source(source, force=True))
            embedded = self.backend.ensure_vectors(progress)
            return RefreshReport(
                report.added, report.changed, report.removed, report.unchanged, embedded,
                report.problems, time.perf_counter() - started, True,
            )  # fmt: skip

    # ------------------------------------------------------------------ answers

    def _display(self, brain: str) -> str:
        for source in self._sources:
            if source.brain_id == brain:
                return source.display
        return brain

    def _prefetch_blobs(self, docs: Iterable[DocRow], heads: dict[str, str | None]) -> None:
        """Look up, in one ``git ls-tree`` per brain, the HEAD blobs of ``docs`` not known yet."""
        wanted: dict[str, list[str]] = {}
        for doc in docs:
            wanted.setdefault(doc.brain, []).append(doc.path)
        for brain, paths in wanted.items():
            if brain == self.brain_id and self._commit_override is not None:
                continue
            source = next((s for s in self._sources if s.brain_id == brain), None)
            if source is None:
                continue
            if brain not in heads:
                heads[brain] = head_commit(source.layout.repo_root)
            head = heads[brain]
            if head is None:
                continue
            if len(self._head_blobs) > 8:
                self._head_blobs.clear()
            blobs = self._head_blobs.setdefault((brain, head), {})
            missing = [p for p in dict.fromkeys(paths) if p not in blobs]
            if missing:
                found = head_blobs(source.layout.repo_root, *missing)
                blobs.update({p: found.get(p) for p in missing})

    def _committed_at(self, brain: str, path: str, heads: dict[str, str | None]) -> str | None:
        """The commit a served file can be cited at: HEAD, when the file is exactly as it is
        in HEAD's tree; None when it is uncommitted or edited since (no commit holds it)."""
        if brain == self.brain_id and self._commit_override is not None:
            return self._commit_override  # read from a brain materialised at that commit
        source = next((s for s in self._sources if s.brain_id == brain), None)
        if source is None:
            return None
        if brain not in heads:
            heads[brain] = head_commit(source.layout.repo_root)
        head = heads[brain]
        if head is None:
            return None
        blobs = self._head_blobs.setdefault((brain, head), {})
        if path not in blobs:
            blobs[path] = head_blobs(source.layout.repo_root, path).get(path)
        committed = blobs[path]
        if committed is None:
            return None
        try:
            data = (source.layout.repo_root / path).read_bytes()
        except OSError:
            return None
        return head if blob_id(data, sha256=len(committed) == 64) == committed else None

    def _hits(self, ranked: Sequence[tuple[int, float]]) -> list[Hit]:
        from teambrain_schema import Memory, MemoryFrontMatter, Provenance

        docs = self.backend.docs([rowid for rowid, _ in ranked])
        heads: dict[str, str | None] = {}
        self._prefetch_blobs(docs.values(), heads)
        hits: list[Hit] = []
        own: list[int] = []
        seen: set[str] = set()
        for rowid, score in ranked:
            doc = docs.get(rowid)
            if doc is None or doc.id in seen:
                continue
            seen.add(doc.id)
            cache_key = (doc.rowid, doc.content_hash, doc.path, doc.doc_json)
            memory = self._memories.get(cache_key)
            if memory is None:
                front = MemoryFrontMatter.model_validate_json(_front_json(doc))
                memory = Memory.model_construct(front=front, body=doc.body, path=doc.path)
                if len(self._memories) >= _MEMORY_CACHE:
                    self._memories.clear()
                self._memories[cache_key] = memory
            front = memory.front
            provenance = Provenance(
                path=doc.path,
                commit=self._committed_at(doc.brain, doc.path, heads),
                created=front.created,
                evidence=front.evidence,
                brain=self._display(doc.brain),
            )
            if doc.brain == self.brain_id:
                own.append(len(hits))
            hits.append(Hit(memory, score, provenance))
        return self._with_staleness(hits, own)

    def _with_staleness(self, hits: list[Hit], own: list[int]) -> list[Hit]:
        """The hits at ``own`` (this brain's) with the reasons each may be stale: its citations
        checked against the repository at the commit served. An org brain's memories cite
        other repositories and are not checked here."""
        if not own:
            return hits
        checker = self._citation_checker()
        asked = []
        for i in own:
            evidence = hits[i].memory.front.evidence
            commits = list(evidence.commits) if evidence else []
            asked.append((hits[i].memory.body, commits, hits[i].provenance.path))
        try:
            reasons = checker.stale_reasons(asked)
        except (OSError, UnicodeError):  # a check is advice: never the reason an answer fails
            return hits
        out = list(hits)
        for i, why in zip(own, reasons, strict=True):
            if why:
                out[i] = dataclasses.replace(hits[i], stale=why)
        return out

    def _citation_checker(self) -> CitationChecker:
        if self._checker is None:
            from teambrain_schema.citation_checker import CitationChecker

            # A time-travel retriever reads a brain materialised elsewhere: the code it cites
            # is the repository's own, at the commit served.
            root = Path(self.brain_id) if self.ephemeral else self.layout.repo_root
            self._checker = CitationChecker(root, commit=self._commit_override)
        return self._checker

    def _fresh(self) -> None:
        self.refresh()

    @_recovering
    def search(self, query: str, k: int = 8) -> list[Hit]:
        """The best ``k`` live memories for ``query``: BM25 top-40 ∪ vector top-40, fused by
        reciprocal rank (k=60), filtered; fresh (the files are checked first). Never raises
        on odd query text."""
        self._fresh()
        return self._hits(self.backend.ranked(query, max(k, 0)))[:k]

    def _path_ranking(self, globs: Sequence[str]) -> list[tuple[int, float]]:
        best: dict[int, float] = {}
        mentions = self.backend.path_mentions()
        for pattern in globs:
            for rowid, mention in mentions:
                score = path_score(pattern, mention)
                if score > best.get(rowid, 0.0):
                    best[rowid] = score
        if not best:
            return []
        docs = self.backend.docs(list(best))
        live = {rowid for rowid, doc in docs.items() if self.backend.is_live_row(doc)}
        scored = [
            (rowid, score + (0.1 if docs[rowid].memory_class == "map" else 0.0))
            for rowid, score in best.items()
            if rowid in live
        ]
        return sorted(scored, key=lambda item: (-item[1], docs[item[0]].path))

    @_recovering
    def search_paths(self, globs: Sequence[str], k: int = 8) -> list[Hit]:
        """Memories about these files or folders (paths named in bodies and tags; map
        memories first among equals), best first."""
        self._fresh()
        return self._hits(self._path_ranking([g for g in globs if g.strip()]))[:k]

    @_recovering
    def search_combined(self, query: str | None, globs: Sequence[str], k: int = 8) -> list[Hit]:
        """Query and path results fused by reciprocal rank (either may be empty)."""
        self._fresh()
        lists: list[list[int]] = []
        if globs:
            lists.append([rowid for rowid, _ in self._path_ranking(globs)])
        if query and query.strip():
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        return self._hits(fuse_rrf(lists, k=RRF_K, depth=CANDIDATES))[:k]

    @_recovering
    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        self._fresh()
        order = {"decision": 0, "convention": 1, "map": 2, "learning": 3}
        docs = self.backend.live_docs("d.priority = 'required'")
        docs.sort(key=lambda d: (order.get(d.memory_class or "", 9), d.created or "", d.id))
        return self._hits([(doc.rowid, 1.0) for doc in docs])

    @_recovering
    def context(self, situation: Situation, budget: int | None = None) -> ContextPack:
        """Every required memory (force-included, never dropped), then the memories most
        relevant to ``situation`` (its branch, paths and commits), trimmed to the budget."""
        from teambrain_schema.tokens import memory_token_cost

        limit = effective_budget(budget, self.config.retrieval.budget_tokens)
        required = self.required()
        required_ids = {hit.id for hit in required}
        lists: list[list[int]] = []
        query = situation.query_text()
        if query:
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        if situation.changed_paths:
            lists.append([rowid for rowid, _ in self._path_ranking(situation.changed_paths)])
        ranked = fuse_rrf(lists, k=RRF_K, depth=CANDIDATES)
        relevant = [hit for hit in self._hits(ranked) if hit.id not in required_ids]
        trimmed = trim_to_budget(
            required,
            relevant,
            lambda hit: memory_token_cost(hit.id, hit.memory.title, hit.memory.body),
            limit,
        )
        notes = list(trimmed.notes)
        if situation.is_empty() and not trimmed.over_budget:
            notes.append("no branch, changed paths or commits to go by; only required memories")
        if self.backend.degraded:
            notes.append(f"keyword search only ({self.backend.degraded})")
        return ContextPack(
            trimmed.required, trimmed.relevant, trimmed.tokens, trimmed.budget,
            trimmed.over_budget, notes,
        )  # fmt: skip

    @_recovering
    def similar(self, title: str, body: str, k: int = 5) -> list[Similar]:
        """Live memories closest to a draft, for the near-duplicate guard: a duplicate has
        cosine ≥ 0.88, or shares ≥ 80% of its words, or has the same content."""
        self._fresh()
        text = embed_text(title, body)
        vector = self.backend.embed_document(text)
        cosines = dict(self.backend.vector_ranking_for(vector, CANDIDATES))
        fts = [rowid for rowid, _ in self.backend.fts_ranking(text, CANDIDATES)]
        candidates = list(dict.fromkeys([*cosines, *fts]))
        docs = self.backend.docs(candidates)
        draft_terms = set(query_terms(text))
        scored = []
        for rowid in candidates:
            doc = docs.get(rowid)
            if doc is None:
                continue
            overlap = term_overlap(draft_terms, query_terms(embed_text(doc.title, doc.body)))
            cosine = cosines.get(rowid)
            if cosine is None and vector is not None:
                cosine = self._cosine_of(vector, doc)
            same = _same_text(title, body, doc)
            duplicate = same or is_near_duplicate(cosine, overlap, body)
            scored.append((rowid, max(cosine or 0.0, overlap), cosine, overlap, duplicate))
        scored.sort(key=lambda item: -item[1])
        hits = {hit.id: hit for hit in self._hits([(r, s) for r, s, *_ in scored])}
        result = []
        for rowid, _score, cosine, overlap, duplicate in scored:
            hit = hits.get(docs[rowid].id)
            if hit is not None and hit.memory.path == docs[rowid].path:
                result.append(Similar(hit, cosine, round(overlap, 4), duplicate))
        return result[:k]

    def _cosine_of(self, vector: Any, doc: DocRow) -> float | None:
        prepare_numpy()
        import numpy as np

        other = self.backend.stored_vector(doc.title, doc.body)
        if other is None or other.shape != vector.shape:
            return None
        return float(np.dot(vector, other))

    @_recovering
    def memory(self, memory_id: str) -> Hit | None:
        """The live (served) memory with this id, or None."""
        self._fresh()
        docs = self.backend.live_docs("d.id = ?", [memory_id])
        hits = self._hits([(docs[0].rowid, 1.0)]) if docs else []
        return hits[0] if hits else None

    @_recovering
    def stats(self) -> IndexStats:
        """Counts, the embedder in use and why search is degraded (if it is)."""
        return self.backend.stats()

    def embedder_status(self) -> str:
        """``local:minilm-l6-int8`` when the embedder works (it is loaded to find out), else
        ``none: <why>``."""
        backend = self.backend
        if backend.embedder is not None:
            loader = getattr(backend.embedder, "load", None)
            try:
                if callable(loader):
                    loader()
                else:
                    backend.embed_query("status")
            except EmbedderUnavailable as exc:
                backend._note_unavailable(exc.reason)
        if backend.embedder is None:
            return backend.degraded or self._embedder_reason
        return backend.embedder.name

    def warm_up(self, query: str | None = None) -> None:
        """Begin loading the embedding model in the background (a process about to search
        overlaps the load with reading the index); ``query``, when known, is embedded too."""
        self.backend.warm_up(query or None)

    def close(self) -> None:
        """Close the index connection."""
        self.db.close()


def _front_json(doc: DocRow) -> str:
    import json

    data = json.loads(doc.doc_json)
    keep = ("id", "class", "scope", "status", "priority", "title", "created", "evidence",
            "supersedes", "tags", "ttl_days")  # fmt: skip
    front = {key: data[key] for key in keep if key in data and data[key] is not None}
    return json.dumps(front)


def _same_text(title: str, body: str, doc: DocRow) -> bool:
    def norm(text: str) -> str:
        return " ".join(text.split()).casefold()

    return norm(title) == norm(doc.title) and norm(body) == norm(doc.body)


def open_retriever(
    layout: BrainLayout,
    *,
    config: BrainConfig | None = None,
    home: MachineLayout | None = None,
    ephemeral: bool = False,
    commit: str | None = None,
    brain_id: str | None = None,
    embedder: Embedder | str | None = "config",
    warn: Callable[[str], None] | None = None,
    today: Callable[[], dt.date] | None = None,
    refresh_interval: float | None = None,
    trust_root: Path | None = None,
    approvals: Approvals | None = None,
) -> Retriever:
    """A :class:`Retriever` for the brain at ``layout``.

    ``config`` defaults to the brain's brain.yaml, ``home`` to ``$TEAMBRAIN_HOME``.
    ``ephemeral=True`` keeps the index in memory (time travel over a brain materialised from
    an old commit) while embeddings still come from the content-hash cache in index.db;
    ``commit`` then names the commit answers are read at. ``embedder`` overrides brain.yaml
    (an :class:`Embedder`, or None for keyword search only); ``warn`` receives one-line
    notices (default: stderr, once each); ``refresh_interval`` fixes how often the files are
    checked (default: every time for small brains, adaptively for very large ones).
    Settings that send data off the machine (a remote embedder, an org brain outside the
    repository) are used only when this machine approved them for ``trust_root`` (default:
    the layout's repository; ``approvals`` default: ``$TEAMBRAIN_HOME/trust.json``);
    otherwise search runs on keywords, or without the org brain, and ``warn`` says why.
    """
    from teambrain_schema.brain import load_brain_config
    from teambrain_schema.paths import machine_layout

    return Retriever(
        layout,
        config if config is not None else load_brain_config(layout),
        home if home is not None else machine_layout(),
        ephemeral=ephemeral,
        commit=commit,
        brain_id=brain_id,
        embedder=embedder,
        warn=warn,
        today=today,
        refresh_interval=refresh_interval,
        trust_root=trust_root,
        approvals=approvals,
    )
