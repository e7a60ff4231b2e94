"""One module per MCP tool, each with its ``NAME`` and ``register(server, service)``.

``MODULES`` is the one list of the server's tools, in the order ``tools/list`` gives them: the
server registers each and ``TOOL_NAMES`` is read from them (docs/contributing.md, "Adding an MCP
tool"). Importing this package loads no tool module, nor the MCP SDK.
"""

MODULES = ("context", "search", "propose", "feedback")
