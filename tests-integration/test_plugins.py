"""A separate package extends teambrain through entry points: an embedder
(``teambrain.embedders``), a distill driver (``teambrain.drivers``) and an agent tool for
``tb install`` (``teambrain.adapters``). The plugin is installed the way pip installs one — a
module and its ``.dist-info`` (METADATA, entry_points.txt) on the interpreter's path — and the
real ``tb`` picks each part up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]
PLUGIN = '''
"""tb-demo-plugin: one of each kind of teambrain extension."""
import dataclasses

from teambrain_retrieval import HashEmbedder


def embedder(config, repo_root):
    return HashEmbedder(name="plugin:demo-hash")


def driver(config, brain_dir):
    from teambrain_distill import make_driver

    return make_driver(config.model_copy(update={"plugin": None, "driver": "fake"}), brain_dir)


def adapter():
    from teambrain_cli._agent_tools.registry import resolve_adapter

    base = resolve_adapter("cursor")
    return dataclasses.replace(base, name="demo-tool", title="Demo Tool", aliases=())


def read_hook(payload, env):  # tb-capture demo-tool: Cursor's payloads, Cursor's reader
    from teambrain_cli._agent_tools.tools.cursor import read_hook as cursor

    return cursor(payload, env)
'''
ENTRY_POINTS = """[teambrain.embedders]
demo-hash = tb_demo_plugin:embedder

[teambrain.drivers]
demo-driver = tb_demo_plugin:driver

[teambrain.adapters]
demo-tool = tb_demo_plugin:adapter
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """Where the plugin is installed: what ``pip install --target`` would lay out."""
    folder = tmp_path / "site"
    info = folder / "tb_demo_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (folder / "tb_demo_plugin.py").write_text(PLUGIN, "utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tb-demo-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (info / "RECORD").write_text("")
    return folder


def _env(site: Path) -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}


def test_a_plugin_embedder_is_used_for_search(repo: Path, tb: Run, site: Path) -> None:
    assert tb("init", cwd=repo).returncode == 0
    yaml = repo / ".teambrain" / "brain.yaml"
    yaml.write_text(yaml.read_text().replace("    plugin: null", "    plugin: demo-hash", 1))
    assert "plugin: demo-hash" in yaml.read_text()
    # A plugin gets memory text: brain.yaml (committed) choosing one needs this machine's yes.
    assert tb("trust", "--yes", cwd=repo, env=_env(site)).returncode == 0
    assert tb("reindex", cwd=repo, env=_env(site)).returncode == 0
    doctor = tb("doctor", "--json", cwd=repo, env=_env(site))
    embedder = next(f for f in json.loads(doctor.stdout)["findings"] if f["name"] == "embedder")
    assert "plugin:demo-hash" in embedder["detail"], embedder
    # Without the plugin installed: keyword search, and one line saying why.
    missing = tb("relevant", "--query", "anything", cwd=repo)
    assert missing.returncode == 0
    assert "no installed package provides teambrain.embedders plugin 'demo-hash'" in missing.stderr


def test_a_plugin_adapter_is_installed_and_reported(repo: Path, tb: Run, site: Path) -> None:
    assert tb("init", cwd=repo).returncode == 0
    done = tb("install", "demo-tool", cwd=repo, env=_env(site))
    assert done.returncode == 0, done.stderr
    assert "teambrain" in (repo / ".cursor" / "mcp.json").read_text()
    doctor = tb("doctor", "--json", cwd=repo, env=_env(site))
    names = [f["name"] for f in json.loads(doctor.stdout)["findings"]]
    assert "tool demo-tool" in names
    unknown = tb("install", "demo-tool", cwd=repo)  # not installed: an unknown tool
    assert unknown.returncode == 1 and "unknown tool 'demo-tool'" in unknown.stderr
    # The hook it wired finds the plugin's reader the way it finds a built-in tool's.
    payload = {"hook_event_name": "sessionStart", "conversation_id": "plugin-sid", "workspace_roots": [str(repo)]}  # fmt: skip
    hook = subprocess.run(
        [str(Path(sys.executable).parent / "tb-capture"), "demo-tool"],
        input=json.dumps(payload), env={**os.environ, **_env(site)}, capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    home = Path(os.environ["TEAMBRAIN_HOME"])
    spooled = (home / "spool" / "sessions" / "plugin-sid.jsonl").read_text()
    assert '"ev":"session_start"' in spooled and '"tool":"demo-tool"' in spooled


def test_a_plugin_driver_is_built_from_brain_yaml(tmp_path: Path, site: Path) -> None:
    code = (
        "from teambrain_schema import DistillConfig\n"
        "from teambrain_distill import make_driver\n"
        "driver = make_driver(DistillConfig(plugin='demo-driver'), None)\n"
        "print(driver.name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **_env(site)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "fake"
    broken = subprocess.run(
        [sys.executable, "-c", code.replace("demo-driver", "nope")],
        env={**os.environ, **_env(site)}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "distill.plugin: no installed package provides teambrain.drivers plugin 'nope'" in (
        broken.stderr
    )
