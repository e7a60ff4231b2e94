"""Plugins that misbehave: one that calls ``sys.exit`` on import, raises, prints on stdout,
never finishes importing, or hands back something that is not what it promised. Each is named
in one line and left out; the verb answers (keyword search without the embedder, the other
tools for ``tb install --list`` and ``tb doctor``), its stdout stays clean, and a plugin that
never returns costs at most the load bound (``TEAMBRAIN_PLUGIN_TIMEOUT``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]
BOUND_S = "2"  # the plugin load bound these tests set (the default is longer)

MODULES = {
    "tbp_exits": "import sys\nsys.exit(7)\n",
    "tbp_raises": "raise RuntimeError('the plugin is broken on purpose')\n",
    "tbp_prints": "print('HELLO FROM A PLUGIN')\nfrom tbp_ok import ragged as embedder\n",
    "tbp_hangs": "import time\ntime.sleep(3600)\n",
    "tbp_interrupts": "raise KeyboardInterrupt\n",
    "tbp_ok": """
import dataclasses
from teambrain_retrieval import HashEmbedder


def adapter():
    from teambrain_cli._agent_tools.registry import resolve_adapter

    return dataclasses.replace(resolve_adapter("cursor"), name="good-tool", title="Good", aliases=())


def not_an_embedder(config, repo_root):
    return None


def factory_exits(config, repo_root):
    raise SystemExit(3)


class Failing(HashEmbedder):
    def embed_documents(self, texts):
        raise SystemExit(5)

    def embed_query(self, text):
        raise ValueError("no vectors today")


def failing(config, repo_root):
    return Failing(name="plugin:failing")


class Ragged(HashEmbedder):
    def embed_documents(self, texts):
        print("EMBEDDING ON STDOUT")
        return [[1.0, 2.0]] * (len(texts) + 1)

    def embed_query(self, text):
        return [float("nan")] * 3


def ragged(config, repo_root):
    return Ragged(name="plugin:ragged")
