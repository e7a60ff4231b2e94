"""A newcomer's first answers from the shared index, while this machine's own index is built.

A clone whose local index was never built would parse every memory file before its first
answer (about 50 s at 20,000 memories). With the shared index usable here — approved, its URL
set, reachable within ``retrieval.timeout_s``, at this teambrain's schema version, filled for
this brain by the same embedder — :class:`SharedFirst` answers instead, in a few queries:

* the brain's memories as CI indexed them, ranked by :class:`~._backend.PostgresBackend` with
  the served rule's filters inside each query, every result naming CI's commit;
* this developer's own memory files CI has not indexed (changed, added, retired or deleted
  since the commit both share: committed on a branch, staged or not) read from the files, on
  top: their shared copies are hidden, and the files themselves are ranked by their words and
  fused with the shared ranking (:func:`~.._search._fusion.fuse_rrf`); they name no commit
  unless HEAD holds them exactly as they are.

Anything the first answers cannot serve this way (path matching, the graph, notes, time
travel, an org brain) waits for the local index, which the retriever builds meanwhile.
Every fault raises :class:`~._connect.SharedIndexUnavailable` with a one-line reason: the
retriever then answers as without a shared index.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from teambrain_schema import BRAIN_DIRNAME

from .._git import blob_id, head_blobs, head_commit
from .._index._scan import is_retired_path, read_doc
from .._index._store import DocRow, ServedBrain
from .._search._fusion import CANDIDATES, RRF_K, fuse_hybrid, fuse_rrf
from ._backend import PostgresBackend
from ._connect import SharedIndexUnavailable, connect, describe
from ._schema import SCHEMA, SCHEMA_VERSION, schema_version

if TYPE_CHECKING:
    from pathlib import Path

    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import IndexableDoc

    from .._index._embedders import Embedder, Vectors

# More files than this differing from CI's commit: the clone is not a newcomer's (reading
# them is the work the shared index saves); the local index answers.
MAX_OVERLAY_FILES = 500
MEMORY_FOLDERS = (f"{BRAIN_DIRNAME}/memories", f"{BRAIN_DIRNAME}/retired")
_GIT_TIMEOUT_S = 10.0


class NotANewcomer(SharedIndexUnavailable):
    """The shared index could answer, but this clone is not one its first answers suit (its
    own changes are too many, or git cannot tell them): the local index answers."""


def _git(root: Path, *args: str) -> bytes | None:
    from teambrain_kit.git import git_output

    return git_output(["-c", "core.quotePath=false", *args], cwd=root, timeout=_GIT_TIMEOUT_S)


def _sha(root: Path, *args: str) -> str | None:
    out = _git(root, *args)
    value = out.decode("ascii", "replace").strip() if out is not None else ""
    return value or None


def _paths(out: bytes | None) -> list[str]:
    from teambrain_kit.git import git_path

    if out is None:
        return []
    names = (git_path(raw) for raw in out.split(b"\0") if raw)
    return [name for name in names if name is not None]


def worktree_changes(root: Path) -> set[str] | None:
    """The memory files of the checkout at ``root`` that differ from HEAD (staged or not) or
    that git does not track; None when git cannot tell (no commit here). The two git runs (a
    stat, a walk of every memory file) run side by side."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="teambrain-git") as pool:
        changed = pool.submit(
            _git, root, "diff", "--name-only", "-z", "--no-renames", "HEAD", "--", *MEMORY_FOLDERS
        )
        untracked = pool.submit(
            _git, root, "ls-files", "-z", "--others", "--exclude-standard", "--", *MEMORY_FOLDERS
        )
        if changed.result() is None:
            return None
        return {*_paths(changed.result()), *_paths(untracked.result())}


