from __future__ import annotations

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
