import subprocess
import sys
from pathlib import Path

import teambrain_mcp_server
from teambrain_schema.lazy import export_problems

EXPECTED = [
    "BrainService",
    "HeartbeatWriter",
    "SERVER_NAME",
    "ServerHeartbeat",
    "TOOL_NAMES",
    "Target",
    "TeambrainServer",
    "build_server",
    "main",
    "package_version",
    "read_heartbeat",
    "resolve_target",
    "serve",
]


def test_public_api_is_pinned() -> None:
    assert teambrain_mcp_server.__all__ == EXPECTED
    for name in EXPECTED:
        assert getattr(teambrain_mcp_server, name) is not None


def test_the_public_names_are_written_once() -> None:
    """``_EXPORTS`` in ``__init__.py`` is the one list of public names: ``__all__``, the lazy
    loader and the type checkers' re-exports (``make exports``) come from it; the pin above
    records it deliberately."""
    assert export_problems(teambrain_mcp_server) == []


def test_reading_the_heartbeat_does_not_load_the_mcp_sdk() -> None:
    code = (
        "import sys, teambrain_mcp_server as m; m.read_heartbeat();"
        "heavy = sorted(n for n in ('mcp', 'pydantic', 'numpy', 'teambrain_retrieval') if n in sys.modules);"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_retrieval_loads_on_first_use_not_at_start(brain_repo: Path) -> None:
    code = (
        "import sys, anyio, teambrain_mcp_server as m\n"
        "from mcp import Client\n"
        "heavy = ('numpy', 'apsw', 'teambrain_retrieval', 'ruamel')\n"
        "def loaded(): return ','.join(n for n in heavy if n in sys.modules) or '-'\n"
        "async def go():\n"
        "    async with Client(m.build_server(heartbeat=False)) as c:\n"
        "        assert len((await c.list_tools()).tools) == 4\n"
        "        print(loaded())\n"
        "        assert not (await c.call_tool('memory_search', {'query': 'payments'})).is_error\n"
        "        print(loaded())\n"
        "anyio.run(go)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=brain_repo, capture_output=True, text=True, check=True
    )
    at_start, after_search = done.stdout.split()
    assert at_start == "-"
    assert {"apsw", "teambrain_retrieval"} <= set(after_search.split(","))
