from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from teambrain_mcp_server import main, package_version, serve
from teambrain_schema import UserError

BIN = Path(sys.executable).parent


def test_version_and_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"teambrain-mcp-server {package_version()}"
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert "--repo" in out and "--log-level" in out


def test_an_unknown_log_level_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--log-level", "loud"])
    assert exited.value.code == 2  # argparse's usage error
    assert "--log-level" in capsys.readouterr().err
    with pytest.raises(UserError, match="--log-level"):
        serve(log_level="loud")


def test_a_closed_stdin_ends_the_server_cleanly(brain_repo: Path) -> None:
    done = subprocess.run(
        [str(BIN / "teambrain-mcp-server")], cwd=brain_repo, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""


def test_the_server_asks_for_the_model_session_made_for_many_queries(brain_repo: Path) -> None:
    """``tb serve`` embeds query after query: it asks retrieval for the optimised session
    (favour_query_speed), which one-shot commands go without (docs/retrieval.md)."""
    said = (
        "import atexit, sys\n"
        "from teambrain_retrieval._index import _local\n"
        "atexit.register(lambda: print('query-speed', _local._QUERY_SPEED.is_set(), file=sys.stderr))\n"
        "from teambrain_mcp_server import main\n"
        "sys.argv = ['teambrain-mcp-server']\n"
        "main()\n"
    )
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_context", "arguments": {}}},
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", said], cwd=brain_repo, capture_output=True, text=True,
        input="".join(json.dumps(m) + "\n" for m in messages), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"id":2' in done.stdout.replace(" ", ""), done.stdout  # the context was answered
    assert "query-speed True" in done.stderr, done.stderr