""",
}
MISBEHAVING = ["exits", "raises", "hangs", "interrupts"]
EMBEDDERS = {
    **{name: f"tbp_{name}:embedder" for name in [*MISBEHAVING, "prints"]},
    "not-an-embedder": "tbp_ok:not_an_embedder",
    "factory-exits": "tbp_ok:factory_exits",
    "failing": "tbp_ok:failing",
    "ragged": "tbp_ok:ragged",
}
ADAPTERS = {**{name: f"tbp_{name}:adapter" for name in MISBEHAVING}, "good": "tbp_ok:adapter"}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """One installed package with misbehaving entry points of every group."""
    folder = tmp_path / "site"
    info = folder / "tb_bad_plugins-0.1.dist-info"
    info.mkdir(parents=True)
    for module, text in MODULES.items():
        (folder / f"{module}.py").write_text(text, "utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tb-bad-plugins\nVersion: 0.1\n")
    lines = ["[teambrain.embedders]", *(f"{k} = {v}" for k, v in EMBEDDERS.items())]
    lines += ["[teambrain.adapters]", *(f"{k} = {v}" for k, v in ADAPTERS.items())]
    lines += ["[teambrain.drivers]", *(f"{k} = tbp_{k}:driver" for k in MISBEHAVING)]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("")
    return folder


@pytest.fixture
def env(site: Path) -> dict[str, str]:
    return {
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        "TEAMBRAIN_PLUGIN_TIMEOUT": BOUND_S,
    }


@pytest.fixture
def brain(repo: Path, tb: Run, git_run: Run) -> Iterator[Path]:
    assert tb("init", cwd=repo).returncode == 0
    memory = (
        repo / ".teambrain" / "memories" / "conventions" / "01J0000000000000000000000A-deploy.md"
    )
    memory.write_text(
        "---\nid: 01J0000000000000000000000A\nclass: convention\nscope: team\nstatus: active\n"
        "priority: advisory\ntitle: Deploy with the release script\ncreated: 2026-01-05\n"
        "evidence: {sessions: [], commits: []}\nsupersedes: []\ntags: [deploy]\nttl_days: null\n"
        "---\nRun scripts/release.sh to deploy; never deploy by hand.\n"
    )
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)
    yield repo


def _use_embedder(repo: Path, name: str) -> None:
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    assert "    plugin: null" in text
    yaml.write_text(text.replace("    plugin: null", f"    plugin: {name}", 1))
    # A plugin gets memory text: brain.yaml choosing one needs this machine's approval first.
    tb = str(Path(sys.executable).parent / "tb")
    subprocess.run([tb, "trust", "--yes", "retrieval.embedder"], cwd=repo, check=True,
                   capture_output=True, timeout=60)  # fmt: skip


def _one_line_naming(stderr: str, name: str) -> None:
    lines = [line for line in stderr.splitlines() if repr(name) in line]
    assert lines, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


@pytest.mark.parametrize("name", sorted(EMBEDDERS))
def test_a_misbehaving_embedder_plugin_is_left_out_and_relevant_answers(
    brain: Path, tb: Run, env: dict[str, str], name: str
) -> None:
    _use_embedder(brain, name)
    done = tb("relevant", "--query", "deploy release", "--json", cwd=brain, env=env)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # nothing the plugin printed is in it
    assert [hit["id"] for hit in answer] == ["01J0000000000000000000000A"], answer
    if name != "prints":
        _one_line_naming(done.stderr, name)
    else:
        assert "HELLO FROM A PLUGIN" in done.stderr


@pytest.mark.parametrize("name", ["exits", "hangs", "failing"])
def test_a_misbehaving_embedder_plugin_leaves_tb_serve_answering(
    brain: Path, env: dict[str, str], name: str
) -> None:
    _use_embedder(brain, name)
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "plugin-faults", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": "deploy release"}}},
    ]  # fmt: skip
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tb"), "serve"], cwd=brain, env={**os.environ, **env}, capture_output=True, text=True,
        input="".join(json.dumps(call) + "\n" for call in calls), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    result = answers[2]["result"]
    assert not result.get("isError"), result
    assert "01J0000000000000000000000A" in json.dumps(result)
    _one_line_naming(done.stderr, name)


def test_misbehaving_adapter_plugins_are_named_and_the_rest_is_listed(
    brain: Path, tb: Run, env: dict[str, str]
) -> None:
    listed = tb("install", "--list", cwd=brain, env=env)
    assert listed.returncode == 0, listed.stderr
    assert "good-tool" in listed.stdout and "claude-code" in listed.stdout
    for name in MISBEHAVING:
        _one_line_naming(listed.stderr, name)
    assert tb("install", "good-tool", cwd=brain, env=env).returncode == 0
    doctor = tb("doctor", "--json", cwd=brain, env=env)
    findings = {f["name"]: f for f in json.loads(doctor.stdout)["findings"]}
    assert "tool good-tool" in findings
    plugins = " ".join(f["detail"] for name, f in findings.items() if "plugin" in name)
    for name in MISBEHAVING:
        assert repr(name) in plugins, findings
    fixes = {f["fix"] for name, f in findings.items() if name.startswith("adapter plugin ")}
    assert fixes == {"fix or uninstall tb-bad-plugins (`pip uninstall tb-bad-plugins`)"}, fixes
    assert "Traceback" not in doctor.stderr and "internal error" not in doctor.stderr


DRIVER = """
import sys
from teambrain_schema import DistillConfig, TeambrainError
from teambrain_distill import make_driver
try:
    make_driver(DistillConfig(plugin=sys.argv[1]), None)
except TeambrainError as exc:
    print(exc.message, file=sys.stderr)
    sys.exit(int(exc.exit_code))
"""


@pytest.mark.parametrize("name", MISBEHAVING)
def test_a_misbehaving_driver_plugin_is_named_in_one_line(env: dict[str, str], name: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, name], env={**os.environ, **env}, capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert done.stderr.startswith(f"distill.plugin: teambrain.drivers plugin {name!r}"), done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
