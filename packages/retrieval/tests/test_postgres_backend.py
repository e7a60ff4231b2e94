"""PostgresBackend against a real PostgreSQL with pgvector: the contract's four verbs, the
served rule's filters inside both halves, and agreement with SqliteBackend."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from teambrain_retrieval import HashEmbedder, ServedBrain, SqliteBackend
from teambrain_retrieval._index._db import connect as sqlite_connect
from teambrain_retrieval._postgres import (
    SCHEMA_VERSION,
    PostgresBackend,
    SharedIndexUnavailable,
    connect,
    migrate,
    schema_version,
)
from teambrain_schema import IndexableDoc, RetrievalBackend
from teambrain_schema.ids import new_ulid

BRAIN = "github.com/acme/app"


def doc(title: str, body: str, **fields: Any) -> IndexableDoc:
    memory_id = fields.pop("id", None) or new_ulid()
    return IndexableDoc(
        id=memory_id, brain=fields.pop("brain", BRAIN),
        path=fields.pop("path", f".teambrain/memories/{memory_id}.md"), title=title, body=body,
        content_hash=fields.pop("content_hash", f"h-{memory_id}-{title}"), **fields,
    )  # fmt: skip


@pytest.fixture
def pg(postgres_url: str) -> Iterator[Any]:
    conn = connect(postgres_url)
    assert migrate(conn) == list(range(1, SCHEMA_VERSION + 1))
    yield conn
    conn.close()


def backend(conn: Any, embedder: Any = None, **kw: Any) -> PostgresBackend:
    return PostgresBackend(conn, [ServedBrain(BRAIN)], embedder or HashEmbedder(), **kw)


def test_it_is_the_contracts_backend_and_results_carry_their_source(pg: Any) -> None:
    pg_backend = backend(pg)
    assert isinstance(pg_backend, RetrievalBackend)
    memory = doc("Use pgvector for shared vectors", "the index lives in Postgres")
    codemap = doc("payments module", "pgvector client code", source="codemap", path="src/pay")
    pg_backend.index([memory])
    pg_backend.index([codemap], source="codemap")
    hits = pg_backend.search("pgvector", 5)
    assert {(h.id, h.source) for h in hits} == {(memory.id, "memory"), (codemap.id, "codemap")}
    assert [h.rank for h in hits] == [1, 2]
    only_code = pg_backend.search("pgvector", 5, sources=["codemap"])
    assert [h.id for h in only_code] == [codemap.id]
    stats = pg_backend.stats()
    assert (stats.documents, stats.by_source, stats.vectors) == (
        2, {"memory": 1, "codemap": 1}, 2,
    )  # fmt: skip
    assert stats.embedder == "test:hash-256" and stats.brains == [BRAIN]
    pg_backend.remove([memory.id, "no-such-id"])
    assert [h.id for h in pg_backend.search("pgvector", 5)] == [codemap.id]
    assert pg_backend.stats().documents == 1


def test_filters_apply_inside_both_halves(pg: Any) -> None:
    today = dt.date(2026, 6, 1)
    pg_backend = PostgresBackend(
        pg, [ServedBrain(BRAIN, ("team",))], HashEmbedder(), today=lambda: today
    )
    live = doc("retry the flaky upload", "retry uploads with backoff")
    old = doc("retry uploads forever", "retry uploads without limit")
    superseding = doc("retry uploads three times", "retry uploads at most three times",
                      supersedes=[old.id])  # fmt: skip
    expired = doc("retry uploads until friday", "retry uploads for the launch",
                  created=dt.date(2026, 5, 1), ttl_days=10)  # fmt: skip
    status_retired = doc("retry uploads gone", "retry uploads", status="retired")
    org_scope = doc("retry uploads org-wide", "retry uploads", scope="org")
    other_brain = doc("retry uploads elsewhere", "retry uploads", brain="github.com/acme/other")
    retired = doc("retry uploads retired", "retry uploads",
                  path=".teambrain/retired/x.md")  # fmt: skip
    everything = [live, old, superseding, expired, status_retired, org_scope, other_brain, retired]
    pg_backend.index(everything)
    served = {live.id, superseding.id}
    for mode in ("fts", "vector", "hybrid"):
        ranked = pg_backend.ranked("retry uploads", 40, mode=mode)
        found = {d.id for d in pg_backend.docs([rowid for rowid, _ in ranked]).values()}
        assert found == served, mode
    # The retired copy is a tombstone: its words left the index.
    (row,) = pg.execute("SELECT title, body FROM teambrain.docs WHERE id = %s", [retired.id])
    assert row == ("", "")


def test_rewriting_an_unchanged_document_writes_nothing(pg: Any) -> None:
    pg_backend = backend(pg)
    memories = [doc(f"note {i}", f"body {i}") for i in range(5)]
    assert pg_backend.upsert(memories) == 5
    assert pg_backend.upsert(memories) == 0
    changed = memories[0].model_copy(update={"body": "new body", "content_hash": "h2"})
    assert pg_backend.upsert([changed]) == 1
    embedder = HashEmbedder()
    second = backend(pg, embedder)
    assert second.ensure_vectors() == 5  # four unchanged texts + the edited one, once each
    assert second.ensure_vectors() == 0 and embedder.embedded == 5


def test_a_reader_refuses_a_schema_it_does_not_know(postgres_url: str) -> None:
    conn = connect(postgres_url)
    assert schema_version(conn) == 0
    with pytest.raises(SharedIndexUnavailable, match="schema is version 0"):
        backend(conn)
    migrate(conn)
    conn.execute("UPDATE teambrain.schema_version SET version = %s", [SCHEMA_VERSION + 1])
    with pytest.raises(SharedIndexUnavailable, match=f"version {SCHEMA_VERSION + 1}"):
        backend(conn)
    with pytest.raises(SharedIndexUnavailable, match="newer than this teambrain"):
        migrate(conn)
    conn.close()


def test_an_unreachable_database_is_one_line_without_the_password(tmp_path: Any) -> None:
    url = f"postgresql://admin:s3cret@/db?host={tmp_path}&port=5999"
    with pytest.raises(SharedIndexUnavailable) as caught:
        connect(url, timeout_s=1)
    assert "s3cret" not in caught.value.reason and "\n" not in caught.value.reason
    assert caught.value.reason.startswith("cannot connect")


def test_same_ranking_as_sqlite_on_a_small_brain(pg: Any, tmp_path: Any) -> None:
    """Both backends rank the same documents, fused the same way: on a brain where keyword
    ranks are unambiguous they agree exactly."""
    memories = [
        doc("Postgres migrations run in CI", "schema migrations are applied by the CI job only"),
        doc("Vectors come from MiniLM", "the local embedder makes 384-dimension vectors"),
        doc("Retry uploads", "retry uploads with exponential backoff, three attempts"),
        doc("Release checklist", "tag, build the wheels, publish to the registry"),
    ]
    pg_backend = backend(pg)
    pg_backend.index(memories)
    db = sqlite_connect(tmp_path / "index.db")
    lite = SqliteBackend(db, [ServedBrain(BRAIN)], HashEmbedder())
    lite.index(memories)
    for query in ("migrations CI", "retry backoff", "wheels registry", "embedder vectors"):
        assert [h.id for h in pg_backend.search(query, 3)] == [
            h.id for h in lite.search(query, 3)
        ], query


def test_keyword_postings_follow_edits_and_removals(pg: Any) -> None:
    pg_backend = backend(pg)
    memory = doc("Deploy notes", "deploy with the blue lever")
    other = doc("Other notes", "nothing about levers here, only gauges")
    pg_backend.index([memory, other])
    assert [h.id for h in pg_backend.search("blue", 5)] == [memory.id]
    edited = memory.model_copy(update={"body": "deploy with the green lever", "content_hash": "2"})
    pg_backend.index([edited, edited])  # a repeated key: the last copy wins, as one by one
    assert pg_backend.ranked("blue", 5, mode="fts") == []
    assert [h.id for h in pg_backend.search("green", 5)] == [memory.id]
    pg_backend.remove([memory.id])
    assert pg_backend.ranked("green", 5, mode="fts") == []
    (orphans,) = pg.execute(
        "SELECT count(*) FROM teambrain.postings p WHERE NOT EXISTS "
        "(SELECT 1 FROM teambrain.docs d WHERE d.rowid = p.rowid)"
    ).fetchone()
    assert orphans == 0


def test_the_driver_loads_only_for_the_postgres_backend(tmp_path: Any) -> None:
    """A brain on the default backend searches, and tb trust describes a postgres one, without
    importing psycopg: it loads only when a shared index is actually connected to."""
    import subprocess
    import sys

    code = (
        "import sys, subprocess, pathlib\n"
        "from teambrain_retrieval import HashEmbedder, RetrieverOptions, open_retriever\n"
        "from teambrain_retrieval import shared_index_egress, shared_index_url\n"
        "from teambrain_schema import RetrievalConfig, BRAIN_YAML_TEMPLATE\n"
        "from teambrain_kit.paths import BrainLayout\n"
        "root = pathlib.Path(sys.argv[1])\n"
        "subprocess.run(['git', 'init', '-q', str(root)], check=True)\n"
        "layout = BrainLayout(root)\n"
        "layout.memories.mkdir(parents=True)\n"
        "layout.brain_yaml.write_text(BRAIN_YAML_TEMPLATE)\n"
        "r = open_retriever(layout, RetrieverOptions(embedder=HashEmbedder()))\n"
        "r.search('anything', 3); r.close()\n"
        "c = RetrievalConfig(backend='postgres', url_env='X')\n"
        "shared_index_egress(c).describe(); shared_index_url(c)\n"
        "print('psycopg' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "repo")],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
