"""The digest's output formats: terminal text, Markdown, JSON and a Slack message.

Every renderer reads only the already-suppressed :class:`DigestReport` (and, optionally, memory
titles from the brain), so no format can show a figure another hides. Numbers appear exactly as
the JSON holds them; charts draw shown figures only and mark suppressed ones with ``·``.

Which outputs are whose: the formats that leave this machine or are made to — Markdown, JSON,
the Slack message (posted or its dry run), and any file ``--out`` writes — are *shared* and
render only a shared report (:func:`require_shared` refuses an own one). Text printed for the
person at this machine (``tb digest --format text`` on stdout, ``tb metrics``) may render an
*own* report: every number, the ones a shared report hides marked ``[n of 5]``.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from teambrain_schema import BRAIN_DIRNAME, UserError
from teambrain_schema.atomic import write_text_atomic
from teambrain_schema.private_dirs import ensure_private_dir

from .cells import (
    MIN_SESSIONS,
    SUPPRESSED_MARK,
    Audience,
    Figure,
    Unshared,
    is_shown,
    number_of,
)
from .digest import DigestReport

ReportFormat = Literal["text", "markdown", "json"]
REPORT_FORMATS: tuple[ReportFormat, ...] = ("text", "markdown", "json")
SPARK_LEVELS = "▁▂▃▄▅▆▇█"
HIDDEN_GLYPH = "·"
BAR_GLYPH = "█"
BAR_WIDTH = 20


def number_text(value: float) -> str:
    """A number as JSON holds it, for people (``870.0`` → ``870``)."""
    return str(int(value)) if float(value).is_integer() else str(value)


def unshared_note(value: Unshared) -> str:
    """Why a shared report hides a figure an own view shows: ``3 of 5 sessions needed``, or
    that it hides it to keep a smaller cell from being worked out."""
    if value.protects_another:
        return "hidden when shared, to protect a smaller cell"
    return f"{value.sessions} of {MIN_SESSIONS} sessions needed to share"


def format_figure(value: Figure, unit: str = "") -> str:
    """A figure for people: the number as JSON holds it (``870.0`` → ``870``), or ``<5``; in
    an own view a figure a shared report hides is marked ``[3 of 5]`` (``[hidden when
    shared]`` when it only protects a smaller cell), and one of nothing reads ``none``."""
    if isinstance(value, Unshared):
        if value.value is None:
            return "none"
        mark = "hidden when shared" if value.protects_another else f"{value.sessions} of {MIN_SESSIONS}"  # fmt: skip
        return f"{number_text(value.value)}{unit} [{mark}]"
    if not is_shown(value):
        return SUPPRESSED_MARK
    assert isinstance(value, (int, float))
    return f"{number_text(value)}{unit}"


def sparkline(values: Sequence[Figure]) -> str:
    """One glyph per value, scaled to the largest shown one; ``·`` where a value is hidden."""
    numbers = [number_of(v) for v in values]
    top = max((float(n) for n in numbers if n is not None), default=0.0)
    glyphs = []
    for number in numbers:
        if number is None:
            glyphs.append(HIDDEN_GLYPH)
        elif top <= 0:
            glyphs.append(SPARK_LEVELS[0])
        else:
            glyphs.append(SPARK_LEVELS[round(float(number) / top * (len(SPARK_LEVELS) - 1))])
    return "".join(glyphs)


def bar(value: Figure, top: float, width: int = BAR_WIDTH) -> str:
    """A horizontal bar for a shown value (at least one block when above zero), ``·`` if hidden."""
    number = number_of(value)
    if number is None:
        return HIDDEN_GLYPH
    if top <= 0 or number <= 0:
        return ""
    return BAR_GLYPH * max(1, round(float(number) / top * width))


def _top(values: Sequence[Figure]) -> float:
    return max((float(n) for v in values if (n := number_of(v)) is not None), default=0.0)


def require_shared(report: DigestReport) -> None:
    """Refuse to render an own view's report in a format that leaves this machine: its marked
    figures rest on fewer than five sessions (a bug in the caller, never the user's)."""
    if report.audience is not Audience.SHARED:
        raise ValueError("a report made for this machine's own view is never rendered to share")


def _breakdown(cells: Mapping[str, Figure]) -> str:
    if not cells:
        return "none"
    return " · ".join(f"{key} {format_figure(value)}" for key, value in cells.items())


def _window_line(report: DigestReport) -> str:
    since = report.window.since.strftime("%Y-%m-%d %H:%M")
    until = report.window.until.strftime("%Y-%m-%d %H:%M")
    return f"{since} → {until} UTC ({format_figure(round(report.window.days, 2))} days)"


def _scope(report: DigestReport) -> str:
    return report.repo or "all repositories"


def _bucket_label(report: DigestReport, start: dt.date) -> str:
    if report.bucket_days == 1:
        return f"{start:%a %Y-%m-%d}"
    return f"week of {start:%Y-%m-%d}"


def _memory_label(memory_id: str, titles: Mapping[str, str] | None) -> str:
    from teambrain_schema.render import one_line

    title = (titles or {}).get(memory_id)
    return f"{memory_id} ({one_line(title)})" if title else memory_id


def _explore_line(report: DigestReport) -> str:
    line = (
        f"{format_figure(report.explore_per_session_with_memory)} with memory · "
        f"{format_figure(report.explore_per_session_without_memory)} without"
    )
    if is_shown(report.explore_change_pct):
        line += f" ({format_figure(report.explore_change_pct, '%')})"
    return line


def _spool_line(report: DigestReport) -> str:
    return (
        f"{report.torn_lines} torn line(s) skipped · {report.invalid_events} invalid event(s) "
        f"skipped · {report.unreadable_files} unreadable file(s)"
    )


SUPPRESSION_NOTE = (
    f"Figures over fewer than {MIN_SESSIONS} sessions show {SUPPRESSED_MARK}; so do cells that "
    "would let one be worked out by subtraction."
)
OWN_NOTE = (
    "Your own numbers, from this machine's spool. [n of 5]: a shared report (Slack, Markdown, "
    f"JSON, --out) hides this figure until it rests on {MIN_SESSIONS} sessions, n so far; "
    "[hidden when shared]: hidden there so a smaller cell cannot be worked out."
)


def audience_note(report: DigestReport) -> str:
    """The line that says how a report treats small cells."""
    return OWN_NOTE if report.audience is Audience.OWN else SUPPRESSION_NOTE


def _count(value: Figure) -> str:
    """A memory's session count in a listing: right-aligned in four columns."""
    return f"{format_figure(value):>4}"


def render_digest_text(report: DigestReport, titles: Mapping[str, str] | None = None) -> str:
    """The digest for a terminal (an own report's too: see the module's docstring)."""
    spark_sessions = sparkline([b.sessions for b in report.buckets])
    spark_retrievals = sparkline([b.retrievals for b in report.buckets])
    per = "day" if report.bucket_days == 1 else "week"
    lines = [
        f"teambrain digest · {_scope(report)}",
        _window_line(report),
        "",
        f"Sessions             {format_figure(report.sessions)}",
        f"  by tool            {_breakdown(report.by_tool)}",
        f"  by model           {_breakdown(report.by_model)}",
        f"  by outcome         {_breakdown(report.by_outcome)}",
        f"  median duration    {format_figure(report.median_duration_min, ' min')}",
        f"  median turns       {format_figure(report.median_turns)}",
        f"  per {per:<15}{spark_sessions}",
        "Memory",
        f"  sessions with      {format_figure(report.sessions_with_memory)}"
        f" (without: {format_figure(report.sessions_without_memory)})",
        f"  retrievals         {format_figure(report.retrievals)}"
        f" ({_breakdown(report.retrievals_by_via)})",
        f"  per {per:<15}{spark_retrievals}",
        f"  avg context size   {format_figure(report.avg_context_tokens, ' tokens')}",
    ]
    if report.top_memories:
        lines.append("  most retrieved")
        lines.extend(
            f"    {_count(count)} sessions  {_memory_label(mid, titles)}"
            for mid, count in report.top_memories
        )
    if len(report.least_memories) > 1 and report.memories_served > len(report.top_memories):
        shown_in = "5+ sessions" if report.audience is Audience.SHARED else "any session"
        lines.append(f"  least retrieved (of those shown in {shown_in})")
        lines.extend(
            f"    {_count(count)} sessions  {_memory_label(mid, titles)}"
            for mid, count in report.least_memories
        )
    if report.stale:
        lines.append("  may be stale (cited code moved or vanished; `tb lint`)")
        for memory_id, title, reasons in report.stale:
            lines.append(f"    {_stale_label(memory_id, title)}: {'; '.join(reasons)}")
    lines += [
        "Context efficiency",
        f"  explore calls per session  {_explore_line(report)}",
        "Feedback",
        f"  votes {format_figure(report.feedback_votes)} · useful "
        f"{format_figure(report.feedback_useful_pct, '%')}",
        "Candidates",
        f"  proposed {format_figure(report.candidates_proposed)} in "
        f"{format_figure(report.sessions_proposing)} sessions",
        "Tests",
        f"  runs {format_figure(report.test_runs)} in {format_figure(report.sessions_with_tests)}"
        f" sessions · failures {format_figure(report.test_failures)} in "
        f"{format_figure(report.sessions_with_test_failures)} sessions",
        "Spool",
        f"  {_spool_line(report)}",
        "",
        audience_note(report),
    ]
    return "\n".join(lines) + "\n"


def _md_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], align: Sequence[str]
) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def _md_bars(title: str, cells: Mapping[str, Figure]) -> list[str]:
    if not cells:
        return [f"No {title} in this window.", ""]
    top = _top(list(cells.values()))
    rows = [[f"`{key}`", format_figure(value), bar(value, top)] for key, value in cells.items()]
    return [*_md_table([title, "sessions", ""], rows, ["---", "---:", "---"]), ""]


