"""Serving the SDK's server over the stdio wire, picking up where the fast path left off.

The SDK reads lines from an async iterator and writes lines to an async file (its public
``stdio_server(stdin, stdout)``); here both are the wire. Messages the fast path already
answered are replayed first so the SDK's session is in the same state as the client's: the
``initialize`` request (under an id of our own, its answer dropped) and
``notifications/initialized``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread
import mcp_types
from mcp.server.stdio import stdio_server
from mcp.shared.dispatcher import as_request_id, coerce_request_id
from pydantic import ValidationError

from ._fastpath import REPLAYED_ID
from ._server import TeambrainServer
from ._stdio import INVALID_REQUEST, ClientGone, Incoming, Refusal, RequestId, StdioWire


class _InFlight:
    """The client's requests the SDK has yet to settle. When the client closes stdin, the SDK
    would answer them "Connection closed"; the reading side waits for them instead.

    A request settles when the SDK answers it or when the client cancels it (the SDK never
    answers a cancelled request). Ids are counted the SDK's way: ``7`` and ``"7"`` are one id
    for correlation, and a reused id is one more request until one of them settles."""

    def __init__(self) -> None:
        self._ids: Counter[RequestId] = Counter()
        self._idle = anyio.Event()
        self._idle.set()

    def add(self, request_id: RequestId) -> None:
        self._ids[coerce_request_id(request_id)] += 1
        if self._idle.is_set():
            self._idle = anyio.Event()

    def settle(self, request_id: object) -> None:
        """One request ``request_id`` names is answered or cancelled (unknown ids: nothing)."""
        key = as_request_id(request_id)
        if key is None:
            return
        key = coerce_request_id(key)
        if self._ids[key] > 0:
            self._ids[key] -= 1
        if self._ids[key] <= 0:
            del self._ids[key]
        if not self._ids:
            self._idle.set()

    def answered(self, line: str) -> None:
        if not self._ids:
            return
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and "method" not in message:
            self.settle(message.get("id"))

    def noticed(self, item: Incoming) -> None:
        """Follow one message from the client: a request starts, a cancellation settles."""
        if item.is_request and item.id is not None:
            self.add(item.id)
        elif item.method == "notifications/cancelled" and "id" not in item.message:
            params = item.message.get("params")
            if isinstance(params, dict):
                self.settle(params.get("requestId"))

    async def drained(self) -> None:
        await self._idle.wait()


class _WireLines:
    """The wire's messages as the lines the SDK reads, after ``replay``."""

    def __init__(
        self, wire: StdioWire, replay: Sequence[str], in_flight: _InFlight,
        pending: Sequence[Incoming | None] = (),
    ) -> None:  # fmt: skip
        self._wire = wire
        self._replay = list(replay)
        self._in_flight = in_flight
        # The client's messages the fast path handed over unanswered (None: stdin closed).
        self._pending = list(pending)

    def __aiter__(self) -> _WireLines:
        return self

    async def __anext__(self) -> str:
        while True:
            if self._replay:
                return self._replay.pop(0)
            item: Incoming | None
            if self._pending:
                item = self._pending.pop(0)
            else:
                item = await anyio.to_thread.run_sync(self._wire.receive, abandon_on_cancel=True)
            if item is None:
                await self._in_flight.drained()
                raise StopAsyncIteration
            try:  # the SDK's own reading of the envelope: what it would drop is answered here
                mcp_types.jsonrpc_message_adapter.validate_json(item.text, by_name=False)
            except ValidationError as exc:
                detail = exc.errors(include_url=False)[0].get("msg", "not a JSON-RPC message")
                self._wire.refuse(Refusal(INVALID_REQUEST, f"Invalid Request: {detail}", item.id))
                continue
            self._in_flight.noticed(item)
            return item.text


class _WireOut:
    """The SDK's stdout: each line goes to the wire, except the answer to a replayed
    ``initialize`` (the client had its answer from the fast path)."""

    def __init__(
        self, wire: StdioWire, drop_id: str | None, in_flight: _InFlight,
        on_sent: Callable[[], None] | None = None,
    ) -> None:  # fmt: skip
        self._wire = wire
        self._drop_id = drop_id
        self._in_flight = in_flight
        self._on_sent = on_sent  # told after each line is written (the service's answered)

    async def write(self, text: str) -> None:
        line = text.rstrip("\n")
        if self._drop_id is not None and _answers(line, self._drop_id):
            self._drop_id = None
            return
        try:
            await anyio.to_thread.run_sync(self._wire.send_text, line)
        except ClientGone:
            self._wire.mark_gone()
        self._in_flight.answered(line)
        if self._on_sent is not None:
            self._on_sent()

    async def flush(self) -> None:
        return None


def _answers(line: str, request_id: str) -> bool:
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == request_id and "method" not in message


def serve_on_wire(
    server: TeambrainServer, wire: StdioWire, replay: Sequence[str] = (),
    pending: Sequence[Incoming | None] = (),
) -> None:  # fmt: skip
    """Run ``server`` on ``wire`` until the client closes stdin (in-flight calls finish):
    ``replay`` first (lines the fast path answered), then ``pending`` (messages it handed
    over, in order), then the wire."""

    async def run() -> None:
        in_flight = _InFlight()
        stdin: Any = _WireLines(wire, replay, in_flight, pending)
        stdout: Any = _WireOut(
            wire, REPLAYED_ID if replay else None, in_flight, server.service.answered
        )
        async with stdio_server(stdin, stdout) as (read_stream, write_stream):
            await server.run_streams(read_stream, write_stream)

    anyio.run(run)
