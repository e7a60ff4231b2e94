"""Kilo Code CLI: where it registers MCP servers and runs hooks, as its documentation says.

What its documentation says (and, where noted, what was verified with the tool itself):

Kilo Code CLI (@kilocode/cli 7.8.1 running its linux-x64 build 7.7.9: the registry here serves
no 7.8.1 build), verified: `kilo mcp list` starts the server and shows it connected, and a
headless `kilo run` calls memory_context. An opencode fork: kilo.json or kilo.jsonc (also
opencode.json, and each inside .kilo/ or .kilocode/), key `mcp`, the same local entries; no
command hooks, opencode's plugin API in .kilo/plugins/ (verified with the same plugin).

Its hook payloads come from opencode's plugin: opencode's :func:`read_hook` reads them.
"""

from __future__ import annotations

from .opencode import opencode_like, read_hook

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: the hook process imports this module
if TYPE_CHECKING:
    from ..registry import Adapter

__all__ = ["adapter", "read_hook"]


def adapter() -> Adapter:
    """Where this tool is wired, for `tb install` and `tb doctor` (built when the registry
    loads: the hook process imports this module for ``read_hook`` alone)."""
    from ..registry import Adapter

    mcp, hooks = opencode_like("kilo", ".kilo")  # it reads opencode.json too
    return Adapter(
        name="kilocode",
        title="Kilo Code CLI",
        aliases=("kilo",),
        docs=(
            "https://kilo.ai/docs/cli",
            "https://kilo.ai/docs/features/mcp/using-mcp-in-kilo-code",
        ),
        mcp=mcp,
        hooks=hooks,
        summary="An opencode fork: the same capture plugin",
        notes=(
            "Kilo Code, like opencode, has no command hooks: tb install writes the same small "
            "plugin, .kilo/plugins/teambrain.js, which hands session events to tb-capture "
            "kilocode."
        ),
    )