def branch_changes(root: Path, indexed: str | None) -> set[str] | None:
    """The memory files HEAD changed since the commit it shares with what CI indexed at
    ``indexed`` (their merge base when this clone has that commit, else HEAD's and its
    upstream's, else none); None when git cannot tell."""
    head = head_commit(root)
    if head is None:
        return None
    base = None
    if indexed and _sha(root, "rev-parse", "--verify", "--quiet", f"{indexed}^{{commit}}"):
        base = _sha(root, "merge-base", head, indexed)
    if base is None:
        upstream = _sha(root, "rev-parse", "--verify", "--quiet", "@{upstream}")
        base = _sha(root, "merge-base", head, upstream) if upstream else None
    if base is None or base == head:
        return set()
    changed = _git(root, "diff", "--name-only", "-z", "--no-renames", base, head, "--",
                   *MEMORY_FOLDERS)  # fmt: skip
    return set(_paths(changed)) if changed is not None else None


def _doc_row(rowid: int, doc: IndexableDoc) -> DocRow:
    expires = None
    if doc.ttl_days is not None and doc.created is not None:
        import datetime as dt

        expires = (doc.created + dt.timedelta(days=doc.ttl_days)).isoformat()
    return DocRow(
        rowid=rowid, brain=doc.brain, source=doc.source or "memory", id=doc.id, path=doc.path,
        title=doc.title, body=doc.body, tags=list(doc.tags), memory_class=doc.class_,
        scope=doc.scope, status=doc.status, priority=doc.priority, retired=False,
        created=doc.created.isoformat() if doc.created else None, expires=expires,
        supersedes=list(doc.supersedes), doc_json=doc.model_dump_json(by_alias=True),
        content_hash=doc.content_hash,
    )  # fmt: skip


