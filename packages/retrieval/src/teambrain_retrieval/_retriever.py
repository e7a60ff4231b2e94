"""The facade the CLI and the MCP server use: a fresh, filtered, hybrid view of one brain.

``open_retriever(layout)`` gives a :class:`Retriever` for the brain of one repository (plus
the org brain named in its brain.yaml); :class:`RetrieverOptions` says how (time travel, the
embedder, notices, the clock). Each query goes down one way: the :class:`~._refresher.Refresher`
brings the index up to date with the files, :class:`~._backend.SqliteBackend` ranks, and
:class:`~._hits.HitBuilder` turns the ranked rows into answers. Opening index.db, and moving a
damaged one aside and rebuilding it, is done here too.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import apsw

from ._git import head_commit
from ._index._db import IndexCorrupt, connect, is_damage, move_aside, storage_trouble
from ._index._embedders import Embedder, EmbedderUnavailable, embedder_egress, make_embedder
from ._index._live import LIVE_SUFFIX, LiveView
from ._index._refresher import BrainSource, Refresher, RefreshReport
from ._index._store import DocRow, ServedBrain, embed_text
from ._index._worklock import WorkLocks
from ._notices import say_once
from ._numpy import prepare_numpy
from ._pathmatch import path_score
from ._query import query_terms
from ._search._backend import SqliteBackend
from ._search._duplicates import is_near_duplicate, term_overlap
from ._search._fusion import CANDIDATES, RRF_K, fuse_rrf
from ._search._hits import ContextPack, Hit, HitBuilder, Similar
from ._search._situation import Situation
from ._search._trim import effective_budget, trim_to_budget

if TYPE_CHECKING:
    from teambrain_schema import BrainConfig, IndexStats, SearchCoverage
    from teambrain_schema.egress import Approvals, Egress
    from teambrain_schema.paths import BrainLayout, MachineLayout

    from ._index._embedding import Progress

TRUST_HINT = "`tb trust` shows it and asks"
ORG_BRAIN_SENDS = "its org-scoped memories, served to this repository's agents"

P = ParamSpec("P")
R = TypeVar("R")


def brain_id_for(repo_root: Path) -> str:
    """The id of the brain in the repository at ``repo_root``: its resolved path."""
    return repo_root.resolve().as_posix()


def org_brain_location(config: BrainConfig, repo_root: Path) -> tuple[Path, str] | None:
    """Where the org brain ``config`` names is on this machine, and who said so: this
    machine's ``$TEAMBRAIN_ORG_BRAIN`` (``tb`` and ``tb serve`` set it from ``[org_brain] path``
    in ``user/config.toml``) when set, else the committed ``org_brain`` — the team's default
    (relative paths against ``repo_root``). None when brain.yaml names no org brain or does not
    serve the org scope: the team decides whether, each machine where."""
    import os

    from teambrain_schema import BRAIN_DIRNAME
    from teambrain_schema.home import ORG_BRAIN_ENV, env_setting_source

    if not config.org_brain or "org" not in config.scopes:
        return None
    machine = os.environ.get(ORG_BRAIN_ENV, "").strip()
    written, source = (
        (machine, env_setting_source(ORG_BRAIN_ENV))
        if machine
        else (config.org_brain, f"brain.yaml's org_brain: {config.org_brain}")
    )
    path = Path(written).expanduser()
    if not path.is_absolute():
        path = repo_root / path
    return (path.parent if path.name == BRAIN_DIRNAME else path), source


def org_brain_missing(path: Path, source: str) -> str:
    """One line: the org brain is not where ``source`` says, and how to tell teambrain where it
    is on this machine."""
    from teambrain_schema.home import ORG_BRAIN_ENV

    return (
        f"org brain not found at {path} (from {source}): clone it there, or say where it is on "
        f"this machine with ${ORG_BRAIN_ENV} or `[org_brain] path` in "
        "$TEAMBRAIN_HOME/user/config.toml"
    )


def org_brain_root(config: BrainConfig, repo_root: Path) -> Path | None:
    """The repository of the org brain ``config`` names, where this machine has it (see
    :func:`org_brain_location`), or None when it names none or does not serve the org scope."""
    found = org_brain_location(config, repo_root)
    return found[0] if found else None


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
class RetrieverOptions:
    """How a :class:`Retriever` reads its brain (all optional).

    ``ephemeral=True`` keeps the index in memory (time travel over a brain materialised from
    an old commit) while embeddings still come from the content-hash cache in index.db;
    ``commit`` then names the commit answers are read at, and ``brain_id`` the brain they are
    answers of. ``embedder`` overrides brain.yaml (an :class:`Embedder`, or None for keyword
    search only); ``warn`` receives one-line notices (default: stderr, once each); ``today``
    is the clock TTLs are judged by; ``refresh_interval`` fixes how often the files are checked
    (default: every time for small brains, adaptively for very large ones). Settings that send
    data off the machine (a remote embedder, an org brain outside the repository) are used only
    when this machine approved them for ``trust_root`` (default: the layout's repository;
    ``approvals`` default: ``$TEAMBRAIN_HOME/trust.json``); otherwise search runs on keywords,
    or without the org brain, and ``warn`` says why. ``live=True`` serves the team's latest
    reviewed brain: the default branch as last fetched with this checkout's own memory changes
    on top (see :class:`~._live.LiveView`; what ``tb serve`` serves), indexed as a
    brain of its own (``<repository>#live``).
    """

    ephemeral: bool = False
    live: bool = False
    commit: str | None = None
    brain_id: str | None = None
    embedder: Embedder | str | None = "config"
    warn: Callable[[str], None] | None = None
    today: Callable[[], dt.date] | None = None
    refresh_interval: float | None = None
    trust_root: Path | None = None
    approvals: Approvals | None = None


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
            return _patiently(method, args, kwargs)
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


# SQLite waits BUSY_TIMEOUT_MS for another process's write transaction; past that, the call is
# tried again a few times (the work locks keep long writes rare, but several brains share
# index.db) before its BusyError is treated like any other write failure.
BUSY_RETRIES = 4


def _patiently(method: Callable[P, R], args: Any, kwargs: Any) -> R:
    for attempt in range(BUSY_RETRIES):
        try:
            return method(*args, **kwargs)
        except apsw.BusyError:
            if attempt == BUSY_RETRIES - 1:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


class Retriever:
    """Search, context and near-duplicate checks over one brain (and its org brain).

    Build it with :func:`open_retriever`. Thread-safe; one per process and brain is enough.
    """

    def __init__(
        self,
        layout: BrainLayout,
        config: BrainConfig,
        home: MachineLayout,
        options: RetrieverOptions | None = None,
    ) -> None:
        options = options or RetrieverOptions()
        self.layout = layout
        # The repository whose approvals apply (a brain materialised from an old commit is
        # still that repository's) and this machine's approvals, read once per retriever.
        self.trust_root = options.trust_root or layout.repo_root
        self._approvals_read = options.approvals
        self.config = config
        self.home = home
        self.ephemeral = options.ephemeral
        self._warn = options.warn or say_once
        self.live: LiveView | None = None
        if options.live and not options.ephemeral and options.commit is None:
            view = LiveView(layout.repo_root, home, warn=self._warn)
            try:
                view.refresh()
                self.live = view
            except OSError as exc:  # a full or read-only home: the checkout as it is
                self._warn(f"the live view of the brain could not be written ({exc}); "
                           "serving the checkout as it is")  # fmt: skip
        suffix = LIVE_SUFFIX if self.live is not None else ""
        self.brain_id = options.brain_id or brain_id_for(layout.repo_root) + suffix
        self._commit_override = options.commit
        self._today = options.today
        self._lock = threading.RLock()
        self._embedder_reason = "none: keyword search only (retrieval.embedder.provider: none)"
        self._embedder = self._choose_embedder(options.embedder)
        self._sources = [self._main_source(), *self._org_sources()]
        # Why this process indexes in memory instead of in index.db (None: it does not).
        self.in_memory: str | None = None
        self._memory_said = False
        self.db: apsw.Connection = self._open_db()
        self.backend = self._make_backend()
        self.refresher = Refresher(
            self.db,
            self.backend,
            self._sources,
            warn=self._warn,
            interval=options.refresh_interval,
            locks=WorkLocks(home.home, self._shares_work),
            prepare=self._prepare_live if self.live is not None else None,
        )
        self.hits = HitBuilder(
            self.backend.store,
            self._sources,
            brain_id=self.brain_id,
            repo_root=layout.repo_root,
            ephemeral=self.ephemeral,
            commit=self._commit_override,
            commit_of=self.live.commit_of if self.live is not None else None,
        )

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

    def _main_source(self) -> BrainSource:
        name = self.config.name or self.layout.repo_root.resolve().name
        if self.live is not None:  # the view's files, on behalf of this repository
            return BrainSource(
                self.live.layout, self.brain_id, name, tuple(self.config.scopes),
                root=self.layout.repo_root,
            )  # fmt: skip
        return BrainSource(self.layout, self.brain_id, name, tuple(self.config.scopes))

    def _prepare_live(self) -> bool:
        """Bring the live view's files up to date (True when any changed). A view that cannot
        be written (a full disk) keeps serving what it holds, said once."""
        assert self.live is not None
        try:
            return self.live.refresh()
        except OSError as exc:
            self._warn(
                f"the live view of the brain could not be updated ({exc}); serving it as it was"
            )
            return False

    def _org_sources(self) -> list[BrainSource]:
        from teambrain_schema.paths import BrainLayout

        found = org_brain_location(self.config, self.layout.repo_root)
        if found is None:
            return []
        path, source = found
        org = BrainLayout(path)
        if not org.root.is_dir():
            self._warn(f"{org_brain_missing(path, source)}; not served")
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
        return [BrainSource(org, org_id, org.repo_root.resolve().name, ("org",))]

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
                # Opening migrates: on a fresh home every process starting at once writes.
                return _patiently(connect, (self.home.index_db,), {})
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
            self.hits.store = self.backend.store
            self.refresher.reattach(self.db, self.backend)

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

    def _shares_work(self, lock: str) -> bool:
        """Whether work lock ``lock`` coordinates with other processes: not for a private
        index in memory, nor for indexing an ephemeral one (an old commit's brain)."""
        return self.in_memory is None and not (self.ephemeral and lock.startswith("index:"))

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
            return f"make {self.home.index_db.parent} writable"
        if "locked by another process" in reason:
            return "nothing to fix: another teambrain process was busy writing it"
        return "check TEAMBRAIN_HOME"

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
            self.hits.store = self.backend.store
            self.refresher.reopen(self.db, self.backend)

    def _make_backend(self) -> SqliteBackend:
        served = [ServedBrain(s.brain_id, s.scopes) for s in self._sources]
        backend = SqliteBackend(
            self.db,
            served,
            self._embedder,
            vectors_table=self._vectors_table,
            warn=self._warn,
            today=self._today,
            no_embedder_reason=self._embedder_reason,
            matrix_cache=None if self.ephemeral or self.in_memory else self.home.home / "cache",
        )
        backend.embeddings.vector_source = self._shared_vectors()
        return backend

    def _shared_vectors(self) -> Callable[[list[str]], dict[str, Any]] | None:
        """The shared index as where vectors come from before embedding here
        (``retrieval.backend: postgres``, approved, its URL set); None otherwise."""
        retrieval = self.config.retrieval
        if retrieval.backend != "postgres" or self._embedder is None:
            return None
        from ._postgres._config import shared_index_egress, shared_index_url

        egress = shared_index_egress(retrieval)
        if not self._approved(egress):
            self._warn(f"shared index not used (not approved on this machine: {TRUST_HINT}): "
                       "embedding on this machine instead")  # fmt: skip
            return None
        url, why = shared_index_url(retrieval)
        if url is None:
            self._warn(f"shared index not used ({why}): embedding on this machine instead")
            return None
        from ._postgres._shared import shared_vector_source

        return shared_vector_source(
            url, self.layout, self._embedder.name, timeout_s=retrieval.timeout_s, warn=self._warn
        )

    # ------------------------------------------------------------------ freshness

    @property
    def commit(self) -> str | None:
        """The brain commit answers are read at: the repository's HEAD (None before a commit);
        for a live view, the default branch's commit it starts from (each memory's provenance
        names its own)."""
        if self._commit_override is not None:
            return self._commit_override
        if self.live is not None:
            return self.live.base
        return head_commit(self.layout.repo_root)

    @_recovering
    def refresh(self, *, force: bool = False) -> RefreshReport:
        """Bring the index up to date with the memory files: only files added, changed,
        removed or retired since the last look are read again; new texts are embedded."""
        with self._lock:
            return self.refresher.refresh(force=force)

    @_recovering
    def rebuild(self, progress: Progress | None = None) -> RefreshReport:
        """Forget everything indexed for these brains and index them again from the files.

        Cached embeddings are kept (they are keyed by content), so only new texts are embedded;
        ``progress(done, total)`` follows the embedding, the slow part.
        """
        with self._lock:
            return self.refresher.rebuild(progress)

    def _fresh(self) -> None:
        self.refresh()

    # ------------------------------------------------------------------ answers

    @_recovering
    def search(self, query: str, k: int = 8) -> list[Hit]:
        """The best ``k`` live memories for ``query``: BM25 top-40 ∪ vector top-40, fused by
        reciprocal rank (k=60), filtered; fresh (the files are checked first). Never raises
        on odd query text."""
        self._fresh()
        return self.hits.build(self.backend.ranked(query, max(k, 0)))[:k]

    def _path_ranking(self, globs: Sequence[str]) -> list[tuple[int, float]]:
        best: dict[int, float] = {}
        mentions = self.backend.store.path_mentions()
        for pattern in globs:
            for rowid, mention in mentions:
                score = path_score(pattern, mention)
                if score > best.get(rowid, 0.0):
                    best[rowid] = score
        if not best:
            return []
        docs = self.backend.store.docs(list(best))
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
        return self.hits.build(self._path_ranking([g for g in globs if g.strip()]))[:k]

    @_recovering
    def search_combined(self, query: str | None, globs: Sequence[str], k: int = 8) -> list[Hit]:
        """Query and path results fused by reciprocal rank (either may be empty)."""
        self._fresh()
        lists: list[list[int]] = []
        if globs:
            lists.append([rowid for rowid, _ in self._path_ranking(globs)])
        if query and query.strip():
            lists.append([rowid for rowid, _ in self.backend.ranked(query, CANDIDATES)])
        return self.hits.build(fuse_rrf(lists, k=RRF_K, depth=CANDIDATES))[:k]

    @_recovering
    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        self._fresh()
        order = {"decision": 0, "convention": 1, "map": 2, "learning": 3}
        docs = self.backend.live_docs("d.priority = 'required'")
        docs.sort(key=lambda d: (order.get(d.memory_class or "", 9), d.created or "", d.id))
        return self.hits.build([(doc.rowid, 1.0) for doc in docs])

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
        relevant = [hit for hit in self.hits.build(ranked) if hit.id not in required_ids]
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
        coverage = self.coverage()
        if coverage is not None:
            notes.append(coverage.note)
        return ContextPack(
            trimmed.required, trimmed.relevant, trimmed.tokens, trimmed.budget,
            trimmed.over_budget, notes, coverage,
        )  # fmt: skip

    @property
    def embeds_in_background(self) -> bool:
        """True when the caller embeds what answers leave (:meth:`embed_pending`, a server
        between answers): an answer then embeds only a small pull itself."""
        return self.refresher.embeds_in_background

    @embeds_in_background.setter
    def embeds_in_background(self, value: bool) -> None:
        self.refresher.embeds_in_background = value

    def coverage(self) -> SearchCoverage | None:
        """How many live memories semantic search covers, while some are not embedded yet (a
        first start on a large brain, a big pull); None once all are, or without an embedder
        (keyword search only, said elsewhere)."""
        from teambrain_schema import SearchCoverage

        with self._lock:
            found = self.backend.embedding_coverage()
        if found is None or found[1] >= found[0]:
            return None
        total, embedded = found
        note = (
            f"partial answer: semantic search covers {embedded} of {total} memories so far; the "
            f"other {total - embedded} are found by keywords only until they are embedded (a "
            "later call covers more)"
        )
        return SearchCoverage(memories=total, embedded=embedded, note=note)

    @_recovering
    def embed_pending(self, budget_s: float = 0.5) -> int:
        """Embed some of the memories that have no vector yet — batches for at most about
        ``budget_s`` seconds — for a server to call between answers; how many (0: none left)."""
        with self._lock:
            if self.backend.embedder is None or not self.backend.embeddings.pending:
                return 0
            # Never waits: another process embedding these texts does the work meanwhile.
            with self.refresher.working(self.refresher.embed_lock(), wait_s=0) as free:
                return self.backend.ensure_vectors(budget_s=budget_s, quiet=True) if free else 0

    @_recovering
    def similar(self, title: str, body: str, k: int = 5) -> list[Similar]:
        """Live memories closest to a draft, for the near-duplicate guard: a duplicate has
        cosine ≥ 0.88, or shares ≥ 80% of its words, or both cosine ≥ 0.75 and ≥ 40% of its words
        (a paraphrase), or has the same content."""
        self._fresh()
        text = embed_text(title, body)
        vector = self.backend.embeddings.embed_document(text)
        cosines = dict(self.backend.vector_ranking_for(vector, CANDIDATES))
        fts = [rowid for rowid, _ in self.backend.fts_ranking(text, CANDIDATES)]
        candidates = list(dict.fromkeys([*cosines, *fts]))
        docs = self.backend.store.docs(candidates)
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
        hits = {hit.id: hit for hit in self.hits.build([(r, s) for r, s, *_ in scored])}
        result = []
        for rowid, _score, cosine, overlap, duplicate in scored:
            hit = hits.get(docs[rowid].id)
            if hit is not None and hit.memory.path == docs[rowid].path:
                result.append(Similar(hit, cosine, round(overlap, 4), duplicate))
        return result[:k]

    def _cosine_of(self, vector: Any, doc: DocRow) -> float | None:
        prepare_numpy()
        import numpy as np

        other = self.backend.embeddings.stored_vector(doc.title, doc.body)
        if other is None or other.shape != vector.shape:
            return None
        return float(np.dot(vector, other))

    @_recovering
    def memory(self, memory_id: str) -> Hit | None:
        """The live (served) memory with this id, or None."""
        self._fresh()
        docs = self.backend.live_docs("d.id = ?", [memory_id])
        hits = self.hits.build([(docs[0].rowid, 1.0)]) if docs else []
        return hits[0] if hits else None

    @_recovering
    def stats(self) -> IndexStats:
        """Counts, the embedder in use and why search is degraded (if it is)."""
        return self.backend.stats()

    def embedder_status(self) -> str:
        """``local:minilm-l6-int8`` when the embedder works (it is loaded to find out), else
        ``none: <why>``."""
        embeddings = self.backend.embeddings
        if embeddings.embedder is not None:
            loader = getattr(embeddings.embedder, "load", None)
            try:
                if callable(loader):
                    loader()
                else:
                    embeddings.embed_query("status")
            except EmbedderUnavailable as exc:
                embeddings.note_unavailable(exc.reason)
        if embeddings.embedder is None:
            return embeddings.degraded or self._embedder_reason
        return embeddings.embedder.name

    def warm_up(self, query: str | None = None) -> None:
        """Begin loading the embedding model in the background (a process about to search
        overlaps the load with reading the index); ``query``, when known, is embedded too."""
        self.backend.embeddings.warm_up(query or None)

    def close(self) -> None:
        """Close the index connection."""
        self.db.close()


def _same_text(title: str, body: str, doc: DocRow) -> bool:
    def norm(text: str) -> str:
        return " ".join(text.split()).casefold()

    return norm(title) == norm(doc.title) and norm(body) == norm(doc.body)


def open_retriever(
    layout: BrainLayout,
    options: RetrieverOptions | None = None,
    *,
    config: BrainConfig | None = None,
    home: MachineLayout | None = None,
) -> Retriever:
    """A :class:`Retriever` for the brain at ``layout``, read as ``options`` say.

    ``config`` defaults to the brain's brain.yaml, ``home`` to ``$TEAMBRAIN_HOME``.
    """
    from teambrain_schema.brain import load_brain_config
    from teambrain_schema.paths import machine_layout

    return Retriever(
        layout,
        config if config is not None else load_brain_config(layout),
        home if home is not None else machine_layout(),
        options,
    )
