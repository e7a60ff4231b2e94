"""Real git repositories with a brain, for sync's tests."""

from __future__ import annotations

import datetime as dt
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from teambrain_kit.paths import BrainLayout
from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES, MemoryFrontMatter
from teambrain_schema.frontmatter import new_memory_text
from teambrain_schema.lint import regenerate_index
from teambrain_schema.slugs import slugify

MEMORY_A = "01KB2F0A1S9Y4Q7V3C8D5E6F01"
MEMORY_B = "01KB2F0A1S9Y4Q7V3C8D5E6F02"


def git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run git in ``cwd`` and return stdout; fail the test on a non-zero exit."""
    import os

    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def write_memory(
    repo: Path,
    memory_id: str,
    title: str,
    body: str,
    *,
    memory_class: str = "learning",
    tags: list[str] | None = None,
    comment: str | None = None,
) -> Path:
    """Write an active memory file (optionally with a YAML comment line) and return its path."""
    layout = BrainLayout(repo)
    front = MemoryFrontMatter.model_validate(
        {
            "id": memory_id, "class": memory_class, "scope": "team", "status": "active",
            "priority": "advisory", "title": title, "created": dt.date(2026, 1, 5),
            "tags": tags or [],
        }
    )  # fmt: skip
    text = new_memory_text(front, body)
    if comment:
        text = text.replace("\npriority:", f"\n# {comment}\npriority:", 1)
    path = layout.memory_path(memory_class, memory_id, slugify(title))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def init_brain(repo: Path) -> BrainLayout:
    """Create a minimal brain in ``repo`` (what `tb init` makes) without committing."""
    layout = BrainLayout(repo)
    layout.root.mkdir(parents=True, exist_ok=True)
    layout.brain_yaml.write_text(BRAIN_YAML_TEMPLATE, "utf-8")
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True, exist_ok=True)
        (layout.class_dir(memory_class) / ".gitkeep").write_text("")
    layout.retired.mkdir(parents=True, exist_ok=True)
    (layout.retired / ".gitkeep").write_text("")
    return layout


def commit_all(repo: Path, message: str, *, when: str | None = None) -> str:
    """Regenerate INDEX.md, commit everything, return the commit id."""
    regenerate_index(BrainLayout(repo))
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when} if when else None
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo, env=env)
    return git("rev-parse", "HEAD", cwd=repo).strip()


@pytest.fixture
def brain_repo(tmp_path: Path) -> Path:
    """A repository on ``main`` whose one commit holds a brain with two memories."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("# app\n")
    init_brain(repo)
    write_memory(
        repo, MEMORY_A, "Use the fake clock in checkout tests",
        "Use `fake_clock`; never sleep in tests.", tags=["testing"],
        comment="keep this comment",
    )  # fmt: skip
    write_memory(
        repo, MEMORY_B, "Payments go through the gateway",
        "Call `PaymentGateway`, never a provider SDK.", memory_class="decision",
    )  # fmt: skip
    commit_all(repo, "brain", when="2026-01-05T10:00:00Z")
    return repo


@pytest.fixture
def snapshot_state() -> Callable[[Path], tuple[str, str, str, bytes]]:
    """``state(repo)`` → (HEAD, current branch, porcelain status, index bytes): what a proposal
    must leave exactly as it was."""

    def state(repo: Path) -> tuple[str, str, str, bytes]:
        git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=repo).strip())
        index = git_dir / "index"
        return (
            git("rev-parse", "HEAD", cwd=repo).strip(),
            git("rev-parse", "--abbrev-ref", "HEAD", cwd=repo).strip(),
            git(
                "status",
                "--porcelain=v1",
                "--untracked-files=all",
                cwd=repo,
                env={"GIT_OPTIONAL_LOCKS": "0"},  # status must not refresh the index itself
            ),
            index.read_bytes() if index.exists() else b"",
        )

    return state


@pytest.fixture
def kit() -> SimpleNamespace:
    """The helpers above, for tests (pytest's importlib mode keeps conftest unimportable)."""
    return SimpleNamespace(
        git=git, write_memory=write_memory, init_brain=init_brain, commit_all=commit_all,
        MEMORY_A=MEMORY_A, MEMORY_B=MEMORY_B,
    )  # fmt: skip
