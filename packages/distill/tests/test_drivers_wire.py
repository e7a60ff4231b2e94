"""The anthropic, openai and ollama drivers over a real socket: the SDKs send through the
project's one HTTP client (teambrain_kit.outbound), so a redirect is not followed (the
other origin receives nothing, and the session text is not re-sent), no proxy comes from the
environment, and a reply — streamed or whole, gzip or not — is read within its byte cap."""

from __future__ import annotations

import gzip
import json
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest
from teambrain_distill import LLM, ModelTimedOut, ModelUnavailable
from test_drivers_http import CLASSES, DRIVERS, KEY, Answer, Wire, config_for

Answer_ = tuple[int, list[tuple[str, str]], Iterator[bytes]]


class Server:
    """A server on 127.0.0.1: ``answer(path, body)`` gives the status, headers and body
    pieces (sent chunked, each flushed); every request is recorded."""

    def __init__(self, answer: Callable[[str, bytes], Answer_] | None = None) -> None:
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                server.seen.append((self.path, dict(self.headers), body))
                if answer is None:
                    status, headers, pieces = 200, [], iter([b"{}"])
                else:
                    status, headers, pieces = answer(self.path, body)
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for piece in pieces:
                        if piece:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                            self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client hung up

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def servers() -> Iterator[Callable[..., Server]]:
    made: list[Server] = []

    def make(answer: Callable[[str, bytes], Answer_] | None = None) -> Server:
        made.append(Server(answer))
        return made[-1]

    yield make
    for server in made:
        server.close()


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_LLM_KEY", KEY)


def real_llm(driver: str, url: str, **config: Any) -> LLM:
    cfg = config_for(driver, base_url=url, **config)
    return LLM(cfg, driver=CLASSES[driver](cfg, sleep=lambda _s: None), record=False)


def scripted(driver: str, output: Any) -> Callable[[str, bytes], Answer_]:
    """The streamed answer the mocked-wire tests script, sent over the socket."""
    wire = Wire(driver, [output])

    def answer(path: str, body: bytes) -> Answer_:
        response = wire(httpx2.Request("POST", "http://x" + path, content=body))
        return response.status_code, list(response.headers.items()), iter(response.stream)

    return answer


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_streamed_answer_arrives_through_the_projects_client(
    driver: str, servers: Callable[..., Server]
) -> None:
    server = servers(scripted(driver, {"title": "ok", "count": 3}))
    answer = real_llm(driver, server.url).complete(system="s", prompt="p", schema=Answer)
    assert (answer.title, answer.count) == ("ok", 3)
    assert server.seen[0][1]["Accept-Encoding"] == "gzip, deflate"


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_is_not_followed_and_the_session_text_goes_nowhere_else(
    driver: str, status: int, servers: Callable[..., Server]
) -> None:
    other = servers(scripted(driver, {"title": "ok", "count": 3}))
    approved = servers(lambda path, body: (status, [("Location", other.url + path)], iter([])))
    with pytest.raises(ModelUnavailable) as caught:
        real_llm(driver, approved.url).complete(
            system="s", prompt="SESSION SUMMARY: commit subjects", schema=Answer
        )
    message = caught.value.message
    assert f"a redirect to {other.url}: not followed" in message and "\n" not in message
    assert other.seen == []
    assert len(approved.seen) == 1  # not re-sent either
    assert KEY not in message


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_gzip_bomb_in_one_piece_stops_at_the_cap(
    driver: str, servers: Callable[..., Server], gzip_bomb: Callable[[int], bytes]
) -> None:
    """A server that does not stream sends a JSON body of 0.6 MB gzip (about 600 MB
    unpacked): it is read up to the cap, with memory to match."""
    bomb = gzip_bomb(600 * 1024 * 1024)
    pieces = [bomb[i : i + 65536] for i in range(0, len(bomb), 65536)]
    headers = [("Content-Type", "application/json"), ("Content-Encoding", "gzip")]
    server = servers(lambda path, body: (200, headers, iter(pieces)))
    tracemalloc.start()
    try:
        with pytest.raises(ModelUnavailable) as caught:
            real_llm(driver, server.url).complete(system="s", prompt="p", schema=Answer)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "the reply unpacks (gzip) to more than 16 MiB" in caught.value.message
    assert peak < 100 * 1024 * 1024, peak
    assert len(server.seen) == 1


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_endless_stream_stops_at_the_cap(driver: str, servers: Callable[..., Server]) -> None:
    """One event that never ends (no newline, no token: the output meter never sees it)."""

    def endless() -> Iterator[bytes]:
        yield b"data: "
        while True:
            yield b"a" * 65536

    server = servers(lambda path, body: (200, [("Content-Type", "text/event-stream")], endless()))
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="the reply passed 16 MiB"):
        real_llm(driver, server.url, timeout_s=20).complete(system="s", prompt="p", schema=Answer)
    assert time.monotonic() - started < 20


def test_a_large_output_limit_raises_the_cap() -> None:
    from teambrain_distill._openai import OpenAIDriver

    assert OpenAIDriver(config_for("openai")).reply_cap() == 16 * 1024 * 1024
    big = config_for("openai", max_output_tokens=64_000)
    assert OpenAIDriver(big).reply_cap() == 64_000 * 1024


def test_a_gzip_answer_within_the_cap_is_read(servers: Callable[..., Server]) -> None:
    answer = scripted("openai", {"title": "zipped", "count": 2})

    def zipped(path: str, body: bytes) -> Answer_:
        status, headers, pieces = answer(path, body)
        packed = gzip.compress(b"".join(pieces))
        return status, [*headers, ("Content-Encoding", "gzip")], iter([packed])

    server = servers(zipped)
    got = real_llm("openai", server.url).complete(system="s", prompt="p", schema=Answer)
    assert got.title == "zipped"


@pytest.mark.parametrize("driver", DRIVERS)
def test_environment_proxies_receive_nothing(
    driver: str, servers: Callable[..., Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = servers()
    server = servers(scripted(driver, {"title": "ok", "count": 1}))
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(name, proxy.url)
    real_llm(driver, server.url).complete(system="s", prompt="p", schema=Answer)
    assert proxy.seen == [] and len(server.seen) == 1


def test_a_server_that_never_answers_is_a_timeout_not_re_sent(
    servers: Callable[..., Server],
) -> None:
    def silent(path: str, body: bytes) -> Answer_:
        time.sleep(3)
        return 200, [], iter([])

    server = servers(silent)
    with pytest.raises(ModelTimedOut, match="no complete answer within 1s"):
        real_llm("openai", server.url, timeout_s=1).complete(system="s", prompt="p", schema=Answer)
    assert len(server.seen) == 1


def test_nobody_listening_is_re_sent_then_named() -> None:
    with pytest.raises(
        ModelUnavailable, match=r"cannot reach http://127.0.0.1:9 .*after 2 re-send"
    ):
        real_llm("openai", "http://127.0.0.1:9/v1").complete(system="s", prompt="p", schema=Answer)
    assert json.dumps({"a": 1})
