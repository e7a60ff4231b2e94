"""A fresh brain names no model: ``tb distill`` says so with the steps to pick one, ``tb doctor``
notes it, and once a hosted model is chosen doctor checks that its client library imports —
from the installed wheels, without the extra and then with ``teambrain-cli[anthropic]``."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]


def test_a_fresh_brain_says_no_model_configured_with_the_steps(repo: Path, tb: Run) -> None:
    assert tb("init", cwd=repo).returncode == 0
    text = (repo / ".teambrain" / "brain.yaml").read_text()
    assert "  driver: none\n  model: none\n" in text
    done = tb("distill", cwd=repo)
    assert done.returncode == 2
    assert "fixture" not in done.stderr  # not the fake driver's complaint any more
    assert "no model configured" in done.stderr.splitlines()[-1]
    for step in ("A local model", "ollama pull", "teambrain-cli[ollama]", "A hosted model",
                 "teambrain-cli[anthropic]", "api_key_env"):  # fmt: skip
        assert step in done.stderr, step
    as_json = tb("distill", "--json", cwd=repo)
    assert as_json.returncode == 2
    error = json.loads(as_json.stdout)
    assert error["ok"] is False and "no model configured" in error["error"]["message"]
    doctor = json.loads(tb("doctor", "--json", cwd=repo).stdout)
    distill = next(f for f in doctor["findings"] if f["name"] == "distill")
    assert distill["status"] == "note" and "no model configured" in distill["detail"]


def choose_anthropic(repo: Path) -> None:
    """brain.yaml names a hosted model: anthropic, its key in $TB_TEST_ANTHROPIC."""
    brain_yaml = repo / ".teambrain" / "brain.yaml"
    brain_yaml.write_text(
        brain_yaml.read_text()
        .replace("  driver: none\n  model: none\n  api_key_env: null\n",
                 "  driver: anthropic\n  model: claude-test\n  api_key_env: TB_TEST_ANTHROPIC\n")
    )  # fmt: skip


def _doctor_distill(bin_dir: Path, repo: Path) -> dict[str, str]:
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "TB_TEST_ANTHROPIC": "sk-test-key"}
    done = subprocess.run([str(bin_dir / "tb"), "doctor", "--json"], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    return next(f for f in json.loads(done.stdout)["findings"] if f["name"] == "distill")


def test_doctor_checks_the_model_client_imports_and_the_extra_brings_it(
    repo: Path, installed: Callable[[str], Path], wheels: Path
) -> None:
    bin_dir = installed("pip")  # teambrain-cli alone: no model client
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    subprocess.run(
        [str(bin_dir / "tb"), "init"], cwd=repo, env=env, check=True, capture_output=True
    )
    choose_anthropic(repo)
    before = _doctor_distill(bin_dir, repo)
    assert before["status"] == "problem", before
    assert "anthropic is not installed" in before["detail"]
    assert "teambrain-cli[anthropic]" in (before["fix"] or "")

    pip = bin_dir / "pip"
    subprocess.run([str(pip), "install", "--quiet", "--no-index", "--find-links", str(wheels),
                    "teambrain-cli[anthropic]"], check=True, env={**env, "PIP_NO_INDEX": "1"},
                   capture_output=True)  # fmt: skip
    after = _doctor_distill(bin_dir, repo)
    assert after["status"] == "ok", after
    assert "credential $TB_TEST_ANTHROPIC set" in after["detail"]


@pytest.mark.parametrize("installer", ["uv-tool", "pipx"])
def test_the_fix_doctor_and_distill_give_is_the_installers_own_and_brings_the_client(
    installer: str, repo: Path, wheels: Path, tmp_path: Path
) -> None:
    """`pipx install 'teambrain-cli[anthropic]'` over an installed teambrain-cli changes nothing
    (pipx keeps it, says so and exits 0), so the fix names each installer's own command: the one
    that, run as printed (offline here), makes doctor's distill check pass."""
    from wheelhouse import install_with_pipx, install_with_uv_tool, scratch_env

    install = {"uv-tool": install_with_uv_tool, "pipx": install_with_pipx}[installer]
    bin_dir = install(wheels, tmp_path / "prefix")
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    subprocess.run([str(bin_dir / "tb"), "init"], cwd=repo, env=env, check=True, capture_output=True)  # fmt: skip
    steps = subprocess.run([str(bin_dir / "tb"), "distill"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False)  # fmt: skip
    expected = {"uv-tool": "uv tool install --compile-bytecode 'teambrain-cli[anthropic]'",
                "pipx": "pipx install --force 'teambrain-cli[anthropic]'"}[installer]  # fmt: skip
    assert expected in steps.stderr and "pip install" not in steps.stderr, steps.stderr
    choose_anthropic(repo)
    before = _doctor_distill(bin_dir, repo)
    assert before["status"] == "problem" and before["fix"] == expected, before

    # The fix as printed, with the offline flags the test needs and the same scratch prefix.
    prefix = tmp_path / "prefix"
    run_env = scratch_env(prefix)
    if installer == "uv-tool":
        run_env.update(UV_TOOL_DIR=str(prefix / "tools"), UV_TOOL_BIN_DIR=str(prefix / "bin"))
        uv = [sys.executable, "-m", "uv"] if shutil.which("uv") is None else ["uv"]
        command = [*uv, *shlex.split(expected)[1:], "--no-index", "--find-links", str(wheels)]
    else:
        run_env.update(PIPX_HOME=str(prefix / "pipx"), PIPX_BIN_DIR=str(prefix / "bin"),
                       PIPX_MAN_DIR=str(prefix / "man"), PIPX_DEFAULT_BACKEND="pip",
                       PIPX_DISABLE_SHARED_LIBS_AUTO_UPGRADE="1")  # fmt: skip
        pipx = str(Path(sys.executable).parent / "pipx")
        command = [pipx, *shlex.split(expected)[1:], "--pip-args", f"--no-index --find-links {wheels}"]  # fmt: skip
    subprocess.run(command, check=True, env=run_env, capture_output=True)
    after = _doctor_distill(bin_dir, repo)
    assert after["status"] == "ok", after


def test_a_wheel_user_has_the_documentation_messages_point_to(
    repo: Path, installed: Callable[[str], Path]
) -> None:
    """Issue 42 point 3: `tb --help`, `tb distill`, `tb serve` and brain.yaml's comments pointed
    to docs/… pages only a clone has; from the wheels, `tb help <topic>` prints them (and every
    topic those messages name exists there)."""
    import re

    bin_dir = installed("pip")
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin", "TB_PAGER": ""}

    def tb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(bin_dir / "tb"), *args], cwd=repo, env=env,
                              capture_output=True, text=True, check=False)  # fmt: skip

    assert tb("init").returncode == 0
    said = "\n".join([
        tb("--help").stdout, tb("distill").stderr, tb("serve", "--help").stdout,
        (repo / ".teambrain" / "brain.yaml").read_text(), tb("distill", "--help").stdout,
    ])  # fmt: skip
    assert "docs/" not in said.replace("github.com/teambrain/teambrain/blob/main/docs/", "")
    topics = set(re.findall(r"tb help ([a-z][\w-]*(?:#[\w-]+)?)", said)) - {"topics"}
    assert {"config", "distill-guide", "distill-guide#choosing-a-model"} <= topics, topics
    for topic in sorted(topics):
        shown = tb("help", topic)
        assert shown.returncode == 0 and shown.stdout.startswith("#"), (topic, shown.stderr)
    assert tb("help", "config").stdout.startswith("# Configuration: `.teambrain/brain.yaml`")
    assert "memory_context" in tb("help", "mcp").stdout
    assert "  propose " in tb("help", "topics").stdout
