"""The stdio wire of ``tb serve``: one JSON-RPC message per line in, one per line out.

Standard library only, so the handshake can be answered before the MCP SDK loads (see
``_fastpath``). A reader thread parses every line itself: a line that is not a JSON-RPC message
(not JSON, nested too deeply, a lone surrogate escape, not UTF-8, not an object, too large)
gets its -32700 / -32600 error reply at once, as JSON-RPC 2.0 asks, instead of being dropped
with the client left waiting; the server keeps serving. Everything else goes, in order, to
whoever serves: the fast path, then the SDK's server.

The wire owns the process's stdin and stdout while it serves: fd 0 then reads the null device
and fd 1 writes to stderr, so nothing a tool call runs (git, a stray ``print``) can read the
client's messages or corrupt the protocol. A write that finds the client gone (a closed pipe)
calls ``on_gone`` once: the client cannot read an answer any more, so the server just ends.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
# No MCP message comes near this (a query is at most 2,000 characters, a draft body 400
# words); a larger line is refused unread rather than held in memory.
MAX_MESSAGE_BYTES: Final = 4 * 1024 * 1024
# Deeper than any MCP message nests, and below what the SDK's parser accepts (about 200
# levels): a deeper message gets "nested too deeply" here, however deep it is.
MAX_DEPTH: Final = 128
_CHUNK: Final = 1 << 16

log = logging.getLogger("teambrain_mcp_server.stdio")

RequestId = str | int


@dataclass(frozen=True)
class Incoming:
    """A well-formed JSON-RPC message (request, notification or response) and its text."""

    message: dict[str, Any]
    text: str

    @property
    def method(self) -> str | None:
        method = self.message.get("method")
        return method if isinstance(method, str) else None

    @property
    def id(self) -> RequestId | None:
        return _usable_id(self.message.get("id"))

    @property
    def is_request(self) -> bool:
        return self.method is not None and "id" in self.message


@dataclass(frozen=True)
class Refusal:
    """Why a line is not a JSON-RPC message: the error reply it gets (``id`` when the line
    still named a usable one, else null)."""

    code: int
    message: str
    id: RequestId | None = None

    def reply(self) -> dict[str, Any]:
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


def _usable_id(value: Any) -> RequestId | None:
    # MCP ids are strings or integers (JSON-RPC's null and fractions are not allowed).
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth(value: Any) -> int:
    """How deeply ``value`` nests objects and arrays (iterative: no recursion to exhaust)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _lone_surrogate(value: Any) -> bool:
    """Whether any string in ``value`` (keys too) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_message(line: bytes) -> Incoming | Refusal | None:
    """What one line of input is: a JSON-RPC message, a refusal to answer with, or None for a
    blank line (ignored)."""
    if not line.strip():
        return None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Refusal(
            PARSE_ERROR,
            f"Parse error: the message is not UTF-8 (byte {exc.start} is {line[exc.start]:#04x})",
            _id_despite(line.decode("utf-8", "replace")),
        )
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return Refusal(PARSE_ERROR, _TOO_DEEP)
    except ValueError as exc:
        return Refusal(PARSE_ERROR, f"Parse error: not JSON ({_first_line(exc)})")
    request_id = _usable_id(value.get("id")) if isinstance(value, dict) else None
    if _depth(value) > MAX_DEPTH:
        return Refusal(PARSE_ERROR, _TOO_DEEP, request_id)
    if "\\" in text and _lone_surrogate(value):
        return Refusal(
            PARSE_ERROR,
            "Parse error: a string holds a lone surrogate escape (JSON text must be Unicode)",
            request_id,
        )
    return _check_envelope(value, text)


_TOO_DEEP = f"Parse error: the message nests more than {MAX_DEPTH} levels deep"


def _check_envelope(value: Any, text: str) -> Incoming | Refusal:
    if isinstance(value, list):
        return Refusal(
            INVALID_REQUEST, "Invalid Request: batches are not supported; send one message per line"
        )
    if not isinstance(value, dict):
        return Refusal(
            INVALID_REQUEST, f"Invalid Request: expected a JSON object, got {_kind(value)}"
        )
    has_id = "id" in value
    request_id = _usable_id(value.get("id"))
    if has_id and request_id is None:
        return Refusal(INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
    if value.get("jsonrpc") != "2.0":
        return Refusal(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "method" in value:
        if not isinstance(value["method"], str):
            return Refusal(INVALID_REQUEST, "Invalid Request: method must be a string", request_id)
        if "params" in value and not isinstance(value["params"], dict):
            return Refusal(INVALID_REQUEST, "Invalid Request: params must be an object", request_id)
    elif not has_id or ("result" not in value and "error" not in value):
        return Refusal(
            INVALID_REQUEST,
            "Invalid Request: neither a request, a notification nor a response",
            request_id,
        )
    return Incoming(value, text)


def _id_despite(text: str) -> RequestId | None:
    """The id of a message that is JSON once its undecodable bytes are replaced."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return _usable_id(value.get("id")) if isinstance(value, dict) else None