class SharedFirst:
    """First answers for one brain from the shared index (see the module docstring).

    Open it with :func:`open_shared_first`; ``backend`` ranks in PostgreSQL, ``overlay`` holds
    this developer's own memory files by (negative) rowid, ``commit`` is CI's.
    """

    def __init__(
        self,
        backend: PostgresBackend,
        layout: BrainLayout,
        commit: str | None,
        overlay: dict[int, DocRow],
        *,
        today: Callable[[], Any] | None = None,
        reconnect: Callable[[], Any] | None = None,
    ) -> None:
        self.backend = backend
        # A second connection, for the keyword half while the vector half waits for the
        # query's embedding (None: one connection, one half after the other).
        self._reconnect = reconnect
        self._keyword: PostgresBackend | None = None
        self.layout = layout
        self.commit = commit
        self.overlay = overlay
        self.brain = backend.brains[0]
        self._today = today
        self._head_blobs: dict[str, str | None] | None = None

    # ------------------------------------------------------------------ the store

    def docs(self, rowids: Sequence[int]) -> dict[int, DocRow]:
        """Documents by rowid: the shared index's (positive) and the overlay's (negative)."""
        found = self.backend.docs([r for r in rowids if r > 0])
        found.update({r: self.overlay[r] for r in rowids if r in self.overlay})
        return found

    def commit_of(self, path: str) -> str | None:
        """The commit a served file is cited at: CI's for the shared index's documents; for
        an overlay file, HEAD when HEAD holds it exactly so, else none (uncommitted)."""
        if path not in {doc.path for doc in self.overlay.values()}:
            return self.commit
        root = self.layout.repo_root
        if self._head_blobs is None:
            self._head_blobs = dict(head_blobs(root, *[d.path for d in self.overlay.values()]))
        committed = self._head_blobs.get(path)
        if committed is None:
            return None
        try:
            data = (root / path).read_bytes()
        except OSError:
            return None
        return (
            head_commit(root) if blob_id(data, sha256=len(committed) == 64) == committed else None
        )

    def read_commit(self) -> None:
        """Read the commit CI last filled the brain from (before each answer: a fill since
        the last one moves what the queries see, and so the commit results name); when it
        moved, count the brain's documents for BM25 again."""
        rows = self.backend._q(f"SELECT commit FROM {SCHEMA}.brains WHERE brain = %s", [self.brain])
        if rows and rows[0][0] != self.commit:
            self.commit = rows[0][0]
            for backend in (self.backend, self._keyword):
                if backend is not None:
                    backend.corpus = None  # counted again by the next keyword half

    # ------------------------------------------------------------------ ranking

    def _live_overlay(self) -> list[DocRow]:
        import datetime as dt

        from teambrain_schema.served import excluded_ids

        today = self.backend._today()
        entries = [
            (d.id, d.status, d.retired, d.supersedes,
             dt.date.fromisoformat(d.expires) if d.expires else None)
            for d in self.overlay.values()
        ]  # fmt: skip
        hidden = set(excluded_ids(entries, today))
        scopes = set(self.backend.served[0].scopes)
        return [
            d for d in self.overlay.values()
            if d.status == "active" and d.scope in scopes and d.id not in hidden
            and (d.expires is None or d.expires > today.isoformat())
        ]  # fmt: skip

    def _overlay_ranking(self, query: str) -> list[int]:
        """The overlay's documents holding the query's words, most (title words count
        double, tags one and a half) first."""
        from .._query import query_terms

        terms = set(query_terms(query))
        if not terms:
            return []
        scored = []
        for doc in self._live_overlay():
            score = (
                2.0 * len(terms & set(query_terms(doc.title)))
                + 1.5 * len(terms & set(query_terms(" ".join(doc.tags))))
                + len(terms & set(query_terms(doc.body)))
            )
            if score > 0:
                scored.append((-score, doc.path, doc.rowid))
        return [rowid for *_, rowid in sorted(scored)]

    def prepare(self) -> None:
        """What the first answer's keyword half would do first (a server calls it before any
        question): its connection opened, the brain's documents counted for BM25."""
        self._keyword_backend()

    def _keyword_backend(self) -> PostgresBackend:
        """The keyword half's backend (a connection of its own), the brain's documents
        counted for BM25 once per commit CI filled from (every document read: 70 ms at
        50,000), not by every search."""
        if self._keyword is None and self._reconnect is not None:
            b = self.backend
            self._keyword = PostgresBackend(
                self._reconnect(), b.served, b.embedder, today=self._today,
                hidden_paths=b.hidden_paths, hidden_ids=b.hidden_ids,
            )  # fmt: skip
        keyword = self._keyword or self.backend
        if keyword.corpus is None:
            keyword.corpus = keyword.count_corpus()
        return keyword

    def ranked(
        self, query: str, vector: Callable[[], Vectors | None], limit: int
    ) -> list[tuple[int, float]]:
        """(rowid, score) best first: the shared index's hybrid (keyword top-40 ∪ vector
        top-40, fused as the local index fuses them), with the overlay's matches fused in.
        ``vector()`` gives the query's embedding (None: keywords only); the keyword half runs
        on a connection of its own meanwhile (the model may still be loading)."""
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="teambrain-pg") as pool:
            keyword_half = pool.submit(
                lambda: [r for r, _ in self._keyword_backend().fts_ranking(query, CANDIDATES)]
            )
            found = vector()
            vectors = (
                self.backend.vector_ranking_for(found, CANDIDATES) if found is not None else None
            )
            keyword = keyword_half.result()
        shared = fuse_hybrid(keyword, vectors)
        own = self._overlay_ranking(query)
        if not own:
            return shared[:limit]
        return fuse_rrf([[rowid for rowid, _ in shared], own], k=RRF_K, depth=CANDIDATES)[:limit]

    def required(self) -> list[DocRow]:
        """Every live required memory: the shared index's and the overlay's."""
        order = {"decision": 0, "convention": 1, "map": 2, "learning": 3}
        docs = [*self.backend.required_docs(), *(d for d in self._live_overlay()
                                                if d.priority == "required")]  # fmt: skip
        docs.sort(key=lambda d: (order.get(d.memory_class or "", 9), d.created or "", d.id))
        return docs

    def count(self) -> int:
        """How many memories the first answers serve (live, in the shared index)."""
        params: dict[str, Any] = {}
        live = self.backend._live_clause(None, params)
        rows = self.backend._q(f"SELECT count(*) FROM {SCHEMA}.docs d WHERE {live}", params)
        return int(rows[0][0]) + len(self._live_overlay())

    def close(self) -> None:
        for backend in (self.backend, self._keyword):
            if backend is not None:
                with contextlib.suppress(Exception):  # a broken connection: nothing to add
                    backend.conn.close()


