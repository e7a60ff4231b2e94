import datetime as dt

import pytest
from hypothesis import given, strategies as st
from teambrain_distill import parse_since
from teambrain_kit.moments import parse_moment
from teambrain_schema import ExitCode, UserError

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
        (" 2w ", NOW - dt.timedelta(weeks=2)),
        ("now", NOW),
    ],
)
def test_dates_times_and_spans(text: str, expected: dt.datetime) -> None:
    moment = parse_since(text, now=NOW)
    assert moment == expected and moment.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize("text", ["garbage", "", "2W", "12 h", "7 days", "2026-13-01"])
def test_the_error_is_digests_one_line_usage_error(text: str) -> None:
    with pytest.raises(UserError) as caught:
        parse_since(text, now=NOW)
    assert caught.value.exit_code == ExitCode.USER_ERROR
    assert caught.value.message.startswith(f"--since {text!r}: ")
    with pytest.raises(UserError) as digest:
        parse_moment(text, now=NOW, option="--since")
    assert caught.value.message == digest.value.message


@given(st.text(max_size=30))
def test_anything_else_is_a_one_line_user_error(text: str) -> None:
    try:
        moment = parse_since(text, now=NOW)
    except UserError as exc:
        assert "\n" not in exc.message and exc.message.startswith("--since ")
    else:
        assert moment.utcoffset() == dt.timedelta(0)
        assert moment == parse_moment(text, now=NOW, option="--since")


@given(st.datetimes(min_value=dt.datetime(1970, 1, 1), timezones=st.just(dt.UTC)))
def test_an_iso_time_reads_back_as_itself(moment: dt.datetime) -> None:
    assert parse_since(moment.isoformat(), now=NOW) == moment
