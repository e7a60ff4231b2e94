import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from digest_spool import IDS, NOW, SessionSpec, session_strategy, summary_of, write_sessions
from hypothesis import given, settings, strategies as st
from markdown_it import MarkdownIt
from teambrain_cli._reports.cells import SUPPRESSED
from teambrain_cli._reports.digest import DigestReport, SpoolScan, aggregate, build_digest
from teambrain_cli._reports.render import (
    bar,
    render_digest,
    report_path_problem,
    slack_payload,
    slack_text,
    sparkline,
    write_report,
)
from teambrain_cli._reports.window import resolve_window
from teambrain_kit.paths import machine_layout
from teambrain_schema import UserError

UTC = dt.UTC
WINDOW = resolve_window("2026-07-01", "2026-07-07", now=NOW)


def day(d: int, hour: int = 10) -> dt.datetime:
    return dt.datetime(2026, 7, d, hour, tzinfo=UTC)


@pytest.fixture
def report(teambrain_home: Path) -> DigestReport:
    """Seven claude-code sessions on Jul 2 (with memory), six cursor ones on Jul 3 (without),
    two codex ones on Jul 4."""
    specs = [
        SessionSpec(f"m{i}", day(2, 8 + i), retrievals=[[IDS[0]]], explore=1, tests=[0])
        for i in range(7)
    ]
    specs += [SessionSpec(f"n{i}", day(3, 8 + i), tool="cursor", explore=5) for i in range(6)]
    specs += [
        SessionSpec(f"o{i}", day(4, 8 + i), tool="codex", outcome="abandoned") for i in range(2)
    ]
    write_sessions(machine_layout(), specs)
    return build_digest(machine_layout(), WINDOW, now=NOW)


def test_text_format(report: DigestReport) -> None:
    text = render_digest(report, "text", {IDS[0]: "Use the fake clock"})
    assert text.startswith(
        "teambrain digest · all repositories\n2026-07-01 00:00 → 2026-07-08 00:00 UTC (7 days)"
    )
    assert "Sessions             15" in text
    assert (
        "by tool            claude-code 7 · cursor 6 · (other) <5" not in text
    )  # folded with cursor
    assert "by tool            claude-code 7 · (other) 8" in text
    assert f"7 sessions  {IDS[0]} (Use the fake clock)" in text
    assert "explore calls per session  1 with memory · 3.75 without (-73.3%)" in text
    assert "votes <5 · useful <5" in text
    assert text.endswith("worked out by subtraction.\n")


def test_markdown_format_has_tables_and_charts(report: DigestReport) -> None:
    markdown = render_digest(report, "markdown")
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    assert next(t.content for t in tokens if t.type == "inline" and t.level == 1).startswith(
        "teambrain digest — all repositories"
    )
    assert sum(t.type == "table_open" for t in tokens) >= 5
    # Jul 2 (7) and Jul 3 (6) are shown; the 2 codex sessions of Jul 4 take Jul 3 down with them.
    assert "Sessions `·█·····`" in markdown
    assert "| Thu 2026-07-02 | 7 | `████████████` | 7 | `████████████` |" in markdown
    assert "| Fri 2026-07-03 | <5 | `·` | <5 | `·` |" in markdown
    assert "| with memory retrieved | 1 | █████ |" in markdown
    assert "| without | 3.75 | ████████████████████ |" in markdown
    assert "Change with memory: -73.3%." in markdown


def test_json_format_is_the_report_sorted(report: DigestReport) -> None:
    text = render_digest(report, "json")
    assert json.loads(text) == report.to_json()
    assert text == json.dumps(report.to_json(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_slack_payload_escapes_what_slack_would_read_as_markup(report: DigestReport) -> None:
    text = slack_text(report)
    assert text.startswith("*teambrain digest* · all repositories · 2026-07-01 → 2026-07-08")
    assert "<5 useful of <5 votes" in text
    payload = slack_payload(text + " & <b>")
    assert set(payload) == {"text"}
    assert "<" not in payload["text"] and ">" not in payload["text"]
    assert "&lt;5 useful of &lt;5 votes" in payload["text"] and payload["text"].endswith(
        "&amp; &lt;b&gt;"
    )


def test_sparklines_and_bars_never_draw_a_hidden_value() -> None:
    assert sparkline([0, 4.0, 8, SUPPRESSED]) == "▁▅█·"
    assert sparkline([SUPPRESSED, SUPPRESSED]) == "··"
    assert sparkline([0, 0]) == "▁▁"
    assert bar(SUPPRESSED, 10) == "·"
    assert bar(10, 10, 20) == "█" * 20 and bar(0.1, 10, 20) == "█" and bar(0, 10) == ""


NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
NOT_FIGURES = re.compile(r"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}|[0-9A-HJKMNP-TV-Z]{26}")


def _json_numbers(node: Any) -> set[float]:
    if isinstance(node, dict):
        return set().union(*(_json_numbers(v) for v in node.values())) if node else set()
    if isinstance(node, list):
        return set().union(*(_json_numbers(v) for v in node)) if node else set()
    if isinstance(node, (int, float)) and not isinstance(node, bool):
        return {float(node)}
    return set()


@settings(max_examples=150, deadline=None)
@given(st.lists(session_strategy, max_size=30))
def test_no_format_shows_a_number_the_json_does_not(specs: list[dict[str, Any]]) -> None:
    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    report = aggregate(SpoolScan(sessions=sessions), WINDOW, [], generated=NOW)
    allowed = _json_numbers(report.to_json())
    for text in (
        render_digest(report, "text"),
        render_digest(report, "markdown"),
        slack_text(report),
    ):
        stray = {
            number
            for number in NUMBER.findall(NOT_FIGURES.sub(" ", text))
            if float(number) not in allowed
        }
        assert stray == set(), stray


def test_reports_are_never_written_inside_a_brain(tmp_path: Path) -> None:
    brain = tmp_path / "repo" / ".teambrain" / "memories" / "learnings"
    brain.mkdir(parents=True)
    for target in (brain / "digest.md", tmp_path / "repo" / ".teambrain" / "digest.md"):
        problem = report_path_problem(target)
        assert problem is not None and "never written inside a brain" in problem
        with pytest.raises(UserError):
            write_report(target, "# report\n")
        assert not target.exists()
    link = tmp_path / "reports"
    link.symlink_to(brain)
    assert report_path_problem(link / "digest.md") is not None  # a symlink does not get around it
    assert "is a directory" in (report_path_problem(tmp_path) or "")
    # A missing folder is made (the docs' `--out reports/week.md` in a fresh checkout)...
    assert report_path_problem(tmp_path / "nope" / "d.md") is None
    assert write_report(tmp_path / "nope" / "deeper" / "d.md", "# r\n").read_text() == "# r\n"
    # ...a file where a folder should be is not replaced.
    (tmp_path / "afile").write_text("x")
    assert "is a file, not a directory" in (report_path_problem(tmp_path / "afile" / "d.md") or "")


def test_write_report_replaces_the_file_atomically(tmp_path: Path) -> None:
    target = tmp_path / "digest.md"
    target.write_text("old\n")
    assert write_report(target, "new\n") == target.resolve()
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["digest.md"]  # no temp file left behind
