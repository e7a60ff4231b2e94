"""Extension points other packages fill through Python entry points: ``teambrain.embedders``
(``retrieval.embedder.plugin``), ``teambrain.drivers`` (``distill.plugin``) and
``teambrain.adapters`` (more tools for ``tb install``). Looked up only when asked for, never on
the capture hook's path (reading installed packages' metadata costs milliseconds)."""

from __future__ import annotations

import functools
from typing import Any

EMBEDDERS_GROUP = "teambrain.embedders"
DRIVERS_GROUP = "teambrain.drivers"
ADAPTERS_GROUP = "teambrain.adapters"


class PluginProblem(Exception):
    """A plugin that is named but cannot be used; ``message`` says which and why, in one line."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@functools.cache
def plugin_names(group: str) -> tuple[str, ...]:
    """The names installed packages register under entry-point ``group``, sorted."""
    from importlib.metadata import entry_points

    return tuple(sorted({ep.name for ep in entry_points(group=group)}))


def load_plugin(group: str, name: str) -> Any:
    """The object installed package registers as ``name`` in ``group`` (raises
    :class:`PluginProblem` when none does, or when importing it fails)."""
    from importlib.metadata import entry_points

    found = [ep for ep in entry_points(group=group) if ep.name == name]
    if not found:
        known = ", ".join(plugin_names(group)) or "none installed"
        raise PluginProblem(f"no installed package provides {group} plugin {name!r} ({known})")
    entry = found[0]
    try:
        return entry.load()
    except Exception as exc:  # a third party's import error: name it, never a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise PluginProblem(
            f"{group} plugin {name!r} ({entry.value}) failed to load: {first}"
        ) from None
