"""Paths a pulled commit names are opened only if they are regular files within bounds: a
model path of ``/dev/zero`` or ``/dev/stdin``, or a committed symlink from a cited file to a
device, never hangs a verb (issue 32, point 2). Every verb runs with its stdin an open pipe
nobody writes to, as an agent's ``tb serve`` has it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from untrusted import LIMIT_S, TB, run_bounded

MEMORY = """---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F01
class: convention
scope: team
status: active
priority: advisory
title: Build with make build
created: 2026-11-01
---

Run `make build` before a release; the entry point is `app.main` in `src/app.py`.
"""


def run(repo: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """The installed ``tb`` with an open, silent stdin; fails the test if it hangs."""
    done, seconds = run_bounded(repo, *args)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done, seconds


def _brain(repo: Path, tb: Any, git_run: Any) -> None:
    assert tb("init", cwd=repo).returncode == 0
    (repo / ".teambrain/memories/conventions/01KB2F0A1S9Y4Q7V3C8D5E6F01-build.md").write_text(
        MEMORY
    )
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)


def _set_model_path(repo: Path, git_run: Any, value: str) -> None:
    yaml = repo / ".teambrain" / "brain.yaml"
    text = yaml.read_text()
    assert "    path: null\n" in text
    yaml.write_text(text.replace("    path: null\n", f"    path: {value}\n", 1))
    git_run("commit", "-qam", "teammate: model path", cwd=repo)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/stdin", "/dev/urandom", "dir-link", "huge"])
def test_a_committed_model_path_never_hangs_a_verb(
    repo: Path, tb: Any, git_run: Any, target: str
) -> None:
    _brain(repo, tb, git_run)
    if target == "dir-link":  # a committed folder whose model.onnx links to a device
        (repo / "models").mkdir()
        (repo / "models" / "model.onnx").symlink_to("/dev/zero")
        git_run("add", "-A", cwd=repo)
        target = "models"
    elif target == "huge":  # a sparse 5 GB file: no model is that large
        with open(repo / "big.onnx", "wb") as handle:
            handle.truncate(5 * 1024**3)
        target = str(repo / "big.onnx")
    _set_model_path(repo, git_run, target)
    relevant, _ = run(repo, "relevant", "-q", "make build")
    assert relevant.returncode == 0 and "Build with make build" in relevant.stdout
    assert "keyword search only" in relevant.stderr
    assert "retrieval.embedder.path" in relevant.stderr
    reindex, _ = run(repo, "reindex")
    assert reindex.returncode == 0, reindex.stderr
    doctor, _ = run(repo, "doctor", "--json")
    embedder = next(f for f in json.loads(doctor.stdout)["findings"] if f["name"] == "embedder")
    assert embedder["status"] == "problem" and "retrieval.embedder.path" in embedder["detail"]
    lint, _ = run(repo, "lint")
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_committed_links_to_devices_in_cited_files_never_hang(
    repo: Path, tb: Any, git_run: Any
) -> None:
    _brain(repo, tb, git_run)
    (repo / "src").mkdir()
    for name, target in (("Makefile", "/dev/stdin"), ("src/app.py", "/dev/stdin"),
                         ("package.json", "/dev/zero")):  # fmt: skip
        (repo / name).symlink_to(target)
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "teammate: links", cwd=repo)
    for args in (("lint",), ("relevant", "-q", "make build"), ("doctor",), ("verify",)):
        done, seconds = run(repo, *args)
        assert seconds < LIMIT_S
        assert done.returncode in (0, 2, 3), done.stderr
    lint, _ = run(repo, "lint", "--json")
    assert json.loads(lint.stdout)["ok"] is True


def test_serve_answers_every_tool_with_a_device_for_a_model(
    repo: Path, tb: Any, git_run: Any
) -> None:
    import anyio
    from mcp import Client, StdioServerParameters

    _brain(repo, tb, git_run)
    _set_model_path(repo, git_run, "/dev/zero")

    async def session() -> list[Any]:
        params = StdioServerParameters(command=TB, args=["serve"], cwd=repo, env=dict(os.environ))
        async with Client(params) as client:
            return [
                await client.call_tool("memory_search", {"query": "make build"}),
                await client.call_tool("memory_context", {}),
            ]

    started = time.monotonic()
    found, context = anyio.run(session)
    assert time.monotonic() - started < LIMIT_S
    assert not found.is_error and "Build with make build" in found.content[0].text
    assert not context.is_error


def test_a_committed_model_file_is_run_only_once_approved(
    repo: Path, tb: Any, git_run: Any
) -> None:
    from teambrain_retrieval._index._local import MINILM_L6_INT8

    _brain(repo, tb, git_run)
    (repo / "models").mkdir()
    shutil.copy(MINILM_L6_INT8.weights(), repo / "models" / "model.onnx")
    git_run("add", "-A", cwd=repo)
    _set_model_path(repo, git_run, "models")
    before, _ = run(repo, "relevant", "-q", "make build")
    assert "keyword search only" in before.stderr and "model file" in before.stderr
    listed = json.loads(run(repo, "trust", "--json")[0].stdout)["settings"]
    assert [(s["setting"], s["state"]) for s in listed] == [("retrieval.embedder", "not approved")]
    assert listed[0]["destination"] == f"model file {(repo / 'models/model.onnx').resolve()}"
    assert run(repo, "trust", "--yes")[0].returncode == 0
    after, _ = run(repo, "relevant", "-q", "make build")
    assert "keyword search only" not in after.stderr, after.stderr
