"""One parser for every moment option (``--since``, ``--until``, ``--at``)."""

import datetime as dt

import pytest
from hypothesis import given, strategies as st
from teambrain_kit._errors import UserError
from teambrain_kit.moments import parse_moment

NOW = dt.datetime(2026, 7, 8, 12, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("NOW", NOW),
        ("90m", NOW - dt.timedelta(minutes=90)),
        ("12h", NOW - dt.timedelta(hours=12)),
        ("7d", NOW - dt.timedelta(days=7)),
        ("2w", NOW - dt.timedelta(weeks=2)),
        ("2026-07-01", dt.datetime(2026, 7, 1, tzinfo=dt.UTC)),
        ("2026-07-01T09:30", dt.datetime(2026, 7, 1, 9, 30, tzinfo=dt.UTC)),
        ("2026-07-01T09:30Z", dt.datetime(2026, 7, 1, 9, 30, tzinfo=dt.UTC)),
        ("2026-07-01T11:30+02:00", dt.datetime(2026, 7, 1, 9, 30, tzinfo=dt.UTC)),
        ("1970-01-01", dt.datetime(1970, 1, 1, tzinfo=dt.UTC)),
    ],
)
def test_the_forms_people_type(text: str, expected: dt.datetime) -> None:
    assert parse_moment(text, now=NOW, option="--at") == expected


def test_end_of_day_makes_a_date_include_the_whole_day() -> None:
    moment = parse_moment("2026-07-07", now=NOW, option="--until", end_of_day=True)
    assert moment == dt.datetime(2026, 7, 8, tzinfo=dt.UTC)


@pytest.mark.parametrize("text", ["0226-05-08", "1969-12-31T23:59Z", "99999d"])
def test_before_1970_is_refused_naming_the_option(text: str) -> None:
    with pytest.raises(UserError, match=r"^--at .*before 1970") as info:
        parse_moment(text, now=NOW, option="--at")
    assert info.value.exit_code == 1


@given(st.text(max_size=40))
def test_any_text_is_a_moment_or_a_one_line_user_error(text: str) -> None:
    try:
        moment = parse_moment(text, now=NOW, option="--since")
    except UserError as exc:
        assert str(exc).startswith("--since ") and "\n" not in str(exc).replace(repr(text), "")
        return
    assert moment.tzinfo is not None and moment.year >= 1970
