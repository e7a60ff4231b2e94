"""The team view of use (issue 40, point 8): each member's weekly figures (suppressed on their
machine, naming nothing but memory ULIDs), combined across members with suppression applied
again — from exported `tb digest --format json` files, or from the shared database."""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import pytest
from digest_spool import session_strategy, summary_of
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_capture import JoinKeys, append_event, make_event, user_dir
from teambrain_cli._main import run
from teambrain_cli._reports.cells import SUPPRESSED, Figure
from teambrain_cli._reports.team import (
    ReportProblem,
    WeekUsage,
    cells_from_report,
    week_of,
)
from teambrain_schema.paths import machine_layout

MEMORY = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
OTHER = "01KB2F0A1S9Y4Q7V3C8D5E6F02"
# A whole week two weeks back: every session and vote of the tests falls in it.
WEEK = week_of(dt.datetime.now(dt.UTC).date()) - dt.timedelta(days=14)
WINDOW = ["--since", WEEK.isoformat(), "--until", (WEEK + dt.timedelta(days=6)).isoformat()]
SECRETS = ("sid-", "src/app.py", "fix the checkout flow", "acme/shop")


def write_member(
    home: Path,
    *,
    with_memory: int,
    without_memory: int = 0,
    used: tuple[str, ...] = (MEMORY,),
    votes: tuple[bool, ...] = (),
    repo: str = "acme/shop",
) -> None:
    """A member's spool: sessions of WEEK, those with memory shown ``used``; ``votes`` cast on
    MEMORY, one per session."""
    machine = machine_layout(home)
    start = dt.datetime.combine(WEEK + dt.timedelta(days=2), dt.time(10), dt.UTC)
    for i in range(with_memory + without_memory):
        keys = JoinKeys(sid=f"sid-{home.name}-{i}", tool="claude-code", model="opus",
                        repo=repo, branch="main")  # fmt: skip
        at = start + dt.timedelta(minutes=i)
        append_event(machine, make_event("session_start", {}, keys, now=at))
        append_event(machine, make_event("intent", {"summary": "fix the checkout flow"}, keys, now=at))  # fmt: skip
        append_event(machine, make_event("tool_use", {"kind": "explore", "path": "src/app.py"}, keys, now=at))  # fmt: skip
        if i < with_memory:
            event = {"ids": list(used), "via": "context", "token_estimate": 300}
            append_event(machine, make_event("memory_retrieved", event, keys, now=at))
    feedback = user_dir(machine) / "feedback.jsonl"
    feedback.parent.mkdir(parents=True, exist_ok=True)
    with feedback.open("a") as out:
        for i, useful in enumerate(votes):
            moment = start + dt.timedelta(minutes=i, seconds=30)
            out.write(json.dumps({"t": moment.isoformat().replace("+00:00", "Z"), "id": MEMORY,
                                  "useful": useful, "sid": f"sid-{home.name}-{i}"}) + "\n")  # fmt: skip


