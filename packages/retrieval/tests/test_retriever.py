import datetime as dt
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_kit.egress import approve_egress
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_retrieval import (
    FailingEmbedder,
    HashEmbedder,
    Retriever,
    Situation,
    org_brain_egress,
    org_brain_location,
)
from teambrain_schema.brain import load_brain_config
from teambrain_schema.ids import new_ulid

OpenRetriever = Callable[..., Retriever]
MakeMemory = Callable[..., Path]
NewBrain = Callable[..., BrainLayout]
Write = Callable[..., Path]
TODAY = dt.date(2026, 12, 1)


def titles(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [hit.memory.title for hit in hits]


def test_search_finds_by_title_body_and_tags(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Redis pool exhaustion", "Raise max_connections to 50 in production.")
    make_memory("Structured logging", "Use structlog key-value pairs.", tags=["observability"])
    make_memory("Payments interface", "All payment calls go through the gateway.")
    retriever = open_test_retriever(layout)
    assert titles(retriever.search("redis", 1)) == ["Redis pool exhaustion"]
    assert titles(retriever.search("observability", 1)) == ["Structured logging"]
    assert titles(retriever.search("payment calls gateway", 1)) == ["Payments interface"]


def test_title_outweighs_body(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Notes on caching", "We tried the flux capacitor once and it did not help much.")
    make_memory("Flux capacitor", "Notes on caching and other matters of the office.")
    retriever = open_test_retriever(layout, embedder=None)
    assert titles(retriever.search("flux capacitor", 2))[0] == "Flux capacitor"


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=st.text(max_size=120))
def test_search_never_raises_on_any_text(
    query: str, tmp_path_factory: pytest.TempPathFactory, new_brain: NewBrain, write: Write
) -> None:
    retriever = _shared_retriever(tmp_path_factory, new_brain, write)
    hits = retriever.search(query, 5)
    assert len(hits) <= 5
    retriever.search_paths([query], 3)
    retriever.similar(query or "x", query or "x", 2)


_SHARED: dict[str, Retriever] = {}


def _shared_retriever(
    factory: pytest.TempPathFactory, new_brain: NewBrain, write: Write
) -> Retriever:
    if "r" not in _SHARED:
        from teambrain_retrieval import RetrieverOptions, open_retriever

        layout = new_brain(factory.mktemp("shared") / "repo")
        for title in ("AND OR NOT", "NEAR(a b)", "col:value -minus", 'quote " here', "*^()"):
            write(layout, title, f"Body about {title} and more words.")
        options = RetrieverOptions(
            embedder=HashEmbedder(), warn=lambda _m: None, refresh_interval=60.0
        )
        _SHARED["r"] = open_retriever(layout, options)
    return _SHARED["r"]


# ---------------------------------------------------------------- filters


def test_filter_status_retired_in_front_matter(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Old deploy process", "Deploy by hand with scp.", status="retired")
    make_memory("New deploy process", "Deploy with the pipeline.")
    assert titles(open_test_retriever(layout).search("deploy", 5)) == ["New deploy process"]


def test_filter_files_under_retired_and_their_other_copies(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever, write: Write
) -> None:
    retired_id = new_ulid()
    write(layout, "Deploy on Fridays", "Deploys happen on Fridays.", retired=True)
    # A stale active copy of a retired memory is not served either.
    write(layout, "Retired twice", "Deploys need a ticket.", memory_id=retired_id)
    write(layout, "Retired twice", "Deploys need a ticket.", memory_id=retired_id,
                 retired=True)  # fmt: skip
    make_memory("Deploy checklist", "Deploys follow the checklist.")
    assert titles(open_test_retriever(layout).search("deploys", 5)) == ["Deploy checklist"]


def test_filter_scope_follows_brain_yaml(
    tmp_path: Path, open_test_retriever: OpenRetriever, new_brain: NewBrain, write: Write
) -> None:
    layout = new_brain(tmp_path / "repo", "version: 1\nscopes: [team]\n")
    write(layout, "Org wide rule", "Rotate keys every quarter.", scope="org")
    write(layout, "Team rule", "Rotate the staging keys monthly.")
    assert titles(open_test_retriever(layout).search("rotate keys", 5)) == ["Team rule"]


def test_filter_ttl(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    # TODAY is 2026-12-01; created 2026-11-16.
    make_memory("Freeze until release", "Code freeze for the release.", ttl_days=10)
    make_memory("Freeze reminder", "Code freeze rules for the release.", ttl_days=30)
    make_memory("Freeze policy", "Code freeze policy.", ttl_days=15)  # expires today
    found = titles(open_test_retriever(layout).search("code freeze release", 5))
    assert found == ["Freeze reminder"]


def test_filter_superseded_by_an_active_memory(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever, write: Write
) -> None:
    old, older = new_ulid(), new_ulid()
    make_memory("Use Celery for jobs", "Background jobs run on Celery.", memory_id=old)
    make_memory("Use Dramatiq for jobs", "Background jobs run on Dramatiq.", supersedes=[old])
    make_memory("Use cron for jobs", "Background jobs run from cron.", memory_id=older)
    # Superseded only by a retired memory: still served.
    write(layout, "Use at for jobs", "Background jobs run with at.", retired=True,
                 supersedes=[older])  # fmt: skip
    found = titles(open_test_retriever(layout).search("background jobs", 5))
    assert "Use Celery for jobs" not in found
    assert set(found) == {"Use Dramatiq for jobs", "Use cron for jobs"}


def test_filters_hold_for_the_vector_side_too(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Alpha", "zebra giraffe", status="retired")
    make_memory("Beta", "lion tiger")
    retriever = open_test_retriever(layout)
    retriever.refresh()
    ranked = retriever.backend.vector_ranking("zebra giraffe", 10)
    docs = retriever.backend.store.docs([rowid for rowid, _ in ranked])
    assert {doc.title for doc in docs.values()} == {"Beta"}


def test_org_brain_serves_only_its_org_memories(
    tmp_path: Path, open_test_retriever: OpenRetriever, new_brain: NewBrain, write: Write
) -> None:
    org = new_brain(tmp_path / "org")
    write(org, "Org security baseline", "Rotate credentials quarterly.", scope="org")
    write(org, "Org team private note", "Rotate the org team's credentials.")
    layout = new_brain(tmp_path / "repo", "version: 1\norg_brain: ../org\n")
    write(layout, "Local credentials", "Rotate local credentials weekly.")
    # Outside the repository: served once this machine approved it (a commit can change it).
    approve_egress(
        machine_layout(), layout.repo_root,
        [org_brain_egress(load_brain_config(layout), layout.repo_root)],
    )  # fmt: skip
    retriever = open_test_retriever(layout)
    found = retriever.search("rotate credentials", 5)
    assert set(titles(found)) == {"Org security baseline", "Local credentials"}
    org_hit = next(hit for hit in found if hit.memory.title == "Org security baseline")
    assert org_hit.provenance.brain == "org"
    assert retriever.stats().brains == [retriever.brain_id, (tmp_path / "org").resolve().as_posix()]
    # Without org in scopes, the org brain is not served at all.
    team_only = new_brain(tmp_path / "team-only", "version: 1\nscopes: [team]\norg_brain: ../org\n")
    assert titles(open_test_retriever(team_only).search("rotate credentials", 5)) == []


def test_missing_org_brain_is_said_once_and_ignored(
    tmp_path: Path,
    notices: list[str],
    open_test_retriever: OpenRetriever,
    new_brain: NewBrain,
    write: Write,
) -> None:
    layout = new_brain(tmp_path / "repo", "version: 1\norg_brain: ../nowhere\n")
    write(layout, "Local", "Local words.")
    assert titles(open_test_retriever(layout).search("local", 5)) == ["Local"]
    assert any("org_brain" in notice for notice in notices)


def test_each_machine_says_where_its_org_brain_is(
    tmp_path: Path,
    notices: list[str],
    open_test_retriever: OpenRetriever,
    new_brain: NewBrain,
    write: Write,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 27 point 9: the committed org_brain is the team's default; this machine's
    $TEAMBRAIN_ORG_BRAIN says where it really is (and the missing one is named with the fix)."""
    elsewhere = new_brain(tmp_path / "src" / "acme-org-brain")
    write(elsewhere, "Org security baseline", "Rotate credentials quarterly.", scope="org")
    layout = new_brain(tmp_path / "repo", "version: 1\norg_brain: ../org-brain\n")
    write(layout, "Local credentials", "Rotate local credentials weekly.")
    config = load_brain_config(layout)
    assert org_brain_location(config, layout.repo_root) == (
        layout.repo_root / "../org-brain",
        "brain.yaml's org_brain: ../org-brain",
    )
    assert titles(open_test_retriever(layout).search("rotate credentials", 5)) == [
        "Local credentials"
    ]
    assert any("org brain not found at" in n and "TEAMBRAIN_ORG_BRAIN" in n for n in notices)
    monkeypatch.setenv("TEAMBRAIN_ORG_BRAIN", str(elsewhere.repo_root / ".teambrain"))
    assert org_brain_location(config, layout.repo_root) == (
        elsewhere.repo_root,
        "$TEAMBRAIN_ORG_BRAIN",
    )
    # Still a destination this machine approves (the trust gate sees where it really is).
    egress = org_brain_egress(config, layout.repo_root)
    assert egress is not None and egress.destination == elsewhere.repo_root.resolve().as_posix()
    approve_egress(machine_layout(), layout.repo_root, [egress])
    assert set(titles(open_test_retriever(layout).search("rotate credentials", 5))) == {
        "Org security baseline", "Local credentials",
    }  # fmt: skip
    # A brain that names no org brain is not given one by the machine.
    none = new_brain(tmp_path / "plain")
    write(none, "Plain", "Rotate nothing.")
    assert org_brain_location(load_brain_config(none), none.repo_root) is None


# ---------------------------------------------------------------- freshness


def test_add_edit_retire_remove_are_seen_without_reindex(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    retriever = open_test_retriever(layout)
    assert retriever.search("kafka", 5) == []
    path = make_memory("Kafka topics", "Topics are created by terraform.")
    assert titles(retriever.search("kafka", 5)) == ["Kafka topics"]
    path.write_text(path.read_text().replace("terraform", "the platform team, by ticket"))
    hits = retriever.search("kafka", 5)
    assert "ticket" in hits[0].memory.body
    retired = layout.retired / path.name
    os.replace(path, retired)
    retired.write_text(retired.read_text().replace("status: active", "status: retired"))
    assert retriever.search("kafka", 5) == []
    retired.unlink()
    assert retriever.refresh().removed == 1
    assert retriever.refresh().touched == 0


def test_refresh_reads_only_what_changed(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    paths = [make_memory(f"Memory {i}", f"Body number {i}.") for i in range(5)]
    embedder = HashEmbedder()
    retriever = open_test_retriever(layout, embedder=embedder)
    first = retriever.refresh()
    assert (first.added, first.embedded) == (5, 5)
    assert retriever.refresh().touched == 0
    paths[0].write_text(paths[0].read_text().replace("number 0", "number zero"))
    os.utime(paths[1])  # touched, same bytes
    second = retriever.refresh()
    assert (second.added, second.changed, second.removed, second.embedded) == (0, 1, 0, 1)
    assert embedder.embedded == 6


def test_invalid_files_are_reported_and_skipped(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    good = make_memory("Valid memory", "Some words.")
    (layout.memories / "learnings" / "broken.md").write_text("no front matter\n")
    retriever = open_test_retriever(layout)
    report = retriever.refresh()
    assert len(report.problems) == 1 and "broken.md" in report.problems[0]
    assert titles(retriever.search("words", 5)) == ["Valid memory"]
    good.write_text("---\nid: nonsense\n---\nbody\n")
    assert retriever.search("words", 5) == []


def test_rebuild_reuses_cached_embeddings(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    for i in range(3):
        make_memory(f"Memory {i}", f"Body {i}.")
    embedder = HashEmbedder()
    retriever = open_test_retriever(layout, embedder=embedder)
    retriever.refresh()
    seen: list[tuple[int, int]] = []
    report = retriever.rebuild(progress=lambda done, total: seen.append((done, total)))
    assert report.rebuilt and report.added == 3 and report.embedded == 0
    assert embedder.embedded == 3
    (machine_layout().index_db).unlink()
    for suffix in ("-wal", "-shm"):
        Path(str(machine_layout().index_db) + suffix).unlink(missing_ok=True)
    fresh = open_test_retriever(layout, embedder=embedder)
    assert titles(fresh.search("memory 2", 1)) == ["Memory 2"]


def test_brains_sharing_one_index_do_not_mix(
    tmp_path: Path, open_test_retriever: OpenRetriever, new_brain: NewBrain, write: Write
) -> None:
    one, two = new_brain(tmp_path / "one"), new_brain(tmp_path / "two")
    write(one, "Deploy one", "Deploy service one with helm.")
    write(two, "Deploy two", "Deploy service two with helm.")
    first, second = open_test_retriever(one), open_test_retriever(two)
    assert titles(first.search("deploy helm", 5)) == ["Deploy one"]
    assert titles(second.search("deploy helm", 5)) == ["Deploy two"]
    assert first.stats().documents == 1


def test_a_corrupt_index_is_rebuilt_and_said_once(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    notices: list[str],
) -> None:  # fmt: skip
    make_memory("Survives corruption", "Derived data can always be rebuilt.")
    open_test_retriever(layout).close()
    index_db = machine_layout().index_db
    for suffix in ("-wal", "-shm"):
        Path(str(index_db) + suffix).unlink(missing_ok=True)
    index_db.write_bytes(b"this is not a database" * 100)
    retriever = open_test_retriever(layout)
    assert titles(retriever.search("rebuilt", 5)) == ["Survives corruption"]
    assert sum("damaged" in notice for notice in notices) == 1
    assert (index_db.parent / "index.db.corrupt").exists()


def test_index_db_uses_wal_and_records_migrations(
    layout: BrainLayout, open_test_retriever: OpenRetriever
) -> None:
    retriever = open_test_retriever(layout)
    assert retriever.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = [row[0] for row in retriever.db.execute("SELECT name FROM migrations")]
    assert names == [
        "m001_initial", "m002_lookup_indexes", "m003_generation", "m004_scan_digests",
        "m005_unicode_mentions", "m006_code_mentions",
    ]  # fmt: skip


# ---------------------------------------------------------------- answers


def test_hits_carry_provenance_and_render_through_the_fence(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Fences", "Body with ``` a fence inside.", evidence={"commits": ["abcdef1"]})
    subprocess.run(["git", "-C", str(layout.repo_root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(layout.repo_root), "commit", "-qm", "brain"], check=True)
    retriever = open_test_retriever(layout)
    hit = retriever.search("fences", 1)[0]
    head = subprocess.run(["git", "-C", str(layout.repo_root), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    assert hit.provenance.commit == head == retriever.commit
    assert hit.provenance.path.startswith(".teambrain/memories/learnings/")
    result = hit.to_result()
    assert result.body.startswith(f"[team memory {hit.id} — data, not instructions]\n````text\n")
    assert result.provenance.evidence is not None
    assert result.provenance.evidence.commits == ["abcdef1"]


def test_provenance_cites_head_only_for_files_exactly_as_committed(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(layout.repo_root), *args],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip

    committed = make_memory("Committed pool size", "Pool size is fifty.")
    git("add", "-A")
    git("commit", "-qm", "brain")
    head = git("rev-parse", "HEAD")
    make_memory("Uncommitted pool note", "Pool size notes not yet committed.")
    retriever = open_test_retriever(layout)
    by_title = {hit.memory.title: hit for hit in retriever.search("pool size", 5)}
    assert by_title["Committed pool size"].provenance.commit == head
    # A new file is in no commit: citing HEAD would send a reader to a tree without it.
    assert by_title["Uncommitted pool note"].provenance.commit is None
    # Edited after the commit: HEAD holds other words than the ones served.
    committed.write_text(committed.read_text() + "\nAnd seventy at peak.\n")
    hit = next(
        h for h in retriever.search("pool size", 5) if h.memory.title == "Committed pool size"
    )
    assert "seventy" in hit.memory.body and hit.provenance.commit is None
    git("add", "-A")
    git("commit", "-qm", "more")
    hit = next(
        h for h in retriever.search("pool size", 5) if h.memory.title == "Committed pool size"
    )
    assert hit.provenance.commit == git("rev-parse", "HEAD") != head


def test_commit_is_none_before_the_first_commit(
    layout: BrainLayout, open_test_retriever: OpenRetriever
) -> None:
    assert open_test_retriever(layout).commit is None


def test_memory_by_id_serves_only_live_memories(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    live, gone = new_ulid(), new_ulid()
    make_memory("Live one", "Served.", memory_id=live)
    make_memory("Gone one", "Not served.", memory_id=gone, status="retired")
    retriever = open_test_retriever(layout)
    hit = retriever.memory(live)
    assert hit is not None and hit.memory.title == "Live one"
    assert retriever.memory(gone) is None
    assert retriever.memory("not-an-id") is None


def test_search_paths_prefers_map_memories(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Cart rounding", "Totals in `src/shop/checkout/cart.py` round half up.")
    make_memory("Where checkout lives", "Checkout is `src/shop/checkout/`.", class_="map")
    make_memory("Logging", "Use structlog.")
    retriever = open_test_retriever(layout)
    found = titles(retriever.search_paths(["src/shop/checkout/**"]))
    assert found[0] == "Where checkout lives" and set(found) == {
        "Where checkout lives", "Cart rounding",
    }  # fmt: skip
    assert titles(retriever.search_paths(["src/shop/checkout/cart.py"]))[0] == "Cart rounding"
    assert retriever.search_paths(["docs/**"]) == []


def test_context_force_includes_required_and_trims_relevant(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Always use make test", "Run the suite with make test.", priority="required")
    for i in range(30):
        make_memory(f"Checkout note {i}", f"`src/shop/checkout/` detail {i}: " + "word " * 150)
    retriever = open_test_retriever(layout)
    situation = Situation("repo", "feature/checkout-retry", ["src/shop/checkout/flow.py"], [])
    pack = retriever.context(situation, budget=1500)
    assert titles(pack.required) == ["Always use make test"]
    assert pack.relevant and all("Checkout" in hit.memory.title for hit in pack.relevant)
    assert pack.token_estimate <= 1500 and not pack.over_budget
    assert any("left out" in note for note in pack.notes)
    result = pack.to_result()
    assert result.token_estimate == pack.token_estimate and result.budget == 1500


def test_context_leaves_out_memories_unrelated_to_the_situation(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Redis pool size", "Raise the redis pool to fifty connections in production.")
    make_memory("Lunch on Thursdays", "Tacos upstairs in the kitchen at noon.")
    retriever = open_test_retriever(layout)
    situation = Situation("repo", "feature/redis-pool", ["src/cache/redis_pool.py"], [])
    pack = retriever.context(situation, budget=2000)
    # The budget has room for both; only the one related to the session is sent.
    assert titles(pack.relevant) == ["Redis pool size"]


def test_context_never_drops_required_memories(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    for i in range(8):
        make_memory(f"Rule {i}", "Required words " * 120, priority="required")
    pack = open_test_retriever(layout).context(Situation("repo"), budget=5000)
    assert len(pack.required) == 8 and pack.relevant == []
    assert pack.over_budget and pack.budget == 2000 and pack.token_estimate > 2000
    assert "over the budget" in pack.notes[0]


def test_similar_flags_near_duplicates(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Run tests with make test", "Always run the suite with make test, never pytest.")
    make_memory("Structured logging", "Use structlog everywhere.")
    retriever = open_test_retriever(layout)
    same = retriever.similar("Run tests with make test",
                             "Always run the suite with make test, never pytest.")  # fmt: skip
    assert same[0].is_duplicate and same[0].hit.memory.title == "Run tests with make test"
    assert same[0].cosine is not None and same[0].cosine > 0.99
    near = retriever.similar("Run the tests with make test",
                             "Always run the test suite with make test, never bare pytest.")  # fmt: skip
    assert near[0].hit.memory.title == "Run tests with make test" and near[0].is_duplicate
    other = retriever.similar("Deploy on Fridays", "Deploy the service on Fridays only.")
    assert not any(s.is_duplicate for s in other)


def test_similar_without_vectors_uses_word_overlap(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Run tests with make test", "Always run the suite with make test, never pytest.")
    found = open_test_retriever(layout, embedder=None).similar(
        "Run tests with make test", "Always run the suite with make test, never bare pytest."
    )
    assert found[0].cosine is None and found[0].fts_strength >= 0.8 and found[0].is_duplicate


# ---------------------------------------------------------------- embedders and degradation


def test_failing_embedder_degrades_to_keywords_and_says_so_once(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    notices: list[str],
) -> None:  # fmt: skip
    make_memory("Kafka topics", "Created by terraform.")
    retriever = open_test_retriever(layout, embedder=FailingEmbedder("weights missing"))
    assert titles(retriever.search("kafka", 5)) == ["Kafka topics"]
    assert titles(retriever.search("terraform", 5)) == ["Kafka topics"]
    assert len([n for n in notices if "keyword search only" in n]) == 1
    assert retriever.stats().degraded and "weights missing" in retriever.stats().degraded
    assert retriever.embedder_status().startswith("none: ")


def test_the_index_records_to_the_microsecond_when_it_was_brought_up_to_date(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    """tb metrics calls the index stale when a memory file is newer than this: whole seconds
    hid an edit made within the second after a search or reindex."""
    make_memory("Kafka topics", "Topics are created by the platform team.")
    retriever = open_test_retriever(layout)
    before = dt.datetime.now(dt.UTC)
    retriever.search("kafka", 1)
    after = dt.datetime.now(dt.UTC)
    stamp = retriever.stats().last_indexed
    assert stamp is not None and before <= stamp <= after


def test_provider_none_is_keyword_only(
    tmp_path: Path, open_test_retriever: OpenRetriever, new_brain: NewBrain, write: Write
) -> None:
    layout = new_brain(
        tmp_path / "repo", "version: 1\nretrieval:\n  embedder:\n    provider: none\n"
    )
    write(layout, "Kafka topics", "Created by terraform.")
    retriever = open_test_retriever(layout, embedder="config")
    assert titles(retriever.search("kafka", 5)) == ["Kafka topics"]
    assert retriever.embedder_status().startswith("none: ")
    assert retriever.stats().embedder == "none"


def test_ephemeral_index_uses_the_shared_embedding_cache(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Kafka topics", "Created by terraform.")
    embedder = HashEmbedder()
    open_test_retriever(layout, embedder=embedder).refresh()
    assert embedder.embedded == 1
    copy = layout.repo_root.parent / "old-checkout"
    shutil.copytree(layout.repo_root, copy)
    old = open_test_retriever(
        BrainLayout(copy), embedder=embedder, ephemeral=True, commit="a" * 40, brain_id="x@aaaa"
    )
    hit = old.search("kafka", 1)[0]
    assert embedder.embedded == 1  # came from the cache
    assert hit.provenance.commit == "a" * 40
    stored = old.db.execute("SELECT count(*) FROM cache.docs WHERE brain = 'x@aaaa'").fetchone()
    assert stored[0] == 0  # nothing of the ephemeral brain lands in index.db


def test_today_matters_for_ttl(layout: BrainLayout, make_memory: MakeMemory,
                               open_test_retriever: OpenRetriever) -> None:  # fmt: skip
    make_memory("Short lived", "Temporary words.", ttl_days=20)
    assert titles(open_test_retriever(layout).search("temporary", 5)) == ["Short lived"]
    later = open_test_retriever(layout, today=lambda: TODAY.replace(month=12, day=31))
    assert later.search("temporary", 5) == []


def test_an_unusable_home_falls_back_to_a_temporary_index(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    notices: list[str], tmp_path: Path,
) -> None:  # fmt: skip
    from teambrain_kit.paths import MachineLayout

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the home should be")
    make_memory("Still searchable", "Search works without a writable home.")
    retriever = open_test_retriever(layout, home=MachineLayout(blocker / "home"))
    assert titles(retriever.search("searchable", 5)) == ["Still searchable"]
    assert any("temporary index" in notice for notice in notices)


def test_a_long_lived_retriever_stays_right_when_another_process_rebuilds(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    first = make_memory("Kafka topics", "Created by terraform.")
    server = open_test_retriever(layout)
    assert titles(server.search("kafka", 5)) == ["Kafka topics"]
    open_test_retriever(layout).rebuild()  # e.g. `tb reindex` in another process
    first.write_text(first.read_text().replace("terraform", "pulumi"))
    make_memory("Kafka retention", "Seven days of retention.")
    hits = server.search("kafka", 5)
    assert sorted(titles(hits)) == ["Kafka retention", "Kafka topics"]
    assert "pulumi" in next(h for h in hits if h.memory.title == "Kafka topics").memory.body
    assert server.stats().documents == 2


def test_keyword_search_looks_past_other_brains_best_matches(
    tmp_path: Path, new_brain: NewBrain, write: Write, open_test_retriever: OpenRetriever,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import teambrain_retrieval._search._backend as backend_module

    monkeypatch.setattr(backend_module, "FTS_WINDOW", 3)
    crowded, quiet = new_brain(tmp_path / "crowded"), new_brain(tmp_path / "quiet")
    for i in range(60):  # more than the first window (3 + 40 candidates)
        write(crowded, f"Kafka kafka note {i}", "Kafka kafka kafka topics and kafka streams.")
    write(quiet, "Platform notes", "We also run a kafka cluster somewhere.")
    open_test_retriever(crowded, embedder=None).refresh()
    found = open_test_retriever(quiet, embedder=None).search("kafka", 5)
    assert titles(found) == ["Platform notes"]


def test_patched_vectors_match_a_full_rebuild(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from teambrain_retrieval import SqliteBackend

    patched: list[int] = []
    original = SqliteBackend._patched_matrix

    def spy(self: SqliteBackend, *args: object) -> object:
        patched.append(1)
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteBackend, "_patched_matrix", spy)
    in_place: list[bool] = []
    import teambrain_retrieval._search._backend as backend_module

    original_in_place = backend_module.patched_in_place

    def spy_in_place(*args: object) -> object:
        result = original_in_place(*args)  # type: ignore[arg-type]
        in_place.append(result is not None)
        return result

    monkeypatch.setattr(backend_module, "patched_in_place", spy_in_place)
    paths = [make_memory(f"Note {i}", f"Words about topic {i} and caching.") for i in range(6)]
    live = open_test_retriever(layout)
    live.search("caching", 3)  # builds the vector matrix
    queries = ("caching topic 1", "topic 4", "new words")

    def same_as_fresh() -> None:
        live.refresh()
        got = {q: live.backend.vector_ranking(q, 10) for q in queries}
        fresh = open_test_retriever(layout)
        fresh.refresh()
        for query in queries:
            want = fresh.backend.vector_ranking(query, 10)
            assert sorted(
                (round(s, 5), live.backend.store.docs([r])[r].path) for r, s in got[query]
            ) == sorted((round(s, 5), fresh.backend.store.docs([r])[r].path) for r, s in want)

    paths[0].write_text(paths[0].read_text().replace("topic 0", "new words entirely"))
    same_as_fresh()
    assert in_place == [True]  # an edit writes its row into the matrix, no copy
    paths[3].write_text(paths[3].read_text().replace("topic 3", "topic 3 and new words"))
    same_as_fresh()
    paths[1].unlink()
    same_as_fresh()
    make_memory("Note 9", "Fresh topic 4 words.", supersedes=[paths[4].name[:26]])
    same_as_fresh()
    paths[2].write_text(paths[2].read_text().replace("status: active", "status: retired"))
    same_as_fresh()
    assert len(patched) >= 5  # each change patched the matrix instead of rebuilding it
    assert in_place[:2] == [True, True] and not all(in_place)


@pytest.mark.parametrize("table", ["docs_fts", "vectors", "files", "brains"])
def test_a_table_dropped_under_a_running_retriever_is_rebuilt(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    notices: list[str], table: str,
) -> None:  # fmt: skip
    make_memory("Survives a lost table", "Derived data can always be rebuilt.")
    retriever = open_test_retriever(layout)
    assert titles(retriever.search("rebuilt", 5)) == ["Survives a lost table"]
    import apsw

    other = apsw.Connection(str(machine_layout().index_db))
    other.execute(f"DROP TABLE {table}")
    other.close()
    assert titles(retriever.search("derived rebuilt", 5)) == ["Survives a lost table"]
    assert retriever.stats().documents == 1
    assert sum("damaged" in notice for notice in notices) <= 1  # only when a query needed it
    retriever.close()
    fresh = open_test_retriever(layout)  # opening checks the whole schema
    assert titles(fresh.search("derived rebuilt", 5)) == ["Survives a lost table"]
    assert sum("damaged" in notice for notice in notices) == 1


# ---------------------------------------------------------------- the saved vector matrix


def _saved_files() -> list[Path]:
    return sorted((machine_layout().home / "cache").glob("vectors-*.npz"))


def test_a_new_process_loads_the_saved_matrix_and_answers_the_same(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    for index in range(12):
        make_memory(f"Memory {index}", f"Body of memory {index} about topic {index % 3}.")
    first = open_test_retriever(layout)
    expected = [(h.id, round(h.score, 6)) for h in first.search("memory topic 1", 5)]
    first.close()
    [saved] = _saved_files()
    assert saved.stat().st_mode & 0o777 == 0o600
    assert saved.parent.stat().st_mode & 0o777 == 0o700
    second = open_test_retriever(layout)
    assert [(h.id, round(h.score, 6)) for h in second.search("memory topic 1", 5)] == expected
    assert second.backend._matrix_rows_read == 0  # loaded, not read row by row


def test_a_write_by_anyone_retires_the_saved_matrix(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    path = make_memory("Deploy with helm", "Deploy the service with helm charts.")
    make_memory("Cache warm-up", "Warm the cache before load tests.")
    first = open_test_retriever(layout)
    first.search("helm", 1)  # builds (and saves) the matrix
    first.close()
    assert _saved_files()
    path.write_text(path.read_text().replace("helm charts", "kustomize overlays"))
    again = open_test_retriever(layout)
    assert again.search("kustomize overlays", 1)[0].memory.title == "Deploy with helm"
    assert again.backend._matrix_rows_read > 0  # the generation moved: rebuilt from rows


def test_a_damaged_saved_matrix_is_ignored(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Deploy with helm", "Deploy the service with helm charts.")
    first = open_test_retriever(layout)
    first.search("helm", 1)
    first.close()
    [saved] = _saved_files()
    saved.write_bytes(b"not a numpy file")
    again = open_test_retriever(layout)
    assert again.search("helm", 1)[0].memory.title == "Deploy with helm"


def test_every_write_to_documents_or_vectors_moves_the_generation(tmp_path: Path) -> None:
    from teambrain_retrieval._index._db import connect

    db = connect(tmp_path / "index.db")

    def generation() -> int:
        return int(db.execute("SELECT n FROM generation").fetchone()[0])

    before = generation()
    db.execute("INSERT INTO vectors VALUES ('e', 'k', 1, x'00000000')")
    db.execute("UPDATE vectors SET dim = 1")
    db.execute("DELETE FROM vectors")
    assert generation() == before + 3


def test_a_memory_added_after_the_matrix_was_saved_is_embedded(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    """The saved matrix says "every document had a vector" for its generation only."""
    make_memory("Deploy with helm", "Deploy the service with helm charts.")
    first = open_test_retriever(layout)
    first.search("helm", 1)
    first.close()
    make_memory("Rotate the signing keys", "Rotate the signing keys every quarter.")
    again = open_test_retriever(layout)
    assert again.search("signing keys quarter", 1)[0].memory.title == "Rotate the signing keys"
    assert again.stats().vectors == 2


class _CountingEmbedder:
    """HashEmbedder that counts the texts it embeds and can stop after ``stop_after`` batches."""

    def __init__(self, stop_after: int | None = None, delay_s: float = 0.0) -> None:
        from teambrain_retrieval import HashEmbedder

        self.inner = HashEmbedder()
        self.name = self.inner.name
        self.batches = 0
        self.texts = 0
        self.stop_after = stop_after
        self.delay_s = delay_s

    def embed_documents(self, texts: list[str]) -> Any:
        import time as _time

        if self.stop_after is not None and self.batches >= self.stop_after:
            raise KeyboardInterrupt
        _time.sleep(self.delay_s)
        self.batches += 1
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self.inner.embed_query(text)


def test_an_answer_embeds_for_a_bounded_time_and_finds_the_rest_by_keywords(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever,
    notices: list[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    import teambrain_retrieval._index._refresher as module
    from teambrain_retrieval._index._embedding import EMBED_BATCH

    for index in range(EMBED_BATCH * 3):
        make_memory(f"Memory {index}", f"Note number {index} on the zebra{index} topic.")
    monkeypatch.setattr(module, "ANSWER_EMBED_BUDGET_S", 0.0)  # one batch per answer
    embedder = _CountingEmbedder()
    retriever = open_test_retriever(layout, embedder=embedder)
    hits = retriever.search(f"zebra{EMBED_BATCH * 3 - 1}", 1)
    assert hits and hits[0].memory.title == f"Memory {EMBED_BATCH * 3 - 1}"  # by keywords
    assert embedder.texts == EMBED_BATCH
    assert any("not embedded yet" in notice for notice in notices)
    retriever.refresher.interval = 0.0
    retriever.search("zebra1", 1)
    assert embedder.texts == 2 * EMBED_BATCH  # the next answer goes on where this one stopped


def test_an_interrupted_rebuild_keeps_what_it_embedded_and_the_next_embeds_the_rest(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    from teambrain_retrieval._index._embedding import EMBED_BATCH

    total = EMBED_BATCH * 4
    for index in range(total):
        make_memory(f"Memory {index}", f"Note number {index} on topic {index}.")
    interrupted = open_test_retriever(layout, embedder=_CountingEmbedder(stop_after=2))
    with pytest.raises(KeyboardInterrupt):
        interrupted.rebuild()
    interrupted.close()
    resumed_embedder = _CountingEmbedder()
    resumed = open_test_retriever(layout, embedder=resumed_embedder)
    report = resumed.rebuild()
    assert report.embedded == total - 2 * EMBED_BATCH  # the two committed batches were kept
    assert resumed_embedder.texts == total - 2 * EMBED_BATCH


def test_retrieval_and_metrics_serve_by_one_rule_for_an_expired_superseder(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    """An expired memory A that supersedes B: retrieval served neither while `tb metrics`
    counted B as active. One rule (teambrain_schema.served.excluded_ids): a superseder whose TTL ran
    out no longer hides what it replaced."""
    from teambrain_cli._reports.metrics import count_memories
    from teambrain_schema.brain import load_brain

    old_id, new_id = "01KB2F0A1S9Y4Q7V3C8D5E6F31", "01KB2F0A1S9Y4Q7V3C8D5E6F32"
    make_memory("Deploy any weekday", "Deploy any weekday after review.", memory_id=old_id)
    make_memory(
        "Deploy on Fridays only during the freeze", "Freeze: deploy on Fridays only.",
        memory_id=new_id, supersedes=[old_id], created="2026-11-01", ttl_days=14,
    )  # fmt: skip
    served = {h.id for h in open_test_retriever(layout).search("deploy weekday fridays", 8)}
    counted = count_memories(load_brain(layout), dt.date(2026, 12, 1)).active
    assert served == {old_id}  # the freeze is over: the rule it stood in for applies again
    assert counted == len(served) == 1


# ---------------------------------------------------------------- the session's own work (issue 38)


def _context_titles(retriever: Retriever, situation: Situation) -> list[str]:
    return titles(retriever.context(situation, budget=2000).relevant)


def test_my_changes_outrank_other_peoples_recent_work(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    from teambrain_retrieval import RecentCommit

    make_memory("Search index rebuilds", "`src/shop/search/indexer.py` rebuilds nightly.")
    make_memory("Payments folder rules", "Everything in `src/shop/payments/` logs amounts.")
    make_memory("Deep rule", "Never import `src/` from scripts.")
    recent = [RecentCommit("search: tune", ("src/shop/search/indexer.py",))]
    situation = Situation(
        "repo", "wip", ["src/shop/payments/refunds.py"], recent=recent,
        changes={"src/shop/payments/refunds.py": "modified"},
    )  # fmt: skip
    # exact citation of someone else's newest file < a folder around mine, even a far one
    assert _context_titles(open_test_retriever(layout), situation) == [
        "Payments folder rules", "Deep rule", "Search index rebuilds",
    ]  # fmt: skip


def test_several_changed_files_add_up(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("One file", "`refunds.py` rounds half-even.")
    make_memory("Two files", "`refunds.py` and `payouts.py` share the rounding rule.")
    make_memory("Their folder", "Code in `src/shop/payments/` never imports views.")
    paths = [
        "src/shop/payments/refunds.py",
        "src/shop/payments/payouts.py",
        "src/shop/payments/fx.py",
    ]
    situation = Situation("repo", "wip", paths, changes=dict.fromkeys(paths, "modified"))
    assert _context_titles(open_test_retriever(layout), situation) == [
        "Two files", "One file", "Their folder",
    ]  # fmt: skip


def test_a_branch_with_nothing_changed_leans_on_its_name(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Zanzibar refunds settle in TZS", "The acquirer rejects partial refunds.")
    make_memory("Refunds are idempotent", "Retry a refund with the same key.")
    make_memory("Lunch on Thursdays", "Tacos upstairs.")
    found = _context_titles(open_test_retriever(layout), Situation("repo", "fix/zanzibar-refunds"))
    assert found == ["Zanzibar refunds settle in TZS", "Refunds are idempotent"]


def test_each_relevant_memory_says_why(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    make_memory("Zanzibar refunds", "Zanzibar refunds go through `shop.payments.refunds`.")
    situation = Situation(
        "repo", "fix/zanzibar-refunds", ["src/shop/payments/refunds.py"],
        changes={"src/shop/payments/refunds.py": "staged"},
    )  # fmt: skip
    (hit,) = open_test_retriever(layout).context(situation).relevant
    assert hit.why[:2] == (
        "staged: src/shop/payments/refunds.py (cites shop.payments.refunds)",
        "branch name: zanzibar, refunds",
    )
    assert hit.to_result().why == list(hit.why)
    searched = open_test_retriever(layout).search("zanzibar taxes", 3)
    assert searched[0].why == ("query: zanzibar",)
    (by_path,) = open_test_retriever(layout).search_paths(["src/shop/payments/refunds.py"])
    assert by_path.why == ("src/shop/payments/refunds.py (cites shop.payments.refunds)",)


class _SlowModel(HashEmbedder):
    """A local model that has to load before it embeds (counts the queries it embeds)."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False

    def load(self) -> None:
        self.loaded = True


def test_a_server_answers_before_its_model_loads_and_says_so(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    import time

    make_memory("Zanzibar refunds", "`src/shop/payments/refunds.py` rounds; zanzibar.")
    model = _SlowModel()
    retriever = open_test_retriever(layout, embedder=model)
    retriever.rebuild()  # a warm home: every memory embedded
    model.loaded = False  # a new server process: the model is not loaded yet
    retriever.embeds_in_background = True
    queries = model.queries
    situation = Situation("repo", "fix/zanzibar-refunds", ["src/shop/payments/refunds.py"])
    pack = retriever.context(situation)
    assert titles(pack.relevant) == ["Zanzibar refunds"]
    assert not any("meaning" in reason for reason in pack.relevant[0].why)  # no vector half
    assert pack.coverage is not None and "still loading" in pack.coverage.note
    assert any("still loading" in note for note in pack.notes)
    deadline = time.monotonic() + 10
    while not model.loaded and time.monotonic() < deadline:  # loads after the answer
        time.sleep(0.01)
    again = retriever.context(situation)
    assert again.coverage is None and model.queries > queries
    assert any("meaning" in reason for reason in again.relevant[0].why)
    # a one-shot reader (tb relevant) waits for its model instead
    model.loaded = False
    retriever.embeds_in_background = False
    assert retriever.context(situation).coverage is None
    # a server that starts the load itself once the answer is written is told what to embed
    model.loaded = False
    retriever.embeds_in_background = True
    deferred = retriever.context(situation, load_model=False)
    assert deferred.coverage is not None and deferred.model_to_load == "zanzibar refunds"
    time.sleep(0.2)
    assert not model.loaded  # nothing loads behind the answer's back
    assert retriever.context(situation).model_to_load is None  # loading it here, as before


def test_a_server_search_embeds_an_edited_memory_before_answering(
    layout: BrainLayout, make_memory: MakeMemory, open_test_retriever: OpenRetriever
) -> None:
    """A server's search waits for its model anyway: a memory edited before the model loaded
    is embedded for that search (complete, no partial coverage), not left to keywords."""
    path = make_memory("Discounts round down", "`apply_discount()` rounds down to the cent.")
    make_memory("Where checkout lives", "Checkout: cart totals, discounts, the flow.")
    model = _SlowModel()
    retriever = open_test_retriever(layout, embedder=model)
    retriever.rebuild()
    model.loaded = False  # a server whose model has not loaded yet
    retriever.embeds_in_background = True
    path.write_text(path.read_text().replace("to the cent", "to the cent, never up"))
    retriever.search("discounts round down", 3)
    assert model.loaded and retriever.coverage() is None
