"""The built-in agent tools, one module each: ``ADAPTER`` (a :class:`..registry.Adapter`) says
where the tool registers MCP servers and how it runs hooks, with the documentation it was checked
against, what its users should know, and the one-time steps it waits for from them.

Each module is a ``teambrain.adapters`` entry point in packages/cli/pyproject.toml, the way a
separate package adds a tool; docs/contributing.md says how to add one.
"""
