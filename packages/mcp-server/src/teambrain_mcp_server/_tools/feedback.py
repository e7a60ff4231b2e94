"""``memory_feedback({id, useful})``: did a memory help? Stored on this machine only."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field, StrictBool
from teambrain_schema import ULID_PATTERN, MemoryFeedbackInput, MemoryFeedbackResult

from .._service import BrainService
from .._text import feedback_text
from ._answers import answer, contract, reply

NAME = "memory_feedback"
DESCRIPTION = """\
Tell the team brain whether a memory you were shown helped (useful: true) or was wrong, stale \
or beside the point (useful: false). Votes stay on this machine and help the team prune and \
improve its memories."""

MemoryId = Annotated[
    str,
    Field(
        pattern=f"^{ULID_PATTERN}$",
        description="The memory's id (26 characters) from memory_context or memory_search",
    ),
]
Useful = Annotated[StrictBool, Field(description="true when the memory helped, false otherwise")]


def register(server: MCPServer, service: BrainService) -> None:
    """Add ``memory_feedback`` to ``server``."""

    @server.tool(
        name=NAME,
        title="Rate a team memory",
        description=DESCRIPTION,
        annotations=ToolAnnotations(
            title="Rate a team memory",
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    def memory_feedback(
        id: MemoryId, useful: Useful
    ) -> Annotated[CallToolResult, MemoryFeedbackResult]:
        arguments = contract(MemoryFeedbackInput, id=id, useful=useful)
        result = answer(lambda: service.feedback(arguments.id, arguments.useful))
        return reply(result, feedback_text(result))
