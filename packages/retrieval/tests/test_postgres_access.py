"""Several brains in one shared database: a developer's role reads its team's brain and the
org brain, never another team's — Postgres roles and row-level security, with the SQL an admin
runs (docs/deploying-postgres.md), proved on a real server."""

from __future__ import annotations

import psycopg
import pytest
from teambrain_retrieval import HashEmbedder, ServedBrain
from teambrain_retrieval._postgres import PostgresBackend, SharedIndexUnavailable, connect, migrate
from teambrain_schema import IndexableDoc

BRAINS = ("github.com/acme/payments", "github.com/acme/search", "github.com/acme/org")
# The admin's SQL, as docs/deploying-postgres.md gives it (role names are the admin's choice).
ADMIN_SQL = """
CREATE ROLE teambrain_reader NOLOGIN;
GRANT USAGE ON SCHEMA teambrain TO teambrain_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA teambrain TO teambrain_reader;
CREATE ROLE team_payments NOLOGIN IN ROLE teambrain_reader;
CREATE ROLE team_search NOLOGIN IN ROLE teambrain_reader;
INSERT INTO teambrain.access(role, brain) VALUES
    ('teambrain_reader', 'github.com/acme/org'),
    ('team_payments', 'github.com/acme/payments'),
    ('team_search', 'github.com/acme/search');
CREATE ROLE alice LOGIN IN ROLE team_payments;
"""


def _docs(brain: str) -> list[IndexableDoc]:
    name = brain.rsplit("/", 1)[1]
    return [
        IndexableDoc(
            id=f"{name}-{i}",
            brain=brain,
            path=f".teambrain/memories/{name}-{i}.md",
            title=f"Deploy checklist {name} {i}",
            body=f"deploy steps for {name}, number {i}",
            content_hash=f"{name}{i}",
        )
        for i in range(3)
    ]


def test_a_role_reads_its_team_and_the_org_never_another_team(postgres_url: str) -> None:
    admin = connect(postgres_url)
    migrate(admin)
    for brain in BRAINS:
        filler = PostgresBackend(admin, [ServedBrain(brain)], HashEmbedder())
        filler.index(_docs(brain))
        filler.mark_indexed(brain, "c0ffee")
    admin.execute(ADMIN_SQL)

    alice = connect(postgres_url.replace("postgres:@", "alice:@", 1))
    reader = PostgresBackend(alice, [ServedBrain(b) for b in BRAINS], HashEmbedder())
    seen = {hit.brain for hit in reader.search("deploy checklist steps", 20)}
    assert seen == {"github.com/acme/payments", "github.com/acme/org"}
    for mode in ("fts", "vector"):
        found = reader.docs([rowid for rowid, _ in reader.ranked("deploy steps", 40, mode=mode)])
        assert {d.brain for d in found.values()} == seen, mode
    for table in ("docs", "postings", "brains"):
        (count,) = alice.execute(
            f"SELECT count(*) FROM teambrain.{table} WHERE brain = 'github.com/acme/search'"
        ).fetchone()
        assert count == 0, table
    (vectors,) = alice.execute("SELECT count(*) FROM teambrain.vectors").fetchone()
    assert vectors == 6  # the texts of the two brains alice reads, not the third
    assert reader.stats().documents == 6
    with pytest.raises((SharedIndexUnavailable, psycopg.Error)):
        PostgresBackend(alice, [ServedBrain(BRAINS[1])], HashEmbedder()).index(_docs(BRAINS[1]))
    alice.close()
    admin.close()


def test_readers_need_a_grant_at_all(postgres_url: str) -> None:
    admin = connect(postgres_url)
    migrate(admin)
    admin.execute("CREATE ROLE mallory LOGIN")
    mallory = connect(postgres_url.replace("postgres:@", "mallory:@", 1))
    with pytest.raises(SharedIndexUnavailable, match="permission denied"):
        PostgresBackend(mallory, [ServedBrain(BRAINS[0])], HashEmbedder()).search("x", 3)
    mallory.close()
    admin.close()
