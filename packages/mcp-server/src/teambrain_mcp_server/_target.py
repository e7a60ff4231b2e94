"""Which repository a server serves, and which agent session it belongs to.

Agent tools launch MCP servers in the project directory, so the current directory's repository
is the default. Some tools also export their project directory (Claude Code, Cursor and Gemini
all set ``CLAUDE_PROJECT_DIR``, so it says nothing about *which* tool started us); it is used
only when the current directory is not inside a repository.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from teambrain_kit.paths import find_repo_root

PROJECT_DIR_ENVS = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
# Session ids that agent tools hand to the MCP servers they start (see docs/mcp.md).
SESSION_ID_ENVS = ("CLAUDE_CODE_SESSION_ID", "GEMINI_SESSION_ID")


@dataclass(frozen=True)
class Target:
    """Where the server looked (for messages) and the repository it found, if any."""

    start: Path
    repo_root: Path | None
    explicit: bool = False


def resolve_target(
    repo: Path | None = None, *, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> Target:
    """The repository to serve: ``repo`` when named, else the current directory's, else an
    agent tool's project directory. ``repo_root`` is None when none of them is a repository."""
    environ = os.environ if env is None else env
    if repo is not None:
        start = repo.expanduser().resolve()
        return Target(start=start, repo_root=find_repo_root(start), explicit=True)
    start = (cwd or Path.cwd()).resolve()
    found = find_repo_root(start)
    if found is None:
        for name in PROJECT_DIR_ENVS:
            value = environ.get(name)
            if value and Path(value).is_dir():
                project_root = find_repo_root(Path(value))
                if project_root is not None:
                    return Target(start=start, repo_root=project_root)
    return Target(start=start, repo_root=found)


def session_hints(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Session ids the launching agent tool exported, in order of trust."""
    environ = os.environ if env is None else env
    return tuple(value for name in SESSION_ID_ENVS if (value := environ.get(name, "").strip()))