def _kind(value: Any) -> str:
    return {str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else exc.__class__.__name__


class ClientGone(Exception):
    """The client closed its end: nothing written can reach it any more."""


class StdioWire:
    """Reads messages from ``read_fd`` on a daemon thread and writes replies to ``write_fd``."""

    def __init__(
        self,
        read_fd: int,
        write_fd: int,
        *,
        on_gone: Callable[[], None] | None = None,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        self._read_fd = read_fd
        self._write_fd = write_fd
        self._on_gone = on_gone
        self._max = max_message_bytes
        self._incoming: queue.SimpleQueue[Incoming | None] = queue.SimpleQueue()
        self._write_lock = threading.Lock()
        self._gone = threading.Event()
        self._reader: threading.Thread | None = None

    @classmethod
    def claim_stdio(cls, *, on_gone: Callable[[], None] | None = None) -> StdioWire:
        """A wire over private copies of fd 0 and 1; fd 0 then reads the null device and
        fd 1 writes to stderr until the process ends."""
        read_fd = os.dup(0)
        write_fd = os.dup(1)
        for fd in (read_fd, write_fd):
            os.set_inheritable(fd, False)
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        os.dup2(2, 1)
        return cls(read_fd, write_fd, on_gone=on_gone)

    def start(self) -> None:
        """Start reading (once)."""
        if self._reader is None:
            self._reader = threading.Thread(
                target=self._read_loop, name="stdio-reader", daemon=True
            )
            self._reader.start()

    def receive(self, timeout: float | None = None) -> Incoming | None:
        """The next message, in order; None once the client closed stdin. Raises
        ``queue.Empty`` after ``timeout`` seconds without one."""
        return self._incoming.get(timeout=timeout)

    def send(self, message: dict[str, Any]) -> None:
        """Write one message (a line of compact JSON)."""
        self.send_text(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Write one line that already holds a JSON-RPC message."""
        data = (text + "\n").encode("utf-8")
        with self._write_lock:
            if self._gone.is_set():
                raise ClientGone
            view = memoryview(data)
            try:
                while view:
                    written = os.write(self._write_fd, view)
                    view = view[written:]
            except OSError as exc:
                self._gone.set()
                log.debug("the client closed stdout: %s", exc)
                raise ClientGone from exc
        # Outside the lock: on_gone may end the process, and other writers must not hang.

    def mark_gone(self) -> None:
        """Record that the client went away and tell ``on_gone`` (once)."""
        first = not self._gone.is_set()
        self._gone.set()
        if first and self._on_gone is not None:
            self._on_gone()

    def refuse(self, refusal: Refusal) -> None:
        """Answer a message that cannot be served with its error, and log it in one line."""
        log.warning("answered %s to a message it cannot serve: %s", refusal.code, refusal.message)
        try:
            self.send(refusal.reply())
        except ClientGone:
            self.mark_gone()

    def _read_loop(self) -> None:
        try:
            with os.fdopen(self._read_fd, "rb", buffering=_CHUNK, closefd=False) as stream:
                while True:
                    line = stream.readline(self._max + 1)
                    if not line:
                        break
                    if len(line) > self._max and not line.endswith(b"\n"):
                        self._skip_rest_of_line(stream)
                        self.refuse(
                            Refusal(
                                INVALID_REQUEST,
                                f"Invalid Request: the message is larger than {self._max} bytes",
                            )
                        )
                        continue
                    outcome = parse_message(line)
                    if isinstance(outcome, Refusal):
                        self.refuse(outcome)
                    elif outcome is not None:
                        self._incoming.put(outcome)
        except OSError as exc:
            log.debug("stdin ended: %s", exc)
        finally:
            self._incoming.put(None)

    @staticmethod
    def _skip_rest_of_line(stream: Any) -> None:
        while True:
            chunk = stream.readline(_CHUNK)
            if not chunk or chunk.endswith(b"\n"):
                return
