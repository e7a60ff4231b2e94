import datetime as dt
import itertools

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_cli._reports.window import ReportWindow, resolve_window
from teambrain_kit.moments import parse_moment
from teambrain_schema import ExitCode, UserError

NOW = dt.datetime(2026, 7, 8, 12, 30, tzinfo=dt.UTC)
UTC = dt.UTC


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("NOW", NOW),
        ("7d", NOW - dt.timedelta(days=7)),
        ("12h", NOW - dt.timedelta(hours=12)),
        ("90m", NOW - dt.timedelta(minutes=90)),
        ("2w", NOW - dt.timedelta(weeks=2)),
        ("2026-07-01", dt.datetime(2026, 7, 1, tzinfo=UTC)),
        ("2026-07-01T09:30", dt.datetime(2026, 7, 1, 9, 30, tzinfo=UTC)),
        ("2026-07-01T09:30Z", dt.datetime(2026, 7, 1, 9, 30, tzinfo=UTC)),
        ("2026-07-01T09:30:00+02:00", dt.datetime(2026, 7, 1, 7, 30, tzinfo=UTC)),
        (" 2026-07-01 ", dt.datetime(2026, 7, 1, tzinfo=UTC)),
    ],
)
def test_accepted_forms(text: str, expected: dt.datetime) -> None:
    moment = parse_moment(text, now=NOW)
    assert moment == expected
    assert moment.tzinfo is not None and moment.utcoffset() == dt.timedelta(0)


def test_a_date_given_to_until_includes_that_day() -> None:
    window = resolve_window("2026-07-01", "2026-07-07", now=NOW)
    assert window.since == dt.datetime(2026, 7, 1, tzinfo=UTC)
    assert window.until == dt.datetime(2026, 7, 8, tzinfo=UTC)
    assert window.contains(dt.datetime(2026, 7, 7, 23, 59, tzinfo=UTC))
    assert not window.contains(window.until)
    assert window.days == 7


def test_default_is_the_last_seven_days_up_to_now() -> None:
    window = resolve_window(now=NOW)
    assert (window.since, window.until) == (NOW - dt.timedelta(days=7), NOW)


@pytest.mark.parametrize(
    "text", ["yesterday", "7", "7y", "-7d", "2026-13-01", "2026-07-01T25:00", ""]
)
def test_unreadable_bounds_are_user_errors_naming_the_option(text: str) -> None:
    with pytest.raises(UserError) as caught:
        resolve_window(None, text or " ", now=NOW)
    assert caught.value.exit_code == ExitCode.USER_ERROR
    assert caught.value.message.startswith("--until ")
    assert "\n" not in caught.value.message


def test_since_must_be_before_until() -> None:
    with pytest.raises(UserError, match="must be before"):
        resolve_window("2026-07-05", "2026-07-01", now=NOW)
    with pytest.raises(UserError, match="must be before"):
        resolve_window("now", None, now=NOW)


def test_buckets_are_utc_days_and_weeks_for_long_windows() -> None:
    window = resolve_window("7d", None, now=NOW)  # 12:30 to 12:30: eight partial days
    assert window.bucket_days == 1
    assert window.buckets() == [dt.date(2026, 7, 1) + dt.timedelta(days=i) for i in range(8)]
    aligned = resolve_window("2026-07-01", "2026-07-07", now=NOW)
    assert len(aligned.buckets()) == 7
    assert aligned.bucket_of(dt.datetime(2026, 7, 3, 23, 59, tzinfo=UTC)) == dt.date(2026, 7, 3)
    long = resolve_window("2026-01-01", "2026-06-30", now=NOW)
    assert long.bucket_days == 7
    starts = long.buckets()
    assert starts[0] == dt.date(2026, 1, 1) and starts[-1] <= dt.date(2026, 6, 30)
    assert all((b - a).days == 7 for a, b in itertools.pairwise(starts))
    assert long.bucket_of(dt.datetime(2026, 1, 9, tzinfo=UTC)) == dt.date(2026, 1, 8)


def test_windows_must_be_aware() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        ReportWindow(dt.datetime(2026, 7, 1), NOW)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_parses_or_is_a_user_error(text: str) -> None:
    try:
        moment = parse_moment(text, now=NOW)
    except UserError as exc:
        assert "\n" not in exc.message.replace(repr(text), "")
    else:
        assert moment.utcoffset() == dt.timedelta(0)


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(
        min_value=dt.datetime(1970, 1, 2), max_value=dt.datetime(2200, 1, 1),
        timezones=st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(dt.timedelta(hours=-8))]),
    )
)  # fmt: skip
def test_iso_datetimes_round_trip(moment: dt.datetime) -> None:
    assert parse_moment(moment.isoformat(), now=NOW) == moment
