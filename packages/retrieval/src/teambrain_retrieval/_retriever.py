"""The facade the CLI and the MCP server use: a fresh, filtered, hybrid view of one brain.

``open_retriever(layout)`` gives a :class:`Retriever` for the brain of one repository (plus
the org brain named in its brain.yaml); :class:`RetrieverOptions` says how (time travel, the
embedder, notices, the clock). It only puts the rooms together: :class:`~._setup.Setup` picks
the brains served, the embedder and the backend by config; the index (:mod:`._index`) opens
index.db (:class:`~._index._open.IndexDatabase`, which also recovers a damaged or unwritable
one) and the :class:`~._index._refresher.Refresher` brings it up to date with the files before
each answer; search (:mod:`._search`) ranks (:class:`~._search._backend.SqliteBackend`) and
answers (:class:`~._search._answers.Answers`, :class:`~._search._hits.HitBuilder`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import datetime as dt
import functools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar, cast

from ._git import head_commit
from ._index._embedders import Embedder, EmbedderUnavailable
from ._index._live import LIVE_SUFFIX, LiveView
from ._index._open import IndexDatabase
from ._index._refresher import BrainSource, Refresher, RefreshReport
from ._index._worklock import WorkLocks
from ._notices import say_once
from ._search._answers import Answers
from ._search._graphlinks import GraphWalk
from ._search._hits import ContextPack, Hit, HitBuilder, Similar
from ._setup import Setup, brain_id_for

if TYPE_CHECKING:
    import apsw
    from teambrain_kit.citation_checker import CitationChecker
    from teambrain_kit.egress import Approvals
    from teambrain_kit.paths import BrainLayout, MachineLayout
    from teambrain_schema import BrainConfig, IndexStats, SearchCoverage

    from ._index._embedding import Progress
    from ._index._store import DocStore
    from ._postgres._answers import FirstAnswers
    from ._postgres._first import SharedFirst
    from ._postgres._follow import SharedFollower
    from ._search._backend import SqliteBackend
    from ._search._notes import NoteHit, NoteIndex
    from ._search._situation import Situation

# Notes an answer lists after its memories, at most.
NOTES_K = 3
# Seconds after a first answer from the shared index before a server starts building its own
# index (the answer is written meanwhile).
BUILD_AFTER_ANSWER_S = 0.5
# Once the local index is built, how long the shared index keeps answering while the follower
# loads the commit it last answered from (see Retriever._caught_up).
CATCH_UP_S = 5.0

P = ParamSpec("P")
R = TypeVar("R")


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
    """Run ``method`` through :meth:`IndexDatabase.run`: a damaged index.db is rebuilt once
    and the call retried; an unwritable one is replaced by an index in memory (a rebuild
    refuses instead, with a one-line environment error)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        retriever = args[0]
        assert isinstance(retriever, Retriever)
        return retriever.index.run(
            functools.partial(method, *args, **kwargs),
            writes=method.__name__ == "rebuild",
            reattach=retriever._reattach,
        )

    return wrapper


def _close_unused(opening: concurrent.futures.Future[SharedFirst]) -> None:
    with contextlib.suppress(Exception):  # it failed to open: nothing to close
        opening.result().close()


def _checker_in_background(repo_root: Path) -> Callable[[], CitationChecker]:
    """A citation checker for ``repo_root`` that starts listing the repository's files now, on
    a thread of its own (a tenth of a second per 10,000 files — every memory file of the brain
    is one), while the shared index is asked; the function returned waits for it."""
    from teambrain_kit.citation_checker import CitationChecker

    checker = CitationChecker(repo_root)
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="teambrain-files")
    listed = pool.submit(checker.stale_reasons, [])
    pool.shutdown(wait=False)

    def ready() -> CitationChecker:
        with contextlib.suppress(Exception):  # advice only: the answer's own check says
            listed.result()
        return checker

    return ready


