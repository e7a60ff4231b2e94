import datetime as dt

import pytest
from hypothesis import given, strategies as st
from teambrain_distill import parse_since

NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-20", dt.datetime(2026, 11, 20, tzinfo=dt.UTC)),
        ("2026-11-20T09:30", dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.UTC)),
        ("2026-11-20T09:30:00Z", dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.UTC)),
        ("2026-11-20T10:30:00+01:00", dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.UTC)),
        ("90m", NOW - dt.timedelta(minutes=90)),
        ("12h", NOW - dt.timedelta(hours=12)),
        ("7d", NOW - dt.timedelta(days=7)),
        (" 2W ", NOW - dt.timedelta(weeks=2)),
    ],
)
def test_dates_times_and_spans(text: str, expected: dt.datetime) -> None:
    assert parse_since(text, now=NOW) == expected


@given(st.text(max_size=30))
def test_anything_else_is_a_one_line_value_error(text: str) -> None:
    try:
        moment = parse_since(text, now=NOW)
    except ValueError as exc:
        assert "\n" not in str(exc)
    else:
        assert moment.tzinfo is not None
