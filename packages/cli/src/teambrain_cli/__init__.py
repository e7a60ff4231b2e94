"""tb: the teambrain command line, and the agent-tool adapters ``tb install`` writes.

The adapter names are public for packages that add agent tools through the
``teambrain.adapters`` entry point (see docs/architecture.md#plugins); they load lazily.
"""

from __future__ import annotations

from teambrain_schema.lazy import lazy_exports

# ``cli`` and ``main`` load lazily too: tb-capture imports agent-tool modules from this package
# (their hook readers) and must not pay for click and the verbs.
_EXPORTS: dict[str, str] = {
    "cli": "_main",
    "main": "_main",
    "Adapter": "_agent_tools.registry",
    "HookTarget": "_agent_tools.registry",
    "McpTarget": "_agent_tools.registry",
    "ADAPTERS": "_agent_tools.registry",
    "check_adapters": "_agent_tools.registry",
    "plugin_adapters": "_agent_tools.registry",
    "resolve_adapter": "_agent_tools.registry",
    "supported_tools": "_agent_tools.registry",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

TYPE_CHECKING = False
if TYPE_CHECKING:  # explicit re-exports for type checkers
    from ._agent_tools.registry import (
        ADAPTERS as ADAPTERS,
        Adapter as Adapter,
        HookTarget as HookTarget,
        McpTarget as McpTarget,
        check_adapters as check_adapters,
        plugin_adapters as plugin_adapters,
        resolve_adapter as resolve_adapter,
        supported_tools as supported_tools,
    )
    from ._main import cli as cli, main as main
