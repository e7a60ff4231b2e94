"""Filling the shared index from a brain's files: what CI's ``tb reindex --shared`` runs on the
default branch after a merge.

Idempotent and incremental: every memory file is read (cheap), but only documents whose stored
form changed are written, only texts without a vector from this embedder are embedded, and
files gone from the brain are removed. The brain is recorded with the commit it was filled
from and the embedder's name, which readers compare with their own; then every running server
that follows the shared index is notified (``NOTIFY``, :mod:`._follow`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._index._scan import read_doc, scan_stamps
from .._index._store import ServedBrain
from ._backend import PostgresBackend
from ._follow import notify
from ._schema import SCHEMA, migrate

if TYPE_CHECKING:
    from collections.abc import Callable

    from teambrain_kit.paths import BrainLayout

    from .._index._embedders import Embedder


@dataclass
class FillReport:
    """What one fill did."""

    brain: str
    commit: str | None
    embedder: str
    migrated: list[int]
    documents: int = 0
    written: int = 0
    removed: int = 0
    embedded: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _git(layout: BrainLayout, *args: str) -> str | None:
    from teambrain_kit.git import run_git
    from teambrain_schema import TeambrainError

    try:
        done = run_git(list(args), cwd=layout.repo_root, check=False, timeout=30)
    except TeambrainError:
        return None
    text = done.stdout.decode("utf-8", "replace").strip()
    return text or None if done.returncode == 0 else None


def shared_brain_id(layout: BrainLayout) -> str:
    """The brain's id in a shared index, the same on every clone: ``host/owner/name`` of its
    ``origin`` remote, else the repository folder's name (``local/<name>``)."""
    from teambrain_kit.gitdir import remote_slug

    url = _git(layout, "config", "--get", "remote.origin.url")
    slug = remote_slug(url) if url else None
    if slug is not None:
        return "/".join(slug)
    return f"local/{layout.repo_root.resolve().name}"


def fill_shared_index(
    conn: Any,
    layout: BrainLayout,
    embedder: Embedder | None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> FillReport:
    """Migrate the schema, then bring the brain's documents in the shared index up to date
    with its files at HEAD (see the module docstring)."""
    started = time.perf_counter()
    brain = shared_brain_id(layout)
    commit = _git(layout, "rev-parse", "HEAD")
    report = FillReport(brain, commit, embedder.name if embedder else "none", migrate(conn))
    backend = PostgresBackend(conn, [ServedBrain(brain)], embedder)
    docs = []
    for relpath in sorted(scan_stamps(layout)):
        read = read_doc(layout, relpath, brain)
        if read.doc is None:
            report.problems.append(f"{relpath}: {read.problem}")
        else:
            docs.append(read.doc)
    report.documents = len(docs)
    on_disk = {doc.path for doc in docs}
    stored = {
        path
        for (path,) in conn.execute(
            f"SELECT path FROM {SCHEMA}.docs WHERE brain = %s AND source = 'memory'", [brain]
        ).fetchall()
    }
    report.removed = backend.remove_paths(brain, sorted(stored - on_disk))
    report.written = backend.upsert(docs, commit=commit)
    report.embedded = backend.ensure_vectors(progress)
    backend.mark_indexed(brain, commit)
    notify(conn, brain)  # after the brain's commit is recorded: a listener reads it next
    report.seconds = time.perf_counter() - started
    return report