def _defer_live_view(view: LiveView, config: BrainConfig, home: MachineLayout) -> bool:
    """Whether the live view's first materialisation (every memory file written under
    ``$TEAMBRAIN_HOME/live/``: seconds for tens of thousands) waits for the first refresh: on
    a machine that never had this view, with a shared index configured — the first answers
    may come from it while a server builds the view and its index in the background. Only
    where the home can be written (a full or read-only home is found at once, as before)."""
    import os

    if config.retrieval.backend != "postgres" or view.layout.root.exists():
        return False
    return os.access(home.home, os.W_OK)


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
        self.config = config
        self.home = home
        self.ephemeral = options.ephemeral
        self._warn = options.warn or say_once
        self.live: LiveView | None = None
        self._follower: SharedFollower | None = None
        if options.live and not options.ephemeral and options.commit is None:
            view = LiveView(layout.repo_root, home, warn=self._warn)
            try:
                if not _defer_live_view(view, config, home):
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
        self.setup = Setup(
            layout, config, home,
            trust_root=self.trust_root, approvals=options.approvals, warn=self._warn,
        )  # fmt: skip
        self._embedder = self.setup.embedder(options.embedder)
        self._sources = [
            self.setup.main_source(self.brain_id, self.live),
            *self.setup.org_sources(self.brain_id, ephemeral=self.ephemeral),
        ]
        self.org_policies = self.setup.org_policies  # what this repository may read
        self.index = IndexDatabase(
            home.index_db,
            ephemeral=self.ephemeral,
            embedder=self._embedder.name if self._embedder is not None else None,
            warn=self._warn,
            lock=self._lock,
        )
        self.backend = self._make_backend()
        self._refresh_interval = options.refresh_interval
        self._notes: NoteIndex | None = None
        self.refresher = Refresher(
            self.db,
            self.backend,
            self._sources,
            warn=self._warn,
            interval=options.refresh_interval,
            locks=WorkLocks(home.home, self.index.shares_work),
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
        self.answers = Answers(
            self.backend, self.hits, budget_tokens=config.retrieval.budget_tokens,
            lock=self._lock, policies=self.org_policies,
            graph=GraphWalk(layout, self._sources, self.org_policies,
                            config.retrieval.graph_depth),
            repo_root=None if self.ephemeral else layout.repo_root,
            in_background=lambda: self.embeds_in_background,
        )  # fmt: skip
        # A newcomer's first answers from the shared index while the local index is built.
        self._first: FirstAnswers | None = None
        self._first_checked = False
        self._building: threading.Thread | None = None
        self._built_at: float | None = None  # when the build was first seen done (monotonic)
        self._opening = self._open_shared_first()

    # ------------------------------------------------------------------ set-up

    @property
    def db(self) -> apsw.Connection:
        """The index connection (index.db, or an index in memory)."""
        return self.index.db

    @property
    def in_memory(self) -> str | None:
        """Why this process indexes in memory instead of in index.db (None: it does not)."""
        return self.index.in_memory

    def _make_backend(self) -> SqliteBackend:
        in_file = not (self.ephemeral or self.index.in_memory)
        return self.setup.backend(
            self.db,
            self._sources,
            self._embedder,
            vectors_table=self.index.vectors_table,
            today=self._today,
            matrix_cache=self.home.home / "cache" if in_file else None,
        )

    def _reattach(self, reopened: bool) -> None:
        """index.db was reopened empty (``reopened``: it was damaged) or replaced by an index
        in memory: read it afresh."""
        self.backend = self._make_backend()
        self.answers.reattach(self.backend)
        self._notes = None
        if reopened:
            self.refresher.reopen(self.db, self.backend)
        else:
            self.refresher.reattach(self.db, self.backend)

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

    @property
    def commit(self) -> str | None:
        """The brain commit answers are read at: the repository's HEAD (None before a commit);
        for a live view, the default branch's commit it starts from (each memory's provenance
        names its own; while answers come from the shared index, the commit CI filled it
        from)."""
        if self._commit_override is not None:
            return self._commit_override
        if self._first is not None and self._first.first.commit is not None:
            return self._first.first.commit  # answers from the shared index: CI's
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

    # ------------------------------------------------------------------ first answers

    def _local_built(self) -> bool:
        """Whether this machine's index was built for the brain (a refresh finished once)."""
        return self.refresher.indexed_once(self._sources[0])

    def _shared_first(self) -> FirstAnswers | None:
        """The answers of the shared index while the local index is not built yet (see
        :mod:`._postgres._first`): decided at the first answer, once. In a server the local
        index is built meanwhile, on a thread of its own, and answers return to it once it
        is; a one-shot verb answers and leaves the building to ``tb serve`` or ``tb reindex``.
        None when it does not apply (the sqlite backend, time travel, an org brain served,
        the index built) or the shared index cannot answer (said once, in one line)."""
        if self._first is not None:
            if self._building is not None and not self._building.is_alive() and self._caught_up():
                self._first.first.close()
                self._first = None  # built: the local index answers from now on
            return self._first
        if self._first_checked:
            return None
        self._first_checked = True
        opening, self._opening = self._opening, None
        if opening is None:
            return None
        if self._local_built():  # built since it opened (`tb reindex`, a rebuild): not needed
            opening.add_done_callback(_close_unused)
            return None
        from ._postgres._answers import FirstAnswers
        from ._postgres._connect import SharedIndexUnavailable
        from ._postgres._first import NotANewcomer

        embeddings = self.backend.embeddings
        checker = _checker_in_background(self.layout.repo_root)
        if not self.embeds_in_background:
            embeddings.warm_up()  # the model loads while the shared index is asked
        try:
            first = opening.result()
        except NotANewcomer as exc:
            self._warn(f"first answers not from the shared index ({exc.reason}): "
                       "this machine's index is built first")  # fmt: skip
            return None
        except SharedIndexUnavailable as exc:
            source = embeddings.vector_source
            if source is not None and hasattr(source, "off"):
                source.off = exc.reason  # the same fault: said here, once, not asked again
            from ._postgres._shared import FALLBACK

            self._warn(f"shared index not used ({exc.reason}): {FALLBACK}")
            return None
        except Exception as exc:  # a head start only: never the reason an answer fails
            self._warn(f"first answers not from the shared index ({type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else ''}): this machine's index "
                       "is built first")  # fmt: skip
            return None
        hits = HitBuilder(
            cast("DocStore", first),
            [BrainSource(self.layout, first.brain, self._sources[0].display,
                         self._sources[0].scopes)],
            brain_id=first.brain, repo_root=self.layout.repo_root, ephemeral=False,
            commit=None, commit_of=first.commit_of, checker=checker,
        )  # fmt: skip
        self._first = FirstAnswers(
            first, hits, embeddings, budget_tokens=self.config.retrieval.budget_tokens,
            in_background=lambda: self.embeds_in_background,
        )  # fmt: skip
        later = (
            "it is built meanwhile"
            if self.embeds_in_background
            else "`tb reindex` or `tb serve` builds it"
        )
        self._warn(f"{self._first.source}; {later}")
        return self._first

    def _open_shared_first(self) -> concurrent.futures.Future[SharedFirst] | None:
        """The shared index opened for first answers on a thread of its own, from the moment
        the retriever opens (a verb's own work — `tb relevant` reading the session's git
        state — overlaps it); None when first answers cannot come from it: not the postgres
        backend, time travel, an org brain served, or this machine's index built already."""
        if (
            self.config.retrieval.backend != "postgres"
            or self.ephemeral
            or self._commit_override is not None
            or len(self._sources) > 1
            or self._local_built()
        ):
            return None
        url = self.setup.shared_index_url()
        if url is None:
            return None
        from ._postgres._first import open_shared_first

        pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="teambrain-shared")
        opening = pool.submit(
            open_shared_first, url, self.layout, self._embedder, self._sources[0].scopes,
            timeout_s=self.config.retrieval.timeout_s, today=self._today,
        )  # fmt: skip
        pool.shutdown(wait=False)
        return opening

    def _caught_up(self) -> bool:
        """Whether this machine's index, built, may answer instead of the shared index: its
        live view serves merges through the follower's snapshot, so the follower must hold
        the commit the shared index last answered from, or a merge served a moment ago would
        drop out of the answers until its notification is heard. Not waited for longer than
        :data:`CATCH_UP_S` after the build (a follower that cannot connect, a fill since)."""
        follower = self._follower
        if follower is None or self._first is None:
            return True
        snapshot = follower.snapshot
        if snapshot is not None and snapshot.commit == self._first.first.commit:
            return True
        if self._built_at is None:
            self._built_at = time.monotonic()
        return time.monotonic() - self._built_at >= CATCH_UP_S

    def _build_in_background(self) -> None:
        """In a server: build the local index on a thread of its own, starting once the first
        answer is out (:data:`BUILD_AFTER_ANSWER_S`: reading every memory file holds the
        interpreter, which the answer's writing needs); answers come from the shared index
        meanwhile, never waiting for this retriever's lock."""
        if self._building is not None or not self.embeds_in_background:
            return

        def build() -> None:
            time.sleep(BUILD_AFTER_ANSWER_S)
            try:
                self.refresh()
            except Exception as exc:  # a background build must never take the server down
                self._warn(f"building this machine's index failed ({exc}); "
                           "the next answer builds it")  # fmt: skip

        self._building = threading.Thread(target=build, name="teambrain-index", daemon=True)
        self._building.start()

    def _from_shared(
        self, answer: Callable[[FirstAnswers], R], *, build: bool = True
    ) -> tuple[R] | None:
        """``(answer(first answers),)`` while the shared index answers; None when it does not,
        or stopped answering mid-way (then said once, and this machine's index answers). In a
        server, an answer (``build``) starts building the local index once it is out."""
        first = self._shared_first()
        if first is None:
            return None
        from ._postgres._connect import SharedIndexUnavailable

        try:
            answered = (answer(first),)
        except SharedIndexUnavailable as exc:
            first.first.close()
            self._first = None
            self._warn(f"shared index not used ({exc.reason}): answering from this machine's "
                       "index, built first")  # fmt: skip
            return None
        if build:
            self._build_in_background()
        return answered

    @property
    def answered_from(self) -> str | None:
        """Where answers come from when not this machine's index: one line (the shared index
        at CI's commit, while the local index is built); None otherwise."""
        return self._first.source if self._first is not None else None

    # ------------------------------------------------------------------ answers

    @_recovering
    def search(self, query: str, k: int = 8) -> list[Hit]:
        """The best ``k`` live memories for ``query``: BM25 top-40 ∪ vector top-40, fused by
        reciprocal rank (k=60), filtered; fresh (the files are checked first). Never raises
        on odd query text. Each hit says which of the query's words it holds."""
        shared = self._from_shared(lambda first: first.search(query, k))
        if shared is not None:
            return shared[0]
        self.answers.model_before_search()
        self._fresh()
        return self.answers.search(query, k)

    @_recovering
    def search_paths(self, globs: Sequence[str], k: int = 8) -> list[Hit]:
        """Memories about these files or folders (paths, file names, folders, modules and
        identifiers named in titles, bodies and tags; several paths add up; map memories first
        among equals), best first, each saying which path and mention matched."""
        self._fresh()
        return self.answers.search_paths(globs, k)

    @_recovering
    def search_combined(self, query: str | None, globs: Sequence[str], k: int = 8) -> list[Hit]:
        """Query and path results fused by reciprocal rank (either may be empty)."""
        if not globs and query and query.strip():
            shared = self._from_shared(lambda first: first.search(query, k))
            if shared is not None:
                return shared[0]
        if query and query.strip():
            self.answers.model_before_search()
        self._fresh()
        return self.answers.search_combined(query, globs, k)

    @_recovering
    def search_notes(
        self, query: str | None, globs: Sequence[str] = (), k: int = NOTES_K
    ) -> list[NoteHit]:
        """The free-form notes (``.teambrain/notes/``) best matching ``query`` and/or
        ``globs``: a source of their own, listed after memories, never required. Only this
        repository's notes (an org brain's are not searched). None while answers come from
        the shared index (it holds no notes)."""
        if self._shared_first() is not None:
            return []
        with self._lock:
            if self._notes is None:
                in_file = not (self.ephemeral or self.index.in_memory)
                self._notes = self.setup.note_index(
                    self.db, self._sources[0], self._embedder,
                    vectors_table=self.index.vectors_table, today=self._today,
                    locks=WorkLocks(self.home.home, self.index.shares_work),
                    matrix_cache=self.home.home / "cache" if in_file else None,
                    commit=self._commit_override, interval=self._refresh_interval,
                )  # fmt: skip
            return self._notes.search(query, [g for g in globs if g.strip()], k)

    @_recovering
    def required(self) -> list[Hit]:
        """Every live required memory, decisions first, then conventions, map and learnings."""
        shared = self._from_shared(lambda first: first.required())
        if shared is not None:
            return shared[0]
        self._fresh()
        return self.answers.required()

    @_recovering
    def context(
        self, situation: Situation, budget: int | None = None, *, load_model: bool = True
    ) -> ContextPack:
        """Every required memory (force-included, never dropped), then the memories most
        relevant to ``situation`` — the paths this session changed, its branch's name and
        commits, then the default branch's recent history — trimmed to the budget.

        In a server (:attr:`embeds_in_background`) the semantic half joins once the embedding
        model is loaded: until then (its first call) the answer comes from paths and keywords
        at once, is marked partial (``coverage``), and the model loads in the background —
        started here, or, with ``load_model=False``, by the caller once the answer is out
        (``model_to_load``: a server starts it after writing the answer, so the load's
        imports do not hold the interpreter while the answer is sent).

        While the local index is not built and the shared index can answer, the pack comes
        from there (its notes say so; see :meth:`answered_from`)."""
        shared = self._from_shared(
            lambda first: first.context(situation, budget, load_model=load_model)
        )
        if shared is not None:
            return shared[0]
        self._fresh()
        return self.answers.context(situation, budget, load_model=load_model)

    @_recovering
    def prepare(self) -> None:
        """Do now what the first answer would otherwise wait for (a server calls it at start):
        bring the index up to date and read what answers need — the live memories, their
        path mentions, the required memories and their citations' staleness. While answers
        come from the shared index (a newcomer's clone), its connections and counts are made
        ready instead, and the local index is built after the first answer."""
        if self._from_shared(lambda first: first.first.prepare(), build=False) is not None:
            return  # the first answer comes from the shared index; the build starts after it
        self._fresh()
        self.answers.prepare()

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
        if self._first is not None:
            return self._first.coverage()
        return self.answers.coverage()

    @_recovering
    def embed_pending(self, budget_s: float = 0.5) -> int:
        """Embed some of the memories that have no vector yet — batches for at most about
        ``budget_s`` seconds — for a server to call between answers; how many (0: none left)."""
        if self._first is not None and self._shared_first() is not None:
            return 0  # the local index is being built: its texts are embedded after
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
        return self.answers.similar(title, body, k)

    @_recovering
    def memory(self, memory_id: str) -> Hit | None:
        """The live (served) memory with this id, or None."""
        self._fresh()
        return self.answers.memory(memory_id)

    @_recovering
    def stats(self) -> IndexStats:
        """Counts, the embedder in use and why search is degraded (if it is): the shared
        index's while answers come from there."""
        if self._first is not None:  # decided by an answer: stats alone never connect
            shared = self._from_shared(lambda first: first.first.backend.stats(), build=False)
            if shared is not None:
                return shared[0]
        return self.backend.stats()

    def embedder_status(self, *, load: bool = True) -> str:
        """``local:minilm-l6-int8`` when the embedder works (it is loaded to find out; with
        ``load=False`` only its name is given, unchecked), else ``none: <why>``."""
        embeddings = self.backend.embeddings
        if embeddings.embedder is not None and load:
            loader = getattr(embeddings.embedder, "load", None)
            try:
                if callable(loader):
                    loader()
                else:
                    embeddings.embed_query("status")
            except EmbedderUnavailable as exc:
                embeddings.note_unavailable(exc.reason)
        if embeddings.embedder is None:
            return embeddings.degraded or self.setup.embedder_reason
        return embeddings.embedder.name

    def warm_up(self, query: str | None = None) -> None:
        """Begin loading the embedding model in the background (a process about to search
        overlaps the load with reading the index); ``query``, when known, is embedded too."""
        self.backend.embeddings.warm_up(query or None)

    def follow_shared_index(self) -> bool:
        """Serve a merge as soon as CI filled the shared index, before this clone fetches: a
        thread LISTENs for its notifications and the live view serves the shared index's
        files whenever they are ahead of the default branch as fetched (``tb serve`` calls
        this; see :mod:`._postgres._follow`). False when there is nothing to follow (no live
        view, the sqlite backend, not approved here, no URL)."""
        if self.live is None or self._follower is not None:
            return self._follower is not None
        self._follower = self.setup.follower(self.live)
        if self._follower is not None:
            self._follower.start()
        return self._follower is not None

    def close(self) -> None:
        """Close the index connection (and stop following the shared index)."""
        if self._follower is not None:
            self._follower.stop()
        if self._first is not None:
            self._first.first.close()
        if self._opening is not None:  # opened, never asked
            self._opening.add_done_callback(_close_unused)
        if self._building is not None:
            self._building.join()  # never close the index under a build writing to it
        self.index.close()


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
    from teambrain_kit.paths import machine_layout
    from teambrain_schema.brain import load_brain_config

    return Retriever(
        layout,
        config if config is not None else load_brain_config(layout),
        home if home is not None else machine_layout(),
        options,
    )
