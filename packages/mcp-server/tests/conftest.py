"""Fixtures: a real git repository with a real brain (the demo memories), and servers on it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from teambrain_kit.paths import BrainLayout, MachineLayout
from teambrain_schema import BRAIN_YAML_TEMPLATE, MEMORY_CLASSES

ROOT = Path(__file__).resolve().parents[3]
DEMO_MEMORIES = ROOT / "demo" / "brain" / "memories"


def run_git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


def make_brain(repo: Path, *, memories: bool = True, embedder: str = "none") -> BrainLayout:
    """Create ``.teambrain/`` in ``repo`` as ``tb init`` would, with the demo memories.

    Unit tests search by keywords only (``embedder: none``, a real setting) so each one does
    not load the embedding model; the integration tests and the demo use the local model.
    """
    layout = BrainLayout(repo)
    for memory_class in MEMORY_CLASSES:
        layout.class_dir(memory_class).mkdir(parents=True, exist_ok=True)
    layout.retired.mkdir(parents=True, exist_ok=True)
    text = BRAIN_YAML_TEMPLATE.replace("    provider: local\n", f"    provider: {embedder}\n")
    assert f"provider: {embedder}" in text
    layout.brain_yaml.write_text(text)
    if memories:
        shutil.copytree(DEMO_MEMORIES, layout.memories, dirs_exist_ok=True)
    return layout


@pytest.fixture(name="make_brain")
def make_brain_fixture() -> Callable[..., BrainLayout]:
    """``make_brain(repo, memories=True)``: create ``.teambrain/`` as ``tb init`` would."""
    return make_brain


@pytest.fixture(name="git")
def git_fixture() -> Callable[..., str]:
    """``git(*args, cwd=...)``: run git, fail the test on error, return stdout."""
    return run_git


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def bare_repo(tmp_path: Path) -> Path:
    """A git repository with one commit and no brain."""
    repo = tmp_path / "repo"
    repo.mkdir()
    run_git("init", "-q", "-b", "main", cwd=repo)
    (repo / "README.md").write_text("# shop\n")
    run_git("add", "-A", cwd=repo)
    run_git("commit", "-qm", "initial", cwd=repo)
    return repo


@pytest.fixture
def brain_repo(bare_repo: Path) -> Path:
    """A git repository whose committed brain holds the demo memories."""
    make_brain(bare_repo)
    run_git("add", "-A", cwd=bare_repo)
    run_git("commit", "-qm", "teambrain: brain", cwd=bare_repo)
    return bare_repo


@pytest.fixture
def machine(teambrain_home: Path) -> MachineLayout:
    return MachineLayout(teambrain_home)
