"""The HTTP transport under the SDK drivers: every request the anthropic and openai SDKs make
is sent by the project's one HTTP client, :func:`teambrain_schema.outbound.send`, instead of
the SDK's own stack — so no redirect is followed (the SDKs' default client follows them), no
proxy is taken from the environment, and every reply, streamed or not, is read within a byte
cap on the wire and unpacked (the SDKs unpack gzip without one).

httpx (``httpx2``, the SDKs' HTTP library) is imported by the caller and passed in: this module
costs nothing until a driver builds its client.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from teambrain_schema.outbound import OutboundError, OutboundTimeout, Reply, Unreachable, send

# Headers of the reply that describe bytes as sent, not as handed on (unpacked, de-chunked).
WIRE_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
DEFAULT_READ_TIMEOUT_S = 600.0


def outbound_transport(httpx: ModuleType, *, max_bytes: int) -> Any:
    """An ``httpx.BaseTransport`` sending through :func:`send`, each reply capped at
    ``max_bytes`` (on the wire and unpacked). Its failures reach the SDK as httpx's own
    (a timeout as ``ReadTimeout``, no connection as ``ConnectError``, both handled as before)
    or, for a redirect or a reply past the cap, as the :class:`OutboundError` itself, whose
    one line the driver reports."""
    context = httpx.create_ssl_context()

    class OutboundStream(httpx.SyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, reply: Reply, request: Any) -> None:
            self.reply = reply
            self.request = request

        def __iter__(self) -> Iterator[bytes]:
            try:
                yield from self.reply.chunks()
            except OutboundTimeout as exc:
                raise httpx.ReadTimeout(exc.message, request=self.request) from exc

        def close(self) -> None:
            self.reply.close()

    class OutboundTransport(httpx.BaseTransport):  # type: ignore[misc, name-defined]
        def handle_request(self, request: Any) -> Any:
            return _handle(httpx, request, OutboundStream, max_bytes, context)

    return OutboundTransport()


def _handle(
    httpx: ModuleType, request: Any, stream_type: Any, max_bytes: int, context: ssl.SSLContext
) -> Any:
    timeouts = request.extensions.get("timeout") or {}
    read = timeouts.get("read") or timeouts.get("connect") or DEFAULT_READ_TIMEOUT_S
    headers = [
        (name.decode("latin-1"), value.decode("latin-1")) for name, value in request.headers.raw
    ]
    try:
        reply = send(
            str(request.url), method=request.method, body=request.read() or None,
            headers=headers, timeout=float(read), max_bytes=max_bytes, ssl_context=context,
        )  # fmt: skip
    except OutboundTimeout as exc:
        raise httpx.ReadTimeout(exc.message, request=request) from exc
    except Unreachable as exc:
        raise httpx.ConnectError(exc.message, request=request) from exc
    kept = [(name, value) for name, value in reply.headers if name.lower() not in WIRE_HEADERS]
    return httpx.Response(
        status_code=reply.status,
        headers=kept,
        stream=stream_type(reply, request),
        extensions={
            "http_version": b"HTTP/1.1",
            "reason_phrase": reply.reason.encode("latin-1", "replace"),
        },
        request=request,
    )


def refusal_in(exc: BaseException) -> OutboundError | None:
    """The redirect refused or the cap hit behind ``exc`` (the SDK wraps what a transport
    raises in its own connection error), or None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OutboundError) and not isinstance(
            current, (OutboundTimeout, Unreachable)
        ):
            return current
        current = current.__cause__ or current.__context__
    return None
