"""teambrain retrieval: hybrid FTS5 + vector search over the team brain on SQLite."""

__all__: list[str] = []
