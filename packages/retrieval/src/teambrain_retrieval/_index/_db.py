"""index.db: the SQLite file (through apsw) that holds the derived search index.

Everything in it can be rebuilt from the brain, so a damaged file is moved aside and recreated
rather than repaired. Schema changes are ordered migration functions ``m001_…`` recorded in the
``migrations`` table; each runs once, in its own transaction.
"""

from __future__ import annotations

import datetime as dt
import errno
import functools
import os
from collections.abc import Callable
from pathlib import Path

import apsw

BUSY_TIMEOUT_MS = 15_000
SQLITE_HEADER = b"SQLite format 3\x00"

# Errors that mean "this file is not a healthy index": rebuild it.
CORRUPTION_ERRORS: tuple[type[BaseException], ...] = (apsw.CorruptError, apsw.NotADBError)


class IndexCorrupt(RuntimeError):
    """index.db is damaged; the caller moves it aside and rebuilds."""


# SQLite's words for a schema that is not the one this code expects: a table or column that a
# partial migration, another teambrain version or a hand edit left out.
_SCHEMA_DAMAGE = ("no such table", "no such column", "no such index", "already exists")


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` says index.db is unusable (damaged bytes or a schema this code can't use)."""
    if isinstance(exc, CORRUPTION_ERRORS):
        return True
    if isinstance(exc, apsw.SQLError):
        message = str(exc)
        return any(words in message for words in _SCHEMA_DAMAGE)
    return False


def storage_trouble(exc: BaseException, path: Path) -> str | None:
    """Why ``path`` (index.db) cannot be written, when ``exc`` — or the error it was raised
    while handling: SQLite rolls a transaction back itself on a full disk, and the rollback
    that follows reports "cannot rollback" — says the disk is full, read-only or failing;
    None for any other error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        code = current.errno if isinstance(current, OSError) else None
        if isinstance(current, apsw.FullError) or code in (errno.ENOSPC, errno.EDQUOT):
            return f"the disk holding {path.parent} is full{_free_space(path)}"
        if isinstance(current, apsw.ReadOnlyError) or code in (errno.EROFS, errno.EACCES):
            return f"{path} cannot be written (read-only)"
        if isinstance(current, apsw.BusyError):
            return f"{path} stayed locked by another process"
        if isinstance(current, apsw.IOError) or code == errno.EIO:
            free = _free_bytes(path)
            if free is not None and free < _NEARLY_FULL:
                return f"the disk holding {path.parent} is full{_free_space(path)}"
            return f"writing {path} failed with an I/O error"
        current = current.__context__ or current.__cause__
    return None


_NEARLY_FULL = 1 << 20  # an I/O error with less than this free is a full disk


def _free_bytes(path: Path) -> int | None:
    try:
        info = os.statvfs(path.parent)
    except OSError:
        return None
    return info.f_bavail * info.f_frsize


def _free_space(path: Path) -> str:
    free = _free_bytes(path)
    return "" if free is None else f" ({free:,} bytes free)"


def m001_initial(db: apsw.Connection) -> None:
    """Documents, their full-text index, file stamps, brains and the embedding cache."""
    db.execute(
        """
        CREATE TABLE docs(
            rowid INTEGER PRIMARY KEY,
            brain TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'memory',
            id TEXT NOT NULL,
            path TEXT NOT NULL,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '',
            class TEXT,
            scope TEXT NOT NULL,
            status TEXT NOT NULL,
            priority TEXT NOT NULL,
            retired INTEGER NOT NULL DEFAULT 0,
            created TEXT,
            expires TEXT,
            supersedes TEXT NOT NULL DEFAULT '[]',
            doc TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            embed_key TEXT NOT NULL,
            UNIQUE(brain, source, path)
        );
        CREATE INDEX docs_by_id ON docs(id);
        CREATE INDEX docs_by_brain ON docs(brain, source, priority);
        CREATE VIRTUAL TABLE docs_fts USING fts5(
            title, body, tags, content='docs', content_rowid='rowid',
            tokenize='porter unicode61'
        );
        CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
            INSERT INTO docs_fts(rowid, title, body, tags)
            VALUES (new.rowid, new.title, new.body, new.tags);
        END;
        CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
            INSERT INTO docs_fts(docs_fts, rowid, title, body, tags)
            VALUES ('delete', old.rowid, old.title, old.body, old.tags);
        END;
        CREATE TRIGGER docs_au AFTER UPDATE ON docs BEGIN
            INSERT INTO docs_fts(docs_fts, rowid, title, body, tags)
            VALUES ('delete', old.rowid, old.title, old.body, old.tags);
            INSERT INTO docs_fts(rowid, title, body, tags)
            VALUES (new.rowid, new.title, new.body, new.tags);
        END;
        CREATE TABLE doc_paths(
            rowid INTEGER NOT NULL REFERENCES docs(rowid) ON DELETE CASCADE,
            mention TEXT NOT NULL
        );
        CREATE INDEX doc_paths_by_row ON doc_paths(rowid);
        CREATE TABLE files(
            brain TEXT NOT NULL,
            path TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            problem TEXT,
            PRIMARY KEY(brain, path)
        ) WITHOUT ROWID;
        CREATE TABLE brains(
            brain TEXT PRIMARY KEY,
            root TEXT NOT NULL,
            indexed_at TEXT
        );
        CREATE TABLE vectors(
            embedder TEXT NOT NULL,
            key TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY(embedder, key)
        ) WITHOUT ROWID;
        """
    )


def m002_lookup_indexes(db: apsw.Connection) -> None:
    """Indexes for the lookups a search makes after a change: documents by embedded text, and
    the few documents that supersede others or are retired (partial indexes stay tiny)."""
    db.execute(
        """
        CREATE INDEX docs_by_embed_key ON docs(embed_key);
        CREATE INDEX docs_superseding ON docs(brain) WHERE supersedes != '[]';
        CREATE INDEX docs_not_active ON docs(brain) WHERE retired = 1 OR status != 'active';
        """
    )


def m003_generation(db: apsw.Connection) -> None:
    """A counter every write to documents or vectors bumps (triggers, so any process and any
    writer counts): a process can tell in one read whether what it saved about the index — the
    vector matrix of a brain, "every document has a vector" — still holds."""
    db.execute(
        """
        CREATE TABLE generation(id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL);
        INSERT INTO generation(id, n) VALUES (0, 0);
        CREATE TRIGGER docs_gen_insert AFTER INSERT ON docs BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        CREATE TRIGGER docs_gen_update AFTER UPDATE ON docs BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        CREATE TRIGGER docs_gen_delete AFTER DELETE ON docs BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        CREATE TRIGGER vectors_gen_insert AFTER INSERT ON vectors BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        CREATE TRIGGER vectors_gen_update AFTER UPDATE ON vectors BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        CREATE TRIGGER vectors_gen_delete AFTER DELETE ON vectors BEGIN
            UPDATE generation SET n = n + 1 WHERE id = 0; END;
        """
    )


def m004_scan_digests(db: apsw.Connection) -> None:
    """What a brain's files looked like when the index last matched them: a digest of every
    file's stamp. A new process whose scan gives the same digest need not compare 20k stamps
    with the files table one by one. Any write to a brain's files or documents (by any
    process or version) forgets its digest, so it is never trusted past a change."""
    db.execute(
        """
        CREATE TABLE scan_digests(brain TEXT PRIMARY KEY, digest TEXT NOT NULL) WITHOUT ROWID;
        CREATE TRIGGER files_forget_digest_insert AFTER INSERT ON files BEGIN
            DELETE FROM scan_digests WHERE brain = NEW.brain; END;
        CREATE TRIGGER files_forget_digest_update AFTER UPDATE ON files BEGIN
            DELETE FROM scan_digests WHERE brain IN (OLD.brain, NEW.brain); END;
        CREATE TRIGGER files_forget_digest_delete AFTER DELETE ON files BEGIN
            DELETE FROM scan_digests WHERE brain = OLD.brain; END;
        CREATE TRIGGER docs_forget_digest_delete AFTER DELETE ON docs BEGIN
            DELETE FROM scan_digests WHERE brain = OLD.brain; END;
        CREATE TRIGGER docs_forget_digest_insert AFTER INSERT ON docs BEGIN
            DELETE FROM scan_digests WHERE brain = NEW.brain; END;
        """
    )


def m005_unicode_mentions(db: apsw.Connection) -> None:
    """Path mentions read again from every document: names with accents or in other scripts
    count as paths now (they were cut at the first non-ASCII letter), in composed form."""
    from .._pathmatch import extract_mentions

    rows = db.execute("SELECT rowid, body, tags FROM docs").fetchall()
    db.execute("DELETE FROM doc_paths")
    db.executemany(
        "INSERT INTO doc_paths(rowid, mention) VALUES (?, ?)",
        [
            (rowid, mention)
            for rowid, body, tags in rows
            for mention in extract_mentions(str(body or ""), str(tags or "").split())
        ],
    )


def m006_code_mentions(db: apsw.Connection) -> None:
    """Mentions read again from every document, titles included: a folder keeps its trailing
    slash (``migrations/`` matches the files inside it), a dotted module or symbol keeps its
    dots (``catalog.variants.Variant.rename`` names ``catalog/variants.py``), and code
    identifiers (``PlanPicker``, ``fct_orders``) name the file they are the stem of."""
    from .._pathmatch import extract_mentions

    rows = db.execute("SELECT rowid, title, body, tags FROM docs").fetchall()
    db.execute("DELETE FROM doc_paths")
    db.executemany(
        "INSERT INTO doc_paths(rowid, mention) VALUES (?, ?)",
        [
            (rowid, mention)
            for rowid, title, body, tags in rows
            for mention in extract_mentions(
                str(body or ""), str(tags or "").split(), str(title or "")
            )
        ],
    )


MIGRATIONS: list[Callable[[apsw.Connection], None]] = [
    m001_initial,
    m002_lookup_indexes,
    m003_generation,
    m004_scan_digests,
    m005_unicode_mentions,
    m006_code_mentions,
]


def now_iso() -> str:
    """The current UTC time as stored in the index."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def migrate(db: apsw.Connection) -> list[str]:
    """Apply the migrations this database has not seen, in order; returns their names."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = {row[0] for row in db.execute("SELECT name FROM migrations")}
    done = []
    for migration in MIGRATIONS:
        name = migration.__name__
        if name in applied:
            continue
        with db:  # one transaction per migration; re-checked inside for racing processes
            if db.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                continue
            migration(db)
            db.execute("INSERT INTO migrations(name, applied_at) VALUES (?, ?)", (name, now_iso()))
        done.append(name)
    return done


def _schema_of(db: apsw.Connection) -> dict[tuple[str, str], str]:
    rows = db.execute("SELECT type, name, coalesce(sql, '') FROM sqlite_master")
    return {(str(kind), str(name)): " ".join(str(sql).split()) for kind, name, sql in rows}


@functools.cache
def expected_schema() -> dict[tuple[str, str], str]:
    """Every table, index and trigger the migrations create, with their SQL (computed once)."""
    db = apsw.Connection(":memory:")
    migrate(db)
    schema = _schema_of(db)
    db.close()
    return schema


def schema_problem(db: apsw.Connection) -> str | None:
    """What is missing or different in ``db``'s schema, or None when it has all it needs.

    Objects a newer version added are allowed; one of ours that is missing or was created with
    other columns is not (the index is rebuilt from the brain instead).
    """
    have = _schema_of(db)
    for key, sql in expected_schema().items():
        if key not in have:
            return f"its {key[0]} {key[1]} is missing"
        if have[key] != sql:
            return f"its {key[0]} {key[1]} differs from this version's"
    return None


def _configure(db: apsw.Connection, *, in_memory: bool) -> None:
    db.set_busy_timeout(BUSY_TIMEOUT_MS)
    # Deleted content (a retired memory's text) is overwritten, not left in free pages.
    db.execute("PRAGMA secure_delete=ON")
    if not in_memory:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    db.execute("PRAGMA foreign_keys=ON")


def _looks_like_sqlite(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError:
        return True  # let SQLite report what is wrong
    return header == SQLITE_HEADER


def connect(path: Path | None) -> apsw.Connection:
    """An open, migrated index at ``path`` (None: a private in-memory index).

    Raises :class:`IndexCorrupt` when the file exists but is not a usable index.
    """
    if path is None:
        db = apsw.Connection(":memory:")
        _configure(db, in_memory=True)
        migrate(db)
        return db
    from teambrain_kit.private_dirs import create_private_file

    create_private_file(path)  # SQLite gives its -wal and -shm files the database's mode
    if path.stat().st_size > 0 and not _looks_like_sqlite(path):
        raise IndexCorrupt(f"{path} is not an SQLite database")
    try:
        db = apsw.Connection(str(path))
        _configure(db, in_memory=False)
        migrate(db)
        problem = schema_problem(db)
        db.execute("SELECT count(*) FROM docs").fetchone()
    except apsw.Error as exc:
        if not is_damage(exc):
            raise
        raise IndexCorrupt(f"{path}: {exc}") from None
    if problem:
        db.close()
        raise IndexCorrupt(f"{path}: {problem}")
    return db


def move_aside(path: Path) -> Path:
    """Move a damaged index (and its WAL files) to ``index.db.corrupt`` so it can be rebuilt."""
    target = path.with_name(path.name + ".corrupt")
    for suffix in ("-wal", "-shm"):
        sidecar = path.with_name(path.name + suffix)
        if sidecar.exists():
            sidecar.unlink()
    if path.exists():
        os.replace(path, target)
    return target
