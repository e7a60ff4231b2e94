"""``tb metrics``: a local health and context-efficiency snapshot.

The session figures are the digest's (the same aggregation) over the last seven days: the text
for a terminal is this machine's own view (every number, marked where a shared report hides
it), ``--json`` is shared (the same suppression as ``tb digest --format json``). Memory counts come from the brain's files. The index, the serve heartbeat and the
embedder belong to other packages: the front end asks them and hands their answers in as
:class:`ComponentStatus` values, so this module stays below them in the layers.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teambrain_schema import IndexStats
from teambrain_schema.brain import Brain
from teambrain_schema.paths import BrainLayout, MachineLayout

from .cells import MIN_SESSIONS, SUPPRESSED_MARK, Audience, as_json
from .digest import DigestReport, build_digest
from .render import audience_note, format_figure, require_shared
from .window import resolve_window

METRICS_VERSION = 1
METRICS_WINDOW = "7d"

Fact = str | int | float | bool | None


@dataclass(frozen=True)
class MemoryCounts:
    """The brain's memory files by state, as agents are served them today."""

    active: int  # served: status active, TTL not run out, not superseded by an active memory
    required: int  # of the active ones, priority required (always served)
    expired: int  # still under memories/ but past their TTL
    superseded: int  # still under memories/ but superseded by an active memory
    retired: int  # under retired/
    unreadable: int  # files lint rejects outright (not counted above)
    stale: int = 0  # active ones whose citations the code no longer bears out (still served)

    def to_json(self) -> dict[str, int]:
        return {
            "stale": self.stale,
            "active": self.active,
            "required": self.required,
            "expired": self.expired,
            "superseded": self.superseded,
            "retired": self.retired,
            "unreadable": self.unreadable,
        }


def count_memories(brain: Brain, today: dt.date | None = None) -> MemoryCounts:
    """Count ``brain``'s memories the way retrieval filters them (``today`` in UTC)."""
    from teambrain_schema.served import excluded_ids

    day = today or dt.datetime.now(dt.UTC).date()
    live = []
    expired = 0
    entries = []
    for brain_file in [*brain.active, *brain.retired]:
        assert brain_file.document is not None
        front = brain_file.document.front
        retired = brain_file.location == "retired"
        entries.append((front.id, front.status, retired, front.supersedes, front.expires_on()))
        if retired or front.status != "active":
            continue
        if front.is_expired(day):
            expired += 1
        else:
            live.append(front)
    hidden = excluded_ids(entries, day)  # the rule retrieval serves by
    served = [front for front in live if front.id not in hidden]
    return MemoryCounts(
        active=len(served),
        required=sum(front.priority == "required" for front in served),
        expired=expired,
        superseded=len(live) - len(served),
        retired=len(brain.retired),
        unreadable=len(brain.problems),
    )


@dataclass(frozen=True)
class ComponentStatus:
    """What another part of teambrain reported about itself: a one-word state, one line for
    people, and the facts behind it for ``--json``."""

    state: str
    detail: str
    facts: Mapping[str, Fact] = field(default_factory=dict)

    def to_json(self) -> dict[str, Fact]:
        return {**dict(self.facts), "state": self.state, "detail": self.detail}


@dataclass(frozen=True)
class MetricsSnapshot:
    """Everything ``tb metrics`` shows."""

    generated: dt.datetime
    brain: str | None  # repository root of the brain, None outside one
    memories: MemoryCounts | None
    index: ComponentStatus
    serve: ComponentStatus
    embedder: ComponentStatus
    recent: DigestReport  # the digest aggregation over the last seven days

    def to_json(self) -> dict[str, Any]:
        """The snapshot as plain JSON data (suppressed cells are the string ``"<5"``): a
        shared format, so only a snapshot of a shared report is."""
        recent = self.recent
        require_shared(recent)
        digest = recent.to_json()
        return {
            "ok": True,
            "report": "teambrain-metrics",
            "version": METRICS_VERSION,
            "generated": digest["generated"],
            "brain": self.brain,
            "memories": self.memories.to_json() if self.memories else None,
            "index": self.index.to_json(),
            "serve": self.serve.to_json(),
            "embedder": self.embedder.to_json(),
            "last_7_days": {
                "since": digest["window"]["since"],
                "until": digest["window"]["until"],
                "sessions": as_json(recent.sessions),
                "sessions_with_memory": as_json(recent.sessions_with_memory),
                "sessions_without_memory": as_json(recent.sessions_without_memory),
                "retrievals": as_json(recent.retrievals),
                "avg_context_tokens": as_json(recent.avg_context_tokens),
                "feedback_votes": as_json(recent.feedback_votes),
                "feedback_useful_pct": as_json(recent.feedback_useful_pct),
                "explore_per_session_with_memory": as_json(recent.explore_per_session_with_memory),
                "explore_per_session_without_memory": as_json(
                    recent.explore_per_session_without_memory
                ),
            },
            "spool": {
                "torn_lines": recent.torn_lines,
                "invalid_events": recent.invalid_events,
                "unreadable_files": recent.unreadable_files,
            },
            "suppression": {"min_sessions": MIN_SESSIONS, "marker": SUPPRESSED_MARK},
        }


