"""The handshake answered before the SDK loads must be exactly what the SDK server answers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from teambrain_mcp_server._fastpath import SNAPSHOT, record

BIN = Path(sys.executable).parent


def test_the_recorded_handshake_is_what_the_sdk_server_answers_today(tmp_path: Path) -> None:
    """A new SDK, a changed tool description or schema: the recording must be redone."""
    live = record([str(BIN / "teambrain-mcp-server")], tmp_path)
    recorded = json.loads(SNAPSHOT.read_text("utf-8"))
    assert live == recorded, "run `python -m teambrain_mcp_server._fastpath --write`"


def _exchange(tmp_path: Path, revision: str, fast: bool) -> list[dict[str, object]]:
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": revision, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "deploy"}}},
    ]  # fmt: skip
    env = {"TEAMBRAIN_FAST_PATH": "1" if fast else "0", "PATH": "/usr/bin:/bin",
           "TEAMBRAIN_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)}  # fmt: skip
    done = subprocess.run(
        [str(BIN / "teambrain-mcp-server")], input="".join(json.dumps(x) + "\n" for x in lines),
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return sorted(
        (json.loads(line) for line in done.stdout.splitlines()),
        key=lambda message: str(message.get("id")),
    )


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-06-18", "2025-11-25", "1999-01-01"])
def test_fast_and_sdk_answers_are_the_same_whatever_the_revision(
    tmp_path: Path, revision: str
) -> None:
    fast, sdk = _exchange(tmp_path, revision, True), _exchange(tmp_path, revision, False)
    assert [m["id"] for m in fast] == [1, 2, 3, 4]
    assert fast == sdk
