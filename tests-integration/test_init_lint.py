"""tb init and tb lint from the installed console script, on a real git repository."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

DEMO_BRAIN = Path(__file__).resolve().parents[1] / "demo" / "brain" / "memories"


def test_init_lint_reindex_on_a_real_repository(
    repo: Path, tb, git_run, teambrain_home: Path
) -> None:
    done = tb("init", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert tb("init", cwd=repo).stdout.strip().endswith("nothing changed.")
    shutil.copytree(DEMO_BRAIN, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    stale = tb("lint", cwd=repo)
    assert stale.returncode == 3
    assert (
        stale.stdout.strip()
        == ".teambrain/INDEX.md:1: index: out of date; run `tb reindex` to regenerate it"
    )
    assert tb("reindex", cwd=repo).returncode == 0
    clean = tb("lint", "--json", cwd=repo)
    assert clean.returncode == 0, clean.stdout
    report = json.loads(clean.stdout)
    assert report["ok"] is True and report["files_checked"] == 9
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-q", "-m", "brain", cwd=repo)
    assert git_run("status", "--porcelain", cwd=repo) == ""
    # Run from a subdirectory: the brain is found from anywhere in the work tree.
    sub = repo / "src"
    sub.mkdir()
    assert tb("lint", cwd=sub).returncode == 0


def test_outside_git_exits_2_with_one_line(tmp_path: Path, tb) -> None:
    done = tb("init", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "git repository" in done.stderr
    assert not (tmp_path / ".teambrain").exists()
