import datetime as dt
import json
import os
from pathlib import Path
from typing import Any

import pytest
from teambrain_capture import JoinKeys, append_event, make_event
from teambrain_cli._main import run
from teambrain_kit.paths import machine_layout
from teambrain_mcp_server import HeartbeatWriter

MEMORY = "01KB2F0A1S9Y4Q7V3C8D5E6F01"


def metrics_json(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert run(["metrics", "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_outside_a_brain_the_machine_figures_still_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    data = metrics_json(capsys)
    assert data["ok"] is True and data["brain"] is None and data["memories"] is None
    assert data["index"]["state"] == "n/a" and data["embedder"]["state"] == "n/a"
    assert data["serve"] == {
        "state": "not running", "heartbeat_age_s": None, "pid": None,
        "detail": "no heartbeat (the agent tool starts `tb serve` when it needs it)",
    }  # fmt: skip
    assert data["last_7_days"]["sessions"] == "<5"
    assert run(["metrics"]) == 0
    text = capsys.readouterr().out
    assert "Memories     no brain here" in text and "Serve        not running" in text


def test_a_brain_without_an_index_is_reported_and_left_without_one(
    repo: Path, teambrain_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    folder = repo / ".teambrain" / "memories" / "decisions"
    (folder / f"{MEMORY}-payments-go-through-the-gateway.md").write_text(
        f"---\nid: {MEMORY}\nclass: decision\nscope: team\nstatus: active\npriority: required\n"
        "title: Payments go through the gateway\ncreated: 2026-06-01\n---\n\nUse the gateway.\n"
    )
    data = metrics_json(capsys)
    assert data["brain"] == str(repo)
    assert data["memories"] == {
        "active": 1, "required": 1, "expired": 0, "superseded": 0, "retired": 0, "unreadable": 0,
        "stale": 0,
    }  # fmt: skip
    assert data["index"]["state"] == "missing"
    assert data["embedder"] == {
        "state": "configured", "name": "local",
        "detail": "local (brain.yaml; not checked until the index exists)",
    }  # fmt: skip
    assert not machine_layout().index_db.exists()  # metrics creates nothing


def test_the_serve_heartbeat_of_this_repository(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init"]) == 0
    other = HeartbeatWriter(machine_layout(), repo="/somewhere/else", pid=os.getpid() + 1_000_000)
    other.start()
    mine = HeartbeatWriter(machine_layout(), repo=str(repo))
    mine.start()
    mine.touch()
    serve = metrics_json(capsys)["serve"]
    assert serve["state"] == "running" and serve["pid"] == os.getpid()
    assert serve["requests"] == 1 and 0 <= serve["heartbeat_age_s"] < 60
    assert serve["detail"].startswith("last heartbeat ") and "1 requests" in serve["detail"]
    mine.stop()
    assert metrics_json(capsys)["serve"]["state"] == "stopped"


def test_session_figures_are_the_digests(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    machine = machine_layout()
    now = dt.datetime.now(dt.UTC)
    for i in range(6):
        keys = JoinKeys(sid=f"s{i}", tool="cursor", model="m", repo="r", branch="b")
        moment = now - dt.timedelta(days=i, hours=1)
        append_event(machine, make_event("session_start", {}, keys, now=moment))
        data = {"ids": [MEMORY], "via": "context", "token_estimate": 600 + 10 * i}
        append_event(machine, make_event("memory_retrieved", data, keys, now=moment))
    with open(machine.session_file("s0"), "ab") as handle:
        handle.write(b'{"torn')
    recent = metrics_json(capsys)
    assert recent["last_7_days"]["sessions"] == 6
    assert recent["last_7_days"]["retrievals"] == 6
    assert recent["last_7_days"]["avg_context_tokens"] == 625.0
    assert recent["last_7_days"]["sessions_without_memory"] == "<5"
    assert recent["spool"]["torn_lines"] == 1
