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


@pytest.mark.parametrize(
    "installed",
    [{"mcp": "2.99.0"}, {"teambrain-schema": "9.0.0"}, {"mcp": "0+unknown"}],
    ids=["another-sdk", "another-contract", "no-sdk-metadata"],
)
def test_a_recording_made_with_other_versions_is_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed: dict[str, str]
) -> None:
    """A range-compatible install of another SDK or contract may answer tools/list otherwise:
    the fast path then answers nothing and the SDK answers everything."""
    from teambrain_mcp_server import _fastpath

    recorded = json.loads(SNAPSHOT.read_text("utf-8"))
    assert _fastpath.Handshake.load("1.0") is not None  # the recording of what is installed
    versions = {**recorded.get("recordedWith", {}), **installed}
    monkeypatch.setattr(_fastpath, "installed_versions", lambda: versions, raising=False)
    assert _fastpath.Handshake.load("1.0") is None
    old = tmp_path / "_handshake.json"  # a recording from before versions were kept
    old.write_text(json.dumps({k: v for k, v in recorded.items() if k != "recordedWith"}))
    monkeypatch.setattr(_fastpath, "SNAPSHOT", old)
    assert _fastpath.Handshake.load("1.0") is None


def test_the_recording_keeps_one_answer_for_every_revision() -> None:
    from teambrain_mcp_server._fastpath import PROTOCOL_MARK, Handshake

    recorded = json.loads(SNAPSHOT.read_text("utf-8"))
    assert recorded["initialize"]["protocolVersion"] == PROTOCOL_MARK
    handshake = Handshake.load("1.0")
    assert handshake is not None
    for revision in recorded["revisions"]:
        answer = handshake.result(revision, "initialize")
        assert answer["protocolVersion"] == revision
        assert answer["serverInfo"]["version"] == "1.0"
        assert handshake.result(revision, "tools/list") == recorded["toolsList"]
