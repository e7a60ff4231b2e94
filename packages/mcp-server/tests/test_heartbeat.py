from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from teambrain_kit.paths import MachineLayout
from teambrain_mcp_server import HeartbeatWriter, build_server, read_heartbeat
from teambrain_mcp_server._heartbeat import KEEP_ENDED_S


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_serving_server_is_listed_and_alive_then_stopped(machine: MachineLayout) -> None:
    writer = HeartbeatWriter(machine, repo="/work/shop", version="1.2.3", min_interval_s=0)
    writer.start()
    [entry] = read_heartbeat(machine)
    assert (entry.pid, entry.status, entry.state, entry.alive) == (
        os.getpid(),
        "serving",
        "serving",
        True,
    )
    assert entry.repo == "/work/shop" and entry.version == "1.2.3"
    assert entry.last_request is None and entry.requests == 0

    writer.touch()
    writer.observe(brain_commit="abc1234", index={"documents": 7})
    writer.touch()
    [entry] = read_heartbeat(machine)
    assert entry.requests == 2 and entry.last_request is not None
    assert entry.brain_commit == "abc1234" and entry.index == {"documents": 7}

    writer.stop()
    writer.stop()  # idempotent
    [entry] = read_heartbeat(machine)
    assert entry.state == "stopped" and not entry.alive and entry.stopped is not None
    assert entry.requests == 2
    assert os.stat(machine.heartbeat).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in machine.logs.iterdir()) == [
        "heartbeat.json",
        "heartbeat.json.lock",
    ]


def test_writes_are_throttled_but_brain_changes_are_written_at_once(machine: MachineLayout) -> None:
    writer = HeartbeatWriter(machine, min_interval_s=3600)
    writer.start()
    writer.touch()
    assert read_heartbeat(machine)[0].requests == 1  # the first request is written at once
    writer.touch()
    assert read_heartbeat(machine)[0].requests == 1  # within the interval: not yet written
    writer.observe(brain_commit="def5678")
    [entry] = read_heartbeat(machine)
    assert entry.brain_commit == "def5678" and entry.requests == 2
    writer.observe(brain_commit="def5678")
    writer.touch()
    assert read_heartbeat(machine)[0].requests == 2  # nothing changed: still throttled
    writer.stop()
    assert read_heartbeat(machine)[0].state == "stopped"


def test_several_servers_share_the_file_and_the_dead_are_told_apart(
    machine: MachineLayout,
) -> None:
    dead = _dead_pid()
    gone = HeartbeatWriter(machine, repo="/gone", pid=dead, min_interval_s=0)
    gone.start()  # never stopped: it died unannounced
    old = HeartbeatWriter(
        machine,
        repo="/old",
        pid=dead + 100_000,
        min_interval_s=0,
        started=dt.datetime.now(dt.UTC) - dt.timedelta(seconds=KEEP_ENDED_S * 3),
    )
    old.start()
    me = HeartbeatWriter(machine, repo="/me", min_interval_s=0)
    me.start()
    states = {entry.repo: entry.state for entry in read_heartbeat(machine)}
    assert states == {"/me": "serving", "/gone": "gone", "/old": "gone"}

    # Entries that ended long ago are dropped on the next write; recent ones stay.
    document = json.loads(machine.heartbeat.read_text())
    for server in document["servers"]:
        if server["repo"] == "/old":
            server["updated"] = "2000-01-01T00:00:00.000Z"
    machine.heartbeat.write_text(json.dumps(document))
    me.observe(brain_commit="0123456")
    assert {entry.repo for entry in read_heartbeat(machine)} == {"/me", "/gone"}


@pytest.mark.parametrize(
    "content", ["", "{", "[]", '{"servers": 3}', '{"servers": [{"pid": "x"}]}']
)
def test_a_missing_or_corrupt_file_reads_as_no_servers_and_is_repaired(
    machine: MachineLayout, content: str
) -> None:
    assert read_heartbeat(machine) == []
    machine.logs.mkdir(parents=True)
    machine.heartbeat.write_text(content)
    assert read_heartbeat(machine) == []
    HeartbeatWriter(machine).start()
    assert [entry.pid for entry in read_heartbeat(machine)] == [os.getpid()]


def test_an_unwritable_heartbeat_never_breaks_the_server(machine: MachineLayout) -> None:
    machine.home.mkdir(parents=True)
    machine.logs.write_text("a file where the logs folder should be")
    writer = HeartbeatWriter(machine, min_interval_s=0)
    writer.start()
    writer.touch()
    writer.stop()
    assert read_heartbeat(machine) == []


@pytest.mark.anyio
async def test_the_server_keeps_its_heartbeat_while_serving(
    brain_repo: Path, machine: MachineLayout
) -> None:
    server = build_server(brain_repo)
    assert server.service.heartbeat is not None
    server.service.heartbeat.min_interval_s = 0
    async with Client(server) as client:
        [entry] = read_heartbeat(machine)
        assert entry.alive and entry.repo == str(brain_repo) and entry.requests == 0
        draft = {"class": "learning", "title": "Heartbeat", "body": "Beats while serving."}
        assert not (await client.call_tool("memory_propose", {"draft": draft})).is_error
        [entry] = read_heartbeat(machine)
        assert entry.requests == 1 and entry.last_request is not None
    [entry] = read_heartbeat(machine)
    assert entry.state == "stopped"
