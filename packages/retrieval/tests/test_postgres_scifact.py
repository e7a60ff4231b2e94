"""Both backends on the same brain rank the same: SciFact (../shared/data/scifact) loaded into
SqliteBackend and PostgresBackend, the claims searched on each, nDCG@10 compared. Where the
SciFact files are not beside the checkout (they may not ship with the project), a labelled
corpus generated here stands in, so the comparison always runs.

A slice keeps it quick: every abstract judged for the first 100 claims plus 1,200 others,
and the deterministic HashEmbedder for vectors (the real model's figures over the whole corpus
are benchmarks/bench_postgres.py's). What may differ between the two is only the text analysis
(Postgres' english stemmer and stopwords against FTS5's porter tokenizer); ranking, fusion and
filters are the same code or the same formula.
"""

from __future__ import annotations

import json
import math
import os
import statistics
from pathlib import Path
from typing import Any

import pytest
from teambrain_retrieval import HashEmbedder, ServedBrain, SqliteBackend
from teambrain_retrieval._index._db import connect as sqlite_connect
from teambrain_retrieval._postgres import PostgresBackend, connect, migrate
from teambrain_schema import IndexableDoc

BRAIN = "scifact"
CLAIMS = 100
OTHERS = 1200
# nDCG@10 of the two backends may differ by this much (measured: keyword +0.003, hybrid
# +0.007 on the whole corpus; the slice's own figures are in the assertion message).
NDCG_TOLERANCE = 0.02
MIN_TOP10_OVERLAP = 0.8


def _scifact_dir() -> Path | None:
    if os.environ.get("SCIFACT_DIR"):
        return Path(os.environ["SCIFACT_DIR"])
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "data" / "scifact"
        if (candidate / "corpus.jsonl").is_file():
            return candidate
    return None


DATA = _scifact_dir()


def ndcg10(ranked: list[str], rels: dict[str, int]) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rels.values(), reverse=True)[:10]
    return dcg / sum(g / math.log2(i + 2) for i, g in enumerate(ideal))


def _doc(corpus_id: str, title: str, body: str) -> IndexableDoc:
    return IndexableDoc(
        id=f"sf{corpus_id}",
        brain=BRAIN,
        path=f".teambrain/memories/sf{corpus_id}.md",
        title=title,
        body=body,
        class_="learning",
        content_hash=corpus_id,
    )


def generated() -> tuple[list[IndexableDoc], dict[str, str], dict[str, dict[str, int]]]:
    """A labelled corpus of 960 documents in 80 topics (made-up words neither stemmer alters):
    each document holds five of its topic's ten words among 30-80 background words; a query is
    three words of a topic, and a document of that topic is as relevant as the query words it
    holds."""
    import random

    rng = random.Random(20261206)
    syllables = [c + v for c in "bdfgklmnprstvz" for v in "aou"]
    vocabulary: list[str] = []
    seen: set[str] = set()
    while len(vocabulary) < 2800:
        word = "".join(rng.choice(syllables) for _ in range(3))
        if word not in seen:
            seen.add(word)
            vocabulary.append(word)
    topics = [vocabulary[i * 10 : i * 10 + 10] for i in range(80)]
    background = vocabulary[800:]
    weights = [1 / (rank + 1) for rank in range(len(background))]
    docs: list[IndexableDoc] = []
    holds: dict[str, tuple[int, set[str]]] = {}
    for topic, words in enumerate(topics):
        for n in range(12):
            chosen = rng.sample(words, 5)
            text = [w for w in chosen for _ in range(rng.randint(1, 3))]
            text += rng.choices(background, weights, k=rng.randint(30, 80))
            rng.shuffle(text)
            corpus_id = f"{topic}-{n}"
            holds[corpus_id] = (topic, set(chosen))
            docs.append(_doc(corpus_id, " ".join(text[:4]), " ".join(text)))
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for topic, words in enumerate(topics[:60]):
        asked = set(rng.sample(words, 3))
        queries[str(topic)] = " ".join(sorted(asked))
        qrels[str(topic)] = {
            cid: len(asked & held)
            for cid, (t, held) in holds.items()
            if t == topic and asked & held
        }
    return docs, queries, qrels


# The corpora this machine has: the generated one always, SciFact where it is found.
SOURCES = ["generated", *(["scifact"] if DATA is not None else [])]


def load(source: str) -> tuple[list[IndexableDoc], dict[str, str], dict[str, dict[str, int]]]:
    if source == "generated":
        return generated()
    assert DATA is not None
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels" / "test.tsv").read_text("utf-8").splitlines()[1:]:
        query, doc, score = line.split("\t")
        if int(score) > 0:
            qrels.setdefault(query, {})[doc] = int(score)
    chosen = dict(list(qrels.items())[:CLAIMS])
    judged = {doc for rels in chosen.values() for doc in rels}
    queries = {}
    for line in (DATA / "queries.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        if str(record["_id"]) in chosen:
            queries[str(record["_id"])] = record["text"]
    docs: list[IndexableDoc] = []
    for line in (DATA / "corpus.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        corpus_id = str(record["_id"])
        if corpus_id not in judged and len(docs) - len(judged) >= OTHERS:
            continue
        title = " ".join((record.get("title") or "").split())[:80] or "untitled"
        body = " ".join((record.get("text") or "").split()[:400]) or title
        docs.append(_doc(corpus_id, title, body))
    return docs, queries, chosen


@pytest.mark.parametrize("source", SOURCES)
def test_postgres_ranks_scifact_like_sqlite(source: str, postgres_url: str, tmp_path: Path) -> None:
    docs, queries, qrels = load(source)
    pg = connect(postgres_url, timeout_s=30)
    migrate(pg)
    remote = PostgresBackend(pg, [ServedBrain(BRAIN)], HashEmbedder())
    remote.index(docs)
    lite = SqliteBackend(
        sqlite_connect(tmp_path / "index.db"), [ServedBrain(BRAIN)], HashEmbedder()
    )
    lite.index(docs)

    def run(backend: Any, mode: str) -> dict[str, list[str]]:
        out = {}
        for query_id, text in queries.items():
            ranked = backend.ranked(text, 10, mode=mode)
            ids = backend.docs([r for r, _ in ranked]) if isinstance(backend, PostgresBackend) \
                else backend.store.docs([r for r, _ in ranked])  # fmt: skip
            out[query_id] = [ids[rowid].id.removeprefix("sf") for rowid, _ in ranked]
        return out

    report = []
    for mode in ("fts", "vector", "hybrid"):
        a, b = run(lite, mode), run(remote, mode)
        ndcg_a = statistics.mean(ndcg10(a[q], qrels[q]) for q in queries)
        ndcg_b = statistics.mean(ndcg10(b[q], qrels[q]) for q in queries)
        overlap = statistics.mean(len(set(a[q]) & set(b[q])) / 10 for q in queries)
        report.append((mode, ndcg_a, ndcg_b, overlap))
    message = "; ".join(
        f"{mode}: sqlite {x:.3f} postgres {y:.3f} overlap {o:.2f}" for mode, x, y, o in report
    )
    for mode, ndcg_sqlite, ndcg_postgres, overlap in report:
        assert abs(ndcg_sqlite - ndcg_postgres) <= NDCG_TOLERANCE, message
        assert overlap >= MIN_TOP10_OVERLAP, message
        if mode == "fts":
            assert ndcg_postgres > 0.6, message  # keyword search works at all, on both
    pg.close()
