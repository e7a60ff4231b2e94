"""The project's one HTTP client against real servers on 127.0.0.1: a redirect is never
followed (the second origin receives nothing), environment proxies are never used (a recording
proxy receives nothing), this machine's own proxy is, and every reply is read within a byte cap
— gzip bombs, endless streams and oversized bodies stop with one line."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from teambrain_kit.egress import machine_proxy, set_machine_proxy
from teambrain_kit.outbound import (
    OutboundError,
    OutboundTimeout,
    RedirectRefused,
    ReplyTooLarge,
    _Unpacker,
    env_proxies_ignored,
    is_loopback_host,
    send,
)
from teambrain_kit.paths import MachineLayout

Handler = Callable[[BaseHTTPRequestHandler], None]


class Recorder:
    """A server on 127.0.0.1 that records every request (method, target, headers, body) and
    answers with ``answer`` (default: 200 ``{"ok": true}``)."""

    def __init__(self, answer: Handler | None = None) -> None:
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        recorder = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                recorder.seen.append((self.command, self.path, dict(self.headers), body))
                (answer or _ok)(self)

            do_GET = do_POST = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _ok(handler: BaseHTTPRequestHandler) -> None:
    _reply(handler, 200, b'{"ok": true}')


def _reply(handler: BaseHTTPRequestHandler, status: int, body: bytes, **headers: str) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def servers() -> Iterator[Callable[..., Recorder]]:
    made: list[Recorder] = []

    def make(answer: Handler | None = None) -> Recorder:
        made.append(Recorder(answer))
        return made[-1]

    yield make
    for recorder in made:
        recorder.close()


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_the_other_origin_gets_nothing(
    servers: Callable[..., Recorder], status: int
) -> None:
    other = servers()
    approved = servers(
        lambda h: _reply(h, status, b"", Location=f"{other.url}/v1/embeddings?key=leak")
    )
    with pytest.raises(RedirectRefused) as caught:
        send(approved.url + "/v1/embeddings", method="POST", body=b'{"input": ["memory text"]}',
             headers={"Authorization": "Bearer sk-secret"}, proxy=None)  # fmt: skip
    message = caught.value.message
    assert f"answered HTTP {status}, a redirect to {other.url}: not followed" in message
    assert "\n" not in message and "leak" not in message and "sk-secret" not in message
    assert len(approved.seen) == 1 and other.seen == []


def test_a_redirect_to_the_same_server_is_not_followed_either(
    servers: Callable[..., Recorder],
) -> None:
    server = servers(lambda h: _reply(h, 307, b"", Location="/elsewhere"))
    with pytest.raises(RedirectRefused, match="another path of the same server"):
        send(server.url + "/api", method="POST", body=b"{}", proxy=None)
    assert [seen[1] for seen in server.seen] == ["/api"]


def test_a_gzip_bomb_stops_at_the_cap_with_memory_to_match(
    servers: Callable[..., Recorder], gzip_bomb: Callable[[int], bytes]
) -> None:
    bomb = gzip_bomb(256 * 1024 * 1024)  # 256 MiB of zeros in about 250 KB
    assert len(bomb) < 400_000
    server = servers(lambda h: _reply(h, 200, bomb, Content_Encoding="gzip"))
    tracemalloc.start()
    try:
        with pytest.raises(ReplyTooLarge) as caught:
            send(server.url, max_bytes=2 * 1024 * 1024, proxy=None).read()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "unpacks (gzip) to more than 2 MiB" in caught.value.message
    assert peak < 12 * 1024 * 1024, peak


def _endless(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    piece = b"data: " + b"a" * 8000 + b"\n\n"
    try:
        while True:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
    except OSError:
        pass


def test_an_endless_stream_stops_at_the_cap(servers: Callable[..., Recorder]) -> None:
    server = servers(_endless)
    received = 0
    with pytest.raises(ReplyTooLarge, match="passed 1 MiB"):
        for chunk in send(server.url, max_bytes=1024 * 1024, proxy=None).chunks():
            received += len(chunk)
    assert received <= 1024 * 1024


def test_the_wire_cap_holds_for_a_body_that_does_not_unpack(
    servers: Callable[..., Recorder],
) -> None:
    packed = gzip.compress(b"x" * 1000)
    server = servers(lambda h: _reply(h, 200, packed + b"\0" * 300_000, Content_Encoding="gzip"))
    with pytest.raises(ReplyTooLarge, match="passed 64 KiB"):
        send(server.url, max_bytes=10_000_000, max_wire_bytes=64 * 1024, proxy=None).read()


@pytest.mark.parametrize(
    ("encoding", "packed"),
    [
        ("gzip", gzip.compress(b'{"v": 1}', mtime=0)),
        ("gzip", gzip.compress(b'{"v":', mtime=0) + gzip.compress(b" 1}", mtime=0)),
        ("deflate", zlib.compress(b'{"v": 1}')),
        ("deflate", zlib.compress(b'{"v": 1}')[2:-4]),  # raw deflate, as some servers send
        ("identity", b'{"v": 1}'),
    ],
    ids=["gzip", "gzip-two-members", "deflate-zlib", "deflate-raw", "identity"],
)
def test_answers_within_the_cap_are_read_whole(
    servers: Callable[..., Recorder], encoding: str, packed: bytes
) -> None:
    server = servers(lambda h: _reply(h, 200, packed, Content_Encoding=encoding))
    with send(server.url, max_bytes=64, proxy=None) as reply:
        assert reply.json() == {"v": 1}


def test_an_encoding_not_asked_for_is_not_read(servers: Callable[..., Recorder]) -> None:
    server = servers(lambda h: _reply(h, 200, b"\x0b\x02\x80{}\x03", Content_Encoding="br"))
    with pytest.raises(OutboundError, match=r"encoding teambrain did not ask for \(br\)"):
        send(server.url, proxy=None)
    assert server.seen[0][2]["Accept-Encoding"] == "gzip, deflate"


@given(
    data=st.binary(max_size=4096),
    cuts=st.lists(st.integers(min_value=1, max_value=64), max_size=20),
    limit=st.integers(min_value=0, max_value=5000),
    encoding=st.sampled_from(["gzip", "deflate"]),
)
@settings(max_examples=200, deadline=None)
def test_unpacking_in_any_pieces_gives_the_body_or_says_it_is_too_large(
    data: bytes, cuts: list[int], limit: int, encoding: str
) -> None:
    packed = gzip.compress(data) if encoding == "gzip" else zlib.compress(data)
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(packed[at : at + cut])
        at += cut
    pieces.append(packed[at:])
    unpacker = _Unpacker(encoding, "http://x", limit)
    out = b""
    try:
        for piece in pieces:
            if piece:
                for chunk in unpacker.feed(piece):
                    out += chunk
                    assert len(out) <= limit
    except ReplyTooLarge:
        assert len(data) > limit
    else:
        assert out == data


def _connect_as(name: str, port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """``name`` (a host that is not this machine by name) connects to 127.0.0.1:``port``."""
    real = socket.create_connection

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if address[0] == name:
            address = ("127.0.0.1", port)
        return real(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)


def test_environment_proxies_are_never_used(
    servers: Callable[..., Recorder], monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy, approved = servers(), servers()
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):  # fmt: skip
        monkeypatch.setenv(name, proxy.url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    _connect_as("embedder.example", approved.port, monkeypatch)
    for url in (approved.url, f"http://embedder.example:{approved.port}"):
        with send(url + "/api/embed", method="POST", body=b'{"input": ["memory text"]}') as reply:
            assert reply.json() == {"ok": True}
    assert proxy.seen == [] and len(approved.seen) == 2
    assert len(env_proxies_ignored()) == 6


def test_the_proxy_this_machine_names_is_used_except_for_this_machine(
    servers: Callable[..., Recorder], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    proxy, local = servers(), servers()
    machine = MachineLayout(tmp_path / "home")
    monkeypatch.setenv("TEAMBRAIN_HOME", str(machine.home))
    monkeypatch.chdir(tmp_path)
    set_machine_proxy(machine, f"http://user:p%40ss@127.0.0.1:{proxy.port}")
    assert machine_proxy() == f"http://user:p%40ss@127.0.0.1:{proxy.port}"
    with send("http://embedder.example:8080/api/embed?x=1", method="POST", body=b"{}") as reply:
        assert reply.json() == {"ok": True}
    method, target, headers, _ = proxy.seen[0]
    assert (method, target) == ("POST", "http://embedder.example:8080/api/embed?x=1")
    assert headers["Proxy-Authorization"] == "Basic dXNlcjpwQHNz"  # user:p@ss
    send(local.url).close()
    assert len(proxy.seen) == 1 and len(local.seen) == 1  # loopback: never through the proxy
    set_machine_proxy(machine, None)
    assert machine_proxy() is None


@pytest.mark.parametrize(
    "url", ["https://proxy:3128", "http://proxy", "http://proxy:3128/path", "proxy:3128",
            "http://pro\nxy:3128"],
)  # fmt: skip
def test_a_proxy_that_is_not_http_host_port_is_refused(tmp_path: Path, url: str) -> None:
    from teambrain_kit._errors import UserError

    with pytest.raises(UserError, match="--proxy"):
        set_machine_proxy(MachineLayout(tmp_path), url)


def test_a_server_that_never_answers_times_out(servers: Callable[..., Recorder]) -> None:
    quiet = servers(lambda h: time.sleep(3))
    started = time.monotonic()
    with pytest.raises(OutboundTimeout):
        send(quiet.url, timeout=0.5, proxy=None)
    assert time.monotonic() - started < 2.5


def _trickle(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    try:
        for _ in range(1000):
            handler.wfile.write(b"x")
            handler.wfile.flush()
            time.sleep(0.05)
    except OSError:
        pass


def test_a_trickling_reply_meets_the_overall_deadline(servers: Callable[..., Recorder]) -> None:
    server = servers(_trickle)
    started = time.monotonic()
    with pytest.raises(OutboundTimeout, match="no complete reply within 1s"):
        send(server.url, timeout=1.0, deadline_s=1.0, proxy=None).read()
    assert time.monotonic() - started < 3


def test_unreachable_is_one_line_with_the_ignored_proxy_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    with pytest.raises(OutboundError) as caught:
        send("http://127.0.0.1:9/v1", proxy=None)
    assert caught.value.message.startswith("cannot reach http://127.0.0.1:9: ")
    assert "$HTTPS_PROXY in the environment is not used" in caught.value.message


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("localhost", True), ("127.0.0.1", True), ("127.8.9.1", True), ("[::1]", True),
     ("::1", True), ("api.openai.com", False), ("10.0.0.1", False), ("localhost.evil", False),
     ("app.localhost", True)],
)  # fmt: skip
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_only_http_urls_are_sent() -> None:
    for url in ("file:///etc/passwd", "ftp://x/y", "http://", "gopher://x"):
        with pytest.raises(OutboundError, match="only http"):
            send(url, proxy=None)


def test_json_that_is_not_json_is_one_line(servers: Callable[..., Recorder]) -> None:
    server = servers(lambda h: _reply(h, 200, b"<html>"))
    with pytest.raises(OutboundError, match="did not answer JSON"):
        send(server.url, proxy=None).json()
    assert json.loads(b'{"a": 1}') == {"a": 1}
