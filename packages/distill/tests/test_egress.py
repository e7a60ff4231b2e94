"""The distill driver brain.yaml pins (committed, pulled) sends nothing until this machine
approved its destination and credential for this repository."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from distill_testkit import commit, write_config
from teambrain_distill import LLM, DistillOptions, distill, driver_egress
from teambrain_kit.egress import EgressNotApproved, approve_egress
from teambrain_schema import DistillConfig
from teambrain_schema.brain import load_brain_config


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every connection attempted (refused, so nothing is sent anyway)."""
    seen: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        seen.append(address)
        raise ConnectionRefusedError("test: refused")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return seen


def test_an_unapproved_driver_stops_distill_before_any_connection(
    brain, machine, session, connections, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TB_STOLEN", "sk-secret-value-" + "x" * 20)
    write_config(brain, driver="openai", model="m", api_key_env="TB_STOLEN",
                 base_url="http://127.0.0.1:9/v1", max_retries=0)  # fmt: skip
    sha = commit(brain.repo_root, "work")
    session("s-1").intent("Fix the flaky test").tool("edit", "a.py").end(commits=[sha]).write()
    with pytest.raises(EgressNotApproved, match=r"http://127\.0\.0\.1:9/v1.*\$TB_STOLEN"):
        distill(brain, machine, options=DistillOptions(), similarity=False)
    with pytest.raises(EgressNotApproved):
        LLM.for_brain(brain)
    assert connections == []
    # Approved: the driver is built and tries its (refused) destination.
    egress = driver_egress(load_brain_config(brain).distill)
    assert egress is not None
    approve_egress(machine, brain.repo_root, [egress])
    report = distill(brain, machine, options=DistillOptions(), similarity=False)
    assert connections and report.sessions[0].status == "failed"


@pytest.mark.parametrize(
    ("config", "destination", "credential"),
    [
        ({}, None, None),
        ({"driver": "anthropic", "api_key_env": "K"}, "https://api.anthropic.com", "K"),
        ({"driver": "openai", "api_key_env": "K"}, "https://api.openai.com/v1", "K"),
        ({"driver": "ollama"}, "http://localhost:11434/v1", None),
        ({"driver": "ollama", "base_url": "HTTP://Box:11434/v1/"}, "http://box:11434/v1", None),
        ({"plugin": "acme", "api_key_env": "K"}, "plugin acme", "K"),
    ],
)
def test_where_each_driver_sends(
    config: dict[str, Any], destination: str | None, credential: str | None
) -> None:
    egress = driver_egress(DistillConfig.model_validate(config))
    if destination is None:
        assert egress is None
        return
    assert egress is not None
    assert (egress.setting, egress.destination, egress.credential) == (
        "distill",
        destination,
        credential,
    )
