"""This machine's approvals of what a brain's committed settings send off it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from teambrain_schema.egress import (
    Egress,
    EgressNotApproved,
    approve_egress,
    load_approvals,
    normalise_url,
    require_approved,
    revoke_egress,
    trust_file,
)
from teambrain_schema.paths import MachineLayout

EMBEDDER = Egress("retrieval.embedder", "memory text", "https://api.example.com/v1", "KEY")


@pytest.fixture
def machine(tmp_path: Path) -> MachineLayout:
    return MachineLayout(tmp_path / "home")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


def test_approval_is_per_repository_and_covers_exactly_one_destination(
    machine: MachineLayout, repo: Path, tmp_path: Path
) -> None:
    approvals = load_approvals(machine, repo)
    assert approvals.state(repo, EMBEDDER) == "not approved" and approvals.problem is None
    with pytest.raises(EgressNotApproved, match="not approved on this machine"):
        require_approved(machine, repo, EMBEDDER)
    assert approve_egress(machine, repo, [EMBEDDER]) == [EMBEDDER]
    assert approve_egress(machine, repo, [EMBEDDER]) == []  # already approved
    require_approved(machine, repo, EMBEDDER)
    require_approved(machine, repo, None)  # nothing leaves: nothing to approve
    assert os.stat(trust_file(machine)).st_mode & 0o777 == 0o600
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert load_approvals(machine, elsewhere).state(elsewhere, EMBEDDER) == "not approved"
    for changed in (
        Egress("retrieval.embedder", "memory text", "https://evil.example/v1", "KEY"),
        Egress("retrieval.embedder", "memory text", "https://api.example.com/v1", "AWS_SECRET"),
        Egress("retrieval.embedder", "memory text", "https://api.example.com/v1", None),
    ):
        assert load_approvals(machine, repo).state(repo, changed) == "changed"
        with pytest.raises(EgressNotApproved, match="changed since it was approved"):
            require_approved(machine, repo, changed)
    assert revoke_egress(machine, repo) == 1
    assert load_approvals(machine, repo).state(repo, EMBEDDER) == "not approved"


def test_a_trust_file_anybody_else_could_write_approves_nothing(
    machine: MachineLayout, repo: Path, tmp_path: Path
) -> None:
    approve_egress(machine, repo, [EMBEDDER])
    path = trust_file(machine)
    path.chmod(0o666)
    approvals = load_approvals(machine, repo)
    assert approvals.state(repo, EMBEDDER) == "not approved"
    assert approvals.problem is not None and "writable by others" in approvals.problem
    path.chmod(0o600)
    # A symlink to a file someone else controls.
    target = tmp_path / "planted.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)
    assert "symbolic link" in str(load_approvals(machine, repo).problem)
    with pytest.raises(Exception, match="cannot record approvals"):
        approve_egress(machine, repo, [EMBEDDER])
    # TEAMBRAIN_HOME inside the repository (a committed .mcp.json can set it for the server).
    inside = MachineLayout(repo / ".cache" / "tb")
    approve_egress(inside, tmp_path, [EMBEDDER])  # fine for another repository
    found = load_approvals(inside, repo)
    assert found.state(repo, EMBEDDER) == "not approved"
    assert "inside the repository" in str(found.problem)


@settings(
    max_examples=150,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_any_trust_file_content_loads_without_raising(
    data: bytes, machine: MachineLayout, repo: Path
) -> None:
    machine.home.mkdir(exist_ok=True)
    trust_file(machine).write_bytes(data)
    trust_file(machine).chmod(0o600)
    approvals = load_approvals(machine, repo)
    assert approvals.state(repo, EMBEDDER) in ("approved", "not approved", "changed")


def test_deeply_nested_trust_file_approves_nothing(machine: MachineLayout, repo: Path) -> None:
    machine.home.mkdir()
    trust_file(machine).write_text("[" * 100_000)
    trust_file(machine).chmod(0o600)
    assert load_approvals(machine, repo).problem is not None


def test_old_approvals_of_a_setting_are_dropped_past_the_limit(
    machine: MachineLayout, repo: Path
) -> None:
    for n in range(12):
        approve_egress(machine, repo, [Egress("distill", "s", f"https://h{n}.example", None)])
    approvals = load_approvals(machine, repo)
    assert len(approvals.entries) == 8
    assert approvals.state(repo, Egress("distill", "s", "https://h0.example", None)) == "changed"
    assert approvals.state(repo, Egress("distill", "s", "https://h11.example", None)) == "approved"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTPS://API.Example.com:443/v1/", "https://api.example.com/v1"),
        ("http://127.0.0.1:80", "http://127.0.0.1"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("http://user:pw@Host.example/x", "http://user:pw@host.example/x"),
        ("http://[::1]:11434/", "http://[::1]:11434"),
        ("http://host:notaport/", "http://host:notaport/"),
    ],
)
def test_urls_compare_in_one_form(url: str, expected: str) -> None:
    assert normalise_url(url) == expected


@given(st.text(max_size=200))
def test_normalise_url_never_raises(url: str) -> None:
    assert isinstance(normalise_url(url), str)
