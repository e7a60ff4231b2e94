"""The team's view of use: each member's weekly digest figures, combined across members.

A member's figures per ISO week (Monday to Sunday, UTC) come from their spool like every
digest figure, small cells already suppressed (:class:`WeekUsage`): sessions, sessions with
and without memory, retrieval calls, the memories shown in at least five sessions, and the
memories voted on by at least five sessions. ``tb digest --format json`` writes them under
``weeks``; ``tb digest --publish`` sends them to the shared database. Nothing else goes: no
session id, path, prompt, title or body — a memory is named by its ULID.

The team's figures (:class:`TeamView`) are the sums of the members' shown figures, kept only
where at least ``MIN_MEMBERS`` members' figures make them up — in the database
(``teambrain.team_usage``) or, from exported reports, by ``combine_cells`` with the same rule.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teambrain_capture import FeedbackVote, SessionSummary
from teambrain_schema import UserError
from teambrain_schema.ids import ULID_PATTERN

from .cells import MIN_SESSIONS, SUPPRESSED_MARK, Figure, as_json, figure, hide_small_cells
from .window import ReportWindow

if TYPE_CHECKING:
    from teambrain_retrieval import TeamCell, UsageCell

REPORT_NAME = "teambrain-digest"
MAX_REPORT_BYTES = 8 * 1024 * 1024
WEEK_FIGURES = ("sessions", "sessions_with_memory", "sessions_without_memory", "retrievals")
TEAM_REPORT = "teambrain-team-usage"


def week_of(day: dt.date) -> dt.date:
    """The Monday of ``day``'s ISO week."""
    return day - dt.timedelta(days=day.weekday())


def weeks_window(window: ReportWindow, now: dt.datetime) -> ReportWindow:
    """The whole ISO weeks ``window`` touches (UTC), the last one ending at ``now`` at the
    latest: a week is always counted whole, so members' reports of other windows agree."""
    first = week_of(window.since.astimezone(dt.UTC).date())
    last = week_of((window.until - dt.timedelta(microseconds=1)).astimezone(dt.UTC).date())
    start = dt.datetime.combine(first, dt.time(), dt.UTC)
    end = dt.datetime.combine(last + dt.timedelta(days=7), dt.time(), dt.UTC)
    return ReportWindow(start, max(min(end, now.astimezone(dt.UTC)), start + dt.timedelta(0, 1)))


