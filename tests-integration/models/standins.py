"""What sits between `tb distill` and the real llama-cpp-python server in the model lane.

- :class:`Spy`: a transparent OpenAI-API proxy on 127.0.0.1 that records every request body and
  what the server streamed back (events, finish reason, whether the client closed the stream
  before the end); when the client hangs up it closes the upstream request too, as a direct
  connection would.
- :class:`OllamaStandIn`: Ollama's OpenAI-compatible ``/v1`` as Ollama implements it, forwarded
  to the llama server: ``max_completion_tokens`` is unknown to it (dropped) and
  ``response_format: json_schema`` becomes a schema-constrained grammar (Ollama's ``format``;
  llama-cpp-python's ``json_object`` + ``schema``); ``GET /`` and ``/api/tags`` answer as Ollama
  does. No real Ollama can run here (it is not in any registry this machine reaches).
- :class:`AnthropicStandIn`: the Anthropic Messages API (streamed tool use) translated to the
  llama server's chat completions and back. No Anthropic-compatible server is installable here.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Exchange:
    """One request as the proxy saw it."""

    path: str
    body: dict[str, Any]
    events: int = 0  # streamed data events passed on (about one token each)
    finish: str | None = None
    client_closed: bool = False
    status: int = 0
    text: list[str] = field(default_factory=list)


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class Spy:
    """A proxy in front of ``upstream`` (``http://127.0.0.1:port``); ``url`` is its own base."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urlsplit(upstream)
        self.exchanges: list[Exchange] = []
        spy = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                spy.get(self)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                spy.post(self, body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- what subclasses change ---------------------------------------------------------------
    def get(self, handler: BaseHTTPRequestHandler) -> None:
        self.forward(handler, "GET", handler.path, None)

    def post(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        exchange = Exchange(handler.path, body)
        self.exchanges.append(exchange)
        self.forward(handler, "POST", handler.path, body, exchange)

    # -- plumbing -------------------------------------------------------------------------------
    def open_upstream(
        self, method: str, path: str, body: dict[str, Any] | None
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        connection = http.client.HTTPConnection(
            self.upstream.hostname, self.upstream.port, timeout=600
        )
        data = json.dumps(body).encode() if body is not None else None
        headers = {"content-type": "application/json"} if data is not None else {}
        connection.request(method, path, body=data, headers=headers)
        return connection, connection.getresponse()

    def forward(
        self,
        handler: BaseHTTPRequestHandler,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        exchange: Exchange | None = None,
    ) -> None:
        connection, response = self.open_upstream(method, path, body)
        done = threading.Event()
        if exchange is not None:
            threading.Thread(
                target=watch_client, args=(handler, connection, exchange, done), daemon=True
            ).start()
        try:
            handler.send_response(response.status)
            kind = response.getheader("content-type", "application/json")
            handler.send_header("content-type", kind)
            if "text/event-stream" not in kind:
                data = response.read()
                handler.send_header("content-length", str(len(data)))
                handler.end_headers()
                handler.wfile.write(data)
                if exchange is not None:
                    exchange.status = response.status
                return
            handler.send_header("cache-control", "no-cache")
            handler.end_headers()
            if exchange is not None:
                exchange.status = response.status
            for event in sse_events_until_closed(response):
                if exchange is not None:
                    note_openai_event(exchange, event)
                try:
                    handler.wfile.write(f"data: {event}\n\n".encode())
                    handler.wfile.flush()
                except OSError:
                    if exchange is not None:
                        exchange.client_closed = True
                    return  # closing upstream below tells the server to stop
        finally:
            done.set()
            connection.close()


def watch_client(
    handler: BaseHTTPRequestHandler,
    upstream: http.client.HTTPConnection,
    exchange: Exchange,
    done: threading.Event,
) -> None:
    """Notice a client that hangs up while the server is still thinking (before the first
    token, nothing is written that could fail), and hang up upstream too, as the client's own
    closed connection would have reached the server directly."""
    client = handler.connection
    while not done.is_set():
        ready, _, _ = select.select([client], [], [], 0.2)
        if not ready or done.is_set():
            continue
        try:
            gone = client.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            gone = True
        if gone:
            exchange.client_closed = True
            if upstream.sock is not None:
                with contextlib.suppress(OSError):
                    upstream.sock.shutdown(socket.SHUT_RDWR)
            return
        done.wait(0.2)


def sse_events(response: http.client.HTTPResponse) -> Iterator[str]:
    """The ``data:`` payloads of a server-sent event stream, as they arrive."""
    for raw in response:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith("data:"):
            yield line[5:].strip()


def sse_events_until_closed(response: http.client.HTTPResponse) -> Iterator[str]:
    """:func:`sse_events`, ending quietly when the upstream side was shut down."""
    try:
        yield from sse_events(response)
    except (OSError, http.client.HTTPException, ValueError):
        return


def note_openai_event(exchange: Exchange, event: str) -> None:
    if event == "[DONE]":
        return
    chunk = json.loads(event)
    for choice in chunk.get("choices") or []:
        delta = choice.get("delta") or {}
        piece = delta.get("content") or "".join(
            (call.get("function") or {}).get("arguments") or ""
            for call in delta.get("tool_calls") or []
        )
        if piece:
            exchange.events += 1
            exchange.text.append(piece)
        if choice.get("finish_reason"):
            exchange.finish = choice["finish_reason"]


class OllamaStandIn(Spy):
    """Ollama's ``/v1`` semantics in front of the llama server."""

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.path.rstrip("/") in ("", "/api/version", "/api/tags"):
            payload: Any = {
                "": "Ollama is running",
                "/api/version": {"version": "0.12.0"},
                "/api/tags": {"models": [{"name": "smollm2:135m", "model": "smollm2:135m"}]},
            }[handler.path.rstrip("/")]
            data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
            handler.send_response(200)
            handler.send_header("content-length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
            return
        super().get(handler)

    def post(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        exchange = Exchange(handler.path, body)
        self.exchanges.append(exchange)
        upstream = dict(body)
        upstream.pop("max_completion_tokens", None)  # Ollama's /v1 reads max_tokens only
        upstream.pop("tool_choice", None)  # and does not force a tool
        response_format = upstream.get("response_format") or {}
        if response_format.get("type") == "json_schema":
            schema = (response_format.get("json_schema") or {}).get("schema")
            upstream["response_format"] = {"type": "json_object", "schema": schema}
        upstream["model"] = "smollm2"
        self.forward(handler, "POST", handler.path, upstream, exchange)


class AnthropicStandIn(Spy):
    """``POST /v1/messages`` (streamed) answered by the llama server's chat completions."""

    def post(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        exchange = Exchange(handler.path, body)
        self.exchanges.append(exchange)
        messages = [{"role": "system", "content": body.get("system") or ""}]
        messages += [
            {"role": m["role"], "content": m["content"] if isinstance(m["content"], str)
             else "".join(b.get("text", "") for b in m["content"])}
            for m in body["messages"]
        ]  # fmt: skip
        upstream: dict[str, Any] = {
            "model": "smollm2", "messages": messages, "max_tokens": body["max_tokens"],
            "stream": True,
        }  # fmt: skip
        if "temperature" in body:
            upstream["temperature"] = body["temperature"]
        tool = None
        if body.get("tools"):
            tool = body["tools"][0]
            upstream["tools"] = [{"type": "function", "function": {
                "name": tool["name"], "parameters": tool["input_schema"]}}]  # fmt: skip
            upstream["tool_choice"] = {"type": "function", "function": {"name": tool["name"]}}
        connection, response = self.open_upstream("POST", "/v1/chat/completions", upstream)
        exchange.status = response.status
        try:
            if response.status != 200:
                data = response.read()
                handler.send_response(response.status)
                handler.send_header("content-type", "application/json")
                handler.send_header("content-length", str(len(data)))
                handler.end_headers()
                handler.wfile.write(data)
                return
            handler.send_response(200)
            handler.send_header("content-type", "text/event-stream")
            handler.end_headers()
            self._translate(handler, response, exchange, body["model"], tool)
        finally:
            connection.close()

    def _translate(
        self,
        handler: BaseHTTPRequestHandler,
        response: http.client.HTTPResponse,
        exchange: Exchange,
        model: str,
        tool: dict[str, Any] | None,
    ) -> None:
        def send(name: str, data: dict[str, Any]) -> None:
            handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            handler.wfile.flush()

        try:
            send("message_start", {"type": "message_start", "message": {
                "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0}}})  # fmt: skip
            block = ({"type": "tool_use", "id": "toolu_standin", "name": tool["name"], "input": {}}
                     if tool else {"type": "text", "text": ""})  # fmt: skip
            send("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": block})  # fmt: skip
            for event in sse_events(response):
                if event == "[DONE]":
                    break
                before = exchange.events
                note_openai_event(exchange, event)
                if exchange.events > before:
                    piece = exchange.text[-1]
                    delta = ({"type": "input_json_delta", "partial_json": piece} if tool
                             else {"type": "text_delta", "text": piece})  # fmt: skip
                    send("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                 "delta": delta})  # fmt: skip
            send("content_block_stop", {"type": "content_block_stop", "index": 0})
            reason = {"length": "max_tokens"}.get(
                exchange.finish or "", "tool_use" if tool else "end_turn"
            )
            send("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": reason, "stop_sequence": None},
                                   "usage": {"output_tokens": exchange.events}})  # fmt: skip
            send("message_stop", {"type": "message_stop"})
        except OSError:
            exchange.client_closed = True
