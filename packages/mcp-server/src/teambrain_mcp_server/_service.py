"""What the four tools do, independent of MCP: one brain, one machine, one session at a time.

The retriever (SQLite, numpy, the embedding model) is opened on the first call that needs it,
so the server answers ``initialize`` and ``tools/list`` before any of that is imported. It is
kept for the life of the server; it notices brain changes (``git pull``, retirements) itself.
Failures a user can fix raise :class:`TeambrainError` with a one-line message.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_schema import (
    EnvironmentProblem,
    MemoryContextResult,
    MemoryDraft,
    MemoryFeedbackResult,
    MemoryProposeResult,
    MemorySearchResult,
    RecordDraft,
    TeambrainError,
    UserError,
    ValidationFailure,
)
from teambrain_schema.brain import load_brain_config
from teambrain_schema.paths import BrainLayout, MachineLayout

from ._heartbeat import HeartbeatWriter
from ._target import Target

if TYPE_CHECKING:
    from teambrain_capture import JoinKeys
    from teambrain_retrieval import Retriever
    from teambrain_sync import GitRepo

DEFAULT_SEARCH_K = 8
# Free-form notes a search lists after its memories, at most (docs/graph.md#notes).
NOTES_K = 3
# While memories wait to be embedded (a first start on a large brain, a big pull), the server
# embeds them between answers in slices this long; an answer waits at most one slice.
EMBED_SLICE_S = 0.25
# A first answer given while the embedding model had not loaded starts the load once it has
# been written (BrainService.answered); a server that never says so starts it this much later.
LOAD_AFTER_ANSWER_S = 1.0
RetrieverFactory = Callable[[BrainLayout, MachineLayout], "Retriever"]
# Where teambrain-sync keeps what the remote last said its default branch is (its HEADS_CACHE,
# in the machine's proposals folder; a test checks the two agree).
REMOTE_HEADS_CACHE = "remote-heads.json"


def open_default_retriever(layout: BrainLayout, machine: MachineLayout) -> Retriever:
    """The real retriever over ``layout`` with the machine's shared index. Every call checks
    for changes: a small brain stats each memory file; a large one stats its folders and git's
    index and HEAD, so a memory that arrived with ``git pull``, was added or was retired is
    served or hidden on the very next call, and a file edited in place within ~2 s.

    Unless this machine says ``[serve] from = "checkout"``, what is served is the team's latest
    reviewed brain: the default branch as last fetched with this checkout's own memory changes
    on top (a teammate's merged memory is served once this clone fetched, without a pull)."""
    from teambrain_retrieval import RetrieverOptions, live_settings, open_retriever

    settings = live_settings()
    for problem in settings.problems:
        print(f"teambrain: {problem}; using the default", file=sys.stderr)
    return open_retriever(layout, RetrieverOptions(live=settings.live), home=machine)


class BrainService:
    """The brain a server serves, and the calls the tools make on it (thread-safe)."""

    def __init__(
        self,
        target: Target,
        machine: MachineLayout,
        *,
        session_hints: tuple[str, ...] = (),
        heartbeat: HeartbeatWriter | None = None,
        retriever_factory: RetrieverFactory = open_default_retriever,
    ) -> None:
        self.target = target
        self.machine = machine
        self.session_hints = session_hints
        self.heartbeat = heartbeat
        self._retriever_factory = retriever_factory
        self._retriever: Retriever | None = None
        self._retriever_key: tuple[Path, tuple[int, int] | None] | None = None
        self._lock = threading.RLock()
        self._embedding: threading.Thread | None = None
        self._fetching: threading.Thread | None = None
        self._stop = threading.Event()
        self._after_answer: Callable[[], None] | None = None
        self._after_lock = threading.Lock()

    # -- where -------------------------------------------------------------------------------

    def layout(self) -> BrainLayout:
        """The brain served, or a one-line error saying how to get one. Checked on every call,
        so ``tb init`` after the server started works without a restart."""
        root = self.target.repo_root
        if root is None:
            raise EnvironmentProblem(
                f"{self.target.start} is not inside a git repository, so there is no brain to "
                "serve; start the server in your repository (or pass --repo PATH) and run "
                "`tb init` there"
            )
        layout = BrainLayout(root)
        if not layout.root.is_dir():
            raise EnvironmentProblem(
                f"no teambrain brain in {root}; run `tb init` in that repository to create one"
            )
        return layout

    def retriever(self) -> Retriever:
        """The retriever for the served brain, opened on first use and again when brain.yaml
        changed (a pulled budget or embedder setting applies without a restart)."""
        layout = self.layout()
        key = (layout.repo_root, _stamp(layout.brain_yaml))
        with self._lock:
            if self._retriever is None or self._retriever_key != key:
                previous = self._retriever
                self._retriever = self._retriever_factory(layout, self.machine)
                # This server embeds what an answer leaves between answers (see
                # _embed_in_background): a first start on a large brain answers at once.
                self._retriever.embeds_in_background = True
                self._retriever_key = key
                if previous is not None:
                    previous.close()
                else:
                    self._say_default_branch_moved(layout.repo_root, ask=False)
                self._start_fetching(layout)
                # With a shared index approved here, a merge is served as soon as CI filled
                # it (a notification), without a fetch.
                self._retriever.follow_shared_index()
            return self._retriever

    def _say_default_branch_moved(self, repo_root: Path, *, ask: bool) -> bool:
        """One line on stderr (the agent tool's server log) when the remote's default branch is
        not the one this clone follows (renamed on the remote, a stale ``origin/HEAD``): what
        is served then lags the team's brain. Known from what ``tb propose``, ``tb retire`` or
        ``tb doctor --online`` last asked the remote, or asked now (``ask``). True when said."""
        from teambrain_retrieval import live_settings

        if not live_settings().live:
            return False  # serving the checkout as it is: the remote's branches do not count
        if not ask and not (self.machine.proposals / REMOTE_HEADS_CACHE).is_file():
            # Nothing was ever asked of the remote on this machine, so nothing to say: known
            # without importing teambrain-sync (a third of a second, on the first answer's path).
            return False
        try:
            from teambrain_sync import check_remote_head

            moved = check_remote_head(repo_root, self.machine.proposals, ask=ask)
        except (TeambrainError, OSError):
            return False
        if moved is None:
            return False
        print(f"teambrain: {moved.message('serving what it last fetched')}", file=sys.stderr)
        return True

    # -- fetching the default branch (off unless this machine says) --------------------------

    def _start_fetching(self, layout: BrainLayout) -> None:
        """With ``[serve] fetch_minutes`` set on this machine, fetch the default branch alone
        that often on a thread of its own, each fetch within ``fetch_timeout_s``: a teammate's
        merged memory is served on the first call after the fetch."""
        from teambrain_retrieval import live_settings

        settings = live_settings()
        if not settings.live or settings.fetch_minutes <= 0 or self._fetching is not None:
            return
        self._fetching = threading.Thread(
            target=self._fetch_loop,
            args=(layout.repo_root, settings.fetch_minutes * 60, settings.fetch_timeout_s),
            name="teambrain-fetch", daemon=True,
        )  # fmt: skip
        self._fetching.start()

    def _fetch_loop(self, repo_root: Path, every_s: float, timeout_s: float) -> None:
        from teambrain_retrieval import fetch_default_branch

        said: str | None = None
        while True:  # at start, then every ``every_s``
            try:
                failed = fetch_default_branch(repo_root, timeout=timeout_s)
            except Exception as exc:  # a background nicety must never take the server down
                failed = str(exc)
            if failed is not None and failed != said:
                print(f"teambrain: fetching the default branch failed: {failed}", file=sys.stderr)
                # a branch the remote no longer has: renamed? ask the remote, say what it is now
                self._say_default_branch_moved(repo_root, ask=True)
            said = failed
            if self._stop.wait(every_s):
                return

    def default_k(self) -> int:
        """How many results ``memory_search`` returns when the agent does not say: the brain's
        ``retrieval.k``."""
        try:
            return load_brain_config(self.layout()).retrieval.k
        except TeambrainError:
            return DEFAULT_SEARCH_K  # the call itself reports what is wrong with the brain

    def prepare(self) -> None:
        """Open the brain and read what the first answer needs (the index brought up to date,
        the required memories and their staleness, the session's situation), so an agent's
        first ``memory_context`` does not wait for it. The embedding model is not loaded here:
        the first answer comes from paths and keywords and loads it afterwards. Never raises:
        the call that needs what failed reports it."""
        try:
            layout = self.layout()
            from teambrain_retrieval import gather_situation

            with self._lock:
                self.retriever().prepare()
            gather_situation(layout.repo_root)  # git's answers that outlive this call
        except Exception:  # a head start only: the first call reports any problem itself
            return

    # -- the four tools ----------------------------------------------------------------------

    def context(self) -> MemoryContextResult:
        """Required memories, then the most relevant advisory ones for this session's
        situation, within the brain's token budget."""
        layout = self.layout()
        from teambrain_retrieval import gather_situation

        self.answered()  # a load still waiting for an answer to be written starts now
        with self._lock:
            retriever = self.retriever()
            pack = retriever.context(gather_situation(layout.repo_root), load_model=False)
            result = pack.to_result()
            commit = retriever.commit
        if pack.model_to_load is not None:
            text = pack.model_to_load or None
            self._after(lambda: self._load_model(retriever, text))
        ids = [memory.id for memory in (*result.required, *result.relevant)]
        self._record_retrieved(
            layout, ids, commit=commit, via="context", token_estimate=result.token_estimate
        )
        self._observe(retriever)
        if result.coverage is not None:
            self._embed_in_background(retriever)
        return result

    def search(self, query: str, k: int) -> MemorySearchResult:
        """The ``k`` memories that best match ``query``, best first; then up to three free-form
        notes that match too (a source of their own, never required)."""
        layout = self.layout()
        with self._lock:
            retriever = self.retriever()
            hits = retriever.search(query, k)
            notes = retriever.search_notes(query, (), min(k, NOTES_K))
            result = MemorySearchResult(
                results=[hit.to_result() for hit in hits],
                coverage=retriever.coverage(),
                notes=[note.to_result() for note in notes] or None,
            )
            commit = retriever.commit
        self._record_retrieved(layout, [m.id for m in result.results], commit=commit, via="search")
        self._observe(retriever)
        if result.coverage is not None:
            self._embed_in_background(retriever)
        return result

    # -- after an answer is out ---------------------------------------------------------------

    def answered(self) -> None:
        """The server wrote an answer: start what waited for it (the embedding model's load
        after a first ``memory_context`` that did without it), on a thread of its own. The
        load's imports would otherwise hold the interpreter while the answer is serialised and
        written: on a busy machine, about a second more for the first answer."""
        with self._after_lock:
            action, self._after_answer = self._after_answer, None
        if action is not None:
            threading.Thread(target=action, name="after-answer", daemon=True).start()

    def _load_model(self, retriever: Retriever, text: str | None) -> None:
        with self._lock:  # beside answers, never inside one
            retriever.warm_up(text)

    def _after(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the answer being built is written (:meth:`answered`), at the
        next call, or after :data:`LOAD_AFTER_ANSWER_S` at the latest."""
        with self._after_lock:
            self._after_answer = action
        timer = threading.Timer(LOAD_AFTER_ANSWER_S, self.answered)
        timer.daemon = True
        timer.start()

    # -- embedding what a partial answer could not -------------------------------------------

    def _embed_in_background(self, retriever: Retriever) -> None:
        """Embed the memories a partial answer found by keywords only, between answers, on a
        thread of its own (one at a time): the next calls cover more without waiting."""
        with self._lock:
            if self._embedding is not None and self._embedding.is_alive():
                return
            self._embedding = threading.Thread(
                target=self._embed_rest, args=(retriever,), name="teambrain-embed", daemon=True
            )
            self._embedding.start()

    def _embed_rest(self, retriever: Retriever) -> None:
        while True:
            with self._lock:  # answers and slices take turns
                if self._retriever is not retriever:
                    return  # brain.yaml changed: the new retriever embeds for itself
                try:
                    done = retriever.embed_pending(EMBED_SLICE_S)
                except Exception:  # a background nicety must never take the server down
                    retriever.embeds_in_background = False  # answers embed for themselves
                    return
            if not done:
                self._observe(retriever)
                return
            time.sleep(0.01)  # an answer waiting for the lock gets it

    def propose(self, draft: MemoryDraft | RecordDraft | dict[str, Any]) -> MemoryProposeResult:
        """Validate ``draft`` and queue it in the local spool; the repository is not touched."""
        from teambrain_capture import make_event, queue_candidate, repo_keys
        from teambrain_sync import cached_pull_requests, check_draft

        layout = self.layout()
        if isinstance(draft, RecordDraft) or (isinstance(draft, dict) and "nodeKind" in draft):
            return self._propose_record(layout, draft)
        keys = self.session(layout)
        repo = self._repo(layout)
        # Pull requests as `tb propose` last saw them: the server never reaches the network.
        pulls = cached_pull_requests(self.machine.proposals, repo) if repo is not None else None
        verdict = check_draft(repo, layout, draft, pulls=pulls)
        if verdict.injection:
            raise ValidationFailure(f"draft rejected: {verdict.note()}")
        candidate, _created = queue_candidate(
            verdict.draft, "agent", sid=keys.sid if keys else None,
            # filed under the current key, which is recorded for when the remote changes
            repo=repo_keys(layout.repo_root, self.machine).key, machine=self.machine,
        )  # fmt: skip
        if keys is not None:
            data = {
                "draft": candidate.draft.model_dump(mode="json", by_alias=True, exclude_none=True),
                "candidate_id": candidate.candidate_id,
            }
            self._append(make_event("candidate_proposed", data, keys))
        holder = verdict.holder
        return MemoryProposeResult(
            candidate_id=candidate.candidate_id,
            duplicate_of=holder.id if holder is not None else None,
            note=verdict.note(),
        )

    def _propose_record(
        self, layout: BrainLayout, draft: RecordDraft | dict[str, Any]
    ) -> MemoryProposeResult:
        """A graph record draft: checked against the brain's ontology and graph (as the
        checkout holds them), then queued in ``spool/records/`` for ``tb propose --all``."""
        from pydantic import ValidationError
        from teambrain_capture import queue_record, repo_keys
        from teambrain_schema.frontmatter import describe_validation_error
        from teambrain_schema.graph_lint import check_record
        from teambrain_schema.yaml import dump_yaml

        try:
            record = draft if isinstance(draft, RecordDraft) else RecordDraft.model_validate(draft)
        except ValidationError as exc:
            raise ValidationFailure(f"draft: {describe_validation_error(exc)[0]}") from None
        relpath, problems = check_record(layout, dump_yaml(record.as_yaml_data()))
        errors = [v.format() for v in problems if v.severity == "error"]
        if errors:
            more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
            raise ValidationFailure(f"record rejected by the ontology: {errors[0]}{more}")
        keys = self.session(layout)
        candidate, created = queue_record(
            record, "agent", sid=keys.sid if keys else None,
            repo=repo_keys(layout.repo_root, self.machine).key, machine=self.machine,
        )  # fmt: skip
        note = (
            f"graph record {record.id} queued for {relpath}; a human proposes it with "
            "`tb propose --all`"
        )
        return MemoryProposeResult(
            candidate_id=candidate.candidate_id,
            note=note if created else f"already queued: {note}",
        )

    def _repo(self, layout: BrainLayout) -> GitRepo | None:
        """The git repository of the brain (None when git cannot open it: no open proposals)."""
        from teambrain_sync import open_repo

        try:
            return open_repo(layout.repo_root)
        except EnvironmentProblem:
            return None

    def feedback(self, memory_id: str, useful: bool) -> MemoryFeedbackResult:
        """Record whether memory ``memory_id`` helped, under ``user/`` on this machine."""
        from teambrain_capture import record_feedback

        layout = self.layout()
        if not self.knows(layout, memory_id):
            raise UserError(
                f"unknown memory id {memory_id}: no memory with that id in {layout.repo_root} "
                "(use an id from memory_context or memory_search)"
            )
        keys = self.session(layout)
        record_feedback(memory_id, useful, sid=keys.sid if keys else None, machine=self.machine)
        return MemoryFeedbackResult()

    # -- helpers -----------------------------------------------------------------------------

    def knows(self, layout: BrainLayout, memory_id: str) -> bool:
        """True when ``memory_id`` names a memory of this brain (active or retired) or one the
        retriever serves (e.g. from the org brain)."""
        inside = layout.leads_out(layout.memories) is None  # never look through a link out
        if inside and any(layout.memories.glob(f"*/{memory_id}-*.md")):
            return True
        if layout.leads_out(layout.retired) is None and any(layout.retired.glob(f"{memory_id}-*.md")):  # fmt: skip
            return True
        with self._lock:
            return self.retriever().memory(memory_id) is not None

    def session(self, layout: BrainLayout) -> JoinKeys | None:
        """The agent session running in this repository, when a capture hook opened one. With a
        session id from the launching tool, only that session counts."""
        from teambrain_capture import find_active_session, safe_sid

        if not self.session_hints:
            return find_active_session(self.machine, layout.repo_root)
        for hint in self.session_hints:
            wanted = {hint, safe_sid(hint)}
            keys = find_active_session(self.machine, layout.repo_root, sid=safe_sid(hint))
            if keys is not None and keys.sid in wanted:
                return keys
        return None

    def _record_retrieved(
        self,
        layout: BrainLayout,
        ids: list[str],
        *,
        commit: str | None,
        via: str,
        token_estimate: int | None = None,
    ) -> None:
        from teambrain_capture import make_event

        keys = self.session(layout)
        if keys is None:
            return
        data: dict[str, Any] = {"ids": ids, "via": via}
        if commit:
            data["commit"] = commit
        if token_estimate is not None:
            data["token_estimate"] = token_estimate
        self._append(make_event("memory_retrieved", data, keys))

    def _append(self, event: dict[str, Any]) -> None:
        from teambrain_capture import append_event

        try:
            append_event(self.machine, event)
        except OSError:
            # The agent's answer matters more than the record of it.
            return

    def _observe(self, retriever: Retriever) -> None:
        if self.heartbeat is not None:
            self.heartbeat.observe(brain_commit=retriever.commit, index=index_freshness(retriever))


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def index_freshness(retriever: Retriever) -> dict[str, Any]:
    """What the heartbeat says about the index: size, embedder, when it last caught up."""
    stats = retriever.stats()
    return {
        "commit": retriever.commit,
        "documents": stats.documents,
        "vectors": stats.vectors,
        "embedder": stats.embedder,
        "last_indexed": stats.last_indexed.isoformat() if stats.last_indexed else None,
        "degraded": stats.degraded,
    }


def build_service(
    repo: Path | None = None,
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    machine: MachineLayout | None = None,
    heartbeat: bool = True,
    retriever_factory: RetrieverFactory = open_default_retriever,
) -> BrainService:
    """The service for ``repo`` (default: the current directory's repository, else an agent
    tool's project directory), with its heartbeat writer: what a server serves, built without
    the MCP SDK so the brain can open while the SDK loads."""
    from teambrain_schema.paths import machine_layout

    from ._meta import package_version
    from ._target import resolve_target, session_hints

    target = resolve_target(repo, cwd=cwd, env=env)
    home = machine or machine_layout()
    writer = (
        HeartbeatWriter(
            home,
            repo=str(target.repo_root) if target.repo_root else None,
            version=package_version(),
        )
        if heartbeat
        else None
    )
    return BrainService(
        target,
        home,
        session_hints=session_hints(env),
        heartbeat=writer,
        retriever_factory=retriever_factory,
    )
