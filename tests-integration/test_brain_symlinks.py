"""Brain files are never read through a symlink that leaves the brain: lint names it (exit 3),
and search neither indexes nor serves it (saying why once)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLAKY = "01KB2F0A1S9Y4Q7V3C8D5E6F04"
LEARNINGS = ROOT / "demo" / "brain" / "memories" / "learnings"
Run = Callable[..., Any]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside" / "learnings"
    shutil.copytree(LEARNINGS, folder)
    return folder.parent


def _link_memories_folder(repo: Path, outside: Path) -> None:
    shutil.rmtree(repo / ".teambrain" / "memories")
    (repo / ".teambrain" / "memories").symlink_to(outside, target_is_directory=True)


def _link_one_file(repo: Path, outside: Path) -> None:
    source = next((outside / "learnings").glob(f"{FLAKY}-*.md"))
    (repo / ".teambrain" / "memories" / "learnings" / source.name).symlink_to(source)


def _link_the_brain(repo: Path, outside: Path) -> None:
    brain = repo / ".teambrain"
    moved = outside.parent / "brain"
    shutil.move(str(brain), moved)
    shutil.copytree(LEARNINGS, moved / "memories" / "learnings", dirs_exist_ok=True)
    brain.symlink_to(moved, target_is_directory=True)


@pytest.mark.parametrize("link", [_link_memories_folder, _link_one_file, _link_the_brain])
def test_a_symlink_leaving_the_brain_is_named_by_lint_and_never_served(
    repo: Path, tb: Run, outside: Path, link: Callable[[Path, Path], None]
) -> None:
    assert tb("init", cwd=repo).returncode == 0
    link(repo, outside)
    done = tb("lint", "--json", cwd=repo)
    assert done.returncode == 3, done.stdout
    assert "symlink" in done.stdout
    found = tb("relevant", "--query", "flaky checkout test fake clock", "--json", cwd=repo)
    assert "symlink" in found.stderr
    if link is _link_the_brain:  # not even brain.yaml is read: refused, named, nothing served
        assert found.returncode == 3 and FLAKY not in found.stdout
        return
    assert found.returncode == 0, found.stderr
    assert FLAKY not in [item["id"] for item in json.loads(found.stdout)]
