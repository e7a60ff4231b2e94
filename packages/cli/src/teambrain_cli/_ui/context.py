"""What one ``tb ui`` run serves: the repository, its brain, this machine's home, what it keeps
between pages (the checkout's retriever and listing, a few past brains for time travel), and
the outcomes of actions waiting to be shown.

Pages run on worker threads; every service call goes through :meth:`UiContext.locked`, one at a
time, as CLI verbs would run them (a person clicks; nothing here needs parallel answers).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_kit.paths import BrainLayout, MachineLayout

if TYPE_CHECKING:
    from teambrain_capture import RepoKeys
    from teambrain_kit.citation_checker import CitationChecker
    from teambrain_retrieval import Catalog, Retriever
    from teambrain_sync import ResolvedCommit

    from .._browse import BrainListing, BrainView

# Past brains kept open at once (each a snapshot on disk and, once searched, an index in memory).
MAX_PAST_BRAINS = 3
MAX_RESULTS = 32


class Browsed:
    """One brain's listing as the brain view shows it: every row from the index's catalog,
    and the reasons memories may be stale, worked out for the rows a page shows (for all of
    them when the stale filter asks) and kept."""

    def __init__(self, view: BrainView, retriever: Retriever) -> None:
        from teambrain_kit.citation_checker import CitationChecker
        from teambrain_retrieval import brain_catalog

        from .._browse import list_indexed

        self.view = view
        self.catalog: Catalog = brain_catalog(retriever)
        self.checker: CitationChecker = CitationChecker(view.repo_root, commit=view.commit)
        self.stale: dict[str, tuple[str, ...]] = {}
        self.checked: set[str] = set()
        self.listing: BrainListing = list_indexed(view, self.catalog)

    def check(self, ids: set[str]) -> None:
        """Work out the stale reasons of ``ids`` not checked yet."""
        from .._browse import stale_reasons

        todo = ids - self.checked
        if todo:
            self.stale.update(stale_reasons(self.view, self.catalog, todo, checker=self.checker))
            self.checked |= todo

    def check_all(self) -> None:
        self.check({entry.id for entry in self.catalog.entries})


# How long Ctrl-C waits for a page being prepared before tb ui ends without it (UiContext.stop).
STOP_WAIT_S = 2.0


@dataclass
class PastBrain:
    """A brain of a past commit, open for time travel: its snapshot, listing and retriever."""

    commit: ResolvedCommit
    view: BrainView
    stack: contextlib.ExitStack
    browsed: Browsed | None = None
    retriever: Retriever | None = None


@dataclass
class UiContext:
    """Everything the pages of one run share."""

    layout: BrainLayout
    machine: MachineLayout
    # the repository's keys in the spool: its current one and those it was filed under before
    # its remote changed (see teambrain_capture.repo_keys)
    repo_keys: RepoKeys
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    port: int = 0
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _retriever: Retriever | None = None
    _browsed: Browsed | None = None
    _browsed_state: object = None
    _past: OrderedDict[str, PastBrain] = field(default_factory=OrderedDict)
    _results: OrderedDict[str, Any] = field(default_factory=OrderedDict)

    @property
    def repo_root(self) -> Path:
        return self.layout.repo_root

    @property
    def repo_key(self) -> str | None:
        """The repository's current key in the spool."""
        return self.repo_keys.key

    @property
    def base(self) -> str:
        """The path prefix every page lives under (the per-run secret)."""
        return f"/{self.secret}"

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the one lock service calls run under."""
        with self._lock:
            yield

    # ------------------------------------------------------------------ the brain now

    def retriever(self) -> Retriever:
        """The checkout's retriever (opened once; every query refreshes it, as the CLI's)."""
        with self._lock:
            if self._retriever is None:
                from teambrain_retrieval import RetrieverOptions, open_retriever

                quiet = RetrieverOptions(warn=lambda _message: None)  # the page says what matters
                self._retriever = open_retriever(self.layout, quiet)
            return self._retriever

    def view(self) -> BrainView:
        from .._browse import BrainView

        return BrainView(self.layout, self.repo_root)

    def listing(self) -> Browsed:
        """Every memory of the checkout's brain as ``tb list --status all`` lists it, from the
        index (refreshed first, as a search is); made again only when the brain or the
        repository changed since the last page. Stale reasons are filled in on demand."""
        from teambrain_kit.gitdir import git_state_stamps

        with self._lock:
            touched = self.retriever().refresh().touched
            state = git_state_stamps(str(self.repo_root))
            if touched or self._browsed is None or self._browsed_state != state:
                self._browsed = Browsed(self.view(), self.retriever())
                self._browsed_state = state
            return self._browsed

    # ------------------------------------------------------------------ time travel

    def past(self, commit: ResolvedCommit) -> PastBrain:
        """The brain at ``commit``, materialised once and kept for the next pages."""
        from .._browse import open_view

        with self._lock:
            found = self._past.get(commit.sha)
            if found is not None:
                self._past.move_to_end(commit.sha)
                return found
            stack = contextlib.ExitStack()
            view = stack.enter_context(open_view(self.repo_root, ref=commit.sha))
            past = PastBrain(commit, view, stack)
            self._past[commit.sha] = past
            while len(self._past) > MAX_PAST_BRAINS:
                _, oldest = self._past.popitem(last=False)
                _close_past(oldest)
            return past

    def past_listing(self, past: PastBrain) -> Browsed:
        """Every memory of the past brain, from the index ``--ref``/``--at`` build for it."""
        with self._lock:
            if past.browsed is None:
                past.browsed = Browsed(past.view, self.past_retriever(past))
            return past.browsed

    def past_retriever(self, past: PastBrain) -> Retriever:
        """Search over the past brain: the index ``--ref``/``--at`` build for it."""
        from .._console.travel import snapshot_retriever

        with self._lock:
            if past.retriever is None:
                past.retriever = snapshot_retriever(past.view.layout, past.commit.sha, self.repo_root)  # fmt: skip
            return past.retriever

    # ------------------------------------------------------------------ action outcomes

    def remember(self, result: Any) -> str:
        """Keep an action's outcome for the page the browser is sent to next; its key."""
        key = secrets.token_urlsafe(8)
        with self._lock:
            self._results[key] = result
            while len(self._results) > MAX_RESULTS:
                self._results.popitem(last=False)
        return key

    def recall(self, key: str | None) -> Any:
        """An action's outcome kept by :meth:`remember`, or None."""
        if not key:
            return None
        with self._lock:
            return self._results.get(key)

    def stop(self, wait_s: float = STOP_WAIT_S) -> bool:
        """What Ctrl-C does before the process ends: remove the snapshots of past brains,
        waiting at most ``wait_s`` for a call holding the lock. Nothing here waits longer: a
        page being prepared may hold the lock for minutes (the first page's warm-up waits up
        to 300 s for another process's work on the index) and closing a retriever waits for
        its build, so the open indexes are left to the process's exit, where SQLite undoes an
        unfinished write. False when a call still held the lock: the caller then ends the
        process itself rather than let the interpreter's exit wait on that call's thread."""
        if self._lock.acquire(timeout=wait_s):
            try:
                while self._past:
                    _, past = self._past.popitem()
                    past.stack.close()
            finally:
                self._lock.release()
            return True
        for past in list(self._past.values()):
            with contextlib.suppress(Exception):  # a request may be using it: it ends too
                past.stack.close()
        return False


def _close_past(past: PastBrain) -> None:
    if past.retriever is not None:
        past.retriever.close()
    past.stack.close()
