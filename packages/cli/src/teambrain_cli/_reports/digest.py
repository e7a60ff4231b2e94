"""The digest aggregator: one pass over the spool sessions of a window, every figure the
digest and metrics show, small cells already suppressed.

A session belongs to the window its first event falls in (and to that event's UTC day in the
charts). Events are validated against the contract; lines that are not JSON (torn by a killed
writer) and events that do not validate are skipped and counted, never raised.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from teambrain_capture import (
    NO_END,
    FeedbackVote,
    RepoKeys,
    SessionSummary,
    read_feedback,
    read_jsonl,
    session_files,
    summarise_session,
)
from teambrain_schema.paths import MachineLayout

from .cells import (
    MIN_SESSIONS,
    SUPPRESSED_MARK,
    Audience,
    Figure,
    as_json,
    figure,
    fold_small_cells,
    hide_small_cells,
    no_figure,
)
from .team import WeekUsage, weekly_usage, weeks_window
from .window import ReportWindow

REPORT_VERSION = 1
TOP_MEMORIES = 10


@dataclass
class SpoolScan:
    """The sessions of a window, and what could not be read on the way."""

    sessions: list[SessionSummary] = field(default_factory=list)
    torn_lines: int = 0
    invalid_events: int = 0
    unreadable_files: int = 0


def scan_sessions(
    machine: MachineLayout, window: ReportWindow, *, repo: RepoKeys | str | None = None
) -> SpoolScan:
    """Every spool session that started inside ``window`` (and in ``repo``, when given: a
    repository's keys take the sessions filed under its earlier names too).

    Files last written before the window opened cannot hold a session that started in it and
    are not read. Torn lines and invalid events of the files read are counted."""
    scan = SpoolScan()
    cutoff = window.since.timestamp()
    for path in session_files(machine):
        try:
            if path.stat().st_mtime < cutoff:
                continue
            read = read_jsonl(path)
        except OSError:
            scan.unreadable_files += 1
            continue
        scan.torn_lines += read.torn
        summary, invalid = summarise_session(read.records)
        scan.invalid_events += invalid
        if summary is None or summary.is_empty or not window.contains(summary.started):
            continue
        if repo is not None and not RepoKeys.of(repo).holds(summary.repo):
            continue
        scan.sessions.append(summary)
    scan.sessions.sort(key=lambda s: (s.started, s.sid))
    return scan


@dataclass(frozen=True)
class BucketFigures:
    """One chart bucket (a day, or a week for long windows)."""

    start: dt.date
    sessions: Figure
    retrievals: Figure


@dataclass(frozen=True)
class DigestReport:
    """Every figure of a digest, already suppressed: numbers only for groups of at least
    five sessions, ``<5`` otherwise. Renderers read this and nothing else.

    A report made for the person at this machine (``audience`` own) holds the same figures
    with every hidden one shown and marked (:class:`~.cells.Unshared`); the formats meant to
    leave the machine refuse such a report (render.py)."""

    window: ReportWindow
    repo: str | None
    generated: dt.datetime
    torn_lines: int
    invalid_events: int
    unreadable_files: int
    sessions: Figure
    by_tool: dict[str, Figure]
    by_model: dict[str, Figure]
    by_outcome: dict[str, Figure]
    median_duration_min: Figure
    median_turns: Figure
    bucket_days: int
    buckets: list[BucketFigures]
    sessions_with_memory: Figure
    sessions_without_memory: Figure
    retrievals: Figure
    retrievals_by_via: dict[str, Figure]
    top_memories: list[tuple[str, Figure]]
    avg_context_tokens: Figure
    explore_per_session_with_memory: Figure
    explore_per_session_without_memory: Figure
    explore_change_pct: Figure
    feedback_votes: Figure
    feedback_useful_pct: Figure
    candidates_proposed: Figure
    sessions_proposing: Figure
    test_runs: Figure
    sessions_with_tests: Figure
    test_failures: Figure
    sessions_with_test_failures: Figure
    # Memories of the brain the digest was made in whose citations the code no longer bears
    # out: (id, title, reasons). Not session data: nothing to suppress.
    stale: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    # The least retrieved of the memories shown in at least five sessions (fewest first), and
    # how many memories were shown in at least five: the others were shown in fewer, or never.
    least_memories: list[tuple[str, Figure]] = field(default_factory=list)
    memories_served: int = 0
    audience: Audience = Audience.SHARED
    # The team view's figures: each whole ISO week the window touches (see _reports/team.py).
    weeks: list[WeekUsage] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (suppressed cells are the string ``"<5"``)."""
        fig = as_json
        return {
            "ok": True,
            "report": "teambrain-digest",
            "version": REPORT_VERSION,
            "generated": _iso(self.generated),
            "window": {
                "since": _iso(self.window.since),
                "until": _iso(self.window.until),
                "repo": self.repo,
                "days": round(self.window.days, 2),
                "bucket_days": self.bucket_days,
            },
            "suppression": {
                "min_sessions": MIN_SESSIONS,
                "marker": SUPPRESSED_MARK,
                "audience": self.audience.value,
            },
            "spool": {
                "torn_lines": self.torn_lines,
                "invalid_events": self.invalid_events,
                "unreadable_files": self.unreadable_files,
            },
            "sessions": {
                "total": fig(self.sessions),
                "by_tool": {key: fig(value) for key, value in self.by_tool.items()},
                "by_model": {key: fig(value) for key, value in self.by_model.items()},
                "by_outcome": {key: fig(value) for key, value in self.by_outcome.items()},
                "median_duration_min": fig(self.median_duration_min),
                "median_turns": fig(self.median_turns),
                "trend": [
                    {
                        "start": bucket.start.isoformat(),
                        "sessions": fig(bucket.sessions),
                        "retrievals": fig(bucket.retrievals),
                    }
                    for bucket in self.buckets
                ],
            },
            "memory": {
                "sessions_with_memory": fig(self.sessions_with_memory),
                "sessions_without_memory": fig(self.sessions_without_memory),
                "retrievals": fig(self.retrievals),
                "retrievals_by_via": {
                    key: fig(value) for key, value in self.retrievals_by_via.items()
                },
                "top_memories": [
                    {"id": memory_id, "sessions": fig(count)}
                    for memory_id, count in self.top_memories
                ],
                "least_served": [
                    {"id": memory_id, "sessions": fig(count)}
                    for memory_id, count in self.least_memories
                ],
                "memories_served": self.memories_served,
                "avg_context_tokens": fig(self.avg_context_tokens),
                "stale": [
                    {"id": memory_id, "title": title, "reasons": list(reasons)}
                    for memory_id, title, reasons in self.stale
                ],
            },
            "context_efficiency": {
                "explore_per_session_with_memory": fig(self.explore_per_session_with_memory),
                "explore_per_session_without_memory": fig(self.explore_per_session_without_memory),
                "explore_change_pct": fig(self.explore_change_pct),
            },
            "feedback": {
                "votes": fig(self.feedback_votes),
                "useful_pct": fig(self.feedback_useful_pct),
            },
            "candidates": {
                "proposed": fig(self.candidates_proposed),
                "sessions_proposing": fig(self.sessions_proposing),
            },
            "tests": {
                "runs": fig(self.test_runs),
                "sessions_with_tests": fig(self.sessions_with_tests),
                "failures": fig(self.test_failures),
                "sessions_with_failures": fig(self.sessions_with_test_failures),
            },
            "weeks": [week.to_json() for week in self.weeks],
        }


def _iso(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _sids(sessions: Iterable[SessionSummary]) -> frozenset[str]:
    return frozenset(s.sid for s in sessions)


def _count_figure(sessions: Sequence[SessionSummary], audience: Audience) -> Figure:
    return figure(len(sessions), len(sessions), audience=audience)


def _mean(values: Sequence[float], sessions: int, digits: int, audience: Audience) -> Figure:
    if not values:
        return no_figure(audience)
    return figure(statistics.fmean(values), sessions, digits=digits, audience=audience)


def _by_key(sessions: Sequence[SessionSummary], key: str, audience: Audience) -> dict[str, Figure]:
    groups: dict[str, list[SessionSummary]] = {}
    for session in sessions:
        groups.setdefault(getattr(session, key), []).append(session)
    return fold_small_cells({name: (len(g), _sids(g)) for name, g in groups.items()}, audience)


def _feedback_figures(votes: Sequence[FeedbackVote], audience: Audience) -> tuple[Figure, Figure]:
    # Votes without a session id may all come from one session: count them as one.
    voters = len({vote.sid for vote in votes if vote.sid}) + any(not vote.sid for vote in votes)
    useful = sum(vote.useful for vote in votes)
    if not votes:
        return figure(0, 0, audience=audience), no_figure(audience)
    pct = 100 * useful / len(votes)
    return (
        figure(len(votes), voters, audience=audience),
        figure(pct, voters, digits=1, audience=audience),
    )


def aggregate(
    scan: SpoolScan,
    window: ReportWindow,
    votes: Sequence[FeedbackVote],
    *,
    repo: str | None = None,
    generated: dt.datetime | None = None,
    audience: Audience = Audience.SHARED,
) -> DigestReport:
    """Every digest figure from already-scanned sessions and feedback votes, suppressed for
    ``audience`` (shared: ``<5``; own: every number, the hidden ones marked)."""
    own = audience
    sessions = scan.sessions
    sids = _sids(sessions)
    in_window = [
        vote
        for vote in votes
        if window.contains(vote.t) and (repo is None or (vote.sid is not None and vote.sid in sids))
    ]

    ended = [s for s in sessions if s.outcome != NO_END]
    with_memory = [s for s in sessions if s.has_memory]
    without_memory = [s for s in sessions if not s.has_memory]
    retrieving = [s for s in sessions if s.retrievals]
    with_context = [s for s in sessions if s.context_tokens]
    proposing = [s for s in sessions if s.candidates]
    testing = [s for s in sessions if s.tool_uses["test"]]
    failing = [s for s in sessions if s.test_failures]

    starts = window.buckets()
    per_bucket: dict[dt.date, list[SessionSummary]] = {start: [] for start in starts}
    for session in sessions:
        per_bucket[window.bucket_of(session.started)].append(session)
    bucket_sessions = hide_small_cells([(len(g), _sids(g)) for g in per_bucket.values()], own)
    bucket_retrievals = hide_small_cells(
        [
            (sum(s.retrievals for s in g), _sids(s for s in g if s.retrievals))
            for g in per_bucket.values()
        ],
        own,
    )

    via_cells: dict[str, tuple[float, frozenset[str]]] = {}
    for via in sorted({via for s in retrieving for via in s.retrievals_by_via}):
        users = [s for s in retrieving if s.retrievals_by_via[via]]
        via_cells[via] = (sum(s.retrievals_by_via[via] for s in users), _sids(users))

    id_sessions: Counter[str] = Counter(mid for s in with_memory for mid in s.memory_ids)
    # A shared report names only the memories shown in five sessions or more; an own view
    # names every one shown, the others marked.
    least_shown = MIN_SESSIONS if audience is Audience.SHARED else 1
    served = sorted(
        ((mid, count) for mid, count in id_sessions.items() if count >= least_shown),
        key=lambda item: (-item[1], item[0]),
    )
    top = [(mid, figure(count, count, audience=own)) for mid, count in served[:TOP_MEMORIES]]
    least = [
        (mid, figure(count, count, audience=own))
        for mid, count in sorted(served, key=lambda item: (item[1], item[0]))[:TOP_MEMORIES]
    ]

    explore_with = [float(s.tool_uses["explore"]) for s in with_memory]
    explore_without = [float(s.tool_uses["explore"]) for s in without_memory]
    change: Figure = no_figure(own)
    if explore_with and explore_without and statistics.fmean(explore_without) > 0:
        ratio = statistics.fmean(explore_with) / statistics.fmean(explore_without)
        groups = min(len(explore_with), len(explore_without))
        change = figure((ratio - 1) * 100, groups, digits=1, audience=own)

    memory_pair = hide_small_cells(
        [(len(with_memory), _sids(with_memory)), (len(without_memory), _sids(without_memory))],
        own,
    )
    feedback_votes, feedback_pct = _feedback_figures(in_window, own)
    return DigestReport(
        window=window,
        repo=repo,
        generated=(generated or dt.datetime.now(dt.UTC)).astimezone(dt.UTC),
        torn_lines=scan.torn_lines,
        invalid_events=scan.invalid_events,
        unreadable_files=scan.unreadable_files,
        sessions=_count_figure(sessions, own),
        by_tool=_by_key(sessions, "tool", own),
        by_model=_by_key(sessions, "model", own),
        by_outcome=_by_key(sessions, "outcome", own),
        median_duration_min=_median(
            [s.duration_s / 60 for s in ended if s.duration_s is not None], 1, own
        ),
        median_turns=_median([s.turns for s in ended], 1, own),
        bucket_days=window.bucket_days,
        buckets=[
            BucketFigures(start, count, retrieved)
            for start, count, retrieved in zip(
                starts, bucket_sessions, bucket_retrievals, strict=True
            )
        ],
        sessions_with_memory=memory_pair[0],
        sessions_without_memory=memory_pair[1],
        retrievals=figure(sum(s.retrievals for s in retrieving), len(retrieving), audience=own),
        retrievals_by_via=fold_small_cells(via_cells, own),
        top_memories=top,
        least_memories=least,
        memories_served=len(served),
        avg_context_tokens=_mean(
            [float(t) for s in with_context for t in s.context_tokens], len(with_context), 0, own
        ),
        explore_per_session_with_memory=_mean(explore_with, len(explore_with), 2, own),
        explore_per_session_without_memory=_mean(explore_without, len(explore_without), 2, own),
        explore_change_pct=change,
        feedback_votes=feedback_votes,
        feedback_useful_pct=feedback_pct,
        candidates_proposed=figure(
            sum(s.candidates for s in proposing), len(proposing), audience=own
        ),
        sessions_proposing=_count_figure(proposing, own),
        test_runs=figure(sum(s.tool_uses["test"] for s in testing), len(testing), audience=own),
        sessions_with_tests=_count_figure(testing, own),
        test_failures=figure(sum(s.test_failures for s in failing), len(failing), audience=own),
        sessions_with_test_failures=_count_figure(failing, own),
        audience=audience,
    )


def _median(values: Sequence[float | int | None], digits: int, audience: Audience) -> Figure:
    present = [float(v) for v in values if v is not None]
    if not present:
        return no_figure(audience)
    return figure(statistics.median(present), len(present), digits=digits, audience=audience)


def build_digest(
    machine: MachineLayout,
    window: ReportWindow,
    *,
    repo: RepoKeys | str | None = None,
    now: dt.datetime | None = None,
    audience: Audience = Audience.SHARED,
    weeks: bool = True,
) -> DigestReport:
    """Scan the spool and the feedback votes of this machine and aggregate them for ``window``
    (``repo``: one repository's sessions, named in the report by its current key; for
    ``audience``: a shared report by default; ``weeks``: also the team view's weekly figures, a
    second scan over the whole weeks)."""
    scan = scan_sessions(machine, window, repo=repo)
    name = repo.key if isinstance(repo, RepoKeys) else repo
    votes = read_feedback(machine)
    report = aggregate(scan, window, votes, repo=name, generated=now, audience=audience)
    if not weeks:
        return report
    return dataclasses.replace(
        report, weeks=member_weeks(machine, window, votes, repo=repo, now=now)
    )


def member_weeks(
    machine: MachineLayout,
    window: ReportWindow,
    votes: Sequence[FeedbackVote] | None = None,
    *,
    repo: RepoKeys | str | None = None,
    now: dt.datetime | None = None,
) -> list[WeekUsage]:
    """This machine's figures for each whole ISO week ``window`` touches (the team view's)."""
    weeks = weeks_window(window, now or dt.datetime.now(dt.UTC))
    scan = scan_sessions(machine, weeks, repo=repo)
    return weekly_usage(
        scan.sessions,
        read_feedback(machine) if votes is None else votes,
        weeks,
        only_these_sessions=repo is not None,
    )
