"""The team view's table on a real server (schema v3): a member writes only their own figures
for brains they read, reads back only their own, and reads the team's only as sums of at least
MIN_MEMBERS members' figures; the table cannot hold a path, a session id or text; the
database's rule and combine_cells (the exported reports' path) agree."""

from __future__ import annotations

import datetime as dt

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_retrieval import (
    MIN_MEMBERS,
    TeamCell,
    UsageCell,
    combine_cells,
    publish_usage,
    team_usage,
)
from teambrain_retrieval._postgres import SharedIndexUnavailable, connect, migrate

PAYMENTS, SEARCH = "github.com/acme/payments", "github.com/acme/search"
WEEK = dt.date(2026, 11, 23)
MEMORY = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
MEMBERS = ("alice", "bob", "carol", "dave")
# The admin's SQL as docs/deploying-postgres.md gives it; roles are the server's, not the
# database's, so each test's carry its database's name (``{t}``).
ADMIN_SQL = """
CREATE ROLE reader_{t} NOLOGIN;
GRANT USAGE ON SCHEMA teambrain TO reader_{t};
GRANT SELECT ON ALL TABLES IN SCHEMA teambrain TO reader_{t};
GRANT INSERT, UPDATE, DELETE ON teambrain.usage TO reader_{t};
GRANT EXECUTE ON FUNCTION teambrain.team_usage(text) TO reader_{t};
CREATE ROLE payments_{t} NOLOGIN IN ROLE reader_{t};
CREATE ROLE search_{t} NOLOGIN IN ROLE reader_{t};
INSERT INTO teambrain.access(role, brain) VALUES
    ('payments_{t}', 'github.com/acme/payments'),
    ('search_{t}', 'github.com/acme/search');
CREATE ROLE alice_{t} LOGIN IN ROLE payments_{t};
CREATE ROLE bob_{t} LOGIN IN ROLE payments_{t};
CREATE ROLE carol_{t} LOGIN IN ROLE payments_{t};
CREATE ROLE dave_{t} LOGIN IN ROLE payments_{t};
CREATE ROLE erin_{t} LOGIN IN ROLE search_{t};
"""


def _tag(url: str) -> str:
    return url.split("?", 1)[0].rsplit("/", 1)[1]


def _as(url: str, role: str) -> psycopg.Connection:
    return connect(url.replace("postgres:@", f"{role}_{_tag(url)}:@", 1))


def _cells(sessions: float | None, used: float | None = None) -> list[UsageCell]:
    cells = [UsageCell(WEEK, "sessions", "", sessions)]
    if used is not None:
        cells.append(UsageCell(WEEK, "memory_sessions", MEMORY, used))
    return cells


@pytest.fixture
def team_db(postgres_url: str) -> str:
    admin = connect(postgres_url)
    assert migrate(admin) == [1, 2, 3]
    admin.execute(ADMIN_SQL.format(t=_tag(postgres_url)))
    admin.close()
    return postgres_url


def test_team_figures_need_three_members_and_stay_inside_the_team(team_db: str) -> None:
    figures = {
        "alice": _cells(12, 7),
        "bob": _cells(6, 6),
        "carol": _cells(None),
        "dave": _cells(5),
    }
    for member, cells in figures.items():
        with _as(team_db, member) as conn:
            assert publish_usage(conn, PAYMENTS, [WEEK], cells) == len(cells)
    with _as(team_db, "alice") as conn:
        team = team_usage(conn, PAYMENTS)
        # Only her own rows are readable directly.
        owners = conn.execute("SELECT DISTINCT member FROM teambrain.usage").fetchall()
    # sessions: three shown (12 + 6 + 5) and one published as <5; the memory: two members only.
    assert team == [TeamCell(WEEK, "sessions", "", 23.0, 3, 1)]
    assert owners == [(f"alice_{_tag(team_db)}",)]
    assert team == combine_cells(list(figures.values()))
    with _as(team_db, "erin") as conn:  # another team: nothing of this brain
        assert team_usage(conn, PAYMENTS) == []
        assert conn.execute("SELECT count(*) FROM teambrain.usage").fetchone() == (0,)


def test_publishing_again_replaces_the_week(team_db: str) -> None:
    with _as(team_db, "alice") as conn:
        publish_usage(conn, PAYMENTS, [WEEK], _cells(12, 7))
        publish_usage(conn, PAYMENTS, [WEEK], _cells(9))
        rows = conn.execute("SELECT metric, value FROM teambrain.usage").fetchall()
    assert rows == [("sessions", 9.0)]