def format_age(seconds: float) -> str:
    """``42 s``, ``5 min``, ``3 h``, ``2 d``: how long ago, for people."""
    seconds = max(0.0, seconds)
    for limit, unit, size in ((120, "s", 1), (7200, "min", 60), (172800, "h", 3600)):
        if seconds < limit:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds // 86400)} d"


def _changes_since(layout: BrainLayout, moment: float) -> tuple[int, bool]:
    """Memory and retired files modified after ``moment``, and whether a folder under them
    changed after it (its mtime moves when a file in it is added, removed or renamed)."""
    from teambrain_schema.brain import iter_tree

    files = 0
    folders = False
    for top in (layout.memories, layout.retired):
        if layout.leads_out(top) is not None:  # a link out of the brain: never walked (lint says)
            continue
        for root, _dirs, names in iter_tree(top):  # bounded: a 5,000-deep folder is no stack
            try:
                folders = folders or Path(root).stat().st_mtime > moment
            except OSError:
                folders = True
            for name in names:
                try:
                    files += (Path(root) / name).stat().st_mtime > moment
                except OSError:
                    files += 1  # vanished while we looked: it changed
    return files, folders


def index_status(
    layout: BrainLayout,
    stats: IndexStats | None,
    head: str | None,
    *,
    now: dt.datetime | None = None,
) -> ComponentStatus:
    """How fresh the search index is against the brain at ``head``: ``fresh`` when no memory
    file changed since it was last brought up to date, else ``stale``; ``missing`` without an
    index. ``stats`` is the retriever's (None when there is no index file)."""
    reference = now or dt.datetime.now(dt.UTC)
    at_head = f"HEAD {head[:7]}" if head else "no commit yet"
    if stats is None or stats.last_indexed is None:
        return ComponentStatus(
            "missing",
            f"this brain is not indexed yet ({at_head}); run `tb reindex` or search once",
            {"head": head, "documents": None, "last_indexed": None, "changed_files": None},
        )
    indexed_at = stats.last_indexed.timestamp()
    # The index may record whole seconds: a file written in that same second, before the
    # index caught up, must not read as newer than it.
    slack = 1.0 if stats.last_indexed.microsecond == 0 else 0.0
    changed, moved = _changes_since(layout, indexed_at + slack)
    age = format_age(reference.timestamp() - indexed_at)
    facts: dict[str, Fact] = {
        "head": head,
        "documents": stats.documents,
        "vectors": stats.vectors,
        "last_indexed": stats.last_indexed.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "changed_files": changed,
        "files_added_or_removed": moved,
    }
    if changed or moved:
        what = f"{changed} memory file(s) changed" if changed else "memory files added or removed"
        return ComponentStatus(
            "stale",
            f"{what} since the last index {age} ago ({at_head}); the next search catches up, "
            "or run `tb reindex`",
            facts,
        )
    return ComponentStatus(
        "fresh",
        f"{stats.documents} documents, indexed {age} ago; no memory file changed since ({at_head})",
        facts,
    )


def recent_activity(
    machine: MachineLayout, *, now: dt.datetime | None = None,
    audience: Audience = Audience.SHARED,
) -> DigestReport:  # fmt: skip
    """The digest aggregation over the last seven days, all repositories of this machine."""
    window = resolve_window(METRICS_WINDOW, None, now=now)
    return build_digest(machine, window, now=now, audience=audience, weeks=False)


def render_metrics_text(snapshot: MetricsSnapshot) -> str:
    """The snapshot for a terminal."""
    recent = snapshot.recent
    if snapshot.memories is None:
        memories = "no brain here (run inside a repository with .teambrain/)"
    else:
        m = snapshot.memories
        memories = (
            f"{m.active} active ({m.required} required) · {m.expired} expired · "
            f"{m.superseded} superseded · {m.retired} retired"
        )
        if m.stale:
            memories += f" · {m.stale} may be stale (cited code moved or vanished: `tb lint`)"
        if m.unreadable:
            memories += f" · {m.unreadable} unreadable (run `tb lint`)"
    lines = [
        f"teambrain metrics{' · ' + snapshot.brain if snapshot.brain else ''}",
        f"Memories     {memories}",
        f"Index        {snapshot.index.state} — {snapshot.index.detail}",
        f"Serve        {snapshot.serve.state} — {snapshot.serve.detail}",
        f"Embedder     {snapshot.embedder.state} — {snapshot.embedder.detail}",
        f"Last 7 days  {format_figure(recent.sessions)} sessions · "
        f"{format_figure(recent.sessions_with_memory)} with memory · "
        f"{format_figure(recent.retrievals)} retrievals",
        f"             avg context {format_figure(recent.avg_context_tokens, ' tokens')} · "
        f"feedback {format_figure(recent.feedback_useful_pct, '%')} useful of "
        f"{format_figure(recent.feedback_votes)} votes",
        f"             explore calls per session: "
        f"{format_figure(recent.explore_per_session_with_memory)} with memory · "
        f"{format_figure(recent.explore_per_session_without_memory)} without",
        f"Spool        {recent.torn_lines} torn line(s) · {recent.invalid_events} invalid "
        f"event(s) · {recent.unreadable_files} unreadable file(s) skipped",
        audience_note(recent),
    ]
    return "\n".join(lines) + "\n"


def render_metrics_json(snapshot: MetricsSnapshot) -> str:
    """The snapshot as stable, key-sorted JSON."""
    return json.dumps(snapshot.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
