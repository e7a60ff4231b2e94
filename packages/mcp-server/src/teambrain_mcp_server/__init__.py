"""teambrain MCP server: memory_context, memory_search, memory_propose, memory_feedback over stdio."""

__all__: list[str] = []