def export(
    home: Path, out: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> dict[str, Any]:
    monkeypatch.setenv("TEAMBRAIN_HOME", str(home))
    assert run(["digest", *WINDOW, "--out", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    return dict(json.loads(out.read_text()))


def test_a_members_weeks_are_suppressed_and_name_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    home = tmp_path / "alice"
    write_member(home, with_memory=7, without_memory=5, used=(MEMORY, OTHER),
                 votes=(True,) * 4 + (False, True))  # fmt: skip
    data = export(home, tmp_path / "alice.json", monkeypatch, capsys)
    (week,) = data["weeks"]
    assert week == {
        "week": WEEK.isoformat(),
        "sessions": 12,
        "sessions_with_memory": 7,
        "sessions_without_memory": 5,
        "retrievals": 7,
        "memories_used": [{"id": MEMORY, "sessions": 7}, {"id": OTHER, "sessions": 7}],
        "memories_voted": [{"id": MEMORY, "votes": 6, "useful": 5}],
    }
    text = json.dumps(data["weeks"])
    assert not any(secret in text for secret in SECRETS)

    small = tmp_path / "bob"
    write_member(small, with_memory=3, without_memory=6, votes=(True,) * 4)
    (week,) = export(small, tmp_path / "bob.json", monkeypatch, capsys)["weeks"]
    # 3 with memory: hidden, and its complement with it; the memory and the votes: too few.
    assert (week["sessions"], week["sessions_with_memory"], week["sessions_without_memory"]) == (
        9, "<5", "<5",
    )  # fmt: skip
    assert week["retrievals"] == "<5"
    assert week["memories_used"] == [] and week["memories_voted"] == []


def test_combining_reports_applies_suppression_again_across_members(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    files = []
    for name, with_memory, without, votes in (
        ("alice", 7, 5, (True,) * 5),
        ("bob", 6, 0, ()),
        ("carol", 5, 0, ()),
        ("dave", 3, 0, ()),  # every figure of dave's is <5
    ):
        write_member(tmp_path / name, with_memory=with_memory, without_memory=without, votes=votes)
        files.append(tmp_path / f"{name}.json")
        export(tmp_path / name, files[-1], monkeypatch, capsys)

    assert run(["metrics", "--team", "--json", *map(str, files)]) == 0
    view = json.loads(capsys.readouterr().out)
    (week,) = view["weeks"]
    assert view["reports"] == 4 and view["suppression"]["min_members"] == 3
    assert week["sessions"] == {"value": 7 + 5 + 6 + 5, "members": 3, "hidden": 1}
    assert week["sessions_with_memory"] == {"value": 18, "members": 3, "hidden": 1}
    # Only alice's without-memory figure is shown: one member's figure is never the team's.
    assert week["sessions_without_memory"] == "<3 members"
    assert week["memories_used"] == [{"id": MEMORY, "sessions": 18, "members": 3}]
    assert week["memories_voted"] == []  # voted by alice's sessions alone

    assert run(["metrics", "--team", *map(str, files)]) == 0
    text = capsys.readouterr().out
    assert "23+" in text and "<3 members" in text and MEMORY in text

    # Two reports: nothing is three members' figures.
    assert run(["metrics", "--team", "--json", *map(str, files[:2])]) == 0
    assert json.loads(capsys.readouterr().out)["weeks"] == []


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"report": "teambrain-metrics", "version": 1}', "report: must be"),
        ('{"report": "teambrain-digest", "version": 1}', "weeks: missing"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-24"}]}',
         "weeks[0].week: 2026-11-24 is not a Monday"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-23", '
         '"sessions": 1e999999, "sessions_with_memory": 1, "sessions_without_memory": 1, '
         '"retrievals": 1}]}', "weeks[0].sessions: must be a number"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-23", '
         '"sessions": 10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000, "sessions_with_memory": 1, "sessions_without_memory": 1, '
         '"retrievals": 1}]}', "weeks[0].sessions: must be a number"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-23", '
         '"sessions": -3, "sessions_with_memory": 1, "sessions_without_memory": 1, '
         '"retrievals": 1}]}', "weeks[0].sessions: must be a number"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-23", '
         '"sessions": 9, "sessions_with_memory": "<5", "sessions_without_memory": "<5", '
         '"retrievals": 1, "memories_used": [{"id": "src/app.py", "sessions": 5}]}]}',
         "weeks[0].memories_used[0].id: must be a memory id"),
        ('{"report": "teambrain-digest", "version": 1, "weeks": [{"week": "2026-11-23", '
         '"sessions": 9, "sessions_with_memory": "<5", "sessions_without_memory": "<5", '
         f'"retrievals": 1, "memories_used": [{{"id": "{MEMORY}", "sessions": 2}}]}}]}}',
         "weeks[0].memories_used[0].sessions: must be a whole number from 5 to"),
    ],
)  # fmt: skip
def test_a_bad_report_is_one_line_naming_the_file_and_field(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, said: str
) -> None:
    bad = tmp_path / "mallory.json"
    bad.write_text(content)
    assert run(["metrics", "--team", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("tb: ") and str(bad) in err and said in err, err
    assert "\n" not in err and "Traceback" not in err


def test_the_same_report_twice_is_refused(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    write_member(tmp_path / "alice", with_memory=6)
    first = tmp_path / "alice.json"
    export(tmp_path / "alice", first, monkeypatch, capsys)
    again = tmp_path / "copy.json"
    again.write_text(first.read_text())
    assert run(["metrics", "--team", str(first), str(again)]) == 1
    assert f"{again}: the same figures as {first}" in capsys.readouterr().err
    assert run(["metrics", "--team", str(tmp_path / "absent.json")]) == 1
    assert "absent.json: cannot read" in capsys.readouterr().err


figures: st.SearchStrategy[Figure] = st.one_of(
    st.just(SUPPRESSED), st.integers(min_value=0, max_value=10_000),
    st.floats(min_value=0, max_value=1e6, allow_nan=False),
)  # fmt: skip
ulids = st.from_regex(r"[0-9A-HJKMNP-TV-Z]{26}", fullmatch=True)
weeks = st.builds(
    WeekUsage,
    week=st.integers(min_value=0, max_value=3000).map(
        lambda n: dt.date(2020, 1, 6) + dt.timedelta(weeks=n)
    ),
    sessions=figures, sessions_with_memory=figures, sessions_without_memory=figures,
    retrievals=figures,
    memories_used=st.dictionaries(ulids, st.integers(min_value=5, max_value=999), max_size=3),
    memories_voted=st.dictionaries(
        ulids, st.integers(min_value=1, max_value=50).flatmap(
            lambda v: st.tuples(st.just(v), st.integers(min_value=0, max_value=v))
        ), max_size=3,
    ),
)  # fmt: skip


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(weeks, max_size=4, unique_by=lambda w: w.week))
def test_a_reports_weeks_read_back_as_the_cells_published(week_list: list[WeekUsage]) -> None:
    data = {"report": "teambrain-digest", "version": 1, "weeks": [w.to_json() for w in week_list]}
    data = json.loads(json.dumps(data))
    assert cells_from_report(data) == [cell for w in week_list for cell in w.cells()]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=10**300, max_value=10**310)
    | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip
field_names = st.sampled_from(
    ["week", "sessions", "sessions_with_memory", "sessions_without_memory", "retrievals",
     "memories_used", "memories_voted", "id", "votes", "useful"]
)  # fmt: skip
near_weeks = st.fixed_dictionaries(
    {"week": st.sampled_from(["2026-11-23", "2026-11-24", "x", 3])},
    optional={name: json_values | st.just("<5") | st.integers(0, 9) for name in
              ("sessions", "sessions_with_memory", "sessions_without_memory", "retrievals")}
    | {"memories_used": st.lists(st.dictionaries(field_names, json_values | ulids), max_size=2),
       "memories_voted": st.lists(st.dictionaries(field_names, json_values | ulids), max_size=2)},
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(json_values, st.fixed_dictionaries(
    {"report": st.just("teambrain-digest"), "version": st.just(1)},
    optional={"weeks": json_values | st.lists(near_weeks, max_size=3)},
)))  # fmt: skip
def test_any_json_is_read_or_refused_naming_the_field(data: object) -> None:
    try:
        cells = cells_from_report(data)
    except ReportProblem as exc:
        message = str(exc)
        assert "\n" not in message and message
        return
    for cell in cells:
        assert cell.value is None or (math.isfinite(cell.value) and cell.value >= 0)
        assert cell.week.isoweekday() == 1


def test_publishing_needs_the_members_opt_in(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    capsys.readouterr()
    assert run(["digest", "--publish"]) == 1
    assert "not opted in on this machine" in capsys.readouterr().err
    config = user_dir(machine_layout()) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[digest]\npublish_to_team = true\n")
    assert run(["digest", "--publish"]) == 1
    assert "no shared database" in capsys.readouterr().err
    assert run(["metrics", "--team"]) == 1
    assert "tb metrics --team FILE" in capsys.readouterr().err
    from teambrain_cli._ui.usage import team_page
    from teambrain_schema.paths import find_brain

    page = team_page(find_brain(repo), machine_layout(), since="12w",
                     titles_of=lambda ids: {}, link=str)  # fmt: skip
    assert "no shared database" in page.problem and page.rows == []
    # tb verify names the opt-in among what leaves the machine.
    from teambrain_cli._checks.verify import check_egress

    evidence = check_egress(machine_layout(), find_brain(repo)).evidence
    assert any("publish_to_team" in line and "this brain has none" in line for line in evidence)
    config.write_text('[digest]\npublish_to_team = "yes"\n')
    assert run(["digest", "--publish"]) == 2
    assert "digest.publish_to_team must be true or false" in capsys.readouterr().err


# ------------------------------------------------------------------ on a real PostgreSQL

TEAM_SQL = """
CREATE ROLE reader_{t} NOLOGIN;
GRANT USAGE ON SCHEMA teambrain TO reader_{t};
GRANT SELECT ON ALL TABLES IN SCHEMA teambrain TO reader_{t};
GRANT INSERT, UPDATE, DELETE ON teambrain.usage TO reader_{t};
GRANT EXECUTE ON FUNCTION teambrain.team_usage(text) TO reader_{t};
CREATE ROLE shop_{t} NOLOGIN IN ROLE reader_{t};
CREATE ROLE other_{t} NOLOGIN IN ROLE reader_{t};
INSERT INTO teambrain.access(role, brain) VALUES
    ('shop_{t}', 'github.com/acme/shop'), ('other_{t}', 'github.com/acme/other');
CREATE ROLE alice_{t} LOGIN IN ROLE shop_{t};
CREATE ROLE bob_{t} LOGIN IN ROLE shop_{t};
CREATE ROLE carol_{t} LOGIN IN ROLE shop_{t};
CREATE ROLE dave_{t} LOGIN IN ROLE shop_{t};
CREATE ROLE erin_{t} LOGIN IN ROLE other_{t};
"""


def _shared_brain(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import subprocess

    subprocess.run(["git", "remote", "add", "origin", "https://github.com/acme/shop.git"],
                   cwd=repo, check=True)  # fmt: skip
    assert run(["init"]) == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    assert "\n  backend: sqlite\n" in text and "\n  url_env: null\n" in text
    text = text.replace("\n  backend: sqlite\n", "\n  backend: postgres\n", 1)
    yaml.write_text(text.replace("\n  url_env: null\n", "\n  url_env: TB_TEAM_PG\n", 1))
    capsys.readouterr()


def _become(
    name: str, tmp_path: Path, url: str, monkeypatch: pytest.MonkeyPatch, *, opted_in: bool = True
) -> Path:
    """Switch to member ``name``: their TEAMBRAIN_HOME (outside the repository: a trust file
    inside it approves nothing), their database role, tb trust done."""
    home = tmp_path.parent / f"{tmp_path.name}-home-{name}"
    monkeypatch.setenv("TEAMBRAIN_HOME", str(home))
    tag = url.split("?", 1)[0].rsplit("/", 1)[1]
    monkeypatch.setenv("TB_TEAM_PG", url.replace("postgres:@", f"{name}_{tag}:@", 1))
    config = user_dir(machine_layout(home)) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[digest]\npublish_to_team = {'true' if opted_in else 'false'}\n")
    assert run(["trust", "--yes"]) == 0
    return home


def test_members_publish_and_the_team_reads_the_same_view_as_from_files(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], postgres_url: str,
) -> None:  # fmt: skip
    import psycopg
    from teambrain_capture import repo_keys
    from teambrain_retrieval._postgres import connect, migrate

    _shared_brain(repo, capsys)
    tag = postgres_url.split("?", 1)[0].rsplit("/", 1)[1]
    with connect(postgres_url) as admin:
        migrate(admin)
        admin.execute(TEAM_SQL.format(t=tag))
    key = repo_keys(repo, machine_layout(tmp_path / "probe")).key
    assert key is not None
    files = []
    for name, with_memory, without in (("alice", 7, 5), ("bob", 6, 0), ("carol", 5, 0),
                                       ("dave", 3, 0)):  # fmt: skip
        home = _become(name, tmp_path, postgres_url, monkeypatch)
        write_member(home, with_memory=with_memory, without_memory=without, repo=key,
                     votes=(True,) * 5)  # fmt: skip
        capsys.readouterr()
        assert run(["digest", "--publish", *WINDOW]) == 0, capsys.readouterr().err
        said = capsys.readouterr().err
        assert "Published this machine's figures of 1 week(s)" in said, said
        assert "brain github.com/acme/shop" in said
        files.append(tmp_path / f"{name}.json")
        assert run(["digest", "--repo", ".", *WINDOW, "--out", str(files[-1])]) == 0
    # Publishing again replaces the week, never adds to it.
    assert run(["digest", "--publish", *WINDOW]) == 0

    _become("alice", tmp_path, postgres_url, monkeypatch)
    capsys.readouterr()
    assert run(["metrics", "--team", "--json"]) == 0, capsys.readouterr().err
    from_db = json.loads(capsys.readouterr().out)
    assert from_db["source"] == "brain github.com/acme/shop (shared database)"
    (week,) = from_db["weeks"]
    assert week["sessions"] == {"value": 23, "members": 3, "hidden": 1}
    assert week["sessions_without_memory"] == "<3 members"
    assert week["memories_used"] == [{"id": MEMORY, "sessions": 18, "members": 3}]
    assert week["memories_voted"] == [{"id": MEMORY, "votes": 15, "useful": 15, "members": 3}]
    assert run(["metrics", "--team", "--json", *map(str, files)]) == 0
    from_files = json.loads(capsys.readouterr().out)
    assert from_files["weeks"] == from_db["weeks"]

    from teambrain_cli._checks.verify import check_egress
    from teambrain_schema.paths import find_brain

    evidence = check_egress(machine_layout(), find_brain(repo)).evidence
    assert any("publish_to_team" in line and "shared database above" in line for line in evidence)
    # tb ui's team page shows the same, asking nothing.
    from teambrain_cli._ui.usage import team_page

    page = team_page(find_brain(repo), machine_layout(tmp_path.parent / f"{tmp_path.name}-home-alice"),
                     since="12w", titles_of=lambda ids: {MEMORY: "Payments go through the gateway"},
                     link=lambda mid: f"/memory/{mid}")  # fmt: skip
    assert page.problem == "" and page.report["weeks"] == from_db["weeks"]
    assert [(r.week, r.cells, r.members) for r in page.rows] == [
        (WEEK.isoformat(), ["23+", "18+", "<3 members", "18+"], 3)
    ]
    assert [(m.title, m.sessions, m.votes) for m in page.memories] == [
        ("Payments go through the gateway", "18", "15 (15 useful)")
    ]

    # What the database holds: figures keyed by metric and memory ULID, nothing else.
    with psycopg.connect(postgres_url) as admin:
        rows = admin.execute("SELECT * FROM teambrain.usage").fetchall()
    assert len(rows) == 4 * 4 + 3 * 3  # 4 figures each; memory, votes, useful for three
    # (the brain column names the brain, as its other tables do: drop it before looking)
    stored = repr([row[1:] for row in rows])
    assert {row[0] for row in rows} == {"github.com/acme/shop"}
    assert [s for s in (*SECRETS, str(tmp_path), key, "acme") if s in stored] == []

    _become("erin", tmp_path, postgres_url, monkeypatch)  # another team's member
    capsys.readouterr()
    assert run(["metrics", "--team", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["weeks"] == []

    monkeypatch.setenv("TB_TEAM_PG", f"postgresql://x:hunter2@/db?host={tmp_path}&port=5999")
    assert run(["metrics", "--team"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tb: --team: shared database: cannot connect") and "hunter2" not in err


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(session_strategy, max_size=40))
def test_a_members_weekly_figures_never_show_a_group_under_five(
    specs: list[dict[str, Any]],
) -> None:
    """Sessions of 2026-07-01..07 (two ISO weeks), one vote per session on the memories it was
    shown: every number shown rests on five or more sessions (or on none at all)."""
    from teambrain_capture import FeedbackVote
    from teambrain_cli._reports.team import weekly_usage, weeks_window
    from teambrain_cli._reports.window import resolve_window

    sessions = [summary_of(i, spec) for i, spec in enumerate(specs)]
    votes = [
        FeedbackVote(s.started, mid, useful, s.sid)
        for s, spec in zip(sessions, specs, strict=True)
        for mid, useful in zip(sorted(s.memory_ids), spec["votes"], strict=False)
    ]
    window = weeks_window(
        resolve_window("2026-07-01", "2026-07-07"), dt.datetime(2026, 8, 1, tzinfo=dt.UTC)
    )
    weeks = weekly_usage(sessions, votes, window)
    assert [w.week for w in weeks] == [dt.date(2026, 6, 29), dt.date(2026, 7, 6)]
    for week in weeks:
        mine = [s for s in sessions if week_of(s.started.date()) == week.week]
        groups = {
            "sessions": mine,
            "sessions_with_memory": [s for s in mine if s.has_memory],
            "sessions_without_memory": [s for s in mine if not s.has_memory],
            "retrievals": [s for s in mine if s.retrievals],
        }
        for name, group in groups.items():
            value = getattr(week, name)
            if value is not SUPPRESSED:
                assert len(group) >= 5 or len(group) == 0 == value, (name, value)
        for mid, count in week.memories_used.items():
            assert count == sum(mid in s.memory_ids for s in mine) >= 5
        for mid, (cast, useful) in week.memories_voted.items():
            voters = {v.sid for v in votes if v.id == mid and week_of(v.t.date()) == week.week}
            assert len(voters) >= 5 and useful <= cast