def render_digest_markdown(report: DigestReport, titles: Mapping[str, str] | None = None) -> str:
    """The digest as a Markdown document: summary table, per-day charts, breakdown bars."""
    require_shared(report)
    figures = [
        ("Sessions", format_figure(report.sessions)),
        ("Median duration", format_figure(report.median_duration_min, " min")),
        ("Median turns", format_figure(report.median_turns)),
        ("Sessions with memory retrieved", format_figure(report.sessions_with_memory)),
        ("Sessions without memory retrieved", format_figure(report.sessions_without_memory)),
        ("Memory retrievals", format_figure(report.retrievals)),
        ("Average context size", format_figure(report.avg_context_tokens, " tokens")),
        ("Feedback votes", format_figure(report.feedback_votes)),
        ("Feedback: useful", format_figure(report.feedback_useful_pct, "%")),
        ("Candidates proposed", format_figure(report.candidates_proposed)),
        ("Sessions proposing", format_figure(report.sessions_proposing)),
        ("Test runs", format_figure(report.test_runs)),
        ("Sessions running tests", format_figure(report.sessions_with_tests)),
        ("Test failures", format_figure(report.test_failures)),
        ("Sessions with failing tests", format_figure(report.sessions_with_test_failures)),
    ]
    per = "day" if report.bucket_days == 1 else "week"
    sessions = [b.sessions for b in report.buckets]
    retrievals = [b.retrievals for b in report.buckets]
    lines = [
        f"# teambrain digest — {_scope(report)}",
        "",
        f"{_window_line(report)}. {SUPPRESSION_NOTE}",
        "",
        "## Summary",
        "",
        *_md_table(["figure", "value"], [list(row) for row in figures], ["---", "---:"]),
        "",
        f"## Trend per {per}",
        "",
        f"Sessions `{sparkline(sessions)}` · memory retrievals `{sparkline(retrievals)}` "
        f"(`{HIDDEN_GLYPH}` hidden)",
        "",
    ]
    top_sessions, top_retrievals = _top(sessions), _top(retrievals)
    rows = [
        [
            _bucket_label(report, b.start),
            format_figure(b.sessions),
            _code(bar(b.sessions, top_sessions, 12)),
            format_figure(b.retrievals),
            _code(bar(b.retrievals, top_retrievals, 12)),
        ]
        for b in report.buckets
    ]
    lines += _md_table(
        [per, "sessions", "", "retrievals", ""], rows, ["---", "---:", "---", "---:", "---"]
    )
    lines += ["", "## Sessions by tool, model and outcome", ""]
    lines += _md_bars("tool", report.by_tool)
    lines += _md_bars("model", report.by_model)
    lines += _md_bars("outcome", report.by_outcome)
    lines += ["## Memory", ""]
    lines += [f"Retrievals by call: {_breakdown(report.retrievals_by_via)}.", ""]
    if report.top_memories:
        top = _top([count for _, count in report.top_memories])
        lines += _md_table(
            ["most retrieved memory", "sessions", ""],
            [
                [f"`{_memory_label(mid, titles)}`", format_figure(count), bar(count, top, 12)]
                for mid, count in report.top_memories
            ],
            ["---", "---:", "---"],
        )
    else:
        lines.append(f"No memory was retrieved in {MIN_SESSIONS} or more sessions.")
    if len(report.least_memories) > 1 and report.memories_served > len(report.top_memories):
        low = _top([count for _, count in report.least_memories])
        lines += [""]
        lines += _md_table(
            [
                f"least retrieved memory (of {report.memories_served} in {MIN_SESSIONS}+ sessions)",
                "sessions",
                "",
            ],
            [
                [f"`{_memory_label(mid, titles)}`", format_figure(count), bar(count, low, 12)]
                for mid, count in report.least_memories
            ],
            ["---", "---:", "---"],
        )
    if report.stale:
        lines += ["", "Memories that may be stale (their cited code moved or vanished):", ""]
        lines += [
            f"- `{_stale_label(memory_id, title)}`: {'; '.join(reasons)}"
            for memory_id, title, reasons in report.stale
        ]
    with_value = report.explore_per_session_with_memory
    without_value = report.explore_per_session_without_memory
    top_explore = _top([with_value, without_value])
    lines += [
        "",
        "## Context efficiency",
        "",
        "Explore tool calls (read, grep, glob) per session — fewer means the agent had to look "
        "around less:",
        "",
        *_md_table(
            ["sessions", "explore calls per session", ""],
            [
                ["with memory retrieved", format_figure(with_value), bar(with_value, top_explore)],
                ["without", format_figure(without_value), bar(without_value, top_explore)],
            ],
            ["---", "---:", "---"],
        ),
        "",
    ]
    if is_shown(report.explore_change_pct):
        lines += [f"Change with memory: {format_figure(report.explore_change_pct, '%')}.", ""]
    lines += ["## Spool", "", f"{_spool_line(report)}.", ""]
    return "\n".join(lines)


