"""A throw-away git repository holding a one-memory brain, for the checks of ``tb verify`` that
must exercise teambrain without touching the user's own repository."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

# Who commits in scratch repositories: a machine without a git identity must still verify.
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "tb verify", "GIT_AUTHOR_EMAIL": "verify@localhost",
    "GIT_COMMITTER_NAME": "tb verify", "GIT_COMMITTER_EMAIL": "verify@localhost",
}  # fmt: skip


def git(*args: str, cwd: Path) -> None:
    """Run git quietly in ``cwd`` as :data:`GIT_IDENTITY`; raise when it fails."""
    from teambrain_kit.git import run_git

    run_git(args, cwd=cwd, env=GIT_IDENTITY)


def scratch_brain(
    root: Path,
    *,
    memory_id: str,
    memory_class: str,
    priority: str,
    title: str,
    slug: str,
    body: str,
    files: Mapping[str, str] | None = None,
) -> Path:
    """``root/repo``: a committed brain with one memory (and ``files``, path → text)."""
    from teambrain_kit.paths import BrainLayout
    from teambrain_schema import BRAIN_YAML_TEMPLATE, CLASS_FOLDERS, MemoryFrontMatter
    from teambrain_schema.frontmatter import new_memory_text
    from teambrain_schema.lint import regenerate_index

    repo = root / "repo"
    layout = BrainLayout(repo)
    folder = layout.memories / CLASS_FOLDERS[memory_class]
    folder.mkdir(parents=True)
    layout.retired.mkdir()
    layout.brain_yaml.write_text(BRAIN_YAML_TEMPLATE)
    front = MemoryFrontMatter.model_validate(
        {"id": memory_id, "class": memory_class, "scope": "team", "status": "active",
         "priority": priority, "title": title, "created": "2026-01-01"}
    )  # fmt: skip
    (folder / f"{memory_id}-{slug}.md").write_text(new_memory_text(front, body))
    regenerate_index(layout)
    for relpath, text in (files or {}).items():
        (repo / relpath).write_text(text)
    git("init", "-q", "-b", "main", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "-qm", "scratch brain", cwd=repo)
    return repo