def test_a_member_writes_only_their_own_rows_for_brains_they_read(team_db: str) -> None:
    with _as(team_db, "alice") as conn:
        with pytest.raises(SharedIndexUnavailable, match="row-level security"):
            publish_usage(conn, SEARCH, [WEEK], _cells(12))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(
                "INSERT INTO teambrain.usage(brain, member, week, metric, key, value) "
                "VALUES (%s, %s, %s, 'sessions', '', 50)",
                [PAYMENTS, f"bob_{_tag(team_db)}", WEEK],
            )
    with _as(team_db, "bob") as conn:
        publish_usage(conn, PAYMENTS, [WEEK], _cells(6))
    with _as(team_db, "alice") as conn:
        # Bob's row is invisible to her: deleting or changing it touches nothing.
        assert conn.execute("DELETE FROM teambrain.usage").rowcount == 0
        assert conn.execute("UPDATE teambrain.usage SET value = 0").rowcount == 0
    admin = connect(team_db)
    rows = admin.execute("SELECT member, value FROM teambrain.usage").fetchall()
    assert rows == [(f"bob_{_tag(team_db)}", 6.0)]
    admin.close()


@pytest.mark.parametrize(
    ("metric", "key"),
    [
        ("sessions", "src/payments/gateway.py"),  # a path where no key belongs
        ("memory_sessions", "/home/alice/brain/.teambrain/memories/x.md"),
        ("memory_sessions", "3f2a9c1e-session-id"),
        ("prompts", ""),
        ("memory_useful", "fix the checkout flow"),
    ],
)
def test_the_table_cannot_hold_paths_session_ids_or_text(
    team_db: str, metric: str, key: str
) -> None:
    with _as(team_db, "alice") as conn, pytest.raises(psycopg.errors.CheckViolation):
        conn.execute(
            "INSERT INTO teambrain.usage(brain, week, metric, key, value) VALUES (%s, %s, %s, %s, 5)",
            [PAYMENTS, WEEK, metric, key],
        )


def test_the_team_function_needs_its_grant(postgres_url: str) -> None:
    admin = connect(postgres_url)
    migrate(admin)
    mallory = f"mallory_{_tag(postgres_url)}"
    # The schema and its version readable, the function not granted.
    admin.execute(
        f"CREATE ROLE {mallory} LOGIN; GRANT USAGE ON SCHEMA teambrain TO {mallory}; "
        f"GRANT SELECT ON teambrain.schema_version TO {mallory}"
    )
    admin.close()
    with (
        _as(postgres_url, "mallory") as conn,
        pytest.raises(SharedIndexUnavailable, match="permission denied for function team_usage"),
    ):
        team_usage(conn, PAYMENTS)


def test_cells_refuse_what_the_table_refuses() -> None:
    for bad in (
        lambda: UsageCell(WEEK + dt.timedelta(days=1), "sessions", "", 5.0),
        lambda: UsageCell(WEEK, "prompts", "", 5.0),
        lambda: UsageCell(WEEK, "sessions", MEMORY, 5.0),
        lambda: UsageCell(WEEK, "memory_sessions", "src/app.py", 5.0),
        lambda: UsageCell(WEEK, "sessions", "", -1.0),
    ):
        with pytest.raises(ValueError):
            bad()


member_cells = st.dictionaries(
    st.tuples(st.sampled_from([WEEK, WEEK + dt.timedelta(days=7)]),
              st.sampled_from(["sessions", "retrievals"])),
    st.one_of(st.none(), st.integers(min_value=5, max_value=500).map(float)),
    max_size=4,
).map(lambda d: [UsageCell(week, metric, "", value) for (week, metric), value in d.items()])  # fmt: skip


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(member_cells, max_size=6))
def test_combined_figures_are_sums_of_at_least_three_members(
    members: list[list[UsageCell]],
) -> None:
    team = combine_cells(members)
    for cell in team:
        values = [
            c.value
            for cells in members
            for c in cells
            if (c.week, c.metric, c.key) == (cell.week, cell.metric, cell.key)
        ]
        shown = [v for v in values if v is not None]
        assert cell.members == len(shown) >= MIN_MEMBERS
        assert cell.value == sum(shown) and cell.hidden == len(values) - len(shown)
    kept = {(c.week, c.metric) for c in team}
    for cells in members:
        for c in cells:
            if (c.week, c.metric) not in kept:
                same = [x for m in members for x in m if (x.week, x.metric) == (c.week, c.metric)]
                assert sum(x.value is not None for x in same) < MIN_MEMBERS
