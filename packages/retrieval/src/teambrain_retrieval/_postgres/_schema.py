"""The shared index's tables, as numbered migrations applied by CI only.

A reader never changes the schema: it checks :func:`schema_version` and, when that is not
:data:`SCHEMA_VERSION`, falls back to the local index (said once). ``tb reindex --shared``, run
by the brain's CI, calls :func:`migrate`, which applies the missing steps in order, each in
one transaction, under an advisory lock so two CI jobs never migrate at once.
"""

from __future__ import annotations

from typing import Any

SCHEMA = "teambrain"
# pg_advisory_xact_lock key for migrations and fills ("tb" in ASCII, then 1).
MIGRATION_LOCK = 0x746201
# The team view (migration 3): the figures a member may publish, and how many members' shown
# values a team figure needs before it is shown.
USAGE_METRICS = (
    "sessions",
    "sessions_with_memory",
    "sessions_without_memory",
    "retrievals",
    "memory_sessions",
    "memory_votes",
    "memory_useful",
)
MIN_MEMBERS = 3
ULID_RE = "[0-9A-HJKMNP-TV-Z]{26}"

MIGRATIONS: list[tuple[int, str]] = [
    (
        1,
        f"""
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE SCHEMA IF NOT EXISTS {SCHEMA};
        CREATE TABLE {SCHEMA}.schema_version (
            only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
            version integer NOT NULL
        );
        INSERT INTO {SCHEMA}.schema_version(version) VALUES (0);
        -- A document's words: title (weight A), tags (B), body (C), stemmed, stopwords dropped.
        CREATE FUNCTION {SCHEMA}.doc_tsv(title text, tags text, body text) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN
            setweight(to_tsvector('english'::regconfig, title), 'A')
            || setweight(to_tsvector('english'::regconfig, tags), 'B')
            || setweight(to_tsvector('english'::regconfig, body), 'C');
        -- How many words it has (BM25's document length).
        CREATE FUNCTION {SCHEMA}.tsv_length(doc tsvector) RETURNS integer
        LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN
            (SELECT coalesce(sum(cardinality(x.positions)), 0)::integer FROM unnest(doc) x);
        -- One row per document of a brain (a memory file, or a code-map entry), keyed like the
        -- SQLite index: (brain, source, path). A retired memory stays as a tombstone without
        -- title, body or tags, so the served rule still knows it.
        CREATE TABLE {SCHEMA}.docs (
            rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            brain text NOT NULL,
            source text NOT NULL,
            path text NOT NULL,
            id text NOT NULL,
            title text NOT NULL,
            body text NOT NULL,
            tags text NOT NULL,
            class text,
            scope text NOT NULL,
            status text NOT NULL,
            priority text NOT NULL,
            retired boolean NOT NULL,
            created date,
            expires date,
            supersedes jsonb NOT NULL,
            doc text NOT NULL,
            content_hash text NOT NULL,
            embed_key text NOT NULL,
            commit text,
            indexed_at timestamptz NOT NULL DEFAULT now(),
            tsv tsvector GENERATED ALWAYS AS ({SCHEMA}.doc_tsv(title, tags, body)) STORED,
            doclen integer GENERATED ALWAYS AS
                ({SCHEMA}.tsv_length({SCHEMA}.doc_tsv(title, tags, body))) STORED,
            UNIQUE (brain, source, path)
        );
        CREATE INDEX docs_by_id ON {SCHEMA}.docs (brain, id);
        CREATE INDEX docs_by_embed_key ON {SCHEMA}.docs (embed_key);
        -- The few rows the served rule reads on every search: superseders and non-served copies.
        CREATE INDEX docs_not_plain ON {SCHEMA}.docs (brain)
            WHERE supersedes <> '[]'::jsonb OR retired OR status <> 'active';
        -- The keyword half's inverted index, for BM25 as SQLite's FTS5 computes it: per document
        -- and stemmed term, its frequency with the column weights applied (title 2, tags 1.5,
        -- body 1) and the document's length. Ranking reads the postings of the query's few
        -- terms, never a whole document. A trigger keeps it in step with every write.
        CREATE TABLE {SCHEMA}.postings (
            brain text NOT NULL,
            lexeme text NOT NULL,
            rowid bigint NOT NULL REFERENCES {SCHEMA}.docs(rowid) ON DELETE CASCADE,
            tf real NOT NULL,
            doclen integer NOT NULL,
            PRIMARY KEY (brain, lexeme, rowid)
        );
        CREATE INDEX postings_by_doc ON {SCHEMA}.postings (rowid);
        CREATE FUNCTION {SCHEMA}.refresh_postings() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM {SCHEMA}.postings p USING changed c WHERE p.rowid = c.rowid;
            INSERT INTO {SCHEMA}.postings(brain, lexeme, rowid, tf, doclen)
            SELECT c.brain, u.lexeme, c.rowid,
                   (SELECT sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END)
                    FROM unnest(u.weights) w),
                   c.doclen
            FROM changed c CROSS JOIN LATERAL unnest(c.tsv) u;
            RETURN NULL;
        END $$;
        CREATE TRIGGER docs_postings_insert AFTER INSERT ON {SCHEMA}.docs
            REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.refresh_postings();
        CREATE TRIGGER docs_postings_update AFTER UPDATE ON {SCHEMA}.docs
            REFERENCING NEW TABLE AS changed
            FOR EACH STATEMENT EXECUTE FUNCTION {SCHEMA}.refresh_postings();
        -- Embeddings by the text they embed and the embedder that made them: an unchanged text
        -- is never embedded twice, and a machine with another embedder finds none of them.
        CREATE TABLE {SCHEMA}.vectors (
            embedder text NOT NULL,
            embed_key text NOT NULL,
            dim integer NOT NULL,
            vec vector NOT NULL,
            PRIMARY KEY (embedder, embed_key)
        );
        -- What each brain's index was last filled from: the commit and the embedder.
        CREATE TABLE {SCHEMA}.brains (
            brain text PRIMARY KEY,
            commit text,
            embedder text,
            indexed_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    (
        2,
        f"""
        -- Which database roles may read which brains: the org brain and several team brains
        -- can share one database, and a developer's role sees its team's brain and the org
        -- brain, never another team's (`tb help deploying-postgres` has the admin's SQL). The
        -- tables' owner (the CI role that migrates and fills) is not subject to it.
        CREATE TABLE {SCHEMA}.access (
            role name NOT NULL,
            brain text NOT NULL,
            PRIMARY KEY (role, brain)
        );
        CREATE FUNCTION {SCHEMA}.may_read(wanted text) RETURNS boolean
        LANGUAGE sql STABLE PARALLEL SAFE RETURN EXISTS (
            SELECT 1 FROM {SCHEMA}.access a
            WHERE a.brain = wanted AND pg_has_role(current_user, a.role, 'MEMBER')
        );
        ALTER TABLE {SCHEMA}.docs ENABLE ROW LEVEL SECURITY;
        CREATE POLICY read_granted ON {SCHEMA}.docs FOR SELECT USING ({SCHEMA}.may_read(brain));
        ALTER TABLE {SCHEMA}.postings ENABLE ROW LEVEL SECURITY;
        CREATE POLICY read_granted ON {SCHEMA}.postings FOR SELECT
            USING ({SCHEMA}.may_read(brain));
        ALTER TABLE {SCHEMA}.brains ENABLE ROW LEVEL SECURITY;
        CREATE POLICY read_granted ON {SCHEMA}.brains FOR SELECT
            USING ({SCHEMA}.may_read(brain));
        -- A vector is readable when a readable document has its text (docs' policy applies
        -- inside this one too).
        ALTER TABLE {SCHEMA}.vectors ENABLE ROW LEVEL SECURITY;
        CREATE POLICY read_granted ON {SCHEMA}.vectors FOR SELECT USING (EXISTS (
            SELECT 1 FROM {SCHEMA}.docs d WHERE d.embed_key = vectors.embed_key
        ));
        """,
    ),
    (
        3,
        f"""
        -- The team's view of use (`tb metrics --team`): each member who opted in publishes the
        -- digest's weekly figures for a brain, already small-cell suppressed on their machine
        -- (a NULL value is a figure their digest shows as <5). One row per figure: a metric of
        -- a fixed list, keyed by a memory's ULID for the per-memory ones and by nothing
        -- otherwise, so no path, session id, prompt or text can be stored here at all.
        CREATE TABLE {SCHEMA}.usage (
            brain text NOT NULL,
            member name NOT NULL DEFAULT current_user,
            week date NOT NULL CHECK (extract(isodow FROM week) = 1),
            metric text NOT NULL CHECK (metric IN ({", ".join(f"'{m}'" for m in USAGE_METRICS)})),
            key text NOT NULL DEFAULT '',
            value double precision CHECK (value IS NULL OR value >= 0),
            published_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (brain, member, week, metric, key),
            CHECK (CASE WHEN left(metric, 7) = 'memory_' THEN key ~ '^{ULID_RE}$'
                        ELSE key = '' END)
        );
        -- A member writes, reads back and deletes only their own rows, and only for brains
        -- they may read; nobody reads a teammate's rows directly.
        ALTER TABLE {SCHEMA}.usage ENABLE ROW LEVEL SECURITY;
        CREATE POLICY own_rows ON {SCHEMA}.usage FOR ALL
            USING (member = current_user AND {SCHEMA}.may_read(brain))
            WITH CHECK (member = current_user AND {SCHEMA}.may_read(brain));
        -- The team's figures: per week and figure, the sum of the members' shown values, only
        -- where at least {MIN_MEMBERS} members' values make it up (so nobody can take their own
        -- figure off the team's and read a teammate's), with how many members' values are in
        -- it and how many published the figure as <5. Readable by whoever may read the brain
        -- (the caller's login role decides: this runs as the table's owner).
        CREATE FUNCTION {SCHEMA}.team_usage(wanted text)
        RETURNS TABLE (week date, metric text, key text, value double precision,
                       members integer, hidden integer)
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
            SELECT u.week, u.metric, u.key, sum(u.value), count(u.value)::integer,
                   (count(*) - count(u.value))::integer
            FROM {SCHEMA}.usage u
            WHERE u.brain = wanted AND EXISTS (
                SELECT 1 FROM {SCHEMA}.access a
                WHERE a.brain = wanted AND pg_has_role(session_user, a.role, 'MEMBER'))
            GROUP BY u.week, u.metric, u.key
            HAVING count(u.value) >= {MIN_MEMBERS}
        $$;
        REVOKE ALL ON FUNCTION {SCHEMA}.team_usage(text) FROM PUBLIC;
        """,
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def schema_version(conn: Any) -> int:
    """The version the database's schema is at (0: no teambrain schema yet)."""
    row = conn.execute(
        "SELECT to_regclass(%s) IS NOT NULL", [f"{SCHEMA}.schema_version"]
    ).fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute(f"SELECT version FROM {SCHEMA}.schema_version").fetchone()
    return int(found[0]) if found else 0


def migrate(conn: Any) -> list[int]:
    """Apply the migrations the database lacks, in order; returns the versions applied."""
    applied: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK])
        current = schema_version(conn)
        if current > SCHEMA_VERSION:
            from ._connect import SharedIndexUnavailable

            raise SharedIndexUnavailable(
                f"the shared index's schema is version {current}, newer than this teambrain's "
                f"{SCHEMA_VERSION}: upgrade teambrain in CI"
            )
        for version, sql in MIGRATIONS:
            if version <= current:
                continue
            conn.execute(sql)
            conn.execute(f"UPDATE {SCHEMA}.schema_version SET version = %s", [version])
            applied.append(version)
    return applied
