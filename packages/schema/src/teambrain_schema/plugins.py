"""Extension points other packages fill through Python entry points: ``teambrain.embedders``
(``retrieval.embedder.plugin``), ``teambrain.drivers`` (``distill.plugin``) and
``teambrain.adapters`` (more tools for ``tb install``). Looked up only when asked for, never on
the capture hook's path (reading installed packages' metadata costs milliseconds)."""

from __future__ import annotations

import functools
from typing import Any

__all__ = [
    "ADAPTERS_GROUP",
    "DRIVERS_GROUP",
    "EMBEDDERS_GROUP",
    "PluginProblem",
    "load_plugin",
    "plugin_names",
]

EMBEDDERS_GROUP = "teambrain.embedders"
DRIVERS_GROUP = "teambrain.drivers"
ADAPTERS_GROUP = "teambrain.adapters"


class PluginProblem(Exception):
    """A plugin that is named but cannot be used; ``message`` says which and why, in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@functools.cache
def _entry_points(group: str) -> dict[str, Any]:
    """Entry point name → the first installed package's entry point, for ``group``: the
    installed packages' metadata is read once per group and process."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for entry in entry_points(group=group):
        found.setdefault(entry.name, entry)
    return found


def plugin_names(group: str) -> tuple[str, ...]:
    """The names installed packages register under entry-point ``group``, sorted."""
    return tuple(sorted(_entry_points(group)))


def load_plugin(group: str, name: str) -> Any:
    """The object installed package registers as ``name`` in ``group`` (raises
    :class:`PluginProblem` when none does, or when importing it fails)."""
    entry = _entry_points(group).get(name)
    if entry is None:
        known = ", ".join(plugin_names(group)) or "none installed"
        raise PluginProblem(f"no installed package provides {group} plugin {name!r} ({known})")
    try:
        return entry.load()
    except Exception as exc:  # a third party's import error: name it, never a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PluginProblem(
            f"{group} plugin {name!r} ({entry.value}) failed to load: {first}"
        ) from None
