"""The package's rooms hold what they say: SQL text for SQLite only in the index (``_index/``;
the shared index's PostgreSQL in ``_postgres/``), and a facade that only puts the rooms together.
(Who may import whom is import-linter's: .importlinter, "retrieval's rooms".)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import teambrain_retrieval

PACKAGE = Path(teambrain_retrieval.__file__).resolve().parent
SQL = re.compile(
    r"\b(SELECT|INSERT|UPDATE|DELETE FROM|CREATE|DROP|ALTER TABLE|PRAGMA|ATTACH|DETACH|VACUUM)\b"
    r"|\b[a-z]\.[a-z_]+ (=|IN\b|IS\b)"  # a condition on a table alias: "d.priority = 'required'"
)
SQL_ROOMS = ("_index", "_postgres")


def _strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module (f-strings' literal parts too), docstrings left out."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def _sql_in(path: Path) -> list[str]:
    return [f"{path.relative_to(PACKAGE)}:{line}: {text[:60]!r}"
            for line, text in _strings(path) if SQL.search(text)]  # fmt: skip


def test_sql_text_lives_in_the_index() -> None:
    outside = [
        found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] not in SQL_ROOMS
        for found in _sql_in(path)
    ]
    assert not outside, "SQL outside _index/ and _postgres/:\n" + "\n".join(outside)


def test_the_check_sees_sql_where_it_is() -> None:
    store = _sql_in(PACKAGE / "_index" / "_store.py")
    assert any("SELECT" in line for line in store)
    assert any("d.priority = " in line for line in store)  # REQUIRED, a bare condition
    assert not _sql_in(PACKAGE / "_query.py")  # FTS5 query syntax words are not SQL text


def test_search_answers_hold_no_sql_and_the_facade_no_database() -> None:
    facade = (PACKAGE / "_retriever.py").read_text()
    assert "import apsw" not in facade.replace("    import apsw\n", "")  # types only
    assert not _sql_in(PACKAGE / "_search" / "_answers.py")
