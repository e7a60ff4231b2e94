"""Answer the MCP handshake before the SDK loads: ``tb serve`` cold start in tens of ms.

Importing the MCP SDK and building the server takes about a second (the SDK's pydantic models
for every protocol revision), and agent tools give a server only a few seconds before they
start without it (Codex CLI omits a "pending" server; Gemini CLI shows it disconnected under
load). So the server claims stdio with its stdlib wire, starts building the real server on a
thread, and answers ``initialize``, ``notifications/initialized``, ``ping`` and ``tools/list``
itself from ``_handshake.json`` — what the SDK server answered for each handshake protocol
revision, recorded by ``python -m teambrain_mcp_server._fastpath --write`` and checked against
the live SDK server by the tests. The first other message (a tool call), or the build
finishing, hands over: the SDK's session gets the client's ``initialize`` replayed (its answer
dropped) and serves everything from then on.

Why not a warm per-machine daemon reached through a shim: it would also keep the index warm, but
adds a long-lived process per user with its own lifecycle, socket permissions and a version
skew between shim and daemon; answering the handshake early meets the start-up budget without
any of that, and the index is warm after the first call anyway.
"""

from __future__ import annotations

import json
import os
import queue
import threading
from pathlib import Path
from typing import Any

from ._stdio import Incoming, StdioWire

SNAPSHOT = Path(__file__).with_name("_handshake.json")
REPLAYED_ID = "teambrain-fast-path-initialize"
VERSION_MARK = "{version}"
DISABLE_ENV = "TEAMBRAIN_FAST_PATH"  # "0": every message goes to the SDK (tests compare both)


class Handshake:
    """The recorded answers, per handshake protocol revision."""

    def __init__(self, data: dict[str, Any], version: str) -> None:
        self.latest: str = data["latest"]
        self.answers: dict[str, dict[str, Any]] = data["versions"]
        self.version = version

    @classmethod
    def load(cls, version: str) -> Handshake | None:
        try:
            data = json.loads(SNAPSHOT.read_text("utf-8"))
            return cls(data, version)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def negotiate(self, message: dict[str, Any]) -> str | None:
        """The revision the SDK would pick for this ``initialize`` (None: let the SDK answer)."""
        params = message.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("protocolVersion"), str):
            return None
        if not isinstance(params.get("clientInfo"), dict) or "capabilities" not in params:
            return None
        requested = params["protocolVersion"]
        return requested if requested in self.answers else self.latest

    def result(self, revision: str, method: str) -> dict[str, Any]:
        text = json.dumps(self.answers[revision][method]).replace(
            json.dumps(VERSION_MARK), json.dumps(self.version)
        )
        result: dict[str, Any] = json.loads(text)
        return result


def serve_fast(
    wire: StdioWire, build_done: threading.Event, version: str
) -> tuple[list[str], Incoming | None]:
    """Answer the handshake until the server is built or a message needs it; returns the lines
    to replay to the SDK and the message it must answer first (None: nothing pending).
    Raises ``EOFError`` when the client closed stdin before anything needed the SDK."""
    handshake = None if os.environ.get(DISABLE_ENV) == "0" else Handshake.load(version)
    initialize: dict[str, Any] | None = None
    initialized: dict[str, Any] | None = None
    revision: str | None = None
    while True:
        try:
            item = wire.receive(timeout=0.05)
        except queue.Empty:
            if build_done.is_set():
                return replay_lines(initialize, initialized), None
            continue
        if item is None:
            raise EOFError
        if handshake is None:
            return replay_lines(initialize, initialized), item
        method, message = item.method, item.message
        if method == "initialize" and initialize is None and item.is_request:
            revision = handshake.negotiate(message)
            if revision is None:
                return replay_lines(initialize, initialized), item
            initialize = message
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": item.id,
                    "result": handshake.result(revision, "initialize"),
                }
            )
        elif (
            method == "notifications/initialized" and initialize is not None and initialized is None
        ):
            initialized = message
        elif method == "ping" and item.is_request:
            wire.send({"jsonrpc": "2.0", "id": item.id, "result": {}})
        elif (
            method == "tools/list" and item.is_request and revision is not None
            and initialized is not None and not message.get("params")
        ):  # fmt: skip
            wire.send(
                {
                    "jsonrpc": "2.0",
                    "id": item.id,
                    "result": handshake.result(revision, "tools/list"),
                }
            )
        else:
            return replay_lines(initialize, initialized), item


def replay_lines(
    initialize: dict[str, Any] | None, initialized: dict[str, Any] | None
) -> list[str]:
    """The lines that bring a fresh SDK session to where the fast path's client is."""
    lines = []
    if initialize is not None:
        lines.append(json.dumps({**initialize, "id": REPLAYED_ID}, ensure_ascii=False))
    if initialized is not None:
        lines.append(json.dumps(initialized, ensure_ascii=False))
    return lines


def record(command: list[str], cwd: Path) -> dict[str, Any]:
    """What the SDK server (fast path off) answers to the handshake, per revision."""
    import subprocess

    import mcp_types.version as versions

    from ._meta import package_version

    answers: dict[str, Any] = {}
    env = {**os.environ, DISABLE_ENV: "0"}
    for revision in versions.HANDSHAKE_PROTOCOL_VERSIONS:
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": revision, "capabilities": {},
                "clientInfo": {"name": "record", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]  # fmt: skip
        done = subprocess.run(
            command, input="".join(json.dumps(line) + "\n" for line in lines), cwd=cwd,
            env=env, capture_output=True, text=True, timeout=120, check=True,
        )  # fmt: skip
        replies = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
        init = replies[1]["result"]
        init["serverInfo"]["version"] = VERSION_MARK
        assert package_version() not in json.dumps(init) + json.dumps(replies[2]["result"])
        answers[revision] = {"initialize": init, "tools/list": replies[2]["result"]}
    return {"latest": versions.LATEST_HANDSHAKE_VERSION, "versions": answers}


def main() -> None:
    """``python -m teambrain_mcp_server._fastpath --write``: record ``_handshake.json``."""
    import shutil
    import sys
    import tempfile

    here = Path(sys.executable).parent / "teambrain-mcp-server"
    command = [
        str(here)
        if here.exists()
        else shutil.which("teambrain-mcp-server") or "teambrain-mcp-server"
    ]
    with tempfile.TemporaryDirectory() as scratch:
        data = record(command, Path(scratch))
    text = json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    if "--write" in sys.argv:
        SNAPSHOT.write_text(text, "utf-8")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
