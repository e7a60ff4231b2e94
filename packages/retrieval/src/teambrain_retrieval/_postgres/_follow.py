"""Following the shared index from a running server: a merge reaches it without a fetch.

CI's ``tb reindex --shared`` ends with a Postgres notification (:func:`notify`) on the
:data:`CHANNEL` channel whose payload is only a digest of the brain's id (:func:`brain_token`):
any role that may connect can listen to any channel, so the payload names no brain and no
commit — a listener reads the commit from ``brains``, which row-level security guards.

A server (``tb serve``) runs a :class:`SharedFollower` on a thread of its own: it LISTENs,
and at start, on each notification for its brain and after every reconnect (a notification
missed while disconnected is caught), reads the brain's commit and, when it moved, what the
brain's memory files are at that commit (:class:`SharedSnapshot`): for each file, the blob
this clone already has when the document was written from a commit it has (``git cat-file
--batch-check`` of ``<commit>:<path>``), else the file rendered from the stored document.
The live view (:class:`~teambrain_retrieval._live.LiveView`) serves that snapshot in place of
the default branch as last fetched whenever the shared index is ahead of it, with this
checkout's own changes still on top. Nothing here is on an answer's path: answers read the
last snapshot from memory; faults are said once, then retried with backoff.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._index._live import SharedSnapshot
from ._connect import SharedIndexUnavailable, connect, describe
from ._schema import SCHEMA, SCHEMA_VERSION, schema_version

CHANNEL = "teambrain_index"
_WAIT_S = 1.0  # how long one wait for notifications lasts (the stop flag is checked between)
_BACKOFF_MAX_S = 60.0
_TREES_MAX = 64  # commits whose trees a snapshot reads from this clone's git
_STATEMENT_MS = 120_000  # a statement of the follower's own (it never blocks an answer)
_RETIRED_TEXT = "retired"  # a retired memory's stored tombstone has no title or body


def brain_token(brain: str) -> str:
    """What a notification carries for ``brain``: a digest, not the name."""
    return hashlib.sha256(brain.encode("utf-8")).hexdigest()[:32]


def notify(conn: Any, brain: str) -> None:
    """Tell every listening server that ``brain``'s index moved (sent at once: autocommit)."""
    conn.execute("SELECT pg_notify(%s, %s)", [CHANNEL, brain_token(brain)])


def render_document(doc_json: str, retired: bool) -> bytes | None:
    """A memory file with the stored document's content (None: it does not make one).

    Read back, it gives the same document: same id, title, body, tags, class, scope,
    priority, dates and supersedes; a retired memory (a tombstone) gets a placeholder text.
    """
    from pydantic import ValidationError
    from teambrain_schema import IndexableDoc, MemoryFrontMatter
    from teambrain_schema.frontmatter import new_memory_text

    try:
        doc = IndexableDoc.model_validate_json(doc_json)
        front = MemoryFrontMatter.model_validate(
            {
                "id": doc.id,
                "class": doc.class_,
                "scope": doc.scope,
                "status": "retired" if retired else doc.status,
                "priority": doc.priority,
                "title": doc.title or _RETIRED_TEXT,
                "created": doc.created,
                "evidence": doc.evidence,
                "supersedes": doc.supersedes,
                "tags": doc.tags,
                "ttl_days": doc.ttl_days,
            }
        )
    except (ValidationError, ValueError):
        return None
    return new_memory_text(front, doc.body or _RETIRED_TEXT).encode("utf-8", "surrogateescape")


def servable_path(path: str) -> bool:
    """A path the live view may write: a ``.md`` file under the brain's ``memories/`` or
    ``retired/``, relative, without ``.``/``..`` steps or control characters."""
    from teambrain_schema import BRAIN_DIRNAME

    parts = path.split("/")
    return (
        len(parts) >= 3
        and parts[0] == BRAIN_DIRNAME
        and parts[1] in ("memories", "retired")
        and path.endswith(".md")
        and all(part not in ("", ".", "..") for part in parts)
        and not any(ord(char) < 32 or char == "\\" for char in path)
    )


def _local_blobs(repo_root: Path, wanted: list[tuple[str, str]]) -> dict[str, str]:
    """path → blob id of ``path`` in ``commit`` for the (commit, path) pairs this clone's git
    has: one ``git ls-tree`` per commit (``<commit>:<path>`` lookups scan a folder's entries
    one by one — quadratic in a folder of 20,000 memories). The :data:`_TREES_MAX` commits
    holding most documents are looked up; the rest are transferred."""
    from teambrain_kit.git import git_output

    from .._index._live import MEMORY_PATHS

    by_commit: dict[str, list[str]] = {}
    for commit, path in wanted:
        by_commit.setdefault(commit, []).append(path)
    found: dict[str, str] = {}
    for commit in sorted(by_commit, key=lambda c: -len(by_commit[c]))[:_TREES_MAX]:
        out = git_output(
            ["ls-tree", "-r", "-z", "--full-tree", commit, "--", *MEMORY_PATHS],
            cwd=repo_root, timeout=60,
        )  # fmt: skip
        if out is None:
            continue  # a commit this clone does not have (not fetched yet)
        tree: dict[str, str] = {}
        for record in out.split(b"\0"):
            meta, tab, raw = record.partition(b"\t")
            parts = meta.split()
            if tab and len(parts) == 3 and parts[1] == b"blob":
                tree[raw.decode("utf-8", "surrogateescape")] = parts[2].decode("ascii")
        for path in by_commit[commit]:
            if path in tree:
                found[path] = tree[path]
    return found


