from pathlib import Path

import pytest
from teambrain_retrieval._db import IndexCorrupt, connect, migrate, move_aside


def test_migrations_run_once_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "home" / "index.db"
    db = connect(path)
    assert migrate(db) == []
    rows = db.execute("SELECT name FROM migrations").fetchall()
    assert rows == [("m001_initial",), ("m002_lookup_indexes",)]
    db.close()
    again = connect(path)
    assert again.execute("SELECT count(*) FROM migrations").fetchone() == (2,)


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
