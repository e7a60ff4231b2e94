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
    # The demo brain over the demo app it describes (over an empty repository its citations
    # would be stale: warned about, see test_citations.py).
    shutil.copytree(DEMO_BRAIN.parents[1] / "app", repo, dirs_exist_ok=True)
    shutil.copytree(DEMO_BRAIN, repo / ".teambrain" / "memories", dirs_exist_ok=True)
    stale = tb("lint", cwd=repo)  # INDEX.md lags behind: a note, never a failure
    assert stale.returncode == 0 and stale.stdout == ""
    assert stale.stderr == (
        ".teambrain/INDEX.md:1: index (note): behind the memory files (7 entries to add); the "
        "default branch regenerates it after each merge "
        "(`tb reindex --index-md-only`)\n16 files checked: clean\n"
    )
    assert tb("reindex", cwd=repo).returncode == 0
    clean = tb("lint", "--json", cwd=repo)
    assert clean.returncode == 0, clean.stdout
    report = json.loads(clean.stdout)
    assert report["ok"] is True and report["files_checked"] == 16 and report["notes"] == []
    git_run("add", "-A", cwd=repo)
    git_run("commit", "-q", "-m", "brain", cwd=repo)
    assert git_run("status", "--porcelain", cwd=repo) == ""
    # Run from a subdirectory: the brain is found from anywhere in the work tree.
    sub = repo / "src"
    sub.mkdir(exist_ok=True)
    assert tb("lint", cwd=sub).returncode == 0


def test_outside_git_exits_2_with_one_line(tmp_path: Path, tb) -> None:
    done = tb("init", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "git repository" in done.stderr
    assert not (tmp_path / ".teambrain").exists()


def test_a_teambrain_home_that_is_a_file_is_one_line_exit_2(repo: Path, tb, tmp_path: Path) -> None:
    not_a_dir = tmp_path / "home-file"
    not_a_dir.write_text("")
    for verb in ("init", "lint", "reindex", "digest", "metrics", "audit"):
        done = tb(verb, cwd=repo, env={"TEAMBRAIN_HOME": str(not_a_dir)})
        assert done.returncode == 2, (verb, done.stderr)
        assert done.stderr == f"tb: {not_a_dir} is not a directory (check TEAMBRAIN_HOME)\n", verb


def test_reindex_says_when_it_cannot_keep_the_index(repo: Path, tb, tmp_path: Path) -> None:
    assert tb("init", cwd=repo).returncode == 0
    blocked = tmp_path / "home-file"
    blocked.write_text("")
    done = tb("reindex", cwd=repo, env={"TEAMBRAIN_HOME": str(blocked / "sub")})
    assert done.returncode == 2
    assert "could not be written" in done.stderr
