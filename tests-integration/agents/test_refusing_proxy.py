"""The proxy every agent CLI here is pointed at (agent_clis.no_network): whatever a CLI asks of
it — a tunnel or a plain request — is refused at once and named, and nothing goes further."""

from __future__ import annotations

import http.client

from agent_clis import no_network, refusing_proxy


def _ask(method: str, target: str) -> int:
    port = refusing_proxy().server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, target, body=b"{}" if method == "POST" else None)
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_tunnel_and_a_plain_request_are_refused_and_named() -> None:
    asked = refusing_proxy().asked  # type: ignore[attr-defined]
    before = len(asked)
    assert _ask("CONNECT", "otel.example.test:443") == 403
    assert _ask("POST", "http://telemetry.example.test/v1/events") == 403
    assert asked[before:] == ["otel.example.test:443", "http://telemetry.example.test/v1/events"]


def test_every_proxy_variable_names_the_one_proxy_and_loopback_goes_direct() -> None:
    env = no_network()
    port = refusing_proxy().server_address[1]
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):
        assert env[name] == f"http://127.0.0.1:{port}", name
    assert env["NO_PROXY"] == env["no_proxy"] == "127.0.0.1,localhost"
    assert no_network() == env  # one proxy per test process, not one per call
