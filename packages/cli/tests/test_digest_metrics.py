import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

from digest_spool import IDS, SessionSpec, write_sessions
from teambrain_capture import record_feedback
from teambrain_cli._reports.metrics import (
    ComponentStatus,
    MetricsSnapshot,
    count_memories,
    format_age,
    index_status,
    recent_activity,
    render_metrics_json,
    render_metrics_text,
)
from teambrain_kit.paths import BrainLayout, machine_layout
from teambrain_schema import IndexStats, MemoryFrontMatter
from teambrain_schema.brain import load_brain
from teambrain_schema.frontmatter import new_memory_text
from teambrain_schema.slugs import slugify

TODAY = dt.date(2026, 7, 8)


def write_memory(layout: BrainLayout, memory_id: str, title: str, **front: Any) -> None:
    fields: dict[str, Any] = {
        "id": memory_id, "class": "convention", "scope": "team", "status": "active",
        "priority": "advisory", "title": title, "created": dt.date(2026, 6, 1),
    } | front  # fmt: skip
    matter = MemoryFrontMatter.model_validate(fields)
    folder = layout.retired if matter.status == "retired" else layout.class_dir(matter.class_)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{memory_id}-{slugify(title)}.md"
    path.write_text(new_memory_text(matter, "Do the thing this way."))


def test_memories_are_counted_as_retrieval_serves_them(tmp_path: Path) -> None:
    layout = BrainLayout(tmp_path)
    write_memory(layout, IDS[0], "Required rule", priority="required")
    write_memory(layout, IDS[1], "Advisory rule")
    write_memory(layout, IDS[2], "Old advice")  # superseded by IDS[3]
    write_memory(layout, IDS[3], "New advice", supersedes=[IDS[2]], priority="required")
    write_memory(layout, IDS[4], "Short lived", ttl_days=30)  # created Jun 1: expired Jul 1
    write_memory(layout, IDS[5], "Still fresh", ttl_days=60)
    write_memory(layout, IDS[6], "Gone", status="retired")
    (layout.class_dir("learning")).mkdir(parents=True)
    (layout.class_dir("learning") / f"{IDS[7]}-broken.md").write_text("no front matter\n")
    counts = count_memories(load_brain(layout), TODAY)
    assert counts.to_json() == {
        "active": 4, "required": 2, "expired": 1, "superseded": 1, "retired": 1, "unreadable": 1,
        "stale": 0,
    }  # fmt: skip
    # An expired superseding memory no longer hides the one it superseded.
    write_memory(layout, IDS[8], "Expired successor", supersedes=[IDS[1]], ttl_days=1)
    assert count_memories(load_brain(layout), TODAY).active == 4


def _snapshot(teambrain_home: Path, brain: Path | None) -> MetricsSnapshot:
    now = dt.datetime.now(dt.UTC)
    counts = count_memories(load_brain(BrainLayout(brain))) if brain else None
    return MetricsSnapshot(
        generated=now,
        brain=str(brain) if brain else None,
        memories=counts,
        index=ComponentStatus("fresh", "indexed at abc1234 (HEAD)", {"documents": 3}),
        serve=ComponentStatus("stopped", "no heartbeat", {"heartbeat_age_s": None}),
        embedder=ComponentStatus("configured", "local (brain.yaml)", {"name": "local"}),
        recent=recent_activity(machine_layout(), now=now),
    )


def test_metrics_reuse_the_digest_figures_with_the_same_suppression(
    teambrain_home: Path, tmp_path: Path
) -> None:
    now = dt.datetime.now(dt.UTC)
    specs = [
        SessionSpec(f"w{i}", now - dt.timedelta(days=1, hours=i), retrievals=[[IDS[0]]],
                    token_estimate=300 + 100 * i, explore=i)
        for i in range(5)
    ]  # fmt: skip
    specs += [SessionSpec(f"x{i}", now - dt.timedelta(days=2, hours=i)) for i in range(5)]
    specs.append(SessionSpec("old", now - dt.timedelta(days=9)))  # outside the 7 days
    write_sessions(machine_layout(), specs)
    for i in range(4):
        record_feedback(IDS[0], i % 2 == 0, sid=f"w{i}")
    brain = tmp_path / "repo"
    write_memory(BrainLayout(brain), IDS[0], "Required rule", priority="required")
    data = json.loads(render_metrics_json(_snapshot(teambrain_home, brain)))
    assert data["memories"]["active"] == 1 and data["memories"]["required"] == 1
    assert data["index"] == {
        "state": "fresh",
        "detail": "indexed at abc1234 (HEAD)",
        "documents": 3,
    }
    assert data["serve"]["heartbeat_age_s"] is None
    recent = data["last_7_days"]
    assert recent["sessions"] == 10
    assert recent["sessions_with_memory"] == 5
    assert recent["sessions_without_memory"] == 5
    assert recent["retrievals"] == 5
    assert recent["avg_context_tokens"] == 500.0
    assert recent["explore_per_session_with_memory"] == 2.0
    assert recent["explore_per_session_without_memory"] == 0
    assert recent["feedback_votes"] == "<5"  # four voters
    assert recent["feedback_useful_pct"] == "<5"
    assert data["spool"] == {"torn_lines": 0, "invalid_events": 0, "unreadable_files": 0}
    text = render_metrics_text(_snapshot(teambrain_home, brain))
    assert "Memories     1 active (1 required) · 0 expired · 0 superseded · 0 retired" in text
    assert "Index        fresh — indexed at abc1234 (HEAD)" in text
    assert "Last 7 days  10 sessions · 5 with memory · 5 retrievals" in text
    assert "feedback <5 useful of <5 votes" in text


