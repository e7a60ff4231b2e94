"""The shared index: the contract's RetrievalBackend on PostgreSQL with pgvector.

An optional backend (``retrieval.backend: postgres``, docs/deploying-postgres.md) beside the
embedded SQLite index, which stays the default. :class:`PostgresBackend` ranks the way
:class:`~teambrain_retrieval.SqliteBackend` does — keyword candidates (Postgres full-text
search, weighted by how rare each term is) and vector candidates (pgvector, cosine), each the
best 40 of what is served, fused by :func:`~teambrain_retrieval._fusion.fuse_hybrid` — so
the rest of retrieval (required memories, the token budget) sits unchanged on top.

:mod:`._schema` holds the versioned migrations (applied by CI only, ``tb reindex --shared``);
:mod:`._connect` opens a connection with a deadline. The driver (psycopg 3, the ``postgres``
extra) is imported only when a connection is opened: never on the hook path, never for a
brain on the SQLite backend.
"""

from __future__ import annotations

from ._backend import PostgresBackend
from ._connect import SharedIndexUnavailable, connect
from ._fill import FillReport, fill_shared_index, shared_brain_id
from ._schema import SCHEMA_VERSION, migrate, schema_version

__all__ = [
    "SCHEMA_VERSION",
    "FillReport",
    "PostgresBackend",
    "SharedIndexUnavailable",
    "connect",
    "fill_shared_index",
    "migrate",
    "schema_version",
    "shared_brain_id",
]