def open_shared_first(
    url: str,
    layout: BrainLayout,
    embedder: Embedder | None,
    scopes: Iterable[str],
    *,
    timeout_s: float,
    today: Callable[[], Any] | None = None,
) -> SharedFirst:
    """A :class:`SharedFirst` for the brain at ``layout``, or :class:`SharedIndexUnavailable`
    saying in one line why not (unreachable, slow, another schema or embedder, never filled,
    or this clone too far from CI's commit)."""
    import concurrent.futures

    # The checkout's own changes are listed (a stat of every memory file: a tenth of a second
    # at 50,000) while the driver loads and the shared index is asked.
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="teambrain-git")
    worktree = pool.submit(worktree_changes, layout.repo_root)
    pool.shutdown(wait=False)

    import psycopg

    from ._fill import shared_brain_id

    try:
        conn = connect(url, timeout_s=timeout_s)
    except SharedIndexUnavailable:
        worktree.cancel()
        raise
    try:
        found = schema_version(conn)
        if found != SCHEMA_VERSION:
            raise SharedIndexUnavailable(
                f"its schema is version {found}, this teambrain reads {SCHEMA_VERSION}"
            )
        brain = shared_brain_id(layout)
        row = conn.execute(
            f"SELECT embedder, commit FROM {SCHEMA}.brains WHERE brain = %s", [brain]
        ).fetchone()
        if row is None:
            raise SharedIndexUnavailable(f"brain {brain} was never filled by CI")
        filled_with, commit = row
        if embedder is not None and filled_with != embedder.name:
            raise SharedIndexUnavailable(
                f"it was filled with embedder {filled_with}, this machine uses {embedder.name}"
            )
        branch = branch_changes(layout.repo_root, commit)
        listed = worktree.result()
        changed = sorted(branch | listed) if branch is not None and listed is not None else None
        if changed is None:
            raise NotANewcomer("git cannot tell this clone's own memory changes")
        if len(changed) > MAX_OVERLAY_FILES:
            raise NotANewcomer(
                f"{len(changed)} memory files here differ from CI's commit (more than "
                f"{MAX_OVERLAY_FILES})"
            )
        overlay: dict[int, DocRow] = {}
        hidden_ids: set[str] = set()
        for relpath in changed:
            if is_retired_path(relpath) or not (layout.repo_root / relpath).is_file():
                continue
            read = read_doc(layout, relpath, brain)
            if read.doc is None:
                continue  # not served here either (the local index names it once built)
            overlay[-1 - len(overlay)] = _doc_row(-1 - len(overlay), read.doc)
            hidden_ids.add(read.doc.id)
            hidden_ids.update(read.doc.supersedes)
        backend = PostgresBackend(
            conn, [ServedBrain(brain, tuple(scopes))], embedder, today=today,
            hidden_paths=changed, hidden_ids=hidden_ids,
        )  # fmt: skip
    except SharedIndexUnavailable:
        conn.close()
        raise
    except psycopg.Error as exc:
        conn.close()
        raise SharedIndexUnavailable(describe(exc)) from None
    return SharedFirst(backend, layout, commit, overlay, today=today,
                       reconnect=lambda: connect(url, timeout_s=timeout_s))  # fmt: skip