@dataclass(frozen=True)
class WeekUsage:
    """One member's figures for one week, suppressed: numbers over at least five sessions."""

    week: dt.date
    sessions: Figure
    sessions_with_memory: Figure
    sessions_without_memory: Figure
    retrievals: Figure
    # memory id -> sessions it was shown in (only memories shown in at least five)
    memories_used: dict[str, int] = field(default_factory=dict)
    # memory id -> (votes, useful votes) (only memories voted on by at least five sessions)
    memories_voted: dict[str, tuple[int, int]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """As ``tb digest --format json`` writes it under ``weeks``."""
        return {
            "week": self.week.isoformat(),
            **{name: as_json(getattr(self, name)) for name in WEEK_FIGURES},
            "memories_used": [
                {"id": mid, "sessions": count} for mid, count in sorted(self.memories_used.items())
            ],
            "memories_voted": [
                {"id": mid, "votes": votes, "useful": useful}
                for mid, (votes, useful) in sorted(self.memories_voted.items())
            ],
        }

    def cells(self) -> list[UsageCell]:
        """The rows a member publishes for this week (a ``<5`` figure is a None value)."""
        from teambrain_retrieval import UsageCell

        out = [
            UsageCell(self.week, name, "", _number(getattr(self, name))) for name in WEEK_FIGURES
        ]
        out += [
            UsageCell(self.week, "memory_sessions", mid, float(count))
            for mid, count in sorted(self.memories_used.items())
        ]
        for mid, (votes, useful) in sorted(self.memories_voted.items()):
            out.append(UsageCell(self.week, "memory_votes", mid, float(votes)))
            out.append(UsageCell(self.week, "memory_useful", mid, float(useful)))
        return out


def _number(value: Figure) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def weekly_usage(
    sessions: Sequence[SessionSummary],
    votes: Sequence[FeedbackVote],
    window: ReportWindow,
    *,
    only_these_sessions: bool = False,
) -> list[WeekUsage]:
    """Each week of ``window`` (whole weeks, :func:`weeks_window`) from the sessions that
    started in it and the votes cast in it (``only_these_sessions``: only votes of these
    sessions, as a digest of one repository counts them)."""
    weeks: list[dt.date] = []
    day = window.since.astimezone(dt.UTC).date()
    while dt.datetime.combine(day, dt.time(), dt.UTC) < window.until:
        weeks.append(day)
        day += dt.timedelta(days=7)
    by_week: dict[dt.date, list[SessionSummary]] = {week: [] for week in weeks}
    for session in sessions:
        if window.contains(session.started):
            by_week.setdefault(week_of(session.started.astimezone(dt.UTC).date()), []).append(
                session
            )
    sids = {s.sid for s in sessions}
    votes_by_week: dict[dt.date, list[FeedbackVote]] = defaultdict(list)
    for vote in votes:
        if not window.contains(vote.t):
            continue
        if only_these_sessions and (vote.sid is None or vote.sid not in sids):
            continue
        votes_by_week[week_of(vote.t.astimezone(dt.UTC).date())].append(vote)
    return [_one_week(week, by_week[week], votes_by_week.get(week, [])) for week in sorted(by_week)]


def _one_week(
    week: dt.date, sessions: Sequence[SessionSummary], votes: Sequence[FeedbackVote]
) -> WeekUsage:
    with_memory = [s for s in sessions if s.has_memory]
    without_memory = [s for s in sessions if not s.has_memory]
    retrieving = [s for s in sessions if s.retrievals]
    pair = hide_small_cells(
        [
            (len(with_memory), frozenset(s.sid for s in with_memory)),
            (len(without_memory), frozenset(s.sid for s in without_memory)),
        ]
    )
    used = Counter(mid for s in with_memory for mid in s.memory_ids)
    voted: dict[str, list[FeedbackVote]] = defaultdict(list)
    for vote in votes:
        voted[vote.id].append(vote)
    memories_voted = {}
    for mid, cast in voted.items():
        # Votes without a session id may all come from one session: they count as one.
        voters = len({v.sid for v in cast if v.sid}) + any(not v.sid for v in cast)
        if voters >= MIN_SESSIONS:
            memories_voted[mid] = (len(cast), sum(v.useful for v in cast))
    return WeekUsage(
        week=week,
        sessions=figure(len(sessions), len(sessions)),
        sessions_with_memory=pair[0],
        sessions_without_memory=pair[1],
        retrievals=figure(sum(s.retrievals for s in retrieving), len(retrieving)),
        memories_used={mid: n for mid, n in used.items() if n >= MIN_SESSIONS},
        memories_voted=memories_voted,
    )


# ------------------------------------------------------------------ exported reports (outside input


class ReportProblem(ValueError):
    """Where a report file is wrong: the field's path and what is wrong with it."""


MAX_FIGURE = 10**12  # far beyond any team's sessions; keeps every value a float exactly


def _count(value: object, where: str, *, least: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_FIGURE:
        raise ReportProblem(f"{where}: must be a whole number from {least} to {MAX_FIGURE:,}")
    return value


def _figure(value: object, where: str) -> float | None:
    if value == SUPPRESSED_MARK:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 0 <= value <= MAX_FIGURE  # before isfinite: a huge int does not fit a float
        or not math.isfinite(value)
    ):
        raise ReportProblem(
            f'{where}: must be a number from 0 to {MAX_FIGURE:,} or "{SUPPRESSED_MARK}"'
        )
    return float(value)


def _memory_id(value: object, where: str) -> str:
    import re

    if not isinstance(value, str) or not re.fullmatch(ULID_PATTERN, value):
        raise ReportProblem(f"{where}: must be a memory id (a ULID)")
    return value


def _items(entry: Mapping[str, Any], name: str, where: str) -> list[Mapping[str, Any]]:
    items = entry.get(name, [])
    if not isinstance(items, list):
        raise ReportProblem(f"{where}.{name}: must be a list")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ReportProblem(f"{where}.{name}[{index}]: must be an object")
    return items


def cells_from_report(data: object) -> list[UsageCell]:
    """The weekly cells of one ``tb digest --format json`` report (raises :class:`ReportProblem`
    naming the field when the data is not such a report)."""
    from teambrain_retrieval import UsageCell

    if not isinstance(data, dict):
        raise ReportProblem("not a JSON object")
    if data.get("report") != REPORT_NAME:
        raise ReportProblem(f'report: must be "{REPORT_NAME}" (a `tb digest --format json` file)')
    if data.get("version") != 1:
        raise ReportProblem("version: must be 1")
    weeks = data.get("weeks")
    if weeks is None:
        raise ReportProblem(
            "weeks: missing (the report is from a teambrain without the team view: export it "
            "again with `tb digest --format json`)"
        )
    if not isinstance(weeks, list):
        raise ReportProblem("weeks: must be a list")
    cells: list[UsageCell] = []
    seen: set[dt.date] = set()
    for index, entry in enumerate(weeks):
        where = f"weeks[{index}]"
        if not isinstance(entry, dict):
            raise ReportProblem(f"{where}: must be an object")
        try:
            week = dt.date.fromisoformat(entry.get("week"))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise ReportProblem(f"{where}.week: must be a date (YYYY-MM-DD)") from None
        if week.isoweekday() != 1:
            raise ReportProblem(f"{where}.week: {week} is not a Monday")
        if week in seen:
            raise ReportProblem(f"{where}.week: {week} appears twice")
        seen.add(week)
        for name in WEEK_FIGURES:
            if name not in entry:
                raise ReportProblem(f"{where}.{name}: missing")
            cells.append(UsageCell(week, name, "", _figure(entry[name], f"{where}.{name}")))
        ids: set[tuple[str, str]] = set()
        for i, item in enumerate(_items(entry, "memories_used", where)):
            at = f"{where}.memories_used[{i}]"
            mid = _memory_id(item.get("id"), f"{at}.id")
            sessions = _count(item.get("sessions"), f"{at}.sessions", least=MIN_SESSIONS)
            if ("used", mid) in ids:
                raise ReportProblem(f"{at}.id: {mid} appears twice")
            ids.add(("used", mid))
            cells.append(UsageCell(week, "memory_sessions", mid, float(sessions)))
        for i, item in enumerate(_items(entry, "memories_voted", where)):
            at = f"{where}.memories_voted[{i}]"
            mid = _memory_id(item.get("id"), f"{at}.id")
            votes = _count(item.get("votes"), f"{at}.votes", least=1)
            useful = _count(item.get("useful"), f"{at}.useful")
            if useful > votes:
                raise ReportProblem(f"{at}.useful: more than its {votes} votes")
            if ("voted", mid) in ids:
                raise ReportProblem(f"{at}.id: {mid} appears twice")
            ids.add(("voted", mid))
            cells.append(UsageCell(week, "memory_votes", mid, float(votes)))
            cells.append(UsageCell(week, "memory_useful", mid, float(useful)))
    return cells


def read_reports(paths: Sequence[Path]) -> list[list[UsageCell]]:
    """Each file's cells, one member per file; a problem is one :class:`UserError` line naming
    the file and the field. The same report given twice is refused (it would count one member
    twice)."""
    members: list[list[UsageCell]] = []
    first_of: dict[tuple[UsageCell, ...], Path] = {}
    for path in paths:
        try:
            raw = path.read_bytes()[: MAX_REPORT_BYTES + 1]
        except OSError as exc:
            raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if len(raw) > MAX_REPORT_BYTES:
            raise UserError(f"{path}: larger than {MAX_REPORT_BYTES // (1024 * 1024)} MB")
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise UserError(f"{path}: not JSON ({str(exc).splitlines()[0][:120]})") from None
        try:
            cells = cells_from_report(data)
        except ReportProblem as exc:
            raise UserError(f"{path}: {exc}") from None
        key = tuple(sorted(cells))
        if key and key in first_of:
            raise UserError(
                f"{path}: the same figures as {first_of[key]} (one member counted twice?)"
            )
        first_of.setdefault(key, path)
        members.append(cells)
    return members


# ------------------------------------------------------------------ the team's view


@dataclass(frozen=True)
class TeamView:
    """The team's figures per week (only those at least ``min_members`` members make up)."""

    source: str
    weeks: list[dt.date]
    cells: list[TeamCell]
    min_members: int
    members: int | None = None  # how many reports were combined (None: from the database)

    def _cell(self, week: dt.date, metric: str, key: str = "") -> TeamCell | None:
        for cell in self.cells:
            if (cell.week, cell.metric, cell.key) == (week, metric, key):
                return cell
        return None

    def to_json(self) -> dict[str, Any]:
        """The view as ``tb metrics --team --json`` prints it."""
        hidden = f"<{self.min_members} members"

        def shown(cell: TeamCell | None) -> object:
            if cell is None:
                return hidden
            return {"value": _plain(cell.value), "members": cell.members, "hidden": cell.hidden}

        weeks = []
        for week in self.weeks:
            entry: dict[str, Any] = {"week": week.isoformat()}
            for name in WEEK_FIGURES:
                entry[name] = shown(self._cell(week, name))
            entry["memories_used"] = [
                {"id": c.key, "sessions": _plain(c.value), "members": c.members}
                for c in self.cells
                if c.week == week and c.metric == "memory_sessions"
            ]
            entry["memories_voted"] = self._voted(week)
            weeks.append(entry)
        out: dict[str, Any] = {
            "ok": True,
            "report": TEAM_REPORT,
            "source": self.source,
            "suppression": {
                "min_sessions": MIN_SESSIONS,
                "min_members": self.min_members,
                "marker": hidden,
            },
            "weeks": weeks,
        }
        if self.members is not None:
            out["reports"] = self.members
        return out

    def _voted(self, week: dt.date) -> list[dict[str, Any]]:
        votes = {c.key: c for c in self.cells if c.week == week and c.metric == "memory_votes"}
        useful = {c.key: c for c in self.cells if c.week == week and c.metric == "memory_useful"}
        return [
            {"id": mid, "votes": _plain(votes[mid].value), "useful": _plain(useful[mid].value),
             "members": votes[mid].members}
            for mid in sorted(votes) if mid in useful
        ]  # fmt: skip

    def memory_totals(self) -> list[tuple[str, float, float, float]]:
        """(id, sessions shown, votes, useful votes) summed over the weeks, most used first."""
        totals: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        for cell in self.cells:
            if cell.metric == "memory_sessions":
                totals[cell.key][0] += cell.value
        for week in self.weeks:
            for item in self._voted(week):
                totals[item["id"]][1] += item["votes"]
                totals[item["id"]][2] += item["useful"]
        return sorted(
            ((mid, *values) for mid, values in totals.items()),  # type: ignore[misc]
            key=lambda row: (-row[1], -row[3], row[0]),
        )


def _plain(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def team_view(
    source: str, cells: Iterable[TeamCell], min_members: int, *, members: int | None = None
) -> TeamView:
    """The view over every week the cells name, oldest first."""
    kept = sorted(cells)
    weeks = sorted({cell.week for cell in kept})
    return TeamView(source, weeks, kept, min_members, members)


def render_team_text(view: TeamView, titles: Mapping[str, str] | None = None) -> str:
    """The team view for a terminal."""
    titles = titles or {}
    data = view.to_json()
    lines = [f"teambrain team usage · {view.source}"]
    if view.members is not None:
        lines.append(f"{view.members} member report(s) combined")
    lines.append(
        f"A figure shows when at least {view.min_members} members' figures make it up (each "
        f"member's own over at least {MIN_SESSIONS} sessions); `+`: some members' were <5."
    )
    if not view.weeks:
        lines += ["", f"No week has figures from {view.min_members} or more members yet."]
        return "\n".join(lines) + "\n"
    header = ("week", "sessions", "with memory", "without", "retrieval calls", "members")
    rows = [header]
    for entry in data["weeks"]:
        members = max(
            (entry[n]["members"] for n in WEEK_FIGURES if isinstance(entry[n], dict)), default=0
        )
        rows.append(
            (entry["week"], *(_team_text(entry[n]) for n in WEEK_FIGURES), str(members or "-"))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines.append("")
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
              for row in rows]  # fmt: skip
    memories = view.memory_totals()
    if memories:
        lines += ["", "Memories used (sessions shown · votes, useful), all weeks:"]
        for mid, sessions, votes, useful in memories[:20]:
            name = titles.get(mid, "")
            vote = f" · {_plain(votes)} votes, {_plain(useful)} useful" if votes else ""
            lines.append(
                f"  {mid}  {_plain(sessions)} sessions{vote}" + (f"  {name}" if name else "")
            )
    return "\n".join(lines) + "\n"


def _team_text(value: object) -> str:
    if isinstance(value, dict):
        return f"{value['value']}{'+' if value['hidden'] else ''}"
    return str(value)
