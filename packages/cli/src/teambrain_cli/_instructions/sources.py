"""Where agent tools keep the instructions a team already wrote, and where ``tb export`` writes
the brain's required memories back for tools that read no MCP server."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

MARK_BEGIN = "<!-- teambrain:begin"
MARK_END = "<!-- teambrain:end -->"

# (glob relative to the repository, tool tag). Globs are matched with Path.glob; a folder
# `.clinerules/` holds rule files, a file `.clinerules` is the rules themselves.
REPO_SOURCES: tuple[tuple[str, str], ...] = (
    ("CLAUDE.md", "claude-code"),
    (".claude/CLAUDE.md", "claude-code"),
    (".claude/rules/*.md", "claude-code"),
    ("AGENTS.md", "agents-md"),
    ("GEMINI.md", "gemini-cli"),
    (".cursor/rules/**/*.mdc", "cursor"),
    (".cursor/rules/**/*.md", "cursor"),
    (".cursorrules", "cursor"),
    (".windsurf/rules/*.md", "windsurf"),
    (".windsurfrules", "windsurf"),
    (".clinerules", "cline"),
    (".clinerules/*.md", "cline"),
    (".github/copilot-instructions.md", "copilot"),
    (".github/instructions/*.instructions.md", "copilot"),
    ("memory-bank/*.md", "cline-memory-bank"),
)
MAX_SOURCE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Source:
    """One instruction file: where it is, how to show it, which tool reads it, and whether it is
    personal (outside the repository: Claude Code's auto memory)."""

    path: Path
    shown: str
    tool: str
    personal: bool = False

    def to_json(self) -> dict[str, object]:
        return {"path": self.shown, "tool": self.tool, "personal": self.personal}


def tool_for(relpath: str) -> str:
    """The tool tag of a repository file given by hand (``instructions`` when none matches)."""
    pure = Path(relpath)
    for pattern, tool in REPO_SOURCES:
        if pure.match(pattern) or relpath == pattern:
            return tool
    return "instructions"


def discover(repo: Path) -> list[Source]:
    """Every instruction file of the known tools in ``repo`` (regular files only, inside it),
    in a stable order, each once."""
    seen: set[Path] = set()
    found: list[Source] = []
    top = repo.resolve()
    for pattern, tool in REPO_SOURCES:
        for path in sorted(repo.glob(pattern)):
            if "hooks" in path.relative_to(repo).parts or not path.is_file():
                continue
            try:
                real = path.resolve()
            except (OSError, RuntimeError):
                continue
            # A committed CLAUDE.md linked to .git/config would queue git's own settings (a
            # remote's token among them) as team instructions: only the repository's files.
            if real in seen or not real.is_relative_to(top) or real.is_relative_to(top / ".git"):
                continue
            seen.add(real)
            found.append(Source(path, path.relative_to(repo).as_posix(), tool))
    return found


def claude_project_key(repo: Path) -> str:
    """The folder name Claude Code gives a project under ``~/.claude/projects/``: its path with
    every character that is not a letter or digit replaced by ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(repo.resolve()))


def claude_auto_memory(repo: Path, env: Mapping[str, str] | None = None) -> list[Source]:
    """Claude Code's per-project auto memory for ``repo`` (``MEMORY.md`` and the topic files
    beside it, under ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``): personal notes, imported only
    when asked."""
    env = os.environ if env is None else env
    base = (
        Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else Path.home() / ".claude"
    )
    folder = base / "projects" / claude_project_key(repo) / "memory"
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.md"), key=lambda p: (p.name != "MEMORY.md", p.name))
    return [
        Source(p, f"~/{p.relative_to(Path.home()).as_posix()}" if p.is_relative_to(Path.home())
               else str(p), "claude-auto-memory", personal=True)
        for p in files if p.is_file()
    ]  # fmt: skip


def without_exported_section(text: str) -> str:
    """``text`` without the section ``tb export`` wrote (importing it back would only propose
    the brain's own memories again)."""
    start = text.find(MARK_BEGIN)
    if start < 0:
        return text
    end = text.find(MARK_END, start)
    return text[:start] + (text[end + len(MARK_END) :] if end >= 0 else "")