def read_snapshot(conn: Any, brain: str, repo_root: Path) -> SharedSnapshot | None:
    """The brain's files at the commit the shared index was last filled from (None: never
    filled). Documents this clone can read from its own git are not transferred."""
    from .._git import blob_id

    row = conn.execute(f"SELECT commit FROM {SCHEMA}.brains WHERE brain = %s", [brain]).fetchone()
    if row is None or not row[0]:
        return None
    commit = str(row[0])
    rows = conn.execute(
        f"SELECT path, commit, retired FROM {SCHEMA}.docs WHERE brain = %s AND source = 'memory'",
        [brain],
    ).fetchall()
    rows = [(str(p), c, r) for p, c, r in rows if servable_path(str(p))]
    local = _local_blobs(repo_root, [(str(c), str(p)) for p, c, _r in rows if c])
    files: dict[str, tuple[str, bytes | None]] = {p: (blob, None) for p, blob in local.items()}
    missing = [str(p) for p, _c, _r in rows if p not in local]
    sha256 = any(len(blob) == 64 for blob in local.values())
    for start in range(0, len(missing), 1000):
        for path, doc_json, retired in conn.execute(
            f"SELECT path, doc, retired FROM {SCHEMA}.docs "
            "WHERE brain = %s AND source = 'memory' AND path = ANY(%s)",
            [brain, missing[start : start + 1000]],
        ).fetchall():
            data = render_document(str(doc_json), bool(retired))
            if data is not None:
                files[str(path)] = (blob_id(data, sha256=sha256), data)
    return SharedSnapshot(commit, files)


class SharedFollower:
    """Keeps :attr:`snapshot` at the shared index's latest commit for one brain, on a thread
    (see the module docstring). ``on_change`` is called after a new snapshot is published."""

    def __init__(
        self,
        url: str,
        brain: str,
        repo_root: Path,
        *,
        timeout_s: float,
        warn: Callable[[str], None],
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._url = url
        self.brain = brain
        self._token = brain_token(brain)
        self._repo_root = repo_root
        self._timeout_s = timeout_s
        self._warn = warn
        self._on_change = on_change
        self.snapshot: SharedSnapshot | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._said: str | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="teambrain-shared-index", daemon=True
            )
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _say(self, reason: str) -> None:
        if self._stop.is_set():  # stopping: a connection closed under the last wait is no news
            return
        if reason != self._said:
            self._said = reason
            self._warn(f"not following the shared index ({reason}); retrying in the background")

    def _load(self, conn: Any) -> None:
        found = schema_version(conn)
        if found != SCHEMA_VERSION:
            raise SharedIndexUnavailable(
                f"its schema is version {found}, this teambrain reads {SCHEMA_VERSION}"
            )
        row = conn.execute(
            f"SELECT commit FROM {SCHEMA}.brains WHERE brain = %s", [self.brain]
        ).fetchone()
        commit = str(row[0]) if row and row[0] else None
        if commit is None or (self.snapshot is not None and self.snapshot.commit == commit):
            return
        snapshot = read_snapshot(conn, self.brain, self._repo_root)
        if snapshot is not None:
            self.snapshot = snapshot
            if self._on_change is not None:
                self._on_change()

    def _run(self) -> None:
        import psycopg

        backoff = 1.0
        while not self._stop.is_set():
            conn = None
            try:
                conn = connect(self._url, timeout_s=self._timeout_s)
                # Off the answer path: reading a large brain's file list may take longer than
                # the deadline answers get, but never forever.
                conn.execute(f"SET statement_timeout = {_STATEMENT_MS}")
                conn.execute(f"LISTEN {CHANNEL}")
                self._load(conn)  # also what a notification missed while away would say
                self._said, backoff = None, 1.0
                while not self._stop.is_set():
                    moved = False
                    # A notification is acted on at once (stop_after): waiting out the rest
                    # of the second left a merge unserved that long.
                    for note in conn.notifies(timeout=_WAIT_S, stop_after=1):
                        moved = moved or note.payload == self._token
                    if moved:
                        self._load(conn)
            except SharedIndexUnavailable as exc:
                self._say(exc.reason)
            except psycopg.Error as exc:
                self._say(describe(exc))
            except Exception as exc:  # a background nicety must never take the server down
                self._say(f"{type(exc).__name__}: {exc}")
            finally:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
            if self._stop.wait(backoff):
                return
            backoff = min(backoff * 2, _BACKOFF_MAX_S)
