"""Lazy package exports (PEP 562), shared by every teambrain package's ``__init__``.

A package lists ``name -> private module`` and gets a module ``__getattr__`` that imports the
module on first use, so importing a package costs nothing until a name is used (the capture
hook relies on it to stay near bare interpreter start-up). Stdlib only.
"""

from __future__ import annotations

import sys

# Not ``typing.TYPE_CHECKING``: importing typing costs the capture hook milliseconds at start-up.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: dict[str, str], *, before: Callable[[], object] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name in ``exports`` is imported from its
    module (relative to the package) when first used, then cached in the package namespace.
    ``before`` runs before each first import (e.g. to make plugins register themselves)."""
    names = sorted(exports)

    def __getattr__(name: str) -> Any:
        module_name = exports.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if before is not None:
            before()
        # __import__, not importlib.import_module: importing the importlib package (and warnings)
        # costs the capture hook half a millisecond.
        qualified = f"{package}.{module_name}"
        __import__(qualified)
        value = getattr(sys.modules[qualified], name)
        sys.modules[package].__dict__[name] = value
        return value

    def __dir__() -> list[str]:
        return names

    return __getattr__, __dir__
