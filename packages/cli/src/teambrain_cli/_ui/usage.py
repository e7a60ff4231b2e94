"""Is memory used, does it help: the digest's figures as charts.

Everything here is read from ``DigestReport.to_json()`` and from nothing else of the spool. The
page is this machine's own view: by default it reads the report the aggregator makes for its
own audience (every number, the ones a shared report hides marked ``n of 5 sessions needed``);
``?view=shared`` reads the very JSON ``tb digest --format json`` prints and shows exactly what
it shows: numbers over five or more sessions, ``<5`` everywhere else.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from teambrain_capture import RepoKeys
from teambrain_schema.paths import BrainLayout, MachineLayout

from .._reports.cells import Audience
from .._reports.digest import build_digest
from .._reports.window import resolve_window
from .charts import Bar, Chart, bar_from_json, column_chart, row_chart

WINDOWS = ("7d", "30d", "90d")


@dataclass(frozen=True)
class Figure:
    """One headline number of the page: its label and text as the JSON holds it."""

    label: str
    text: str
    note: str = ""
    unshared: str = ""  # own view: why a shared report hides it ("3 of 5 sessions needed…")


@dataclass(frozen=True)
class UsagePage:
    """What the usage page shows: the window, headline figures, charts and the raw JSON."""

    since: str
    repo: str | None
    this_repo: str | None
    report: dict[str, Any]
    own: bool
    figures: list[Figure] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    served_note: str = ""


def _text(value: object, unit: str = "") -> str:
    return bar_from_json("", value, unit=unit).text


def _figure(label: str, value: object, unit: str = "", note: str = "") -> Figure:
    bar = bar_from_json("", value, unit=unit)
    return Figure(label, bar.text, note, bar.unshared or "")


def _breakdown(key: str, title: str, cells: Mapping[str, object]) -> Chart:
    return row_chart(key, title, [bar_from_json(name, value) for name, value in cells.items()])


def _memory_rows(
    key: str, title: str, items: list[dict[str, Any]], titles: Mapping[str, str],
    link: Callable[[str], str],
) -> Chart:  # fmt: skip
    bars = [
        bar_from_json(
            titles.get(item["id"], item["id"]),
            item["sessions"],
            href=link(item["id"]),
            title=item["id"],
        )
        for item in items
    ]
    return row_chart(key, title, bars)


def usage_page(
    machine: MachineLayout,
    *,
    since: str,
    repo: RepoKeys | str | None,
    this_repo: str | None,
    titles_of: Callable[[list[str]], Mapping[str, str]],
    link: Callable[[str], str],
    now: dt.datetime | None = None,
    audience: Audience = Audience.OWN,
) -> UsagePage:
    """The usage page for the window ``since``..now over ``repo`` (None: every repository; a
    repository's keys take its sessions filed under earlier names too): the digest of this
    machine's spool for ``audience`` (own: every number, marked where a shared report hides it;
    shared: what ``tb digest --format json`` prints), as its JSON, drawn by
    :func:`usage_from_json`."""
    window = resolve_window(since, None, now=now)
    data = build_digest(
        machine, window, repo=repo, now=now, audience=audience, weeks=False
    ).to_json()
    shown = repo.key if isinstance(repo, RepoKeys) else repo
    return usage_from_json(data, since=since, repo=shown, this_repo=this_repo, titles_of=titles_of, link=link)  # fmt: skip


def usage_from_json(
    data: dict[str, Any],
    *,
    since: str,
    repo: str | None,
    this_repo: str | None,
    titles_of: Callable[[list[str]], Mapping[str, str]],
    link: Callable[[str], str],
) -> UsagePage:
    """The page for a digest JSON report ``data`` (``titles_of`` names memory ids, ``link``
    makes the address of a memory's page): every figure and bar is read from ``data``."""
    sessions, memory = data["sessions"], data["memory"]
    feedback, context = data["feedback"], data["context_efficiency"]
    per = "day" if data["window"]["bucket_days"] == 1 else "week"
    trend = sessions["trend"]

    def label(start: str) -> str:
        return dt.date.fromisoformat(start).strftime("%b %d")

    charts = [
        column_chart(
            "sessions-per-day", f"Sessions per {per}",
            [bar_from_json(label(b["start"]), b["sessions"], title=b["start"]) for b in trend],
        ),
        column_chart(
            "retrievals-per-day", f"Retrieval calls per {per}",
            [bar_from_json(label(b["start"]), b["retrievals"], title=b["start"]) for b in trend],
        ),
        row_chart(
            "with-without-memory", "Sessions with and without memory",
            [
                bar_from_json("with memory", memory["sessions_with_memory"]),
                bar_from_json("without memory", memory["sessions_without_memory"]),
            ],
        ),
        _breakdown("retrievals-by-call", "Retrieval calls by kind", memory["retrievals_by_via"]),
        row_chart(
            "feedback", "Feedback votes",
            _feedback_bars(feedback["votes"], feedback["useful_pct"]),
        ),
        _breakdown("by-tool", "Sessions by tool", sessions["by_tool"]),
        _breakdown("by-outcome", "Sessions by outcome", sessions["by_outcome"]),
    ]  # fmt: skip
    ids = [item["id"] for item in memory["top_memories"] + memory["least_served"]]
    titles = titles_of(list(dict.fromkeys(ids))) if ids else {}
    charts.append(
        _memory_rows("most-served", "Most served memories (sessions shown each)",
                     memory["top_memories"], titles, link)
    )  # fmt: skip
    if memory["memories_served"] > len(memory["top_memories"]):
        among = "5+ sessions" if data["suppression"].get("audience") != "own" else "any session"
        charts.append(
            _memory_rows("least-served", f"Least served memories (of those shown in {among})",
                         memory["least_served"], titles, link)
        )  # fmt: skip
    candidates, tests = data["candidates"], data["tests"]
    with_memory = _figure("explore calls / session", context["explore_per_session_with_memory"])
    figures = [
        _figure("sessions", sessions["total"]),
        _figure("with memory", memory["sessions_with_memory"]),
        _figure("retrieval calls", memory["retrievals"]),
        _figure("avg context", memory["avg_context_tokens"], " tokens"),
        Figure(
            "explore calls / session",
            f"{with_memory.text} with · "
            f"{_text(context['explore_per_session_without_memory'])} without",
            note=f"change {_text(context['explore_change_pct'], '%')}",
            unshared=with_memory.unshared,
        ),
        _figure("feedback votes", feedback["votes"],
                note=f"{_text(feedback['useful_pct'], '%')} useful"),
        _figure("candidates proposed", candidates["proposed"],
                note=f"in {_text(candidates['sessions_proposing'])} sessions"),
        _figure("test runs", tests["runs"], note=f"{_text(tests['failures'])} failed"),
        _figure("median duration", sessions["median_duration_min"], " min"),
    ]  # fmt: skip
    served = memory["memories_served"]
    own = data["suppression"].get("audience") == Audience.OWN.value
    least = "5 or more sessions" if not own else "at least one session"
    note = f"{served} memor{'y was' if served == 1 else 'ies were'} shown in {least}; " + (
        "any other was shown in fewer, or never." if not own else "any other was never shown."
    )
    return UsagePage(since, repo, this_repo, data, own, figures, charts, note)


def _feedback_bars(votes: object, useful_pct: object) -> list[Bar]:
    """Useful and not useful votes: worked out from the two shown figures (an own view's marked
    ones too, and marked alike), or both ``<5``."""
    count, pct = bar_from_json("", votes), bar_from_json("", useful_pct)
    if count.value is not None and pct.value is not None:
        useful = round(count.value * pct.value / 100)
        return [
            dataclasses.replace(bar_from_json("useful", useful), unshared_sessions=count.unshared_sessions),
            dataclasses.replace(bar_from_json("not useful", count.value - useful), unshared_sessions=count.unshared_sessions),
        ]  # fmt: skip
    return [bar_from_json("useful", None), bar_from_json("not useful", None)]


@dataclass(frozen=True)
class TeamRow:
    """One week of the team page: its figures as text, and how many members make them up."""

    week: str
    cells: list[str]
    members: int


@dataclass(frozen=True)
class TeamMemory:
    """One memory of the team page: used in how many sessions, votes and useful votes."""

    id: str
    title: str
    href: str
    sessions: str
    votes: str


@dataclass(frozen=True)
class TeamPage:
    """The team's weekly figures from the brain's shared database, or why there are none."""

    since: str
    source: str = ""
    problem: str = ""
    min_members: int = 3
    rows: list[TeamRow] = field(default_factory=list)
    memories: list[TeamMemory] = field(default_factory=list)
    report: dict[str, Any] = field(default_factory=dict)


TEAM_WINDOWS = ("4w", "12w", "26w")


def team_page(
    layout: BrainLayout | None,
    machine: MachineLayout,
    *,
    since: str,
    titles_of: Callable[[list[str]], Mapping[str, str]],
    link: Callable[[str], str],
    now: dt.datetime | None = None,
) -> TeamPage:
    """The team's view (``tb metrics --team``) as a page: read from the shared database with
    this machine's approval and credentials, asking nothing; a fault is the page's one line."""
    from teambrain_retrieval import MIN_MEMBERS
    from teambrain_schema import TeambrainError

    from .._reports.team import WEEK_FIGURES, team_view, week_of
    from .._reports.team_db import read_team

    window = resolve_window(since, None, now=now)
    if layout is None:
        return TeamPage(since, problem="not inside a repository with a brain")
    try:
        brain, cells = read_team(layout, machine, week_of(window.since.date()), ask=False)
    except TeambrainError as exc:
        return TeamPage(since, problem=str(exc))
    view = team_view(f"brain {brain} (shared database)", cells, MIN_MEMBERS)
    data = view.to_json()
    rows = []
    for entry in data["weeks"]:
        texts, members = [], 0
        for name in WEEK_FIGURES:
            value = entry[name]
            if isinstance(value, dict):
                texts.append(f"{value['value']}{'+' if value['hidden'] else ''}")
                members = max(members, value["members"])
            else:
                texts.append(str(value))
        rows.append(TeamRow(entry["week"], texts, members))
    totals = view.memory_totals()
    titles = titles_of([row[0] for row in totals]) if totals else {}
    memories = [
        TeamMemory(mid, titles.get(mid, mid), link(mid), f"{sessions:g}",
                   f"{votes:g} ({useful:g} useful)" if votes else "")
        for mid, sessions, votes, useful in totals
    ]  # fmt: skip
    return TeamPage(since, view.source, "", MIN_MEMBERS, rows, memories, data)
