"""Tab completion of the values a verb's argument takes (``tb completion``): tool names, trust
settings, memory ids, candidate ids. Each callback reads only file names or the spool, and
never fails: a completion that cannot be worked out offers nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import click
from click.shell_completion import CompletionItem

ULID_LENGTH = 26

Completer = Callable[[click.Context, click.Parameter, str], list[CompletionItem]]


def _matching(values: Iterable[str], incomplete: str) -> list[CompletionItem]:
    wanted = incomplete.upper() if incomplete.isalnum() else incomplete
    return [
        CompletionItem(value)
        for value in sorted(set(values))
        if value.startswith(incomplete) or value.startswith(wanted)
    ]


def _quietly(values: Callable[[], Iterable[str]]) -> Completer:
    def complete(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:  # fmt: skip
        try:
            return _matching(values(), incomplete)
        except Exception:  # a completion must never print a traceback into the shell
            return []

    return complete


def _tools() -> list[str]:
    from .._agent_tools.registry import supported_tools

    return supported_tools()


def _settings() -> tuple[str, ...]:
    from .._console.trust import SETTINGS

    return SETTINGS


def _memory_ids() -> list[str]:
    """The ids of the memory files (live and retired) of the brain around the current directory,
    from their file names (``<ULID>-<slug>.md``): nothing is parsed."""
    from teambrain_kit.paths import BrainLayout, find_repo_root

    root = find_repo_root()
    if root is None:
        return []
    brain = BrainLayout(root).root
    names = [*brain.glob("memories/*/*.md"), *brain.glob("retired/*.md")]
    return [path.name[:ULID_LENGTH] for path in names if path.name[ULID_LENGTH:].startswith("-")]


def _candidate_ids() -> list[str]:
    """The pending candidates queued for the repository around the current directory."""
    from teambrain_capture import repo_keys
    from teambrain_kit.paths import find_repo_root

    from .._console.context import machine
    from .._proposals.queue import read_queue

    root = find_repo_root()
    queue = read_queue(machine(), repo_keys(root, machine()) if root is not None else None)
    return [candidate.candidate_id for candidate in queue.candidates]


complete_tools = _quietly(_tools)
complete_trust_settings = _quietly(_settings)
complete_memory_ids = _quietly(_memory_ids)
complete_candidate_ids = _quietly(_candidate_ids)
