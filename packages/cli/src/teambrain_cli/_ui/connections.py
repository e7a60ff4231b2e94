"""How many connections ``tb ui`` holds, and how long one may take to send its request.

Any local process can connect, secret or not. Without bounds, ~1,100 connections that never
finish their headers used up the process's file descriptors: the page stopped answering and
asyncio printed ``Too many open files`` tracebacks. So:

- a connection must finish sending each request (headers and body) within
  :data:`REQUEST_TIMEOUT_S` of opening, or of its previous answer; otherwise it is closed;
- at most :data:`MAX_CONNECTIONS` are open; one more closes the oldest connection that is still
  sending its request (a real browser sends it within milliseconds, so it is never the one
  closed), or — when every open connection is being answered — is itself closed at once.

A connection is never closed while its request is being answered.
"""

from __future__ import annotations

import asyncio
from typing import Any

MAX_CONNECTIONS = 100
REQUEST_TIMEOUT_S = 10.0
# Connections accepted in one turn of the event loop (and the listening queue's length): asyncio
# accepts that many before any of them is looked at, so it bounds the descriptors in flight.
ACCEPT_BATCH = 64
# Descriptors kept free for everything else the process opens (the index, git, templates).
RESERVED_FILES = 128


def connection_limit() -> int:
    """:data:`MAX_CONNECTIONS`, or fewer when this process may open too few files for that
    many plus the connections in flight (a default macOS shell allows 256). The soft limit is
    raised towards the hard one first, as servers do."""
    import resource

    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    except (OSError, ValueError):
        return MAX_CONNECTIONS
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    room = (soft - RESERVED_FILES - 3 * ACCEPT_BATCH) // 2
    return max(4, min(MAX_CONNECTIONS, room))


class ConnectionBook:
    """The open connections of one server: all of them, and those still sending a request,
    oldest first."""

    def __init__(self, limit: int = MAX_CONNECTIONS, timeout: float = REQUEST_TIMEOUT_S) -> None:
        self.limit = limit
        self.timeout = timeout
        self.open: set[Any] = set()
        self.sending: dict[Any, None] = {}  # insertion order: oldest first
        self.closed_slow = 0  # connections closed for taking too long or to make room

    def admit(self, connection: Any) -> bool:
        """Make room for ``connection`` (closing the oldest one still sending) and count it;
        False when every open connection is being answered (``connection`` must be closed)."""
        if len(self.open) >= self.limit:
            oldest = next(iter(self.sending), None)
            if oldest is None:
                return False
            self.drop(oldest)
            self.closed_slow += 1
            oldest.transport.abort()
        self.open.add(connection)
        return True

    def sending_request(self, connection: Any) -> None:
        """``connection`` is (again) sending a request: it is now the newest of those."""
        self.sending.pop(connection, None)
        self.sending[connection] = None

    def request_received(self, connection: Any) -> None:
        """``connection`` sent its whole request: it is being answered, never closed early."""
        self.sending.pop(connection, None)

    def drop(self, connection: Any) -> None:
        """``connection`` is gone."""
        self.open.discard(connection)
        self.sending.pop(connection, None)


def guarded_protocol(book: ConnectionBook) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, held to ``book``'s bounds."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if not book.admit(self):
                transport.abort()
                return
            self._wait_for_request()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            book.drop(self)
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED):
                self._stop_waiting()
                book.request_received(self)

        def on_response_complete(self) -> None:
            if not self.transport.is_closing():
                self._wait_for_request()  # the next request on this connection, if any
            super().on_response_complete()

        def _wait_for_request(self) -> None:
            self._stop_waiting()
            book.sending_request(self)
            self._deadline = self.loop.call_later(book.timeout, self._too_slow)

        def _stop_waiting(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            book.drop(self)
            book.closed_slow += 1
            self.transport.abort()

    return GuardedH11Protocol
