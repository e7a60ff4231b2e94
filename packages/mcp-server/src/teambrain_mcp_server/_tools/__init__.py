"""One module per MCP tool; each exposes ``register(server, service)``."""
