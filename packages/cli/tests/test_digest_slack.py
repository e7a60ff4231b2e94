from pathlib import Path
from typing import Any

import pytest
from teambrain_capture import user_dir
from teambrain_cli._reports.slack import SlackWebhook, post_slack, resolve_slack_webhook
from teambrain_schema import EnvironmentProblem, ExitCode


def configure(env_name: str = "TB_TEST_SLACK") -> None:
    user_dir().mkdir(parents=True, exist_ok=True)
    (user_dir() / "config.toml").write_text(f'[digest]\nslack_webhook_env = "{env_name}"\n')


def test_no_webhook_configured_is_a_dry_run_with_the_reason(teambrain_home: Path) -> None:
    lookup = resolve_slack_webhook(environ={})
    assert lookup.webhook is None and "no digest.slack_webhook_env" in lookup.reason
    configure()
    lookup = resolve_slack_webhook(environ={})
    assert (
        lookup.webhook is None and "$TB_TEST_SLACK" in lookup.reason and "not set" in lookup.reason
    )


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.slack.example/services/T/B/secret",
        "ftp://x/secret",
        "not a url secret",
        "https:///secret",
    ],
)
def test_a_webhook_that_is_not_https_is_refused_without_showing_it(
    teambrain_home: Path, url: str
) -> None:
    configure()
    with pytest.raises(EnvironmentProblem) as caught:
        resolve_slack_webhook(environ={"TB_TEST_SLACK": url})
    assert caught.value.exit_code == ExitCode.ENVIRONMENT_ERROR
    assert "secret" not in caught.value.message and "$TB_TEST_SLACK" in caught.value.message


def test_https_and_loopback_http_are_accepted(teambrain_home: Path) -> None:
    configure()
    url = "https://hooks.slack.com/services/T/B/secret"
    lookup = resolve_slack_webhook(environ={"TB_TEST_SLACK": url})
    assert lookup.webhook == SlackWebhook("TB_TEST_SLACK", url)
    assert "secret" not in repr(lookup) and "secret" not in lookup.reason
    local = resolve_slack_webhook(environ={"TB_TEST_SLACK": "http://127.0.0.1:9/x"})
    assert local.webhook is not None


def test_the_payload_is_posted_as_json(local_webhook: Any) -> None:
    post_slack(SlackWebhook("TB_TEST_SLACK", local_webhook.url), {"text": "*digest* &lt;5"})
    assert local_webhook.received == [{"text": "*digest* &lt;5"}]
    assert local_webhook.headers[0]["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("status", [400, 404, 500])
def test_a_refusing_webhook_is_one_clear_line(local_webhook: Any, status: int) -> None:
    local_webhook.status = status
    with pytest.raises(EnvironmentProblem) as caught:
        post_slack(SlackWebhook("TB_TEST_SLACK", local_webhook.url), {"text": "x"})
    message = caught.value.message
    assert f"HTTP {status}" in message and "$TB_TEST_SLACK" in message
    assert "secret-token" not in message and "127.0.0.1" not in message and "\n" not in message


def test_redirects_are_not_followed(local_webhook: Any) -> None:
    local_webhook.redirect_to = local_webhook.url + "/elsewhere"
    with pytest.raises(EnvironmentProblem, match="HTTP 302"):
        post_slack(SlackWebhook("TB_TEST_SLACK", local_webhook.url), {"text": "x"})
    assert len(local_webhook.received) == 1


def test_a_slow_webhook_times_out(local_webhook: Any) -> None:
    local_webhook.delay_s = 1.0
    with pytest.raises(EnvironmentProblem) as caught:
        post_slack(SlackWebhook("TB_TEST_SLACK", local_webhook.url), {"text": "x"}, timeout=0.2)
    assert "could not reach" in caught.value.message and "secret-token" not in caught.value.message


def test_an_unreachable_webhook_never_prints_the_url() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/services/secret-token"
    with pytest.raises(EnvironmentProblem) as caught:
        post_slack(SlackWebhook("TB_TEST_SLACK", url), {"text": "x"}, timeout=2)
    assert "could not reach the Slack webhook from $TB_TEST_SLACK" in caught.value.message
    assert "secret-token" not in caught.value.message
