"""A developer's machine reading vectors from the shared index instead of embedding.

With ``retrieval.backend: postgres`` approved here, the local index asks the shared one for the
vectors of texts it has none for (:class:`SharedVectors`, the ``vector_source`` of
:class:`~teambrain_retrieval._embedding.Embeddings`) before embedding anything itself: what CI
embedded is never embedded again on a laptop. Ranking, filters, the local overlay of unmerged
memory files and ``--at`` time travel stay the local index's, so every answer still resolves
to the files and commit it came from.

Faults never stop an answer: unreachable, slower than ``retrieval.timeout_s``, a schema
version this teambrain does not read, or a brain filled with another embedder — each is said
once, in one line, and this machine embeds what it needs itself, as without a shared index.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._connect import SharedIndexUnavailable, connect
from ._schema import SCHEMA, SCHEMA_VERSION, schema_version

if TYPE_CHECKING:
    from teambrain_kit.paths import BrainLayout

FETCH_CHUNK = 1000
FALLBACK = "embedding on this machine instead"


class SharedVectors:
    """Vectors by embed key from the shared index, for one brain and embedder (see module)."""

    def __init__(
        self,
        url: str,
        layout: BrainLayout,
        embedder: str,
        *,
        timeout_s: float,
        warn: Callable[[str], None],
    ) -> None:
        self._url = url
        self._layout = layout
        self._embedder = embedder
        self._timeout_s = timeout_s
        self._warn = warn
        self._conn: Any = None
        self.off: str | None = None  # why the shared index is not used (None: it is)
        self.fetched = 0

    def _give_up(self, reason: str) -> dict[str, Any]:
        self.off = reason
        self._warn(f"shared index not used ({reason}): {FALLBACK}")
        return {}

    def _close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):  # a broken connection: nothing to add
                self._conn.close()
            self._conn = None

    def _open(self) -> Any:
        from ._fill import shared_brain_id

        conn = connect(self._url, timeout_s=self._timeout_s)
        self._conn = conn
        found = schema_version(conn)
        if found != SCHEMA_VERSION:
            raise SharedIndexUnavailable(
                f"its schema is version {found}, this teambrain reads {SCHEMA_VERSION}"
            )
        brain = shared_brain_id(self._layout)
        row = conn.execute(
            f"SELECT embedder, commit FROM {SCHEMA}.brains WHERE brain = %s", [brain]
        ).fetchone()
        if row is None:
            raise SharedIndexUnavailable(f"brain {brain} was never filled by CI")
        if row[0] != self._embedder:
            raise SharedIndexUnavailable(
                f"it was filled with embedder {row[0]}, this machine uses {self._embedder}"
            )
        return conn

    def __call__(self, keys: list[str]) -> dict[str, Any]:
        """The vectors the shared index holds for ``keys`` (empty once it is off)."""
        if self.off is not None or not keys:
            return {}
        import numpy as np
        import psycopg

        try:
            # A connection per pass (it is rare: only texts this machine has no vector for),
            # closed right after, so nothing lingers in a long-running server.
            conn = self._open()
            found: dict[str, Any] = {}
            for start in range(0, len(keys), FETCH_CHUNK):
                chunk = keys[start : start + FETCH_CHUNK]
                for key, text in conn.execute(
                    f"SELECT embed_key, vec::text FROM {SCHEMA}.vectors "
                    "WHERE embedder = %s AND embed_key = ANY(%s)",
                    [self._embedder, chunk],
                ).fetchall():
                    found[key] = np.asarray(json.loads(text), dtype=np.float32)
        except SharedIndexUnavailable as exc:
            return self._give_up(exc.reason)
        except psycopg.Error as exc:
            from ._connect import describe

            return self._give_up(describe(exc))
        finally:
            self._close()
        self.fetched += len(found)
        return found


def shared_vector_source(
    url: str, layout: BrainLayout, embedder: str, *, timeout_s: float,
    warn: Callable[[str], None],
) -> SharedVectors:  # fmt: skip
    """The :class:`SharedVectors` for a retriever (nothing connects until it is asked)."""
    return SharedVectors(url, layout, embedder, timeout_s=timeout_s, warn=warn)