def render_digest_json(report: DigestReport) -> str:
    """The digest as stable, key-sorted JSON."""
    require_shared(report)
    return json.dumps(report.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_digest(
    report: DigestReport, fmt: ReportFormat, titles: Mapping[str, str] | None = None
) -> str:
    """The digest in ``fmt`` (text, markdown or json)."""
    if fmt == "json":
        return render_digest_json(report)
    if fmt == "markdown":
        return render_digest_markdown(report, titles)
    return render_digest_text(report, titles)


def _stale_label(memory_id: str, title: str) -> str:
    from teambrain_schema.render import one_line

    return f"{memory_id} {one_line(title)}"


def slack_text(report: DigestReport, titles: Mapping[str, str] | None = None) -> str:
    """The digest as a short Slack message (mrkdwn, before Slack's escaping)."""
    require_shared(report)
    since = report.window.since.strftime("%Y-%m-%d")
    until = report.window.until.strftime("%Y-%m-%d")
    lines = [
        f"*teambrain digest* · {_scope(report)} · {since} → {until}",
        f"• *{format_figure(report.sessions)}* sessions ({_breakdown(report.by_tool)}) · "
        f"outcomes: {_breakdown(report.by_outcome)} · median "
        f"{format_figure(report.median_duration_min, ' min')}, "
        f"{format_figure(report.median_turns)} turns",
        f"• Memory retrieved in *{format_figure(report.sessions_with_memory)}* sessions · "
        f"{format_figure(report.retrievals)} retrievals · avg context "
        f"{format_figure(report.avg_context_tokens, ' tokens')}",
        f"• Explore calls per session: {_explore_line(report)}",
        f"• Feedback: {format_figure(report.feedback_useful_pct, '%')} useful of "
        f"{format_figure(report.feedback_votes)} votes · "
        f"{format_figure(report.candidates_proposed)} candidates proposed",
        f"• Tests: {format_figure(report.test_runs)} runs, "
        f"{format_figure(report.test_failures)} failures",
    ]
    if report.top_memories:
        mid, count = report.top_memories[0]
        lines.append(
            f"• Most retrieved: `{_memory_label(mid, titles)}` ({format_figure(count)} sessions)"
        )
    if report.stale:
        count = len(report.stale)
        lines.append(
            f"• {count} memor{'y' if count == 1 else 'ies'} may be stale (cited code moved or "
            "vanished): `tb lint` lists them"
        )
    per = "day" if report.bucket_days == 1 else "week"
    lines.append(f"Sessions per {per} `{sparkline([b.sessions for b in report.buckets])}`")
    lines.append(f"_{SUPPRESSION_NOTE}_")
    return "\n".join(lines)


def slack_payload(text: str) -> dict[str, Any]:
    """An incoming-webhook payload for ``text``: ``&``, ``<`` and ``>`` escaped as Slack asks
    (``<5`` would otherwise start a link)."""
    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return {"text": escaped}


def report_path_problem(path: Path) -> str | None:
    """Why a derived report must not be written at ``path`` (None when it may).

    Reports are derived files: inside a brain (``.teambrain/``) they would be reviewed,
    committed and — under ``memories/`` — indexed and served to agents as team memory."""
    import os
    import stat

    resolved = path.expanduser().resolve()
    named = path.expanduser().absolute()
    if named.is_symlink() or any(p.is_symlink() for p in named.parents if _in_work_tree(p)):
        # `reports/week.md` committed as a link to ~/.bashrc (or `reports` to a folder of the
        # home) would have the report replace that file: a link is never written through.
        return (
            f"{path}: is a link (to {resolved}), or is reached through one in this repository; "
            "reports are never written through a link: give the real path"
        )
    try:
        mode = os.stat(resolved).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return f"{path}: is not a regular file (a FIFO, device or socket): nothing was written"
    if BRAIN_DIRNAME in resolved.parts:
        return (
            f"{path}: reports are derived files and are never written inside a brain "
            f"({BRAIN_DIRNAME}/); choose a path outside it"
        )
    if resolved.is_dir():
        return f"{path}: is a directory; give a file name"
    blocking = next((p for p in resolved.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:  # a missing folder is made; a file in the way is not replaced
        return f"{path}: {blocking} is a file, not a directory"
    return None


def _in_work_tree(folder: Path) -> bool:
    """Whether ``folder`` lies in a git work tree (a folder there arrives by commit); the
    user's own folders above it, and outside any repository, are theirs to link."""
    return (
        any((p / ".git").exists() for p in (folder, *folder.parents))
        and not (folder / ".git").exists()
    )


def write_report(path: Path, text: str) -> Path:
    """Write a derived report atomically, making its folder when missing; :class:`UserError`
    when ``path`` is not allowed."""
    problem = report_path_problem(path)
    if problem:
        raise UserError(problem)
    target = path.expanduser().resolve()
    ensure_private_dir(target.parent)  # a report holds this machine's usage: private
    write_text_atomic(target, text)
    return target
