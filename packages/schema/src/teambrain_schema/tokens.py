"""One token estimate shared by lint, retrieval and the MCP server."""

from __future__ import annotations

__all__ = ["estimate_tokens", "memory_token_cost"]


def estimate_tokens(text: str) -> int:
    """Approximate model tokens of ``text`` (about four characters per token, rounded up)."""
    return (len(text) + 3) // 4


def memory_token_cost(memory_id: str, title: str, body: str) -> int:
    """Tokens one memory costs in an agent's context: its title and its rendered body."""
    from .render import render_memory

    return estimate_tokens(title) + estimate_tokens(render_memory(memory_id, body)) + 8
