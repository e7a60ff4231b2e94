"""teambrain MCP server: memory_context, memory_search, memory_propose, memory_feedback over stdio.

Names load lazily: ``read_heartbeat`` (for ``tb metrics`` and ``tb doctor``) imports only the
standard library, and ``build_server`` loads the MCP SDK but none of retrieval, which opens on
the first tool call that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teambrain_schema.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "SERVER_NAME": "_server",
    "TOOL_NAMES": "_server",
    "TeambrainServer": "_server",
    "build_server": "_server",
    "package_version": "_meta",
    "BrainService": "_service",
    "serve": "_main",
    "main": "_main",
    "ServerHeartbeat": "_heartbeat",
    "HeartbeatWriter": "_heartbeat",
    "read_heartbeat": "_heartbeat",
    "resolve_target": "_target",
    "Target": "_target",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # explicit re-exports (``X as X``) for type checkers
    from ._heartbeat import (
        HeartbeatWriter as HeartbeatWriter,
        ServerHeartbeat as ServerHeartbeat,
        read_heartbeat as read_heartbeat,
    )
    from ._main import main as main, serve as serve
    from ._meta import package_version as package_version
    from ._server import (
        SERVER_NAME as SERVER_NAME,
        TOOL_NAMES as TOOL_NAMES,
        TeambrainServer as TeambrainServer,
        build_server as build_server,
    )
    from ._service import BrainService as BrainService
    from ._target import Target as Target, resolve_target as resolve_target
