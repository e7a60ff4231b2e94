"""The test suite cannot reach the network: the root conftest's guard really fails connections
and name lookups to anything but loopback, and an LLM SDK left unmocked cannot get out."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest


def test_a_connection_to_a_public_address_fails_the_test() -> None:
    with pytest.raises(AssertionError, match="tried to resolve"):
        socket.create_connection(("192.0.2.10", 443), timeout=1)
    sock = socket.socket()
    try:
        with pytest.raises(AssertionError, match=r"tried to connect to \('192.0.2.10', 443\)"):
            sock.connect(("192.0.2.10", 443))
        with pytest.raises(AssertionError, match="tried to connect"):
            sock.connect_ex(("10.1.2.3", 80))
    finally:
        sock.close()


def test_a_name_lookup_fails_the_test() -> None:
    with pytest.raises(AssertionError, match=r"tried to resolve 'api\.anthropic\.com'"):
        socket.getaddrinfo("api.anthropic.com", 443)


def test_loopback_still_works() -> None:
    class Ok(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Ok)
    thread = threading.Thread(target=server.handle_request, daemon=True)
    thread.start()
    with socket.create_connection(server.server_address, timeout=5) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
        assert conn.recv(64).startswith(b"HTTP/1.0 204")
    thread.join(5)
    server.server_close()


@pytest.mark.parametrize("driver", ["anthropic", "openai"])
def test_an_unmocked_sdk_driver_cannot_get_out(
    driver: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from teambrain_distill import LLM, ModelUnavailable
    from teambrain_schema import DistillConfig

    attempts: list[object] = []
    real = socket.getaddrinfo

    def counting(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        attempts.append(host)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test")
    config = DistillConfig.model_validate(
        {"driver": driver, "model": "m", "api_key_env": "TEST_LLM_KEY", "max_retries": 0}
    )
    from pydantic import BaseModel

    class Answer(BaseModel):
        word: str

    with pytest.raises(ModelUnavailable, match="cannot reach"):
        LLM(config, record=False).complete(system="s", prompt="p", schema=Answer)
    assert attempts and all(host != "localhost" for host in attempts)
