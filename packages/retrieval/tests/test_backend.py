"""SqliteBackend directly: the source filter on both halves, and the vector floor."""

import datetime as dt

from teambrain_retrieval import HashEmbedder, ServedBrain, SqliteBackend
from teambrain_retrieval._index._db import connect
from teambrain_retrieval._search._fusion import VECTOR_FLOOR
from teambrain_schema import IndexableDoc
from teambrain_schema.ids import new_ulid


def doc(title: str, body: str, source: str = "memory") -> IndexableDoc:
    return IndexableDoc(
        id=new_ulid(), source=source, brain="b", path=f".teambrain/memories/learnings/{title}.md",
        title=title, body=body, class_="learning", scope="team", status="active",
        priority="advisory", created=dt.date(2026, 11, 1), content_hash=title,
    )  # fmt: skip


def backend(*docs: IndexableDoc) -> SqliteBackend:
    be = SqliteBackend(connect(None), [ServedBrain("b")], HashEmbedder())
    for d in docs:
        be.index([d], d.source)
    return be


def test_both_halves_honour_sources() -> None:
    memory = doc("retry budget", "The retry budget of the payment client is three attempts.")
    code = doc("retry budget code", "retry budget payment client attempts", source="codemap")
    be = backend(memory, code)
    everything = {hit.id for hit in be.search("retry budget payment client", 5)}
    assert everything == {memory.id, code.id}
    only = be.search("retry budget payment client", 5, sources=["memory"])
    assert [hit.id for hit in only] == [memory.id]
    vectors = be.vector_ranking("retry budget payment client", 5, sources=["codemap"])
    assert [be.store.docs([rowid])[rowid].id for rowid, _ in vectors] == [code.id]


def test_unrelated_vector_neighbours_do_not_fill_the_answer() -> None:
    related = doc("Redis pool", "Raise the redis pool size to fifty connections in production.")
    unrelated = doc("Lunch", "Tacos on Thursdays in the kitchen upstairs.")
    be = backend(related, unrelated)
    query = "redis pool connections"
    cosines = dict(be.vector_ranking(query, 5))
    rowid = {d.id: r for r, d in be.store.docs(list(cosines)).items()}
    # Without the floor the vector half would rank every memory, however far.
    assert set(rowid) == {related.id, unrelated.id}
    assert cosines[rowid[unrelated.id]] < VECTOR_FLOOR <= cosines[rowid[related.id]]
    assert [hit.id for hit in be.search(query, 5)] == [related.id]
    # A keyword match keeps its vector vote, whatever its cosine.
    assert [hit.id for hit in be.search("tacos", 5)] == [unrelated.id]


def test_stats_counts_follow_every_write_although_they_are_cached() -> None:
    first, second = doc("alpha", "first memory"), doc("beta", "second memory")
    be = backend(first)
    assert (be.stats().documents, be.stats().vectors) == (1, 1)
    be.index([second], "memory")
    assert (be.stats().documents, be.stats().vectors) == (2, 2)
    code = doc("gamma", "a code map entry", source="codemap")
    be.index([code], "codemap")
    assert be.stats().by_source == {"memory": 2, "codemap": 1}
    be.remove([first.id, code.id])
    stats = be.stats()
    assert (stats.documents, stats.vectors, stats.by_source) == (1, 1, {"memory": 1})
    stats.by_source["memory"] = 99  # the caller's copy, not the cache
    assert be.stats().by_source == {"memory": 1}


def test_a_document_text_is_embedded_once_and_a_stored_one_never() -> None:
    from teambrain_retrieval import embed_text

    stored = doc("retry budget", "The payment client retries three times.")
    embedder = HashEmbedder()
    be = SqliteBackend(connect(None), [ServedBrain("b")], embedder)
    be.index([stored], "memory")
    before = embedder.embedded
    again = be.embeddings.embed_document(embed_text(stored.title, stored.body))
    assert embedder.embedded == before  # read from the vectors table
    assert (
        again is not None
        and again.tolist() == be.embeddings.stored_vector(stored.title, stored.body).tolist()
    )
    draft = embed_text("retry budget", "Retry the payment client at most three times.")
    first = be.embeddings.embed_document(draft)
    assert embedder.embedded == before + 1
    assert be.embeddings.embed_document(draft) is first and embedder.embedded == before + 1


def test_lookups_by_key_never_read_the_whole_brain() -> None:
    """The keyword half's filter, the vectors re-read after an edit and the served rule's
    superseded/retired rows are lookups of a few rows. Without statistics SQLite would rather
    walk docs_by_brain — every memory of the brain; the query plans say whether it does."""
    docs = [doc(f"note {i}", f"retry budget number {i} of the payment client") for i in range(40)]
    be = backend(*docs)
    be.search("retry budget payment", 5)  # the vector matrix, built once
    edited = docs[3].model_copy(update={"body": "the retry budget doubled", "content_hash": "x"})
    be.index([edited], "memory")
    statements: list[tuple[str, object]] = []

    def trace(cursor: object, sql: str, bindings: object) -> bool:
        statements.append((sql, bindings))
        return True

    be.store.db.exec_trace = trace
    try:
        hits = be.search("budget doubled", 5)
    finally:
        be.store.db.exec_trace = None
    assert edited.id in {hit.id for hit in hits}
    lookups = [(sql, b) for sql, b in statements if " IN (" in sql and "FROM docs d" in sql]
    kinds = {kind for sql, _ in lookups for kind in ("rowid", "embed_key", "brain")
             if f"d.{kind} IN (" in sql}  # fmt: skip
    # By rowid (the keyword half, the edited row), by content key (the re-read vector) and
    # what the served rule hides (the write made a new snapshot).
    assert kinds == {"rowid", "embed_key", "brain"}, statements
    for sql, bindings in lookups:
        plan = " | ".join(
            row[3] for row in be.store.db.execute(f"EXPLAIN QUERY PLAN {sql}", bindings)
        )
        assert "docs_by_brain" not in plan and "SCAN d" not in plan, (sql, plan)