def test_metrics_outside_a_brain_and_with_an_empty_spool(teambrain_home: Path) -> None:
    snapshot = _snapshot(teambrain_home, None)
    data = snapshot.to_json()
    assert data["memories"] is None and data["brain"] is None
    assert data["last_7_days"]["sessions"] == "<5"
    assert "no brain here" in render_metrics_text(snapshot)


def test_metrics_count_torn_lines(teambrain_home: Path) -> None:
    machine = machine_layout()
    machine.sessions.mkdir(parents=True)
    machine.session_file("torn").write_bytes(b'{"v":1,"sid":"torn","t":"20')
    assert recent_activity(machine).torn_lines == 1


def test_index_freshness_against_the_brain_files(tmp_path: Path) -> None:
    layout = BrainLayout(tmp_path)
    write_memory(layout, IDS[0], "Required rule", priority="required")
    write_memory(layout, IDS[1], "Advisory rule")
    layout.retired.mkdir(parents=True)
    indexed = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)  # after every write above
    stats = IndexStats(
        documents=2, embedder="local:minilm-l6-int8", vectors=2, last_indexed=indexed
    )
    now = indexed + dt.timedelta(minutes=3)
    fresh = index_status(layout, stats, "a2ca89a5187d93c7", now=now)
    assert fresh.state == "fresh"
    assert (
        fresh.detail
        == "2 documents, indexed 3 min ago; no memory file changed since (HEAD a2ca89a)"
    )
    assert fresh.to_json()["changed_files"] == 0 and fresh.to_json()["head"] == "a2ca89a5187d93c7"

    later = indexed.timestamp() + 60
    edited = next(layout.class_dir("convention").glob(f"{IDS[1]}-*.md"))
    os.utime(edited, (later, later))
    stale = index_status(layout, stats, "a2ca89a5187d93c7", now=now)
    assert stale.state == "stale" and stale.to_json()["changed_files"] == 1
    assert stale.detail.startswith("1 memory file(s) changed since the last index 3 min ago")

    os.utime(edited, (indexed.timestamp() - 60,) * 2)
    edited.unlink()  # a removal shows only in its folder's mtime
    os.utime(layout.class_dir("convention"), (later, later))
    removed = index_status(layout, stats, None, now=now)
    assert removed.state == "stale" and removed.to_json()["files_added_or_removed"] is True
    assert "memory files added or removed" in removed.detail and "(no commit yet)" in removed.detail

    missing = index_status(layout, None, None, now=now)
    assert missing.state == "missing" and "tb reindex" in missing.detail
    never = index_status(layout, IndexStats(documents=0, embedder="none"), "abc1234", now=now)
    assert never.state == "missing"


def test_ages_read_naturally() -> None:
    assert [format_age(s) for s in (0, 59, 119, 120, 7199, 7200, 172799, 172800, -5)] == [
        "0 s", "59 s", "119 s", "2 min", "119 min", "2 h", "47 h", "2 d", "0 s",
    ]  # fmt: skip


def test_an_index_stamped_in_whole_seconds_is_not_stale_within_its_second(tmp_path: Path) -> None:
    layout = BrainLayout(tmp_path)
    write_memory(layout, IDS[0], "Required rule")
    whole = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(seconds=10)
    for path in [*layout.memories.rglob("*"), layout.memories]:
        os.utime(path, (whole.timestamp() + 0.4,) * 2)  # written before the index caught up
    stats = IndexStats(documents=1, embedder="none", last_indexed=whole)
    assert index_status(layout, stats, "abc1234").state == "fresh"
    precise = IndexStats(documents=1, embedder="none", last_indexed=whole.replace(microsecond=1))
    assert index_status(layout, precise, "abc1234").state == "stale"
