"""Extension points filled through Python entry points: ``teambrain.embedders``
(``retrieval.embedder.provider`` / ``.plugin``), ``teambrain.drivers`` (``distill.driver`` /
``.plugin``) and ``teambrain.adapters`` (the tools of ``tb install``). teambrain's own packages
declare their built-in embedders, drivers and agent tools in these same groups, in their own
metadata (:func:`builtin_names`, :func:`load_builtin`: read from that one package, a fraction of
a millisecond); every other installed package's are plugins (:func:`plugin_names`,
:func:`load_plugin`). Looked up only when asked for, never on the capture hook's path (reading
every installed package's metadata costs milliseconds).

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
    "OWN_DISTRIBUTIONS",
    "PluginProblem",
    "builtin_names",
    "load_builtin",
    "load_plugin",
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


# teambrain's own distributions: what they declare in a group is built in, never a plugin.
OWN_DISTRIBUTIONS = frozenset(
    f"teambrain-{name}"
    for name in ("kit", "schema", "capture", "retrieval", "distill", "sync", "mcp-server", "cli")
)


def _distribution_of(entry: Any) -> str:
    """The normalised name of the distribution declaring ``entry`` ("" when unknown)."""
    import re

    name = getattr(getattr(entry, "dist", None), "name", None) or ""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def _entry_points(group: str) -> dict[str, Any]:
    """Entry point name → the first installed package's entry point, for ``group``, leaving out
    teambrain's own (built in, not plugins): the installed packages' metadata is read once per
    group and process."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for entry in entry_points(group=group):
        if _distribution_of(entry) not in OWN_DISTRIBUTIONS:
            found.setdefault(entry.name, entry)
    return found


@functools.cache
def _builtin_entry_points(group: str, distribution: str) -> dict[str, Any]:
    """The entry points teambrain package ``distribution`` declares in ``group``, in the order
    its metadata lists them; read from that package alone."""
    from importlib.metadata import PackageNotFoundError, distribution as installed

    try:
        entries = installed(distribution).entry_points
    except PackageNotFoundError:
        return {}
    return {entry.name: entry for entry in entries if entry.group == group}


def builtin_names(group: str, distribution: str) -> tuple[str, ...]:
    """The names teambrain package ``distribution`` declares in ``group``, in declared order
    (empty when it is not installed)."""
    return tuple(_builtin_entry_points(group, distribution))


def load_builtin(group: str, distribution: str, name: str) -> Any:
    """The object ``distribution`` declares as ``name`` in ``group``, imported like any module
    of ours (no plugin guard); :class:`PluginProblem` when it declares none, saying that an
    install whose metadata lists nothing at all is stale."""
    entry = _builtin_entry_points(group, distribution).get(name)
    if entry is None:
        declared = builtin_names(group, distribution)
        if not declared:
            raise PluginProblem(
                f"{distribution} declares no {group} entry points: its installed metadata is "
                f"stale or missing (reinstall it; in a checkout, `make install`)"
            )
        raise PluginProblem(f"{distribution} has no built-in {name!r} in {group}")
    return entry.load()


def plugin_names(group: str) -> tuple[str, ...]:
    """The names other installed packages (not teambrain's own) register under entry-point
    ``group``, sorted."""
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
