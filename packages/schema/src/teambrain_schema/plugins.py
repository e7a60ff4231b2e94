"""Extension points other packages fill through Python entry points: ``teambrain.embedders``
(``retrieval.embedder.plugin``), ``teambrain.drivers`` (``distill.plugin``) and
``teambrain.adapters`` (more tools for ``tb install``). Looked up only when asked for, never on
the capture hook's path (reading installed packages' metadata costs milliseconds).

A plugin is someone else's code running in our process, so every call into it — importing it,
calling its factory, calling what the factory built — goes through :func:`plugin_call`: an
exception of any kind (``sys.exit``, ``KeyboardInterrupt`` raised by the plugin, a bug) becomes
one :class:`PluginProblem` line naming the plugin, whatever it prints goes to stderr (stdout is
data: ``--json``, the MCP stream), and loading it is bounded in time
(``TEAMBRAIN_PLUGIN_TIMEOUT`` seconds, default 10): a plugin whose import never returns is
left out, its thread abandoned, while the rest keeps working."""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = [
    "ADAPTERS_GROUP",
    "DRIVERS_GROUP",
    "EMBEDDERS_GROUP",
    "TIMEOUT_ENV",
    "PluginProblem",
    "load_plugin",
    "load_timeout",
    "plugin_call",
    "plugin_names",
]

EMBEDDERS_GROUP = "teambrain.embedders"
DRIVERS_GROUP = "teambrain.drivers"
ADAPTERS_GROUP = "teambrain.adapters"
TIMEOUT_ENV = "TEAMBRAIN_PLUGIN_TIMEOUT"
DEFAULT_TIMEOUT_S = 10.0

T = TypeVar("T")


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
    :class:`PluginProblem` when none does, or when importing it fails, exits, or does not
    finish within the load bound)."""
    entry = _entry_points(group).get(name)
    if entry is None:
        known = ", ".join(plugin_names(group)) or "none installed"
        raise PluginProblem(f"no installed package provides {group} plugin {name!r} ({known})")
    return plugin_call(f"{group} plugin {name!r} ({entry.value})", entry.load, bounded=True)


def load_timeout() -> float:
    """How long loading one plugin may take, in seconds (``TEAMBRAIN_PLUGIN_TIMEOUT``)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if 0 < value < 86_400 else DEFAULT_TIMEOUT_S


def plugin_call(
    label: str,
    function: Callable[..., T],
    *args: Any,
    bounded: bool = False,
    passes: tuple[type[BaseException], ...] = (),
) -> T:
    """``function(*args)``, a plugin's code, with its failures named in one line: any
    exception (``SystemExit`` and ``KeyboardInterrupt`` included) raises :class:`PluginProblem`
    starting with ``label``, and what it prints goes to stderr. ``bounded``: run it on a
    thread of its own and give up after :func:`load_timeout` seconds (for loading and building
    a plugin; an import that never returns cannot be interrupted, only abandoned). Exceptions
    of the types in ``passes`` are the plugin's way of saying what is wrong: raised as they
    are."""
    if not bounded:
        with _stdout_to_stderr():
            try:
                return function(*args)
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, *passes)):  # Ctrl-C, or said on purpose
                    raise
                raise PluginProblem(f"{label} failed: {_describe(exc)}") from None
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as exc:  # reported on the caller's thread
            outcome["error"] = exc

    timeout = load_timeout()
    worker = threading.Thread(target=run, name=f"plugin {label}", daemon=True)
    with _stdout_to_stderr():
        worker.start()
        worker.join(timeout)
    if worker.is_alive():
        raise PluginProblem(f"{label} did not load within {timeout:g} s ({TIMEOUT_ENV}); left out")
    error: BaseException | None = outcome.get("error")
    if error is not None and isinstance(error, passes):
        raise error
    if error is not None:
        raise PluginProblem(f"{label} failed to load: {_describe(error)}")
    value: T = outcome["value"]
    return value


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    text = str(exc).strip()
    first = text.splitlines()[0][:300] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


class _Redirect:
    """``sys.stdout`` is ``sys.stderr`` while any plugin code runs (nesting and threads count)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.saved: Any = None

    @contextmanager
    def active(self) -> Iterator[None]:
        with self.lock:
            if self.depth == 0:
                self.saved = sys.stdout
                sys.stdout = sys.stderr
            self.depth += 1
        try:
            yield
        finally:
            with self.lock:
                self.depth -= 1
                if self.depth == 0:
                    sys.stdout = self.saved
                    self.saved = None


_stdout_to_stderr = _Redirect().active
