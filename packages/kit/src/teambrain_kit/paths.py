"""Where things live: the brain inside a repository, and the machine-local directories.

The machine-local layout here deliberately has no ``user/`` directory: the sync package gets its
paths from this module and must not be able to name it. Personal data (feedback votes,
preferences) has its own helper in teambrain_capture.

Stdlib only: the capture hook imports this on its hot path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

__all__ = [
    "MAX_BRAIN_FILES",
    "MAX_WALK_DEPTH",
    "BrainLayout",
    "MachineLayout",
    "composed_form",
    "find_brain",
    "find_repo_root",
    "machine_layout",
]

BRAIN_DIRNAME: Final = ".teambrain"
MEMORY_CLASSES: Final = ("decision", "convention", "map", "learning")
CLASS_FOLDERS: Final[dict[str, str]] = {
    "decision": "decisions",
    "convention": "conventions",
    "map": "map",
    "learning": "learnings",
}
FOLDER_CLASSES: Final[dict[str, str]] = {folder: cls for cls, folder in CLASS_FOLDERS.items()}

MemoryClassName = Literal["decision", "convention", "map", "learning"]


# A brain is memories/<class>/<file>: a few levels, thousands of files (benchmarks run 100,000,
# the shared index's scale). Walks stop at these bounds, which a commit of 5,000 nested folders
# or 200,000 files exceeds.
MAX_WALK_DEPTH = 16
MAX_BRAIN_FILES = 150_000


@dataclass(frozen=True)
class BrainLayout:
    """Paths of a brain: ``<repo>/.teambrain`` and what it holds."""

    repo_root: Path

    @property
    def root(self) -> Path:
        return self.repo_root / BRAIN_DIRNAME

    @property
    def brain_yaml(self) -> Path:
        return self.root / "brain.yaml"

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def retired(self) -> Path:
        return self.root / "retired"

    @property
    def prompts(self) -> Path:
        return self.root / "prompts"

    @property
    def index_md(self) -> Path:
        return self.root / "INDEX.md"

    def class_dir(self, memory_class: str) -> Path:
        """The folder for active memories of ``memory_class``."""
        return self.memories / CLASS_FOLDERS[memory_class]

    def memory_path(self, memory_class: str, memory_id: str, slug: str) -> Path:
        """The contract path of an active memory file."""
        return self.class_dir(memory_class) / f"{memory_id}-{slug}.md"

    def relative(self, path: Path) -> str:
        """``path`` relative to the repository root, with forward slashes."""
        return path.relative_to(self.repo_root).as_posix()

    def leads_out(self, folder: Path) -> str | None:
        """Where ``folder`` (``memories/``, ``retired/`` or one under them) really is when a
        symbolic link takes it out of the brain, or takes the brain out of the repository;
        None when it stays inside. Such a folder is never walked — a teammate's committed link
        to ``/`` would otherwise have every verb walk the whole disk — but reported instead.
        Two ``lstat`` calls when no link is involved (this runs before every search)."""
        import os

        if not os.path.islink(folder) and not os.path.islink(self.root):
            return None
        repo_real = os.path.realpath(self.repo_root)
        brain_real = os.path.realpath(self.root)
        real = os.path.realpath(folder)
        brain_inside = brain_real == repo_real or brain_real.startswith(repo_real + os.sep)
        if brain_inside and real.startswith(brain_real + os.sep):
            return None
        return real


@dataclass(frozen=True)
class MachineLayout:
    """Machine-local directories under ``$TEAMBRAIN_HOME`` that several packages share."""

    home: Path

    @property
    def spool(self) -> Path:
        return self.home / "spool"

    @property
    def sessions(self) -> Path:
        return self.spool / "sessions"

    @property
    def candidates(self) -> Path:
        return self.spool / "candidates"

    @property
    def index_db(self) -> Path:
        return self.home / "index.db"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def heartbeat(self) -> Path:
        return self.logs / "heartbeat.json"

    @property
    def proposals(self) -> Path:
        """Patches of proposals not sent as pull requests (``tb propose``, ``tb retire``)."""
        return self.home / "proposals"

    def session_file(self, sid: str) -> Path:
        """The spool file of session ``sid`` (``sid`` must already be file-name safe)."""
        return self.sessions / f"{sid}.jsonl"

    def candidate_file(self, candidate_id: str) -> Path:
        """The spool file of candidate ``candidate_id``."""
        return self.candidates / f"{candidate_id}.json"


def teambrain_home() -> Path:
    """``$TEAMBRAIN_HOME`` when set, else ``~/.teambrain`` (:func:`teambrain_home_dir`)."""
    from .home import teambrain_home_dir

    return Path(teambrain_home_dir())


def machine_layout(home: Path | None = None) -> MachineLayout:
    """The machine-local layout rooted at ``home`` (default: :func:`teambrain_home`)."""
    return MachineLayout(home if home is not None else teambrain_home())


def find_repo_root(start: Path | None = None) -> Path | None:
    """The nearest enclosing git work tree (a ``.git`` directory or worktree file), or None."""
    current = (start or Path.cwd()).resolve()
    for candidate in (current, *current.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def find_brain(start: Path | None = None) -> BrainLayout | None:
    """The brain of the enclosing repository, when it has been initialised."""
    repo = find_repo_root(start)
    if repo is None:
        return None
    layout = BrainLayout(repo)
    return layout if layout.root.is_dir() else None


def composed_form(text: str) -> str:
    """``text`` in Unicode's composed form (NFC), the form paths are compared in: a name typed
    "é" and one stored "e" + U+0301 (as macOS names files) are the same path."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)
