"""``tb serve`` under faults, driven as a raw JSON-RPC client over the real process's stdio:
signals, a client that goes away mid-call, and messages the server cannot parse."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from teambrain_kit.paths import MachineLayout
from teambrain_mcp_server import read_heartbeat

BIN = Path(sys.executable).parent
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "fault-test", "version": "0"}},
}  # fmt: skip
WAIT_S = 60  # a bound against hanging forever, not a timing assertion


class RawClient:
    """One ``tb serve`` process and the bytes exchanged with it."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [str(BIN / "tb"), "serve"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )  # fmt: skip

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(json.dumps(message).encode())

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the server closed stdout; stderr: {self.stderr()}"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def initialize(self) -> None:
        self.send(INITIALIZE)
        assert self.receive()["result"]["serverInfo"]["name"] == "teambrain"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def wait(self) -> int:
        try:
            return self.process.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"tb serve did not exit; stderr: {self.stderr()}") from None

    def stderr(self) -> str:
        assert self.process.stderr is not None
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                stream.close()


@pytest.fixture
def brain(repo: Path) -> Path:
    done = subprocess.run(
        [str(BIN / "tb"), "init"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def client(brain: Path) -> Iterator[RawClient]:
    raw = RawClient(brain)
    try:
        yield raw
    finally:
        raw.close()


CONTEXT_CALL = {
    "jsonrpc": "2.0", "id": 2, "method": "tools/call",
    "params": {"name": "memory_context", "arguments": {}},
}  # fmt: skip


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("busy", [False, True], ids=["idle", "mid-call"])
def test_a_signal_stops_the_server_with_exit_0(
    client: RawClient, teambrain_home: Path, signum: int, busy: bool
) -> None:
    client.initialize()
    if busy:
        client.send(CONTEXT_CALL)
    client.process.send_signal(signum)
    assert client.wait() == 0, client.stderr()
    stderr = client.stderr()
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    # The handshake is answered before the server is built (the fast path): a signal that
    # comes first leaves no heartbeat at all; once built, its entry is marked stopped.
    entries = read_heartbeat(MachineLayout(teambrain_home))
    assert all(e.pid == client.process.pid and e.state == "stopped" for e in entries), entries


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_after_serving_marks_the_heartbeat_stopped(
    client: RawClient, teambrain_home: Path, signum: int
) -> None:
    client.initialize()
    client.send(CONTEXT_CALL)
    assert client.receive()["id"] == 2
    client.process.send_signal(signum)
    assert client.wait() == 0, client.stderr()
    [entry] = read_heartbeat(MachineLayout(teambrain_home))
    assert entry.pid == client.process.pid and entry.state == "stopped"


def test_a_client_that_closes_stdin_and_stdout_mid_call_ends_the_server_with_exit_0(
    client: RawClient,
) -> None:
    client.initialize()
    client.send(CONTEXT_CALL)
    assert client.process.stdin is not None and client.process.stdout is not None
    client.process.stdin.close()
    client.process.stdout.close()
    assert client.wait() == 0, client.stderr()
    stderr = client.stderr()
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr


def test_a_client_that_closes_only_stdin_mid_call_still_gets_its_answer(
    client: RawClient,
) -> None:
    client.initialize()
    client.send(CONTEXT_CALL)
    assert client.process.stdin is not None
    client.process.stdin.close()
    answer = client.receive()
    assert answer["id"] == 2 and "result" in answer, answer
    assert client.wait() == 0, client.stderr()
    assert "internal error" not in client.stderr()


HOSTILE_LINES = [
    (b"[" * 200_000 + b"]" * 200_000, -32700, None),
    (b'{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"memory_search",'
     b'"arguments":{"query":"x","k":' + b"[" * 300 + b"1" + b"]" * 300 + b"}}}", -32700, 31),
    (b'{"jsonrpc":"2.0","id":32,"method":"tools/call","params":{"name":"memory_search",'
     b'"arguments":{"query":"\\ud800"}}}', -32700, 32),
    (b'{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"memory_search",'
     b'"arguments":{"query":"caf\xe9"}}}', -32700, 33),
    (b"\xff\xfe\x00", -32700, None),
    (b"{oops", -32700, None),
    (b"[]", -32600, None),
    (b"17", -32600, None),
    (b'{"jsonrpc":"2.0","id":34,"method":["ping"]}', -32600, 34),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, None),
    (b"{" + b'"pad":"' + b"x" * (5 * 1024 * 1024) + b'"}', -32600, None),
]  # fmt: skip


@pytest.mark.parametrize("phase", ["before initialize", "after a tool call"])
def test_every_unparseable_message_gets_an_error_reply_and_the_server_keeps_serving(
    client: RawClient, phase: str
) -> None:
    if phase == "after a tool call":  # the MCP SDK's server is serving by now
        client.initialize()
        client.send({**CONTEXT_CALL, "id": 30})
        assert client.receive()["id"] == 30
    for line, _code, _id in HOSTILE_LINES:
        client.send_bytes(line)
    client.send({"jsonrpc": "2.0", "id": 99, "method": "ping"})
    replies = []
    while (reply := client.receive()).get("id") != 99:
        replies.append(reply)
    assert reply == {"jsonrpc": "2.0", "id": 99, "result": {}}
    assert [(r["error"]["code"], r["id"]) for r in replies] == [
        (code, request_id) for _line, code, request_id in HOSTILE_LINES
    ]
    if phase == "before initialize":
        client.initialize()  # still a working server
    assert client.process.stdin is not None
    client.process.stdin.close()
    assert client.wait() == 0, client.stderr()
    stderr = client.stderr()
    assert stderr.count(" to a message it cannot serve: ") == len(HOSTILE_LINES), stderr
    assert "Traceback" not in stderr and "internal error" not in stderr


@pytest.mark.parametrize("fast", ["1", "0"], ids=["fast path", "sdk only"])
@pytest.mark.parametrize(
    "request_id, cancelled_id", [(2, 2), ("call-2", "call-2"), (2, "2"), (2, 99)],
    ids=["int", "str", "id echoed as text", "unknown id"],
)  # fmt: skip
def test_a_cancelled_call_then_a_closed_stdin_ends_the_server(
    brain: Path, monkeypatch: pytest.MonkeyPatch, fast: str, request_id: object,
    cancelled_id: object,
) -> None:  # fmt: skip
    """The SDK never answers a call the client cancelled: the server must not wait for that
    answer once stdin is closed, however the cancellation names the call."""
    monkeypatch.setenv("TEAMBRAIN_FAST_PATH", fast)
    raw = RawClient(brain)
    try:
        raw.initialize()
        raw.send({**CONTEXT_CALL, "id": request_id})
        raw.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": cancelled_id, "reason": "user pressed Esc"}})  # fmt: skip
        assert raw.process.stdin is not None
        raw.process.stdin.close()
        assert raw.wait() == 0
        stderr = raw.stderr()
        assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    finally:
        raw.close()
