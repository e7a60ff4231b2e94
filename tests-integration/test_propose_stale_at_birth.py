"""Stale at birth: ``tb propose`` warns before the pull request exists when a draft cites
``make`` targets, scripts or paths the base does not have, and with --strict-citations refuses
it (the reviewer sees the warning in the proposal too)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., subprocess.CompletedProcess[str]]

STALE_DRAFT = """---
class: convention
title: Lint before pushing
tags: [ci]
---

Run `make lint-all` before pushing; the settings are in `config/lint.toml` and the hook in
`scripts/pre-push.sh`.
"""
GOOD_DRAFT = """---
class: convention
title: Run the tests with make test
---

Run `make test`; the suite lives in `tests/test_app.py`.
"""


@pytest.fixture
def project(repo: Path, tb: Run, git_run: Callable[..., str]) -> Path:
    (repo / "Makefile").write_text("test:\n\tpytest\n\nlint:\n\truff check .\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_app.py").write_text("def test_ok():\n    assert True\n")
    assert tb("init", cwd=repo).returncode == 0
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "app and brain", cwd=repo)
    (repo / "stale.md").write_text(STALE_DRAFT)
    (repo / "good.md").write_text(GOOD_DRAFT)
    return repo


def test_propose_warns_before_the_proposal_exists(
    project: Path, tb: Run, git_run: Callable[..., str]
) -> None:
    done = tb(
        "propose", "--draft", "stale.md", "--draft", "good.md", "--no-push", "--json", cwd=project
    )
    assert done.returncode == 0, done.stderr
    results = {r["title"]: r for r in json.loads(done.stdout)["results"]}
    stale = results["Lint before pushing"]
    assert stale["result"] == "proposed"
    assert any("lint-all" in reason for reason in stale["stale"])
    assert any("`config/lint.toml` does not exist" in reason for reason in stale["stale"])
    assert any("scripts/pre-push.sh" in reason for reason in stale["stale"])
    assert results["Run the tests with make test"]["stale"] == []
    branch = json.loads(done.stdout)["branch"]
    message = git_run("log", "-1", "--format=%B", branch, cwd=project)
    assert "stale the day it merges" in message and "lint-all" in message  # the reviewer sees it


def test_propose_text_output_warns(project: Path, tb: Run) -> None:
    done = tb("propose", "--draft", "stale.md", "--dry-run", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "warning: stale at birth: `make lint-all`: no Makefile defines `lint-all`" in done.stdout


def test_strict_citations_refuses_the_draft(project: Path, tb: Run) -> None:
    done = tb("propose", "--draft", "stale.md", "--draft", "good.md", "--strict-citations",
              "--no-push", "--json", cwd=project)  # fmt: skip
    assert done.returncode == 3
    results = {r["title"]: r for r in json.loads(done.stdout)["results"]}
    refused = results["Lint before pushing"]
    assert refused["result"] == "rejected" and refused["rule"] == "citations"
    assert "--strict-citations" in refused["reason"]
    assert results["Run the tests with make test"]["result"] == "proposed"
