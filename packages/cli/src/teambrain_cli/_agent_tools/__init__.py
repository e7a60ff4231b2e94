"""Agent-tool wiring: the registry of every tool teambrain can be wired into, the
non-destructive installer that merges its MCP server and hooks into the tool's own config files,
and the steps each tool still waits for from its user (``tb install``, ``tb doctor``)."""
