from pathlib import Path

import pytest
from teambrain_retrieval._index._db import IndexCorrupt, connect, migrate, move_aside


def test_migrations_run_once_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "home" / "index.db"
    db = connect(path)
    assert migrate(db) == []
    rows = db.execute("SELECT name FROM migrations").fetchall()
    assert rows == [
        ("m001_initial",),
        ("m002_lookup_indexes",),
        ("m003_generation",),
        ("m004_scan_digests",),
        ("m005_unicode_mentions",),
        ("m006_code_mentions",),
    ]
    db.close()
    again = connect(path)
    assert again.execute("SELECT count(*) FROM migrations").fetchone() == (6,)


def test_a_file_that_is_not_sqlite_is_reported_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    path.write_bytes(b"garbage" * 1000)
    with pytest.raises(IndexCorrupt):
        connect(path)
    moved = move_aside(path)
    assert moved.name == "index.db.corrupt" and not path.exists()
    connect(path).close()


def test_a_damaged_database_is_reported_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    db = connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page after the header
    path.write_bytes(bytes(data))
    with pytest.raises(IndexCorrupt):
        connect(path)


def _objects() -> list[tuple[str, str]]:
    from teambrain_retrieval._index._db import expected_schema

    return sorted(key for key in expected_schema() if not key[1].startswith("sqlite_"))


@pytest.mark.parametrize(("kind", "name"), _objects())
def test_an_index_missing_any_table_index_or_trigger_is_reported_corrupt(
    tmp_path: Path, kind: str, name: str
) -> None:
    """A partial migration or another version's file is as unusable as damaged bytes."""
    path = tmp_path / "index.db"
    db = connect(path)
    if kind == "table" and name in ("docs", "docs_fts"):
        db.execute("DROP TRIGGER docs_ai; DROP TRIGGER docs_ad; DROP TRIGGER docs_au")
    db.execute(f"DROP {kind.upper()} {name}")
    db.close()
    with pytest.raises(IndexCorrupt):
        connect(path)


def test_an_index_whose_table_has_other_columns_is_reported_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    db = connect(path)
    db.execute("DROP TABLE brains; CREATE TABLE brains(brain TEXT PRIMARY KEY)")
    db.close()
    with pytest.raises(IndexCorrupt, match="brains"):
        connect(path)


def test_an_index_with_objects_a_newer_version_added_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    db = connect(path)
    db.execute("CREATE TABLE future(x); INSERT INTO migrations VALUES ('m099_future', 'now')")
    db.close()
    connect(path).close()


def test_is_damage_separates_schema_damage_from_other_sql_errors(tmp_path: Path) -> None:
    import apsw
    from teambrain_retrieval._index._db import is_damage

    db = connect(None)
    with pytest.raises(apsw.SQLError) as missing:
        db.execute("SELECT * FROM nowhere")
    assert is_damage(missing.value)
    with pytest.raises(apsw.SQLError) as syntax:
        db.execute("SELEKT 1")
    assert not is_damage(syntax.value)


def test_an_index_from_before_unicode_mentions_reads_them_again(tmp_path: Path) -> None:
    """An index written by a version that cut path mentions at the first non-ASCII letter gets
    them re-read from the stored bodies and tags when it is opened."""
    from teambrain_retrieval import ServedBrain, SqliteBackend
    from teambrain_schema import IndexableDoc
    from teambrain_schema.ids import new_ulid

    path = tmp_path / "index.db"
    be = SqliteBackend(connect(path), [ServedBrain("b")], None)
    body = "The menu is docs/menü/café.md; the old one was in ve.py."
    be.index([IndexableDoc(
        id=new_ulid(), brain="b", path=".teambrain/memories/learnings/m.md", title="Menu",
        body=body, tags=["docs/résumé"], class_="learning", content_hash="h",
    )])  # fmt: skip
    db = be.store.db
    with db:  # as the older version left it
        db.execute("UPDATE doc_paths SET mention = 'docs/men'")
        db.execute("DELETE FROM migrations WHERE name = 'm005_unicode_mentions'")
    db.close()
    db = connect(path)
    mentions = {row[0] for row in db.execute("SELECT mention FROM doc_paths")}
    assert mentions == {"docs/menü/café.md", "ve.py", "docs/résumé"}


def test_m006_reads_folders_modules_identifiers_and_titles_again(tmp_path: Path) -> None:
    """An index written before m006 kept `migrations/` as `migrations` (matching nothing),
    turned modules into slash paths and never read titles: its mentions are read again."""
    from teambrain_retrieval import ServedBrain, SqliteBackend
    from teambrain_schema import IndexableDoc
    from teambrain_schema.ids import new_ulid

    path = tmp_path / "index.db"
    be = SqliteBackend(connect(path), [ServedBrain("b")], None)
    be.index([IndexableDoc(
        id=new_ulid(), brain="b", path=".teambrain/memories/learnings/m.md",
        title="`refunds.py` rounds", body="Never edit `migrations/`; see `catalog.variants.Variant`.",
        tags=[], class_="learning", content_hash="h",
    )])  # fmt: skip
    db = be.store.db
    with db:  # as the older version left it
        db.execute("DELETE FROM doc_paths")
        db.execute(
            "INSERT INTO doc_paths(rowid, mention) SELECT rowid, 'catalog/variants/Variant' FROM docs"
        )
        db.execute("DELETE FROM migrations WHERE name = 'm006_code_mentions'")
    db.close()
    db = connect(path)
    mentions = {row[0] for row in db.execute("SELECT mention FROM doc_paths")}
    assert mentions == {"refunds.py", "migrations/", "catalog.variants.Variant"}
