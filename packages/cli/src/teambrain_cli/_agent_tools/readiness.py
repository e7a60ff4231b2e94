"""What an agent tool needs from its user before it loads teambrain, read from the tool's own files.

Claude Code, Codex CLI and Gemini CLI load nothing a repository configures — MCP servers, hooks —
until the user trusts the folder (and, for Claude Code's project MCP servers and Codex's hooks,
approves them too). ``tb install`` prints the steps still to take and ``tb doctor`` reports each
one; both read the same files the tool writes when the user answers its dialogs, following the
tool's own rules (cited per tool, as observed with the versions in docs/agents.md). Nothing here
writes to those files: trusting is the user's decision.

Each tool's steps are a function its module in :mod:`.tools` hands its adapter
(``Adapter.user_steps``); a tool without one needs no user action (or none we can see). What
they share is here: where the files are (:class:`ToolContext`), reading them safely
(:func:`read_object`), and trusted-folder rules as Gemini CLI and Qwen Code write them.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .jsonc import JsoncError, loads as jsonc_loads


@dataclass(frozen=True)
class UserStep:
    """One thing the user does once so the tool loads teambrain here."""

    name: str  # "folder trust", "server approval", ...
    done: bool
    detail: str  # what was found, or what the tool does until the step is taken
    fix: str  # the step itself, on one line


@dataclass(frozen=True)
class ToolContext:
    """Where a tool's files are: the repository, the user's home, the environment."""

    repo: Path
    home: Path
    env: Mapping[str, str]

    def path_keys(self, path: Path | None = None) -> list[str]:
        """``path`` (default: the repository) as given and resolved: tools key by either."""
        target = path or self.repo
        keys = [str(target)]
        resolved = str(target.resolve())
        return keys if resolved in keys else [*keys, resolved]

    def shown(self, path: Path) -> str:
        """``path`` for a message: ``~/…`` under the home, relative inside the repository."""
        if path.is_relative_to(self.repo):
            return path.relative_to(self.repo).as_posix()
        if path.is_relative_to(self.home):
            return "~/" + path.relative_to(self.home).as_posix()
        return str(path)


# ~/.claude.json keeps every project's history and grows to megabytes; no tool file is larger.
MAX_TOOL_FILE_BYTES = 64 * 1024 * 1024


def read_object(path: Path, fmt: str = "json") -> dict[str, Any]:
    """A JSON, JSONC or TOML file's top-level object; empty when missing or unreadable (the tool
    itself reports a file it cannot parse)."""
    from teambrain_kit.local_files import read_local_bytes

    try:
        # Through links (dotfiles), but never a device or FIFO a committed link leads to
        # (/dev/zero would never end, a FIFO never answer), and bounded.
        text = read_local_bytes(os.path.realpath(path), max_bytes=MAX_TOOL_FILE_BYTES).decode()
        data = (
            tomllib.loads(text)
            if fmt == "toml"
            else jsonc_loads(text)
            if fmt == "jsonc"
            else json.loads(text)
        )
    except (OSError, ValueError, RecursionError, JsoncError, tomllib.TOMLDecodeError):
        return {}  # (UnicodeDecodeError is a ValueError; RecursionError: nested too deep)
    return data if isinstance(data, dict) else {}


def table(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def names(data: Mapping[str, Any], key: str) -> list[str]:
    """The strings in the list at ``data[key]`` (empty when it is not a list)."""
    value = data.get(key)
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def folder_rule(rules: Mapping[str, Any], folder: Path) -> str | None:
    """The trusted-folders rule that decides ``folder`` (Gemini CLI's trustedFolders.json, which
    Qwen Code shares): the longest rule containing it, ``TRUST_PARENT`` counting for its parent."""
    real = folder.resolve()
    best: tuple[int, str] | None = None
    for rule, level in rules.items():
        if level not in ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"):
            continue
        base = Path(rule).expanduser()
        base = (base.parent if level == "TRUST_PARENT" else base).resolve()
        if (real == base or real.is_relative_to(base)) and (best is None or len(rule) > best[0]):
            best = (len(rule), level)
    return best[1] if best else None
