"""Whether an agent tool is ready on this machine: installed (:func:`tool_here`), and the
one-time steps its user still has to take (:func:`user_steps`, read by the tool's own
``Adapter.user_steps``). Above both :mod:`.registry` (which tool is which) and :mod:`.readiness`
(what the steps read), so neither imports the other.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .readiness import ToolContext, UserStep
from .registry import resolve_adapter


def user_steps(
    tool: str, repo: Path, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> list[UserStep]:
    """The one-time user actions ``tool`` needs before it loads teambrain in ``repo``, each
    marked done or not by reading the tool's own files. Empty for tools that need none."""
    check = resolve_adapter(tool).user_steps
    if check is None:
        return []
    context = ToolContext(repo, home or Path.home(), os.environ if env is None else env)
    return check(context)


@dataclass(frozen=True)
class ToolHere:
    """Whether an agent tool is installed on this machine, and what says so (or what was
    looked for)."""

    installed: bool
    evidence: str


def tool_here(
    tool: str, *, home: Path | None = None, env: Mapping[str, str] | None = None
) -> ToolHere:
    """Whether ``tool`` is installed on this machine: one of its commands on ``PATH``, or a
    file it keeps in the user's home (see :class:`.registry.Presence`). A tool that does not
    say how to tell counts as installed."""
    import shutil

    adapter = resolve_adapter(tool)
    presence = adapter.presence
    if presence is None:
        return ToolHere(True, f"{adapter.title} cannot be looked for")
    env = os.environ if env is None else env
    home = home or Path.home()
    for command in presence.commands:
        found = shutil.which(command, path=env.get("PATH", os.defpath))
        if found:
            return ToolHere(True, f"`{command}` is {found}")
    looked: list[str] = []
    for pattern in presence.paths:
        if pattern.startswith("$"):
            name, _, rest = pattern[1:].partition("/")
            if not env.get(name):
                continue
            path = Path(env[name]).expanduser() / rest if rest else Path(env[name]).expanduser()
            shown = pattern
        else:
            path = home / pattern.removeprefix("~/")
            shown = pattern
        looked.append(shown)
        if path.exists():
            return ToolHere(True, f"{shown} exists")
    commands = " or ".join(f"`{c}`" for c in presence.commands)
    places = f", no {' or '.join(looked)}" if looked else ""
    return ToolHere(
        False, f"{adapter.title} is not installed on this machine (no {commands} on PATH{places})"
    )
