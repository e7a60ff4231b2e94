"""The built-in agent tools, one module each: ``adapter()`` builds the tool's
:class:`..registry.Adapter` (where it registers MCP servers and how it runs hooks, with the
documentation it was checked against, what its users should know, and the one-time steps it
waits for from them), and ``read_hook`` reads its hook payloads in ``tb-capture``.

Each module is a ``teambrain.adapters`` entry point in packages/cli/pyproject.toml, the way a
separate package adds a tool, and the way ``tb-capture`` finds the reader; docs/contributing.md
says how to add one.
"""
