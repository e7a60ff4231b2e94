"""``tb ui``'s bounds on connections, on a real uvicorn server in this process with small
bounds: a request that is not sent in time is closed, a full server makes room by closing the
oldest connection still sending, a request being answered is never closed, and what the server
logs is one line, never a traceback."""

from __future__ import annotations

import asyncio
import http.client
import logging
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from teambrain_cli._ui.connections import ConnectionBook, connection_limit, guarded_protocol
from teambrain_cli._ui.server import LOG_CONFIG, OneLineFormatter, bind_loopback

TIMEOUT = 0.5


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    if scope["path"] == "/slow":
        await asyncio.sleep(3 * TIMEOUT)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})  # fmt: skip
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def served() -> Iterator[tuple[int, ConnectionBook]]:
    import uvicorn

    book = ConnectionBook(limit=4, timeout=TIMEOUT)
    config = uvicorn.Config(
        app, http=guarded_protocol(book), backlog=16, log_config=LOG_CONFIG,
        lifespan="off", log_level="error",
    )  # fmt: skip
    server = uvicorn.Server(config)
    sock = bind_loopback(0)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    yield sock.getsockname()[1], book
    server.should_exit = True
    thread.join(10)
    sock.close()


def _slow(port: int, data: bytes = b"GET / HTTP/1.1\r\nHost: x\r\n") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.sendall(data)
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed ``sock`` within ``seconds`` (then closed here too)."""
    sock.settimeout(seconds)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                sock.close()
                return True
    except TimeoutError:
        return False
    except OSError:
        sock.close()
        return True


def _get(port: int, path: str = "/") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.mark.parametrize(
    "start",
    [b"GET / HTTP/1.1\r\nHost: x\r\n",  # headers never finished
     b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789"],  # nor the body
)  # fmt: skip
def test_a_request_not_sent_in_time_is_closed(
    served: tuple[int, ConnectionBook], start: bytes
) -> None:
    port, book = served
    sock = _slow(port, start)
    started = time.monotonic()
    try:
        assert _closed_within(sock, 10 * TIMEOUT)
    finally:
        sock.close()
    assert time.monotonic() - started >= TIMEOUT * 0.8
    assert book.closed_slow >= 1 and not book.open


def test_an_idle_kept_alive_connection_is_closed_in_time_too(
    served: tuple[int, ConnectionBook],
) -> None:
    port, _ = served
    sock = _slow(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    try:
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        assert _closed_within(sock, 6 * TIMEOUT)  # uvicorn alone waits 5 s
    finally:
        sock.close()


def test_a_full_server_closes_the_oldest_slow_connection_to_answer(
    served: tuple[int, ConnectionBook],
) -> None:
    port, book = served
    slow = [_slow(port) for _ in range(4)]
    time.sleep(0.1)
    assert _get(port) == 200
    try:
        assert _closed_within(slow[0], 0.2)
        assert len(book.open) <= 4
    finally:
        for sock in slow:
            sock.close()


def test_a_request_being_answered_is_never_closed(served: tuple[int, ConnectionBook]) -> None:
    port, _ = served
    results: list[int] = []
    answering = [threading.Thread(target=lambda: results.append(_get(port, "/slow"))) for _ in range(4)]  # fmt: skip
    for thread in answering:
        thread.start()
    time.sleep(TIMEOUT / 2)
    late = socket.create_connection(("127.0.0.1", port), timeout=5)  # the fifth: no room
    try:
        assert _closed_within(late, 2)
    finally:
        late.close()
    for thread in answering:
        thread.join(10)
    assert results == [200, 200, 200, 200]  # each took longer than TIMEOUT, none was closed
    assert _get(port) == 200


def test_what_the_server_logs_is_one_line() -> None:
    try:
        raise OSError(24, "Too many open files")
    except OSError:
        import sys

        record = logging.LogRecord(
            "asyncio", logging.ERROR, __file__, 1, "socket.accept() out of\nsystem resource",
            None, sys.exc_info(),
        )  # fmt: skip
    line = OneLineFormatter().format(record)
    assert line == (
        "tb ui: socket.accept() out of system resource: OSError: [Errno 24] Too many open files"
    )


def test_the_bound_fits_the_files_this_process_may_open(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (256, 256))
    monkeypatch.setattr(resource, "setrlimit", lambda _which, limits: calls.append(limits))
    assert connection_limit() == 4 and calls == []  # a default macOS shell: 256, not raisable
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (1024, 1024))
    assert connection_limit() == 100
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (256, 65536))
    assert connection_limit() == 100 and calls == [(4096, 65536)]
