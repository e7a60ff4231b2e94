"""What an agent's session is about, from git alone: branch, changed paths, recent commits.

``memory_context()`` has no query argument; relevance comes from this. Three short git
commands, no shell, each with a timeout; a missing git, a repository without commits or a
detached HEAD give a smaller situation, never an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from teambrain_schema import BRAIN_DIRNAME

GIT_TIMEOUT_S = 3.0
MAX_PATHS = 40
MAX_SUBJECTS = 8
# Words of branch names and paths that say nothing about the work.
_NOISE = frozenset(
    {
        "feature", "feat", "fix", "bugfix", "hotfix", "chore", "wip", "main", "master",
        "develop", "dev", "head", "refs", "heads", "src", "lib", "test", "tests", "py", "ts",
        "js", "md", "txt", "json", "yaml", "yml", "toml", "index", "init", "the", "and",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Situation:
    """A session's situation: repository, branch, changed or recently touched paths, and the
    subjects of recent commits."""

    repo: str
    branch: str | None = None
    changed_paths: list[str] = field(default_factory=list)
    recent_subjects: list[str] = field(default_factory=list)

    def query_text(self) -> str:
        """Search text for this situation (branch words, commit subjects, path words)."""
        parts: list[str] = []
        if self.branch:
            parts.append(" ".join(w for w in _WORD.findall(self.branch) if w.lower() not in _NOISE))
        parts.extend(self.recent_subjects)
        words: dict[str, None] = {}
        for path in self.changed_paths:
            for word in _WORD.findall(path):
                if word.lower() not in _NOISE and not word.isdigit():
                    words.setdefault(word, None)
        parts.append(" ".join(words))
        return " ".join(p for p in parts if p.strip())

    def is_empty(self) -> bool:
        """True when nothing about the session is known beyond the repository."""
        return not (self.branch or self.changed_paths or self.recent_subjects)


def _git(repo_root: Path, *args: str) -> str | None:
    from teambrain_schema.git import git_output

    out = git_output(args, cwd=repo_root, timeout=GIT_TIMEOUT_S)
    return out.decode("utf-8", "replace") if out is not None else None


def _keep_path(path: str) -> bool:
    return bool(path) and not path.startswith(f"{BRAIN_DIRNAME}/")


def gather_situation(repo_root: Path) -> Situation:
    """The situation of the work tree at ``repo_root`` (see :class:`Situation`)."""
    repo = repo_root.resolve().name
    branch_out = _git(repo_root, "symbolic-ref", "--short", "-q", "HEAD")
    branch = branch_out.strip() or None if branch_out is not None else None
    paths: dict[str, None] = {}
    status = _git(repo_root, "status", "--porcelain=v1", "-z", "--untracked-files=normal")
    if status:
        entries = status.split("\0")
        index = 0
        while index < len(entries):
            entry = entries[index]
            index += 1
            if len(entry) < 4:
                continue
            code, path = entry[:2], entry[3:]
            if "R" in code or "C" in code:
                index += 1  # the next entry is the original path of a rename/copy
            if _keep_path(path):
                paths.setdefault(path.rstrip("/"), None)
    subjects: list[str] = []
    # core.quotePath off: a name with a non-ASCII byte as it is, not quoted and escaped.
    log = _git(repo_root, "-c", "core.quotePath=false", "log", "-n", str(MAX_SUBJECTS),
               "--no-merges", "--format=%x1e%s", "--name-only")  # fmt: skip
    if log:
        for record in log.split("\x1e"):
            lines = [line for line in record.splitlines() if line.strip()]
            if not lines:
                continue
            subjects.append(lines[0].strip()[:200])
            for path in lines[1:]:
                if _keep_path(path.strip()):
                    paths.setdefault(path.strip(), None)
    return Situation(
        repo=repo,
        branch=branch,
        changed_paths=list(paths)[:MAX_PATHS],
        recent_subjects=subjects,
    )
