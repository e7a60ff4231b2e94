"""The server applies the spool's retention period when it starts (off the request path)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from teambrain_capture import JoinKeys, append_event, make_event, session_files
from teambrain_kit.paths import machine_layout
from teambrain_mcp_server._server import prune_spool_quietly


def test_old_sessions_are_pruned_and_recent_ones_kept(teambrain_home: Path) -> None:
    machine = machine_layout()
    for sid in ("old", "recent"):
        append_event(machine, make_event("session_start", {}, JoinKeys(sid, "t", "m", "r", "b")))
    past = time.time() - 40 * 86400
    os.utime(machine.session_file("old"), (past, past))
    assert prune_spool_quietly(machine) == 1
    assert [p.stem for p in session_files(machine)] == ["recent"]


def test_a_broken_user_config_does_not_raise(teambrain_home: Path) -> None:
    machine = machine_layout()
    (machine.home / "user").mkdir(parents=True)
    (machine.home / "user" / "config.toml").write_text("[capture\n")
    assert prune_spool_quietly(machine) == 0
