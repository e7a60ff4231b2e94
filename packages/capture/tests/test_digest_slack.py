import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from teambrain_capture import SlackWebhook, post_slack, resolve_slack_webhook, user_dir
from teambrain_schema import EnvironmentProblem, ExitCode


@dataclass
class FakeSlack:
    """A local webhook endpoint: records what it is sent, answers with ``status``."""

    url: str
    received: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    status: int = 200
    delay_s: float = 0.0
    redirect_to: str | None = None


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    state = FakeSlack(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            state.received.append(json.loads(body))
            state.headers.append(dict(self.headers))
            time.sleep(state.delay_s)
            if state.redirect_to:
                self.send_response(302)
                self.send_header("Location", state.redirect_to)
                self.end_headers()
                return
            try:
                self.send_response(state.status)
                self.end_headers()
                self.wfile.write(b"ok")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (the timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/services/T000/B000/secret-token"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


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


def test_the_payload_is_posted_as_json(slack: FakeSlack) -> None:
    post_slack(SlackWebhook("TB_TEST_SLACK", slack.url), {"text": "*digest* &lt;5"})
    assert slack.received == [{"text": "*digest* &lt;5"}]
    assert slack.headers[0]["Content-Type"].startswith("application/json")


@pytest.mark.parametrize("status", [400, 404, 500])
def test_a_refusing_webhook_is_one_clear_line(slack: FakeSlack, status: int) -> None:
    slack.status = status
    with pytest.raises(EnvironmentProblem) as caught:
        post_slack(SlackWebhook("TB_TEST_SLACK", slack.url), {"text": "x"})
    message = caught.value.message
    assert f"HTTP {status}" in message and "$TB_TEST_SLACK" in message
    assert "secret-token" not in message and "127.0.0.1" not in message and "\n" not in message


def test_redirects_are_not_followed(slack: FakeSlack) -> None:
    slack.redirect_to = slack.url + "/elsewhere"
    with pytest.raises(EnvironmentProblem, match="HTTP 302"):
        post_slack(SlackWebhook("TB_TEST_SLACK", slack.url), {"text": "x"})
    assert len(slack.received) == 1


def test_a_slow_webhook_times_out(slack: FakeSlack) -> None:
    slack.delay_s = 1.0
    with pytest.raises(EnvironmentProblem) as caught:
        post_slack(SlackWebhook("TB_TEST_SLACK", slack.url), {"text": "x"}, timeout=0.2)
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
