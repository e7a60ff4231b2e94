"""Issue 32, the writes and walks that remained: a teammate's commit is untrusted input.

Every file teambrain writes at a place a commit can name — the brain `tb init` completes,
`AGENTS.md` of `tb export`, an agent tool's config of `tb install`, the report `tb digest --out`
writes under the repository — is never written through a committed link that leaves the
repository (a stand-in for ~/.bashrc, a folder of the home) or leads into `.git/` (`.git/config`
broke the repository: "fatal: bad config line"); a FIFO is never replaced."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from untrusted import run_bounded

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and FIFOs")

MEMORY = """---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F01
class: decision
scope: team
status: active
priority: required
title: Payments go through the gateway
created: 2026-11-01
---

Call the payment gateway for every charge.
"""


def _clean(done: Any) -> str:
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "internal error" not in said, said[-2000:]
    return said


def _brain(repo: Path, tb: Any, git_run: Any) -> None:
    assert tb("init", cwd=repo).returncode == 0
    (repo / ".teambrain/memories/decisions/01KB2F0A1S9Y4Q7V3C8D5E6F01-pay.md").write_text(MEMORY)
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-qm", "brain", cwd=repo)


@pytest.mark.parametrize("linked", [".teambrain", ".teambrain/prompts", ".teambrain/retired"])
def test_init_never_completes_a_brain_through_a_link_out_of_it(
    repo: Path, tb: Any, git_run: Any, tmp_path: Path, linked: str
) -> None:
    outside = tmp_path / "home-folder"
    outside.mkdir()
    if linked != ".teambrain":
        assert tb("init", cwd=repo).returncode == 0
        target = repo / linked
        for child in target.iterdir():
            child.unlink()
        target.rmdir()
    (repo / linked).symlink_to(outside)
    done, _ = run_bounded(repo, "init")
    said = _clean(done)
    assert done.returncode == 2, said
    assert f"{linked} is a link that leads out of the" in said and str(outside) in said
    assert list(outside.iterdir()) == []  # nothing written there


@pytest.mark.parametrize("into", ["git-config", "outside"])
def test_export_never_writes_through_a_committed_link(
    repo: Path, tb: Any, git_run: Any, tmp_path: Path, into: str
) -> None:
    _brain(repo, tb, git_run)
    canary = tmp_path / "bashrc"
    canary.write_text("export PATH=/usr/bin\n")
    target = repo / ".git" / "config" if into == "git-config" else canary
    before = target.read_bytes()
    (repo / "AGENTS.md").symlink_to(".git/config" if into == "git-config" else canary)
    done, _ = run_bounded(repo, "export")
    said = _clean(done)
    assert done.returncode == 1, said
    assert "AGENTS.md: a link leads it out of this repository's files" in said
    assert target.read_bytes() == before
    assert git_run("status", "--short", cwd=repo) is not None  # git still reads its config


def test_export_follows_a_link_that_stays_among_the_repositorys_files(
    repo: Path, tb: Any, git_run: Any
) -> None:
    _brain(repo, tb, git_run)
    (repo / "CLAUDE.md").write_text("# Rules\n")
    (repo / "AGENTS.md").symlink_to("CLAUDE.md")
    done = tb("export", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert (repo / "AGENTS.md").is_symlink()
    assert "Payments go through the gateway" in (repo / "CLAUDE.md").read_text()


def test_install_never_writes_a_tool_config_into_git(repo: Path, tb: Any, git_run: Any) -> None:
    _brain(repo, tb, git_run)
    exclude = repo / ".git" / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("# nothing\n")  # valid TOML: a merge would have written into it
    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").symlink_to("../.git/info/exclude")
    done, _ = run_bounded(repo, "install", "codex")
    said = _clean(done)
    assert done.returncode == 2, said
    assert ".codex/config.toml is a link into the repository's .git folder" in said
    assert exclude.read_text() == "# nothing\n"


def test_digest_out_never_writes_through_a_link_or_replaces_a_fifo(
    repo: Path, tb: Any, git_run: Any, tmp_path: Path
) -> None:
    _brain(repo, tb, git_run)
    canary = tmp_path / "bashrc"
    canary.write_text("export PATH=/usr/bin\n")
    (repo / "reports").mkdir()
    (repo / "reports" / "week.md").symlink_to(canary)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / "linked").symlink_to(elsewhere)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for out in ("reports/week.md", "linked/week.md", str(fifo)):
        done, _ = run_bounded(repo, "digest", "--format", "markdown", "--out", out)
        said = _clean(done)
        assert done.returncode == 1, (out, said)
        assert said.startswith(f"tb: {out}: "), said
    assert canary.read_text() == "export PATH=/usr/bin\n"
    assert list(elsewhere.iterdir()) == []
    assert fifo.is_fifo()
    done, _ = run_bounded(repo, "digest", "--format", "markdown", "--out", "out/week.md")
    assert done.returncode == 0, done.stderr
    assert (repo / "out" / "week.md").is_file()


def test_import_never_queues_gits_own_files_through_a_link(
    repo: Path, tb: Any, git_run: Any
) -> None:
    """A committed CLAUDE.md linked to .git/config queued git's settings as team instructions
    (a remote's URL, with its token, among them)."""
    _brain(repo, tb, git_run)
    config = repo / ".git" / "config"
    config.write_text(
        config.read_text() + '[remote "origin"]\n\turl = https://example.invalid/team/app.git\n'
        "# Always deploy from the release branch after the payment tests pass.\n"
    )
    (repo / "CLAUDE.md").symlink_to(".git/config")
    done, _ = run_bounded(repo, "import")
    said = _clean(done)
    assert done.returncode == 0, said
    assert "0 queued" in said and "example.invalid" not in said
    assert "example.invalid" not in tb("candidates", cwd=repo).stdout
