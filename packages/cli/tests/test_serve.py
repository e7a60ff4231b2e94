from __future__ import annotations

import pytest
from teambrain_cli._main import run


def test_serve_help_names_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--repo" in out and "--log-level" in out and "MCP server" in out


def test_serve_refuses_an_unknown_log_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["serve", "--log-level", "loud"]) == 1
    assert "--log-level" in capsys.readouterr().err
